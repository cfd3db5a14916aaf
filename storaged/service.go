package storaged

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// catalogWait bounds how long a request waits for this store's catalog to
// reach the version the requester already saw.
const catalogWait = 3 * time.Second

// service implements StorageService on top of the raft engine and the
// partitions' RocksDB instances.
type service struct {
	storagepb.UnimplementedStorageServiceServer
	srv *Server
}

// partError turns a failure of one partition into its PartResult, with a
// leader hint when the replica knows the leader.
func (s *service) partError(snap *catalog.Snapshot, part int32, err error) *storagepb.PartResult {
	pr := &storagepb.PartResult{PartId: part, Code: commonpb.ErrorCode_E_STORAGE, Message: err.Error()}
	var partErr *partitionError
	switch {
	case errors.As(err, &partErr):
		pr.Code = partErr.Code
	case errors.Is(err, raftgroup.ErrGroupNotFound):
		pr.Code = commonpb.ErrorCode_E_PART_NOT_FOUND
	case errors.Is(err, raftgroup.ErrStopped):
		// This store's engine halted (a disk failure): another replica
		// must serve, so route the client away with no leader hint.
		pr.Code = commonpb.ErrorCode_E_LEADER_CHANGED
	case errors.Is(err, raftgroup.ErrAmbiguous):
		// The leader changed under an in-flight write: it may still
		// commit. Retrying it could apply it twice around another write,
		// so the caller is told the outcome is unknown.
		pr.Code = commonpb.ErrorCode_E_OUTCOME_UNKNOWN
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		pr.Code = commonpb.ErrorCode_E_TIMEOUT
	}
	if nl, ok := raftgroup.AsNotLeader(err); ok {
		pr.Code = commonpb.ErrorCode_E_LEADER_CHANGED
		pr.LeaderStoreId = nl.Leader
		if h, ok := snap.Host(nl.Leader); ok {
			pr.Leader = h.GetAddr()
		}
	}
	return pr
}

// partitionError is a per-partition failure with a specific code; it is
// rowread's Error, so that the failures rowread reports keep their codes.
type partitionError = rowread.Error

func invalid(format string, args ...any) error {
	return &partitionError{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT, Msg: fmt.Sprintf(format, args...)}
}

// spaceFor waits for the catalog version the request needs and returns the
// space.
func (s *service) spaceFor(ctx context.Context, spaceID int32, version int64) (*catalog.Snapshot, *metapb.SpaceDesc, error) {
	if version > 0 {
		wctx, cancel := context.WithTimeout(ctx, catalogWait)
		err := s.srv.meta.WaitVersion(wctx, version)
		cancel()
		if err != nil {
			return nil, nil, &partitionError{Code: commonpb.ErrorCode_E_CATALOG_STALE,
				Msg: fmt.Sprintf("storaged catalog is older than version %d the request needs: %v", version, err)}
		}
	}
	snap := s.srv.meta.Catalog()
	space, ok := snap.SpaceByID(spaceID)
	if !ok {
		return snap, nil, &partitionError{Code: commonpb.ErrorCode_E_SPACE_NOT_FOUND, Msg: fmt.Sprintf("space %d not found", spaceID)}
	}
	return snap, space, nil
}

// forEachPart runs fn for every partition named, each once, and collects
// the failures. The partitions run on at most s.partWorkers() goroutines,
// the request's own among them: a request naming a million partitions,
// hosted here or not, must not start a goroutine for each (issue 24,
// bounds). A GO 1 STEP names one partition and runs on the request's
// goroutine alone: a goroutine per request cost its start and the growth
// of a fresh stack, a tenth of such a request's CPU.
func (s *service) forEachPart(snap *catalog.Snapshot, parts []int32, fn func(part int32) error) []*storagepb.PartResult {
	parts = uniqueParts(parts)
	var mu sync.Mutex
	var failed []*storagepb.PartResult
	var next atomic.Int64
	work := func() {
		for {
			i := next.Add(1) - 1
			if i >= int64(len(parts)) {
				return
			}
			if err := fn(parts[i]); err != nil {
				pr := s.partError(snap, parts[i], err)
				mu.Lock()
				failed = append(failed, pr)
				mu.Unlock()
			}
		}
	}
	var wg sync.WaitGroup
	for range min(len(parts), s.partWorkers()) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return failed
}

// DefaultRequestPartWorkers is Config.RequestPartWorkers's default.
const DefaultRequestPartWorkers = 1024

