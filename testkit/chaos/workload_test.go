package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/chaos/register"
)

// registers reads and writes the register of each key: the property v of
// tag reg on the vertex whose INT64 vid is the key.
type registers struct {
	meta       *metaclient.Client
	log        *slog.Logger
	sc         *storageclient.Client
	space      int32
	parts      int32
	tag        int32
	schema     *partition.Schema
	catVersion int64
}

// put sets the register, and in the same raft entry writes a vertex that
// is never overwritten (vid key + parts·value, in the key's partition).
// Registers are overwritten all the time, so a replica that applied an
// entry wrongly may be repaired by the next write before the checksums
// look; the write-once vertices keep every divergence visible.
func (r *registers) put(ctx context.Context, key, value int64) error {
	row, err := partition.EncodeRow(r.schema, []any{value})
	if err != nil {
		return fmt.Errorf("encoding row: %w", err)
	}
	part := partition.PartOfInt64(key, r.parts)
	tags := []*storagepb.NewTag{{TagId: r.tag, Row: row}}
	return r.sc.AddVertices(ctx, &storagepb.AddVerticesReq{SpaceId: r.space, Parts: map[int32]*storagepb.VertexList{part: {Vertices: []*storagepb.NewVertex{
		{Vid: partition.EncodeInt64Vid(key), Tags: tags},
		{Vid: partition.EncodeInt64Vid(key + int64(r.parts)*value), Tags: tags},
	}}}})
}

// reconnect replaces the storage client, forgetting the leaders it
// learned, as a new graphd session would. Without it every client keeps
// talking to a deposed leader for as long as that one answers, and the
// two sides of a failover would never both be observed.
func (r *registers) reconnect() {
	old := r.sc
	r.sc = storageclient.New(r.meta, r.log)
	old.Close()
}

// get returns the register's value, 0 if the key has none.
func (r *registers) get(ctx context.Context, key int64) (int64, error) {
	part := partition.PartOfInt64(key, r.parts)
	rows, err := r.sc.GetProps(ctx, r.getReq(key), map[int32]*storagepb.VidList{part: {Vids: [][]byte{partition.EncodeInt64Vid(key)}}}, nil)
	if err != nil {
		return 0, err
	}
	return registerValue(key, rows)
}

// getReq is the GetProps request of one key without its partitions.
func (r *registers) getReq(key int64) *storagepb.GetPropsReq {
	return &storagepb.GetPropsReq{SpaceId: r.space, CatalogVersion: r.catVersion,
		Props: []*storagepb.PropRef{{SchemaId: r.tag, Name: "v"}}}
}

func registerValue(key int64, rows []*storagepb.PropRow) (int64, error) {
	switch len(rows) {
	case 0:
		return 0, nil
	case 1:
		if len(rows[0].Values) != 1 {
			return 0, fmt.Errorf("key %d: %d values for one property", key, len(rows[0].Values))
		}
		return rows[0].Values[0].GetIntVal(), nil
	default:
		return 0, fmt.Errorf("key %d: %d rows for one vertex", key, len(rows))
	}
}

// stickyReader reads through a routing table of its own: it sends a
// partition's reads to the store that last answered them, follows the
// leader hints of refusals, and consults the catalog only when it knows
// nothing better. The storage client asks the catalog's leader report on
// every request, and metad already prefers the highest term, so it moves
// all clients off a deposed leader within a heartbeat; a client with a
// lagging view (a graphd cut off from metad) keeps talking to the old one.
// Whether that one still answers reads is exactly what linearizable reads
// must get right, so two clients of the workload read this way. Writes go
// through the storage client.
type stickyReader struct {
	*registers
	pinned map[int32]uint64 // partition → store that answered last
	conns  map[string]*grpc.ClientConn
}

func newStickyReader(r *registers) *stickyReader {
	return &stickyReader{registers: r, pinned: map[int32]uint64{}, conns: map[string]*grpc.ClientConn{}}
}

func (s *stickyReader) get(ctx context.Context, key int64) (int64, error) {
	part := partition.PartOfInt64(key, s.parts)
	req := s.getReq(key)
	req.VertexParts = map[int32]*storagepb.VidList{part: {Vids: [][]byte{partition.EncodeInt64Vid(key)}}}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
		snap := s.meta.Catalog()
		store, ok := s.pinned[part]
		if !ok {
			if store, ok = snap.Leader(s.space, part); !ok {
				replicas := snap.Parts(s.space)[part]
				if len(replicas) == 0 {
					return 0, fmt.Errorf("no replicas of partition %d in the catalog", part)
				}
				store = replicas[attempt%len(replicas)]
			}
		}
		addr, ok := snap.HostAddr(store)
		if !ok {
			delete(s.pinned, part)
			continue
		}
		resp, err := s.conn(addr).GetProps(ctx, req)
		if err != nil {
			delete(s.pinned, part)
			if ctx.Err() != nil {
				return 0, err
			}
			continue
		}
		if f := resp.GetFailedParts(); len(f) > 0 {
			if f[0].GetCode() == commonpb.ErrorCode_E_LEADER_CHANGED && f[0].GetLeaderStoreId() != 0 {
				s.pinned[part] = f[0].GetLeaderStoreId()
			} else {
				delete(s.pinned, part)
			}
			continue
		}
		s.pinned[part] = store
		return registerValue(key, resp.GetRows())
	}
}

