// Package sstcheck reads an SST file the importer uploaded and checks that
// ingesting it can only put keys of its partition's data: no raft or
// system key, no other partition's key, no deletion of anything, through
// RocksDB's own SstFileReader (a small C++ shim, sstcheck.cc, as the
// RocksDB 7.8.3 C API has no reader).
//
// An IngestSST request says which partition its files are for and what
// key range they hold; the files are what is ingested. storaged reads the
// ends of each file at the leader before it proposes the ingest (Ends:
// a raft key or another partition's key sorts before or after all of the
// partition's data, so it is at an end), and every replica reads its own
// copy whole when it applies the entry (Full), whatever the leader did.
// See storaged/ingest.go.
//
// What it cannot see: RocksDB 7.8.3's SstFileReader shows neither point
// nor range deletions, so "only puts" rests on the counts in the file's
// own properties block, which a file crafted to misstate them (and its
// block checksum recomputed) would pass. An importer certificate is
// needed to upload one (docs/security.md).
package sstcheck

/*
#cgo CXXFLAGS: -std=c++17 -O2
#cgo LDFLAGS: -lrocksdb -lstdc++
#include <stdlib.h>
#include "sstcheck.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/novagraph/novagraph/partition"
)

// The kinds of key an ingested file may carry: what the importer writes
// (tag rows, out- and in-edges, index entries, degrees). Not KindSystem
// (data versions, tombstones), KindIntent (promises to other partitions)
// or any raft kind.
var ingestKinds = [...]byte{partition.KindTag, partition.KindEdge, partition.KindIndex, partition.KindDegree}

// restoreKinds are what a backup's partition file carries besides
// (nova-br restore): the partition's pending intents, which the restored
// partition then carries out, and its system keys (in-edge tombstones and
// the data version), all of its data range. Still no raft kind.
var restoreKinds = [...]byte{partition.KindTag, partition.KindEdge, partition.KindIndex, partition.KindDegree, partition.KindSystem, partition.KindIntent}

// Purpose says what a file is ingested for, which decides the kinds of
// key it may hold.
type Purpose int

const (
	// Import: what the importer writes (ingestKinds).
	Import Purpose = iota
	// Restore: a backup's partition (restoreKinds).
	Restore
)

// ErrLocal marks a Check failure that is about this machine, not the
// file: RocksDB's "IO error" (a disk read failing, too many open files,
// the file gone). Another attempt, or another replica's copy, may read the
// same file. Every other failure is about the file's content, and the same
// wherever that file is read.
var ErrLocal = errors.New("local I/O error")

// Mode says how much of a file Check reads.
type Mode int

const (
	// Ends reads the table properties and the first and last keys.
	Ends Mode = iota
	// Full verifies every block's checksum and reads every key.
	Full
)

// Result is what Check read.
type Result struct {
	Keys       uint64 // keys read: all of them with Full, the two ends with Ends
	NumEntries uint64 // the file's own count of entries
}

// Check reads the SST file at path as mode says and returns an error
// naming the first thing that would let its ingest write outside the
// data of partition part of space, or that makes it unreadable.
func Check(path string, space, part int32, mode Mode) (Result, error) {
	return CheckFor(path, space, part, mode, Import)
}

// CheckFor is Check for a file ingested for purpose.
func CheckFor(path string, space, part int32, mode Mode, purpose Purpose) (Result, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	prefix := partition.PartPrefix(space, part)
	var kinds [256]C.uchar
	allowed := ingestKinds[:]
	if purpose == Restore {
		allowed = restoreKinds[:]
	}
	for _, k := range allowed {
		kinds[k] = 1
	}
	full := C.int(0)
	if mode == Full {
		full = 1
	}
	var r C.nova_sst_result
	C.nova_sst_check(cpath, (*C.char)(unsafe.Pointer(&prefix[0])), C.size_t(len(prefix)), &kinds[0], full, &r)
	defer C.nova_sst_result_free(&r)
	res := Result{Keys: uint64(r.keys), NumEntries: uint64(r.num_entries)}
	var badKey []byte
	if r.bad_key != nil {
		badKey = C.GoBytes(unsafe.Pointer(r.bad_key), C.int(r.bad_key_len))
	}
	switch r.problem {
	case C.NOVA_SST_OK:
		return res, nil
	case C.NOVA_SST_UNREADABLE:
		msg := C.GoString(r.err)
		if strings.HasPrefix(msg, "IO error") {
			return res, fmt.Errorf("%w reading the SST file: %s", ErrLocal, msg)
		}
		return res, fmt.Errorf("not a readable SST file: %s", msg)
	case C.NOVA_SST_COMPARATOR:
		return res, fmt.Errorf("written with comparator %q, not RocksDB's bytewise one", C.GoString(r.comparator))
	case C.NOVA_SST_NOT_PUTS:
		return res, fmt.Errorf("holds %d deletions, %d range deletions and %d merge operands: an ingested file may only put keys",
			uint64(r.num_deletions), uint64(r.num_range_deletions), uint64(r.num_merge_operands))
	case C.NOVA_SST_FOREIGN_KEY:
		return res, fmt.Errorf("key %x is not a data key of space %d part %d (%s)", badKey, space, part, describeKey(badKey, space, part))
	case C.NOVA_SST_UNORDERED:
		return res, fmt.Errorf("key %x (the %d-th) is not after the key before it", badKey, res.Keys+1)
	case C.NOVA_SST_COUNT:
		return res, fmt.Errorf("%d keys read, the file says it holds %d entries", res.Keys, res.NumEntries)
	case C.NOVA_SST_EMPTY:
		return res, fmt.Errorf("holds no key")
	}
	return res, fmt.Errorf("sstcheck: unknown result %d", int(r.problem))
}

// describeKey says why key is not one an ingest may write.
func describeKey(key []byte, space, part int32) string {
	if len(key) < partition.KeyPrefixLen {
		return fmt.Sprintf("%d bytes, shorter than any key's prefix", len(key))
	}
	prefix := partition.PartPrefix(space, part)
	if string(key[:len(prefix)]) != string(prefix) {
		return "another partition's or space's key"
	}
	switch kind := key[partition.PartPrefixLen]; kind {
	case partition.KindRaftLog, partition.KindRaftState:
		return fmt.Sprintf("a raft key, kind %#x", kind)
	case partition.KindSystem, partition.KindIntent:
		return fmt.Sprintf("a key of the partition's own bookkeeping, kind %#x", kind)
	default:
		return fmt.Sprintf("kind %#x, which an ingest does not write", kind)
	}
}
