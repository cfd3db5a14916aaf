package storaged

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/internal/failpoint"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// Edge pairs.
//
// An edge is stored twice: the out-edge in its source's partition (the
// owner) and the in-edge in its destination's. The two halves are written
// by two raft groups, so they cannot share one entry. The rule kept across
// crashes: every change of an edge is made first by its owner, in one entry
// together with an intent (partition.IntentKey) that describes the change the
// other half needs; the intent stays until that change is applied in the
// other partition. Whoever leads the owner then (this leader or the next,
// since intents are replicated data) carries it out, so after recovery
// either both halves are there or neither, once the intents resolve.
//
// In-edges carry the owner's raft index of the change they mirror, and a
// mirror applies only if newer, and deleted in-edges stay as tombstones for
// tombstoneRetention: so mirrors that arrive late, twice, or out of order
// (a deposed leader's, a retried one) never undo a newer state.
//
// What a concurrent reader may observe: between the owner's entry and the
// mirror's, GO over out-edges already sees the change and REVERSELY does not
// yet. A write is acknowledged once its mirrors applied (normally within one
// more raft round trip); if they cannot be applied in time (the
// destination's partition has no leader), the write is still acknowledged,
// since it is durable, and the in-edges follow when the resolver gets through.
//
// DELETE VERTEX of a vertex whose in-edges belong to other owners asks each
// owner to delete the edge (a forward-delete intent); the owner's mirror
// then removes the in-edge, so deletion also starts at the owner.

const (
	// resolveScanEvery is how often the resolver looks for intents left
	// behind (by a crash, a leader change, an unreachable destination).
	resolveScanEvery = 2 * time.Second
	// resolveBatch bounds the work of one resolver step: it reads intents
	// until they carry this many changes (mirrored edges, forward deletes;
	// at least one intent, however large), and each MirrorEdges request
	// carries at most this many per target partition.
	resolveBatch = 4096
	// defaultMirrorWait bounds how long a write waits for its mirrors
	// before it is acknowledged anyway (Config.MirrorWait).
	defaultMirrorWait = 10 * time.Second
	// resolveSlots bounds the batches in flight on one store, across the
	// partitions it leads. Unbounded, every led partition sent its batch
	// to every target at once (33 × 100 proposals per store at SF100), and
	// on a saturated store the mirrors that timed out were sent again
	// while the first copies still waited in raft: the load grew with the
	// backlog and nothing got through. Fewer batches at a time carry more
	// intents each (they accumulate while waiting), and a slot is held
	// only for one batch, so a pass that runs as long as a bulk load
	// keeps writing does not shut out the other partitions.
	resolveSlots = 8
	// mirrorCallTimeout bounds a batch's MirrorEdges and DeleteEdges
	// calls. Longer than MirrorWait: a call that times out is sent again
	// by a later pass, and on a loaded store the copy it abandoned usually
	// still applies, so a short deadline multiplies the work.
	mirrorCallTimeout = 30 * time.Second
	// Target backoff: a target partition that failed is skipped by every
	// pass of this store for a while (from targetBackoffMin, doubling to
	// targetBackoffMax, reset by a success), so that passes do not each
	// wait out the same unreachable partition while holding a slot.
	targetBackoffMin = 250 * time.Millisecond
	targetBackoffMax = 5 * time.Second
	// tombstoneRetention is how long a deleted in-edge is remembered. A
	// mirror can only be late by a leader change plus a retry; an hour is
	// far beyond that.
	tombstoneRetention = time.Hour
	purgeEvery         = time.Minute
)

// fpBeforeMirror fails a resolver pass after the owner's entry (out-edge
// and intent) applied and before any mirror is sent: the crash window of
// the pair rule.
const fpBeforeMirror = "storaged/beforeMirror"

func init() { failpoint.Register(fpBeforeMirror) }

