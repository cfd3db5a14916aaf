package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	metaclient "github.com/novagraph/novagraph/metad/client"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/oracle"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestBalance drives the jobs of issue 6 through nGQL on a real cluster:
// three stores hold a space of 6 partitions × 3 replicas; two stores join;
// BALANCE DATA spreads the replicas (3 or 4 per host, identical replica
// data) while metad restarts in the middle of it, BALANCE LEADER the
// leaders (1 or 2 per host), COMPACT runs on every host; then BALANCE DATA
// REMOVE empties one host, stopped (STOP JOB) and recovered (RECOVER JOB)
// half-way. No partition ever has fewer than three replicas, and GO
// answers like the reference with the removed host gone.
func TestBalance(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	began := time.Now()
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE bal(partition_num=6, replica_factor=3, vid_type=INT64)")
	// Jobs act on the current space: none, no job.
	if _, err := s.Execute(context.Background(), "SUBMIT JOB BALANCE DATA"); err == nil || !strings.Contains(err.Error(), "no space selected") {
		t.Fatalf("SUBMIT JOB without a space: %v", err)
	}
	exec(t, s, "USE bal")
	exec(t, s, "CREATE EDGE e(w int)")
	rng := rand.New(rand.NewSource(11))
	g := oracle.New()
	for batch := 0; batch < 10; batch++ {
		var vals []string
		for i := 0; i < 30; i++ {
			a, b, w := rng.Int63n(60), rng.Int63n(60), rng.Int63n(1000)
			vals = append(vals, fmt.Sprintf("%d->%d:(%d)", a, b, w))
			g.AddEdge(oracle.Edge{Src: a, Dst: b, Type: "e", Props: map[string]any{"w": w}})
		}
		exec(t, s, "INSERT EDGE e(w) VALUES "+strings.Join(vals, ", "))
	}
	meta := metaclient.New([]string{c.MetaAddr()}, slog.New(slog.DiscardHandler))
	defer meta.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	space, _ := meta.Catalog().SpaceByName("bal")
	sid := space.GetSpaceId()
	b := &balanceCheck{t: t, c: c, s: s, meta: meta, space: sid}

	// On a balanced space the job finishes at once, and says why.
	id := b.submit("SUBMIT JOB BALANCE DATA")
	if job := b.wait(id, "FINISHED"); job.message != "the space is balanced" || len(job.tasks) != 0 {
		t.Fatalf("BALANCE DATA of a balanced space: %+v", job)
	}

	// Two stores join; BALANCE DATA moves 6 replicas onto them, and metad
	// restarts in the middle: the new runner resumes the persisted plan.
	c.AddStore()
	c.AddStore()
	id = b.submit("SUBMIT JOB BALANCE DATA")
	mid := b.waitFor(id, "two finished tasks and a running one", func(j balanceJob) bool {
		return j.count("FINISHED") >= 2 && j.count("RUNNING") == 1
	})
	t.Logf("restarting metad with tasks %v", mid.tasks)
	c.StopMeta(0)
	time.Sleep(500 * time.Millisecond)
	c.RestartMeta(0)
	job := b.wait(id, "FINISHED")
	t.Logf("BALANCE DATA onto two new hosts: %d tasks, %s (%v since start)", len(job.tasks), job.message, time.Since(began).Round(time.Second))
	if len(job.tasks) != 6 {
		t.Errorf("BALANCE DATA moved %d replicas, want 6: %v", len(job.tasks), job.tasks)
	}
	for i, task := range job.tasks {
		if task.status != "FINISHED" || task.id != strconv.Itoa(i+1) || !strings.HasPrefix(task.what, "move 127.0.0.1:") {
			t.Fatalf("task %+v after the job finished", task)
		}
	}
	b.checkSpread(nil, 3, 4)
	b.checkReplicas()

	// Moves hand leadership around; pile it up on as few stores as
	// possible first, so that BALANCE LEADER has work.
	b.concentrateLeaders()
	id = b.submit("SUBMIT JOB BALANCE LEADER")
	job = b.wait(id, "FINISHED")
	t.Logf("BALANCE LEADER: %d tasks %v, %s", len(job.tasks), job.tasks, job.message)
	if len(job.tasks) == 0 {
		t.Fatal("BALANCE LEADER found nothing to do with the leaders piled up")
	}
	b.checkLeaders(nil)

	id = b.submit("SUBMIT JOB COMPACT")
	if job := b.wait(id, "FINISHED"); len(job.tasks) != 5 {
		t.Fatalf("COMPACT: %d tasks, want one per host: %v", len(job.tasks), job.tasks)
	}

	// BALANCE DATA REMOVE of store slot 0, stopped once its first task is
	// done and recovered.
	victim := c.Stores[0].Server.StoreID()
	host, port, _ := strings.Cut(c.Stores[0].Server.Addr(), ":")
	id = b.submit(fmt.Sprintf("SUBMIT JOB BALANCE DATA REMOVE %q:%s", host, port))
	b.waitFor(id, "a finished task", func(j balanceJob) bool { return j.count("FINISHED") >= 1 })
	exec(t, s, fmt.Sprintf("STOP JOB %d", id))
	job = b.waitFor(id, "the job to stop", func(j balanceJob) bool { return j.status == "STOPPED" && j.count("RUNNING") == 0 })
	t.Logf("stopped: %v", job.tasks)
	if job.count("FINISHED") == len(job.tasks) {
		t.Fatalf("every task finished before STOP JOB took effect; the test needs a job stopped half-way: %v", job.tasks)
	}
	b.checkQuorum()
	// STOP JOB of a stopped job is refused; SHOW JOBS lists it.
	// A context of its own: the one made at the start (for the catalog
	// wait) may have run out by now on a loaded machine.
	stopCtx, stopCancel := context.WithTimeout(context.Background(), 30*time.Second)
	_, err := s.Execute(stopCtx, fmt.Sprintf("STOP JOB %d", id))
	stopCancel()
	if err == nil || !strings.Contains(err.Error(), "only QUEUE and RUNNING jobs can be stopped") {
		t.Fatalf("STOP JOB of a stopped job: %v", err)
	}
	if rows := render(exec(t, s, "SHOW JOBS")); len(rows) != 5 || !strings.Contains(strings.Join(rows, "\n"), "STOPPED") {
		t.Fatalf("SHOW JOBS: %v", rows)
	}
	time.Sleep(time.Second)
	if again := b.show(id); again.status != "STOPPED" || again.count("FINISHED") != job.count("FINISHED") {
		t.Fatalf("a stopped job went on: %+v, was %+v", again, job)
	}
	if rs := exec(t, s, "RECOVER JOB"); rs.Len() != 1 || b.int(rs, 0, 0) != 1 {
		t.Fatalf("RECOVER JOB: %v", render(rs))
	}
	job = b.wait(id, "FINISHED")
	t.Logf("BALANCE DATA REMOVE: %d tasks, %s (%v since start)", len(job.tasks), job.message, time.Since(began).Round(time.Second))
	for _, task := range job.tasks {
		if task.status != "FINISHED" {
			t.Fatalf("task %v after the job finished", task)
		}
	}
	b.checkSpread([]uint64{victim}, 4, 5)
	b.checkReplicas()

	// The removed store dropped its replicas; with it gone, GO answers
	// like the reference.
	for deadline := time.Now().Add(20 * time.Second); len(c.Stores[0].Server.Engine().Groups()) != 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(c.Stores[0].Server.Engine().Groups()); n != 0 {
		t.Fatalf("removed store still hosts %d replicas", n)
	}
	c.StopStore(0)
	for start := int64(0); start < 60; start += 7 {
		for steps := 1; steps <= 2; steps++ {
			stmt := fmt.Sprintf("GO %d STEPS FROM %d OVER e YIELD src(edge), dst(edge), e.w", steps, start)
			got := render(exec(t, s, stmt))
			rows := g.Go([]oracle.Vid{start}, steps, steps, []string{"e"}, oracle.Out)
			want := make([]string, len(rows))
			for i, r := range rows {
				want[i] = fmt.Sprintf("%v|%v|%v", r.Edge.Src, r.Edge.Dst, r.Edge.Props["w"])
			}
			sortStrings(want)
			if diff, ok := sameMultiset(got, want); !ok {
				t.Fatalf("%s: %s", stmt, diff)
			}
		}
	}
}

