package importer

/*
#cgo LDFLAGS: -lrocksdb
#include <stdint.h>
#include <stdlib.h>
#include "rocksdb/c.h"

// nova_sst_put_batch puts n pairs into w: pair i is lens[2i] bytes of key
// and lens[2i+1] bytes of value, the pairs back to back in buf. It stops
// at the first error (left in *err) and returns how many pairs it put.
static int nova_sst_put_batch(rocksdb_sstfilewriter_t* w, const char* buf,
                              const uint32_t* lens, int n, char** err) {
	for (int i = 0; i < n; i++) {
		size_t kl = lens[2 * i], vl = lens[2 * i + 1];
		rocksdb_sstfilewriter_put(w, buf, kl, buf + kl, vl, err);
		if (*err != NULL) {
			return i;
		}
		buf += kl + vl;
	}
	return n;
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// sstBatch gathers the pairs of an SST file and hands them to RocksDB's
// SstFileWriter many to a call. One cgo call per pair (grocksdb's Put)
// cost 3.5 % of an SST import's CPU in the Go runtime's transitions
// alone: an SF10 import puts ten million pairs.
type sstBatch struct {
	w    *C.rocksdb_sstfilewriter_t
	buf  []byte
	lens []uint32
}

// sstBatchBytes is how much a batch holds before it is put: large enough
// that the call costs nothing per pair, small enough to stay in cache.
const sstBatchBytes = 64 << 10

// newSSTBatch returns the batch of w.
//
// grocksdb keeps the C writer in its SSTFileWriter's one unexported
// field, and offers no call that takes many pairs; the pointer is read
// from there. go.mod pins grocksdb (v1.7.15, the one that builds against
// Debian's RocksDB); TestSSTBatchMatchesPut fails if that layout changes.
func newSSTBatch(w *grocksdb.SSTFileWriter) *sstBatch {
	return &sstBatch{w: *(**C.rocksdb_sstfilewriter_t)(unsafe.Pointer(w))}
}

// put adds a pair; key and val are copied. It returns what flush does
// when the batch is full.
func (b *sstBatch) put(key, val []byte) error {
	b.buf = append(append(b.buf, key...), val...)
	b.lens = append(b.lens, uint32(len(key)), uint32(len(val)))
	if len(b.buf) >= sstBatchBytes {
		return b.flush()
	}
	return nil
}

// flush puts the pairs held, in order. On an error, those after the
// failing pair are dropped with it: the file is unusable then anyway.
func (b *sstBatch) flush() error {
	n := len(b.lens) / 2
	if n == 0 {
		return nil
	}
	var cErr *C.char
	C.nova_sst_put_batch(b.w, (*C.char)(unsafe.Pointer(&b.buf[0])), (*C.uint32_t)(unsafe.Pointer(&b.lens[0])), C.int(n), &cErr)
	b.buf, b.lens = b.buf[:0], b.lens[:0]
	if cErr != nil {
		msg := C.GoString(cErr)
		C.rocksdb_free(unsafe.Pointer(cErr))
		return errors.New(msg)
	}
	return nil
}
