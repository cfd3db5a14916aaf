package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/novagraph/novagraph/internal/daemon"
)

// TestGoMemoryLimit: --go-memory-limit takes a size, 0 or off; unset, the
// limit derived from the query budgets applies unless GOMEMLIMIT is set.
func TestGoMemoryLimit(t *testing.T) {
	const derived = 9<<30 + 256<<20
	for _, c := range []struct {
		flag       string // "": not given
		gomemlimit bool
		want       int64
	}{
		{"", false, derived},
		{"", true, 0},
		{"2GiB", false, 2 << 30},
		{"2GiB", true, 2 << 30},
		{"512MB", false, 512 << 20},
		{"1073741824", false, 1 << 30},
		{"0", false, 0},
		{"off", false, 0},
		{"OFF", true, 0},
	} {
		var f goMemoryFlag
		if c.flag != "" {
			if err := f.Set(c.flag); err != nil {
				t.Fatalf("%q: %v", c.flag, err)
			}
		}
		if got := goMemoryLimit(f, derived, c.gomemlimit); got != c.want {
			t.Errorf("--go-memory-limit %q, GOMEMLIMIT set %v: %d, want %d", c.flag, c.gomemlimit, got, c.want)
		}
	}
	for _, bad := range []string{"-1", "lots", "2 parsecs"} {
		var f goMemoryFlag
		if err := f.Set(bad); err == nil {
			t.Errorf("--go-memory-limit %q accepted", bad)
		}
	}
}

// TestGoMemoryLimitConfigFile: the config file key takes the same values,
// off unquoted included.
func TestGoMemoryLimitConfigFile(t *testing.T) {
	for text, want := range map[string]goMemoryFlag{
		"go-memory-limit: 3GiB\n":         {set: true, bytes: 3 << 30},
		"go-memory-limit: off\n":          {set: true},
		"go-memory-limit: 0\n":            {set: true},
		"go-memory-limit: 1073741824\n":   {set: true, bytes: 1 << 30},
		"query-memory-limit-total: 1GB\n": {},
	} {
		path := filepath.Join(t.TempDir(), "graphd.yaml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("graphd", flag.ContinueOnError)
		var f goMemoryFlag
		fs.Var(&f, "go-memory-limit", "")
		total := sizeFlag(0)
		fs.Var(&total, "query-memory-limit-total", "")
		if _, err := daemon.ParseFlags(fs, []string{"--config", path}, "graphd"); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if f != want {
			t.Errorf("%q: %+v, want %+v", text, f, want)
		}
	}
}

// TestGoGCPercent: --go-gc-percent applies when given (negative: none);
// unset, the default applies under a Go memory limit unless GOGC is set.
func TestGoGCPercent(t *testing.T) {
	for _, c := range []struct {
		flag                    int
		flagSet, gogcSet, limit bool
		want                    int
	}{
		{defaultGoGCPercent, false, false, true, defaultGoGCPercent},
		{defaultGoGCPercent, false, false, false, -1}, // no limit bounds the heap
		{defaultGoGCPercent, false, true, true, -1},   // GOGC wins
		{200, true, true, true, 200},                  // the flag wins over GOGC
		{50, true, false, false, 50},
		{-1, true, false, true, -1},
	} {
		if got := goGCPercent(c.flag, c.flagSet, c.gogcSet, c.limit); got != c.want {
			t.Errorf("--go-gc-percent %d (given %v), GOGC set %v, limit %v: %d, want %d", c.flag, c.flagSet, c.gogcSet, c.limit, got, c.want)
		}
	}
	fs := flag.NewFlagSet("graphd", flag.ContinueOnError)
	fs.Int("go-gc-percent", defaultGoGCPercent, "")
	fs.Int("other", 0, "")
	if err := fs.Parse([]string{"--other", "3"}); err != nil {
		t.Fatal(err)
	}
	if flagGiven(fs, "go-gc-percent") || !flagGiven(fs, "other") {
		t.Fatal("flagGiven does not tell the flags given from the others")
	}
}