type balanceCheck struct {
	t     *testing.T
	c     *testcluster.Cluster
	s     *client.Session
	meta  *metaclient.Client
	space int32
}

// balanceJob is a job as SHOW JOB shows it.
type balanceJob struct {
	status, message string
	tasks           []balanceTask
}

type balanceTask struct{ id, what, status, message string }

func (j balanceJob) count(status string) int {
	n := 0
	for _, t := range j.tasks {
		if t.status == status {
			n++
		}
	}
	return n
}

func (b *balanceCheck) str(rs *client.ResultSet, row, col int) string {
	if rs.Row(row).IsNull(col) {
		return ""
	}
	v, err := rs.Row(row).String(col)
	if err != nil {
		b.t.Fatalf("row %d column %d: %v", row, col, err)
	}
	return v
}

func (b *balanceCheck) int(rs *client.ResultSet, row, col int) int64 {
	v, err := rs.Row(row).Int(col)
	if err != nil {
		b.t.Fatalf("row %d column %d: %v", row, col, err)
	}
	return v
}

func (b *balanceCheck) submit(stmt string) int64 {
	b.t.Helper()
	rs := exec(b.t, b.s, stmt)
	if cols := rs.Columns(); rs.Len() != 1 || !slices.Equal(cols, []string{"New Job Id"}) {
		b.t.Fatalf("%s: %v %v", stmt, cols, render(rs))
	}
	return b.int(rs, 0, 0)
}

