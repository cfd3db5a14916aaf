package metad

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/metapb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// The job runner. Exactly one metad runs jobs at a time: every metad
// campaigns in an etcd election (prefixJobsRunner) with a session lease,
// and only the winner runs. Every write the runner makes to a job or task
// is a transaction that also requires its election key to be the one it
// won with, so a runner that lost its lease (partitioned, paused) can no
// longer change a job even before it notices; the next winner resumes the
// RUNNING jobs.
//
// A job runs as rounds: plan (balance.go), persist every task of the plan
// and mark the job planned, then run the tasks in order. A metad that
// takes over finds the job planned and runs the same tasks; a task found
// RUNNING is run again, at the first step it had not recorded as done.
// Every step checks the catalog (or raft, through storaged's idempotent
// admin calls) first, so running it twice does no harm:
//
//	move p A→B   1 add B   nothing if B already is a replica (storaged's
//	                       AddReplica: learner, catch-up, voter, each
//	                       skipped when done); skipped as moot if A no
//	                       longer holds p and B was never added
//	             2 leader  nothing unless the catalog says A leads p; else
//	                       transfer it to B and wait for the report
//	             3 remove  nothing if A is gone; refused unless B is a voter
//	                       replica, so a move never leaves p short of a
//	                       replica; a refusal because A leads after all
//	                       transfers leadership to B and retries
//	leader p →B            nothing if B already leads; else transfer and
//	                       wait for the leader report, a bounded number of
//	                       times
//	compact host           compaction is idempotent
//
// STOP JOB marks the job STOPPED; the runner checks before every step and
// stops there, never inside a step, so a stopped move leaves an extra
// replica, never a missing one. RECOVER JOB queues the job again and it
// resumes at its first unfinished task. After a round BALANCE DATA and
// BALANCE LEADER plan again; an empty plan ends the job FINISHED only if
// the space checks balanced (balance.go), and a job still unbalanced after
// maxBalanceRounds FAILS saying why.

// jobStorage is what the runner needs of storaged: the admin calls of
// storaged/client. Tests substitute a fake.
type jobStorage interface {
	AddReplica(ctx context.Context, space, part int32, store uint64) error
	RemoveReplica(ctx context.Context, space, part int32, store uint64) error
	TransferLeader(ctx context.Context, space, part int32, store uint64) error
	Compact(ctx context.Context, addr string, space int32) error
	SpaceStats(ctx context.Context, space int32) (*metapb.SpaceStats, error)
	Close()
}

const (
	// jobRunnerTTL is the election session's lease, in seconds: how long
	// jobs wait for a new runner after a runner dies without resigning.
	jobRunnerTTL = 5
	// jobPoll is how often the runner looks for new work without a wake-up
	// (a job submitted or recovered through another metad).
	jobPoll = 500 * time.Millisecond
	// maxBalanceRounds bounds the plan-and-run rounds of a balance job.
	maxBalanceRounds = 3
	// stepAttempts and stepTimeout bound each step; steps are idempotent,
	// so a failed attempt is simply repeated. A move's add step waits for
	// the new replica to catch up, by snapshot for a large partition, hence
	// the long timeout; a target that is offline fails the step at once
	// instead (checkOnline).
	stepAttempts = 5
	stepTimeout  = 10 * time.Minute
	// defaultLeaderWait is how long a leadership transfer waits for the
	// leader report in the catalog; leaderAttempts how often it transfers
	// again.
	defaultLeaderWait = 10 * time.Second
	leaderAttempts    = 3
)

var (
	// errNotRunner: this metad no longer holds the runner election.
	errNotRunner = errors.New("no longer the job runner")
	// errMoot: a move whose source no longer holds the partition.
	errMoot = errors.New("moot")
)

// permanentError is a step failure that retrying cannot fix.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

func permanentf(format string, args ...any) error {
	return permanentError{fmt.Errorf(format, args...)}
}

type jobRunner struct {
	s      *Server
	log    *slog.Logger
	wakeCh chan struct{}

	// newStorage connects the runner to storaged when it wins the election
	// (defaultJobStorage unless a test set another).
	newStorage func(*Server) (jobStorage, error)

	leading atomic.Bool
	cancel  context.CancelFunc // ends this runner alone (tests)
	// leaderWait is defaultLeaderWait; tests shorten it.
	leaderWait time.Duration

	// Set when the election is won, before any worker starts.
	electionKey string
	electionRev int64
	storage     jobStorage
}

