package exec

import (
	"errors"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/metapb"
	nast "github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
)

// The users of permissionCatalog, most privileged first, and the role each
// has on space nba (none: nobody).
var permissionUsers = []string{"root", "admin1", "dba1", "user1", "guest1", "nobody"}

func permissionCatalog() *catalog.Snapshot {
	on := func(r metapb.RoleType) map[int32]metapb.RoleType { return map[int32]metapb.RoleType{1: r} }
	return catalog.NewSnapshot(&metapb.Catalog{
		Version: 10,
		Spaces:  []*metapb.SpaceDesc{{SpaceId: 1, Name: "nba"}, {SpaceId: 2, Name: "other"}},
		Users: []*metapb.UserInfo{
			{Name: "admin1", Roles: on(metapb.RoleType_ADMIN), CreateVersion: 3},
			{Name: "admin2", Roles: on(metapb.RoleType_ADMIN), CreateVersion: 3},
			{Name: "dba1", Roles: on(metapb.RoleType_DBA), CreateVersion: 4},
			{Name: "guest1", Roles: on(metapb.RoleType_GUEST), CreateVersion: 5},
			{Name: "nobody", CreateVersion: 6},
			{Name: "root", CreateVersion: 1},
			{Name: "user1", Roles: on(metapb.RoleType_USER), CreateVersion: 7},
		},
	})
}

