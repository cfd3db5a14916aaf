package e2e

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/client"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestClusterOperationsUnderLoad is the acceptance test of issue 6: a
// steady read/write workload (two writers, one reader, each on its own
// session) runs for the whole test while the cluster is operated on:
//
//  1. one metad of three is stopped and restarted;
//  2. two storaged join and BALANCE DATA runs; while it is RUNNING the
//     metad that runs jobs (RunsJobs) is stopped, another takes the job
//     over and finishes a task, the stopped one restarts, and the job
//     FINISHES; leadership is then piled up and BALANCE LEADER FINISHES;
//  3. BALANCE DATA REMOVE empties one original store; it is stopped half
//     way (STOP JOB), every partition still has three voters and a
//     leader, and RECOVER JOB finishes it (BALANCE LEADER again if the
//     leaders drifted).
//
// Afterwards every acknowledged edge is readable (both halves, GO and
// FETCH), a write whose outcome was unknown is either wholly there or
// wholly absent, nothing exists that no one wrote, the replicas are where
// the catalog says (none on the removed host, per-host counts within one
// of each other) with equal checksums, and leaders are within one of even
// (SHOW HOSTS).
//
// Every failed request is counted by kind and reported, with the storage
// client's transparent retries. Reads must never fail or miss an
// acknowledged edge; a write may fail only with an unknown outcome (the
// storage client never retries a write that may have applied); a write
// acknowledged only after storaged's mirror wait ran out is a stall and
// fails the test. Control statements (SHOW JOB, SUBMIT, …) need metad:
// when no metad can serve one it is retried and reported, and a job that
// FAILED is an error, recovered so that the rest still runs; a monitor
// records when metad did not answer and when hosts went offline.
func TestClusterOperationsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	began := time.Now()
	c := testcluster.Start(t, testcluster.Options{Stores: 3, Metas: 3})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE ops(partition_num=6, replica_factor=3, vid_type=INT64)")
	exec(t, s, "USE ops")
	exec(t, s, "CREATE EDGE e(w int)")

	meta := metaclient.New(c.MetaAddrs(), slog.New(slog.DiscardHandler))
	defer meta.Close()
	{
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := meta.WaitVersion(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	space, ok := meta.Catalog().SpaceByName("ops")
	if !ok {
		t.Fatal("space ops is not in the catalog")
	}
	b := &balanceCheck{t: t, c: c, s: s, meta: meta, space: space.GetSpaceId()}
	retriesBefore := c.Graph.Storage().Retries()
	t.Logf("cluster up and space created in %v", time.Since(began).Round(time.Millisecond))

	w := newOpsWorkload(t, c, began)
	ctl := &opsCtl{t: t, b: b, s: s, began: began}
	mon := startOpsMonitor(meta, began)
	defer mon.stop()
	w.start(2, 1)
	stopped := false
	stopWorkload := func() {
		if !stopped {
			stopped = true
			w.stop()
		}
	}
	defer stopWorkload()
	w.checkpoint("workload warm-up")

	// step logs a step's start and returns a func that logs its end.
	step := func(name string) func() {
		t.Helper()
		w.setPhase(name)
		start := time.Now()
		t.Logf("[%6.1fs] step %q begins", time.Since(began).Seconds(), name)
		return func() {
			t.Logf("[%6.1fs] step %q done in %v; workload so far: %s", time.Since(began).Seconds(), name, time.Since(start).Round(time.Millisecond), w.summary())
		}
	}

	// 1. One metad (not the job runner, which step 2 stops) goes down
	// and comes back.
	done := step("stop and restart one metad")
	victim := 1
	if runner := runnerSlot(c); runner == victim {
		victim = 2
	}
	c.StopMeta(victim)
	w.checkpoint(fmt.Sprintf("metad %d down", victim))
	c.RestartMeta(victim)
	w.checkpoint(fmt.Sprintf("metad %d back", victim))
	done()

	// 2. Two stores join; BALANCE DATA with the job runner stopped in the
	// middle of it: another metad takes the job over and makes progress
	// before the stopped one comes back.
	done = step("add two stores, BALANCE DATA, stop the job runner mid-job")
	c.AddStore()
	c.AddStore()
	w.checkpoint("two stores added")
	id := ctl.submit("SUBMIT JOB BALANCE DATA")
	mid := ctl.waitJob(id, "a finished task and a running one", func(j balanceJob) bool {
		return j.status == "RUNNING" && j.count("FINISHED") >= 1 && j.count("RUNNING") == 1
	})
	var runner int
	waitUntil(t, 20*time.Second, "a metad runs jobs", func() bool { runner = runnerSlot(c); return runner >= 0 })
	ctl.logf("stopping metad %d (%s), the job runner, with job %d at tasks %v", runner, c.Metas[runner].Addr(), id, mid.tasks)
	c.StopMeta(runner)
	took := waitUntil(t, 30*time.Second, "another metad takes over the job runner", func() bool { return runnerSlot(c) >= 0 })
	ctl.logf("metad %d runs jobs %v after metad %d stopped", runnerSlot(c), took.Round(time.Millisecond), runner)
	progressed := false
	for deadline := time.Now().Add(10 * time.Second); !progressed && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		j := ctl.show(id)
		progressed = j.count("FINISHED") > mid.count("FINISHED") || j.status != "RUNNING"
	}
	ctl.logf("the new runner finished a task: %v; restarting metad %d", progressed, runner)
	c.RestartMeta(runner)
	job := ctl.waitFinished(id)
	if len(job.tasks) != 6 {
		t.Errorf("BALANCE DATA onto two new hosts ran %d tasks, want 6 moves: %v", len(job.tasks), job.tasks)
	}
	b.checkSpread(nil, 3, 4)
	done()

	// Leadership piled up on the lowest store ids (under load), so that
	// BALANCE LEADER has work.
	done = step("BALANCE LEADER")
	b.concentrateLeaders()
	w.checkpoint("leaders piled up")
	id = ctl.submit("SUBMIT JOB BALANCE LEADER")
	job = ctl.waitFinished(id)
	if len(job.tasks) == 0 {
		t.Errorf("BALANCE LEADER found nothing to do with the leaders piled up")
	}
	w.checkpoint("after BALANCE LEADER")
	checkLeadersEven(t, ctl, nil, 15*time.Second)
	done()

	// 3. BALANCE DATA REMOVE of an original store, stopped half-way and
	// recovered.
	done = step("BALANCE DATA REMOVE, STOP JOB half-way, RECOVER JOB")
	removedAddr := c.Stores[0].Server.Addr()
	removed := c.Stores[0].Server.StoreID()
	host, port, _ := strings.Cut(removedAddr, ":")
	id = ctl.submit(fmt.Sprintf("SUBMIT JOB BALANCE DATA REMOVE %q:%s", host, port))
	ctl.waitJob(id, "a finished task", func(j balanceJob) bool { return j.count("FINISHED") >= 1 })
	ctl.exec(fmt.Sprintf("STOP JOB %d", id))
	job = ctl.waitJob(id, "the job to stop", func(j balanceJob) bool { return j.status == "STOPPED" && j.count("RUNNING") == 0 })
	if job.count("FINISHED") == len(job.tasks) {
		t.Fatalf("every task finished before STOP JOB took effect; the test needs a job stopped half-way: %v", job.tasks)
	}
	checkQuorumWithLeaders(t, b)
	w.checkpoint("BALANCE DATA REMOVE stopped")
	if rs := ctl.exec("RECOVER JOB"); rs.Len() != 1 || b.int(rs, 0, 0) != 1 {
		t.Fatalf("RECOVER JOB: %v", render(rs))
	}
	job = ctl.waitFinished(id)
	for _, task := range job.tasks {
		if task.status != "FINISHED" {
			t.Errorf("task %v after the job finished", task)
		}
	}
	b.checkSpread([]uint64{removed}, 4, 5)
	w.checkpoint("after BALANCE DATA REMOVE")
	done()

	done = step("leaders even after the REMOVE")
	if !leadersEven(ctl, []string{removedAddr}, 10*time.Second) {
		ctl.logf("leaders drifted after the REMOVE (%v); running BALANCE LEADER again", leaderCounts(ctl))
		id = ctl.submit("SUBMIT JOB BALANCE LEADER")
		ctl.waitFinished(id)
	}
	checkLeadersEven(t, ctl, []string{removedAddr}, 15*time.Second)
	done()

	// The workload stops; everything it did is checked.
	done = step("stop the workload and verify")
	w.setPhase("stopped")
	stopWorkload()
	opsTime := time.Since(began)
	w.verifyData(s)
	b.checkSpread([]uint64{removed}, 4, 5)
	b.checkReplicas()
	checkLeadersEven(t, ctl, []string{removedAddr}, 15*time.Second)
	waitUntil(t, 20*time.Second, "the removed store drops its replicas", func() bool {
		return len(c.Stores[0].Server.Engine().Groups()) == 0
	})
	done()

	mon.stop()
	retries := c.Graph.Storage().Retries() - retriesBefore
	w.report(retries, opsTime, time.Since(began))
	ctl.report()
	mon.report(t)
}

