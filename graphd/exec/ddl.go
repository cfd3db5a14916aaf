package exec

import (
	"context"
	"fmt"
	"sort"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// schemaVersions finds a tag or edge type's schema versions by name.
func schemaVersions(snap *catalog.Snapshot, space *metapb.SpaceDesc, kind ast.SchemaKind, name string) ([]*metapb.Schema, int32, bool) {
	if kind == ast.EdgeSchema {
		e, ok := snap.EdgeByName(space.GetSpaceId(), name)
		return e.GetVersions(), e.GetEdgeType(), ok
	}
	t, ok := snap.TagByName(space.GetSpaceId(), name)
	return t.GetVersions(), t.GetTagId(), ok
}

func kindWord(kind ast.SchemaKind) string {
	if kind == ast.EdgeSchema {
		return "edge"
	}
	return "tag"
}

// alterSchema runs ALTER TAG | EDGE name ADD (...), DROP (...), CHANGE (...)
// [TTL_DURATION = n, TTL_COL = "c"]. A TTL option left out keeps its value
// from the latest schema version.
func (r *runState) alterSchema(ctx context.Context, s *ast.AlterSchemaStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	versions, _, ok := schemaVersions(snap, space, s.Kind, s.Name)
	if !ok {
		return at(s, "%s %q not found in space %q", kindWord(s.Kind), s.Name, space.GetName())
	}
	req := &metapb.AlterSchemaReq{SpaceId: space.GetSpaceId(), Name: s.Name, IsEdge: s.Kind == ast.EdgeSchema}
	if s.TTL != nil && s.TTL.HasComment {
		req.SetComment, req.Comment = true, s.TTL.Comment
	}
	for _, op := range s.Ops {
		out := &metapb.AlterSchemaOp{}
		switch op.Kind {
		case ast.AlterAdd:
			out.Kind = metapb.AlterSchemaOp_ADD
		case ast.AlterDrop:
			out.Kind = metapb.AlterSchemaOp_DROP
			out.Names = op.Names
		case ast.AlterChange:
			out.Kind = metapb.AlterSchemaOp_CHANGE
		default:
			return at(op, "unsupported ALTER operation %s", op.Kind)
		}
		for _, p := range op.Props {
			col, err := columnDef(p)
			if err != nil {
				return err
			}
			out.Columns = append(out.Columns, col)
		}
		req.Ops = append(req.Ops, out)
	}
	if s.TTL != nil && (s.TTL.HasCol || s.TTL.HasDuration) {
		latest := versions[len(versions)-1]
		req.SetTtl = true
		req.TtlCol, req.TtlDuration = latest.GetTtlCol(), latest.GetTtlDuration()
		if s.TTL.HasCol {
			req.TtlCol = s.TTL.Col
		}
		if s.TTL.HasDuration {
			req.TtlDuration = s.TTL.Duration
		}
	}
	if _, err := r.x.meta.AlterSchema(ctx, req); err != nil {
		return metaError(fmt.Sprintf("ALTER %s %s", s.Kind, s.Name), err)
	}
	return nil
}

func (r *runState) dropSchema(ctx context.Context, s *ast.DropSchemaStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	req := &metapb.DropSchemaReq{SpaceId: space.GetSpaceId(), Name: s.Name, IsEdge: s.Kind == ast.EdgeSchema, IfExists: s.IfExists}
	if _, err := r.x.meta.DropSchema(ctx, req); err != nil {
		return metaError(fmt.Sprintf("DROP %s %s", s.Kind, s.Name), err)
	}
	return nil
}

func (r *runState) createIndex(ctx context.Context, s *ast.CreateIndexStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	req := &metapb.CreateIndexReq{
		SpaceId: space.GetSpaceId(), Name: s.Name, IsEdge: s.Kind == ast.EdgeSchema,
		SchemaName: s.Schema, IfNotExists: s.IfNotExists,
	}
	for _, f := range s.Fields {
		req.Fields = append(req.Fields, &metapb.IndexField{Name: f.Prop, PrefixLen: int32(f.Len)})
	}
	if _, _, err := r.x.meta.CreateIndex(ctx, req); err != nil {
		return metaError(fmt.Sprintf("CREATE %s INDEX %s", s.Kind, s.Name), err)
	}
	return nil
}

func (r *runState) dropIndex(ctx context.Context, s *ast.DropIndexStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	req := &metapb.DropIndexReq{SpaceId: space.GetSpaceId(), Name: s.Name, IsEdge: s.Kind == ast.EdgeSchema, IfExists: s.IfExists}
	if _, err := r.x.meta.DropIndex(ctx, req); err != nil {
		return metaError(fmt.Sprintf("DROP %s INDEX %s", s.Kind, s.Name), err)
	}
	return nil
}

// indexOfKind finds a tag index (or, isEdge, an edge index) by name.
func indexOfKind(snap *catalog.Snapshot, space *metapb.SpaceDesc, name string, isEdge bool, n ast.Node) (*metapb.IndexDesc, error) {
	kind := "tag"
	if isEdge {
		kind = "edge"
	}
	d, ok := snap.IndexByName(space.GetSpaceId(), name)
	if !ok || d.GetIsEdge() != isEdge {
		return nil, at(n, "%s index %q not found in space %q", kind, name, space.GetName())
	}
	return d, nil
}

// rebuildIndex runs REBUILD TAG | EDGE INDEX [name, ...] (all indexes of
// that kind when none is named) and returns once every partition rebuilt
// each of them.
func (r *runState) rebuildIndex(ctx context.Context, s *ast.RebuildIndexStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	isEdge := s.Kind == ast.EdgeSchema
	var todo []*metapb.IndexDesc
	if s.Names == nil {
		for _, d := range snap.Indexes(space.GetSpaceId()) {
			if d.GetIsEdge() == isEdge {
				todo = append(todo, d)
			}
		}
	} else {
		seen := map[int32]bool{}
		for _, name := range s.Names {
			d, err := indexOfKind(snap, space, name, isEdge, s)
			if err != nil {
				return err
			}
			if !seen[d.GetIndexId()] {
				seen[d.GetIndexId()] = true
				todo = append(todo, d)
			}
		}
	}
	for _, d := range todo {
		if err := r.x.storage.RebuildIndex(ctx, space.GetSpaceId(), d.GetIndexId(), snap.Version()); err != nil {
			return storageError(fmt.Sprintf("REBUILD %s INDEX %s", s.Kind, d.GetName()), err)
		}
	}
	return nil
}

// indexSchemaName is the name of the tag or edge type an index is on.
func indexSchemaName(snap *catalog.Snapshot, d *metapb.IndexDesc) string {
	if d.GetIsEdge() {
		if e, ok := snap.EdgeByType(d.GetSpaceId(), d.GetSchemaId()); ok {
			return e.GetName()
		}
	} else if t, ok := snap.TagByID(d.GetSpaceId(), d.GetSchemaId()); ok {
		return t.GetName()
	}
	return fmt.Sprintf("#%d", d.GetSchemaId())
}

// showIndexes is SHOW TAG | EDGE INDEXES, by index name, as NebulaGraph
// prints it: "Index Name", "By Tag" | "By Edge", "Columns".
func showIndexes(snap *catalog.Snapshot, space *metapb.SpaceDesc, isEdge bool) *table {
	by := "By Tag"
	if isEdge {
		by = "By Edge"
	}
	t := newTable("Index Name", by, "Columns")
	var list []*metapb.IndexDesc
	for _, d := range snap.Indexes(space.GetSpaceId()) {
		if d.GetIsEdge() == isEdge {
			list = append(list, d)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].GetName() < list[j].GetName() })
	for _, d := range list {
		cols := make([]value.Value, len(d.GetFields()))
		for i, f := range d.GetFields() {
			cols[i] = value.Str(f.GetName())
		}
		t.add(value.Str(d.GetName()), value.Str(indexSchemaName(snap, d)), value.List(cols...))
	}
	return t
}

