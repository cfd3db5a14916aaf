package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/nodetls"
)

// TestLocalSet: without arguments nova-certs makes one certificate per
// role that loads as each daemon loads it; a second run keeps the CA, so
// certificates made later still join the cluster.
func TestLocalSet(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run([]string{"-dir", dir}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range nodetls.Roles {
		cfg, err := nodetls.Load(nodetls.Files{Cert: filepath.Join(dir, string(role)+".crt"), Key: filepath.Join(dir, string(role)+".key"), CA: filepath.Join(dir, "ca.crt")})
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if err := cfg.RequireRole(role); err != nil {
			t.Fatal(err)
		}
		if !cfg.Identity.HasHost("127.0.0.1") || !cfg.Identity.HasHost("localhost") {
			t.Errorf("%s: hosts %v", role, cfg.Identity.Hosts)
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "storaged.key")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("a key must be readable by its owner only: %v %v", info.Mode(), err)
	}
	keyPath := filepath.Join(dir, "gossip.key")
	if keys, err := gossip.LoadKeyFile(keyPath); err != nil || len(keys) != 1 || len(keys[0]) != 32 {
		t.Fatalf("gossip.key: %v, %d keys", err, len(keys))
	}
	if info, err := os.Stat(keyPath); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the gossip key must be readable by its owner only: %v %v", info.Mode(), err)
	}
	gossipKey, _ := os.ReadFile(keyPath)
	out.Reset()
	if err := run([]string{"-dir", dir, "metad2:metad:meta2.example.com", "storaged7:storaged:10.0.0.7"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(keyPath); string(again) != string(gossipKey) {
		t.Fatal("a second run replaced the gossip key: the daemons that have the first would no longer hear the new ones")
	}
	if !strings.Contains(out.String(), "using the CA") {
		t.Fatalf("second run did not reuse the CA: %s", out.String())
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "ca.crt")); !bytes.Equal(again, ca) {
		t.Fatal("the CA changed")
	}
	m, err := nodetls.Load(nodetls.Files{Cert: filepath.Join(dir, "metad2.crt"), Key: filepath.Join(dir, "metad2.key"), CA: filepath.Join(dir, "ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	if m.Identity.Name != metadCommonName || !m.Identity.HasHost("meta2.example.com") {
		t.Fatalf("metad2: %+v; want common name %q (etcd's allowed name) and its host", m.Identity, metadCommonName)
	}
}

func TestBadArguments(t *testing.T) {
	for arg, says := range map[string]string{
		"storaged1":               "want NAME:ROLE",
		"storaged1:root:10.0.0.1": `unknown role "root"`,
		"storaged1:storaged":      "needs the hosts it is reached at",
		"../x:client":             "NAME is a file name",
		"ca:client":               "NAME is a file name",
		"a:b:c:d":                 "want NAME:ROLE",
	} {
		var out, errOut bytes.Buffer
		err := run([]string{"-dir", t.TempDir(), arg}, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want an error saying %q", arg, err, says)
		}
	}
}

// ownerOf is a file's UID and GID.
func ownerOf(t *testing.T, path string) (int, int) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	return int(sys.Uid), int(sys.Gid)
}

// A certificate added later with -owner for another user leaves the CA
// certificate and the gossip key, which the daemons read, to their owner.
// Giving files to another user needs root; elsewhere the test skips.
func TestOwnerLeavesExistingFiles(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run([]string{"-dir", dir, "-owner", "10001:10001", "s1:storaged:s1"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-dir", dir, "-owner", "4242:4343", "br:importer:br"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string][2]int{
		"ca.crt": {10001, 10001}, "gossip.key": {10001, 10001}, "s1.key": {10001, 10001},
		"br.crt": {4242, 4343}, "br.key": {4242, 4343}, "ca.key": {0, 0},
	} {
		if uid, gid := ownerOf(t, filepath.Join(dir, f)); uid != want[0] || gid != want[1] {
			t.Errorf("%s owned by %d:%d, want %d:%d", f, uid, gid, want[0], want[1])
		}
	}
}

// -owner gives the files the daemons read to a container's user; here the
// owner the test runs as (chown to oneself needs no privilege).
func TestOwner(t *testing.T) {
	dir := t.TempDir()
	uid, gid := os.Getuid(), os.Getgid()
	var out, errOut bytes.Buffer
	if err := run([]string{"-dir", dir, "-owner", fmt.Sprintf("%d:%d", uid, gid), "s1:storaged:s1"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ca.crt", "gossip.key", "s1.crt", "s1.key"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if sys := st.Sys().(*syscall.Stat_t); int(sys.Uid) != uid || int(sys.Gid) != gid {
			t.Errorf("%s owned by %d:%d, want %d:%d", f, sys.Uid, sys.Gid, uid, gid)
		}
	}
	for _, bad := range []string{"10001", "a:b", "1:-2", ":"} {
		if err := run([]string{"-dir", t.TempDir(), "-owner", bad, "s1:storaged:s1"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "want UID:GID") {
			t.Errorf("-owner %q: %v, want an error saying UID:GID", bad, err)
		}
	}
}
