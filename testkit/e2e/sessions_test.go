package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestShowAndKillSessions: SHOW SESSIONS lists graphd's sessions (a user
// who is not GOD its own), KILL SESSION signs one out (another user's
// only for GOD), and the killed session's next statement is refused.
func TestShowAndKillSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	root := c.Session()
	defer root.Close()
	exec(t, root, `CREATE SPACE sess(partition_num=1, replica_factor=1, vid_type=INT64)`)
	exec(t, root, `CREATE USER alice WITH PASSWORD 'a-pw'`)
	exec(t, root, `GRANT ROLE GUEST ON sess TO alice`)
	alice, err := c.SessionAs("alice", "a-pw")
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	exec(t, alice, `USE sess`)
	other, err := c.SessionAs("alice", "a-pw")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	rs := exec(t, root, `SHOW SESSIONS`)
	if got, want := fmt.Sprint(rs.Columns()), "[SessionId UserName SpaceName CreateTime UpdateTime GraphAddr Timezone ClientIp]"; got != want {
		t.Fatalf("SHOW SESSIONS columns %s, want %s", got, want)
	}
	seen := map[int64]string{}
	for i := 0; i < rs.Len(); i++ {
		id, _ := rs.Row(i).Int(0)
		user, _ := rs.Row(i).String(1)
		space, _ := rs.Row(i).String(2)
		seen[id] = user + "@" + space
	}
	if seen[alice.ID()] != "alice@sess" || seen[root.ID()] != "root@" || seen[other.ID()] != "alice@" {
		t.Fatalf("SHOW SESSIONS as root: %v (alice %d, other %d, root %d)", seen, alice.ID(), other.ID(), root.ID())
	}
	// alice sees her two sessions only.
	if rs := exec(t, alice, `SHOW SESSIONS`); rs.Len() != 2 {
		t.Fatalf("SHOW SESSIONS as alice: %d rows, want her 2", rs.Len())
	}
	expectError(t, alice, fmt.Sprintf(`KILL SESSION %d`, root.ID()), graphpb.QueryErrorCode_E_BAD_PERMISSION, "needs GOD")
	expectError(t, alice, `KILL SESSION 12345`, graphpb.QueryErrorCode_E_SEMANTIC, "no session 12345")
	exec(t, alice, fmt.Sprintf(`KILL SESSION %d`, other.ID()))
	if _, err := other.Execute(context.Background(), `YIELD 1`); err == nil {
		t.Fatal("the killed session still runs statements")
	}
	exec(t, root, fmt.Sprintf(`KILL SESSION %d`, alice.ID()))
	if _, err := alice.Execute(context.Background(), `YIELD 1`); err == nil {
		t.Fatal("alice's session, killed by root, still runs statements")
	}
	exec(t, root, `YIELD 1`)
}

// TestKillSessionStopsItsQueries: KILL SESSION stops the session's running
// query (E_KILLED, saying KILL SESSION) and refuses a statement that was
// waiting behind it, which never runs.
func TestKillSessionStopsItsQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	root := c.Session()
	defer root.Close()
	loadSuperVertex(t, root)
	victim, err := c.SessionAs("root", "nova")
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	exec(t, victim, "USE budget")
	running := start(victim, endlessGo)
	for deadline := time.Now().Add(30 * time.Second); ; {
		rs := exec(t, root, "SHOW QUERIES")
		found := false
		for i := 0; i < rs.Len(); i++ {
			if sid, _ := rs.Row(i).Int(0); sid == victim.ID() {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the endless query never showed in SHOW QUERIES")
		}
		time.Sleep(10 * time.Millisecond)
	}
	queued := start(victim, "CREATE TAG made_after_kill()")
	time.Sleep(200 * time.Millisecond) // it waits for the session now
	exec(t, root, fmt.Sprintf("KILL SESSION %d", victim.ID()))
	checkQueryError(t, endlessGo, <-running, graphpb.QueryErrorCode_E_KILLED, "KILL SESSION")
	if err := <-queued; err == nil {
		t.Fatal("a statement queued on the killed session ran")
	}
	if rows := fmt.Sprint(resultRows(exec(t, root, "SHOW TAGS"))); strings.Contains(rows, "made_after_kill") {
		t.Fatalf("SHOW TAGS lists the queued statement's tag: %s", rows)
	}
}
