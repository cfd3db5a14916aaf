package graphd

import (
	"fmt"
	"testing"
	"time"
)

// TestSignInGuard follows one guesser's clock: a burst of failures, then
// one try per second; successes give their try back; other users and hosts
// keep theirs; guesses in flight at once count; a host's failures across
// many user names run out too; sweep forgets refilled limiters.
func TestSignInGuard(t *testing.T) {
	g := newSignInGuard()
	now := time.Unix(1000, 0)
	try := func(user, host string, failed bool) bool {
		done, _, ok := g.attempt(user, host, now)
		if ok {
			done(failed)
		}
		return ok
	}
	for i := 0; i < 3*failedSignInBurst; i++ {
		if !try("eve", "10.0.0.1", false) {
			t.Fatalf("success %d refused: successes must not use up tries", i)
		}
	}
	for i := 0; i < failedSignInBurst; i++ {
		if !try("eve", "10.0.0.1", true) {
			t.Fatalf("failure %d refused within the burst", i)
		}
	}
	if _, wait, ok := g.attempt("eve", "10.0.0.1", now); ok || wait != time.Second {
		t.Fatalf("after the burst: allowed %v, wait %v; want a 1s wait", ok, wait)
	}
	if !try("eve", "10.0.0.2", true) || !try("root", "10.0.0.1", true) {
		t.Fatal("another host of eve's, or another user of eve's host, is blocked")
	}
	now = now.Add(time.Second)
	if !try("eve", "10.0.0.1", true) {
		t.Fatal("no try a second later")
	}

	// Guesses in flight at once: each takes a try before its outcome.
	var pending []func(bool)
	for range 2 * failedSignInBurst {
		if done, _, ok := g.attempt("mallory", "10.0.0.4", now); ok {
			pending = append(pending, done)
		}
	}
	if len(pending) != failedSignInBurst {
		t.Fatalf("%d concurrent guesses let through, want the burst of %d", len(pending), failedSignInBurst)
	}
	for _, done := range pending {
		done(true)
	}

	// Many user names from one host: the host's own limit.
	for i := 0; i < failedSignInHostBurst; i++ {
		try(fmt.Sprintf("user%d", i), "10.0.0.3", true)
	}
	if try("fresh-name", "10.0.0.3", true) {
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