// resolver carries out the intents of the partitions this store leads.
// One goroutine per partition with work, at most one pass at a time per
// partition; a write that wants its mirrors done waits for a pass that
// started after its entry applied.
type resolver struct {
	srv    *Server
	client *storageclient.Client
	ctx    context.Context // ends when the store stops
	wg     sync.WaitGroup  // passes in flight

	mu     sync.Mutex
	closed bool
	groups map[raftgroup.GroupID]*resolveState
	// resume is where each group's next intent read starts (resumeAt).
	resume map[raftgroup.GroupID][]byte
	// lastPurge is when each led partition last purged tombstones.
	lastPurge map[raftgroup.GroupID]time.Time
	// backoff holds the target partitions that failed lately, keyed by
	// their group id (the target's space and partition).
	backoff map[raftgroup.GroupID]*targetBackoff

	// slots bounds the batches in flight (resolveSlots).
	slots chan struct{}

	// holdUntil: no pass carries out intents before then (a snapshot's
	// checkpoints, HoldIntents); active counts the passes carrying out
	// now. Both guarded by mu.
	holdUntil time.Time
	active    int

	stats resolverStats
}

// targetBackoff is a target partition that failed: passes skip it until
// retryAt.
type targetBackoff struct {
	retryAt time.Time
	delay   time.Duration
	err     error
}

// resolverStats are the resolver's counters (metrics.go exports them).
type resolverStats struct {
	resolved       atomic.Uint64 // intents resolved (carried out, then deleted)
	mirrorRequests atomic.Uint64 // MirrorEdges requests sent, one per target partition
	failedTargets  atomic.Uint64 // target partitions a batch could not carry out: their intents wait
	failedPasses   atomic.Uint64 // passes that ended with intents left
}

// behind counts the partitions whose last pass ended with intents left
// (their in-edges or forward deletes are pending until a pass gets
// through): 0 on a healthy cluster once writes stop.
// Partitions led elsewhere now are the new leader's to count.
func (r *resolver) behind() int {
	leading := r.srv.engine.Leading()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range leading {
		if st := r.groups[l.Group]; st != nil && st.failed > st.completed {
			n++
		}
	}
	return n
}

type resolveState struct {
	running   bool
	requested uint64 // passes asked for
	started   uint64 // the request count the running or last pass covers
	completed uint64 // the request count the last successful pass covered
	failed    uint64 // the request count the last failed pass covered
	lastErr   error  // why it failed
	changed   chan struct{}
}

func newResolver(ctx context.Context, srv *Server, client *storageclient.Client) *resolver {
	return &resolver{srv: srv, client: client, ctx: ctx, groups: map[raftgroup.GroupID]*resolveState{}, resume: map[raftgroup.GroupID][]byte{},
		lastPurge: map[raftgroup.GroupID]time.Time{}, backoff: map[raftgroup.GroupID]*targetBackoff{}, slots: make(chan struct{}, resolveSlots)}
}

// close waits for the passes in flight (their context ends with the store's)
// and refuses new ones.
func (r *resolver) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
	r.client.Close()
}

// flush resolves every intent of g that exists now, and returns once that
// is done, or with the error of the pass that covered this call (not the
// leader, a target unreachable), or when ctx ends. The resolver's own scan
// retries what failed.
func (r *resolver) flush(ctx context.Context, g raftgroup.GroupID) error {
	r.mu.Lock()
	st := r.stateLocked(g)
	st.requested++
	want := st.requested
	r.kickLocked(g, st)
	for st.completed < want {
		if r.closed {
			r.mu.Unlock()
			return errors.New("storaged is stopping")
		}
		ch := st.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.mu.Lock()
		if st.completed < want && st.failed >= want {
			err := st.lastErr
			r.mu.Unlock()
			return err
		}
	}
	r.mu.Unlock()
	return nil
}

// kick asks for a pass over g's intents without waiting for it: writes
// whose caller does not wait for the mirrors (bulk import) still get them
// soon, batched with those of other writes that arrived meanwhile.
func (r *resolver) kick(g raftgroup.GroupID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stateLocked(g)
	st.requested++
	r.kickLocked(g, st)
}

// stateLocked returns g's resolve state, creating it.
func (r *resolver) stateLocked(g raftgroup.GroupID) *resolveState {
	st := r.groups[g]
	if st == nil {
		st = &resolveState{changed: make(chan struct{})}
		r.groups[g] = st
	}
	return st
}

