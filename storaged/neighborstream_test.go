package storaged

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

const (
	nbSpace = 7
	nbEdge  = 3
	nbParts = 4
)

// neighborFixture is a RocksDB holding, for vertices 1..vertices spread over
// nbParts partitions, degree out-edges each (vertex v → v*100000+i, rank 0),
// and the catalog to read them with.
type neighborFixture struct {
	db    *grocksdb.DB
	snap  *catalog.Snapshot
	space *metapb.SpaceDesc
	vids  map[int32][][]byte // by partition, ascending
}

func newNeighborFixture(t testing.TB, vertices, degree int, malformed int64) *neighborFixture {
	t.Helper()
	f := &neighborFixture{db: openProductionDB(t, t.TempDir(), rocksopts.Options{WriteBufferMB: 64}), vids: map[int32][][]byte{}}
	f.space = &metapb.SpaceDesc{SpaceId: nbSpace, Name: "nb", PartitionNum: nbParts, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64, VidLen: 8}
	f.snap = catalog.NewSnapshot(&metapb.Catalog{Version: 1, Spaces: []*metapb.SpaceDesc{f.space},
		Edges: []*metapb.EdgeDesc{{SpaceId: nbSpace, EdgeType: nbEdge, Name: "e", Versions: []*metapb.Schema{{Version: 0}}}}})
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for v := int64(1); v <= int64(vertices); v++ {
		part := partition.PartOfInt64(v, nbParts)
		src := partition.EncodeInt64Vid(v)
		f.vids[part] = append(f.vids[part], src)
		for i := range degree {
			wb.Put(partition.EdgeKey(nbSpace, part, src, nbEdge, 0, partition.EncodeInt64Vid(v*100000+int64(i))), nil)
		}
		if v == malformed {
			// An edge key 3 bytes short: the scan fails on this vertex.
			wb.Put(append(partition.EdgePrefix(nbSpace, part, src, nbEdge), 1, 2, 3), nil)
		}
	}
	if err := f.db.Write(wo, wb); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *neighborFixture) req(dstOnly bool, maxEdges int32) *storagepb.GetNeighborsReq {
	req := &storagepb.GetNeighborsReq{SpaceId: nbSpace, EdgeTypes: []int32{nbEdge}, DstOnly: dstOnly, MaxEdgesPerBatch: maxEdges,
		Parts: map[int32]*storagepb.VidList{}}
	for p, vs := range f.vids {
		req.Parts[p] = &storagepb.VidList{Vids: vs}
	}
	return req
}

