package storaged

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/grpcdial"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// Repair of a missing staged file from a peer (see the top of ingest.go).
//
// A replica that lacks a staged file when the IngestSSTOp applies fetches
// it from another replica it was uploaded to: those keep their staged
// copies for stagedRetention after the upload. The copy runs on a
// goroutine of its own; the raft worker applying the entry waits for it
// up to stagedFetchWait (a file on a LAN arrives well within it, and the
// group applies on without a halt), then halts the group, whose retry
// finds the file once it is here. The worker also drives other groups,
// which get no ticks while it waits: waiting for a whole download from a
// slow or unreachable peer (up to stagedConnectTimeout plus
// stagedFetchTimeout per peer) would cost them their leaderships. Skipping
// the entry instead would leave this replica's data different from the
// others' for good. A file that no peer could supply is not asked for
// again before stagedFetchBackoff (the group stays halted, retrying).

const (
	stagedFetchWait      = time.Second
	stagedChunk          = 1 << 20
	stagedConnectTimeout = 2 * time.Second
	stagedFetchTimeout   = 20 * time.Second
	stagedFetchBackoff   = 30 * time.Second
)

// DownloadStagedSST implements StorageService: it streams one file staged
// on this store for a partition, in the chunks UploadSST takes.
func (s *service) DownloadStagedSST(req *storagepb.DownloadStagedSSTReq, stream storagepb.StorageService_DownloadStagedSSTServer) error {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	// The name is confined to the partition's staging folder as in
	// UploadSST; a ".part" file is an upload in progress, not staged.
	if !sstName.MatchString(req.Name) || strings.HasSuffix(req.Name, ".part") {
		return invalidStatus("SST file name %q: want [A-Za-z0-9._-], not an upload in progress", req.Name)
	}
	db := s.srv.dbOf(g)
	if db == nil {
		return status.Errorf(codes.NotFound, "%s: no replica on store %d", g, s.srv.storeID)
	}
	path := filepath.Join(stagingDir(db, g), req.Name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return status.Errorf(codes.NotFound, "SST file %s is not staged on store %d for %s", req.Name, s.srv.storeID, g)
	}
	if err != nil {
		return fmt.Errorf("%s: reading staged %s: %w", g, req.Name, err)
	}
	defer f.Close()
	h := storageclient.NewSSTHash(nil)
	buf := make([]byte, stagedChunk)
	for {
		n, rerr := io.ReadFull(f, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return fmt.Errorf("%s: reading staged %s: %w", g, req.Name, rerr)
		}
		h.Write(buf[:n])
		last := rerr != nil
		c := &storagepb.SSTChunk{SpaceId: req.SpaceId, PartId: req.PartId, Name: req.Name, Data: buf[:n], Last: last}
		if last {
			c.Checksum = h.Sum(nil)
		}
		if err := stream.Send(c); err != nil {
			return err
		}
		if last {
			return nil
		}
	}
}

// fetchStaged is the applier's stagedFetcher. The copy runs on a
// goroutine of the server's (stop cancels and waits for it), one per file
// at a time, so the raft worker applying the entry waits only as long as
// it chooses (stagedFetchWait) instead of a whole download from a slow or
// unreachable peer, while the other groups it drives go without ticks.
func (s *Server) fetchStaged(g raftgroup.GroupID, name string, sum []byte, peers []uint64, dir string) func(time.Duration) error {
	key := fmt.Sprintf("%d/%d/%s", g.Space, g.Part, name)
	s.fetchMu.Lock()
	f := s.fetching[key]
	if f == nil {
		if last, failed := s.fetchFailed[key]; failed && time.Since(last.at) < stagedFetchBackoff {
			s.fetchMu.Unlock()
			return func(time.Duration) error { return last.err }
		}
		if err := s.fetchCtx.Err(); err != nil {
			// Stopping: no new fetch may start (stop waits for
			// fetchWG once no more can).
			s.fetchMu.Unlock()
			return func(time.Duration) error {
				return fmt.Errorf("fetching SST file %s for %s: store stopping: %w", name, g, err)
			}
		}
		f = &stagedFetch{done: make(chan struct{})}
		s.fetching[key] = f
		s.fetchWG.Add(1)
		go func() {
			defer s.fetchWG.Done()
			err := s.fetchFromPeers(g, name, sum, peers, dir)
			s.fetchMu.Lock()
			delete(s.fetching, key)
			if err != nil {
				s.fetchFailed[key] = fetchFailure{at: time.Now(), err: err}
			} else {
				delete(s.fetchFailed, key)
			}
			s.fetchMu.Unlock()
			f.err = err
			close(f.done)
		}()
	}
	s.fetchMu.Unlock()
	return func(wait time.Duration) error {
		t := time.NewTimer(max(wait, 0))
		defer t.Stop()
		select {
		case <-f.done:
			return f.err
		case <-t.C:
			return fmt.Errorf("SST file %s is missing on store %d for %s and is being fetched from another replica: the partition applies on once it is here", name, s.storeID, g)
		}
	}
}

