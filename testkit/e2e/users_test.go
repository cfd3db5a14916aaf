package e2e

import (
	"errors"
	"fmt"
	"testing"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// signIn opens a session as user, failing the test if it cannot.
func signIn(t *testing.T, c *testcluster.Cluster, user, password string) *client.Session {
	t.Helper()
	s, err := c.SessionAs(user, password)
	if err != nil {
		t.Fatalf("signing in as %s: %v", user, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// expectSignInRefused checks that user cannot sign in with password, and
// that the answer does not say whether the user exists.
func expectSignInRefused(t *testing.T, c *testcluster.Cluster, user, password string) {
	t.Helper()
	s, err := c.SessionAs(user, password)
	if err == nil {
		s.Close()
		t.Fatalf("%s signed in with password %q", user, password)
	}
	var qe *client.QueryError
	if !errors.As(err, &qe) || qe.Code != graphpb.QueryErrorCode_E_AUTH || qe.Msg != "bad username or password" {
		t.Fatalf("signing in as %s with %q: %v, want E_AUTH \"bad username or password\"", user, password, err)
	}
}

func expectDenied(t *testing.T, s *client.Session, stmt string, fragments ...string) {
	t.Helper()
	expectError(t, s, stmt, graphpb.QueryErrorCode_E_BAD_PERMISSION, append([]string{"permission denied"}, fragments...)...)
}

// TestUsers signs in as users of every role and checks what each may do,
// then changes roles, passwords and users under open sessions.
func TestUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	root := c.Session()
	defer root.Close()

	exec(t, root, `CREATE SPACE nba(partition_num=2, replica_factor=1, vid_type=FIXED_STRING(16))`)
	exec(t, root, `CREATE SPACE other(partition_num=1, replica_factor=1, vid_type=FIXED_STRING(16))`)
	exec(t, root, `USE nba`)
	exec(t, root, `CREATE TAG player(name string)`)
	exec(t, root, `CREATE EDGE follow(degree int)`)
	exec(t, root, `INSERT VERTEX player(name) VALUES "tim":("Tim"), "tony":("Tony")`)
	exec(t, root, `INSERT EDGE follow(degree) VALUES "tim"->"tony":(90)`)

	roles := []struct{ user, role string }{{"guest1", "GUEST"}, {"user1", "USER"}, {"dba1", "DBA"}, {"admin1", "ADMIN"}}
	for _, r := range roles {
		exec(t, root, fmt.Sprintf(`CREATE USER %s WITH PASSWORD '%s-pw'`, r.user, r.user))
		exec(t, root, fmt.Sprintf(`GRANT ROLE %s ON nba TO %s`, r.role, r.user))
	}
	exec(t, root, `CREATE USER IF NOT EXISTS guest1 WITH PASSWORD 'ignored'`)
	exec(t, root, `CREATE USER spare`)
	expectError(t, root, `CREATE USER guest1`, graphpb.QueryErrorCode_E_SEMANTIC, `"guest1" already exists`)
	expectError(t, root, `GRANT ROLE GOD ON nba TO spare`, graphpb.QueryErrorCode_E_SEMANTIC, "GOD", "root")
	expectError(t, root, `DROP USER root`, graphpb.QueryErrorCode_E_SEMANTIC, "root cannot be dropped")
	expectError(t, root, `GRANT ROLE GUEST ON nope TO spare`, graphpb.QueryErrorCode_E_SEMANTIC, `space "nope" not found`)
	expectError(t, root, `GRANT ROLE GUEST ON nba TO nobody`, graphpb.QueryErrorCode_E_SEMANTIC, `user "nobody" not found`)

	expectRows(t, root, `SHOW USERS`, "admin1", "dba1", "guest1", "root", "spare", "user1")
	expectRows(t, root, `SHOW ROLES IN nba`, "admin1|ADMIN", "dba1|DBA", "guest1|GUEST", "user1|USER")
	expectRows(t, root, `DESCRIBE USER dba1`, "DBA|nba")
	expectRows(t, root, `DESCRIBE USER root`, "GOD|*")

	expectSignInRefused(t, c, "guest1", "wrong")
	expectSignInRefused(t, c, "nobody", "guest1-pw")
	expectSignInRefused(t, c, "root", "guest1-pw")

	// What each role may do on its space: a read, a write, a DDL, a GRANT.
	read := `FETCH PROP ON player "tim" YIELD player.name`
	sessions := map[string]*client.Session{}
	for i, r := range roles {
		s := signIn(t, c, r.user, r.user+"-pw")
		sessions[r.user] = s
		expectRows(t, s, `SHOW SPACES`, "nba") // not "other"
		expectDenied(t, s, `USE other`, r.user, "no role", `"other"`)
		exec(t, s, `USE nba`)
		expectRows(t, s, read, "Tim")
		expectRows(t, s, `GO FROM "tim" OVER follow YIELD dst(edge)`, "tony")
		expectRows(t, s, `SHOW EDGES`, "follow")

		write := fmt.Sprintf(`INSERT VERTEX player(name) VALUES "v%d":("V%d")`, i, i)
		ddl := fmt.Sprintf(`CREATE TAG t_%s(a int)`, r.user)
		grant := `GRANT ROLE GUEST ON nba TO spare`
		if r.role == "GUEST" {
			expectDenied(t, s, write, `user "guest1" has role GUEST on space "nba"; INSERT VERTEX needs USER or higher`)
		} else {
			exec(t, s, write)
		}
		if r.role == "GUEST" || r.role == "USER" {
			expectDenied(t, s, ddl, "CREATE TAG needs DBA or higher")
		} else {
			exec(t, s, ddl)
		}
		if r.role == "ADMIN" {
			exec(t, s, grant)
			expectDenied(t, s, `GRANT ROLE ADMIN ON nba TO spare`, "ADMIN")
			expectDenied(t, s, `REVOKE ROLE DBA ON nba FROM admin1`, "own role")
			expectRows(t, s, `SHOW ROLES IN nba`, "admin1|ADMIN", "dba1|DBA", "guest1|GUEST", "spare|GUEST", "user1|USER")
		} else {
			expectDenied(t, s, grant, "GRANT needs ADMIN or higher")
			expectRows(t, s, `SHOW ROLES IN nba`, r.user+"|"+r.role)
		}
		expectDenied(t, s, `CREATE SPACE x`, "CREATE SPACE needs GOD")
		expectDenied(t, s, `SHOW USERS`, "needs GOD")
		expectDenied(t, s, `CREATE USER x`, "needs GOD")
		expectDenied(t, s, `DESCRIBE USER root`, "needs GOD")
		expectRows(t, s, `DESCRIBE USER `+r.user, r.role+"|nba")
		exec(t, s, `SET QUERY_TIMEOUT = 30s`)
	}
	expectRows(t, root, `SHOW ROLES IN nba`, "admin1|ADMIN", "dba1|DBA", "guest1|GUEST", "spare|GUEST", "user1|USER")
	// The ADMIN's grant is in force for the grantee's next statement.
	spare := signIn(t, c, "spare", "")
	exec(t, spare, `USE nba`)
	expectRows(t, spare, read, "Tim")

	// A REVOKE takes effect on the open session's next statement.
	user1 := sessions["user1"]
	exec(t, root, `REVOKE ROLE USER ON nba FROM user1`)
	expectDenied(t, user1, read, `user "user1" has no role on space "nba"; FETCH needs GUEST or higher`)
	exec(t, root, `GRANT ROLE GUEST ON nba TO user1`)
	expectRows(t, user1, read, "Tim")
	expectDenied(t, user1, `INSERT VERTEX player(name) VALUES "z":("Z")`, "has role GUEST", "needs USER")
	expectError(t, root, `REVOKE ROLE USER ON nba FROM user1`, graphpb.QueryErrorCode_E_SEMANTIC, "has role GUEST", "not USER")

	// DROP USER ends an open session's rights, even if the name comes back.
	guest1 := sessions["guest1"]
	exec(t, root, `DROP USER guest1`)
	expectDenied(t, guest1, read, `user "guest1" no longer exists`)
	expectDenied(t, guest1, `YIELD 1`, "no longer exists")
	expectSignInRefused(t, c, "guest1", "guest1-pw")
	exec(t, root, `CREATE USER guest1 WITH PASSWORD 'new-guest'`)
	exec(t, root, `GRANT ROLE GUEST ON nba TO guest1`)
	expectDenied(t, guest1, read, "no longer exists")
	exec(t, root, `DROP USER IF EXISTS nobody`)
	expectError(t, root, `DROP USER nobody`, graphpb.QueryErrorCode_E_SEMANTIC, `"nobody" not found`)

	// CHANGE PASSWORD: a user changes its own, and the old one stops working.
	dba1 := sessions["dba1"]
	expectDenied(t, dba1, `CHANGE PASSWORD admin1 FROM 'admin1-pw' TO 'x'`, "needs GOD or user \"admin1\" itself")
	expectError(t, dba1, `CHANGE PASSWORD dba1 FROM 'wrong' TO 'x'`, graphpb.QueryErrorCode_E_SEMANTIC, "old password")
	exec(t, dba1, `CHANGE PASSWORD dba1 FROM 'dba1-pw' TO 'dba1-new'`)
	expectSignInRefused(t, c, "dba1", "dba1-pw")
	expectRows(t, signIn(t, c, "dba1", "dba1-new"), `SHOW SPACES`, "nba")
	exec(t, root, `ALTER USER dba1 WITH PASSWORD 'by-root'`)
	expectSignInRefused(t, c, "dba1", "dba1-new")
	signIn(t, c, "dba1", "by-root")

	// Dropping a space drops its grants.
	exec(t, root, `GRANT ROLE DBA ON other TO admin1`)
	expectRows(t, root, `DESCRIBE USER admin1`, "ADMIN|nba", "DBA|other")
	exec(t, root, `DROP SPACE other`)
	expectRows(t, root, `DESCRIBE USER admin1`, "ADMIN|nba")
	expectRows(t, root, `SHOW USERS`, "admin1", "dba1", "guest1", "root", "spare", "user1")
}