// runnerSlot is the metad slot that runs jobs now, or -1.
func runnerSlot(c *testcluster.Cluster) int {
	for i, m := range c.Metas {
		if m.Server != nil && m.Server.RunsJobs() {
			return i
		}
	}
	return -1
}

// checkQuorumWithLeaders: every partition has at least three voters in the
// catalog (a stopped move leaves an extra replica, never a missing one) and
// a leader (the quorum is there, not only on paper).
func checkQuorumWithLeaders(t *testing.T, b *balanceCheck) {
	t.Helper()
	b.checkQuorum()
	parts := b.parts()
	waitUntil(t, 15*time.Second, "every partition reports a leader among its replicas", func() bool {
		b.parts()
		snap := b.meta.Catalog()
		for p, rs := range parts {
			l, ok := snap.Leader(b.space, p)
			if !ok || !slices.Contains(rs, l) {
				return false
			}
		}
		return true
	})
	t.Logf("quorum: every partition has >= 3 voters and a leader: %v", parts)
}

// leaderCounts is SHOW HOSTS' leader count of every ONLINE host.
func leaderCounts(ctl *opsCtl) map[string]int {
	ctl.t.Helper()
	rs := ctl.exec("SHOW HOSTS")
	out := map[string]int{}
	for i := 0; i < rs.Len(); i++ {
		row := rs.Row(i)
		host, _ := row.String(0)
		port, _ := row.Int(1)
		status, _ := row.String(2)
		leaders, _ := row.Int(3)
		if status == "ONLINE" {
			out[fmt.Sprintf("%s:%d", host, port)] = int(leaders)
		}
	}
	return out
}

