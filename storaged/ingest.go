package storaged

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/storaged/sstcheck"
)

// Bulk ingest of SST files (the importer's SST mode).
//
// The importer sorts a partition's keys itself and writes them into SST
// files with RocksDB's SstFileWriter (tag rows, out- and in-edges, index
// entries, degrees: exactly the keys the write path would have made). It
// uploads each file to every replica of the partition (UploadSST), where
// it waits in the staging folder of the data path holding the replica,
// then asks the leader to ingest them (IngestSST). The leader proposes an
// IngestSSTOp; every replica applies it at the same index by ingesting
// its staged copy, so the files land between the same two writes
// everywhere and a replica that joins later gets them in its snapshot.
//
// A staged file is ingested through a hard link, and the staged name is
// kept (for a replay of the entry after a crash) until it is a day old;
// until then it shares its blocks with the ingested file, so it costs no
// space unless compaction rewrote that file. An entry applied a second
// time (a retried IngestSST, a replay) ingests a copy instead
// (linkForIngest), and staged copies are compared with the entry's
// checksum leaving out the 8 bytes RocksDB writes into an ingested file
// (FileChecksum): either would otherwise make the second apply differ
// from the first, or halt the partition for want of a matching copy.
//
// A replica whose staged copy is missing when the entry applies (removed
// by hand or by the clean-up, lost with a disk) must not skip the ingest:
// its data would differ from the other replicas' forever. It fetches the
// file from another store the entry names (stagedfetch.go), checksummed
// like an upload. If none has it, the apply fails with
// raftgroup.ErrApplyHalted: the group stops before the entry (nothing of
// it written), retries every few seconds, moves its leadership away, and
// shows as halted in the log, /parts and novagraph_storaged_raft_groups_halted,
// until the file is put back into the staging folder or the replica is
// rebuilt (removed and added again, from a snapshot). Failures that are
// the same on every replica (a file name or key range the entry carries,
// checkUploadedToAll) stay the entry's result.

// stagedRetention is how long a staged SST file is kept.
const stagedRetention = 24 * time.Hour