// kickLocked starts a pass if none runs; a running pass is followed by
// another if requests arrived after it started.
func (r *resolver) kickLocked(g raftgroup.GroupID, st *resolveState) {
	if st.running || r.closed {
		return
	}
	st.running = true
	st.started = st.requested
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			err := r.pass(g)
			r.mu.Lock()
			if err == nil {
				st.completed = st.started
			} else {
				if st.failed <= st.completed {
					// The first failure after a success: later ones
					// are the same partitions retrying.
					r.srv.log.Info("intents left for a later pass", "group", g, "err", err)
				} else {
					r.srv.log.Debug("resolving intents", "group", g, "err", err)
				}
				st.failed, st.lastErr = st.started, err
				r.stats.failedPasses.Add(1)
			}
			close(st.changed)
			st.changed = make(chan struct{})
			// Requests that came in during this pass need a pass of their
			// own, failed or not: stopping after a failure left them
			// waiting for a pass that never came, until their MirrorWait
			// ran out (10 s stalls after a leader moved, found by
			// TestClusterOperationsUnderLoad). After a failure the next
			// pass fails fast if the cause stays (not the leader).
			if st.requested == st.started {
				st.running = false
				r.mu.Unlock()
				return
			}
			st.started = st.requested
			r.mu.Unlock()
		}
	}()
}

// pass resolves the intents of g until none is left that this pass can
// carry out. A target partition that fails (no leader, a timeout) keeps
// its intents for a later pass and the pass goes on with the others: the
// intents of one partition without a leader must not hold back every
// other partition's in-edges (they did, all-or-nothing per batch, at
// SF100 with 100 partitions). The pass fails, naming the targets, if any
// intent is left.
func (r *resolver) pass(g raftgroup.GroupID) error {
	if r.srv.restoreHeld(g) {
		return fmt.Errorf("%s: %w", g, errRestoreHeld)
	}
	r.mu.Lock()
	if time.Now().Before(r.holdUntil) {
		r.mu.Unlock()
		return fmt.Errorf("%s: %w", g, errIntentsHeld)
	}
	r.active++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active--
		r.mu.Unlock()
	}()
	c := &passCursor{from: r.resumeAt(g), failed: map[int32]error{}}
	for {
		done, err := r.resolveSome(g, c)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	if len(c.failed) == 0 {
		return nil
	}
	targets := make([]int32, 0, len(c.failed))
	for p := range c.failed {
		targets = append(targets, p)
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i] < targets[j] })
	why := make([]string, 0, min(len(targets), 3))
	for _, p := range targets[:min(len(targets), 3)] {
		why = append(why, fmt.Sprintf("partition %d: %v", p, c.failed[p]))
	}
	// The targets' errors are quoted, not wrapped: they are about other
	// partitions, and a caller that classifies this error (flushError,
	// partError) must not answer for g with a target's code or leader.
	return fmt.Errorf("%s: %w: the intents for %d partitions %v stay for the next pass (%s)", g, errIntentsLeft, len(targets), targets, strings.Join(why, "; "))
}

// errIntentsLeft: a pass ended with intents whose target partitions
// failed; a later pass carries them out.
var errIntentsLeft = errors.New("intents left")

// errIntentsHeld: a snapshot's checkpoints are being made (HoldIntents).
var errIntentsHeld = errors.New("intents held while a snapshot is taken")

