package metad

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// fakeStorage plays the storaged side of the job runner against one
// metad: replica changes go straight to the catalog (as storaged's admin
// calls end), leadership lives in a map and reaches the catalog through
// heartbeats. hook, if set, runs first in every call and may block (it
// must honour ctx, as a storage RPC does).
type fakeStorage struct {
	srv   atomic.Pointer[Server]
	space int32

	mu      sync.Mutex
	calls   []string
	leaders map[int32]uint64
	terms   map[int32]uint64
	hook    func(ctx context.Context, call string) error
	// stuck makes TransferLeader answer success without moving anything.
	stuck bool
}

func newFakeStorage() *fakeStorage {
	return &fakeStorage{leaders: map[int32]uint64{}, terms: map[int32]uint64{}}
}

func (f *fakeStorage) record(ctx context.Context, call string) error {
	f.mu.Lock()
	f.calls = append(f.calls, call)
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		return hook(ctx, call)
	}
	return nil
}

func (f *fakeStorage) count(call string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == call {
			n++
		}
	}
	return n
}

func (f *fakeStorage) setHook(h func(ctx context.Context, call string) error) {
	f.mu.Lock()
	f.hook = h
	f.mu.Unlock()
}

func (f *fakeStorage) change(ctx context.Context, space, part int32, edit func(replicas []uint64) []uint64) error {
	s := f.srv.Load()
	v, err := s.readCatalog(ctx)
	if err != nil {
		return err
	}
	replicas, learners, ok := partOf(v, space, part)
	if !ok {
		return fmt.Errorf("no partition %d", part)
	}
	next := edit(slices.Clone(replicas))
	if sameSet(next, replicas) {
		return nil
	}
	_, err = s.updatePartReplicas(ctx, &metapb.UpdatePartReplicasReq{
		SpaceId: space, PartId: part, ExpectedReplicas: replicas, ExpectedLearners: learners, Replicas: next, Learners: learners,
	})
	return err
}

func (f *fakeStorage) AddReplica(ctx context.Context, space, part int32, store uint64) error {
	if err := f.record(ctx, fmt.Sprintf("add %d %d", part, store)); err != nil {
		return err
	}
	return f.change(ctx, space, part, func(rs []uint64) []uint64 {
		if !slices.Contains(rs, store) {
			rs = append(rs, store)
		}
		return rs
	})
}

func (f *fakeStorage) RemoveReplica(ctx context.Context, space, part int32, store uint64) error {
	if err := f.record(ctx, fmt.Sprintf("remove %d %d", part, store)); err != nil {
		return err
	}
	f.mu.Lock()
	leads := f.leaders[part] == store
	f.mu.Unlock()
	if leads {
		return fmt.Errorf("store %d leads the group: transfer leadership before removing it", store)
	}
	return f.change(ctx, space, part, func(rs []uint64) []uint64 {
		return slices.DeleteFunc(rs, func(r uint64) bool { return r == store })
	})
}

func (f *fakeStorage) TransferLeader(ctx context.Context, space, part int32, store uint64) error {
	if err := f.record(ctx, fmt.Sprintf("leader %d %d", part, store)); err != nil {
		return err
	}
	f.mu.Lock()
	if f.stuck {
		f.mu.Unlock()
		return nil
	}
	f.leaders[part] = store
	f.terms[part]++
	f.mu.Unlock()
	return f.report(ctx)
}

func (f *fakeStorage) Compact(ctx context.Context, addr string, space int32) error {
	return f.record(ctx, "compact "+addr)
}

func (f *fakeStorage) SpaceStats(ctx context.Context, space int32) (*metapb.SpaceStats, error) {
	if err := f.record(ctx, fmt.Sprintf("stats %d", space)); err != nil {
		return nil, err
	}
	return &metapb.SpaceStats{Vertices: 7, Edges: 9, Tags: []*metapb.SchemaCount{{SchemaId: 1, Count: 7}}}, nil
}

func (f *fakeStorage) Close() {}

// report sends every host's leaderships to metad, as heartbeats would.
func (f *fakeStorage) report(ctx context.Context) error {
	s := f.srv.Load()
	f.mu.Lock()
	space := f.space
	by := map[uint64][]*metapb.LeaderInfo{}
	for p, st := range f.leaders {
		by[st] = append(by[st], &metapb.LeaderInfo{SpaceId: space, PartId: p, StoreId: st, Term: f.terms[p] + 1})
	}
	f.mu.Unlock()
	for _, h := range s.cat.current().cat.Hosts {
		if _, err := s.heartbeat(ctx, &metapb.HeartbeatReq{StoreId: h.StoreId, Leaders: by[h.StoreId]}); err != nil {
			return err
		}
	}
	return nil
}