// stagedFetch is one file being fetched; err is set before done closes.
type stagedFetch struct {
	done chan struct{}
	err  error
}

// fetchFromPeers copies the staged file name of g from the first of peers
// (other than this store) that has it, with the content sum if set.
func (s *Server) fetchFromPeers(g raftgroup.GroupID, name string, sum []byte, peers []uint64, dir string) error {
	var errs []error
	for _, id := range peers {
		if id == s.storeID {
			continue
		}
		addr, ok := s.meta.Catalog().HostAddr(id)
		if !ok {
			errs = append(errs, fmt.Errorf("store %d is not in the catalog", id))
			continue
		}
		start := time.Now()
		download := stagedDownload(func(ctx context.Context, addr string, g raftgroup.GroupID, name string, sum []byte, dir string) (int64, error) {
			return downloadStaged(ctx, s.cfg.TLS, addr, g, name, sum, dir)
		})
		s.fetchMu.Lock()
		if s.slowFetch != nil { // tests
			download = s.slowFetch(download)
		}
		s.fetchMu.Unlock()
		size, err := download(s.fetchCtx, addr, g, name, sum, dir)
		if err == nil {
			s.log.Warn("fetched a staged SST file this replica lacked from another replica", "group", g, "file", name, "from_store", id, "bytes", size, "took", time.Since(start).Round(time.Millisecond))
			return nil
		}
		errs = append(errs, fmt.Errorf("store %d (%s): %w", id, addr, err))
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("no other replica to ask"))
	}
	return fmt.Errorf("SST file %s is not staged on store %d for %s, and no other replica supplied it (restore it to %s, or see docs/architecture.md, Bulk import): %w",
		name, s.storeID, g, dir, errors.Join(errs...))
}

// fetchFailure is the last failed fetch of one staged file.
type fetchFailure struct {
	at  time.Time
	err error
}

// stagedDownload is downloadStaged's type, less the TLS material.
type stagedDownload func(ctx context.Context, addr string, g raftgroup.GroupID, name string, sum []byte, dir string) (int64, error)

// downloadStaged copies one staged file from the store at addr into dir,
// verified as UploadSST verifies an upload: the checksum the sender
// computed over the whole file must match what arrived, and the file must
// be the one the entry names (sum, if given). The file appears
// under its name only once complete and verified.
func downloadStaged(ctx context.Context, tlsConfig *nodetls.Config, addr string, g raftgroup.GroupID, name string, sum []byte, dir string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, stagedFetchTimeout)
	defer cancel()
	// A connection of its own: fetches are rare, and this one must not
	// wait behind gRPC's reconnect backoff of a shared one.
	cc, err := grpcdial.NewClient(addr, tlsConfig, stagedConnectTimeout, backoff.DefaultConfig,
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(2*stagedChunk)))
	if err != nil {
		return 0, err
	}
	defer cc.Close()
	stream, err := storagepb.NewStorageServiceClient(cc).DownloadStagedSST(ctx, &storagepb.DownloadStagedSSTReq{SpaceId: g.Space, PartId: g.Part, Name: name})
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	// Not name+".part": that is where an UploadSST of the same file
	// would write. The pattern matches sstName, so a leftover from a
	// crash goes with removeOldStaged.
	f, err := os.CreateTemp(dir, name+".*.fetch")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone after the rename; removes a partial file
	defer f.Close()
	h := storageclient.NewSSTHash(nil)
	size := int64(0)
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return size, fmt.Errorf("stream ended before the last chunk, after %d bytes", size)
		}
		if err != nil {
			return size, err
		}
		if c.Name != name || c.SpaceId != g.Space || c.PartId != g.Part {
			return size, fmt.Errorf("got a chunk of %s of space %d part %d", c.Name, c.SpaceId, c.PartId)
		}
		if _, err := f.Write(c.Data); err != nil {
			return size, err
		}
		h.Write(c.Data)
		size += int64(len(c.Data))
		if c.Last {
			got := h.Sum(nil)
			if err := checkStreamSum(got, c.Checksum, size); err != nil {
				return size, err
			}
			if len(sum) > 0 && (len(sum) != storageclient.SSTChecksumLen || !bytes.Equal(got, sum)) {
				// An entry from before XXH64, whose file is checked
				// with the SHA-256 it names, or a copy whose global
				// sequence number the peer's ingest wrote in place
				// (FileChecksum hashes it as zeros): read back once.
				if got, _, err = FileChecksum(tmp, sum); err != nil {
					return size, err
				}
			}
			if len(sum) > 0 && !bytes.Equal(got, sum) {
				// Intact, but not the file the entry names (its staged
				// name was reused by a later upload, say).
				return size, fmt.Errorf("its copy has checksum %x, the entry's file %x", got, sum)
			}
			break
		}
	}
	if err := f.Sync(); err != nil {
		return size, err
	}
	if err := f.Close(); err != nil {
		return size, err
	}
	return size, os.Rename(tmp, filepath.Join(dir, name))
}