// hold stops passes carrying out intents until until (the zero time:
// resume) and, when holding, waits until no pass is carrying any out.
func (r *resolver) hold(ctx context.Context, until time.Time) error {
	r.mu.Lock()
	r.holdUntil = until
	r.mu.Unlock()
	if until.IsZero() {
		return nil
	}
	for {
		r.mu.Lock()
		n := r.active
		r.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d intent passes to end: %w", n, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// errRestoreHeld: the partition is being restored from a backup; its
// intents wait for FinishRestore (storaged/ingest.go).
var errRestoreHeld = errors.New("restore in progress: intents wait for FinishRestore")

// restoreHeld reports whether g holds a restore hold
// (partition.RestoreHoldKey).
func (s *Server) restoreHeld(g raftgroup.GroupID) bool {
	db := s.dbOf(g)
	if db == nil {
		return false
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	v, err := db.GetBytes(ro, partition.RestoreHoldKey(g.Space, g.Part))
	return err == nil && v != nil
}

// backingOff returns why target is skipped until its backoff ends (nil:
// it is not).
func (r *resolver) backingOff(target raftgroup.GroupID, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.backoff[target]; b != nil && now.Before(b.retryAt) {
		return fmt.Errorf("failed lately, retried in %v: %w", b.retryAt.Sub(now).Round(time.Millisecond), b.err)
	}
	return nil
}

// noteTargets records a batch's outcome per target: a failed target backs
// off longer each time, one that applied is tried at once again.
func (r *resolver) noteTargets(space int32, intents []*storagepb.Intent, failed map[int32]error) {
	r.stats.failedTargets.Add(uint64(len(failed)))
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, err := range failed {
		t := raftgroup.GroupID{Space: space, Part: p}
		b := r.backoff[t]
		switch {
		case b == nil:
			b = &targetBackoff{delay: targetBackoffMin}
			r.backoff[t] = b
		case now.Before(b.retryAt):
			// Another batch that was already under way failed on it
			// too: one failure, not a reason to wait longer.
			continue
		default:
			b.delay = min(2*b.delay, targetBackoffMax)
		}
		b.retryAt, b.err = now.Add(b.delay), err
	}
	for _, in := range intents {
		if failed[in.TargetPart] == nil {
			delete(r.backoff, raftgroup.GroupID{Space: space, Part: in.TargetPart})
		}
	}
}

// passCursor is one pass's progress through g's intents.
type passCursor struct {
	// from is where the next read starts (nil: the first intent).
	from []byte
	// failed holds the target partitions that failed in this pass, with
	// why: their later intents are skipped, so that each target still
	// gets its intents in order.
	failed map[int32]error
	// firstLeft is the lowest intent the pass left unresolved (nil: none
	// yet): the resume hint may not pass it.
	firstLeft []byte
}

// leave records an intent left for a later pass. It keeps the lowest key,
// not the first one recorded: a batch records the intents it skipped
// (their target failed earlier or is backing off) before those whose
// target fails now, which may come before them; a hint set past one of
// those would leave it unresolved for good (run kicks a pass only for
// intents at or after the hint).
func (c *passCursor) leave(key []byte) {
	if c.firstLeft == nil || bytes.Compare(key, c.firstLeft) < 0 {
		c.firstLeft = key
	}
}

// resolveSome carries out and resolves one batch of g's intents, and says
// whether the pass has read them all. The deadline is per batch, not per
// pass: under a bulk load a pass runs for as long as writes keep coming,
// and must not fail for that.
//
// Each step has its own deadline: the read index and the ResolveIntents
// proposal MirrorWait, the calls to the targets mirrorCallTimeout. With
// one deadline for all, slow targets used it up and the proposal that
// resolves what they had applied timed out, so the same mirrors were sent
// again and again.
func (r *resolver) resolveSome(g raftgroup.GroupID, c *passCursor) (done bool, err error) {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-r.ctx.Done():
		return false, r.ctx.Err()
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.srv.cfg.MirrorWait)
	defer cancel()
	if err := r.srv.engine.ReadIndex(ctx, g); err != nil {
		return false, err
	}
	db := r.srv.dbOf(g)
	if db == nil {
		return false, fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
	}
	now := time.Now()
	b, err := readIntents(db, g, c.from, resolveBatch, func(target int32) bool {
		if c.failed[target] != nil {
			return true
		}
		if err := r.backingOff(raftgroup.GroupID{Space: g.Space, Part: target}, now); err != nil {
			c.failed[target] = err
			return true
		}
		return false
	})
	if err != nil {
		return false, err
	}
	if b.last == nil {
		return true, nil
	}
	if b.firstSkipped != nil {
		c.leave(b.firstSkipped)
	}
	cctx, ccancel := context.WithTimeout(r.ctx, mirrorCallTimeout)
	failed := r.carryOut(cctx, g, b.intents)
	ccancel()
	var resolved [][]byte
	for i, in := range b.intents {
		if err := failed[in.TargetPart]; err != nil {
			c.failed[in.TargetPart] = err
			c.leave(b.keys[i])
			continue
		}
		resolved = append(resolved, b.keys[i])
	}
	r.noteTargets(g.Space, b.intents, failed)
	if len(resolved) > 0 {
		cmd := &storagepb.Command{Now: time.Now().Unix(), Mutations: []*storagepb.Mutation{
			{Op: &storagepb.Mutation_ResolveIntents{ResolveIntents: &storagepb.IntentKeys{Keys: resolved}}},
		}}
		pctx, pcancel := context.WithTimeout(r.ctx, r.srv.cfg.MirrorWait)
		err := r.srv.propose(pctx, g, cmd)
		pcancel()
		if err != nil {
			return false, err
		}
		r.stats.resolved.Add(uint64(len(resolved)))
	}
	// Every intent below the hint is resolved: it moves up to the first
	// intent this pass left, or past the last one it read.
	next := append(b.last, 0)
	if c.firstLeft != nil {
		r.setResumeAt(g, c.firstLeft)
	} else {
		r.setResumeAt(g, next)
	}
	c.from = next
	return false, nil
}

// resumeAt is where g's next read of intents starts: at the first intent
// this store's resolver left unresolved, or just after the last one it
// resolved (nil: the start). Resolved intents are deleted, and under a
// steady stream of writes their tombstones pile up at the front of the
// intent range until a compaction; seeking from the start would step over
// all of them on every pass (it took 13 % of a bulk load's CPU). Skipping
// them is safe because intent keys grow with the raft index of the entry
// that wrote them: an intent written after a pass read the range has a
// key above everything the pass read, and every intent below the hint was
// resolved by a committed ResolveIntents. A store that loses and regains
// leadership keeps its hint: what lies below it was resolved, by
// whichever leader.
func (r *resolver) resumeAt(g raftgroup.GroupID) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resume[g]
}

func (r *resolver) setResumeAt(g raftgroup.GroupID, key []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resume[g] = key
}

// intentBatch is one read of a partition's intents.
type intentBatch struct {
	keys    [][]byte // the intents to carry out, in key order
	intents []*storagepb.Intent
	// firstSkipped is the first (lowest) of the intents read but left,
	// their target having failed earlier in the pass or backing off, and
	// skipped how many there were.
	firstSkipped []byte
	skipped      int
	last         []byte // the last key read (nil: none was left to read)
}

// maxSkippedPerRead bounds the intents one read steps over for targets
// that failed, so that a pass whose failed targets hold millions of
// intents still returns to check its deadline and its context.
const maxSkippedPerRead = 16 * resolveBatch

// readIntents reads intents of g from key from (nil: the first), in key
// order, until those to carry out hold limit changes (an intent carries
// one per edge it mirrors; at least one intent, however large). Intents
// whose target skip says to leave are read past and listed apart.
func readIntents(db *grocksdb.DB, g raftgroup.GroupID, from []byte, limit int, skip func(target int32) bool) (intentBatch, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // crosses vertex prefixes: no prefix-bloom seek (storaged/rocksdb.go)
	prefix := partition.KindPrefix(g.Space, g.Part, partition.KindIntent)
	ro.SetIterateUpperBound(partition.PrefixEnd(prefix))
	if from == nil {
		from = prefix
	}
	it := db.NewIterator(ro)
	defer it.Close()
	var b intentBatch
	changes := 0
	for it.Seek(from); it.ValidForPrefix(prefix) && changes < limit && b.skipped < maxSkippedPerRead; it.Next() {
		key := append([]byte(nil), it.Key().Data()...)
		in, err := unmarshalIntent(it.Value().Data())
		if err != nil {
			return intentBatch{}, fmt.Errorf("%s: intent %x: %w", g, key, err)
		}
		b.last = key
		if skip != nil && skip(in.TargetPart) {
			if b.firstSkipped == nil {
				b.firstSkipped = key
			}
			b.skipped++
			continue
		}
		b.keys = append(b.keys, key)
		b.intents = append(b.intents, in)
		changes += max(1, len(in.Mirrors)) // the older one-mirror form counts 1
	}
	return b, it.Err()
}

// carryOut applies intents in their target partitions, in intent order per
// target (each target's requests carry its intents in order), and returns
// the targets that failed with why (nil: none). Targets are independent:
// one that fails does not stop the others.
func (r *resolver) carryOut(ctx context.Context, g raftgroup.GroupID, intents []*storagepb.Intent) map[int32]error {
	mirrors := map[int32][]*storagepb.MirrorEdge{}
	deletes := map[int32][]*storagepb.EdgeKey{}
	failed := map[int32]error{}
	for _, in := range intents {
		switch {
		case in.Mirror != nil || len(in.Mirrors) > 0:
			mirrors[in.TargetPart] = append(mirrors[in.TargetPart], intentMirrors(in)...)
		case in.ForwardDelete != nil:
			deletes[in.TargetPart] = append(deletes[in.TargetPart], in.ForwardDelete)
		default:
			// Cannot happen (the apply writes no empty intent); left,
			// it keeps the target's later intents behind it, and the
			// pass's error says why.
			failed[in.TargetPart] = fmt.Errorf("%s: an empty intent for partition %d", g, in.TargetPart)
		}
	}
	if err := failpoint.Eval(fpBeforeMirror); err != nil {
		for p := range mirrors {
			failed[p] = err
		}
		for p := range deletes {
			failed[p] = err
		}
		return failed
	}
	// One intent carries all the mirrors of its entry for one target, so
	// a large write's intent can hold more than resolveBatch: requests
	// carry at most resolveBatch per target, in order, and a target's
	// next request goes only after its previous one applied.
	for start := 0; ; start += resolveBatch {
		parts := map[int32]*storagepb.MirrorEdgesReq{}
		for p, ms := range mirrors {
			if start < len(ms) && failed[p] == nil {
				parts[p] = &storagepb.MirrorEdgesReq{SpaceId: g.Space, PartId: p, Edges: ms[start:min(start+resolveBatch, len(ms))]}
			}
		}
		if len(parts) == 0 {
			break
		}
		for p, err := range r.client.MirrorEdges(ctx, g.Space, parts) {
			failed[p] = err
		}
		r.stats.mirrorRequests.Add(uint64(len(parts)))
	}
	// Forward deletes, one request per target owner, so that they too
	// fail apart.
	lists := map[int32]*storagepb.EdgeKeyList{}
	for p, ks := range deletes {
		if failed[p] == nil {
			lists[p] = &storagepb.EdgeKeyList{Keys: ks}
		}
	}
	if len(lists) > 0 {
		for p, err := range r.client.DeleteEdgesEach(ctx, g.Space, lists, true) {
			failed[p] = err
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// run looks for leftover intents and old tombstones in the partitions this
// store leads, until ctx ends.
func (r *resolver) run(ctx context.Context) {
	t := time.NewTicker(resolveScanEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		leading := r.srv.engine.Leading()
		sort.Slice(leading, func(i, j int) bool { return leading[i].Group.Part < leading[j].Group.Part })
		for _, l := range leading {
			g := l.Group
			db := r.srv.dbOf(g)
			if db == nil {
				continue
			}
			if hasKeyFrom(db, partition.KindPrefix(g.Space, g.Part, partition.KindIntent), r.resumeAt(g)) {
				r.kick(g)
			}
			r.maybePurge(ctx, g, db)
		}
	}
}

// maybePurge drops tombstones older than tombstoneRetention, through raft.
func (r *resolver) maybePurge(ctx context.Context, g raftgroup.GroupID, db *grocksdb.DB) {
	r.mu.Lock()
	last := r.lastPurge[g]
	if time.Since(last) < purgeEvery {
		r.mu.Unlock()
		return
	}
	r.lastPurge[g] = time.Now()
	r.mu.Unlock()
	before := time.Now().Add(-tombstoneRetention).Unix()
	prefix := partition.TombstonePrefix(g.Space, g.Part)
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // crosses vertex prefixes: no prefix-bloom seek (storaged/rocksdb.go)
	it := db.NewIterator(ro)
	defer it.Close()
	it.Seek(prefix)
	if !it.ValidForPrefix(prefix) {
		return
	}
	at, _, err := partition.ParseTombstoneKey(it.Key().Data())
	if err != nil || at >= before {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, r.srv.cfg.MirrorWait)
	defer cancel()
	cmd := &storagepb.Command{Now: time.Now().Unix(), Mutations: []*storagepb.Mutation{
		{Op: &storagepb.Mutation_PurgeTombstonesBefore{PurgeTombstonesBefore: before}},
	}}
	if err := r.srv.propose(pctx, g, cmd); err != nil {
		r.srv.log.Debug("purging tombstones", "group", g, "err", err)
	}
}

func hasKeyWithPrefix(db *grocksdb.DB, prefix []byte) bool { return hasKeyFrom(db, prefix, nil) }

// hasKeyFrom says whether a key with prefix exists at or after from (nil:
// anywhere).
func hasKeyFrom(db *grocksdb.DB, prefix, from []byte) bool {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // crosses vertex prefixes: no prefix-bloom seek (storaged/rocksdb.go)
	ro.SetIterateUpperBound(partition.PrefixEnd(prefix))
	if from == nil {
		from = prefix
	}
	it := db.NewIterator(ro)
	defer it.Close()
	it.Seek(from)
	return it.ValidForPrefix(prefix)
}
