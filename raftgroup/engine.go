package raftgroup

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
)

// Applier is the replicated state machine. Apply adds the effects of one
// committed command to b, which the engine writes atomically together with
// the applied index. It must be deterministic: every replica applies the same
// commands in the same order and must reach the same state, so it may read
// (through b) but must not depend on anything else local: clocks, caches,
// configuration. The value and error are the command's result, returned to
// the proposer (ProposeResult); an error does not stop the group, except
// one wrapping ErrApplyHalted, which is not a result but says this replica
// cannot apply the entry now: the group stops before it and retries.
type Applier interface {
	Apply(b *ApplyBatch, group GroupID, index uint64, cmd []byte) ([]byte, error)
}

// Envelope is one outbound raft message of one group.
type Envelope struct {
	Group GroupID
	Msg   *rpb.Message
}

// Transport delivers messages to other stores. Send must not block on the
// network: the engine calls it from its round loop.
type Transport interface {
	Send(msgs []Envelope)
}

// Config configures an Engine.
type Config struct {
	StoreID        uint64        // this store's raft node id in every group
	TickInterval   time.Duration // default 100ms
	ElectionTicks  int           // default 10
	HeartbeatTicks int           // default 1
	// Workers is how many goroutines drive the groups (each group always on
	// the same one); default min(GOMAXPROCS, 8).
	Workers   int
	Transport Transport
	Applier   Applier
	Logger    *slog.Logger
	// SnapshotTransport streams snapshots to followers that fell behind the
	// truncated log. Without one, such followers cannot catch up.
	SnapshotTransport SnapshotTransport
	// MaxLogEntries triggers log truncation: once a group has applied this
	// many entries past its truncation point, the log is cut back to
	// LogCatchUpEntries entries behind the applied index, so followers that
	// are only a little behind still catch up from the log. Defaults 10000
	// and 2000; MaxLogEntries < 0 disables truncation.
	MaxLogEntries     int
	LogCatchUpEntries int
	// MaxLogBytes also triggers truncation when the entries applied since
	// the last one add up to this many bytes (default 64 MiB), so a few
	// huge batches do not keep a big log around. < 0 disables it.
	MaxLogBytes int64
	// LogCatchUpBytes bounds the entries kept behind the applied index by
	// size as well (default 16 MiB; < 0: by count only). Without it a
	// truncation kept LogCatchUpEntries entries whatever their size: a bulk
	// load's 2000 last entries of up to a megabyte each stayed on disk. A
	// follower further behind than the window gets a snapshot.
	LogCatchUpBytes int64
	// LogIdleTruncateAfter cuts a group's log back to the catch-up window
	// once nothing has been applied to it for this long (default 30s; < 0:
	// never), whatever MaxLogEntries and MaxLogBytes say. Without it a
	// bulk load left each group's last entries, up to MaxLogBytes, on disk
	// until the next writes came, which for a loaded-then-read space is
	// never: 100 partitions × 64 MiB. TiKV likewise collects a region's log
	// on a timer, not only by its thresholds.
	LogIdleTruncateAfter time.Duration
	// EntryCacheBytes bounds the raft log entries all groups keep in memory
	// (default 64 MiB; < 0: none, every read goes to RocksDB). The log is
	// in RocksDB; the cache holds each group's newest entries, which raft
	// reads to replicate and apply them (entrycache.go).
	EntryCacheBytes int64
	// SeparateWrites writes each group's Ready in a batch and sync of its
	// own instead of one per round. It exists only so benchmarks can show
	// what the shared write buys; never set it in production.
	SeparateWrites bool
	// ApplyRetryInterval is how often a group halted at an entry it could
	// not apply (ErrApplyHalted) tries again; default 5s.
	ApplyRetryInterval time.Duration
	// ApplyCacheKey, if set, picks keys whose stored values each group
	// keeps in memory for the Applier's reads (ApplyBatch.Get): keys that
	// exist and are read by most commands, such as counters. It must be
	// cheap and depend on the key alone. See applyCache.
	ApplyCacheKey func(key []byte) bool
	// ApplyCacheEntries bounds the cached keys of all groups together
	// (default 1Mi, about 100 MB with 30-byte keys; < 0 disables the
	// cache).
	ApplyCacheEntries int
}

