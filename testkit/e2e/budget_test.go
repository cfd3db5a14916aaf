package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// Super-vertex graph: hub 1 has an edge to each of fanout vertices
// 1000…1000+fanout-1, and each of those has degree edges to others of
// them. GO 3 STEPS FROM 1 is then fanout·degree rows, and every further
// step another fanout·degree edges to scan.
const (
	hubFanout = 2000
	hubDegree = 50
	bigGo     = `GO 3 STEPS FROM 1 OVER e YIELD dst(edge)`
	// endlessGo asks for the most steps a statement may (ast.MaxSteps):
	// fanout·degree edges a step, 100 M in all, far past any deadline here.
	endlessGo = `GO 1000 STEPS FROM 1 OVER e YIELD dst(edge)`
	smallGo   = `GO FROM 1000 OVER e YIELD dst(edge)`
)

func loadSuperVertex(t *testing.T, s *client.Session) {
	t.Helper()
	exec(t, s, `CREATE SPACE budget(partition_num=10, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE budget`)
	exec(t, s, `CREATE EDGE e()`)
	var edges []string
	for i := 0; i < hubFanout; i++ {
		edges = append(edges, fmt.Sprintf("1->%d:()", 1000+i))
		for j := 0; j < hubDegree; j++ {
			edges = append(edges, fmt.Sprintf("%d->%d:()", 1000+i, 1000+(i+1+j*(hubFanout/hubDegree))%hubFanout))
		}
	}
	const batch = 2500
	for i := 0; i < len(edges); i += batch {
		exec(t, s, "INSERT EDGE e() VALUES "+strings.Join(edges[i:min(i+batch, len(edges))], ", "))
	}
}

// expectSmall runs the small query, which must answer hubDegree rows.
func expectSmall(t *testing.T, s *client.Session) {
	t.Helper()
	if n := exec(t, s, smallGo).Len(); n != hubDegree {
		t.Fatalf("%s: %d rows, want %d", smallGo, n, hubDegree)
	}
}

// checkQueryError checks that err is a statement error with code and a
// message mentioning every fragment.
func checkQueryError(t *testing.T, what string, err error, code graphpb.QueryErrorCode, fragments ...string) {
	t.Helper()
	var qe *client.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("%s: got %v, want a %s error", what, err, code)
	}
	if qe.Code != code {
		t.Fatalf("%s: code %s (%s), want %s", what, qe.Code, qe.Msg, code)
	}
	for _, f := range fragments {
		if !strings.Contains(qe.Msg, f) {
			t.Fatalf("%s: message %q does not mention %q", what, qe.Msg, f)
		}
	}
}