func (b *balanceCheck) show(id int64) balanceJob {
	b.t.Helper()
	rs := exec(b.t, b.s, fmt.Sprintf("SHOW JOB %d", id))
	want := []string{"Job Id(TaskId)", "Command(Task)", "Space", "Part", "Status", "Start Time", "Stop Time", "Message"}
	if !slices.Equal(rs.Columns(), want) || rs.Len() == 0 || b.int(rs, 0, 0) != id {
		b.t.Fatalf("SHOW JOB %d: %v %v", id, rs.Columns(), render(rs))
	}
	j := balanceJob{status: b.str(rs, 0, 4), message: b.str(rs, 0, 7)}
	for i := 1; i < rs.Len(); i++ {
		j.tasks = append(j.tasks, balanceTask{
			id: strconv.FormatInt(b.int(rs, i, 0), 10), what: b.str(rs, i, 1), status: b.str(rs, i, 4), message: b.str(rs, i, 7),
		})
	}
	return j
}

// waitFor polls SHOW JOB until ok; a FAILED job fails the test.
func (b *balanceCheck) waitFor(id int64, what string, ok func(balanceJob) bool) balanceJob {
	b.t.Helper()
	var j balanceJob
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		j = b.show(id)
		if ok(j) {
			return j
		}
		if j.status == "FAILED" || j.status == "FINISHED" {
			b.t.Fatalf("job %d %s while waiting for %s: %s; tasks %v", id, j.status, what, j.message, j.tasks)
		}
	}
	b.t.Fatalf("job %d: timed out waiting for %s: %+v", id, what, j)
	return j
}

func (b *balanceCheck) wait(id int64, status string) balanceJob {
	b.t.Helper()
	return b.waitFor(id, status, func(j balanceJob) bool { return j.status == status })
}

// parts is the space's placement as the test's catalog cache has it, once
// the cache has caught up with metad.
func (b *balanceCheck) parts() map[int32][]uint64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cat, err := b.meta.GetCatalog(ctx)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := b.meta.WaitVersion(ctx, cat.Version); err != nil {
		b.t.Fatal(err)
	}
	return b.meta.Catalog().Parts(b.space)
}