// DefaultEntryCacheBytes is Config.EntryCacheBytes's default: with 64 MiB
// every raft log read of an SF10 online import (10 partitions, rf 1) was
// served from memory (docs/benchmarks.md, "Issue 23, nineteenth session").
const DefaultEntryCacheBytes = 64 << 20

// Engine drives every raft group of one store. See doc.go for the round.
type Engine struct {
	cfg       Config
	log       *slog.Logger
	raftLog   raftLogger
	propIDs   atomic.Uint64
	writeOpts *grocksdb.WriteOptions
	syncOpts  *grocksdb.WriteOptions

	mu     sync.Mutex
	groups map[GroupID]*group

	workers  []*worker
	stop     chan struct{} // closed by halt
	done     chan struct{} // closed once every goroutine of the engine exited
	haltOnce sync.Once
	failure  error // why the engine halted; nil for Stop. Written once, before stop closes.

	stats  engineStats
	writer *appendWriter

	applyCache applyCacheBudget // the bound of all groups' applyCaches
	entries    *entryCache      // the newest log entries of all groups
}

// engineStats are cumulative counters, read by Stats.
type engineStats struct {
	rounds, batchWrites, syncs, groupsReady, entriesAppended, entriesApplied, messagesSent atomic.Uint64
	messagesRefused                                                                        atomic.Uint64
	haltedGroups                                                                           atomic.Int64
	proposals, snapshotsSent                                                               atomic.Uint64
}

// Stats is a snapshot of the engine's cumulative counters. GroupsReady per
// round shows how many groups shared one batched write.
type Stats struct {
	Rounds, BatchWrites, Syncs, GroupsReady, EntriesAppended, EntriesApplied, MessagesSent uint64
	Groups                                                                                 int
	// HaltedGroups is how many groups are stopped at an entry they cannot
	// apply here (ErrApplyHalted); Status says which entry and why.
	HaltedGroups int
	// EntryCache is the raft entry cache's size and use.
	EntryCache EntryCacheStats
	// MessagesRefused counts messages from other stores that raft would
	// have panicked on, dropped instead (screen.go).
	MessagesRefused uint64
	// Proposals counts commands proposed here (Propose, ProposeResult);
	// SnapshotsSent the snapshots handed to the transport for a follower
	// too far behind for the log.
	Proposals, SnapshotsSent uint64
}

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	n := len(e.groups)
	e.mu.Unlock()
	return Stats{
		Rounds: e.stats.rounds.Load(), BatchWrites: e.stats.batchWrites.Load(), Syncs: e.stats.syncs.Load(),
		GroupsReady: e.stats.groupsReady.Load(), EntriesAppended: e.stats.entriesAppended.Load(),
		EntriesApplied: e.stats.entriesApplied.Load(), MessagesSent: e.stats.messagesSent.Load(), Groups: n,
		HaltedGroups: int(e.stats.haltedGroups.Load()), MessagesRefused: e.stats.messagesRefused.Load(),
		Proposals: e.stats.proposals.Load(), SnapshotsSent: e.stats.snapshotsSent.Load(),
		EntryCache: e.entries.stats(),
	}
}

// LogSize is the entries of every group's untruncated raft log and their
// payload bytes: what the log holds on disk beside the data (truncation
// bounds it; see Config.MaxLogBytes and LogIdleTruncateAfter). It walks
// each group's entry sizes: call it per scrape, not per request.
func (e *Engine) LogSize() (entries, bytes int64) {
	e.mu.Lock()
	groups := make([]*group, 0, len(e.groups))
	for _, g := range e.groups {
		groups = append(groups, g)
	}
	e.mu.Unlock()
	for _, g := range groups {
		n, b := g.store.size()
		entries, bytes = entries+n, bytes+b
	}
	return entries, bytes
}