// jobEnv is one metad (restartable on its data) with a fake storaged.
type jobEnv struct {
	t    *testing.T
	dir  string
	fake *fakeStorage
	srv  *Server
	rpc  metapb.MetaServiceClient
	conn *grpc.ClientConn
}

func newJobEnv(t *testing.T) *jobEnv {
	e := &jobEnv{t: t, dir: t.TempDir(), fake: newFakeStorage()}
	e.start()
	t.Cleanup(e.stop)
	return e
}

func (e *jobEnv) start() {
	e.t.Helper()
	level := slog.LevelWarn
	if testing.Verbose() {
		level = slog.LevelInfo
	}
	srv := New(Config{
		ListenAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataPath: e.dir,
		EtcdClientAddr: "127.0.0.1:0", EtcdPeerAddr: "127.0.0.1:0", EtcdTickMs: 10,
		HostTTL: time.Minute, BcryptCost: bcrypt.MinCost,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	})
	srv.jobs.newStorage = func(*Server) (jobStorage, error) { return e.fake, nil }
	srv.jobs.leaderWait = 300 * time.Millisecond
	e.fake.srv.Store(srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		e.t.Fatalf("starting metad: %v", err)
	}
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv, e.conn, e.rpc = srv, conn, metapb.NewMetaServiceClient(conn)
}

func (e *jobEnv) stop() {
	if e.srv != nil {
		e.conn.Close()
		e.srv.Stop()
		e.srv = nil
	}
}

func (e *jobEnv) restart() {
	e.stop()
	e.start()
}

// hosts registers stores on ports 9779+from.. and heartbeats each once.
func (e *jobEnv) hosts(from, n int) {
	e.t.Helper()
	for i := from; i < from+n; i++ {
		addr := &commonpb.HostAddr{Host: "127.0.0.1", Port: int32(9779 + i)}
		r, err := e.rpc.RegisterHost(ctxT(e.t), &metapb.RegisterHostReq{Addr: addr})
		if err != nil {
			e.t.Fatal(err)
		}
		wantCode(e.t, "RegisterHost", r.Status, commonpb.ErrorCode_SUCCEEDED)
		hb, err := e.rpc.Heartbeat(ctxT(e.t), &metapb.HeartbeatReq{StoreId: r.StoreId, Addr: addr})
		if err != nil {
			e.t.Fatal(err)
		}
		wantCode(e.t, "Heartbeat", hb.Status, commonpb.ErrorCode_SUCCEEDED)
	}
}

// space creates a space and makes each partition's first replica its
// leader.
func (e *jobEnv) space(parts, rf int32) int32 {
	e.t.Helper()
	id := createSpace(e.t, e.rpc, "s", parts, rf).SpaceId
	e.fake.mu.Lock()
	e.fake.space = id
	for _, pa := range getCatalog(e.t, e.rpc).Parts[id].Parts {
		e.fake.leaders[pa.PartId] = pa.Replicas[0]
	}
	e.fake.mu.Unlock()
	if err := e.fake.report(ctxT(e.t)); err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *jobEnv) submit(space int32, typ metapb.JobType, remove ...*commonpb.HostAddr) int64 {
	e.t.Helper()
	r, err := e.rpc.SubmitJob(ctxT(e.t), &metapb.SubmitJobReq{SpaceId: space, Type: typ, RemoveHosts: remove})
	if err != nil {
		e.t.Fatal(err)
	}
	wantCode(e.t, "SubmitJob", r.Status, commonpb.ErrorCode_SUCCEEDED)
	return r.JobId
}

func (e *jobEnv) job(space int32, id int64) *metapb.GetJobResp {
	e.t.Helper()
	r, err := e.rpc.GetJob(ctxT(e.t), &metapb.GetJobReq{SpaceId: space, JobId: id})
	if err != nil {
		e.t.Fatal(err)
	}
	wantCode(e.t, "GetJob", r.Status, commonpb.ErrorCode_SUCCEEDED)
	return r
}