func (s *stickyReader) conn(addr string) storagepb.StorageServiceClient {
	cc := s.conns[addr]
	if cc == nil {
		var err error
		// NewClient only fails on a malformed target, which a catalog
		// address never is; a nil conn would then fail the call cleanly.
		if cc, err = grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
			panic(fmt.Sprintf("grpc client for %s: %v", addr, err))
		}
		s.conns[addr] = cc
	}
	return storagepb.NewStorageServiceClient(cc)
}

// reconnect forgets the routing table too.
func (s *stickyReader) reconnect() {
	s.registers.reconnect()
	clear(s.pinned)
}

func (s *stickyReader) close() {
	for _, cc := range s.conns {
		cc.Close()
	}
}

// store is what the workload runs operations against: the registers, or a
// deliberately broken wrapper of them (mutants_test.go).
type store interface {
	put(ctx context.Context, key, value int64) error
	get(ctx context.Context, key int64) (int64, error)
	reconnect()
}

// workload runs concurrent clients, each doing one operation at a time on
// a random key, until stopped. It owns the client goroutines.
type workload struct {
	keys      int64
	opTimeout time.Duration

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	recs     []*register.Recorder
}

// startWorkload starts one client per store (client i uses stores[i]).
func startWorkload(stores []store, seed int64, keys int64, opTimeout time.Duration, base time.Time) *workload {
	w := &workload{keys: keys, opTimeout: opTimeout, stop: make(chan struct{})}
	for i, s := range stores {
		rec := register.NewRecorder(i, base)
		w.recs = append(w.recs, rec)
		// Each client has its own source, derived from the seed, so its
		// choice of keys and operations does not depend on the others'
		// timing.
		rng := rand.New(rand.NewSource(seed*1000 + int64(i)))
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.runClient(i, s, rec, rng, int64(i+1)*1_000_000)
		}()
	}
	return w
}

// runClient writes values firstValue, firstValue+1, …: unique across the
// whole history, so a value read names the one write that produced it.
func (w *workload) runClient(client int, s store, rec *register.Recorder, rng *rand.Rand, firstValue int64) {
	next := firstValue
	// Clients differ in their mix. A read-only client keeps reading from
	// the leader it knows for as long as that one answers (a write stuck
	// on a deposed leader would time out and make it reconnect);
	// write-heavy ones fail over quickly. Both are needed to catch a
	// deposed leader answering reads while the new one takes writes.
	writeShare := []float64{0, 0.5, 0.5, 0.8}[client%4]
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		key := rng.Int63n(w.keys) + 1
		write := rng.Float64() < writeShare
		if rng.Intn(256) == 0 {
			s.reconnect()
		}
		// Half the operations have a deadline shorter than a failover,
		// so some writes end with an unknown outcome mid-fault and the
		// history exercises the checker's ambiguous writes. In-flight
		// operations are never cancelled by stop: that would only turn
		// answers into ambiguity.
		timeout := w.opTimeout
		if rng.Intn(2) == 0 {
			timeout = time.Duration(50+rng.Intn(450)) * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		call := rec.Now()
		var err error
		if write {
			v := next
			next++
			err = s.put(ctx, key, v)
			rec.Write(key, v, call, err)
		} else {
			var v int64
			if v, err = s.get(ctx, key); err == nil {
				rec.Read(key, v, call)
			}
		}
		cancel()
		if err != nil {
			// Start over with fresh routing, as a user retrying on a new
			// session would: a client stuck on a leader that neither
			// answers nor steps down would otherwise never reach the
			// other side of the failover.
			s.reconnect()
		}
		// A short think time keeps the history small enough for the
		// checker without letting the cluster idle.
		think := time.Duration(rng.Intn(4)) * time.Millisecond
		select {
		case <-w.stop:
			return
		case <-time.After(think):
		}
	}
}

// finish stops the clients, waits for their last operations and returns
// the merged history. It may be called more than once.
func (w *workload) finish() []porcupine.Operation {
	w.stopOnce.Do(func() { close(w.stop) })
	w.wg.Wait()
	return register.Merge(w.recs...)
}
