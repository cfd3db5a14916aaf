package client

import (
	"crypto/sha256"
	"hash"

	"github.com/cespare/xxhash/v2"
)

// The content checksum of an SST file staged for ingest (SSTFile.checksum,
// SSTChunk.checksum): XXH64 of the whole file, 8 bytes big-endian. It is
// defined here, where the uploader computes it, and used by every store
// that receives, serves or verifies a staged file (storaged/sstsum.go,
// which says why it is XXH64 and how older SHA-256 checksums are kept).

// SSTChecksumLen is the length of a current (XXH64) checksum.
const SSTChecksumLen = 8

// NewSSTHash returns the hash that computes checksums like want: SHA-256
// for a 32-byte one (written by importers before XXH64, still in raft logs
// and resume manifests), XXH64 for any other, including none.
func NewSSTHash(want []byte) hash.Hash {
	if len(want) == sha256.Size {
		return sha256.New()
	}
	return xxhash.New()
}