// waitJob waits until the job satisfies ok.
func (e *jobEnv) waitJob(space int32, id int64, what string, ok func(*metapb.GetJobResp) bool) *metapb.GetJobResp {
	e.t.Helper()
	var r *metapb.GetJobResp
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r = e.job(space, id); ok(r) {
			return r
		}
	}
	e.t.Fatalf("job %d: %s did not happen: %v %v", id, what, r.Job, r.Tasks)
	return nil
}

func (e *jobEnv) waitStatus(space int32, id int64, st metapb.JobStatus) *metapb.GetJobResp {
	e.t.Helper()
	r := e.waitJob(space, id, "status "+JobStatusName(st), func(r *metapb.GetJobResp) bool {
		return r.Job.Status == st || r.Job.Status == metapb.JobStatus_JOB_FAILED
	})
	if r.Job.Status != st {
		e.t.Fatalf("job %d %s: %s; tasks %v", id, JobStatusName(r.Job.Status), r.Job.Message, r.Tasks)
	}
	return r
}

func (e *jobEnv) placement(space int32) (map[int32][]uint64, []balanceHost, map[int32]uint64) {
	e.t.Helper()
	v, err := e.srv.readCatalog(ctxT(e.t))
	if err != nil {
		e.t.Fatal(err)
	}
	parts, hosts := placement(v, &metapb.JobDesc{SpaceId: space})
	return parts, hosts, spaceLeaders(v, space)
}

func TestJobsBalanceWithFakeStorage(t *testing.T) {
	e := newJobEnv(t)
	e.hosts(0, 3)
	space := e.space(6, 3)
	e.hosts(3, 2)

	// BALANCE DATA: 18 replicas on 3 of 5 hosts move to 3 or 4 per host.
	id := e.submit(space, metapb.JobType_JOB_BALANCE_DATA)
	r := e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED)
	parts, hosts, _ := e.placement(space)
	if ok, why := dataBalanced(parts, hosts); !ok {
		t.Fatalf("after BALANCE DATA: %s", why)
	}
	if len(r.Tasks) != 6 || !strings.Contains(r.Job.Message, "balanced") || r.Job.Command != "BALANCE DATA" {
		t.Fatalf("job %v, tasks %v", r.Job, r.Tasks)
	}
	for _, task := range r.Tasks {
		if task.Status != metapb.JobStatus_JOB_FINISHED || task.DoneSteps != 3 || task.StartTimeMs == 0 || task.StopTimeMs < task.StartTimeMs {
			t.Fatalf("task %v", task)
		}
	}
	for p, rs := range parts {
		if len(rs) != 3 {
			t.Fatalf("partition %d has replicas %v", p, rs)
		}
	}

	// Nothing left to do: FINISHED at once, saying so, with no task.
	id = e.submit(space, metapb.JobType_JOB_BALANCE_DATA)
	if r := e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED); r.Job.Message != "the space is balanced" || len(r.Tasks) != 0 {
		t.Fatalf("balanced space: %v %v", r.Job, r.Tasks)
	}

	// BALANCE LEADER: the moves above left leaders anywhere.
	id = e.submit(space, metapb.JobType_JOB_BALANCE_LEADER)
	e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED)
	parts, hosts, leaders := e.placement(space)
	if ok, why := leadersBalanced(parts, leaders, hosts); !ok {
		t.Fatalf("after BALANCE LEADER: %s (%v)", why, leaders)
	}

	// COMPACT: one task per host.
	id = e.submit(space, metapb.JobType_JOB_COMPACT)
	if r := e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED); len(r.Tasks) != 5 {
		t.Fatalf("COMPACT tasks: %v", r.Tasks)
	}
	for i := range 5 {
		if n := e.fake.count(fmt.Sprintf("compact 127.0.0.1:%d", 9779+i)); n != 1 {
			t.Fatalf("host %d compacted %d times", i, n)
		}
	}

	// STATS: one task, which keeps what storage counted.
	id = e.submit(space, metapb.JobType_JOB_STATS)
	if r := e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED); len(r.Tasks) != 1 || r.Tasks[0].GetStats().GetVertices() != 7 ||
		r.Tasks[0].GetStats().GetEdges() != 9 || r.Job.Command != "STATS" {
		t.Fatalf("STATS job %v, tasks %v", r.Job, r.Tasks)
	}

	// BALANCE DATA REMOVE: the host keeps no replica, the rest balance.
	victim := &commonpb.HostAddr{Host: "127.0.0.1", Port: 9779}
	id = e.submit(space, metapb.JobType_JOB_BALANCE_DATA, victim)
	r = e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED)
	if r.Job.Command != `BALANCE DATA REMOVE "127.0.0.1":9779` {
		t.Fatalf("command %q", r.Job.Command)
	}
	parts, hosts, _ = e.placement(space)
	for p, rs := range parts {
		if slices.Contains(rs, r.Job.RemoveStores[0]) || len(rs) != 3 {
			t.Fatalf("partition %d on %v after removing store %d", p, rs, r.Job.RemoveStores[0])
		}
	}
	for i := range hosts {
		hosts[i].active = hosts[i].store != r.Job.RemoveStores[0]
	}
	if ok, why := dataBalanced(parts, hosts); !ok {
		t.Fatal(why)
	}

	// The list is newest first; unknown hosts and jobs are refused.
	list, err := e.rpc.ListJobs(ctxT(t), &metapb.ListJobsReq{SpaceId: space})
	if err != nil || len(list.Jobs) != 6 || list.Jobs[0].JobId != id {
		t.Fatalf("ListJobs: %v %v", list, err)
	}
	resp, err := e.rpc.SubmitJob(ctxT(t), &metapb.SubmitJobReq{SpaceId: space, Type: metapb.JobType_JOB_BALANCE_DATA,
		RemoveHosts: []*commonpb.HostAddr{{Host: "10.0.0.1", Port: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "SubmitJob with an unknown host", resp.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "10.0.0.1:1")
	g, err := e.rpc.GetJob(ctxT(t), &metapb.GetJobReq{SpaceId: space + 1, JobId: id})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "GetJob of another space", g.Status, commonpb.ErrorCode_E_NOT_FOUND)
	st, err := e.rpc.StopJob(ctxT(t), &metapb.StopJobReq{SpaceId: space, JobId: id})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "StopJob of a finished job", st.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "FINISHED")
}