func newJobRunner() *jobRunner {
	return &jobRunner{wakeCh: make(chan struct{}, 1), newStorage: defaultJobStorage, leaderWait: defaultLeaderWait}
}

// wake makes the runner look for work now.
func (jr *jobRunner) wake() {
	if jr == nil {
		return
	}
	select {
	case jr.wakeCh <- struct{}{}:
	default:
	}
}

// selfStorage is a storage client over a catalog cache of this metad.
type selfStorage struct {
	*storageclient.Client
	meta *metaclient.Client
}

func (st *selfStorage) Close() {
	st.Client.Close()
	st.meta.Close()
}

func defaultJobStorage(s *Server) (jobStorage, error) {
	st, err := selfStorageClient(s)
	if err != nil {
		return nil, err // not a nil *selfStorage in a non-nil interface
	}
	return st, nil
}

// selfStorageClient is a storage client over a catalog cache of this
// metad, which the caller closes.
func selfStorageClient(s *Server) (*selfStorage, error) {
	// With TLS metad dials itself by its certificate's first host: its
	// listen address may be a wildcard ("[::]:9559"), which no certificate
	// names. The storage client below connects with the same, unchanged
	// certificate to storaged.
	self := s.Addr()
	if host := s.cfg.TLS.OwnHost(); host != "" {
		_, port, _ := net.SplitHostPort(self)
		self = net.JoinHostPort(host, port)
	}
	meta := metaclient.New([]string{self}, s.log, metaclient.WithTLS(s.cfg.TLS))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		meta.Close()
		return nil, fmt.Errorf("job runner: reading the catalog from this metad: %w", err)
	}
	return &selfStorage{Client: storageclient.New(meta, s.log), meta: meta}, nil
}

// start runs the runner until ctx ends (Server.Stop) or stopRunner.
func (jr *jobRunner) start(ctx context.Context, s *Server) {
	jr.s, jr.log = s, s.log.With("component", "job-runner")
	ctx, jr.cancel = context.WithCancel(ctx)
	s.wg.Go(func() {
		backoff := time.Second
		for ctx.Err() == nil {
			err := jr.campaignAndServe(ctx)
			if ctx.Err() != nil {
				return
			}
			jr.log.Warn("job runner interrupted; campaigning again", "err", err, "backoff", backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return
			}
		}
	})
}

// stopRunner ends this metad's runner (it resigns), leaving the rest of
// metad serving. For tests of the election.
func (jr *jobRunner) stopRunner() { jr.cancel() }

// RunsJobs reports whether this metad holds the job runner election now
// (it runs the cluster's jobs). For tests and diagnostics: another metad
// may win the moment after.
func (s *Server) RunsJobs() bool { return s.jobs.leading.Load() }

func (jr *jobRunner) campaignAndServe(ctx context.Context) error {
	// The election gets its own etcd client. A Campaign whose ctx ends
	// resigns with the client's own context, which without an etcd quorum
	// blocks until that client closes; metad's Stop waits for this
	// goroutine before it closes its client, so with the shared one a
	// metad that lost quorum could never stop. This client is closed a
	// moment after ctx ends: long enough for a clean resign when etcd is
	// healthy, short enough for Stop when it is not.
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: jr.s.cli.Endpoints(), DialTimeout: 5 * time.Second, TLS: jr.s.etcdClientTLS(),
		Logger: newZapBridge(jr.s.log, "etcd-election", func(string, map[string]any) bool { return true }),
	})
	if err != nil {
		return fmt.Errorf("election client: %w", err)
	}
	defer cli.Close()
	stopClose := context.AfterFunc(ctx, func() {
		time.AfterFunc(2*time.Second, func() { cli.Close() })
	})
	defer stopClose()
	// The session is not tied to ctx, so Close can still revoke its lease
	// (and hand the election over at once) after ctx ended.
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(jobRunnerTTL))
	if err != nil {
		return fmt.Errorf("election session: %w", err)
	}
	defer sess.Close()
	el := concurrency.NewElection(sess, prefixJobsRunner)
	if err := el.Campaign(ctx, jr.s.Addr()); err != nil {
		return fmt.Errorf("campaigning: %w", err)
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-sess.Done():
			cancel()
		case <-lctx.Done():
		}
	}()
	storage, err := jr.newStorage(jr.s)
	if err != nil {
		return err
	}
	defer storage.Close()
	jr.electionKey, jr.electionRev, jr.storage = el.Key(), el.Rev(), storage
	jr.leading.Store(true)
	defer jr.leading.Store(false)
	jr.log.Info("running jobs", "election_key", el.Key())
	jr.serve(lctx)
	jr.log.Info("no longer running jobs")
	return lctx.Err()
}

