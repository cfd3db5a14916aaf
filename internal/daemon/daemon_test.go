package daemon

import (
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newFlags() (*flag.FlagSet, *string, *int) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:1", "")
	n := fs.Int("n", 1, "")
	return fs, addr, n
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigFileAndFlagPrecedence(t *testing.T) {
	p := writeConfig(t, "addr: 10.0.0.1:9\nn: 5\n")
	fs, addr, n := newFlags()
	if _, err := ParseFlags(fs, []string{"--config", p, "--n", "7"}, "test"); err != nil {
		t.Fatal(err)
	}
	if *addr != "10.0.0.1:9" {
		t.Fatalf("addr from config: %q", *addr)
	}
	if *n != 7 {
		t.Fatalf("command-line flag must win over the config file: n = %d", *n)
	}
}

func TestConfigErrorsNameTheProblem(t *testing.T) {
	cases := []struct{ config, want string }{
		{"nope: 1\n", `unknown key "nope"`},
		{"n: abc\n", `key "n"`},
		{"addr: [\n", "c.yaml"},
		{"addr:\n", `key "addr" has no value`}, // not the text "<nil>"
		{"addr:\n  - a\n  -\n", `key "addr": item 1 has no value`},
	}
	for _, c := range cases {
		fs, _, _ := newFlags()
		_, err := ParseFlags(fs, []string{"--config", writeConfig(t, c.config)}, "test")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("config %q: err %v, want it to mention %q", c.config, err, c.want)
		}
	}
	fs, _, _ := newFlags()
	if _, err := ParseFlags(fs, []string{"stray"}, "test"); err == nil || !strings.Contains(err.Error(), "stray") {
		t.Fatalf("stray argument: %v", err)
	}
	fs, _, _ = newFlags()
	if _, err := ParseFlags(fs, []string{"--log-level", "loud"}, "test"); err == nil || !strings.Contains(err.Error(), "loud") {
		t.Fatalf("bad log level: %v", err)
	}
}

func TestSplitList(t *testing.T) {
	got := SplitList(" a:1, b:2,,c ,")
	if strings.Join(got, "|") != "a:1|b:2|c" {
		t.Fatalf("SplitList = %q", got)
	}
	if SplitList("") != nil {
		t.Fatal("an empty flag must give no items")
	}
}

// TestDebugPages: /debug/pprof/ only with --enable-debug-pages; without,
// the answer says how to turn it on.
func TestDebugPages(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, on := range []bool{false, true} {
		s, err := StartStatusServer("127.0.0.1:0", NewRegistry(), func() error { return nil }, on, log)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get("http://" + s.Addr() + "/debug/pprof/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_ = s.Close()
		if on && resp.StatusCode != http.StatusOK {
			t.Errorf("debug pages on: %d", resp.StatusCode)
		}
		if !on && (resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "--enable-debug-pages")) {
			t.Errorf("debug pages off: %d %q", resp.StatusCode, body)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9559": true, "127.1.2.3:9559": true, "[::1]:9559": true, "localhost:9559": true,
		"0.0.0.0:9559": false, ":9559": false, "[::]:9559": false, "10.0.0.5:9559": false,
		"meta1:9559": false, "localhost.example.com:9559": false, "127.0.0.1": false,
	} {
		if got := LoopbackOnly(addr); got != want {
			t.Errorf("LoopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestVersionFlag: --version ends flag parsing as -h does (the daemon
// exits 0 without starting), and every registry carries the build info.
func TestVersionFlag(t *testing.T) {
	fs, _, _ := newFlags()
	if _, err := ParseFlags(fs, []string{"--version"}, "test"); err != flag.ErrHelp {
		t.Fatalf("ParseFlags(--version) = %v, want flag.ErrHelp", err)
	}
	mfs, err := NewRegistry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		found = found || mf.GetName() == "novagraph_build_info"
	}
	if !found {
		t.Fatal("the daemon registry has no novagraph_build_info")
	}
}