// TestJobStopRecoverAndRestart: STOP JOB halts a move between its steps
// (leaving an extra replica, never a missing one); the job stays STOPPED
// across a metad restart; RECOVER JOB resumes it at the stopped task's
// next step; and a metad restart in the middle of a step resumes the job
// by running that step again.
func TestJobStopRecoverAndRestart(t *testing.T) {
	e := newJobEnv(t)
	e.hosts(0, 3)
	space := e.space(6, 3)
	e.hosts(3, 2)

	// Block the second add until released.
	var adds atomic.Int32
	blocked := make(chan string, 1)
	release := make(chan struct{})
	var blockAt atomic.Int32
	blockAt.Store(2)
	e.fake.setHook(func(ctx context.Context, call string) error {
		if !strings.HasPrefix(call, "add") {
			return nil
		}
		if adds.Add(1) != blockAt.Load() {
			return nil
		}
		blocked <- call
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	id := e.submit(space, metapb.JobType_JOB_BALANCE_DATA)
	stoppedAdd := <-blocked
	st, err := e.rpc.StopJob(ctxT(t), &metapb.StopJobReq{SpaceId: space, JobId: id})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "StopJob", st.Status, commonpb.ErrorCode_SUCCEEDED)
	if r := e.job(space, id); r.Job.Status != metapb.JobStatus_JOB_STOPPED {
		t.Fatalf("job after STOP JOB: %v", r.Job)
	}
	close(release) // the step in progress completes; the next one is not started
	r := e.waitJob(space, id, "task 2 stopped", func(r *metapb.GetJobResp) bool {
		return len(r.Tasks) > 1 && r.Tasks[1].Status == metapb.JobStatus_JOB_STOPPED
	})
	if task := r.Tasks[1]; task.DoneSteps != 1 || r.Tasks[0].Status != metapb.JobStatus_JOB_FINISHED || r.Tasks[2].Status != metapb.JobStatus_JOB_QUEUE {
		t.Fatalf("after the stop: %v", r.Tasks)
	}
	parts, _, _ := e.placement(space)
	for p, rs := range parts {
		if len(rs) < 3 {
			t.Fatalf("stopped job left partition %d with replicas %v", p, rs)
		}
		if p == r.Tasks[1].PartId && len(rs) != 4 {
			t.Fatalf("the stopped move's partition %d has replicas %v, want the extra one", p, rs)
		}
	}

	// A restart does not resume a stopped job.
	e.restart()
	time.Sleep(3 * jobPoll)
	if r := e.job(space, id); r.Job.Status != metapb.JobStatus_JOB_STOPPED {
		t.Fatalf("stopped job after a restart: %v", r.Job)
	}

	// RECOVER JOB; block again at the next add and restart metad there.
	adds.Store(0)
	blockAt.Store(2)
	release = make(chan struct{})
	rec, err := e.rpc.RecoverJob(ctxT(t), &metapb.RecoverJobReq{SpaceId: space})
	if err != nil || rec.Recovered != 1 {
		t.Fatalf("RecoverJob: %v %v", rec, err)
	}
	midAdd := <-blocked
	r = e.job(space, id)
	if r.Job.Status != metapb.JobStatus_JOB_RUNNING {
		t.Fatalf("recovered job: %v", r.Job)
	}
	e.restart() // cancels the blocked step; the task stays RUNNING
	blockAt.Store(-1)
	r = e.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED)
	for _, task := range r.Tasks {
		if task.Status != metapb.JobStatus_JOB_FINISHED || task.DoneSteps != 3 {
			t.Fatalf("task %v", task)
		}
	}
	if n := e.fake.count(stoppedAdd); n != 1 {
		t.Errorf("%q ran %d times; the add finished before the stop must not run again", stoppedAdd, n)
	}
	if n := e.fake.count(midAdd); n != 2 {
		t.Errorf("%q ran %d times; the step interrupted by the restart must run again", midAdd, n)
	}
	parts, hosts, _ := e.placement(space)
	if ok, why := dataBalanced(parts, hosts); !ok {
		t.Fatal(why)
	}
}