// NewEngine returns a stopped engine; call Start.
func NewEngine(cfg Config) *Engine {
	if cfg.TickInterval == 0 {
		cfg.TickInterval = 100 * time.Millisecond
	}
	if cfg.ElectionTicks == 0 {
		cfg.ElectionTicks = 10
	}
	if cfg.HeartbeatTicks == 0 {
		cfg.HeartbeatTicks = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxLogEntries == 0 {
		cfg.MaxLogEntries = 10000
	}
	if cfg.LogCatchUpEntries == 0 {
		cfg.LogCatchUpEntries = 2000
	}
	if cfg.LogCatchUpEntries < 0 {
		cfg.LogCatchUpEntries = 0
	}
	if cfg.LogCatchUpBytes == 0 {
		cfg.LogCatchUpBytes = 16 << 20
	}
	if cfg.MaxLogBytes == 0 {
		cfg.MaxLogBytes = 64 << 20
	}
	if cfg.LogIdleTruncateAfter == 0 {
		cfg.LogIdleTruncateAfter = 30 * time.Second
	}
	if cfg.ApplyRetryInterval <= 0 {
		cfg.ApplyRetryInterval = 5 * time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if cfg.ApplyCacheEntries == 0 {
		cfg.ApplyCacheEntries = 1 << 20
	}
	if cfg.EntryCacheBytes == 0 {
		cfg.EntryCacheBytes = DefaultEntryCacheBytes
	}
	e := &Engine{
		cfg:       cfg,
		log:       cfg.Logger.With("store", cfg.StoreID),
		writeOpts: grocksdb.NewDefaultWriteOptions(),
		syncOpts:  grocksdb.NewDefaultWriteOptions(),
		groups:    map[GroupID]*group{},
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		entries:   newEntryCache(cfg.EntryCacheBytes),
	}
	e.applyCache.max = int64(cfg.ApplyCacheEntries)
	for i := 0; i < cfg.Workers; i++ {
		e.workers = append(e.workers, &worker{e: e, active: map[GroupID]struct{}{}, wake: make(chan struct{}, 1)})
	}
	e.raftLog = raftLogger{log: e.log}
	e.writer = newAppendWriter(e)
	e.syncOpts.SetSync(true)
	// Proposal ids start at a random point so that an entry proposed before
	// a restart can never be mistaken for one proposed after it.
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	e.propIDs.Store(binary.BigEndian.Uint64(seed[:]))
	return e
}

// Start runs the workers and the append writer.
func (e *Engine) Start() {
	go e.writer.run()
	var wg sync.WaitGroup
	for _, w := range e.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run()
		}()
	}
	go func() {
		var werr error
		select {
		case <-e.stop:
		case werr = <-e.writer.err:
		}
		if werr == nil {
			select { // the writer halts the engine itself, after sending
			case werr = <-e.writer.err:
			default:
			}
		}
		if werr != nil {
			e.log.Error("raft engine stopped: log write failed", "err", werr)
			e.halt(werr)
		}
		wg.Wait()
		close(e.writer.stop)
		<-e.writer.done
		e.failAll()
		close(e.done)
	}()
}

// Stop ends the engine's goroutines and fails every waiter. Groups stay on
// disk.
func (e *Engine) Stop() {
	e.halt(nil)
	<-e.done
}

// halt stops every goroutine of the engine; err is why (nil for Stop). Only
// the first call counts.
//
// After a failed write nothing may write to RocksDB again: besides raft's
// memory being ahead of the disk, RocksDB 7.8 does not guard its WAL
// after a failed append (facebook/rocksdb#12448: the next write appends
// after the torn record; Debian's build, which keeps assertions, aborts
// the process instead). So the goroutine that saw the failure halts at
// once, and every engine write first checks halted (errHalted).
func (e *Engine) halt(err error) {
	e.haltOnce.Do(func() {
		e.failure = err
		close(e.stop)
	})
}

