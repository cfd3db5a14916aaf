package graphd

import (
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/metad"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// TestSignInGuard follows one guesser's clock: a burst of failures, then
// one try per second; other users and hosts keep theirs; a host's failures
// across many user names run out too; sweep forgets refilled limiters.
func TestSignInGuard(t *testing.T) {
	g := newSignInGuard()
	now := time.Unix(1000, 0)
	for i := 0; i < failedSignInBurst; i++ {
		if wait, blocked := g.blocked("eve", "10.0.0.1", now); blocked {
			t.Fatalf("failure %d blocked (wait %v) within the burst", i, wait)
		}
		g.failed("eve", "10.0.0.1", now)
	}
	wait, blocked := g.blocked("eve", "10.0.0.1", now)
	if !blocked || wait != time.Second {
		t.Fatalf("after the burst: blocked %v, wait %v; want a 1s wait", blocked, wait)
	}
	if _, blocked := g.blocked("eve", "10.0.0.2", now); blocked {
		t.Fatal("eve from another host is blocked")
	}
	if _, blocked := g.blocked("root", "10.0.0.1", now); blocked {
		t.Fatal("another user from eve's host is blocked")
	}
	if _, blocked := g.blocked("eve", "10.0.0.1", now.Add(time.Second)); blocked {
		t.Fatal("no try a second later")
	}

	// Many user names from one host: the host's own limit.
	for i := 0; i < failedSignInHostBurst; i++ {
		g.failed(string(rune('a'+i%26))+string(rune('a'+i/26)), "10.0.0.3", now)
	}
	if _, blocked := g.blocked("fresh-name", "10.0.0.3", now); !blocked {
		t.Fatal("a host past its burst of failures across user names is not blocked")
	}

	g.sweep(now.Add(time.Minute))
	if len(g.byUser) != 0 || len(g.byHost) != 0 {
		t.Fatalf("after a quiet minute %d user and %d host limiters remain", len(g.byUser), len(g.byHost))
	}
}

func TestHostOf(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.1:5555": "10.0.0.1", "[::1]:80": "::1", "pipe": "pipe", "": ""} {
		if got := hostOf(in); got != want {
			t.Errorf("hostOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewSessionIDIsRandom(t *testing.T) {
	seen := map[int64]bool{}
	for i := 0; i < 1000; i++ {
		id := newSessionID()
		if id <= 0 || seen[id] {
			t.Fatalf("draw %d: id %d (positive and new expected)", i, id)
		}
		seen[id] = true
	}
}

// TestRefuseDefaultRootPassword: root's default password works from
// loopback only, unless allowed; other users and passwords pass through
// (metad judged them already).
func TestRefuseDefaultRootPassword(t *testing.T) {
	for _, tc := range []struct {
		name        string
		allow       bool
		user, pass  string
		host        string
		wantRefused bool
	}{
		{"root default from another host", false, rootUser, defaultRootPassword, "10.0.0.7", true},
		{"root default from an IPv6 host", false, rootUser, defaultRootPassword, "2001:db8::7", true},
		{"root default without a peer address", false, rootUser, defaultRootPassword, "", true},
		{"root default from loopback", false, rootUser, defaultRootPassword, "127.0.0.1", false},
		{"root default from IPv6 loopback", false, rootUser, defaultRootPassword, "::1", false},
		{"root default allowed", true, rootUser, defaultRootPassword, "10.0.0.7", false},
		{"root with its own password", false, rootUser, "s3cret", "10.0.0.7", false},
		{"another user with the same password", false, "alice", defaultRootPassword, "10.0.0.7", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{cfg: Config{AllowDefaultRootPassword: tc.allow}}
			err := s.refuseDefaultRootPassword(&graphpb.AuthReq{Username: tc.user, Password: tc.pass}, tc.host)
			if (err != nil) != tc.wantRefused {
				t.Fatalf("refused: %v, want %v", err, tc.wantRefused)
			}
			if err != nil && !strings.Contains(err.Error(), "ALTER USER root") {
				t.Fatalf("the refusal does not say what to do: %v", err)
			}
		})
	}
}

// TestDefaultRootPasswordMatchesMetad: graphd's copy of root's name and
// default password is metad's.
func TestDefaultRootPasswordMatchesMetad(t *testing.T) {
	if rootUser != metad.RootUser || defaultRootPassword != metad.DefaultRootPassword {
		t.Fatalf("graphd has root %q / %q, metad %q / %q", rootUser, defaultRootPassword, metad.RootUser, metad.DefaultRootPassword)
	}
}