// TestJobRunnerElection: of two metad on one etcd exactly one runs jobs;
// when it stops, the other takes over and runs the queue.
func TestJobRunnerElection(t *testing.T) {
	a := newJobEnv(t)
	a.hosts(0, 2)
	space := a.space(2, 1)

	bFake := newFakeStorage()
	b := New(Config{
		ListenAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0",
		EtcdEndpoints: []string{a.srv.etcd.Clients[0].Addr().String()},
		HostTTL:       time.Minute, BcryptCost: bcrypt.MinCost,
		Logger: slog.New(slog.DiscardHandler),
	})
	b.jobs.newStorage = func(*Server) (jobStorage, error) { return bFake, nil }
	bFake.srv.Store(b)
	if err := b.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()

	for deadline := time.Now().Add(10 * time.Second); !a.srv.jobs.leading.Load() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(2 * jobPoll)
	if !a.srv.jobs.leading.Load() || b.jobs.leading.Load() {
		t.Fatalf("leading: a=%v b=%v; want a only", a.srv.jobs.leading.Load(), b.jobs.leading.Load())
	}
	id := a.submit(space, metapb.JobType_JOB_COMPACT)
	a.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED)
	if a.fake.count("compact 127.0.0.1:9779") != 1 || bFake.count("compact 127.0.0.1:9779") != 0 {
		t.Fatal("the job did not run on the elected metad alone")
	}

	a.srv.jobs.stopRunner()
	for deadline := time.Now().Add(10 * time.Second); !b.jobs.leading.Load() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !b.jobs.leading.Load() || a.srv.jobs.leading.Load() {
		t.Fatalf("after a's runner stopped: a=%v b=%v; want b only", a.srv.jobs.leading.Load(), b.jobs.leading.Load())
	}
	id = a.submit(space, metapb.JobType_JOB_COMPACT) // through a: b polls
	a.waitStatus(space, id, metapb.JobStatus_JOB_FINISHED)
	if a.fake.count("compact 127.0.0.1:9779") != 1 || bFake.count("compact 127.0.0.1:9779") != 1 {
		t.Fatal("the second job did not run on b")
	}
}

