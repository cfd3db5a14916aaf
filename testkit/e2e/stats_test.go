package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestStatsJob: SUBMIT JOB STATS counts the space's vertices per tag and
// edges per type on the partitions' leaders, each row once although every
// partition has three replicas; SHOW STATS prints the newest finished
// job's counts as NebulaGraph does, and says what to do before there is one.
func TestStatsJob(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE st(partition_num=4, replica_factor=3, vid_type=FIXED_STRING(8))")
	exec(t, s, "USE st")
	exec(t, s, "CREATE TAG player(name string)")
	exec(t, s, "CREATE TAG team(name string)")
	exec(t, s, "CREATE TAG coach(name string)")
	exec(t, s, "CREATE EDGE follow(degree int)")
	exec(t, s, "CREATE EDGE serve()")
	expectError(t, s, "SHOW STATS", graphpb.QueryErrorCode_E_SEMANTIC, "SUBMIT JOB STATS")
	exec(t, s, `INSERT VERTEX player(name) VALUES "p1":("a"), "p2":("b"), "p3":("c"), "both":("d")`)
	exec(t, s, `INSERT VERTEX team(name) VALUES "t1":("x"), "t2":("y"), "both":("z")`)
	exec(t, s, `INSERT EDGE follow(degree) VALUES "p1"->"p2":(1), "p2"->"p1":(2), "p1"->"p2"@1:(3), "p3"->"nobody":(4)`)
	exec(t, s, `INSERT EDGE serve() VALUES "p1"->"t1":(), "p2"->"t2":()`)

	id := submitAndWait(t, s, "SUBMIT JOB STATS")
	rs := exec(t, s, "SHOW STATS")
	if got, want := fmt.Sprint(rs.Columns()), "[Type Name Count]"; got != want {
		t.Fatalf("SHOW STATS columns %s, want %s", got, want)
	}
	got := map[string]int64{}
	for i := 0; i < rs.Len(); i++ {
		typ, _ := rs.Row(i).String(0)
		name, _ := rs.Row(i).String(1)
		n, _ := rs.Row(i).Int(2)
		got[typ+" "+name] = n
	}
	want := map[string]int64{"Tag player": 4, "Tag team": 3, "Tag coach": 0, "Edge follow": 4, "Edge serve": 2,
		"Space vertices": 6, "Space edges": 6}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("SHOW STATS after job %d: %v, want %v", id, got, want)
	}
	// A newer job counts the rows written since, and not the rows of a
	// tag or edge type dropped since (their keys stay until compaction).
	exec(t, s, `INSERT VERTEX coach(name) VALUES "c1":("pop")`)
	exec(t, s, "CREATE TAG tmp()")
	exec(t, s, "CREATE EDGE gone()")
	exec(t, s, `INSERT VERTEX tmp() VALUES "x1":(), "x2":(), "p1":()`)
	exec(t, s, `INSERT EDGE gone() VALUES "p1"->"p3":(), "x1"->"x2":()`)
	exec(t, s, "DROP TAG tmp")
	exec(t, s, "DROP EDGE gone")
	submitAndWait(t, s, "SUBMIT JOB STATS")
	rows := fmt.Sprint(resultRows(exec(t, s, "SHOW STATS")))
	for _, want := range []string{`"Tag"|"coach"|1`, `"Space"|"vertices"|7`, `"Space"|"edges"|6`} {
		if !strings.Contains(rows, want) {
			t.Fatalf("SHOW STATS after the second job: %s, want %s", rows, want)
		}
	}
}

// submitAndWait submits a job and waits until SHOW JOBS says it FINISHED.
func submitAndWait(t *testing.T, s *client.Session, stmt string) int64 {
	t.Helper()
	id, err := exec(t, s, stmt).Row(0).Int(0)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		rs := exec(t, s, "SHOW JOBS")
		for i := 0; i < rs.Len(); i++ {
			if jid, _ := rs.Row(i).Int(0); jid == id {
				switch status, _ := rs.Row(i).String(2); status {
				case "FINISHED":
					return id
				case "FAILED", "STOPPED":
					t.Fatalf("%s: job %d %s", stmt, id, status)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: job %d not finished after a minute", stmt, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
