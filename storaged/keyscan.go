package storaged

/*
#cgo LDFLAGS: -lrocksdb
#include <stddef.h>
#include <string.h>
#include "rocksdb/c.h"

// nova_scan_keys copies into buf, key_len bytes each, the keys of it that
// start with prefix, at most max_keys of them: from the first such key
// when seek is set (it seeks to prefix), else from where it stands. It
// returns how many it copied and leaves it on the first key not copied.
// *bad is set when it stopped at a key of the prefix whose length is not
// key_len (the caller reads that key for its error).
static int nova_scan_keys(rocksdb_iterator_t* it, const char* prefix, size_t plen, int seek,
                          size_t key_len, char* buf, int max_keys, int* bad) {
	*bad = 0;
	if (seek) {
		rocksdb_iter_seek(it, prefix, plen);
	}
	int n = 0;
	while (n < max_keys && rocksdb_iter_valid(it)) {
		size_t kl;
		const char* k = rocksdb_iter_key(it, &kl);
		if (kl < plen || memcmp(k, prefix, plen) != 0) {
			break;
		}
		if (kl != key_len) {
			*bad = 1;
			break;
		}
		memcpy(buf + (size_t)n * key_len, k, key_len);
		n++;
		rocksdb_iter_next(it);
	}
	return n;
}
*/
import "C"

import (
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// keyScanner reads the keys under a prefix many to a cgo call.
//
// An edge scan that needs only keys (no row: out-edges without a filter,
// TTL or edge properties, which is every step of a GO before its last and
// the last one of `YIELD dst(edge)`) used to cost four cgo calls per edge
// through grocksdb (Valid, Key twice through ValidForPrefix, Next): 54 % of
// storaged's CPU in a GO 3 STEPS profile was runtime.cgocall (issue 22).
// nova_scan_keys walks the iterator in C and copies the keys into a
// Go-owned buffer, one call per scanBatchKeys keys.
//
// grocksdb keeps the C iterator in its Iterator's one unexported field and
// offers no batched read; the pointer is read from there, as the importer
// does for the SST writer. go.mod pins grocksdb (v1.7.15, the one that
// builds against Debian's RocksDB); TestKeyScannerMatchesIterator fails if
// that layout changes.
type keyScanner struct {
	it  *grocksdb.Iterator
	c   *C.rocksdb_iterator_t
	buf []byte
}

// scanBatchKeys is how many keys one call copies at most: 1,024 edge keys
// of INT64 vids are 37 KiB, which stays in the core's cache.
const scanBatchKeys = 1024

func newKeyScanner(it *grocksdb.Iterator) *keyScanner {
	return &keyScanner{it: it, c: *(**C.rocksdb_iterator_t)(unsafe.Pointer(it))}
}

// next returns up to max keys (at most scanBatchKeys) that start with
// prefix, keyLen bytes each, back to back in one slice that the next call
// reuses: from the first such key when seek is set, else from where the
// last call stopped. bad reports that it stopped at a key of the prefix
// with another length; the iterator is on that key.
func (s *keyScanner) next(prefix []byte, seek bool, keyLen, max int) (keys []byte, n int, bad bool) {
	max = min(max, scanBatchKeys)
	if need := keyLen * max; cap(s.buf) < need {
		s.buf = make([]byte, need)
	}
	if max <= 0 || keyLen == 0 {
		return nil, 0, false
	}
	var cBad C.int
	doSeek := C.int(0)
	if seek {
		doSeek = 1
	}
	got := int(C.nova_scan_keys(s.c, (*C.char)(unsafe.Pointer(&prefix[0])), C.size_t(len(prefix)), doSeek,
		C.size_t(keyLen), (*C.char)(unsafe.Pointer(&s.buf[0])), C.int(max), &cBad))
	return s.buf[:got*keyLen], got, cBad != 0
}
