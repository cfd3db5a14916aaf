package daemon

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
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
		var f GoMemoryFlag
		if c.flag != "" {
			if err := f.Set(c.flag); err != nil {
				t.Fatalf("%q: %v", c.flag, err)
			}
		}
		if got := GoMemoryLimit(f, derived, c.gomemlimit); got != c.want {
			t.Errorf("--go-memory-limit %q, GOMEMLIMIT set %v: %d, want %d", c.flag, c.gomemlimit, got, c.want)
		}
	}
	for _, bad := range []string{"-1", "lots", "2 parsecs"} {
		var f GoMemoryFlag
		if err := f.Set(bad); err == nil {
			t.Errorf("--go-memory-limit %q accepted", bad)
		}
	}
}

// TestGoMemoryLimitConfigFile: the config file key takes the same values,
// off unquoted included.
func TestGoMemoryLimitConfigFile(t *testing.T) {
	for text, want := range map[string]GoMemoryFlag{
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
		var f GoMemoryFlag
		fs.Var(&f, "go-memory-limit", "")
		fs.String("query-memory-limit-total", "", "")
		if _, err := ParseFlags(fs, []string{"--config", path}, "graphd"); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if f != want {
			t.Errorf("%q: %+v, want %+v", text, f, want)
		}
	}
}
