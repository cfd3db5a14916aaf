package exec

import (
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/query/value"
)

// vertexTable numbers the vertices a MATCH reaches, so that binding
// columns hold an int32 per row. A hop adds one lookup per edge it
// follows, so the table is built for that: in an INT64 space a vertex is
// its int64 id (a map of int64s, no string made per vertex; its key is
// encoded only when storage or the fetched tags are asked about it); in a
// FIXED_STRING space it is its key, the id decoded on first read.
type vertexTable struct {
	intVids bool
	vids    vidCodec

	ints  []int64          // INT64 space: each vertex's id
	byInt map[int64]int32  // INT64 space: id → index
	keys  []string         // each vertex's key; in an INT64 space made on demand ("" until then)
	byKey map[string]int32 // FIXED_STRING space: key → index
	strs  []value.Value    // FIXED_STRING space: decoded ids, made on demand (NULL until then)
}

func newVertexTable(vids vidCodec) *vertexTable {
	t := &vertexTable{intVids: vids.isInt(), vids: vids}
	if t.intVids {
		t.byInt = map[int64]int32{}
	} else {
		t.byKey = map[string]int32{}
	}
	return t
}

// len is the number of vertices.
func (t *vertexTable) len() int { return len(t.keys) }

// reserve makes room for n more vertices.
func (t *vertexTable) reserve(n int) {
	if t.intVids {
		if len(t.byInt) < n/4 {
			grown := make(map[int64]int32, len(t.byInt)+n)
			for k, v := range t.byInt {
				grown[k] = v
			}
			t.byInt = grown
		}
		t.ints = growCap(t.ints, n)
	} else if len(t.byKey) < n/4 {
		grown := make(map[string]int32, len(t.byKey)+n)
		for k, v := range t.byKey {
			grown[k] = v
		}
		t.byKey = grown
	}
	t.keys = growCap(t.keys, n)
}

func growCap[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]T, len(s), len(s)+n)
	copy(out, s)
	return out
}

// add returns the index of the vertex with key, adding it.
func (t *vertexTable) add(key []byte) int32 {
	if t.intVids {
		id, err := partition.DecodeInt64Vid(key)
		if err != nil {
			id = 0 // checkNeighbors and the encoder let only 8-byte keys here
		}
		if i, ok := t.byInt[id]; ok {
			return i
		}
		i := int32(len(t.ints))
		t.ints = append(t.ints, id)
		t.keys = append(t.keys, "")
		t.byInt[id] = i
		return i
	}
	if i, ok := t.byKey[string(key)]; ok {
		return i
	}
	i := int32(len(t.keys))
	k := string(key)
	t.keys = append(t.keys, k)
	t.byKey[k] = i
	return i
}

// key is vertex i's key.
func (t *vertexTable) key(i int32) string {
	if t.keys[i] == "" && t.intVids {
		t.keys[i] = string(partition.EncodeInt64Vid(t.ints[i]))
	}
	return t.keys[i]
}

// id is vertex i's id.
func (t *vertexTable) id(i int32) value.Value {
	if t.intVids {
		return value.Int(t.ints[i])
	}
	if len(t.strs) <= int(i) {
		t.strs = append(t.strs, make([]value.Value, len(t.keys)-len(t.strs))...)
	}
	if t.strs[i].IsNull() {
		t.strs[i] = t.vids.decode([]byte(t.keys[i]))
	}
	return t.strs[i]
}