// run scans the partitions concurrently into st, as GetNeighbors does, and
// returns each partition's failure; emitted counts the vertices the scans
// produced.
func (f *neighborFixture) run(st *neighborStream, req *storagepb.GetNeighborsReq, emitted *atomic.Int64) map[int32]error {
	var mu sync.Mutex
	failed := map[int32]error{}
	var wg sync.WaitGroup
	for part := range req.Parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := st.runPart(part, func(emit func(*storagepb.VertexNeighbors) error) error {
				return scanNeighbors(context.Background(), f.db, nil, f.snap, f.space, part, req, func(v *storagepb.VertexNeighbors) error {
					emitted.Add(1)
					return emit(v)
				})
			})
			if err != nil {
				mu.Lock()
				failed[part] = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return failed
}

func testAbort(part int32, err error) error {
	return abortStatus((&service{}).partError(nil, part, err))
}

// TestGetNeighborsStreamsWhileScanning reads 48,000 edges of 48 vertices
// in 4 partitions with messages of at most 500 edges and a reader that
// stops at the first message: that message arrives while the scans are
// far from done and they wait for the reader (the first Send blocks), the
// edges held in unsent messages never exceed one message per partition
// (plus a vertex), and the answer is every edge once, each vertex's in
// storage order. Answering partitions whole, the first message left only
// once its partition's 12,000 edges were all scanned and held.
func TestGetNeighborsStreamsWhileScanning(t *testing.T) {
	const vertices, degree, maxEdges = 48, 1000, 500
	f := newNeighborFixture(t, vertices, degree, 0)
	for _, dstOnly := range []bool{true, false} {
		t.Run(fmt.Sprintf("dst_only=%v", dstOnly), func(t *testing.T) {
			var emitted atomic.Int64
			first := make(chan int64, 1)   // vertices emitted when the first message was sent
			release := make(chan struct{}) // the reader reads on
			var releaseOnce sync.Once
			unblock := func() { releaseOnce.Do(func() { close(release) }) }
			var mu sync.Mutex
			var got []*storagepb.VertexNeighbors
			msgs := 0
			send := func(resp *storagepb.GetNeighborsResp) error {
				mu.Lock()
				msgs++
				n := msgs
				got = append(got, resp.Vertices...)
				mu.Unlock()
				if n == 1 {
					first <- emitted.Load()
					<-release
				}
				return nil
			}
			st := newNeighborStream(send, maxEdges, 8, testAbort)
			done := make(chan struct{})
			var failed map[int32]error
			go func() {
				defer close(done)
				failed = f.run(st, f.req(dstOnly, maxEdges), &emitted)
			}()
			// Whatever fails, the scans end before the DB closes.
			t.Cleanup(func() { unblock(); <-done })
			select {
			case n := <-first:
				if n >= vertices {
					t.Fatalf("the first message was sent after all %d vertices were scanned", n)
				}
			case <-done:
				t.Fatalf("the call ended (failures %v) before its first message was sent", failed)
			case <-time.After(time.Minute):
				t.Fatal("no message within a minute")
			}
			// The reader is stuck: the scans wait for it. Each partition
			// stops at its first full message (one vertex), so however long
			// the send blocks no partition scans on.
			deadline := time.Now().Add(10 * time.Second)
			for emitted.Load() < nbParts && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := emitted.Load(); n > nbParts {
				t.Fatalf("%d vertices scanned while the reader was stuck at the first message, want at most one per partition", n)
			}
			select {
			case <-done:
				t.Fatal("the call ended while the reader was stuck at the first message")
			default:
			}
			unblock()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("the call did not end within a minute of the reader reading on")
			}
			if len(failed) > 0 || st.failure() != nil {
				t.Fatalf("failures %v, call error %v", failed, st.failure())
			}
			if bound := int64(nbParts * (maxEdges + degree + 1)); st.peak.Load() > bound {
				t.Fatalf("%d edges held in unsent messages at once, want at most %d (one message per partition)", st.peak.Load(), bound)
			}
			if h := st.held.Load(); h != 0 {
				t.Fatalf("held = %d edges after the call, want 0", h)
			}
			if msgs != vertices {
				t.Fatalf("%d messages, want %d: a vertex of %d edges fills one", msgs, vertices, degree)
			}
			checkAllEdges(t, got, vertices, degree)
		})
	}
}

// checkAllEdges checks that got is every vertex once with all its edges
// once, in storage (dst) order.
func checkAllEdges(t *testing.T, got []*storagepb.VertexNeighbors, vertices, degree int) {
	t.Helper()
	seen := map[int64]bool{}
	for _, vn := range got {
		v, err := partition.DecodeInt64Vid(vn.Vid)
		if err != nil {
			t.Fatal(err)
		}
		if seen[v] {
			t.Fatalf("vertex %d sent twice", v)
		}
		seen[v] = true
		var dsts [][]byte
		for b := vn.PackedDsts; len(b) >= 8; b = b[8:] {
			dsts = append(dsts, b[:8])
		}
		for _, e := range vn.Edges {
			dsts = append(dsts, e.Dst)
		}
		if len(dsts) != degree {
			t.Fatalf("vertex %d: %d edges, want %d", v, len(dsts), degree)
		}
		for i, d := range dsts {
			if want := partition.EncodeInt64Vid(v*100000 + int64(i)); !bytes.Equal(d, want) {
				t.Fatalf("vertex %d edge %d: dst %x, want %x", v, i, d, want)
			}
		}
	}
	if len(seen) != vertices {
		t.Fatalf("%d vertices, want %d", len(seen), vertices)
	}
}