// describeIndex is DESCRIBE TAG | EDGE INDEX name: each indexed field and
// its type as the index stores it (a string field as fixed_string(prefix)).
func describeIndex(snap *catalog.Snapshot, space *metapb.SpaceDesc, s *ast.DescribeStmt, isEdge bool) (*table, error) {
	d, err := indexOfKind(snap, space, s.Name, isEdge, s)
	if err != nil {
		return nil, err
	}
	var versions []*metapb.Schema
	if isEdge {
		e, _ := snap.EdgeByType(space.GetSpaceId(), d.GetSchemaId())
		versions = e.GetVersions()
	} else {
		tg, _ := snap.TagByID(space.GetSpaceId(), d.GetSchemaId())
		versions = tg.GetVersions()
	}
	var cols []*metapb.ColumnDef
	if len(versions) > 0 {
		cols = versions[len(versions)-1].GetColumns()
	}
	t := newTable("Field", "Type")
	for _, f := range d.GetFields() {
		typ := "unknown"
		for _, c := range cols {
			if c.GetName() != f.GetName() {
				continue
			}
			typ = schema.TypeName(c)
			if (c.GetType() == metapb.PropType_STRING || c.GetType() == metapb.PropType_FIXED_STRING) && f.GetPrefixLen() > 0 {
				typ = fmt.Sprintf("fixed_string(%d)", f.GetPrefixLen())
			}
		}
		t.add(value.Str(f.GetName()), value.Str(typ))
	}
	return t, nil
}