// permissionCases is one statement of every kind and who may run it in
// space nba: the least role ("GOD", "ADMIN", "DBA", "USER", "GUEST",
// "ANY" for everyone), or the exact users.
var permissionCases = []struct {
	stmt  string
	least string
	only  []string
}{
	{stmt: `CREATE SPACE s`, least: "GOD"},
	{stmt: `DROP SPACE nba`, least: "GOD"},
	{stmt: `CLEAR SPACE nba`, least: "GOD"},
	{stmt: `CREATE SNAPSHOT`, least: "GOD"},
	{stmt: `DROP SNAPSHOT s1`, least: "GOD"},
	{stmt: `SHOW SNAPSHOTS`, least: "GOD"},
	{stmt: `CREATE USER u WITH PASSWORD 'p'`, least: "GOD"},
	{stmt: `ALTER USER user1 WITH PASSWORD 'p'`, least: "GOD"},
	{stmt: `DROP USER user1`, least: "GOD"},
	{stmt: `SHOW USERS`, least: "GOD"},
	{stmt: `ADD HOSTS "127.0.0.1":9779, "h2":9779`, least: "GOD"},
	{stmt: `DROP HOSTS "127.0.0.1":9779`, least: "GOD"},
	{stmt: `CHANGE PASSWORD user1 FROM 'a' TO 'b'`, only: []string{"root", "user1"}},
	{stmt: `DESCRIBE USER guest1`, only: []string{"root", "guest1"}},
	{stmt: `GRANT ROLE GUEST ON nba TO nobody`, only: []string{"root", "admin1"}},
	{stmt: `GRANT ROLE DBA ON nba TO user1`, only: []string{"root", "admin1"}},
	{stmt: `GRANT ROLE ADMIN ON nba TO nobody`, only: []string{"root"}},
	{stmt: `GRANT ROLE GOD ON nba TO nobody`, only: []string{"root"}},
	{stmt: `GRANT ROLE USER ON nba TO admin2`, only: []string{"root"}},    // an ADMIN cannot demote an ADMIN
	{stmt: `GRANT ROLE USER ON nba TO admin1`, only: []string{"root"}},    // nor change its own role
	{stmt: `GRANT ROLE GUEST ON other TO nobody`, only: []string{"root"}}, // nor act on another space
	{stmt: `REVOKE ROLE USER ON nba FROM user1`, only: []string{"root", "admin1"}},
	{stmt: `REVOKE ROLE ADMIN ON nba FROM admin2`, only: []string{"root"}},
	{stmt: `SHOW ROLES IN nba`, least: "GUEST"},
	{stmt: `SHOW ROLES IN other`, least: "GOD"},
	{stmt: `USE nba`, least: "GUEST"},
	{stmt: `USE other`, least: "GOD"},
	{stmt: `USE nope`, least: "ANY"}, // fails as unknown, not as denied
	{stmt: `SHOW SPACES`, least: "ANY"},
	{stmt: `SHOW HOSTS`, least: "ANY"},
	{stmt: `SHOW QUERIES`, least: "ANY"},
	{stmt: `SHOW PARTS`, least: "GUEST"},
	{stmt: `SHOW TAGS`, least: "GUEST"},
	{stmt: `SHOW EDGES`, least: "GUEST"},
	{stmt: `SHOW TAG INDEXES`, least: "GUEST"},
	{stmt: `SHOW EDGE INDEXES`, least: "GUEST"},
	{stmt: `DESCRIBE SPACE nba`, least: "GUEST"},
	{stmt: `DESCRIBE SPACE other`, least: "GOD"},
	{stmt: `DESCRIBE TAG t`, least: "GUEST"},
	{stmt: `DESCRIBE EDGE e`, least: "GUEST"},
	{stmt: `DESCRIBE TAG INDEX i`, least: "GUEST"},
	{stmt: `DESCRIBE EDGE INDEX i`, least: "GUEST"},
	{stmt: `CREATE TAG t(a int)`, least: "DBA"},
	{stmt: `CREATE EDGE e()`, least: "DBA"},
	{stmt: `ALTER TAG t ADD (b int)`, least: "DBA"},
	{stmt: `DROP EDGE e`, least: "DBA"},
	{stmt: `CREATE TAG INDEX i ON t(a)`, least: "DBA"},
	{stmt: `DROP EDGE INDEX i`, least: "DBA"},
	{stmt: `REBUILD TAG INDEX i`, least: "DBA"},
	{stmt: `INSERT VERTEX t(a) VALUES "a":(1)`, least: "USER"},
	{stmt: `INSERT EDGE e() VALUES "a"->"b":()`, least: "USER"},
	{stmt: `DELETE VERTEX "a"`, least: "USER"},
	{stmt: `DELETE TAG t FROM "a"`, least: "USER"},
	{stmt: `DELETE EDGE e "a"->"b"`, least: "USER"},
	{stmt: `UPDATE VERTEX ON t "a" SET a = 1`, least: "USER"},
	{stmt: `UPSERT EDGE ON e "a"->"b" SET w = 1`, least: "USER"},
	{stmt: `GO FROM "a" OVER e`, least: "GUEST"},
	{stmt: `FETCH PROP ON t "a"`, least: "GUEST"},
	{stmt: `FETCH PROP ON e "a"->"b"`, least: "GUEST"},
	{stmt: `LOOKUP ON t`, least: "GUEST"},
	{stmt: `FIND SHORTEST PATH FROM "a" TO "b" OVER e`, least: "GUEST"},
	{stmt: `MATCH (v) WHERE id(v) == "a" RETURN v`, least: "GUEST"},
	{stmt: `GET SUBGRAPH FROM "a"`, least: "GUEST"},
	{stmt: `YIELD 1`, least: "GUEST"},
	{stmt: `ORDER BY $v.d`, least: "GUEST"},
	{stmt: `GROUP BY $v.d YIELD count(*)`, least: "GUEST"},
	{stmt: `YIELD 1 AS a | LIMIT 1`, least: "GUEST"},
	{stmt: `GO FROM "a" OVER e YIELD dst(edge) AS d | DELETE VERTEX $-.d`, least: "USER"},
	{stmt: `GO FROM "a" OVER e UNION GO FROM "b" OVER e`, least: "GUEST"},
	{stmt: `$v = GO FROM "a" OVER e`, least: "GUEST"},
	{stmt: `EXPLAIN GO FROM "a" OVER e`, least: "GUEST"},
	{stmt: `PROFILE DELETE VERTEX "a"`, least: "USER"},
	{stmt: `EXPLAIN CREATE TAG t2()`, least: "DBA"},
	{stmt: `SET QUERY_TIMEOUT = 1s`, least: "ANY"},
	{stmt: `KILL QUERY (plan = 1)`, least: "ANY"},
	{stmt: `KILL SESSION 1`, least: "ANY"},
	{stmt: `SUBMIT JOB STATS`, least: "ADMIN"},
	{stmt: `SHOW STATS`, least: "GUEST"},
	{stmt: `SHOW SESSIONS`, least: "ANY"},
	{stmt: `SUBMIT JOB COMPACT`, least: "ADMIN"},
	{stmt: `SUBMIT JOB BALANCE DATA`, least: "GOD"},
	{stmt: `SUBMIT JOB BALANCE DATA REMOVE "127.0.0.1":9779`, least: "GOD"},
	{stmt: `SUBMIT JOB BALANCE LEADER`, least: "GOD"},
	{stmt: `SHOW JOBS`, least: "ADMIN"},
	{stmt: `SHOW JOB 1`, least: "ADMIN"},
	{stmt: `STOP JOB 1`, least: "ADMIN"},
	{stmt: `RECOVER JOB`, least: "ADMIN"},
	{stmt: `RECOVER JOB 1, 2`, least: "ADMIN"},
}