var sstName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`)

func invalidStatus(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, format, args...)
}

// stagingDir is where the replica of g on this store keeps staged files:
// next to the RocksDB holding it, so that a hard link can move them in.
func stagingDir(db *grocksdb.DB, g raftgroup.GroupID) string {
	// db.Name() is <data path>/rocksdb (openDataPath).
	return filepath.Join(filepath.Dir(db.Name()), "sst-staging", strconv.Itoa(int(g.Space)), strconv.Itoa(int(g.Part)))
}

// UploadSST implements StorageService: it stages one file.
func (s *service) UploadSST(stream storagepb.StorageService_UploadSSTServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	g := raftgroup.GroupID{Space: first.SpaceId, Part: first.PartId}
	if !sstName.MatchString(first.Name) {
		return invalidStatus("SST file name %q: want [A-Za-z0-9._-]", first.Name)
	}
	db := s.srv.dbOf(g)
	if db == nil {
		return invalidStatus("%s: no replica on this store", g)
	}
	if err := s.srv.refuseUpload(db); err != nil {
		return err
	}
	dir := stagingDir(db, g)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("staging %s: %w", first.Name, err)
	}
	final := filepath.Join(dir, first.Name)
	tmp := final + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("staging %s: %w", first.Name, err)
	}
	defer os.Remove(tmp) // gone after the rename; removes a partial file
	defer f.Close()
	h := storageclient.NewSSTHash(nil)
	size := int64(0)
	for c := first; ; {
		if _, err := f.Write(c.Data); err != nil {
			return fmt.Errorf("staging %s: %w", first.Name, err) // a full disk ends here, named
		}
		h.Write(c.Data)
		size += int64(len(c.Data))
		if c.Last {
			if err := checkStreamSum(h.Sum(nil), c.Checksum, size); err != nil {
				return invalidStatus("SST file %s: %v", first.Name, err)
			}
			break
		}
		if c, err = stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return invalidStatus("SST file %s: stream ended before its last chunk", first.Name)
			}
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("staging %s: %w", first.Name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("staging %s: %w", first.Name, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("staging %s: %w", first.Name, err)
	}
	s.srv.removeOldStaged(dir)
	return stream.SendAndClose(&storagepb.UploadSSTResp{Size: size})
}

// IngestSST implements StorageService, at the partition's leader.
func (s *service) IngestSST(ctx context.Context, req *storagepb.IngestSSTReq) (*storagepb.IngestSSTResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err == nil {
		err = s.ingestSST(ctx, g, newCommand(snap, space), req)
	}
	if err != nil {
		return &storagepb.IngestSSTResp{Result: s.partError(snap, req.PartId, err)}, nil
	}
	return &storagepb.IngestSSTResp{}, nil
}

func (s *service) ingestSST(ctx context.Context, g raftgroup.GroupID, b *cmdBuilder, req *storagepb.IngestSSTReq) error {
	files, stores, restore := req.GetFiles(), req.GetStores(), req.GetRestore()
	if len(files) == 0 {
		return invalid("no SST files to ingest")
	}
	db := s.srv.dbOf(g)
	if db == nil {
		return &partitionError{Code: commonpb.ErrorCode_E_PART_NOT_FOUND, Msg: fmt.Sprintf("%s: no replica on this store", g)}
	}
	// Checked here so that a bad request fails before it is in the log;
	// every replica checks again when it applies.
	if err := checkStaged(db, g, files, purposeOf(restore)); err != nil {
		return err
	}
	if err := s.srv.refuseWrite(g); err != nil {
		return err
	}
	op := &storagepb.IngestSSTOp{Files: files, Stores: stores, Restore: restore}
	if restore {
		if req.GetVersionBase() == 0 || req.GetRestoreName() == "" {
			return invalid("a restore ingest needs its version base and its snapshot's name")
		}
		op.VersionBase, op.RestoreName = req.GetVersionBase(), req.GetRestoreName()
	}
	b.add(&storagepb.Mutation{Op: &storagepb.Mutation_IngestSst{IngestSst: op}})
	return s.srv.propose(ctx, g, b.cmd)
}

// checkStaged checks that files are staged for g, are the files their
// checksums name, and that their ends are puts of g's data keys
// (sstcheck.Ends): what the leader checks before it proposes an ingest,
// so that a wrong request fails before it is in the log. Each replica
// reads its copy whole when it applies the entry.
//
// Both reads go through one hard link of the staged file made here: an
// upload may rename another file over the staged name at any moment, and
// the file checksummed must be the file read.
func checkStaged(db *grocksdb.DB, g raftgroup.GroupID, files []*storagepb.SSTFile, purpose sstcheck.Purpose) error {
	if err := checkFiles(g, files); err != nil {
		return err
	}
	dir := stagingDir(db, g)
	for _, f := range files {
		if err := checkStagedFile(dir, g, f, purpose); err != nil {
			return err
		}
	}
	return nil
}

// purposeOf is what an ingest's files may hold: an import's data keys, or
// with restore a backup's partition, bookkeeping included.
func purposeOf(restore bool) sstcheck.Purpose {
	if restore {
		return sstcheck.Restore
	}
	return sstcheck.Import
}

func checkStagedFile(dir string, g raftgroup.GroupID, f *storagepb.SSTFile, purpose sstcheck.Purpose) error {
	path := filepath.Join(dir, f.Name)
	held := fmt.Sprintf("%s.check-%d", path, checkSeq.Add(1))
	if err := os.Link(path, held); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return invalid("SST file %s is not staged on this store for %s (upload it to every replica first): %v", f.Name, g, err)
		}
		return fmt.Errorf("SST file %s staged for %s: %w", f.Name, g, err)
	}
	defer os.Remove(held)
	if len(f.Checksum) == 0 {
		return invalid("SST file %s for %s carries no checksum: every replica must be able to tell its copy is the file named (use a nova-importer of this release)", f.Name, g)
	}
	if sum, _, err := FileChecksum(held, f.Checksum); err != nil || !bytes.Equal(sum, f.Checksum) {
		return invalid("SST file %s staged on this store for %s is not the file named (checksum %x, want %x; %v): upload it again", f.Name, g, sum, f.Checksum, err)
	}
	if _, err := sstcheck.CheckFor(held, g.Space, g.Part, sstcheck.Ends, purpose); err != nil {
		if errors.Is(err, sstcheck.ErrLocal) {
			return fmt.Errorf("SST file %s for %s: %w", f.Name, g, err)
		}
		return invalid("SST file %s for %s: %v", f.Name, g, err)
	}
	return nil
}

// checkSeq makes the names of checkStaged's links unique.
var checkSeq atomic.Uint64

// checkFiles checks what an IngestSSTOp says of its files: names and key
// ranges. The same on every replica, so a failure is the entry's result.
func checkFiles(g raftgroup.GroupID, files []*storagepb.SSTFile) error {
	if len(files) == 0 {
		// grocksdb's IngestExternalFile indexes the first path: an entry
		// with none would panic every replica at the same index.
		return invalid("an SST ingest with no files")
	}
	start, end := partition.DataRange(g.Space, g.Part)
	for _, f := range files {
		if !sstName.MatchString(f.Name) {
			return invalid("SST file name %q: want [A-Za-z0-9._-]", f.Name)
		}
		if bytes.Compare(f.Smallest, start) < 0 || bytes.Compare(f.Largest, end) >= 0 || bytes.Compare(f.Smallest, f.Largest) > 0 {
			return invalid("SST file %s: key range %x..%x is not within %s's data", f.Name, f.Smallest, f.Largest, g)
		}
	}
	return nil
}

// checkUploadedToAll: a replica that joined the partition after the
// files were uploaded (between the importer's upload and the ingest entry)
// lacks them; it would skip the ingest that the others apply. The importer
// names the stores it uploaded to; an ingest whose configuration has any
// other member is refused by every replica, and the importer uploads to
// the new set and tries again. A replica that joins later still gets the
// data: it starts from a snapshot taken after the ingest. An empty list
// (an importer from before this check) is not checked.
func checkUploadedToAll(conf raftgroup.Members, stores []uint64) error {
	if len(stores) == 0 {
		return nil
	}
	for _, m := range append(append([]uint64(nil), conf.Voters...), conf.Learners...) {
		if !slices.Contains(stores, m) {
			return fmt.Errorf("store %d joined the partition after the SST files were uploaded (to stores %v): upload them to every replica and ingest again", m, stores)
		}
	}
	return nil
}

// ingestSST applies an IngestSSTOp: the staged files go into the
// database, then the partition's degrees are recounted if it held edges
// before (the files' degree keys count only the edges they carry).
func (st *applyState) ingestSST(op *storagepb.IngestSSTOp) error {
	db := st.b.DB()
	if err := checkUploadedToAll(st.b.Config(), op.Stores); err != nil {
		// Deterministic: every replica sees the same configuration at
		// this entry, so all of them refuse, and none diverges.
		return &partitionError{Code: commonpb.ErrorCode_E_CATALOG_STALE, Msg: fmt.Sprintf("%s entry %d: %v", st.g, st.index, err)}
	}
	if err := checkFiles(st.g, op.Files); err != nil {
		// Deterministic too: the entry carries names and ranges.
		return fmt.Errorf("%s entry %d: %w", st.g, st.index, err)
	}
	dir := stagingDir(db, st.g)
	// From here a failure is this replica's own (a file missing or
	// unreadable here): not the entry's result, which would let this
	// replica skip the ingest the others apply, but a halt of the group
	// at this entry until it can be applied (raftgroup.ErrApplyHalted).
	// Nothing of the entry is in the batch yet.
	verified, err := st.ensureStaged(dir, op)
	if err != nil {
		return fmt.Errorf("%w: %s entry %d on store %d: %w", raftgroup.ErrApplyHalted, st.g, st.index, st.store, err)
	}
	// Every replica reads its own copy whole, whatever the leader read
	// (an entry may come from a leader of an older release, or forged):
	// a refusal for the file's content is the same wherever the file is
	// read, so it is the entry's result when the copies are the entry's
	// file (verified); a local read failure, or an unverified copy that may
	// differ here, halts the group like a missing file.
	for _, f := range op.Files {
		if _, err := sstcheck.CheckFor(filepath.Join(dir, f.Name), st.g.Space, st.g.Part, sstcheck.Full, purposeOf(op.Restore)); err != nil {
			if verified && !errors.Is(err, sstcheck.ErrLocal) {
				return invalid("%s entry %d: SST file %s: %v", st.g, st.index, f.Name, err)
			}
			return fmt.Errorf("%w: %s entry %d on store %d: SST file %s: %w", raftgroup.ErrApplyHalted, st.g, st.index, st.store, f.Name, err)
		}
	}
	if op.Restore {
		// A restore goes into a partition that is new, once: the same
		// backup ingested again (a retry whose outcome was unknown) is
		// done already; anything else would mix the backup into data.
		held, err := st.b.Get(partition.RestoreHoldKey(st.g.Space, st.g.Part))
		if err != nil {
			return err
		}
		if held != nil && string(held) == op.RestoreName {
			return nil
		}
		// Through the batch, not the database alone: an entry of this
		// round may have written, and rounds differ between replicas.
		for _, kind := range []byte{partition.KindTag, partition.KindEdge, partition.KindIntent} {
			found := false
			if err := st.b.Scan(partition.KindPrefix(st.g.Space, st.g.Part, kind), nil, func(_, _ []byte) (bool, error) {
				found = true
				return false, nil
			}); err != nil {
				return err
			}
			if found {
				return invalid("%s entry %d: a restore goes into an empty partition; this one holds data", st.g, st.index)
			}
		}
	}
	hadEdges := hasKeyWithPrefix(db, partition.KindPrefix(st.g.Space, st.g.Part, partition.KindEdge))
	var links []string
	for _, f := range op.Files {
		link := filepath.Join(dir, fmt.Sprintf("%s.ingest-%d", f.Name, st.index))
		_ = os.Remove(link) // left by an attempt that crashed
		if err := linkForIngest(filepath.Join(dir, f.Name), link); err != nil {
			for _, l := range links {
				_ = os.Remove(l)
			}
			return fmt.Errorf("%w: %s entry %d on store %d: linking staged %s: %w", raftgroup.ErrApplyHalted, st.g, st.index, st.store, f.Name, err)
		}
		links = append(links, link)
	}
	if err := st.b.IngestFiles(links); err != nil {
		for _, l := range links {
			_ = os.Remove(l)
		}
		// (A failed write of the entries before it stops the engine
		// whatever is returned here.)
		if verified && !strings.HasPrefix(err.Error(), "IO error") {
			// The files here are, byte for byte, the ones the entry
			// names (its checksum), so every replica has the same files and
			// RocksDB refuses them alike (a corrupt or foreign file):
			// the entry's result, not a reason to stop the partition.
			return invalid("%s entry %d: RocksDB refused the SST files: %v", st.g, st.index, err)
		}
		// Unverified files, or an I/O error here: this replica's own
		// failure. The group stops at this entry and tries again.
		return fmt.Errorf("%w: %s entry %d on store %d: %w", raftgroup.ErrApplyHalted, st.g, st.index, st.store, err)
	}
	if op.Restore {
		// After the files, which carry the backup's own base: the
		// partition's new raft log restarts at a low index, and its
		// versions must go on from past the backup's (VersionBaseKey).
		// The hold keeps its intents (promises to partitions that may
		// not be restored yet, whose own ingest would overwrite what
		// they deliver) until FinishRestore.
		st.b.Put(partition.VersionBaseKey(st.g.Space, st.g.Part), binary.BigEndian.AppendUint64(nil, op.VersionBase))
		st.b.Put(partition.RestoreHoldKey(st.g.Space, st.g.Part), []byte(op.RestoreName))
	}
	if hadEdges {
		return st.recountDegrees()
	}
	return nil
}

// linkForIngest makes link, the name of staged that RocksDB ingests (and
// moves into the database): a hard link, which copies nothing, unless
//   - the staged file's inode is already a live file of the database, as
//     when an entry naming it applies again (the importer retried an
//     ingest whose outcome it did not learn; a crash came between the
//     ingest and the applied index): RocksDB writes an ingest's global
//     sequence number into the ingested file in place, so a second link
//     would change the sequence number of the first ingest's file under
//     the database;
//   - or the file carries a global sequence number already (written by
//     such an ingest here or on the replica it was fetched from), which
//     RocksDB refuses in a file it is given to ingest.
//
// Then link is a copy, with the sequence number zero again.
func linkForIngest(staged, link string) error {
	f, err := os.Open(staged)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	seqno, err := globalSeqnoOffset(f, fi.Size())
	if err != nil {
		return fmt.Errorf("looking for the global sequence number of %s: %w", staged, err)
	}
	var value [8]byte
	if seqno >= 0 {
		if _, err := f.ReadAt(value[:], seqno); err != nil {
			return fmt.Errorf("reading the global sequence number of %s: %w", staged, err)
		}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink == 1 && value == [8]byte{} {
		return os.Link(staged, link)
	}
	return copyForIngest(f, link, seqno)
}

// copyForIngest copies src to a new file dst, with the 8 bytes at seqno
// (the global sequence number's value; < 0: none) zero, and syncs it.
func copyForIngest(src *os.File, dst string, seqno int64) (err error) {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(dst)
		}
	}()
	if _, err := io.Copy(out, io.NewSectionReader(src, 0, 1<<62)); err != nil {
		return fmt.Errorf("copying %s: %w", src.Name(), err)
	}
	if seqno >= 0 {
		if _, err := out.WriteAt(make([]byte, 8), seqno); err != nil {
			return fmt.Errorf("zeroing the global sequence number of the copy of %s: %w", src.Name(), err)
		}
	}
	return out.Sync()
}

// ensureStaged makes sure every file of op is staged in dir, fetching the
// missing ones from the other replicas it was uploaded to, and those whose
// content is not the entry's (its checksum) too. verified reports that
// every file had a checksum in the entry and matches it.
func (st *applyState) ensureStaged(dir string, op *storagepb.IngestSSTOp) (verified bool, err error) {
	verified = true
	var waits []func(time.Duration) error
	for _, f := range op.Files {
		path := filepath.Join(dir, f.Name)
		_, err := os.Stat(path)
		switch {
		case err == nil && len(f.Checksum) == 0:
			verified = false // an importer from before the checksums
			continue
		case err == nil:
			sum, _, err := FileChecksum(path, f.Checksum)
			if err != nil {
				return false, fmt.Errorf("staged SST file %s: %w", f.Name, err)
			}
			if bytes.Equal(sum, f.Checksum) {
				continue
			}
			// Not the entry's file (a later upload under the same
			// name, a damaged disk): fetched like a missing one.
			err = fmt.Errorf("staged SST file %s has checksum %x, the entry's %x", f.Name, sum, f.Checksum)
			if st.fetch == nil {
				return false, err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return false, fmt.Errorf("staged SST file %s: %w", f.Name, err)
		}
		if st.fetch == nil {
			return false, fmt.Errorf("SST file %s is not staged in %s, and no other replica can be asked", f.Name, dir)
		}
		peers := op.Stores
		if len(peers) == 0 {
			// An importer from before IngestSSTOp.stores: the members
			// where the entry applies are the replicas it uploaded to.
			c := st.b.Config()
			peers = append(append([]uint64(nil), c.Voters...), c.Learners...)
		}
		waits = append(waits, st.fetch(st.g, f.Name, f.Checksum, peers, dir))
		verified = verified && len(f.Checksum) > 0
	}
	// The fetches run beside the raft worker that applies this entry;
	// it waits for them a little (a file on a LAN takes well under a
	// second), then halts the group and lets the retry find the files.
	deadline := time.Now().Add(stagedFetchWait)
	for _, wait := range waits {
		if err := wait(time.Until(deadline)); err != nil {
			return false, err
		}
	}
	return verified, nil
}

// recountDegrees rewrites every degree key of the partition from its
// edges: live out-edges, and in-edges that are not tombstones.
func (st *applyState) recountDegrees() error {
	edgePrefix := partition.KindPrefix(st.g.Space, st.g.Part, partition.KindEdge)
	degPrefix := partition.KindPrefix(st.g.Space, st.g.Part, partition.KindDegree)
	counts := map[string]uint64{}
	err := st.b.Scan(edgePrefix, nil, func(k, v []byte) (bool, error) {
		_, _, src, et, _, _, err := partition.ParseEdgeKey(k, st.vidLen)
		if err != nil {
			return false, err
		}
		if _, live, err := partition.EdgeRow(et, v); err != nil || !live {
			return err == nil, err
		}
		counts[string(partition.DegreeKey(st.g.Space, st.g.Part, src, et))]++
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("%s: recounting degrees: %w", st.g, err)
	}
	var stale [][]byte
	err = st.b.Scan(degPrefix, nil, func(k, _ []byte) (bool, error) {
		if _, ok := counts[string(k)]; !ok {
			stale = append(stale, append([]byte(nil), k...))
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("%s: recounting degrees: %w", st.g, err)
	}
	for _, k := range stale {
		st.b.Delete(k)
	}
	for k, n := range counts {
		st.b.Put([]byte(k), partition.EncodeDegree(n))
	}
	return nil
}

// removeOldStaged deletes staged files older than stagedRetention in dir.
func (s *Server) removeOldStaged(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && time.Since(info.ModTime()) > stagedRetention {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				s.log.Warn("removing an old staged SST file", "file", e.Name(), "err", err)
			}
		}
	}
}
