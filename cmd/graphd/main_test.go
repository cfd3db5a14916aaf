package main

import (
	"flag"
	"testing"

	"github.com/novagraph/novagraph/internal/daemon"
)

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
	if daemon.FlagGiven(fs, "go-gc-percent") || !daemon.FlagGiven(fs, "other") {
		t.Fatal("daemon.FlagGiven does not tell the flags given from the others")
	}
}