// TestGetNeighborsPartFailsMidScan: a partition whose scan fails before
// it sent anything is reported failed, with nothing of it sent; one that
// fails after sending part of its answer is not (the client would keep
// what it got and get it again on retry): it ends the call with a status
// the client does not retry, and the client drops the whole call's answer.
func TestGetNeighborsPartFailsMidScan(t *testing.T) {
	const vertices, degree = 48, 100
	bad := int64(45) // the 12th and last vertex of its partition
	badPart := partition.PartOfInt64(bad, nbParts)
	f := newNeighborFixture(t, vertices, degree, bad)
	send := func(sent *[]*storagepb.VertexNeighbors, mu *sync.Mutex) func(*storagepb.GetNeighborsResp) error {
		return func(resp *storagepb.GetNeighborsResp) error {
			mu.Lock()
			defer mu.Unlock()
			*sent = append(*sent, resp.Vertices...)
			return nil
		}
	}

	// One message holds a partition's whole answer: the failure is the
	// partition's, and none of its vertices left.
	var mu sync.Mutex
	var sent []*storagepb.VertexNeighbors
	var emitted atomic.Int64
	st := newNeighborStream(send(&sent, &mu), 4096, 8, testAbort)
	failed := f.run(st, f.req(true, 4096), &emitted)
	if err := st.failure(); err != nil {
		t.Fatalf("call error %v, want the partition reported failed", err)
	}
	if len(failed) != 1 || failed[badPart] == nil || !strings.Contains(failed[badPart].Error(), "malformed") {
		t.Fatalf("failures %v, want partition %d's malformed key", failed, badPart)
	}
	for _, vn := range sent {
		if v, _ := partition.DecodeInt64Vid(vn.Vid); partition.PartOfInt64(v, nbParts) == badPart {
			t.Fatalf("vertex %d of the failed partition %d was sent", v, badPart)
		}
	}
	if len(sent) != vertices-vertices/nbParts {
		t.Fatalf("%d vertices sent, want the other partitions' %d", len(sent), vertices-vertices/nbParts)
	}

	// Messages of 150 edges: the partition sent its first 11 vertices
	// before it failed at its 12th, so the call ends.
	sent = nil
	st = newNeighborStream(send(&sent, &mu), 150, 8, testAbort)
	failed = f.run(st, f.req(true, 150), &emitted)
	if failed[badPart] != nil {
		// (Partitions still scanning when the call ended report its
		// error; GetNeighbors returns that error, not failed_parts.)
		t.Fatalf("partition %d reported failed (%v), want the call ended: the partition had sent vertices", badPart, failed[badPart])
	}
	err := st.failure()
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), fmt.Sprintf("partition %d failed after", badPart)) {
		t.Fatalf("call error %v, want FailedPrecondition naming partition %d", err, badPart)
	}
	if st.held.Load() != 0 {
		t.Fatalf("held = %d edges after the call, want 0", st.held.Load())
	}
}

// TestGetNeighborsStopsWhenSendFails: once the stream is broken (the
// client went away), every partition's scan stops at its next message.
func TestGetNeighborsStopsWhenSendFails(t *testing.T) {
	const vertices, degree = 48, 100
	f := newNeighborFixture(t, vertices, degree, 0)
	gone := errors.New("client went away")
	var calls atomic.Int64
	st := newNeighborStream(func(*storagepb.GetNeighborsResp) error {
		calls.Add(1)
		return gone
	}, 100, 8, testAbort)
	var emitted atomic.Int64
	f.run(st, f.req(true, 100), &emitted)
	if !errors.Is(st.failure(), gone) {
		t.Fatalf("call error %v, want %v", st.failure(), gone)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d Sends, want 1: nothing is sent after the stream broke", calls.Load())
	}
	if n := emitted.Load(); n > nbParts {
		t.Fatalf("%d vertices scanned, want at most one per partition", n)
	}
	if st.held.Load() != 0 {
		t.Fatalf("held = %d edges after the call, want 0", st.held.Load())
	}
}