// serve starts a worker for the next job of every space without one and
// returns once ctx ends and the workers have.
func (jr *jobRunner) serve(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	busy := map[int32]bool{}
	tick := time.NewTicker(jobPoll)
	defer tick.Stop()
	for {
		jobs, err := jr.s.loadJobs(ctx)
		if err != nil && ctx.Err() == nil {
			jr.log.Warn("reading jobs", "err", err)
		}
		mu.Lock()
		for space, id := range nextJobs(jobs) {
			if busy[space] {
				continue
			}
			busy[space] = true
			wg.Go(func() {
				jr.runJob(ctx, id)
				mu.Lock()
				delete(busy, space)
				mu.Unlock()
				jr.wake()
			})
		}
		mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-jr.wakeCh:
		}
	}
}

// nextJobs picks the job to run per space: its RUNNING job (one that was
// running when the last runner stopped), else its oldest queued one.
func nextJobs(jobs []*metapb.JobDesc) map[int32]int64 {
	next := map[int32]int64{}
	running := map[int32]bool{}
	for _, j := range jobs { // oldest first
		switch {
		case j.Status == metapb.JobStatus_JOB_RUNNING && !running[j.SpaceId]:
			next[j.SpaceId], running[j.SpaceId] = j.JobId, true
		case j.Status == metapb.JobStatus_JOB_QUEUE && !running[j.SpaceId]:
			if _, ok := next[j.SpaceId]; !ok {
				next[j.SpaceId] = j.JobId
			}
		}
	}
	return next
}

// guard makes a runner transaction require this runner's election key.
func (jr *jobRunner) guard(r *txnReader) error {
	kv, err := r.get(jr.electionKey)
	if err != nil {
		return err
	}
	if kv == nil || kv.CreateRevision != jr.electionRev {
		return errNotRunner
	}
	return nil
}

// editJob changes a job under the runner's guard. edit returns
// errJobStopped (or another error) to leave it unchanged.
func (jr *jobRunner) editJob(ctx context.Context, id int64, edit func(*metapb.JobDesc) error) (*metapb.JobDesc, error) {
	var job *metapb.JobDesc
	_, err := update(ctx, jr.s.cli, jr.s.metrics.txnConflicts.Inc, func(r *txnReader) ([]clientv3.Op, error) {
		if err := jr.guard(r); err != nil {
			return nil, err
		}
		kv, err := r.get(jobKey(id))
		if err != nil {
			return nil, err
		}
		if kv == nil {
			return nil, errJobStopped // deleted: nothing to run
		}
		if job, err = decodeJob(kv); err != nil {
			return nil, err
		}
		if err := edit(job); err != nil {
			return nil, err
		}
		val, err := marshal(job)
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{clientv3.OpPut(jobKey(id), val)}, nil
	})
	return job, err
}

func requireRunning(j *metapb.JobDesc) error {
	if j.Status != metapb.JobStatus_JOB_RUNNING {
		return errJobStopped
	}
	return nil
}

// putTasks writes tasks under the runner's guard and, with whileRunning,
// only while their job is RUNNING.
func (jr *jobRunner) putTasks(ctx context.Context, jobID int64, whileRunning bool, tasks []*metapb.JobTask, deletes []string) error {
	_, err := update(ctx, jr.s.cli, jr.s.metrics.txnConflicts.Inc, func(r *txnReader) ([]clientv3.Op, error) {
		if err := jr.guard(r); err != nil {
			return nil, err
		}
		if whileRunning {
			kv, err := r.get(jobKey(jobID))
			if err != nil {
				return nil, err
			}
			if kv == nil {
				return nil, errJobStopped
			}
			job, err := decodeJob(kv)
			if err != nil {
				return nil, err
			}
			if err := requireRunning(job); err != nil {
				return nil, err
			}
		}
		var ops []clientv3.Op
		for _, key := range deletes {
			ops = append(ops, clientv3.OpDelete(key))
		}
		for _, t := range tasks {
			val, err := marshal(t)
			if err != nil {
				return nil, err
			}
			ops = append(ops, clientv3.OpPut(jobTaskKey(t.JobId, t.TaskId), val))
		}
		return ops, nil
	})
	return err
}

