// Package partition defines how novagraph lays graph data out on disk: which
// partition a vertex belongs to, the byte layout of every RocksDB key, and the
// schema-versioned encoding of property rows.
//
// It is the one place those formats are written down. Everything that touches
// storage (raftgroup, storaged, the storage client, the importer, the LDBC
// floor) builds and decodes keys and rows with its functions: no code outside
// it finds a field of a key by offset arithmetic of its own. What others may
// rely on is the 9-byte prefix (KeyPrefixLen, the kind byte last); past it,
// loops over edge keys use EdgePrefixLen, EdgeKeyLen and the unchecked
// edge-key accessors (see Unchecked accessors). It imports nothing else from
// this repository so that it can never grow a dependency cycle with them.
//
// # Vertex ids and partitions
//
// A graph space has a fixed partition count and a vid type: INT64 or
// FIXED_STRING(N). Partition ids start at 1:
//
//	INT64:           uint64(vid) % parts + 1
//	FIXED_STRING(N): xxhash64(vid, without padding) % parts + 1
//
// Both functions are part of the on-disk format: changing either moves every
// vertex to a different partition, so they are pinned by golden tests.
//
// In keys a vid is always exactly vidLen bytes (8 for INT64, N for
// FIXED_STRING(N)); see EncodeInt64Vid and EncodeStringVid. Because every vid
// of a space has the same length, keys need no length prefixes or separators.
//
// # Keys
//
// One RocksDB instance holds every space and partition placed on a data path.
// Every key starts with the same 9 bytes:
//
//	space(4, big-endian) | part(4, big-endian) | kind(1)
//
// so one partition is one contiguous key range, [PartPrefix, PrefixEnd(PartPrefix)),
// and snapshotting, moving or dropping it is a range operation. The kind byte
// splits the partition into data (KindTag, KindEdge, KindIndex, KindSystem:
// DataRange, what a snapshot streams) and Raft bookkeeping (KindRaftLog,
// KindRaftState: per replica, never in a snapshot). Signed integers inside keys
// are stored big-endian with the sign bit flipped, so that bytes.Compare on keys
// equals numeric order on the integers. The byte layout of each key is
// documented on the function that encodes it.
//
// # Property rows
//
// A tag's or edge type's properties are one value, encoded by EncodeRow. A row
// names the schema version it was written with, and keeps every fixed-width
// field at an offset computable from the schema alone, so RowReader decodes a
// single property without touching the others, and rows written before an
// ALTER are still read with the schema they were written with (ReadWithSchema
// maps them onto a newer one). The byte layout is documented in row.go.
//
// # Errors
//
// Decoders never panic on malformed input; they return an error that wraps
// ErrMalformedKey or ErrMalformedRow and says what was wrong. Encoders reject
// values the format cannot represent faithfully with an error wrapping
// ErrInvalidValue.
//
// # Unchecked accessors
//
// The exception is EdgeKeyType, EdgeKeyRank and EdgeKeyDst, which read one
// field of an edge key in place, with no error, for the loops that visit every
// edge of a vertex. Their precondition is that the key is an edge key of the
// space's vid length: len(key) == EdgeKeyLen(vidLen), vidLen > 0. The caller
// meets it by iterating an EdgePrefix (which fixes the kind and the prefix)
// and comparing each key's length with EdgeKeyLen once before reading any
// field, reporting a mismatch as ErrMalformedKey. On a key that ends before
// the field they read they panic; on a longer one they read the wrong bytes.
// Keys of unknown origin go through ParseEdgeKey or EdgeKeySource, which
// check.
package partition
