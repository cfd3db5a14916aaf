package storaged

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// The content checksum of a staged SST file (SSTFile.checksum,
// SSTChunk.checksum): XXH64 of the whole file, 8 bytes big-endian.
//
// It guards against accidental damage (a truncated upload, a disk that
// returns other bytes, a staged name reused by a later upload), not
// against an adversary, who could as well write the raft log. It was
// SHA-256 until the SST import was profiled: each file was hashed twice
// by the importer (after writing, while uploading; now only the upload
// hashes it) and is hashed up to three times by each replica (receiving,
// at the leader before proposing, applying), and SHA-256 was 5 % of the
// whole machine's CPU during an SF10 import; XXH64 runs at memory speed.
//
// Checksums already written — ingest entries in raft logs, an importer's
// resume manifest — may be 32-byte SHA-256s. A checksum is therefore
// checked with the algorithm its length names (storageclient.NewSSTHash,
// beside the uploader that computes it), so a replica that replays an
// old entry verifies its file as before. Streams are always XXH64: a
// 32-byte checksum at the end of one comes from a peer of an older
// release, and the error says so.

// FileChecksum returns the checksum and the size of the file at path,
// computed as want was (storageclient.NewSSTHash; nil gives the current
// XXH64): how every replica compares its staged copy with the entry's.
func FileChecksum(path string, want []byte) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	h := storageclient.NewSSTHash(want)
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, 0, err
	}
	return h.Sum(nil), n, nil
}

// checkStreamSum compares the XXH64 a receiver computed over a whole
// stream with the checksum its sender put on the last chunk.
func checkStreamSum(got, sent []byte, size int64) error {
	switch {
	case bytes.Equal(got, sent):
		return nil
	case len(sent) == sha256.Size:
		return fmt.Errorf("the sender checksummed the %d bytes with SHA-256, as releases before XXH64 did: use a nova-importer and storaged of the same release", size)
	case len(sent) == 0:
		return fmt.Errorf("the last chunk carries no checksum, after %d bytes", size)
	}
	return fmt.Errorf("checksum mismatch after %d bytes (XXH64 %x, the sender's %x)", size, got, sent)
}