// partWorkers is how many goroutines one request's partitions may run on
// (Config.RequestPartWorkers).
func (s *service) partWorkers() int {
	if s.srv != nil && s.srv.cfg.RequestPartWorkers > 0 {
		return s.srv.cfg.RequestPartWorkers
	}
	return DefaultRequestPartWorkers
}

// uniqueParts drops repeated partition ids, keeping the first of each: a
// partition named twice would be read twice and its rows answered twice.
func uniqueParts(parts []int32) []int32 {
	if len(parts) < 2 {
		return parts
	}
	seen := make(map[int32]struct{}, len(parts))
	out := parts[:0:0]
	for _, p := range parts {
		if _, dup := seen[p]; !dup {
			seen[p] = struct{}{}
			out = append(out, p)
		}
	}
	return out
}

func allFailed(snap *catalog.Snapshot, s *service, parts []int32, err error) []*storagepb.PartResult {
	out := make([]*storagepb.PartResult, len(parts))
	for i, p := range parts {
		out[i] = s.partError(snap, p, err)
	}
	return out
}

func keysOf[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// GetNeighbors implements StorageService. The partitions are scanned
// concurrently and each streams its vertices as they are scanned, in
// messages of about max_edges_per_batch edges (neighborStream), so that
// storaged holds at most about one message per partition being scanned,
// not the partitions' whole answers; a slow reader blocks the scans
// (gRPC flow control) instead of letting them run ahead. A partition
// reported in failed_parts sent nothing, so a client that retries failed
// partitions never receives a partition twice: a partition that fails
// after part of its answer was sent ends the whole call with an error
// instead (neighborStream.runPart).
func (s *service) GetNeighbors(req *storagepb.GetNeighborsReq, stream grpc.ServerStreamingServer[storagepb.GetNeighborsResp]) error {
	ctx := stream.Context()
	parts := keysOf(req.Parts)
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return stream.Send(&storagepb.GetNeighborsResp{FailedParts: allFailed(snap, s, parts, err)})
	}
	st := newNeighborStream(stream.Send, int(req.MaxEdgesPerBatch), int(space.GetVidLen()),
		func(part int32, err error) error { return abortStatus(s.partError(snap, part, err)) })
	failed := s.forEachPart(snap, parts, func(part int32) error {
		g := raftgroup.GroupID{Space: req.SpaceId, Part: part}
		if err := s.srv.engine.ReadIndex(ctx, g); err != nil {
			return err
		}
		db := s.srv.dbOf(g)
		if db == nil {
			return fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
		}
		adj := s.srv.adjacency.lookup(g, db, int(space.GetVidLen()))
		return st.runPart(part, func(emit func(*storagepb.VertexNeighbors) error) error {
			return scanNeighbors(ctx, db, adj, snap, space, part, req, emit)
		})
	})
	if err := st.failure(); err != nil {
		return err
	}
	return stream.Send(&storagepb.GetNeighborsResp{FailedParts: failed})
}

// GetProps implements StorageService.
func (s *service) GetProps(ctx context.Context, req *storagepb.GetPropsReq) (*storagepb.GetPropsResp, error) {
	parts := keysOf(req.VertexParts)
	parts = append(parts, keysOf(req.EdgeParts)...)
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return &storagepb.GetPropsResp{FailedParts: allFailed(snap, s, parts, err)}, nil
	}
	resp := &storagepb.GetPropsResp{}
	if req.Columns && len(req.EdgeParts) > 0 {
		return &storagepb.GetPropsResp{FailedParts: allFailed(snap, s, parts,
			rowread.Invalid("columns answers vertex properties only, and the request has edges"))}, nil
	}
	var mu sync.Mutex
	resp.FailedParts = s.forEachPart(snap, parts, func(part int32) error {
		g := raftgroup.GroupID{Space: req.SpaceId, Part: part}
		if err := s.srv.engine.ReadIndex(ctx, g); err != nil {
			return err
		}
		db := s.srv.dbOf(g)
		if db == nil {
			return fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
		}
		adj := s.srv.adjacency.lookup(g, db, int(space.GetVidLen()))
		rows, block, err := getProps(db, adj, rowread.NewReader(snap, req.SpaceId, time.Now().Unix()), space, part, req)
		if err != nil {
			return err
		}
		mu.Lock()
		resp.Rows = append(resp.Rows, rows...)
		if block != nil {
			resp.Blocks = append(resp.Blocks, block)
		}
		mu.Unlock()
		return nil
	})
	return resp, nil
}