// leadersEven polls SHOW HOSTS until the online hosts other than removed
// lead within one of an even share each of the 6 partitions and removed
// lead none.
func leadersEven(ctl *opsCtl, removed []string, limit time.Duration) bool {
	ctl.t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(200 * time.Millisecond) {
		counts := leaderCounts(ctl)
		total, hosts, ok := 0, 0, true
		for addr, n := range counts {
			if slices.Contains(removed, addr) {
				ok = ok && n == 0
				continue
			}
			total += n
			hosts++
		}
		for addr, n := range counts {
			if !slices.Contains(removed, addr) {
				// |n - total/hosts| <= 1
				d := n*hosts - total
				ok = ok && d <= hosts && -d <= hosts
			}
		}
		if ok && total == 6 {
			ctl.logf("leaders per host (SHOW HOSTS): %v", counts)
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func checkLeadersEven(t *testing.T, ctl *opsCtl, removed []string, limit time.Duration) {
	t.Helper()
	if !leadersEven(ctl, removed, limit) {
		t.Errorf("leaders per host %v are not within one of even (removed: %v)", leaderCounts(ctl), removed)
	}
}

// opsCtl runs the control statements (jobs, SHOW HOSTS) on the test's
// session. They need metad: a statement that fails because no metad could
// serve it (nothing was written) is retried for up to 90 s, and every
// such failure is counted and reported, as is a job that FAILED.
type opsCtl struct {
	t     *testing.T
	b     *balanceCheck
	s     *client.Session
	began time.Time

	failures []string
}

func (ctl *opsCtl) logf(format string, args ...any) {
	ctl.t.Helper()
	ctl.t.Logf("[%6.1fs] %s", time.Since(ctl.began).Seconds(), fmt.Sprintf(format, args...))
}

// exec runs a control statement. Read-only ones (SHOW) are retried after
// any error, the others only after an error that says no metad served
// them.
func (ctl *opsCtl) exec(stmt string) *client.ResultSet {
	ctl.t.Helper()
	readOnly := strings.HasPrefix(stmt, "SHOW ")
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		rs, err := ctl.s.Execute(ctx, stmt)
		cancel()
		if err == nil {
			return rs
		}
		unavailable := strings.Contains(err.Error(), "no metad could serve it")
		ctl.failures = append(ctl.failures, fmt.Sprintf("[%6.1fs] %s: %v", time.Since(ctl.began).Seconds(), stmt, err))
		ctl.logf("control statement failed (will retry: %v): %s: %v", readOnly || unavailable, stmt, err)
		if (!readOnly && !unavailable) || time.Since(start) > 90*time.Second {
			ctl.t.Fatalf("%s: %v", stmt, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (ctl *opsCtl) submit(stmt string) int64 {
	ctl.t.Helper()
	rs := ctl.exec(stmt)
	if cols := rs.Columns(); rs.Len() != 1 || !slices.Equal(cols, []string{"New Job Id"}) {
		ctl.t.Fatalf("%s: %v %v", stmt, cols, render(rs))
	}
	id := ctl.b.int(rs, 0, 0)
	ctl.logf("%s: job %d", stmt, id)
	return id
}

func (ctl *opsCtl) show(id int64) balanceJob {
	ctl.t.Helper()
	b := ctl.b
	rs := ctl.exec(fmt.Sprintf("SHOW JOB %d", id))
	if rs.Len() == 0 || b.int(rs, 0, 0) != id {
		ctl.t.Fatalf("SHOW JOB %d: %v %v", id, rs.Columns(), render(rs))
	}
	j := balanceJob{status: b.str(rs, 0, 4), message: b.str(rs, 0, 7)}
	for i := 1; i < rs.Len(); i++ {
		j.tasks = append(j.tasks, balanceTask{
			id: fmt.Sprint(b.int(rs, i, 0)), what: b.str(rs, i, 1), status: b.str(rs, i, 4), message: b.str(rs, i, 7),
		})
	}
	return j
}

func (j balanceJob) String() string {
	var ts []string
	for _, t := range j.tasks {
		s := t.id + ":" + t.status
		if t.message != "" {
			s += "(" + t.message + ")"
		}
		ts = append(ts, s)
	}
	return fmt.Sprintf("%s %q tasks [%s]", j.status, j.message, strings.Join(ts, " "))
}

// waitJob polls SHOW JOB until ok, logging every change. A job that
// FAILED is an error: it is reported and recovered (RECOVER JOB), and the
// wait goes on.
func (ctl *opsCtl) waitJob(id int64, what string, ok func(balanceJob) bool) balanceJob {
	ctl.t.Helper()
	last := ""
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		j := ctl.show(id)
		if s := j.String(); s != last {
			ctl.logf("job %d: %s", id, s)
			last = s
		}
		if ok(j) {
			return j
		}
		switch j.status {
		case "FAILED":
			ctl.t.Errorf("job %d FAILED while waiting for %s: %s; recovering it", id, what, j)
			ctl.exec(fmt.Sprintf("RECOVER JOB %d", id))
		case "FINISHED":
			ctl.t.Fatalf("job %d FINISHED while waiting for %s: %s", id, what, j)
		}
	}
	ctl.t.Fatalf("job %d: timed out waiting for %s", id, what)
	return balanceJob{}
}

func (ctl *opsCtl) waitFinished(id int64) balanceJob {
	ctl.t.Helper()
	return ctl.waitJob(id, "FINISHED", func(j balanceJob) bool { return j.status == "FINISHED" })
}

func (ctl *opsCtl) report() {
	ctl.t.Helper()
	ctl.t.Logf("REPORT: %d control statements failed and were retried", len(ctl.failures))
	for _, f := range ctl.failures {
		ctl.t.Logf("REPORT: control statement failed: %s", f)
	}
}

// opsMonitor reads the catalog from metad (not a cache) every 500 ms and
// records when hosts went offline and came back, and when no metad
// answered: what a failed job step or control statement is explained by.
type opsMonitor struct {
	stopCh chan struct{}
	done   chan struct{}
	once   sync.Once
	events []string
}

func startOpsMonitor(meta *metaclient.Client, began time.Time) *opsMonitor {
	m := &opsMonitor{stopCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		online := map[string]bool{}
		var failingSince time.Time
		at := func() string { return fmt.Sprintf("[%6.1fs]", time.Since(began).Seconds()) }
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			cat, err := meta.GetCatalog(ctx)
			cancel()
			switch {
			case err != nil:
				if failingSince.IsZero() {
					failingSince = time.Now()
					m.events = append(m.events, fmt.Sprintf("%s GetCatalog failed: %v", at(), err))
				}
			default:
				if !failingSince.IsZero() {
					m.events = append(m.events, fmt.Sprintf("%s GetCatalog answers again after failing for %v", at(), time.Since(failingSince).Round(time.Millisecond)))
					failingSince = time.Time{}
				}
				for _, h := range cat.GetHosts() {
					addr := fmt.Sprintf("%s:%d", h.GetAddr().GetHost(), h.GetAddr().GetPort())
					if was, seen := online[addr]; (!seen && !h.GetOnline()) || (seen && was != h.GetOnline()) {
						state := "OFFLINE"
						if h.GetOnline() {
							state = "ONLINE"
						}
						m.events = append(m.events, fmt.Sprintf("%s host %s (store %d) %s", at(), addr, h.GetStoreId(), state))
					}
					online[addr] = h.GetOnline()
				}
			}
			select {
			case <-m.stopCh:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return m
}

func (m *opsMonitor) stop() {
	m.once.Do(func() { close(m.stopCh) })
	<-m.done
}

func (m *opsMonitor) report(t *testing.T) {
	t.Helper()
	t.Logf("REPORT: metad/host availability events seen by the monitor: %d", len(m.events))
	for _, e := range m.events {
		t.Logf("REPORT: %s", e)
	}
}

// opsEdge is an edge of the workload: (src, dst, rank) is unique.
type opsEdge struct{ src, dst, rank int64 }

const opsVertices = 200

// opsSlowWrite: an edge write waits up to storaged's MirrorWait (10 s by
// default) for its in-edges and is then acknowledged anyway, which is only
// meant for a destination partition without a leader. None of the steps
// leaves a partition leaderless for that long, so a write that took this
// long hit a stall.
const opsSlowWrite = 9 * time.Second

type opsWorkload struct {
	t     *testing.T
	c     *testcluster.Cluster
	began time.Time

	stopCh chan struct{}
	wg     sync.WaitGroup
	phase  atomic.Pointer[string]

	mu        sync.Mutex
	acked     map[opsEdge]int64 // acknowledged edges → w
	ackedList []opsEdge
	unknown   map[opsEdge]int64 // failed writes: may or may not exist
	writesOK  int
	readsOK   int
	// failures by operation ("write", "read") and kind.
	failures   map[string]map[string]int
	failLog    []string
	staleReads []string // a GO that missed an edge acknowledged before it began
	slowWrites []string // acknowledged only after storaged's mirror wait ran out
	writeLat   []time.Duration
	readLat    []time.Duration
	// latencies of acknowledged requests by phase and operation
	phaseLat   map[string]map[string][]time.Duration
	phaseOrder []string
}

func newOpsWorkload(t *testing.T, c *testcluster.Cluster, began time.Time) *opsWorkload {
	w := &opsWorkload{t: t, c: c, began: began, stopCh: make(chan struct{}),
		acked: map[opsEdge]int64{}, unknown: map[opsEdge]int64{},
		failures: map[string]map[string]int{"write": {}, "read": {}},
		phaseLat: map[string]map[string][]time.Duration{}}
	w.setPhase("warm-up")
	return w
}

func (w *opsWorkload) setPhase(p string) { w.phase.Store(&p) }

// latency records an acknowledged request's latency (w.mu held).
func (w *opsWorkload) latency(op string, d time.Duration) {
	p := *w.phase.Load()
	if w.phaseLat[p] == nil {
		w.phaseLat[p] = map[string][]time.Duration{}
		w.phaseOrder = append(w.phaseOrder, p)
	}
	w.phaseLat[p][op] = append(w.phaseLat[p][op], d)
}

func (w *opsWorkload) session() *client.Session {
	s := w.c.Session()
	exec(w.t, s, "USE ops")
	return s
}

func (w *opsWorkload) start(writers, readers int) {
	for i := range writers {
		s := w.session()
		w.wg.Go(func() {
			defer s.Close()
			w.write(s, i)
		})
	}
	for i := range readers {
		s := w.session()
		w.wg.Go(func() {
			defer s.Close()
			w.read(s, int64(100+i))
		})
	}
}

func (w *opsWorkload) stop() {
	close(w.stopCh)
	w.wg.Wait()
}

func (w *opsWorkload) pause(d time.Duration) bool {
	select {
	case <-w.stopCh:
		return false
	case <-time.After(d):
		return true
	}
}

var storageCodeRE = regexp.MustCompile(`E_[A-Z_]+`)

// errorKind classifies a failed request: the graphd code and the storage
// or metad codes its message names, or the transport's gRPC code.
func errorKind(err error) string {
	var qe *client.QueryError
	if errors.As(err, &qe) {
		codes := storageCodeRE.FindAllString(qe.Msg, -1)
		slices.Sort(codes)
		codes = slices.Compact(codes)
		if len(codes) == 0 {
			return qe.Code.String()
		}
		return qe.Code.String() + "/" + strings.Join(codes, ",")
	}
	var te *client.TransportError
	if errors.As(err, &te) {
		if errors.Is(err, context.DeadlineExceeded) {
			return "transport/deadline"
		}
		return "transport/" + status.Code(te.Err).String()
	}
	return "other"
}

func (w *opsWorkload) fail(op string, err error, took time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kind := errorKind(err)
	w.failures[op][kind]++
	w.failLog = append(w.failLog, fmt.Sprintf("[%6.1fs] %s during %q after %v: %s: %v",
		time.Since(w.began).Seconds(), op, *w.phase.Load(), took.Round(time.Millisecond), kind, err))
}

// write inserts batches of edges with unique (src, dst, rank) and records
// each batch as acknowledged or, if the request failed, unknown.
func (w *opsWorkload) write(s *client.Session, writer int) {
	rng := rand.New(rand.NewSource(int64(writer) + 1))
	const batch = 4
	for seq := int64(0); ; seq++ {
		edges := make([]opsEdge, batch)
		vals := make([]string, batch)
		weights := make([]int64, batch)
		for k := range edges {
			e := opsEdge{src: rng.Int63n(opsVertices), dst: rng.Int63n(opsVertices), rank: int64(writer)*10_000_000 + seq*batch + int64(k)}
			edges[k], weights[k] = e, rng.Int63n(1_000_000)
			vals[k] = fmt.Sprintf("%d->%d@%d:(%d)", e.src, e.dst, e.rank, weights[k])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start := time.Now()
		_, err := s.Execute(ctx, "INSERT EDGE e(w) VALUES "+strings.Join(vals, ", "))
		took := time.Since(start)
		cancel()
		if err != nil {
			w.fail("write", err, took)
		}
		w.mu.Lock()
		for k, e := range edges {
			if err == nil {
				w.acked[e] = weights[k]
				w.ackedList = append(w.ackedList, e)
			} else {
				w.unknown[e] = weights[k]
			}
		}
		if err == nil {
			w.writesOK++
			w.writeLat = append(w.writeLat, took)
			w.latency("write", took)
			if took >= opsSlowWrite {
				w.slowWrites = append(w.slowWrites, fmt.Sprintf("[%6.1fs] write ending during %q took %v: %v",
					time.Since(w.began).Seconds(), *w.phase.Load(), took.Round(time.Millisecond), edges))
			}
		}
		w.mu.Unlock()
		if !w.pause(10 * time.Millisecond) {
			return
		}
	}
}

// read runs GO from random vertices, one of them the source of an edge
// acknowledged before the query began, which the answer must contain.
func (w *opsWorkload) read(s *client.Session, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	for {
		from := []int64{rng.Int63n(opsVertices), rng.Int63n(opsVertices)}
		var must *opsEdge
		w.mu.Lock()
		if n := len(w.ackedList); n > 0 {
			e := w.ackedList[rng.Intn(n)]
			must = &e
			from = append(from, e.src)
		}
		w.mu.Unlock()
		var ids []string
		for _, v := range from {
			ids = append(ids, fmt.Sprint(v))
		}
		stmt := fmt.Sprintf("GO FROM %s OVER e YIELD src(edge), dst(edge), rank(edge)", strings.Join(ids, ", "))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start := time.Now()
		rs, err := s.Execute(ctx, stmt)
		took := time.Since(start)
		cancel()
		if err != nil {
			w.fail("read", err, took)
		} else {
			found := must == nil
			for i := 0; i < rs.Len() && !found; i++ {
				row := rs.Row(i)
				src, _ := row.Int(0)
				dst, _ := row.Int(1)
				rank, _ := row.Int(2)
				found = opsEdge{src, dst, rank} == *must
			}
			w.mu.Lock()
			w.readsOK++
			w.readLat = append(w.readLat, took)
			w.latency("read", took)
			if !found {
				w.staleReads = append(w.staleReads, fmt.Sprintf("[%6.1fs] during %q: %s missed acknowledged edge %v (%d rows)",
					time.Since(w.began).Seconds(), *w.phase.Load(), stmt, *must, rs.Len()))
			}
			w.mu.Unlock()
		}
		if !w.pause(10 * time.Millisecond) {
			return
		}
	}
}

// checkpoint waits until the workload has acknowledged a few more writes
// and answered a few more reads since it was called: the cluster serves
// in the state the test just put it in.
func (w *opsWorkload) checkpoint(phase string) {
	w.t.Helper()
	w.mu.Lock()
	wb, rb := w.writesOK, w.readsOK
	w.mu.Unlock()
	start := time.Now()
	for {
		w.mu.Lock()
		wn, rn := w.writesOK, w.readsOK
		w.mu.Unlock()
		if wn >= wb+3 && rn >= rb+3 {
			return
		}
		if time.Since(start) > 60*time.Second {
			w.t.Fatalf("%s: the workload made no progress in 60s (%d writes, %d reads acknowledged since); %s", phase, wn-wb, rn-rb, w.summary())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *opsWorkload) summary() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%d writes (%d edges) and %d reads acknowledged, failed writes %v, failed reads %v, stale reads %d",
		w.writesOK, len(w.acked), w.readsOK, w.failures["write"], w.failures["read"], len(w.staleReads))
}

// edgeSet reads every edge of the space, from the sources (GO) or from the
// destinations (GO REVERSELY), as (src, dst, rank) → w.
func edgeSet(t *testing.T, s *client.Session, reversely bool) map[opsEdge]int64 {
	t.Helper()
	ids := make([]string, opsVertices)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	dir := ""
	if reversely {
		dir = " REVERSELY"
	}
	rs := exec(t, s, fmt.Sprintf("GO FROM %s OVER e%s YIELD src(edge), dst(edge), rank(edge), e.w", strings.Join(ids, ", "), dir))
	out := make(map[opsEdge]int64, rs.Len())
	for i := 0; i < rs.Len(); i++ {
		row := rs.Row(i)
		src, _ := row.Int(0)
		dst, _ := row.Int(1)
		rank, _ := row.Int(2)
		wv, _ := row.Int(3)
		e := opsEdge{src, dst, rank}
		if _, dup := out[e]; dup {
			t.Errorf("GO%s returned edge %v twice", dir, e)
		}
		out[e] = wv
	}
	return out
}

// verifyData checks, with the workload stopped: every acknowledged edge
// is there with its weight (out-half at once, in-half once mirrors are
// through), every unknown-outcome edge is wholly there or wholly absent,
// and nothing else exists; FETCH finds every acknowledged edge.
func (w *opsWorkload) verifyData(s *client.Session) {
	t := w.t
	t.Helper()
	out := edgeSet(t, s, false)
	missing := 0
	for e, wv := range w.acked {
		got, ok := out[e]
		switch {
		case !ok:
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged edge %v is missing (GO)", e)
			}
		case got != wv:
			t.Errorf("acknowledged edge %v has w=%d, wrote %d", e, got, wv)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged edges are missing", missing, len(w.acked))
	}
	// Both halves agree once intents are resolved (resolver passes run
	// every 2 s).
	var in map[opsEdge]int64
	var diff []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		out, in = edgeSet(t, s, false), edgeSet(t, s, true)
		diff = diff[:0]
		for e := range out {
			if _, ok := in[e]; !ok {
				diff = append(diff, fmt.Sprintf("%v out-edge without in-edge", e))
			}
		}
		for e := range in {
			if _, ok := out[e]; !ok {
				diff = append(diff, fmt.Sprintf("%v in-edge without out-edge", e))
			}
		}
		if len(diff) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		t.Errorf("edge halves disagree after 30s: %d edges, e.g. %v", len(diff), diff[:min(10, len(diff))])
	}
	present, absent := 0, 0
	for e, wv := range w.unknown {
		if got, ok := out[e]; ok {
			present++
			if got != wv {
				t.Errorf("unknown-outcome edge %v has w=%d, wrote %d", e, got, wv)
			}
		} else {
			absent++
		}
	}
	phantom := 0
	for e := range out {
		_, a := w.acked[e]
		_, u := w.unknown[e]
		if !a && !u {
			phantom++
			if phantom <= 10 {
				t.Errorf("edge %v exists but was never written", e)
			}
		}
	}
	// FETCH every acknowledged edge, in batches.
	var keys []opsEdge
	for e := range w.acked {
		keys = append(keys, e)
	}
	fetched := 0
	for i := 0; i < len(keys); i += 250 {
		chunk := keys[i:min(i+250, len(keys))]
		refs := make([]string, len(chunk))
		for j, e := range chunk {
			refs[j] = fmt.Sprintf("%d->%d@%d", e.src, e.dst, e.rank)
		}
		rs := exec(t, s, "FETCH PROP ON e "+strings.Join(refs, ", ")+" YIELD src(edge), dst(edge), rank(edge), e.w")
		for j := 0; j < rs.Len(); j++ {
			row := rs.Row(j)
			src, _ := row.Int(0)
			dst, _ := row.Int(1)
			rank, _ := row.Int(2)
			wv, _ := row.Int(3)
			if want, ok := w.acked[opsEdge{src, dst, rank}]; ok && want == wv {
				fetched++
			}
		}
	}
	if fetched != len(w.acked) {
		t.Errorf("FETCH found %d of %d acknowledged edges", fetched, len(w.acked))
	}
	t.Logf("data: %d acknowledged edges all readable (GO both directions, FETCH %d); %d unknown-outcome edges: %d present, %d absent; %d edges in the space, %d never written",
		len(w.acked), fetched, len(w.unknown), present, absent, len(out), phantom)
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))].Round(time.Millisecond)
}

// report logs the workload's figures and fails on what is a guarantee:
// no read fails or misses an acknowledged write, and a write fails only
// with an unknown outcome.
func (w *opsWorkload) report(retries int64, opsTime, total time.Duration) {
	t := w.t
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	count := func(op string) int {
		n := 0
		for _, k := range w.failures[op] {
			n += k
		}
		return n
	}
	t.Logf("REPORT: workload %v (test %v): %d writes acknowledged (%d edges; latency p50 %v p99 %v max %v), %d failed %v; %d reads answered (p50 %v p99 %v max %v), %d failed %v; %d stale reads; storage client retries (graphd, transparent): %d",
		opsTime.Round(time.Millisecond), total.Round(time.Millisecond),
		w.writesOK, len(w.acked), percentile(w.writeLat, .5), percentile(w.writeLat, .99), percentile(w.writeLat, 1),
		count("write"), w.failures["write"],
		w.readsOK, percentile(w.readLat, .5), percentile(w.readLat, .99), percentile(w.readLat, 1),
		count("read"), w.failures["read"], len(w.staleReads), retries)
	for _, p := range w.phaseOrder {
		wl, rl := w.phaseLat[p]["write"], w.phaseLat[p]["read"]
		t.Logf("REPORT: phase %-62q writes %4d p50 %-6v max %-7v reads %4d p50 %-6v max %v",
			p, len(wl), percentile(wl, .5), percentile(wl, 1), len(rl), percentile(rl, .5), percentile(rl, 1))
	}
	for _, l := range w.failLog {
		t.Logf("REPORT: failed request %s", l)
	}
	for _, l := range w.slowWrites {
		t.Errorf("slow write: %s: acknowledged only once storaged's mirror wait (10 s) ran out", l)
	}
	for _, l := range w.staleReads {
		t.Errorf("stale read: %s", l)
	}
	if n := count("read"); n > 0 {
		t.Errorf("%d reads failed (reads must not fail): %v", n, w.failures["read"])
	}
	for kind, n := range w.failures["write"] {
		if !strings.Contains(kind, "E_OUTCOME_UNKNOWN") {
			t.Errorf("%d writes failed with %s, which is not an unknown outcome", n, kind)
		}
	}
}
