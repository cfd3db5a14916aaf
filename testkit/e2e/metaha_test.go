package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestMetaHAServesQueries runs a cluster with three metad and keeps GO
// queries going from a second session while metad are killed: one, then a
// quorum, then all three. Queries keep answering from graphd's and
// storaged's cached catalogs throughout, and so do data writes; DDL works
// with one metad down, fails with an error naming the metad tried while a
// quorum is down, and works again once they are back.
func TestMetaHAServesQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 2, Metas: 3})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE ha(partition_num=4, replica_factor=1, vid_type=INT64)")
	exec(t, s, "USE ha")
	exec(t, s, "CREATE EDGE e(w int)")
	exec(t, s, "INSERT EDGE e(w) VALUES 1->2:(12), 1->3:(13), 2->3:(23), 3->4:(34)")
	goStmt := "GO 2 STEPS FROM 1 OVER e YIELD src(edge) AS s, dst(edge) AS d"
	want := rows(t, s, goStmt)
	if !slices.Equal(want, []string{"2|3", "3|4"}) {
		t.Fatalf("GO before any failure: %q", want)
	}

	// A reader on its own session queries all along; any failure or wrong
	// answer is reported at the end.
	reader := c.Session()
	defer reader.Close()
	exec(t, reader, "USE ha")
	var (
		mu       sync.Mutex
		failures []string
		answered int
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			rs, err := reader.Execute(ctx, goStmt)
			cancel()
			mu.Lock()
			switch {
			case err != nil:
				failures = append(failures, err.Error())
			case !slices.Equal(render(rs), want):
				failures = append(failures, fmt.Sprintf("wrong answer %q", render(rs)))
			default:
				answered++
			}
			mu.Unlock()
		}
	})
	// checkpoint waits until the reader has answered a few more queries
	// since it was called, so every phase below is covered.
	checkpoint := func(phase string) {
		t.Helper()
		mu.Lock()
		base := answered
		mu.Unlock()
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			n, f := answered, slices.Clone(failures)
			mu.Unlock()
			if len(f) > 0 {
				t.Fatalf("%s: GO failed: %v", phase, f)
			}
			if n >= base+3 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the reader answered only %d queries in 30s", phase, n-base)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	defer func() { close(stop); wg.Wait() }()
	checkpoint("all metad up")

	// One of three down: DDL and writes go through the other two.
	c.StopMeta(0)
	checkpoint("metad 0 down")
	exec(t, s, "CREATE TAG t1(name string)")
	exec(t, s, `INSERT VERTEX t1(name) VALUES 1:("one")`)
	expectRows(t, s, `FETCH PROP ON t1 1 YIELD t1.name AS n`, "one")
	c.RestartMeta(0)
	checkpoint("metad 0 back")

	// A quorum down: queries and data writes still work, DDL fails
	// clearly, naming every metad.
	c.StopMeta(1)
	c.StopMeta(2)
	checkpoint("metad 1 and 2 down")
	exec(t, s, "INSERT EDGE e(w) VALUES 4->5:(45)")
	ddlFailsNamingMetas(t, c, s, "CREATE TAG t2(x int)")
	checkpoint("after the failed DDL")

	// All three down: the same, from the caches alone.
	c.StopMeta(0)
	checkpoint("all metad down")
	exec(t, s, "INSERT EDGE e(w) VALUES 5->6:(56)")
	expectRows(t, s, "GO 3 STEPS FROM 3 OVER e YIELD dst(edge) AS d", "6")
	ddlFailsNamingMetas(t, c, s, "CREATE TAG t2(x int)")
	checkpoint("all metad down, after the failed DDL")

	// Back up: DDL works again and is usable at once.
	c.RestartMetas(0, 1, 2)
	checkpoint("all metad back")
	exec(t, s, "CREATE TAG t2(x int)")
	exec(t, s, "INSERT VERTEX t2(x) VALUES 6:(66)")
	expectRows(t, s, "GO 3 STEPS FROM 3 OVER e YIELD $$.t2.x AS x", "66")
	checkpoint("end")
}

// ddlFailsNamingMetas runs a DDL statement that cannot succeed without a
// metad quorum and checks that it fails with an execution error naming
// every metad address, well before the query timeout.
func ddlFailsNamingMetas(t *testing.T, c *testcluster.Cluster, s *client.Session, stmt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	start := time.Now()
	_, err := s.Execute(ctx, stmt)
	var qe *client.QueryError
	if !errors.As(err, &qe) || qe.Code != graphpb.QueryErrorCode_E_EXECUTION {
		t.Fatalf("%s without a metad quorum: %v, want an execution error", stmt, err)
	}
	for _, addr := range c.MetaAddrs() {
		if !strings.Contains(qe.Msg, addr) {
			t.Fatalf("%s: error %q does not name metad %s", stmt, qe.Msg, addr)
		}
	}
	if !strings.Contains(qe.Msg, "no metad could serve it") {
		t.Fatalf("%s: error %q does not say that no metad could serve it", stmt, qe.Msg)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("%s took %s to fail", stmt, took)
	}
	t.Logf("%s failed as expected after %s: %s", stmt, time.Since(start).Round(time.Millisecond), qe.Msg)
}