// checkSpread: every running store but the removed ones holds lo..hi
// replicas, the removed ones none, and no partition has a replica twice.
func (b *balanceCheck) checkSpread(removed []uint64, lo, hi int) {
	b.t.Helper()
	parts := b.parts()
	count := map[uint64]int{}
	for _, st := range b.c.Stores {
		if st.Server != nil && !slices.Contains(removed, st.Server.StoreID()) {
			count[st.Server.StoreID()] = 0
		}
	}
	for p, rs := range parts {
		if len(rs) != 3 {
			b.t.Fatalf("partition %d has replicas %v", p, rs)
		}
		for i, r := range rs {
			if slices.Contains(rs[:i], r) {
				b.t.Fatalf("partition %d has two replicas on store %d", p, r)
			}
			if _, ok := count[r]; !ok {
				b.t.Fatalf("partition %d has a replica on store %d (removed or not running): %v", p, r, parts)
			}
			count[r]++
		}
	}
	for store, n := range count {
		if n < lo || n > hi {
			b.t.Fatalf("store %d holds %d replicas, want %d..%d: %v", store, n, lo, hi, count)
		}
	}
	b.t.Logf("replicas per store: %v", count)
}

// checkQuorum: no partition has fewer than three voting replicas.
func (b *balanceCheck) checkQuorum() {
	b.t.Helper()
	for p, rs := range b.parts() {
		if len(rs) < 3 {
			b.t.Fatalf("partition %d is down to replicas %v", p, rs)
		}
	}
}

// checkReplicas: every replica of every partition holds the same data.
func (b *balanceCheck) checkReplicas() {
	b.t.Helper()
	for part, replicas := range b.parts() {
		var sums []uint64
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			sums = sums[:0]
			for _, st := range b.c.Stores {
				if st.Server == nil || !slices.Contains(replicas, st.Server.StoreID()) {
					continue
				}
				sum, err := st.Server.PartChecksum(b.space, part)
				if err != nil {
					continue // the replica may still be opening
				}
				sums = append(sums, sum)
			}
			if len(sums) == 3 && sums[0] == sums[1] && sums[1] == sums[2] {
				break
			}
		}
		if len(sums) != 3 || sums[0] != sums[1] || sums[1] != sums[2] {
			b.t.Fatalf("partition %d on %v: replica checksums %x", part, replicas, sums)
		}
	}
}

// checkLeaders: the running stores lead 1 or 2 of the 6 partitions each.
// Leaders are what the stores report, so a leader election right after the
// job could move one; the check allows the reports a few seconds.
func (b *balanceCheck) checkLeaders(removed []uint64) {
	b.t.Helper()
	var count map[uint64]int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		b.parts()
		snap := b.meta.Catalog()
		count = map[uint64]int{}
		for _, st := range b.c.Stores {
			if st.Server != nil && !slices.Contains(removed, st.Server.StoreID()) {
				count[st.Server.StoreID()] = 0
			}
		}
		for p := range snap.Parts(b.space) {
			if l, ok := snap.Leader(b.space, p); ok {
				count[l]++
			}
		}
		ok := true
		for _, n := range count {
			ok = ok && n >= 1 && n <= 2
		}
		if ok {
			b.t.Logf("leaders per store: %v", count)
			return
		}
	}
	b.t.Fatalf("leaders per store %v, want 1 or 2 each", count)
}

// concentrateLeaders transfers each partition's leadership to its replica
// on the lowest store id and waits for the reports: the lowest stores then
// lead far more than their share.
func (b *balanceCheck) concentrateLeaders() {
	b.t.Helper()
	sc := storageclient.New(b.meta, slog.New(slog.DiscardHandler))
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	want := map[int32]uint64{}
	for part, replicas := range b.parts() {
		want[part] = slices.Min(replicas)
		if err := sc.TransferLeader(ctx, b.space, part, want[part]); err != nil {
			b.t.Fatalf("part %d: transferring leadership to store %d: %v", part, want[part], err)
		}
	}
	for ctx.Err() == nil {
		b.parts()
		snap, same := b.meta.Catalog(), true
		for part, store := range want {
			l, ok := snap.Leader(b.space, part)
			same = same && ok && l == store
		}
		if same {
			b.t.Logf("leaders piled up: %v", want)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("leader reports did not follow the transfers to %v", want)
}