// checkRunning returns errJobStopped unless the job is still RUNNING: the
// check before every step.
func (jr *jobRunner) checkRunning(ctx context.Context, id int64) error {
	job, err := jr.s.loadJob(ctx, id)
	if err != nil {
		return err
	}
	if job == nil {
		return errJobStopped
	}
	return requireRunning(job)
}

func (jr *jobRunner) runJob(ctx context.Context, id int64) {
	job, err := jr.editJob(ctx, id, func(j *metapb.JobDesc) error {
		switch j.Status {
		case metapb.JobStatus_JOB_QUEUE:
			j.Status = metapb.JobStatus_JOB_RUNNING
			if j.StartTimeMs == 0 {
				j.StartTimeMs = nowMs()
			}
			return nil
		case metapb.JobStatus_JOB_RUNNING:
			return nil
		}
		return errJobStopped
	})
	if err != nil {
		if !errors.Is(err, errJobStopped) && ctx.Err() == nil {
			jr.log.Warn("starting job", "job_id", id, "err", err)
		}
		return
	}
	log := jr.log.With("job_id", id, "space_id", job.SpaceId, "command", job.Command)
	log.Info("job running", "planned", job.Planned, "rounds", job.Rounds, "tasks", job.TaskCount)
	msg, err := jr.execute(ctx, job, log)
	end := metapb.JobStatus_JOB_FINISHED
	switch {
	case err == nil:
	case errors.Is(err, errJobStopped):
		log.Info("job stopped between steps")
		return
	case ctx.Err() != nil || errors.Is(err, errNotRunner):
		log.Info("job interrupted; the next job runner resumes it", "err", err)
		return
	default:
		end, msg = metapb.JobStatus_JOB_FAILED, err.Error()
	}
	_, err = jr.editJob(ctx, id, func(j *metapb.JobDesc) error {
		if err := requireRunning(j); err != nil {
			return err
		}
		j.Status, j.StopTimeMs, j.Message = end, nowMs(), msg
		return nil
	})
	if err != nil {
		log.Warn("recording the job's end", "status", end, "err", err)
		return
	}
	log.Info("job ended", "status", JobStatusName(end), "message", msg)
}

// execute runs the job's rounds and returns the message it finishes with.
func (jr *jobRunner) execute(ctx context.Context, job *metapb.JobDesc, log *slog.Logger) (string, error) {
	for {
		j, err := jr.s.loadJob(ctx, job.JobId)
		if err != nil {
			return "", err
		}
		if j == nil {
			return "", errJobStopped
		}
		if err := requireRunning(j); err != nil {
			return "", err
		}
		job = j
		if _, ok := jr.s.cat.current().spaces[job.SpaceId]; !ok {
			return "", fmt.Errorf("space %d was dropped", job.SpaceId)
		}
		if !job.Planned {
			done, msg, err := jr.plan(ctx, job, log)
			if err != nil || done {
				return msg, err
			}
			continue
		}
		tasks, err := jr.s.loadTasks(ctx, job.JobId)
		if err != nil {
			return "", err
		}
		for _, t := range tasks {
			if t.Status == metapb.JobStatus_JOB_FINISHED {
				continue
			}
			if err := jr.runTask(ctx, job, t, log); err != nil {
				return "", err
			}
		}
		_, err = jr.editJob(ctx, job.JobId, func(j *metapb.JobDesc) error {
			if err := requireRunning(j); err != nil {
				return err
			}
			j.Planned = false
			j.Rounds++
			return nil
		})
		if err != nil {
			return "", err
		}
	}
}

// readCatalog reads the catalog from etcd now (a linearizable read), not
// from this metad's view, which may lag a change storaged just made
// through another metad.
func (s *Server) readCatalog(ctx context.Context) (*view, error) {
	resp, err := s.cli.Get(ctx, keyRoot, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("reading catalog: %w", err)
	}
	entries := make(map[string]entry, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		if e, err := decodeEntry(kv); err == nil {
			entries[string(kv.Key)] = e
		}
	}
	return buildView(resp.Header.Revision, entries), nil
}