// mayRun reports whether user may run a case with least role least.
func mayRun(user, least string) bool {
	rank := map[string]int{"GOD": 0, "ADMIN": 1, "DBA": 2, "USER": 3, "GUEST": 4, "ANY": 5}
	userRank := map[string]int{"root": 0, "admin1": 1, "dba1": 2, "user1": 3, "guest1": 4, "nobody": 5}
	return userRank[user] <= rank[least]
}

func parseStmt(t *testing.T, src string) nast.Statement {
	t.Helper()
	stmts, err := parser.Parse(src)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("Parse(%q): %v, %d statements", src, err, len(stmts))
	}
	return stmts[0]
}

func TestPermissionTable(t *testing.T) {
	snap := permissionCatalog()
	for _, tc := range permissionCases {
		st := parseStmt(t, tc.stmt)
		for _, user := range permissionUsers {
			u, _ := snap.User(user)
			sess := &SessionState{SpaceName: "nba", SpaceID: 1, User: user, UserCreated: u.GetCreateVersion()}
			err := authorize(snap, sess, st)
			want := mayRun(user, tc.least)
			if tc.only != nil {
				want = slices.Contains(tc.only, user)
			}
			if (err == nil) != want {
				t.Errorf("%s as %s: got %v, want allowed=%v", tc.stmt, user, err, want)
				continue
			}
			var e *Error
			if err != nil && (!errors.As(err, &e) || e.Code != graphpb.QueryErrorCode_E_BAD_PERMISSION ||
				!strings.HasPrefix(e.Msg, "permission denied: ") || !strings.Contains(e.Msg, `"`+user+`"`)) {
				t.Errorf("%s as %s: %v is not a permission error naming the user", tc.stmt, user, err)
			}
		}
	}
}

// TestPermissionTableCoversEveryStatement fails when a statement type of
// package ast (a type with a stmtNode method) has no case above, or has no
// kind in kindOf, whose rules say what it needs (kinds.go).
func TestPermissionTableCoversEveryStatement(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("../../query/ast/*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "stmtNode" || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok {
					declared[id.Name] = true
				}
			}
		}
	}
	if len(declared) < 40 {
		t.Fatalf("found only %d statement types in query/ast: %v", len(declared), declared)
	}

	covered := map[string]bool{}
	var walk func(st nast.Statement)
	walk = func(st nast.Statement) {
		if st == nil || reflect.ValueOf(st).IsNil() {
			return
		}
		covered[reflect.TypeOf(st).Elem().Name()] = true
		if _, err := rulesOf(st); err != nil {
			t.Errorf("%s: %v", st, err)
		}
		switch s := st.(type) {
		case *nast.PipeStmt:
			walk(s.Left)
			walk(s.Right)
		case *nast.SetOpStmt:
			walk(s.Left)
			walk(s.Right)
		case *nast.AssignStmt:
			walk(s.Stmt)
		case *nast.ExplainStmt:
			walk(s.Stmt)
		}
	}
	for _, tc := range permissionCases {
		walk(parseStmt(t, tc.stmt))
	}
	var missing []string
	for name := range declared {
		if !covered[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("statement types without a case in permissionCases (add one, and a kind in kindOf): %v", missing)
	}

	// Every SHOW and DESCRIBE target has a rule of its own.
	for target := nast.ShowTarget(1); target.String() != "?"; target++ {
		rules, _ := rulesOf(&nast.ShowStmt{Target: target})
		if len(rules) != 1 || rules[0].kind == needUnknown {
			t.Errorf("SHOW %s has no rule", target)
		}
	}
	for target := nast.DescribeTarget(1); target.String() != "?"; target++ {
		rules, _ := rulesOf(&nast.DescribeStmt{Target: target})
		if len(rules) != 1 || rules[0].kind == needUnknown {
			t.Errorf("DESCRIBE %s has no rule", target)
		}
	}
	// A statement type without a rule is refused.
	if err := authorize(permissionCatalog(), &SessionState{User: "root"}, &unknownStmt{}); err == nil {
		t.Fatal("a statement without a rule was allowed")
	}
}

