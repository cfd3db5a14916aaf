package metad

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// This file holds the schema changes after creation (ALTER and DROP of tags
// and edge types) and the secondary indexes (CREATE and DROP INDEX). As in
// NebulaGraph, none of them touches stored data: a new schema version is
// used for rows written from then on, older rows keep the version they were
// written with, and the rows of a dropped tag or edge type become unreadable
// because nothing names their id any more (ids are never reused).

// isCode reports whether err is a statusError with code.
func isCode(err error, code commonpb.ErrorCode) bool {
	var se *statusError
	return errors.As(err, &se) && se.Code == code
}

// schemaNotFoundCode is the "not found" code of a tag or an edge type.
func schemaNotFoundCode(isEdge bool) commonpb.ErrorCode {
	if isEdge {
		return commonpb.ErrorCode_E_EDGE_NOT_FOUND
	}
	return commonpb.ErrorCode_E_TAG_NOT_FOUND
}

// readSpace reads the description of space id; E_SPACE_NOT_FOUND if there
// is none. Writing anything into a space must read it this way, so that a
// concurrent DropSpace makes the write retry (and fail) instead of leaving
// keys of a dropped space behind.
func readSpace(r *txnReader, id int32) (*metapb.SpaceDesc, error) {
	kv, err := r.get(spaceKey(id))
	if err != nil {
		return nil, err
	}
	if kv == nil {
		return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %d not found", id)
	}
	var space metapb.SpaceDesc
	if err := proto.Unmarshal(kv.Value, &space); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	return &space, nil
}

// storedSchema is a tag or an edge type as read in a transaction.
type storedSchema struct {
	ref      schemaRef
	name     string
	versions []*metapb.Schema // oldest first, never empty
}

func (x *storedSchema) String() string { return fmt.Sprintf("%s %q", x.ref.kind(), x.name) }

func (x *storedSchema) latest() *metapb.Schema { return x.versions[len(x.versions)-1] }

func (x *storedSchema) key(space int32) string {
	if x.ref.isEdge {
		return edgeKey(space, x.ref.id)
	}
	return tagKey(space, x.ref.id)
}

func (x *storedSchema) value(space int32) (string, error) {
	if x.ref.isEdge {
		return marshal(&metapb.EdgeDesc{SpaceId: space, EdgeType: x.ref.id, Name: x.name, Versions: x.versions})
	}
	return marshal(&metapb.TagDesc{SpaceId: space, TagId: x.ref.id, Name: x.name, Versions: x.versions})
}

// readSchema reads the tag (or, with isEdge, the edge type) called name;
// E_TAG_NOT_FOUND or E_EDGE_NOT_FOUND if the space has none, including when
// the name belongs to the other kind.
func readSchema(r *txnReader, space *metapb.SpaceDesc, name string, isEdge bool) (*storedSchema, error) {
	kind := schemaRef{isEdge: isEdge}.kind()
	nameKV, err := r.get(schemaNameKey(space.SpaceId, name))
	if err != nil {
		return nil, err
	}
	if nameKV == nil {
		return nil, errorf(schemaNotFoundCode(isEdge), "%s %q not found in space %q", kind, name, space.Name)
	}
	ref, err := parseSchemaRef(nameKV.Value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nameKV.Key, err)
	}
	if ref.isEdge != isEdge {
		return nil, errorf(schemaNotFoundCode(isEdge), "%s %q not found in space %q (the name is %s %d)", kind, name, space.Name, ref.kind(), ref.id)
	}
	x := &storedSchema{ref: ref, name: name}
	descKV, err := r.get(x.key(space.SpaceId))
	if err != nil {
		return nil, err
	}
	if descKV == nil {
		return nil, fmt.Errorf("%s names %s, which does not exist", nameKV.Key, ref)
	}
	if isEdge {
		var d metapb.EdgeDesc
		err = proto.Unmarshal(descKV.Value, &d)
		x.versions = d.Versions
	} else {
		var d metapb.TagDesc
		err = proto.Unmarshal(descKV.Value, &d)
		x.versions = d.Versions
	}
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", descKV.Key, err)
	}
	if len(x.versions) == 0 {
		return nil, fmt.Errorf("%s has no schema version", descKV.Key)
	}
	return x, nil
}