// start runs stmt on s in the background; the channel gets its error.
func start(s *client.Session, stmt string) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		_, err := s.Execute(ctx, stmt)
		done <- err
	}()
	return done
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestQueryLimits: a traversal from a super vertex that would hold far more
// than its session's memory limit ends with E_MEMORY_EXCEEDED while another
// session keeps answering, and its session works afterwards; a query past
// its deadline ends with E_TIMEOUT; SHOW QUERIES lists a running query and
// KILL QUERY ends it with E_KILLED; slow queries are logged.
func TestQueryLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	var logs logBuffer
	c := testcluster.Start(t, testcluster.Options{Stores: 1, Graph: func(cfg *graphd.Config) {
		cfg.SlowQueryThreshold = 50 * time.Millisecond
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}})
	s1, s2 := c.Session(), c.Session()
	defer s1.Close()
	defer s2.Close()
	loadSuperVertex(t, s1)
	exec(t, s2, `USE budget`)
	expectSmall(t, s2)

	// Under graphd's default limit the big query answers in full.
	if n := exec(t, s1, bigGo).Len(); n != hubFanout*hubDegree {
		t.Fatalf("%s: %d rows, want %d", bigGo, n, hubFanout*hubDegree)
	}

	// The storage client shows each streamed batch to its callback; an
	// error from the callback ends the call with that error, at once.
	t.Run("stream", func(t *testing.T) {
		_, sc, snap := storageClients(t, c, "budget", "e")
		sp, _ := snap.SpaceByName("budget")
		et, _ := snap.EdgeByName(sp.GetSpaceId(), "e")
		parts := map[int32]*storagepb.VidList{}
		for i := 0; i < hubFanout; i++ {
			vid := partition.EncodeInt64Vid(int64(1000 + i))
			pt := partition.PartOf(vid, partition.VidType(sp.GetVidType()), sp.GetPartitionNum())
			if parts[pt] == nil {
				parts[pt] = &storagepb.VidList{}
			}
			parts[pt].Vids = append(parts[pt].Vids, vid)
		}
		tmpl := &storagepb.GetNeighborsReq{SpaceId: sp.GetSpaceId(), CatalogVersion: snap.Version(),
			EdgeTypes: []int32{et.GetEdgeType()}, MaxEdgesPerBatch: 1000}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shown, batches := 0, 0
		res, err := sc.GetNeighborsStream(ctx, tmpl, parts, func(b []*storagepb.VertexNeighbors) error {
			batches++
			for _, vn := range b {
				shown += len(vn.Edges)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, vn := range res {
			got += len(vn.Edges)
		}
		if got != hubFanout*hubDegree || shown != got || batches < hubFanout*hubDegree/1000 {
			t.Fatalf("%d edges returned, %d shown in %d batches; want %d", got, shown, batches, hubFanout*hubDegree)
		}
		stop := errors.New("enough")
		calls := 0
		res, err = sc.GetNeighborsStream(ctx, tmpl, parts, func([]*storagepb.VertexNeighbors) error {
			calls++
			return stop
		})
		if err != stop || res != nil || calls != 1 {
			t.Fatalf("callback error: got %v with %d vertices after %d calls; want it alone after 1 call", err, len(res), calls)
		}
	})

	t.Run("memory", func(t *testing.T) {
		// Less than GO step 2's answer (TestGoStepsMemory).
		exec(t, s1, `SET QUERY_MEMORY_LIMIT = 768KB`)
		done := start(s1, bigGo)
		// The other session answers while the big query runs and after.
		var err error
		answered := 0
		for running := true; running; {
			expectSmall(t, s2)
			answered++
			select {
			case err = <-done:
				running = false
			default:
			}
		}
		checkQueryError(t, bigGo, err, graphpb.QueryErrorCode_E_MEMORY_EXCEEDED, "768 KiB", "SET QUERY_MEMORY_LIMIT", "GO step 2")
		t.Logf("%s ended with %v; the other session answered %d times meanwhile", bigGo, err, answered)
		expectSmall(t, s2)
		expectSmall(t, s1)
		waitNoQueryMemory(t, c)
		// DEFAULT restores graphd's limit: the big query answers again.
		exec(t, s1, `SET QUERY_MEMORY_LIMIT = DEFAULT`)
		if n := exec(t, s1, bigGo).Len(); n != hubFanout*hubDegree {
			t.Fatalf("after DEFAULT: %d rows", n)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		exec(t, s1, `SET QUERY_TIMEOUT = 300ms`)
		began := time.Now()
		expectError(t, s1, endlessGo, graphpb.QueryErrorCode_E_TIMEOUT, "300ms", "SET QUERY_TIMEOUT")
		if took := time.Since(began); took > 10*time.Second {
			t.Fatalf("a 300ms timeout ended the query after %v", took)
		}
		exec(t, s1, `SET QUERY_TIMEOUT = DEFAULT`)
		expectSmall(t, s1)
		// Within one request a SET bounds the statements after it.
		expectError(t, s1, `SET QUERY_TIMEOUT = 200ms; `+endlessGo, graphpb.QueryErrorCode_E_TIMEOUT, "200ms")
		exec(t, s1, `SET QUERY_TIMEOUT = DEFAULT`)
		expectSmall(t, s1)
	})

	t.Run("kill", func(t *testing.T) {
		done := start(s1, endlessGo)
		var plan int64
		deadline := time.Now().Add(30 * time.Second)
		for plan == 0 {
			select {
			case err := <-done:
				t.Fatalf("%s ended before it could be killed: %v", endlessGo, err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatal("SHOW QUERIES never listed the running query with memory charged")
			}
			rs := exec(t, s2, `SHOW QUERIES`)
			want := []string{"SessionID", "ExecutionPlanID", "User", "Host", "StartTime", "DurationInUSec", "Status", "MemoryUsed", "MemoryLimit", "Query"}
			if got := rs.Columns(); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("SHOW QUERIES columns %v, want %v", got, want)
			}
			self := false
			for i := 0; i < rs.Len(); i++ {
				row := rs.Row(i)
				sid, _ := row.Int(0)
				text, _ := row.String(9)
				if sid == s2.ID() && text == "SHOW QUERIES" {
					self = true
				}
				if sid != s1.ID() || text != endlessGo {
					continue
				}
				user, _ := row.String(2)
				status, _ := row.String(6)
				mem, _ := row.Int(7)
				limit, _ := row.Int(8)
				if user != "root" || status != "RUNNING" || limit != graphd.DefaultQueryMemoryLimit {
					t.Fatalf("the running query's row: user %q status %q limit %d", user, status, limit)
				}
				// Killed only once past the slow-query threshold (50ms),
				// so that the "slow log" case below finds its record.
				if took, _ := row.Int(5); mem > 0 && took > 60_000 {
					plan, _ = row.Int(1)
				}
			}
			if !self {
				t.Fatal("SHOW QUERIES does not list itself")
			}
			time.Sleep(20 * time.Millisecond)
		}
		killed := time.Now()
		exec(t, s2, fmt.Sprintf(`KILL QUERY (session=%d, plan=%d)`, s1.ID(), plan))
		select {
		case err := <-done:
			checkQueryError(t, endlessGo, err, graphpb.QueryErrorCode_E_KILLED, "killed", fmt.Sprintf("plan=%d", plan))
			t.Logf("killed after %v: %v", time.Since(killed), err)
		case <-time.After(20 * time.Second):
			t.Fatal("the killed query is still running")
		}
		rs := exec(t, s2, `SHOW QUERIES`)
		for i := 0; i < rs.Len(); i++ {
			if sid, _ := rs.Row(i).Int(0); sid == s1.ID() {
				t.Fatal("SHOW QUERIES still lists the killed query")
			}
		}
		expectError(t, s2, fmt.Sprintf(`KILL QUERY (session=%d, plan=%d)`, s1.ID(), plan), graphpb.QueryErrorCode_E_SEMANTIC, "no running query")
		expectSmall(t, s1)
		expectSmall(t, s2)
		if c.Graph.Running() != 0 {
			t.Fatalf("after the kill: %d queries running", c.Graph.Running())
		}
		waitNoQueryMemory(t, c)
	})

	t.Run("slow log", func(t *testing.T) {
		out := logs.String()
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "slow query") && strings.Contains(l, "code=E_KILLED") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("no slow-query record of the killed query in:\n%s", out)
		}
		for _, want := range []string{"level=WARN", `stmt="` + strings.ReplaceAll(endlessGo, `"`, `\"`), "duration=", "rows=0", "memory_peak=", "user=root"} {
			if !strings.Contains(line, want) {
				t.Fatalf("slow-query record lacks %q: %s", want, line)
			}
		}
	})
}

// lastPeak is the memory peak graphd's slow-query log recorded for the
// last run of stmt (every query is slow with a threshold of 1ns).
func lastPeak(t *testing.T, logs *logBuffer, stmt string) int64 {
	t.Helper()
	var peak int64 = -1
	for _, l := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(l, `stmt="`+stmt+`"`) {
			continue
		}
		m := regexp.MustCompile(`memory_peak_bytes=(\d+)`).FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("slow-query record without memory_peak_bytes: %s", l)
		}
		peak, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if peak < 0 {
		t.Fatalf("no slow-query record of %s", stmt)
	}
	return peak
}