type unknownStmt struct{ nast.ShowUsersStmt }

func TestPermissionMessages(t *testing.T) {
	snap := permissionCatalog()
	sess := func(user string) *SessionState {
		u, _ := snap.User(user)
		return &SessionState{SpaceName: "nba", SpaceID: 1, User: user, UserCreated: u.GetCreateVersion()}
	}
	for _, tc := range []struct{ user, stmt, want string }{
		{"guest1", `INSERT EDGE e() VALUES "a"->"b":()`,
			`permission denied: user "guest1" has role GUEST on space "nba"; INSERT EDGE needs USER or higher`},
		{"nobody", `GO FROM "a" OVER e`, `permission denied: user "nobody" has no role on space "nba"; GO needs GUEST or higher`},
		{"dba1", `CREATE SPACE s`, `permission denied: user "dba1" is not GOD; CREATE SPACE needs GOD (user root)`},
		{"admin1", `GRANT ROLE ADMIN ON nba TO nobody`, `GRANT of role ADMIN needs GOD`},
		{"dba1", `GRANT ROLE GUEST ON nba TO nobody`, `user "dba1" has role DBA on space "nba"; GRANT needs ADMIN or higher`},
		{"user1", `CHANGE PASSWORD dba1 FROM 'a' TO 'b'`, `CHANGE PASSWORD of user "dba1" needs GOD or user "dba1" itself`},
		{"guest1", `GO FROM "a" OVER e YIELD dst(edge) AS d | DELETE VERTEX $-.d`, `DELETE VERTEX needs USER or higher`},
		{"user1", `REVOKE ROLE GUEST ON nba FROM guest1`, `user "user1" has role USER on space "nba"; REVOKE needs ADMIN or higher`},
		{"admin1", `GRANT ROLE DBA ON nba TO admin2`, `GRANT for user "admin2", who has role ADMIN there, needs GOD`},
		{"admin1", `REVOKE ROLE ADMIN ON nba FROM admin1`, `REVOKE of role ADMIN needs GOD`},
		{"admin1", `REVOKE ROLE DBA ON nba FROM admin1`, `REVOKE of its own role needs GOD`},
	} {
		err := authorize(snap, sess(tc.user), parseStmt(t, tc.stmt))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s as %s: %v, want %q", tc.stmt, tc.user, err, tc.want)
		}
	}

	// A dropped user's session is refused everything, as is one of a user
	// dropped and created again, and a session without a user.
	for _, s := range []*SessionState{
		{User: "ghost", SpaceName: "nba", SpaceID: 1},
		{User: "guest1", UserCreated: 2, SpaceName: "nba", SpaceID: 1},
		{},
	} {
		for _, stmt := range []string{`YIELD 1`, `SET QUERY_TIMEOUT = 1s`, `SHOW SPACES`} {
			err := authorize(snap, s, parseStmt(t, stmt))
			if err == nil || ErrorCode(err) != graphpb.QueryErrorCode_E_BAD_PERMISSION {
				t.Errorf("%s as %+v: %v", stmt, s, err)
			}
		}
	}
	if err := authorize(snap, &SessionState{User: "ghost"}, parseStmt(t, "YIELD 1")); !strings.Contains(err.Error(), `user "ghost" no longer exists`) {
		t.Errorf("dropped user: %v", err)
	}

	// Without a space, statements on the current space are left to fail
	// on their own (they ask for USE); a dropped current space likewise.
	for _, s := range []*SessionState{
		{User: "nobody"},
		{User: "nobody", SpaceName: "gone", SpaceID: 9},
	} {
		if err := authorize(snap, s, parseStmt(t, `GO FROM "a" OVER e`)); err != nil {
			t.Errorf("GO as nobody in %q: %v", s.SpaceName, err)
		}
	}
}
