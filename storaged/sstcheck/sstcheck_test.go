package sstcheck

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

const space, part = 3, 7

// op is one SstFileWriter call: a put, or a deletion or range deletion.
type op struct {
	kind       string // "put", "delete", "range", "merge"
	key, value []byte
}

func put(k []byte) op { return op{kind: "put", key: k, value: []byte("v")} }

func writeSST(t testing.TB, ops ...op) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.sst")
	env := grocksdb.NewDefaultEnvOptions()
	defer env.Destroy()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	w := grocksdb.NewSSTFileWriter(env, opts)
	defer w.Destroy()
	if err := w.Open(path); err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		var err error
		switch o.kind {
		case "put":
			err = w.Put(o.key, o.value)
		case "delete":
			err = w.Delete(o.key)
		case "range":
			err = w.DeleteRange(o.key, o.value)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	return path
}

func tagKey(v int64) []byte {
	return partition.TagKey(space, part, partition.EncodeInt64Vid(v), 1)
}

func kindKey(kind byte) []byte { return append(partition.KindPrefix(space, part, kind), 1, 2, 3) }

// TestCheck: files the importer writes pass both modes; each kind of file
// that could put or delete a key outside the partition's data is refused
// with an error naming it, in the modes that can see it.
func TestCheck(t *testing.T) {
	good := []op{put(tagKey(1)), put(tagKey(2)), put(kindKey(partition.KindEdge)), put(kindKey(partition.KindIndex)), put(kindKey(partition.KindDegree))}
	for _, tc := range []struct {
		name string
		ops  []op
		// want is a part of the error in each mode; "" passes.
		wantEnds, wantFull string
	}{
		{"the importer's kinds", good, "", ""},
		{"a raft log key last", append(good[:2:2], put(kindKey(partition.KindRaftLog))), "a raft key, kind 0x10", "a raft key, kind 0x10"},
		// Between two allowed ends: only the full read sees it.
		{"a system key in the middle", []op{put(tagKey(1)), put(kindKey(partition.KindSystem)), put(kindKey(partition.KindDegree))},
			"", "bookkeeping, kind 0x4"},
		{"another partition's key first", []op{put(partition.TagKey(space, part-1, partition.EncodeInt64Vid(1), 1)), put(tagKey(1))},
			"another partition's or space's key", "another partition's or space's key"},
		{"an intent key", []op{put(tagKey(1)), put(kindKey(partition.KindIntent))}, "bookkeeping, kind 0x5", "bookkeeping, kind 0x5"},
		{"a deletion", []op{put(tagKey(1)), {kind: "delete", key: tagKey(2)}}, "1 deletions", "1 deletions"},
		{"a range deletion of the raft state", []op{put(tagKey(1)), {kind: "range", key: partition.KindPrefix(space, part, partition.KindRaftLog), value: partition.KindPrefix(space, part+1, 0)}},
			"1 range deletions", "1 range deletions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSST(t, tc.ops...)
			for _, m := range []struct {
				mode Mode
				want string
			}{{Ends, tc.wantEnds}, {Full, tc.wantFull}} {
				res, err := Check(path, space, part, m.mode)
				switch {
				case m.want == "" && err != nil:
					t.Errorf("mode %d: %v, want it accepted", m.mode, err)
				case m.want != "" && (err == nil || !strings.Contains(err.Error(), m.want)):
					t.Errorf("mode %d: %v, want an error with %q", m.mode, err, m.want)
				}
				if m.want == "" && m.mode == Full && res.Keys != uint64(len(tc.ops)) {
					t.Errorf("full read %d keys of %d", res.Keys, len(tc.ops))
				}
			}
		})
	}
}

// TestCheckDamagedFiles: a file that is not an SST, or whose data was
// damaged, is refused; a damaged data block only by the full read, which
// verifies every block.
func TestCheckDamagedFiles(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk.sst")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not an SST file ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Ends, Full} {
		if _, err := Check(junk, space, part, mode); err == nil || !strings.Contains(err.Error(), "not a readable SST file") || errors.Is(err, ErrLocal) {
			t.Errorf("mode %d on junk: %v, want a refusal of the content", mode, err)
		}
		// A file that is not there is this machine's problem, not the
		// file's: a replica retries rather than refuse the entry.
		if _, err := Check(junk+".gone", space, part, mode); !errors.Is(err, ErrLocal) {
			t.Errorf("mode %d on a missing file: %v, want ErrLocal", mode, err)
		}
	}
	var ops []op
	for v := range int64(5000) {
		ops = append(ops, op{kind: "put", key: tagKey(v), value: []byte(strings.Repeat("x", 100))})
	}
	path := writeSST(t, ops...)
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	content[len(content)/3] ^= 0xff // inside a data block in the middle
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(path, space, part, Full); err == nil || !strings.Contains(err.Error(), "not a readable SST file") {
		t.Errorf("full read of a damaged file: %v, want it refused", err)
	}
}

// BenchmarkCheck: what reading an uploaded file costs, against the XXH64
// of its bytes every replica computes anyway (storaged.FileChecksum), on
// a file of 500,000 edge-sized keys.
//
//	go test -run - -bench Check -benchtime 10x ./storaged/sstcheck
func BenchmarkCheck(b *testing.B) {
	const n = 500_000
	ops := make([]op, 0, n)
	for v := range int64(n) {
		k := append(partition.KindPrefix(space, part, partition.KindEdge), partition.EncodeInt64Vid(v/10)...)
		ops = append(ops, op{kind: "put", key: append(k, partition.EncodeInt64Vid(v)...), value: []byte("\x00\x00\x00\x00\x00\x00\x00\x01")})
	}
	path := writeSST(b, ops...)
	fi, _ := os.Stat(path)
	b.Logf("%d keys, %d bytes", n, fi.Size())
	for _, m := range []struct {
		name string
		mode Mode
	}{{"full", Full}, {"ends", Ends}} {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			for b.Loop() {
				if _, err := Check(path, space, part, m.mode); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("xxh64", func(b *testing.B) {
		b.SetBytes(fi.Size())
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			h := xxhash.New()
			if _, err := io.Copy(h, f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