// errHalted is returned by a write that was not issued because the engine
// had halted; the goroutine that sees it stops without reporting a disk
// failure of its own.
var errHalted = errors.New("raft engine halted: write not issued")

// halted reports whether halt was called.
func (e *Engine) halted() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// workerFor picks the worker that drives a group, always the same one.
func (e *Engine) workerFor(id GroupID) *worker {
	h := uint32(id.Space)*2654435761 ^ uint32(id.Part)*40503
	return e.workers[int(h%uint32(len(e.workers)))]
}

// AddGroup opens the replica of id stored in db, or creates it with the
// given initial voters if db holds none. It is idempotent.
func (e *Engine) AddGroup(id GroupID, db *grocksdb.DB, voters []uint64) error {
	e.mu.Lock()
	_, exists := e.groups[id]
	e.mu.Unlock()
	if exists {
		return nil
	}
	if e.halted() {
		return fmt.Errorf("%s: %w", id, ErrStopped)
	}
	if err := repairSnapshot(db, id, e.syncOpts); err != nil {
		return err
	}
	st, found, err := loadState(db, id)
	if err != nil {
		return err
	}
	if !found {
		st = bootstrapState(voters)
		wb := grocksdb.NewWriteBatch()
		defer wb.Destroy()
		if err := writeBootstrap(wb, id, st); err != nil {
			return err
		}
		if err := db.Write(e.syncOpts, wb); err != nil {
			return fmt.Errorf("%s: writing bootstrap state: %w", id, err)
		}
	}
	store := newLogStore(id, db, e.entries, st)
	rn, err := raft.NewRawNode(&raft.Config{
		ID:                        e.cfg.StoreID,
		ElectionTick:              e.cfg.ElectionTicks,
		HeartbeatTick:             e.cfg.HeartbeatTicks,
		Storage:                   store,
		Applied:                   st.applied,
		MaxSizePerMsg:             1 << 20,
		MaxInflightMsgs:           256,
		MaxUncommittedEntriesSize: 64 << 20,
		CheckQuorum:               true,
		PreVote:                   true,
		// Followers reject proposals; the storage client routes them to
		// the leader using the hint in NotLeaderError.
		DisableProposalForwarding: true,
		// Per group: raft's own warnings ("stepped down to follower since
		// quorum is not active") do not say which group they are about.
		Logger: raftLogger{log: e.raftLog.log.With("group", id.String())},
		// Log writes go to the append writer so that ticks, heartbeats and
		// the leader's appends never wait for an fsync (writer.go).
		AsyncStorageWrites: true,
	})
	if err != nil {
		return fmt.Errorf("%s: creating raft node: %w", id, err)
	}
	if !found && len(voters) > 0 && voters[0] == e.cfg.StoreID {
		// The first replica of a new group campaigns at once instead of
		// waiting out an election timeout, so a new space serves writes
		// within a round trip (TiKV does the same). Others wait: if this
		// store is down, an ordinary election follows.
		if err := rn.Campaign(); err != nil {
			return fmt.Errorf("%s: campaigning: %w", id, err)
		}
	}
	lastIndex, _ := store.LastIndex()
	g := &group{
		id:          id,
		db:          db,
		rn:          rn,
		store:       store,
		writtenLast: lastIndex,
		applied:     st.applied,
		truncIdx:    st.truncIdx,
		appliedAt:   time.Now(), // a restart is not a quiet spell
		pending:     map[uint64]*proposal{},
		readsFlight: map[string]*readBatch{},
		incoming:    map[uint64]incomingSnapshot{},
		w:           e.workerFor(id),
	}
	if e.cfg.ApplyCacheKey != nil && e.cfg.ApplyCacheEntries > 0 {
		g.applyCache = newApplyCache(&e.applyCache)
	}
	store.snapshot = g.makeSnapshot
	g.conf.Store(st.confState)
	g.appliedPub.Store(st.applied)
	g.store.confState = nil // InitialState was read; g.conf is the source from here on
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, exists := e.groups[id]; exists {
		return nil
	}
	e.groups[id] = g
	g.w.mu.Lock()
	g.w.groups = append(g.w.groups, g)
	g.w.mu.Unlock()
	return nil
}