// placement is what the planners need of a space: replicas by partition
// and every host, active unless offline or being removed by the job.
func placement(v *view, job *metapb.JobDesc) (map[int32][]uint64, []balanceHost) {
	parts := map[int32][]uint64{}
	for _, pa := range v.cat.Parts[job.SpaceId].GetParts() {
		parts[pa.PartId] = slices.Clone(pa.Replicas)
	}
	var hosts []balanceHost
	for _, h := range v.cat.Hosts {
		hosts = append(hosts, balanceHost{store: h.StoreId, zone: h.Zone, active: h.Online && !slices.Contains(job.RemoveStores, h.StoreId)})
	}
	return parts, hosts
}

// spaceLeaders returns the reported leader of every partition of a space.
func spaceLeaders(v *view, space int32) map[int32]uint64 {
	out := map[int32]uint64{}
	for _, l := range v.cat.Leaders {
		if l.SpaceId == space {
			out[l.PartId] = l.StoreId
		}
	}
	return out
}

// plan computes and persists the next round's tasks, or ends the job
// (done) when there is nothing left to do.
func (jr *jobRunner) plan(ctx context.Context, job *metapb.JobDesc, log *slog.Logger) (done bool, msg string, err error) {
	v, err := jr.s.readCatalog(ctx)
	if err != nil {
		return false, "", err
	}
	parts, hosts := placement(v, job)
	var tasks []*metapb.JobTask
	add := func(part int32, from, to uint64) {
		tasks = append(tasks, &metapb.JobTask{
			JobId: job.JobId, TaskId: job.TaskCount + int32(len(tasks)) + 1, SpaceId: job.SpaceId,
			PartId: part, FromStore: from, ToStore: to, Status: metapb.JobStatus_JOB_QUEUE,
		})
	}
	switch job.Type {
	case metapb.JobType_JOB_STATS:
		if job.Rounds > 0 {
			return true, "counted", nil
		}
		add(0, 0, 0)
	case metapb.JobType_JOB_COMPACT:
		if job.Rounds > 0 {
			return true, fmt.Sprintf("compacted on %d hosts", job.TaskCount), nil
		}
		for _, h := range v.cat.Hosts {
			if h.Online {
				add(0, 0, h.StoreId)
			}
		}
		if len(tasks) == 0 {
			return false, "", errors.New("no storage host is online")
		}

	case metapb.JobType_JOB_BALANCE_DATA:
		if len(parts) == 0 {
			return false, "", fmt.Errorf("space %d has no partitions in the catalog", job.SpaceId)
		}
		moves, err := planDataBalance(parts, hosts)
		if err != nil {
			return false, "", fmt.Errorf("cannot balance: %w", err)
		}
		if len(moves) == 0 || job.Rounds >= maxBalanceRounds {
			if ok, why := dataBalanced(parts, hosts); !ok {
				if len(moves) == 0 {
					return false, "", fmt.Errorf("cannot balance: %s", why)
				}
				return false, "", fmt.Errorf("not balanced after %d rounds: %s", job.Rounds, why)
			}
			return true, balancedMessage(job.TaskCount, "replica"), nil
		}
		for _, m := range moves {
			add(m.part, m.from, m.to)
		}

	case metapb.JobType_JOB_BALANCE_LEADER:
		if len(parts) == 0 {
			return false, "", fmt.Errorf("space %d has no partitions in the catalog", job.SpaceId)
		}
		// Partitions electing a leader right now have none to move: give
		// them a moment.
		leaders := spaceLeaders(v, job.SpaceId)
		for deadline := time.Now().Add(jr.leaderWait); len(leaders) < len(parts) && time.Now().Before(deadline); {
			select {
			case <-ctx.Done():
				return false, "", ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			if v, err = jr.s.readCatalog(ctx); err != nil {
				return false, "", err
			}
			parts, hosts = placement(v, job)
			leaders = spaceLeaders(v, job.SpaceId)
		}
		moves, err := planLeaderBalance(parts, leaders, hosts)
		if err != nil {
			return false, "", fmt.Errorf("cannot balance leaders: %w", err)
		}
		if len(moves) == 0 || job.Rounds >= maxBalanceRounds {
			if ok, why := leadersBalanced(parts, leaders, hosts); !ok {
				if len(moves) == 0 {
					return false, "", fmt.Errorf("cannot balance leaders: %s", why)
				}
				return false, "", fmt.Errorf("leaders not balanced after %d rounds: %s", job.Rounds, why)
			}
			return true, balancedMessage(job.TaskCount, "leadership"), nil
		}
		for _, m := range moves {
			add(m.part, m.from, m.to)
		}
	default:
		return false, "", fmt.Errorf("unknown job type %s", job.Type)
	}

	// Leftovers of a plan whose persisting was interrupted (ids past
	// task_count) go first; then the tasks, in transactions of bounded
	// size; then the job is marked planned. Until that last write a
	// restarted runner plans again.
	old, err := jr.s.loadTasks(ctx, job.JobId)
	if err != nil {
		return false, "", err
	}
	var stale []string
	for _, t := range old {
		if t.TaskId > job.TaskCount {
			stale = append(stale, jobTaskKey(t.JobId, t.TaskId))
		}
	}
	for len(stale) > 0 {
		n := min(len(stale), maxJobTxnOps)
		if err := jr.putTasks(ctx, job.JobId, true, nil, stale[:n]); err != nil {
			return false, "", err
		}
		stale = stale[n:]
	}
	for rest := tasks; len(rest) > 0; {
		n := min(len(rest), maxJobTxnOps)
		if err := jr.putTasks(ctx, job.JobId, true, rest[:n], nil); err != nil {
			return false, "", err
		}
		rest = rest[n:]
	}
	_, err = jr.editJob(ctx, job.JobId, func(j *metapb.JobDesc) error {
		if err := requireRunning(j); err != nil {
			return err
		}
		if j.Planned || j.TaskCount != job.TaskCount {
			return fmt.Errorf("job %d was planned concurrently", j.JobId)
		}
		j.Planned, j.TaskCount = true, job.TaskCount+int32(len(tasks))
		return nil
	})
	if err != nil {
		return false, "", err
	}
	log.Info("job planned", "round", job.Rounds+1, "tasks", len(tasks))
	return false, "", nil
}

func balancedMessage(tasks int32, what string) string {
	if tasks == 0 {
		return "the space is balanced"
	}
	return fmt.Sprintf("the space is balanced (%d %s moves)", tasks, what)
}

// runTask runs one task to its end. It returns nil when the task finished
// (or was moot), errJobStopped when the job was stopped before one of its
// steps, and other errors when the task failed (it is then FAILED) or the
// runner lost its election or is stopping (it stays RUNNING, to resume).
func (jr *jobRunner) runTask(ctx context.Context, job *metapb.JobDesc, t *metapb.JobTask, log *slog.Logger) error {
	wasRunning := t.Status == metapb.JobStatus_JOB_RUNNING
	t.Status, t.StopTimeMs, t.Message = metapb.JobStatus_JOB_RUNNING, 0, ""
	if t.StartTimeMs == 0 {
		t.StartTimeMs = nowMs()
	}
	err := jr.putTasks(ctx, job.JobId, true, []*metapb.JobTask{t}, nil)
	if err == nil {
		log.Info("task running", "task", t.TaskId, "part", t.PartId, "from", t.FromStore, "to", t.ToStore, "done_steps", t.DoneSteps)
		switch job.Type {
		case metapb.JobType_JOB_BALANCE_DATA:
			err = jr.runMove(ctx, job, t)
		case metapb.JobType_JOB_BALANCE_LEADER:
			err = jr.step(ctx, job, t, 1, 1, func(ctx context.Context) error { return jr.transferLeader(ctx, job.SpaceId, t.PartId, t.ToStore) })
		case metapb.JobType_JOB_COMPACT:
			err = jr.step(ctx, job, t, 1, stepAttempts, func(ctx context.Context) error { return jr.compact(ctx, job.SpaceId, t.ToStore) })
		case metapb.JobType_JOB_STATS:
			// The counts go into the task, which is saved when it ends.
			err = jr.step(ctx, job, t, 1, stepAttempts, func(ctx context.Context) error {
				st, err := jr.storage.SpaceStats(ctx, job.SpaceId)
				if err == nil {
					t.Stats = st
				}
				return err
			})
		}
	} else if errors.Is(err, errJobStopped) && !wasRunning {
		return err // never started: it stays QUEUE
	}
	switch {
	case err == nil:
		t.Status = metapb.JobStatus_JOB_FINISHED
	case errors.Is(err, errMoot):
		t.Status, t.Message = metapb.JobStatus_JOB_FINISHED, fmt.Sprintf("skipped: store %d no longer holds a replica of partition %d", t.FromStore, t.PartId)
	case errors.Is(err, errJobStopped):
		t.Status = metapb.JobStatus_JOB_STOPPED
	case ctx.Err() != nil || errors.Is(err, errNotRunner):
		return err
	default:
		t.Status, t.Message = metapb.JobStatus_JOB_FAILED, err.Error()
	}
	t.StopTimeMs = nowMs()
	if perr := jr.putTasks(ctx, job.JobId, false, []*metapb.JobTask{t}, nil); perr != nil {
		return perr
	}
	log.Info("task ended", "task", t.TaskId, "status", JobStatusName(t.Status), "message", t.Message)
	switch t.Status {
	case metapb.JobStatus_JOB_FAILED:
		return fmt.Errorf("task %d failed: %w", t.TaskId, err)
	case metapb.JobStatus_JOB_STOPPED:
		return err
	}
	return nil
}

// step runs step n of a task unless the task recorded it as done: it
// checks that the job still runs (the only place a job stops), runs fn up
// to attempts times, and records the step done.
func (jr *jobRunner) step(ctx context.Context, job *metapb.JobDesc, t *metapb.JobTask, n int32, attempts int, fn func(context.Context) error) error {
	if t.DoneSteps >= n {
		return nil
	}
	if err := jr.checkRunning(ctx, job.JobId); err != nil {
		return err
	}
	var err error
	for attempt := range attempts {
		if attempt > 0 {
			select {
			case <-time.After(min(time.Second<<(attempt-1), 8*time.Second)):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		actx, cancel := context.WithTimeout(ctx, stepTimeout)
		err = fn(actx)
		cancel()
		if err == nil || ctx.Err() != nil || errors.Is(err, errMoot) || errors.As(err, new(permanentError)) {
			break
		}
		jr.log.Warn("task step failed; retrying", "job_id", job.JobId, "task", t.TaskId, "step", n, "attempt", attempt+1, "err", err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	t.DoneSteps = n
	return jr.putTasks(ctx, job.JobId, false, []*metapb.JobTask{t}, nil)
}

// partOf returns a partition's replicas and learners in v; ok is false if
// the catalog does not have it.
func partOf(v *view, space, part int32) (replicas, learners []uint64, ok bool) {
	for _, pa := range v.cat.Parts[space].GetParts() {
		if pa.PartId == part {
			return pa.Replicas, pa.Learners, true
		}
	}
	return nil, nil, false
}

// runMove moves the replica of t.PartId from t.FromStore to t.ToStore in
// three recorded steps (see the comment at the top).
func (jr *jobRunner) runMove(ctx context.Context, job *metapb.JobDesc, t *metapb.JobTask) error {
	space, part, from, to := job.SpaceId, t.PartId, t.FromStore, t.ToStore
	err := jr.step(ctx, job, t, 1, stepAttempts, func(ctx context.Context) error {
		v, err := jr.s.readCatalog(ctx)
		if err != nil {
			return err
		}
		replicas, learners, ok := partOf(v, space, part)
		switch {
		case !ok:
			return permanentf("space %d has no partition %d", space, part)
		case slices.Contains(replicas, to):
			return nil
		case !slices.Contains(replicas, from) && !slices.Contains(learners, to):
			return errMoot
		}
		if err := jr.s.checkOnline(v, to); err != nil {
			return err
		}
		return jr.storage.AddReplica(ctx, space, part, to)
	})
	if err != nil {
		return err
	}
	err = jr.step(ctx, job, t, 2, stepAttempts, func(ctx context.Context) error {
		if l, ok := jr.leaderOf(space, part); !ok || l != from {
			return nil
		}
		if err := jr.storage.TransferLeader(ctx, space, part, to); err != nil {
			return err
		}
		return jr.awaitLeader(ctx, space, part, func(l uint64) bool { return l != from })
	})
	if err != nil {
		return err
	}
	return jr.step(ctx, job, t, 3, stepAttempts, func(ctx context.Context) error {
		v, err := jr.s.readCatalog(ctx)
		if err != nil {
			return err
		}
		replicas, learners, ok := partOf(v, space, part)
		switch {
		case !ok:
			return permanentf("space %d has no partition %d", space, part)
		case !slices.Contains(replicas, from) && !slices.Contains(learners, from):
			return nil
		case !slices.Contains(replicas, to):
			return permanentf("refusing to remove store %d from partition %d: store %d is not a voting replica of it (replicas %v)", from, part, to, replicas)
		}
		if err := jr.storage.RemoveReplica(ctx, space, part, from); err != nil {
			// The source may lead after all (a stale report): hand
			// leadership to the target before the next attempt.
			_ = jr.storage.TransferLeader(ctx, space, part, to)
			return err
		}
		return nil
	})
}

// leaderOf is the catalog's leader of a partition.
func (jr *jobRunner) leaderOf(space, part int32) (uint64, bool) {
	for _, l := range jr.s.cat.current().cat.Leaders {
		if l.SpaceId == space && l.PartId == part {
			return l.StoreId, true
		}
	}
	return 0, false
}

// awaitLeader waits up to leaderWait for the catalog's leader report of a
// partition to satisfy ok.
func (jr *jobRunner) awaitLeader(ctx context.Context, space, part int32, ok func(uint64) bool) error {
	ctx, cancel := context.WithTimeout(ctx, jr.leaderWait)
	defer cancel()
	for {
		v := jr.s.cat.current()
		l, known := jr.leaderOf(space, part)
		if known && ok(l) {
			return nil
		}
		select {
		case <-v.next:
		case <-ctx.Done():
			return fmt.Errorf("partition %d: the catalog still reports leader store %d after %v", part, l, jr.leaderWait)
		}
	}
}

// transferLeader moves a partition's leadership to store and waits for
// the catalog to report it, trying leaderAttempts times.
func (jr *jobRunner) transferLeader(ctx context.Context, space, part int32, to uint64) error {
	var last error
	for attempt := range leaderAttempts {
		if l, ok := jr.leaderOf(space, part); ok && l == to {
			return nil
		}
		replicas, _, ok := partOf(jr.s.cat.current(), space, part)
		if !ok {
			return permanentf("space %d has no partition %d", space, part)
		}
		if !slices.Contains(replicas, to) {
			return permanentf("store %d holds no replica of partition %d (replicas %v)", to, part, replicas)
		}
		if err := jr.s.checkOnline(jr.s.cat.current(), to); err != nil {
			return err
		}
		if err := jr.storage.TransferLeader(ctx, space, part, to); err != nil {
			last = err
		} else if err := jr.awaitLeader(ctx, space, part, func(l uint64) bool { return l == to }); err != nil {
			last = err
		} else {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		jr.log.Warn("leadership transfer not confirmed", "space_id", space, "part", part, "to", to, "attempt", attempt+1, "err", last)
	}
	l, _ := jr.leaderOf(space, part)
	return fmt.Errorf("leadership of partition %d did not move to store %d after %d attempts (the catalog reports store %d): %w", part, to, leaderAttempts, l, last)
}

// checkOnline fails unless store is a registered host whose lease lives:
// a step must not wait out its timeout on a host that is down. A host gossip
// holds dead fails too (a retryable error: the step's attempts go on) even
// while its lease lives: gossip knows within a second, the lease only after
// its TTL. Plans still go by the lease alone, so a false suspicion delays a
// step but never moves replicas off a live host.
func (s *Server) checkOnline(v *view, store uint64) error {
	for _, h := range v.cat.Hosts {
		if h.StoreId == store {
			if !h.Online {
				return fmt.Errorf("store %d (%s:%d) is offline", store, h.Addr.GetHost(), h.Addr.GetPort())
			}
			if addr := storageclient.AddrString(h.Addr); s.suspected(addr) {
				return fmt.Errorf("store %d (%s) is suspected down by gossip; waiting for it to answer again or for its lease to expire", store, addr)
			}
			return nil
		}
	}
	return permanentf("store %d is not a registered host", store)
}

// compact compacts the space on one host.
func (jr *jobRunner) compact(ctx context.Context, space int32, store uint64) error {
	for _, h := range jr.s.cat.current().cat.Hosts {
		if h.StoreId != store {
			continue
		}
		if !h.Online {
			return fmt.Errorf("store %d is offline", store)
		}
		return jr.storage.Compact(ctx, storageclient.AddrString(h.Addr), space)
	}
	return permanentf("store %d is not registered", store)
}
