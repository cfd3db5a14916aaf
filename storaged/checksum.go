package storaged

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/raftgroup"
)

// PartChecksum hashes (xxhash64) every key and value of the data range of
// one partition replica hosted here, read from one RocksDB snapshot, so
// that replicas that applied the same log prefix give the same number.
// Raft state (log, hard state, applied index) is outside the data range
// and differs legitimately between replicas, so it is not hashed.
//
// Each key and value is hashed with its length in front, so that moving a
// byte from a value to the next key changes the sum.
//
// It is meant for tests and consistency checks: it scans the whole range.
// The caller must not call it concurrently with Stop.
func (s *Server) PartChecksum(space, part int32) (uint64, error) {
	return s.PartChecksumContext(context.Background(), space, part)
}

// checksumCheckEvery is how many keys PartChecksumContext hashes between
// looks at its context: a few milliseconds of scanning.
const checksumCheckEvery = 4096

// PartChecksumContext is PartChecksum that gives up, with ctx's error,
// once ctx ends (checked every checksumCheckEvery keys): a scan for an
// HTTP client that left stops rather than reading the replica to its end.
func (s *Server) PartChecksumContext(ctx context.Context, space, part int32) (uint64, error) {
	g := raftgroup.GroupID{Space: space, Part: part}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("%s: checksum: %w", g, err)
	}
	db := s.dbOf(g)
	if db == nil {
		return 0, fmt.Errorf("%s: checksum: %w", g, raftgroup.ErrGroupNotFound)
	}
	snap := db.NewSnapshot()
	defer db.ReleaseSnapshot(snap)
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // crosses vertex prefixes: no prefix-bloom seek (storaged/rocksdb.go)
	ro.SetSnapshot(snap)
	ro.SetFillCache(false) // a full scan would only evict the working set
	start, end := partition.DataRange(space, part)
	it := db.NewIterator(ro)
	defer it.Close()

	h := xxhash.New()
	var lenBuf [binary.MaxVarintLen64]byte
	write := func(b []byte) {
		n := binary.PutUvarint(lenBuf[:], uint64(len(b)))
		_, _ = h.Write(lenBuf[:n])
		_, _ = h.Write(b)
	}
	// The end bound is checked here rather than with SetIterateUpperBound,
	// which hands RocksDB a pointer into Go memory for the iterator's life.
	scanned := 0
	for it.Seek(start); it.Valid(); it.Next() {
		k := it.Key()
		if bytes.Compare(k.Data(), end) >= 0 {
			k.Free()
			break
		}
		write(k.Data())
		k.Free()
		v := it.Value()
		write(v.Data())
		v.Free()
		if scanned++; scanned%checksumCheckEvery == 0 && ctx.Err() != nil {
			return 0, fmt.Errorf("%s: checksum scan: %w", g, ctx.Err())
		}
	}
	if err := it.Err(); err != nil {
		return 0, fmt.Errorf("%s: checksum scan: %w", g, err)
	}
	return h.Sum64(), nil
}
