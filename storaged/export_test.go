package storaged

import (
	"context"
	"time"

	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// Test helpers of package storaged that its external tests (package
// storaged_test) use too.
var WriteSSTFile = writeSSTFile

// ResolveBatch is how many changes one resolver batch carries (pair.go).
const ResolveBatch = resolveBatch

// DelayFetches makes every fetch of a staged file from a peer take at
// least d longer (a slow or distant peer).
func (s *Server) DelayFetches(d time.Duration) {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	s.slowFetch = func(download stagedDownload) stagedDownload {
		return func(ctx context.Context, addr string, g raftgroup.GroupID, name string, sum []byte, dir string) (int64, error) {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			return download(ctx, addr, g, name, sum, dir)
		}
	}
}

// ProposeIngestUnchecked proposes an ingest of files as IngestSST does at
// this store, which must lead g, without the leader's checks: a leader
// of an older release, or a forged entry, whose files only the replicas'
// own checks at apply stand between and the database.
func (s *Server) ProposeIngestUnchecked(ctx context.Context, g raftgroup.GroupID, files []*storagepb.SSTFile, stores []uint64) error {
	return s.propose(ctx, g, &storagepb.Command{Mutations: []*storagepb.Mutation{
		{Op: &storagepb.Mutation_IngestSst{IngestSst: &storagepb.IngestSSTOp{Files: files, Stores: stores}}},
	}})
}
