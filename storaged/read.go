package storaged

import (
	"context"
	"fmt"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// neighborScan runs GetNeighbors on one partition: rowread.Neighbors
// answers it from what the scan reads.
type neighborScan struct {
	nb     *rowread.Neighbors
	req    *storagepb.GetNeighborsReq
	part   int32
	vidLen int
	db     *grocksdb.DB
	// ro and it are made on first use (readOptions, iterator): a request
	// the adjacency cache answers makes no cgo call for them, where
	// creating an iterator alone pins a RocksDB superversion and merges
	// every level (a GO 1 STEP is one vertex of one partition).
	ro      *grocksdb.ReadOptions
	it      *grocksdb.Iterator
	keys    *keyScanner // it, read many keys to a cgo call; made on first use
	adj     *adjacency  // the partition's edges and tags in memory; nil: none current
	tailLen int         // partition.EdgeTailLen(vidLen)
}

// scanNeighbors runs GetNeighbors on one partition and hands each vertex's
// answer to emit as soon as it is complete, in the order of the request's
// vids, so that the partition's answer is never held whole (emit sends it
// on in batches: neighborStream). A vertex is the unit: its edges are
// collected whole, in storage order, before it is emitted.
//
// What can fail for every vertex alike (a vid of another partition, an
// unknown edge type) is checked before the first vertex is emitted, so
// that such a failure is reported as a failed partition with nothing of it
// sent; what remains to fail midway (RocksDB, a malformed row, the filter
// on one edge) is rare and handled by neighborStream.runPart.
//
// adj, when not nil, holds the partition's edges and tag rows as of now:
// they are read there instead of from RocksDB (adjacency.go).
func scanNeighbors(ctx context.Context, db *grocksdb.DB, adj *adjacency, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.GetNeighborsReq,
	emit func(*storagepb.VertexNeighbors) error) error {
	vids := req.Parts[part].GetVids()
	nb, err := rowread.NewNeighbors(snap, space, part, req, vids, time.Now().Unix(), uint64(time.Now().UnixNano()))
	if err != nil || len(vids) == 0 {
		return err
	}
	ns := &neighborScan{nb: nb, req: req, part: part, vidLen: int(space.GetVidLen()), db: db, adj: adj,
		tailLen: partition.EdgeTailLen(int(space.GetVidLen()))}
	defer ns.close()
	for _, vid := range vids {
		if err := ctx.Err(); err != nil {
			return err
		}
		vn, err := nb.Vertex(vid, ns.get,
			func(et int32) (int64, error) { return ns.degree(vid, et) },
			func(et int32) error { return ns.edges(vid, et) })
		if err != nil {
			return err
		}
		if err := emit(vn); err != nil {
			return err
		}
	}
	return nil
}

// readOptions are the scan's read options, made on first use.
func (ns *neighborScan) readOptions() *grocksdb.ReadOptions {
	if ns.ro == nil {
		ns.ro = grocksdb.NewDefaultReadOptions()
		rocksopts.SetEdgeScan(ns.ro, partition.EdgePrefixLen(ns.vidLen)) // it only reads one EdgePrefix per Seek
	}
	return ns.ro
}

// iterator is the scan's iterator, made on first use.
func (ns *neighborScan) iterator() *grocksdb.Iterator {
	if ns.it == nil {
		ns.it = ns.db.NewIterator(ns.readOptions())
	}
	return ns.it
}

// close frees what readOptions and iterator made, the iterator first.
func (ns *neighborScan) close() {
	if ns.it != nil {
		ns.it.Close()
	}
	if ns.ro != nil {
		ns.ro.Destroy()
	}
}

func (ns *neighborScan) get(key []byte) ([]byte, error) {
	if ns.adj != nil {
		if row, ok := ns.adj.tagRow(key); ok {
			return row, nil
		}
	}
	return ns.db.GetBytes(ns.readOptions(), key)
}

// degree reads the stored degree of vid for a signed edge type.
func (ns *neighborScan) degree(vid []byte, et int32) (int64, error) {
	d, err := ns.db.GetBytes(ns.readOptions(), partition.DegreeKey(ns.req.SpaceId, ns.part, vid, et))
	if err != nil {
		return 0, fmt.Errorf("reading degree of %x: %w", vid, err)
	}
	n, err := partition.DecodeDegree(d)
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}

// edges scans one vertex's edges of one type into ns.nb, which applies TTL
// and tombstones, the filter, the limit or sample, dedup and the shape.
func (ns *neighborScan) edges(vid []byte, et int32) error {
	nb := ns.nb
	prefix := partition.EdgePrefix(ns.req.SpaceId, ns.part, vid, et)
	if adj := ns.adj; adj != nil {
		// The same edges, in the same order, from memory.
		span := adj.span(prefix[partition.KeyPrefixLen:])
		nb.Expect(int(span.to - span.from))
		tails := adj.tails[int(span.from)*ns.tailLen : int(span.to)*ns.tailLen]
		if nb.NeedRow() {
			// Edge properties from columns decoded once for the
			// partition, when the request lets the edges be taken whole.
			if nb.AddColumnSpan(tails, int(span.from), adj.edgeColumn) {
				return nil
			}
			for i := span.from; i < span.to && !nb.Full(); i++ {
				if err := nb.AddTailRow(adj.tail(i), adj.row(i)); err != nil {
					return err
				}
			}
			return nil
		}
		tailLen := ns.tailLen
		for off := 0; off < len(tails) && !nb.Full(); off += tailLen {
			if err := nb.AddTail(tails[off : off+tailLen : off+tailLen]); err != nil {
				return err
			}
		}
		return nil
	}
	it := ns.iterator()
	if !nb.NeedRow() {
		// Keys only: read them in batches in C (keyscan.go); the limit
		// bounds each batch so that no more keys are read than it can
		// keep.
		if ns.keys == nil {
			ns.keys = newKeyScanner(it)
		}
		keyLen := partition.EdgeKeyLen(ns.vidLen)
		for seek := true; ; seek = false {
			want := nb.Want(scanBatchKeys)
			keys, n, bad := ns.keys.next(prefix, seek, keyLen, want)
			for i := 0; i < n; i++ {
				if err := nb.AddKey(keys[i*keyLen : (i+1)*keyLen : (i+1)*keyLen]); err != nil {
					return err
				}
			}
			if bad {
				return nb.MalformedKey(it.Key().Data())
			}
			if n < want || nb.Full() {
				break
			}
		}
	} else {
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if nb.Full() {
				break
			}
			if err := nb.AddEdge(it.Key().Data(), it.Value().Data()); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("scanning edges of %x: %w", vid, err)
	}
	return nil
}

// getProps answers GetProps on one partition (rowread.Reader.GetProps),
// reading tag rows from adj when it is not nil (adjacency.go).
func getProps(db *grocksdb.DB, adj *adjacency, r *rowread.Reader, space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq) ([]*storagepb.PropRow, *storagepb.PropColumns, error) {
	var ro *grocksdb.ReadOptions // made on the first read the adjacency cache does not answer
	defer func() {
		if ro != nil {
			ro.Destroy()
		}
	}()
	get := func(key []byte) ([]byte, error) {
		if adj != nil {
			if row, ok := adj.tagRow(key); ok {
				return row, nil
			}
		}
		if ro == nil {
			ro = grocksdb.NewDefaultReadOptions()
		}
		return db.GetBytes(ro, key)
	}
	if req.Columns {
		var tc rowread.TagColumns
		if adj != nil {
			tc = adj
		}
		block, err := r.GetPropColumns(get, tc, space, part, req, req.VertexParts[part].GetVids())
		return nil, block, err
	}
	rows, err := r.GetProps(get, space, part, req, req.VertexParts[part].GetVids(), req.EdgeParts[part].GetKeys())
	return rows, nil, err
}
