package storaged

import (
	"context"
	"time"

	"github.com/novagraph/novagraph/raftgroup"
)

// Test helpers of package storaged that its external tests (package
// storaged_test) use too.
var WriteSSTFile = writeSSTFile

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
