package storaged

import (
	"bytes"
	"errors"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/raftgroup"
)

func TestCommandRoundTrip(t *testing.T) {
	cases := [][]writeOp{
		nil,
		{{kind: opPut, key: []byte("k"), value: []byte("v")}},
		{{kind: opPut, key: []byte("k1"), value: nil}, {kind: opDelete, key: []byte("k2")}, {kind: opPut, key: bytes.Repeat([]byte{0xff}, 300), value: bytes.Repeat([]byte{1}, 70000)}},
	}
	for i, ops := range cases {
		got, err := decodeCommand(encodeCommand(ops))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(got) != len(ops) {
			t.Fatalf("case %d: %d ops, want %d", i, len(got), len(ops))
		}
		for j := range ops {
			if got[j].kind != ops[j].kind || !bytes.Equal(got[j].key, ops[j].key) || !bytes.Equal(got[j].value, ops[j].value) {
				t.Fatalf("case %d op %d: got %+v, want %+v", i, j, got[j], ops[j])
			}
		}
	}
}

func TestCommandRejectsCorruption(t *testing.T) {
	good := encodeCommand([]writeOp{{kind: opPut, key: []byte("key"), value: []byte("value")}})
	for cut := 0; cut < len(good); cut++ {
		if _, err := decodeCommand(good[:cut]); !errors.Is(err, errCorruptCommand) {
			t.Fatalf("truncated to %d bytes: err %v, want errCorruptCommand", cut, err)
		}
	}
	bad := append([]byte(nil), good...)
	bad[2] = 9 // unknown operation
	if _, err := decodeCommand(bad); !errors.Is(err, errCorruptCommand) {
		t.Fatalf("unknown op: %v", err)
	}
	if _, err := decodeCommand(append(append([]byte(nil), good...), 0)); !errors.Is(err, errCorruptCommand) {
		t.Fatalf("trailing byte: %v", err)
	}
}

// The applier must refuse, on every replica alike, a command touching keys
// outside its partition's data range (raft state, or another partition).
func TestApplierConfinesKeysToPartition(t *testing.T) {
	g := raftgroup.GroupID{Space: 1, Part: 2}
	vid := partition.EncodeInt64Vid(7)
	cases := []struct {
		name string
		key  []byte
		ok   bool
	}{
		{"own tag key", partition.TagKey(1, 2, vid, 3), true},
		{"own edge key", partition.EdgeKey(1, 2, vid, 4, 0, vid), true},
		{"other partition", partition.TagKey(1, 3, vid, 3), false},
		{"other space", partition.TagKey(2, 2, vid, 3), false},
		{"raft state", partition.RaftHardStateKey(1, 2), false},
		{"raft log", partition.RaftLogKey(1, 2, 9), false},
		{"bare prefix", partition.PartPrefix(1, 2), false},
	}
	for _, c := range cases {
		wb := grocksdb.NewWriteBatch()
		err := applier{}.Apply(wb, g, 10, encodeCommand([]writeOp{{kind: opPut, key: c.key, value: []byte("v")}}))
		n := wb.Count()
		wb.Destroy()
		if (err == nil) != c.ok {
			t.Fatalf("%s: err = %v, want ok=%v", c.name, err, c.ok)
		}
		if !c.ok && n != 0 {
			t.Fatalf("%s: rejected command still wrote %d operations", c.name, n)
		}
	}
}

func FuzzDecodeCommand(f *testing.F) {
	f.Add(encodeCommand([]writeOp{{kind: opPut, key: []byte("k"), value: []byte("v")}, {kind: opDelete, key: []byte("d")}}))
	f.Add([]byte{commandVersion, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := decodeCommand(b)
		if err != nil {
			if !errors.Is(err, errCorruptCommand) {
				t.Fatalf("error %v does not wrap errCorruptCommand", err)
			}
			return
		}
		if re := encodeCommand(ops); !bytes.Equal(re, b) {
			t.Fatalf("decoded command re-encodes differently:\n in  %x\n out %x", b, re)
		}
	})
}