// readIndexes reads every index of the space. The commit then requires that
// no index was created or changed since; a concurrent DropIndex goes
// unnoticed, which only ever makes a check here stricter than needed.
func readIndexes(r *txnReader, space int32) ([]*metapb.IndexDesc, error) {
	kvs, err := r.list(indexesPrefix(space))
	if err != nil {
		return nil, err
	}
	out := make([]*metapb.IndexDesc, 0, len(kvs))
	for _, kv := range kvs {
		var d metapb.IndexDesc
		if err := proto.Unmarshal(kv.Value, &d); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
		}
		out = append(out, &d)
	}
	return out, nil
}

// indexesOn returns the indexes on one tag or edge type, by id.
func indexesOn(all []*metapb.IndexDesc, ref schemaRef) []*metapb.IndexDesc {
	var out []*metapb.IndexDesc
	for _, x := range all {
		if x.IsEdge == ref.isEdge && x.SchemaId == ref.id {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b *metapb.IndexDesc) int { return cmp.Compare(a.IndexId, b.IndexId) })
	return out
}

// readIndexByName reads the index called name, with its name key; nil (and
// a nil key) if there is none.
func readIndexByName(r *txnReader, space int32, name string) (*metapb.IndexDesc, *mvccpb.KeyValue, error) {
	nameKV, err := r.get(indexNameKey(space, name))
	if err != nil || nameKV == nil {
		return nil, nil, err
	}
	id, err := strconv.ParseInt(string(nameKV.Value), 10, 32)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: malformed index id %q", nameKV.Key, nameKV.Value)
	}
	kv, err := r.get(indexKey(space, int32(id)))
	if err != nil {
		return nil, nil, err
	}
	if kv == nil {
		return nil, nil, fmt.Errorf("%s names index %d, which does not exist", nameKV.Key, id)
	}
	var d metapb.IndexDesc
	if err := proto.Unmarshal(kv.Value, &d); err != nil {
		return nil, nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	return &d, nameKV, nil
}

func indexKind(isEdge bool) string {
	if isEdge {
		return "edge index"
	}
	return "tag index"
}

