package storaged

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
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
	return &resolver{srv: srv, client: client, ctx: ctx, groups: map[raftgroup.GroupID]*resolveState{}, resume: map[raftgroup.GroupID][]byte{}, lastPurge: map[raftgroup.GroupID]time.Time{}}
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
				st.failed, st.lastErr = st.started, err
				r.srv.log.Debug("resolving intents", "group", g, "err", err)
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

// pass resolves the intents of g until none is left.
func (r *resolver) pass(g raftgroup.GroupID) error {
	for {
		if err := r.resolveSome(g); err != nil {
			if err == errNoIntents {
				return nil
			}
			return err
		}
	}
}

// errNoIntents ends a pass: g has no intents left.
var errNoIntents = errors.New("no intents left")

// resolveSome carries out and resolves one batch of g's intents. The
// deadline is per batch, not per pass: under a bulk load a pass runs for
// as long as writes keep coming, and must not fail for that.
func (r *resolver) resolveSome(g raftgroup.GroupID) error {
	ctx, cancel := context.WithTimeout(r.ctx, r.srv.cfg.MirrorWait)
	defer cancel()
	if err := r.srv.engine.ReadIndex(ctx, g); err != nil {
		return err
	}
	db := r.srv.dbOf(g)
	if db == nil {
		return fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
	}
	keys, intents, err := readIntents(db, g, r.resumeAt(g), resolveBatch)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return errNoIntents
	}
	if err := r.carryOut(ctx, g, intents); err != nil {
		return err
	}
	cmd := &storagepb.Command{Now: time.Now().Unix(), Mutations: []*storagepb.Mutation{
		{Op: &storagepb.Mutation_ResolveIntents{ResolveIntents: &storagepb.IntentKeys{Keys: keys}}},
	}}
	if err := r.srv.propose(ctx, g, cmd); err != nil {
		return err
	}
	r.setResumeAt(g, append(keys[len(keys)-1], 0))
	return nil
}

// resumeAt is where g's next read of intents starts: just after the last
// intent this store resolved (nil: the start). Resolved intents are
// deleted, and under a steady stream of writes their tombstones pile up
// at the front of the intent range until a compaction; seeking from the
// start would step over all of them on every pass (it took 13 % of a
// bulk load's CPU). Skipping them is safe because intent keys grow with
// the raft index of the entry that wrote them: an intent written after a
// pass read the range has a key above everything the pass read, and every
// intent below the hint was resolved by a committed ResolveIntents. A
// store that loses and regains leadership keeps its hint: what lies
// below it was resolved, by whichever leader.
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

// readIntents reads intents of g from key from (nil: the first), in key
// order, until they carry limit changes (an intent carries one per edge
// it mirrors): at least one intent, however large.
func readIntents(db *grocksdb.DB, g raftgroup.GroupID, from []byte, limit int) ([][]byte, []*storagepb.Intent, error) {
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
	var keys [][]byte
	var intents []*storagepb.Intent
	changes := 0
	for it.Seek(from); it.ValidForPrefix(prefix) && changes < limit; it.Next() {
		in, err := unmarshalIntent(it.Value().Data())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: intent %x: %w", g, it.Key().Data(), err)
		}
		keys = append(keys, append([]byte(nil), it.Key().Data()...))
		intents = append(intents, in)
		changes += max(1, len(in.Mirrors)) // the older one-mirror form counts 1
	}
	return keys, intents, it.Err()
}

// carryOut applies intents in their target partitions, in intent order per
// target (one request per target carries them all, applied in order).
func (r *resolver) carryOut(ctx context.Context, g raftgroup.GroupID, intents []*storagepb.Intent) error {
	if err := failpoint.Eval(fpBeforeMirror); err != nil {
		return err
	}
	mirrors := map[int32][]*storagepb.MirrorEdge{}
	deletes := map[int32][]*storagepb.EdgeKey{}
	for _, in := range intents {
		switch {
		case in.Mirror != nil || len(in.Mirrors) > 0:
			mirrors[in.TargetPart] = append(mirrors[in.TargetPart], intentMirrors(in)...)
		case in.ForwardDelete != nil:
			deletes[in.TargetPart] = append(deletes[in.TargetPart], in.ForwardDelete)
		default:
			return fmt.Errorf("%s: empty intent", g)
		}
	}
	var errs []error
	// One intent carries all the mirrors of its entry for one target, so
	// a large write's intent can hold more than resolveBatch: requests
	// carry at most resolveBatch per target, in order.
	for start := 0; ; start += resolveBatch {
		parts := map[int32]*storagepb.MirrorEdgesReq{}
		for p, ms := range mirrors {
			if start < len(ms) {
				parts[p] = &storagepb.MirrorEdgesReq{SpaceId: g.Space, PartId: p, Edges: ms[start:min(start+resolveBatch, len(ms))]}
			}
		}
		if len(parts) == 0 {
			break
		}
		if err := r.client.MirrorEdges(ctx, g.Space, parts); err != nil {
			errs = append(errs, err)
			break
		}
	}
	if len(deletes) > 0 {
		req := &storagepb.DeleteEdgesReq{SpaceId: g.Space, Parts: map[int32]*storagepb.EdgeKeyList{}, NoMirrorWait: true}
		for p, ks := range deletes {
			req.Parts[p] = &storagepb.EdgeKeyList{Keys: ks}
		}
		if err := r.client.DeleteEdges(ctx, req); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
