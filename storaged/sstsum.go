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
// XXH64), with the value of the file's global sequence number property
// hashed as zeros: how every replica compares its staged copy with the
// entry's.
//
// RocksDB writes the sequence number an ingest assigns into the ingested
// file in place, 8 bytes of its properties block (write_global_seqno,
// which RocksDB 7.8.3's C API cannot turn off), whenever the file's keys
// overlap data already there. A staged file is ingested through a hard
// link, so its staged name sees the write too: after such an ingest the
// staged copies of the replicas differ from the uploaded file, and from
// each other, in those 8 bytes alone. The importer's SstFileWriter leaves
// them zero, so the checksum of a fresh file is the XXH64 of its bytes.
func FileChecksum(path string, want []byte) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := fi.Size()
	seqno, err := globalSeqnoOffset(f, size)
	if err != nil {
		return nil, 0, fmt.Errorf("looking for the global sequence number of %s: %w", path, err)
	}
	h := storageclient.NewSSTHash(want)
	if seqno < 0 {
		if _, err := io.Copy(h, io.NewSectionReader(f, 0, size)); err != nil {
			return nil, 0, err
		}
		return h.Sum(nil), size, nil
	}
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, seqno)); err != nil {
		return nil, 0, err
	}
	h.Write(make([]byte, 8))
	if _, err := io.Copy(h, io.NewSectionReader(f, seqno+8, size-seqno-8)); err != nil {
		return nil, 0, err
	}
	return h.Sum(nil), size, nil
}

// globalSeqnoKey is the name of the property RocksDB writes in place. In
// a properties block an entry is its key's length shared with the key
// before it, the length of the rest, the value's length (varints, each
// one byte here), the rest of the key and the value: for this key, the
// rest of "rocksdb.external_sst_file.global_seqno" after what it shares
// with the property before it (usually "rocksdb."), then a fixed64.
const globalSeqnoKey = "rocksdb.external_sst_file.global_seqno"

// seqnoSearchTail is how much of a file's end is searched for the
// property: the properties block is the last block but the meta index
// before the footer, and an SstFileWriter's is well under a KiB.
const seqnoSearchTail = 64 << 10

// globalSeqnoOffset returns where the value of the global sequence number
// property starts in the file, or -1 if the file has none (not an SST
// written by an SstFileWriter). The last entry in the file's tail is the
// properties block's: a key or value in a data block that spelled such
// an entry out lies before it.
func globalSeqnoOffset(f io.ReaderAt, size int64) (int64, error) {
	start := max(0, size-seqnoSearchTail)
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil && err != io.EOF {
		return 0, err
	}
	found := -1
	for shared := range len(globalSeqnoKey) {
		entry := append([]byte{byte(shared), byte(len(globalSeqnoKey) - shared), 8}, globalSeqnoKey[shared:]...)
		if i := bytes.LastIndex(tail, entry); i >= 0 && i+len(entry)+8 <= len(tail) {
			found = max(found, i+len(entry))
		}
	}
	if found < 0 {
		return -1, nil
	}
	return start + int64(found), nil
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