// waitNoQueryMemory waits until graphd's running queries hold no memory: a
// query's memory leaves the total once its response has been sent, which
// may be just after the client has read it.
func waitNoQueryMemory(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.Graph.QueryMemory() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still charged after the queries ended", c.Graph.QueryMemory())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// liveHeapPeak runs fn while collecting garbage over and over, and returns
// the most live heap seen above what was live before fn: a sampled,
// therefore low, estimate of the live memory fn added at its peak.
func liveHeapPeak(fn func()) int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	stop := make(chan struct{})
	sampled := make(chan int64)
	go func() {
		var peak int64
		for {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, int64(m.HeapAlloc))
			select {
			case <-stop:
				sampled <- peak
				return
			default:
			}
		}
	}()
	fn()
	close(stop)
	return <-sampled - base
}

// TestGoStepsMemory: a multi-step GO's memory is accounted within a small
// factor of the heap it holds, and its limits stop it while it produces
// rows, by at most one batch past them: the per-query limit, also when the
// rows fit and their copy for the client does not (charged while it is
// built, not after); and the total of all running queries. The test runs
// with the Go soft memory limit cmd/graphd derives from that total, so
// that the garbage a traversal leaves is collected before the heap runs to
// twice the accounted memory.
func TestGoStepsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	const total = 100 << 20
	var logs logBuffer
	c := testcluster.Start(t, testcluster.Options{Stores: 1, Graph: func(cfg *graphd.Config) {
		cfg.QueryMemoryLimitTotal = total
		cfg.MaxSessionsPerUser = -1 // hundreds of root sessions run together below
		cfg.SlowQueryThreshold = time.Nanosecond
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}})
	// The graphd library leaves the process-wide limit to its program
	// (cmd/graphd --go-memory-limit); set it here as cmd/graphd does.
	if os.Getenv("GOMEMLIMIT") == "" {
		limit := c.Graph.DefaultGoMemoryLimit()
		if want := int64(total + total/2 + 256<<20); limit != want {
			t.Fatalf("Go memory limit %d, want %d (1.5 × the total of %d + 256 MiB)", limit, want, total)
		}
		prev := debug.SetMemoryLimit(limit)
		t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	}
	s := c.Session()
	defer s.Close()
	loadSuperVertex(t, s)
	rows := hubFanout * hubDegree

	// Within the limits the query answers in full, and the memory it was
	// charged at its peak is within a factor of 2 of the live heap it
	// added (measured without the client, which decodes another copy).
	if n := exec(t, s, bigGo).Len(); n != rows {
		t.Fatalf("%s: %d rows, want %d", bigGo, n, rows)
	}
	columnsPeak := lastPeak(t, &logs, bigGo) // package client asks for columns
	var resp *graphpb.ExecuteResp
	live := liveHeapPeak(func() {
		var err error
		resp, err = c.Graph.Execute(context.Background(), &graphpb.ExecuteReq{SessionId: s.ID(), Stmt: bigGo})
		if err != nil || resp.Code != graphpb.QueryErrorCode_OK || len(resp.Data.GetRows()) != rows {
			t.Errorf("%s: %v %s, %d rows", bigGo, err, resp.GetError(), len(resp.GetData().GetRows()))
		}
	})
	resp = nil
	peak := lastPeak(t, &logs, bigGo)
	t.Logf("%s: %d rows, %d bytes accounted at the peak (%d per row), %d bytes of live heap added (%d per row)",
		bigGo, rows, peak, peak/int64(rows), live, live/int64(rows))
	if live > 2*peak || peak > 3*live {
		t.Fatalf("accounted %d bytes at the peak, the live heap grew by %d: not within a factor of 2 (3 for overcounting, as the heap is sampled)", peak, live)
	}
	waitNoQueryMemory(t, c)

	// A per-query limit stops the query within one storage batch past it,
	// while a GO step's answer streams in...
	// (Steps 2 and 3 answer 100,000 packed destinations each, about 1 MiB
	// with their vertices; a step's answer is released when the step
	// ends unless result rows point into it, so a limit below one answer
	// stops step 2.)
	exec(t, s, `SET QUERY_MEMORY_LIMIT = 768KB`)
	expectError(t, s, bigGo, graphpb.QueryErrorCode_E_MEMORY_EXCEEDED, "memory limit of 768 KiB", "SET QUERY_MEMORY_LIMIT", "GO step 2")
	if p := lastPeak(t, &logs, bigGo); p > 768<<10+1<<20 {
		t.Fatalf("with a limit of 768 KiB the query was charged %d bytes before it stopped", p)
	}
	// ... and while the copy of a result for the client is built, when
	// the rows fit and their copy does not: in rows, the form the peak
	// above was measured in (a request without columnar).
	limit := peak * 85 / 100 / 1024
	exec(t, s, fmt.Sprintf(`SET QUERY_MEMORY_LIMIT = %dKB`, limit))
	resp, err := c.Graph.Execute(context.Background(), &graphpb.ExecuteReq{SessionId: s.ID(), Stmt: bigGo})
	if err != nil || resp.Code != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED ||
		!strings.Contains(resp.Error, "SET QUERY_MEMORY_LIMIT") || !strings.Contains(resp.Error, "building the result for the client") {
		t.Fatalf("%s in rows with a limit of %d KiB: %v, %s %q; want E_MEMORY_EXCEEDED while building the result", bigGo, limit, err, resp.GetCode(), resp.GetError())
	}
	if p := lastPeak(t, &logs, bigGo); p > limit<<10+1<<20 {
		t.Fatalf("with a limit of %d KiB the query was charged %d bytes before it stopped", limit, p)
	}
	// In columns (package client's form) the copy is one packed array of
	// ints instead of a message per cell, and the same limit is enough.
	if n := exec(t, s, bigGo).Len(); n != rows {
		t.Fatalf("%s in columns with a limit of %d KiB: %d rows, want %d", bigGo, limit, n, rows)
	}
	exec(t, s, `SET QUERY_MEMORY_LIMIT = DEFAULT`)
	waitNoQueryMemory(t, c)

	// Concurrent queries that together would need more than the total:
	// those that go over it fail with an error naming it, the others
	// answer in full, and the memory charged never passes the total by
	// more than a batch per query. (Enough of them to need six times the
	// total at their peaks, in the columns package client asks for.)
	conc := int(6*total/columnsPeak) + 1
	t.Logf("%s in columns: %d bytes accounted at the peak; %d run together", bigGo, columnsPeak, conc)
	// In columns a row of one int is 8 bytes; GO holds about twice that
	// at its peak (the columns, and the last step's answer until each
	// vertex's edges are projected). 124 bytes a row when each result
	// cell was a value.Value (issue 22).
	if perRow := columnsPeak / int64(rows); perRow > 24 {
		t.Errorf("%s in columns: %d bytes accounted per row at the peak, want at most 24", bigGo, perRow)
	}
	var sessions []*client.Session
	for range conc {
		ss := c.Session()
		defer ss.Close()
		exec(t, ss, `USE budget`)
		// Hundreds of these share two cores; what is tested is memory,
		// so none may be stopped by graphd's default timeout of a minute.
		exec(t, ss, `SET QUERY_TIMEOUT = 10m`)
		sessions = append(sessions, ss)
	}
	stop := make(chan struct{})
	sampled := make(chan int64, 1)
	// The sampler has stopped before the test returns, a t.Fatalf
	// included: the cluster it reads is closed by a cleanup after that.
	var stopOnce sync.Once
	stopSampler := func() { stopOnce.Do(func() { close(stop) }) }
	samplerDone := make(chan struct{})
	defer func() {
		stopSampler()
		<-samplerDone
	}()
	go func() {
		defer close(samplerDone)
		var most int64
		for {
			most = max(most, c.Graph.QueryMemory())
			select {
			case <-stop:
				sampled <- most
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	failed, answered := 0, 0
	for round := 0; round < 5 && failed == 0; round++ {
		errs := make(chan error, conc)
		for _, ss := range sessions {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()
				rs, err := ss.Execute(ctx, bigGo)
				if err == nil && rs.Len() != rows {
					err = fmt.Errorf("%d rows, want %d", rs.Len(), rows)
				}
				errs <- err
			}()
		}
		for range conc {
			if err := <-errs; err != nil {
				checkQueryError(t, bigGo, err, graphpb.QueryErrorCode_E_MEMORY_EXCEEDED, "running queries together", "--query-memory-limit-total")
				failed++
			} else {
				answered++
			}
		}
	}
	stopSampler()
	most := <-sampled
	t.Logf("%d concurrent %s: %d answered, %d stopped by the total of %d bytes; at most %d bytes charged at once", conc, bigGo, answered, failed, total, most)
	if failed == 0 {
		t.Fatalf("%d rounds of %d concurrent queries of ~%d bytes each never went over a total of %d", 5, conc, columnsPeak, total)
	}
	if most > total+int64(conc)<<20 {
		t.Fatalf("%d bytes charged at once with a total of %d", most, total)
	}
	waitNoQueryMemory(t, c)
	expectSmall(t, s)
}