// TestJobFailuresAreHonest: a job that cannot do what it is for FAILS,
// saying why, instead of claiming the space is balanced.
func TestJobFailuresAreHonest(t *testing.T) {
	e := newJobEnv(t)
	e.hosts(0, 4)
	space := e.space(4, 2)

	// Leaders: placement allows no balance. Partitions 1-3 live on stores
	// 1 and 2, partition 4 on stores 3 and 4: one of 3 and 4 leads nothing
	// while 1 and 2 share three.
	cat := getCatalog(t, e.rpc)
	ids := map[int32][]uint64{1: {1, 2}, 2: {1, 2}, 3: {1, 2}, 4: {3, 4}}
	for _, pa := range cat.Parts[space].Parts {
		if _, err := e.srv.updatePartReplicas(ctxT(t), &metapb.UpdatePartReplicasReq{
			SpaceId: space, PartId: pa.PartId, ExpectedReplicas: pa.Replicas, Replicas: ids[pa.PartId],
		}); err != nil {
			t.Fatal(err)
		}
	}
	e.fake.mu.Lock()
	e.fake.leaders = map[int32]uint64{1: 1, 2: 1, 3: 1, 4: 3}
	e.fake.mu.Unlock()
	if err := e.fake.report(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	id := e.submit(space, metapb.JobType_JOB_BALANCE_LEADER)
	r := e.waitStatus(space, id, metapb.JobStatus_JOB_FAILED)
	if !strings.Contains(r.Job.Message, "cannot balance leaders: leaders per host {1:2 2:1 3:1 4:0} differ by more than one") {
		t.Fatalf("impossible BALANCE LEADER: %q, tasks %v", r.Job.Message, r.Tasks)
	}

	// Leaders: transfers that never take effect fail after bounded tries.
	e.fake.mu.Lock()
	e.fake.leaders = map[int32]uint64{1: 1, 2: 1, 3: 1, 4: 3}
	e.fake.stuck = true
	e.fake.mu.Unlock()
	if err := e.fake.report(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	before := e.fake.count("leader 1 2")
	id = e.submit(space, metapb.JobType_JOB_BALANCE_LEADER)
	r = e.waitStatus(space, id, metapb.JobStatus_JOB_FAILED)
	if !strings.Contains(r.Job.Message, "did not move to store 2 after 3 attempts") ||
		r.Tasks[0].Status != metapb.JobStatus_JOB_FAILED || !strings.Contains(r.Tasks[0].Message, "still reports leader store 1") {
		t.Fatalf("stuck BALANCE LEADER: %q, tasks %v", r.Job.Message, r.Tasks)
	}
	if r.Tasks[0].PartId != 1 {
		t.Fatalf("stuck BALANCE LEADER moved partition %d first, not 1: %v", r.Tasks[0].PartId, r.Tasks)
	}
	if n := e.fake.count("leader 1 2") - before; n != leaderAttempts {
		t.Fatalf("%d transfer attempts, want %d", n, leaderAttempts)
	}

	// Data: removing hosts until fewer than the replica factor are left.
	id = e.submit(space, metapb.JobType_JOB_BALANCE_DATA,
		&commonpb.HostAddr{Host: "127.0.0.1", Port: 9779}, &commonpb.HostAddr{Host: "127.0.0.1", Port: 9780},
		&commonpb.HostAddr{Host: "127.0.0.1", Port: 9781})
	r = e.waitStatus(space, id, metapb.JobStatus_JOB_FAILED)
	if !strings.Contains(r.Job.Message, "cannot balance: partition 1 has 2 replicas but only 1 storage hosts are active") || len(r.Tasks) != 0 {
		t.Fatalf("BALANCE DATA REMOVE of too many hosts: %q, tasks %v", r.Job.Message, r.Tasks)
	}
	// A failed job can be recovered; it fails again, for the same reason.
	rec, err := e.rpc.RecoverJob(ctxT(t), &metapb.RecoverJobReq{SpaceId: space, JobIds: []int64{id}})
	if err != nil || rec.Recovered != 1 {
		t.Fatalf("RecoverJob: %v %v", rec, err)
	}
	e.waitJob(space, id, "failing again", func(r *metapb.GetJobResp) bool {
		return r.Job.Status == metapb.JobStatus_JOB_FAILED && strings.Contains(r.Job.Message, "cannot balance")
	})
}

// TestHostZone: a host registers with its zone (storaged --zone), the
// catalog shows it, and registering again with another zone moves it.
func TestHostZone(t *testing.T) {
	e := newJobEnv(t)
	addr := &commonpb.HostAddr{Host: "127.0.0.1", Port: 9779}
	zoneOf := func() string {
		for _, h := range getCatalog(t, e.rpc).Hosts {
			if h.Addr.GetPort() == addr.Port {
				return h.Zone
			}
		}
		t.Fatal("host not in the catalog")
		return ""
	}
	for _, zone := range []string{"rack1", "rack1", "rack2", ""} {
		r, err := e.rpc.RegisterHost(ctxT(t), &metapb.RegisterHostReq{Addr: addr, Zone: zone})
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, "RegisterHost", r.Status, commonpb.ErrorCode_SUCCEEDED)
		if got := zoneOf(); got != zone {
			t.Fatalf("zone %q after registering in %q", got, zone)
		}
	}
}
