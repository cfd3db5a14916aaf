package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/query/ast"
)

// TestLimitCeilings: a user who is not GOD may lower graphd's limits or go
// back to them, never raise or clear them; with no ceiling anything goes.
func TestLimitCeilings(t *testing.T) {
	mem := func(b int64) *ast.SetSessionStmt { return &ast.SetSessionStmt{Name: ast.SetQueryMemoryLimit, Bytes: b} }
	tmo := func(d time.Duration) *ast.SetSessionStmt {
		return &ast.SetSessionStmt{Name: ast.SetQueryTimeout, Timeout: d}
	}
	def := func(name string) *ast.SetSessionStmt { return &ast.SetSessionStmt{Name: name, Default: true} }
	capped := LimitCeilings{MemoryLimit: 1 << 30, Timeout: time.Minute}
	for _, tc := range []struct {
		name string
		c    LimitCeilings
		stmt *ast.SetSessionStmt
		want string // "" allowed, else a fragment of the refusal
	}{
		{"lower memory", capped, mem(1 << 20), ""},
		{"equal memory", capped, mem(1 << 30), ""},
		{"raise memory", capped, mem(2 << 30), "above graphd's 1 GiB"},
		{"clear memory", capped, mem(0), "no limit"},
		{"default memory", capped, def(ast.SetQueryMemoryLimit), ""},
		{"lower timeout", capped, tmo(time.Second), ""},
		{"raise timeout", capped, tmo(time.Hour), "above graphd's 1m0s"},
		{"clear timeout", capped, tmo(0), "no timeout"},
		{"default timeout", capped, def(ast.SetQueryTimeout), ""},
		{"no ceiling: clear memory", LimitCeilings{}, mem(0), ""},
		{"no ceiling: raise timeout", LimitCeilings{}, tmo(time.Hour), ""},
	} {
		err := tc.c.check("u", tc.stmt)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "needs GOD")):
			t.Errorf("%s: %v, want a refusal naming %q and GOD", tc.name, err, tc.want)
		}
	}
}
