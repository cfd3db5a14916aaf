package storaged

import (
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// defaultEdgesPerBatch bounds one GetNeighbors response message.
const defaultEdgesPerBatch = 4096

// neighborStream is the response stream of one GetNeighbors call, shared by
// the partitions it scans concurrently. Each partition batches its own
// vertices (runPart) and sends a message as soon as it holds
// maxEdges edges (a vertex counts one more than its edges, and is never
// split), so messages of different partitions interleave: vertices are
// independent, and the client already collects them in arrival order.
//
// Memory: a partition holds at most one message being built (about
// maxEdges edges, more only by its last vertex), and waits for the stream
// with it when another partition is sending. A Send blocks while the
// client's flow-control window is full, and with it every partition whose
// message is full: a slow reader slows the scans down instead of letting
// their answers pile up in storaged. One call thus holds about
// (partitions scanned) × maxEdges edges, whatever the size of its answer.
type neighborStream struct {
	send     func(*storagepb.GetNeighborsResp) error // the gRPC stream's Send
	maxEdges int
	vidLen   int
	// abort turns the failure of a partition that already sent vertices
	// into the error that ends the call (abortStatus).
	abort func(part int32, err error) error

	mu  sync.Mutex // serialises send; guards err
	err error      // ends the call: a failed Send, or a partition that failed after sending

	held atomic.Int64 // edges in messages built and not yet sent, all partitions
	peak atomic.Int64 // the most held was (tests)
}

func newNeighborStream(send func(*storagepb.GetNeighborsResp) error, maxEdges, vidLen int, abort func(part int32, err error) error) *neighborStream {
	if maxEdges <= 0 {
		maxEdges = defaultEdgesPerBatch
	}
	return &neighborStream{send: send, maxEdges: maxEdges, vidLen: vidLen, abort: abort}
}

// failure is the error that ends the call, if any.
func (st *neighborStream) failure() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// sendBatch sends one message; weight is its edges as held counts them.
// After the call's first failure nothing more is sent.
func (st *neighborStream) sendBatch(resp *storagepb.GetNeighborsResp, weight int64) error {
	defer st.held.Add(-weight)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil {
		return st.err
	}
	if err := st.send(resp); err != nil {
		st.err = err
		return err
	}
	return nil
}

func (st *neighborStream) hold(n int64) {
	h := st.held.Add(n)
	for {
		p := st.peak.Load()
		if h <= p || st.peak.CompareAndSwap(p, h) {
			return
		}
	}
}

// runPart runs scan, one partition's scan, sending what it emits in
// messages of about maxEdges edges, and returns the partition's failure to
// report in failed_parts.
//
// A partition is reported failed only while none of its vertices was
// sent: its first message leaves only once full (or once the scan has
// finished), so a partition whose answer fits in one message is sent only
// after it succeeded, as when partitions were answered whole; and what can
// fail for every vertex alike is checked before the first vertex
// (scanNeighbors). A partition that fails after it sent vertices (a
// RocksDB error, a malformed row, a filter failing on one edge: rare)
// cannot be reported as failed, since the client would keep the vertices
// it already has and get them again if it retries the partition; it ends
// the whole call with an error instead, and the client, which keeps a
// call's vertices only once its stream ended cleanly, drops everything the
// call sent and retries or fails the call (abortStatus). Holding each
// partition's answer until it finished would keep the old guarantee for
// every partition, but at the cost of holding it whole, which is what
// streaming removes.
func (st *neighborStream) runPart(part int32, scan func(emit func(*storagepb.VertexNeighbors) error) error) error {
	batch := &storagepb.GetNeighborsResp{}
	n, sent := 0, false
	flush := func() error {
		if len(batch.Vertices) == 0 {
			return nil
		}
		b, w := batch, int64(n)
		batch, n, sent = &storagepb.GetNeighborsResp{}, 0, true
		return st.sendBatch(b, w)
	}
	err := scan(func(v *storagepb.VertexNeighbors) error {
		w := len(v.Edges) + 1
		if st.vidLen > 0 {
			w += len(v.PackedDsts) / st.vidLen
		}
		batch.Vertices = append(batch.Vertices, v)
		n += w
		st.hold(int64(w))
		if n >= st.maxEdges {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	} else {
		st.held.Add(-int64(n)) // the unsent rest is dropped
	}
	if err == nil {
		return nil
	}
	if stErr := st.failure(); stErr != nil {
		return stErr // the call ends with it anyway
	}
	if !sent {
		return err
	}
	abortErr := st.abort(part, err)
	st.mu.Lock()
	if st.err == nil {
		st.err = abortErr
	}
	st.mu.Unlock()
	return nil
}

// abortStatus is the gRPC status that ends a GetNeighbors call when a
// partition failed after sending part of its answer (neighborStream.runPart).
// Its code makes storaged/client do with the whole call what it does with
// the partition's code in failed_parts: retry on another replica what a
// leader change or a timeout failed (Unavailable: the host's partitions
// are asked again), fail the call otherwise (a code the client does not
// retry). The client drops what the call sent either way.
func abortStatus(pr *storagepb.PartResult) error {
	code := codes.FailedPrecondition
	switch pr.GetCode() {
	case commonpb.ErrorCode_E_LEADER_CHANGED, commonpb.ErrorCode_E_PART_NOT_FOUND, commonpb.ErrorCode_E_TIMEOUT:
		code = codes.Unavailable
	case commonpb.ErrorCode_E_INVALID_ARGUMENT:
		code = codes.InvalidArgument
	}
	return status.Errorf(code, "partition %d failed after part of its answer was sent: %s: %s", pr.GetPartId(), pr.GetCode(), pr.GetMessage())
}