// alterSchema appends a schema version to a tag or edge type. Older
// versions stay as they are: rows written with them are still read with
// them.
func (s *Server) alterSchema(ctx context.Context, req *metapb.AlterSchemaReq) (int64, error) {
	kind := schemaRef{isEdge: req.GetIsEdge()}.kind()
	if err := ddlcheck.Name(kind, req.GetName()); err != nil {
		return 0, err
	}
	where := fmt.Sprintf("%s %q", kind, req.Name)
	if err := ddlcheck.AlterOps(where, req); err != nil {
		return 0, err
	}
	var id, schemaVersion int32
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		space, err := readSpace(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		sch, err := readSchema(r, space, req.Name, req.IsEdge)
		if err != nil {
			return nil, err
		}
		indexes, err := readIndexes(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		next, err := ddlcheck.Alter(where, sch.latest(), req, indexesOn(indexes, sch.ref))
		if err != nil {
			return nil, err
		}
		id, schemaVersion = sch.ref.id, next.Version
		sch.versions = append(sch.versions, next)
		val, err := sch.value(req.SpaceId)
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{clientv3.OpPut(sch.key(req.SpaceId), val)}, nil
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("schema altered", "kind", kind, "name", req.Name, "space_id", req.SpaceId, "id", id, "schema_version", schemaVersion, "version", rev)
	return rev, nil
}

// dropSchema removes a tag or edge type from the catalog. Its id is not
// reused (the id counter stays), so rows still stored under it are simply
// never read again.
func (s *Server) dropSchema(ctx context.Context, req *metapb.DropSchemaReq) (int64, error) {
	kind := schemaRef{isEdge: req.GetIsEdge()}.kind()
	if err := ddlcheck.Name(kind, req.GetName()); err != nil {
		return 0, err
	}
	var id int32
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		space, err := readSpace(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		sch, err := readSchema(r, space, req.Name, req.IsEdge)
		if err != nil {
			if req.IfExists && isCode(err, schemaNotFoundCode(req.IsEdge)) {
				return nil, nil
			}
			return nil, err
		}
		indexes, err := readIndexes(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		if err := ddlcheck.DropSchema(sch.String(), indexesOn(indexes, sch.ref)); err != nil {
			return nil, err
		}
		id = sch.ref.id
		return []clientv3.Op{
			clientv3.OpDelete(schemaNameKey(req.SpaceId, req.Name)),
			clientv3.OpDelete(sch.key(req.SpaceId)),
		}, nil
	})
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return s.cat.current().version(), nil
	}
	s.log.Info("schema dropped", "kind", kind, "name", req.Name, "space_id", req.SpaceId, "id", id, "version", rev)
	return rev, nil
}

// createIndex creates a secondary index on the latest schema version of a
// tag or edge type. Index names are unique in a space across tag and edge
// indexes; index ids come from their own per-space counter.
func (s *Server) createIndex(ctx context.Context, req *metapb.CreateIndexReq) (int32, int64, error) {
	kind := schemaRef{isEdge: req.GetIsEdge()}.kind()
	if err := ddlcheck.Name("index", req.GetName()); err != nil {
		return 0, 0, err
	}
	if err := ddlcheck.Name(kind, req.GetSchemaName()); err != nil {
		return 0, 0, err
	}
	var id int32
	var existingRev int64
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		id, existingRev = 0, 0
		space, err := readSpace(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		existing, nameKV, err := readIndexByName(r, req.SpaceId, req.Name)
		if err != nil {
			return nil, err
		}
		if existing != nil {
			if existing.IsEdge != req.IsEdge {
				return nil, errorf(commonpb.ErrorCode_E_EXISTED,
					"cannot create %s %q in space %q: the name is already used by %s %d, and index names are unique across tag and edge indexes",
					indexKind(req.IsEdge), req.Name, space.Name, indexKind(existing.IsEdge), existing.IndexId)
			}
			if !req.IfNotExists {
				return nil, errorf(commonpb.ErrorCode_E_EXISTED, "index %q already exists in space %q", req.Name, space.Name)
			}
			id, existingRev = existing.IndexId, nameKV.ModRevision
			return nil, nil
		}
		sch, err := readSchema(r, space, req.SchemaName, req.IsEdge)
		if err != nil {
			return nil, err
		}
		fields, err := ddlcheck.IndexFields(req.Name, sch.String(), sch.latest().Columns, req.Fields)
		if err != nil {
			return nil, err
		}
		indexes, err := readIndexes(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		if err := ddlcheck.NewIndex(sch.String(), indexesOn(indexes, sch.ref), fields); err != nil {
			return nil, err
		}
		next, counterOp, err := nextID(r, indexIDCounterKey(req.SpaceId), math.MaxInt32, "index")
		if err != nil {
			return nil, err
		}
		id = int32(next)
		val, err := marshal(&metapb.IndexDesc{
			SpaceId: req.SpaceId, IndexId: id, Name: req.Name, IsEdge: req.IsEdge, SchemaId: sch.ref.id, Fields: fields,
		})
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{
			counterOp,
			clientv3.OpPut(indexNameKey(req.SpaceId, req.Name), itoa(int64(id))),
			clientv3.OpPut(indexKey(req.SpaceId, id), val),
		}, nil
	})
	if err != nil {
		return 0, 0, err
	}
	if rev == 0 {
		rev = existingRev
		s.settle(ctx, rev)
	} else {
		s.log.Info("index created", "kind", kind, "name", req.Name, "on", req.SchemaName, "space_id", req.SpaceId, "index_id", id, "version", rev)
	}
	return id, rev, nil
}

// dropIndex removes an index from the catalog. As in NebulaGraph, naming an
// index of the other kind (DROP TAG INDEX on an edge index) is E_NOT_FOUND
// even with if_exists: the name exists, just not as what was asked for.
func (s *Server) dropIndex(ctx context.Context, req *metapb.DropIndexReq) (int64, error) {
	if err := ddlcheck.Name("index", req.GetName()); err != nil {
		return 0, err
	}
	var id int32
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		space, err := readSpace(r, req.SpaceId)
		if err != nil {
			return nil, err
		}
		existing, _, err := readIndexByName(r, req.SpaceId, req.Name)
		if err != nil {
			return nil, err
		}
		if existing == nil {
			if req.IfExists {
				return nil, nil
			}
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "%s %q not found in space %q", indexKind(req.IsEdge), req.Name, space.Name)
		}
		if existing.IsEdge != req.IsEdge {
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "%s %q not found in space %q (it is %s %d)",
				indexKind(req.IsEdge), req.Name, space.Name, indexKind(existing.IsEdge), existing.IndexId)
		}
		id = existing.IndexId
		return []clientv3.Op{
			clientv3.OpDelete(indexNameKey(req.SpaceId, req.Name)),
			clientv3.OpDelete(indexKey(req.SpaceId, id)),
		}, nil
	})
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return s.cat.current().version(), nil
	}
	s.log.Info("index dropped", "name", req.Name, "space_id", req.SpaceId, "index_id", id, "version", rev)
	return rev, nil
}