// RemoveGroup stops the replica of id and waits until the engine has let go
// of it. Its data stays in RocksDB; the caller deletes the range.
func (e *Engine) RemoveGroup(ctx context.Context, id GroupID) error {
	g := e.group(id)
	if g == nil {
		return nil
	}
	done := make(chan struct{})
	g.box.mu.Lock()
	if g.box.removed == nil {
		g.box.removed = done
	} else {
		done = g.box.removed
	}
	g.box.mu.Unlock()
	e.activate(id)
	select {
	case <-done:
		return nil
	case <-e.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post adds work to a group's mailbox with add (called under the mailbox
// lock) and wakes the group's worker. It fails if the group is unknown or
// its mailbox is closed (removed, or the engine stopped), so no caller
// waits for an answer nobody will give.
func (e *Engine) post(id GroupID, add func(*mailbox)) error {
	g := e.group(id)
	if g == nil {
		return fmt.Errorf("%s: %w", id, ErrGroupNotFound)
	}
	g.box.mu.Lock()
	if g.box.closed {
		g.box.mu.Unlock()
		return fmt.Errorf("%s: %w", id, ErrGroupNotFound)
	}
	add(&g.box)
	g.box.mu.Unlock()
	g.w.activate(id)
	return nil
}

// Propose replicates cmd through the group's log and returns once it is
// applied on this replica, with the applier's result.
func (e *Engine) Propose(ctx context.Context, id GroupID, cmd []byte) error {
	_, err := e.ProposeResult(ctx, id, cmd)
	return err
}

// ProposeResult is Propose returning what the applier returned for cmd on
// this replica.
func (e *Engine) ProposeResult(ctx context.Context, id GroupID, cmd []byte) ([]byte, error) {
	pid := e.propIDs.Add(1)
	e.stats.proposals.Add(1)
	data := make([]byte, 8+len(cmd))
	binary.BigEndian.PutUint64(data, pid)
	copy(data[8:], cmd)
	p := &proposal{id: pid, data: data, done: make(chan error, 1)}
	if err := e.post(id, func(b *mailbox) { b.proposals = append(b.proposals, p) }); err != nil {
		return nil, err
	}
	select {
	case err := <-p.done:
		return p.result, err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w: %w", id, ErrAmbiguous, ctx.Err())
	case <-e.done:
		return nil, e.stopError()
	}
}

// ReadIndex returns once this replica, as the leader, may serve a
// linearizable read: its applied state includes every write acknowledged
// before the call. Concurrent calls share one raft round trip.
func (e *Engine) ReadIndex(ctx context.Context, id GroupID) error {
	r := &readRequest{done: make(chan error, 1)}
	if err := e.post(id, func(b *mailbox) { b.reads = append(b.reads, r) }); err != nil {
		return err
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s: read index: %w", id, ctx.Err())
	case <-e.done:
		return e.stopError()
	}
}

// Step hands a message received from another store to its group.
func (e *Engine) Step(id GroupID, m *rpb.Message) error {
	return e.post(id, func(b *mailbox) { b.messages = append(b.messages, m) })
}

// ReportUnreachable tells the group that a message to store `to` was lost,
// so raft probes that follower instead of streaming appends into the void.
func (e *Engine) ReportUnreachable(id GroupID, to uint64) {
	_ = e.post(id, func(b *mailbox) { b.unreachable = append(b.unreachable, to) })
}

// TransferLeader asks the group's leader to hand leadership to store `to`.
func (e *Engine) TransferLeader(id GroupID, to uint64) error {
	return e.post(id, func(b *mailbox) { b.transfers = append(b.transfers, to) })
}

// Applied returns the group's applied index as last published: the data
// of every entry up to it is in RocksDB, and RocksDB changes the group's
// data only in an apply round or a snapshot install, both of which
// publish a greater index once they wrote. So the group's data is the same
// at two moments that see the same index here, which is what a cache of
// the data checks (storaged's adjacency cache). Data of entries after the
// index may already be in RocksDB when it is read.
func (e *Engine) Applied(id GroupID) (uint64, bool) {
	g := e.group(id)
	if g == nil {
		return 0, false
	}
	return g.appliedPub.Load(), true
}

// ApplyLag is how far this store's replicas are from applying what they
// know committed: the largest gap between a group's persisted commit
// index and its applied index, and the sum over groups. A lag that stays
// up means apply cannot keep up (or a group is halted).
func (e *Engine) ApplyLag() (largest, total uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, g := range e.groups {
		c, a := g.commitPub.Load(), g.appliedPub.Load()
		if c > a {
			largest, total = max(largest, c-a), total+(c-a)
		}
	}
	return largest, total
}

// Leader returns the store id of the leader this replica knows, and its term.
func (e *Engine) Leader(id GroupID) (leader, term uint64, ok bool) {
	g := e.group(id)
	if g == nil {
		return 0, 0, false
	}
	return g.leader.Load(), g.term.Load(), true
}

// LeaderInfo is one group this store leads.
type LeaderInfo struct {
	Group GroupID
	Term  uint64
}

// Leading lists the groups this store currently leads, sorted.
func (e *Engine) Leading() []LeaderInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []LeaderInfo
	for id, g := range e.groups {
		if g.leader.Load() == e.cfg.StoreID {
			out = append(out, LeaderInfo{Group: id, Term: g.term.Load()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Group, out[j].Group
		return a.Space < b.Space || (a.Space == b.Space && a.Part < b.Part)
	})
	return out
}

// Groups lists the groups hosted here.
func (e *Engine) Groups() []GroupID {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]GroupID, 0, len(e.groups))
	for id := range e.groups {
		out = append(out, id)
	}
	return out
}

func (e *Engine) group(id GroupID) *group {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.groups[id]
}

func (e *Engine) activate(id GroupID) {
	if g := e.group(id); g != nil {
		g.w.activate(id)
	}
}

// Halted is closed once the engine has stopped, after a clean Stop or
// because a disk write failed (Failed then says why). A daemon watches it
// to exit when its engine halts instead of lingering with every group
// failing (storaged.Server.Fatal).
func (e *Engine) Halted() <-chan struct{} { return e.done }

// Failed returns the disk error that stopped the engine, or nil while it
// runs (or after a clean Stop).
func (e *Engine) Failed() error {
	select {
	case <-e.done:
		return e.failure
	default:
		return nil
	}
}

func (e *Engine) stopError() error {
	if e.failure != nil {
		return fmt.Errorf("%w: %w", ErrStopped, e.failure)
	}
	return ErrStopped
}

func (e *Engine) failAll() {
	e.mu.Lock()
	groups := make([]*group, 0, len(e.groups))
	for _, g := range e.groups {
		groups = append(groups, g)
	}
	e.mu.Unlock()
	err := e.stopError()
	for _, g := range groups {
		g.failWaiters(err, err)
		g.leader.Store(0) // a stopped replica leads nothing
		g.box.mu.Lock()
		g.box.closed = true
		for _, p := range g.box.proposals {
			p.done <- err
		}
		for _, r := range g.box.reads {
			r.done <- err
		}
		g.box.proposals, g.box.reads = nil, nil
		if g.box.removed != nil {
			close(g.box.removed)
			g.box.removed = nil
		}
		g.box.mu.Unlock()
	}
}

// errorsIsNotLeader reports whether err is a NotLeaderError and returns it.
func AsNotLeader(err error) (*NotLeaderError, bool) {
	var nl *NotLeaderError
	ok := errors.As(err, &nl)
	return nl, ok
}
