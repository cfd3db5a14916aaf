package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestHostStatements checks ADD HOSTS, DROP HOSTS and SHOW HOSTS: their
// canonical text, that it parses back to the same tree, and the fields.
func TestHostStatements(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`ADD HOSTS "127.0.0.1":9779`, `ADD HOSTS "127.0.0.1":9779`},
		{`add hosts "h1":9779, 'h2':9780,"h3" : 9781`, `ADD HOSTS "h1":9779, "h2":9780, "h3":9781`},
		{`DROP HOSTS "127.0.0.1":9779`, `DROP HOSTS "127.0.0.1":9779`},
		{`drop hosts "h1":1, "h2":65535`, `DROP HOSTS "h1":1, "h2":65535`},
		{`SHOW HOSTS`, `SHOW HOSTS`},
		{`EXPLAIN ADD HOSTS "h":1`, `EXPLAIN ADD HOSTS "h":1`},
		// HOSTS and ADD stay names.
		{"CREATE TAG hosts(add int)", "CREATE TAG hosts(add int64)"},
		{"DROP TAG hosts", "DROP TAG hosts"},
	} {
		st := parseOne(t, tc.src)
		if got := st.String(); got != tc.want {
			t.Errorf("Parse(%q).String()\n got %s\nwant %s", tc.src, got, tc.want)
			continue
		}
		if again := parseOne(t, tc.want); !reflect.DeepEqual(stripPos(again), stripPos(st)) {
			t.Errorf("%q: the printed form parses to a different tree", tc.src)
		}
	}

	add := parseOne(t, `ADD HOSTS "h1":9779, "h2":9780`).(*ast.AddHostsStmt)
	want := &ast.AddHostsStmt{Pos: ast.Pos{Line: 1, Col: 1}, Hosts: []ast.HostAddr{{Host: "h1", Port: 9779}, {Host: "h2", Port: 9780}}}
	if !reflect.DeepEqual(add, want) {
		t.Errorf("ADD HOSTS: %+v", add)
	}
	drop := parseOne(t, `DROP HOSTS "h1":9779`).(*ast.DropHostsStmt)
	if !reflect.DeepEqual(drop.Hosts, []ast.HostAddr{{Host: "h1", Port: 9779}}) {
		t.Errorf("DROP HOSTS: %+v", drop)
	}
	if show, ok := parseOne(t, `SHOW HOSTS`).(*ast.ShowStmt); !ok || show.Target != ast.ShowHosts {
		t.Errorf("SHOW HOSTS: %#v", show)
	}
}

func TestHostStatementErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`ADD HOSTS`, `expected a host as "host":port`},
		{`ADD HOSTS h1:9779`, `expected a host as "host":port`},
		{`ADD HOSTS "h1"`, `expected ':'`},
		{`ADD HOSTS "h1":`, "expected a port number"},
		{`ADD HOSTS "h1":"9779"`, "expected a port number"},
		{`ADD HOSTS "h1":0`, "a port must be in [1, 65535]"},
		{`ADD HOSTS "h1":65536`, "a port must be in [1, 65535]"},
		{`ADD HOSTS "":9779`, "the host name is empty"},
		{`ADD HOSTS "h1":9779,`, `expected a host as "host":port`},
		{`ADD HOSTS "h1":9779 "h2":9779`, "expected ';' or end of input"},
		{`ADD "h1":9779`, "expected a statement"},
		{`DROP HOSTS`, `expected a host as "host":port`},
		{`DROP HOSTS "h1":-1`, "expected a port number"},
	} {
		_, err := Parse(tc.src)
		if err == nil {
			t.Fatalf("%q parsed", tc.src)
		}
		checkSyntaxError(t, tc.src, err)
		if !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}
