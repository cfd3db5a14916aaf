package storaged

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/novagraph/novagraph/storaged/client"
)

// TestFileChecksumAlgorithms: a file is checksummed with XXH64 unless the
// checksum to compare with is a 32-byte SHA-256, which older importers put
// in ingest entries and manifests.
func TestFileChecksumAlgorithms(t *testing.T) {
	content := []byte(strings.Repeat("an SST file's bytes ", 1000))
	path := filepath.Join(t.TempDir(), "f.sst")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	xx := binary.BigEndian.AppendUint64(nil, xxhash.Sum64(content))
	sha := sha256.Sum256(content)
	for _, tc := range []struct {
		name string
		want []byte
		got  []byte
	}{
		{"no checksum yet", nil, xx},
		{"an XXH64", make([]byte, client.SSTChecksumLen), xx},
		{"a SHA-256", make([]byte, sha256.Size), sha[:]},
	} {
		sum, size, err := FileChecksum(path, tc.want)
		if err != nil {
			t.Fatal(err)
		}
		if string(sum) != string(tc.got) || size != int64(len(content)) {
			t.Errorf("%s: FileChecksum = %x, %d bytes; want %x, %d", tc.name, sum, size, tc.got, len(content))
		}
	}
	if _, _, err := FileChecksum(filepath.Join(t.TempDir(), "absent"), nil); err == nil {
		t.Error("FileChecksum of a missing file: no error")
	}
}

// TestCheckStreamSum: a stream's checksum is XXH64; the errors say what
// was wrong, and a SHA-256 one names the mismatch of releases.
func TestCheckStreamSum(t *testing.T) {
	got := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	for _, tc := range []struct {
		name string
		sent []byte
		want string // "" for no error
	}{
		{"equal", []byte{1, 2, 3, 4, 5, 6, 7, 8}, ""},
		{"other bytes", []byte{1, 2, 3, 4, 5, 6, 7, 9}, "checksum mismatch after 42 bytes"},
		{"SHA-256 from an older sender", make([]byte, 32), "SHA-256, as releases before XXH64 did"},
		{"none", nil, "carries no checksum"},
	} {
		err := checkStreamSum(got, tc.sent, 42)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
