package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestUserStatements checks the canonical text of every user and role
// statement and that it parses back to the same tree.
func TestUserStatements(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CREATE USER bob", "CREATE USER bob"},
		{"create user if not exists bob with password 'pw'", `CREATE USER IF NOT EXISTS bob WITH PASSWORD "pw"`},
		{`CREATE USER bob WITH PASSWORD ""`, `CREATE USER bob WITH PASSWORD ""`},
		{`CREATE USER bob WITH PASSWORD "a\"b\\c"`, `CREATE USER bob WITH PASSWORD "a\"b\\c"`},
		{"CREATE USER `the user` WITH PASSWORD 'x'", "CREATE USER `the user` WITH PASSWORD \"x\""},
		{"CREATE USER user WITH PASSWORD 'x'", `CREATE USER user WITH PASSWORD "x"`},
		{"CREATE USER with WITH PASSWORD 'x'", `CREATE USER with WITH PASSWORD "x"`},
		{"ALTER USER bob WITH PASSWORD 'new'", `ALTER USER bob WITH PASSWORD "new"`},
		{"DROP USER bob", "DROP USER bob"},
		{"drop user if exists bob", "DROP USER IF EXISTS bob"},
		{"CHANGE PASSWORD bob FROM 'old' TO 'new'", `CHANGE PASSWORD bob FROM "old" TO "new"`},
		{"GRANT ROLE ADMIN ON nba TO bob", "GRANT ROLE ADMIN ON nba TO bob"},
		{"grant dba on nba to bob", "GRANT ROLE DBA ON nba TO bob"},
		{"GRANT ROLE user ON nba TO user", "GRANT ROLE USER ON nba TO user"},
		{"GRANT GUEST ON `my space` TO `a b`", "GRANT ROLE GUEST ON `my space` TO `a b`"},
		{"GRANT ROLE GOD ON nba TO bob", "GRANT ROLE GOD ON nba TO bob"},
		{"REVOKE ROLE USER ON nba FROM bob", "REVOKE ROLE USER ON nba FROM bob"},
		{"revoke guest on nba from bob", "REVOKE ROLE GUEST ON nba FROM bob"},
		{"SHOW USERS", "SHOW USERS"},
		{"show roles in nba", "SHOW ROLES IN nba"},
		{"DESCRIBE USER bob", "DESCRIBE USER bob"},
		{"desc user root", "DESCRIBE USER root"},
		{"EXPLAIN SHOW USERS", "EXPLAIN SHOW USERS"},
		// The new keywords stay names elsewhere.
		{"CREATE TAG user(password string, role int, users int, roles int, change int)",
			"CREATE TAG user(password string, role int64, users int64, roles int64, change int64)"},
		{"USE `grant`", "USE `grant`"},
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
}

func TestUserStatementFields(t *testing.T) {
	c := parseOne(t, "CREATE USER IF NOT EXISTS bob WITH PASSWORD 'pw'").(*ast.CreateUserStmt)
	if want := (&ast.CreateUserStmt{Pos: ast.Pos{Line: 1, Col: 1}, IfNotExists: true, Name: "bob", Password: "pw", HasPassword: true}); !reflect.DeepEqual(c, want) {
		t.Errorf("CREATE USER: %+v", c)
	}
	if c := parseOne(t, "CREATE USER bob").(*ast.CreateUserStmt); c.HasPassword || c.Password != "" {
		t.Errorf("CREATE USER without a password: %+v", c)
	}
	ch := parseOne(t, "CHANGE PASSWORD bob FROM 'a' TO 'b'").(*ast.ChangePasswordStmt)
	if ch.Name != "bob" || ch.Old != "a" || ch.New != "b" {
		t.Errorf("CHANGE PASSWORD: %+v", ch)
	}
	g := parseOne(t, "GRANT ROLE DBA ON nba TO bob").(*ast.GrantRoleStmt)
	if g.Role != ast.RoleDBA || g.Space != "nba" || g.User != "bob" {
		t.Errorf("GRANT: %+v", g)
	}
	r := parseOne(t, "REVOKE ADMIN ON nba FROM bob").(*ast.RevokeRoleStmt)
	if r.Role != ast.RoleAdmin || r.Space != "nba" || r.User != "bob" {
		t.Errorf("REVOKE: %+v", r)
	}
	if s := parseOne(t, "SHOW ROLES IN nba").(*ast.ShowRolesStmt); s.Space != "nba" {
		t.Errorf("SHOW ROLES: %+v", s)
	}
	if d := parseOne(t, "DESC USER bob").(*ast.DescribeUserStmt); d.Name != "bob" {
		t.Errorf("DESCRIBE USER: %+v", d)
	}
	if _, ok := parseOne(t, "SHOW USERS").(*ast.ShowUsersStmt); !ok {
		t.Error("SHOW USERS")
	}
}

func TestUserStatementErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CREATE USER", "expected user name"},
		{"CREATE USER bob WITH PASSWORD pw", "expected a password in quotes"},
		{"CREATE USER bob WITH 'pw'", "expected PASSWORD"},
		{"CREATE USER bob PASSWORD 'pw'", "expected ';' or end of input"},
		{"ALTER USER bob", "expected WITH"},
		{"DROP USER IF bob", "expected EXISTS"},
		{"CHANGE PASSWORD bob TO 'x'", "expected FROM"},
		{"CHANGE PASSWORD bob FROM 'x'", "expected TO"},
		{"CHANGE bob", "expected a statement"},
		{"GRANT ROLE KING ON nba TO bob", "expected a role (GOD, ADMIN, DBA, USER or GUEST)"},
		{"GRANT ROLE ON nba TO bob", "expected a role"},
		{"GRANT DBA nba TO bob", "expected ON"},
		{"GRANT DBA ON nba FROM bob", "expected TO"},
		{"REVOKE DBA ON nba TO bob", "expected FROM"},
		{"SHOW ROLES nba", "expected IN"},
		{"SHOW ROLES IN", "expected space name"},
		{"DESCRIBE USER", "expected user name"},
		{"CREATE USER grant", "GRANT is a reserved word"},
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
