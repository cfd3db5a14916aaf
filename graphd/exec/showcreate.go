package exec

import (
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// showCreate runs SHOW CREATE SPACE | TAG | EDGE | TAG INDEX | EDGE INDEX:
// one row, the object's name and the nGQL that creates it as it is now,
// in NebulaGraph's layout (columns "Space"/"Create Space", "Tag"/"Create
// Tag", ...). The text parses back to the same object.
func (r *runState) showCreate(s *ast.DescribeStmt) (*table, error) {
	snap := r.x.meta.Catalog()
	if s.Target == ast.DescribeSpace {
		space, ok := snap.SpaceByName(s.Name)
		if !ok {
			return nil, at(s, "space %q not found", s.Name)
		}
		t := newTable("Space", "Create Space")
		t.add(value.Str(space.GetName()), value.Str(fmt.Sprintf("CREATE SPACE %s (partition_num = %d, replica_factor = %d, vid_type = %s)",
			ast.QuoteName(space.GetName()), space.GetPartitionNum(), space.GetReplicaFactor(), vidTypeString(space))))
		return t, nil
	}
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	switch s.Target {
	case ast.DescribeTag, ast.DescribeEdge:
		kind, col := "TAG", "Tag"
		if s.Target == ast.DescribeEdge {
			kind, col = "EDGE", "Edge"
		}
		versions, err := describedSchema(snap, space, s)
		if err != nil {
			return nil, err
		}
		t := newTable(col, "Create "+col)
		t.add(value.Str(s.Name), value.Str(createSchemaText(kind, s.Name, versions[len(versions)-1])))
		return t, nil
	case ast.DescribeTagIndex, ast.DescribeEdgeIndex:
		isEdge := s.Target == ast.DescribeEdgeIndex
		d, err := indexOfKind(snap, space, s.Name, isEdge, s)
		if err != nil {
			return nil, err
		}
		kind, col, on := "TAG", "Tag Index Name", ""
		if isEdge {
			kind, col = "EDGE", "Edge Index Name"
			e, _ := snap.EdgeByType(space.GetSpaceId(), d.GetSchemaId())
			on = e.GetName()
		} else {
			tg, _ := snap.TagByID(space.GetSpaceId(), d.GetSchemaId())
			on = tg.GetName()
		}
		fields := make([]string, len(d.GetFields()))
		for i, f := range d.GetFields() {
			fields[i] = ast.QuoteName(f.GetName())
			if f.GetPrefixLen() > 0 {
				fields[i] += fmt.Sprintf("(%d)", f.GetPrefixLen())
			}
		}
		t := newTable(col, map[bool]string{false: "Create Tag Index", true: "Create Edge Index"}[isEdge])
		t.add(value.Str(d.GetName()), value.Str(fmt.Sprintf("CREATE %s INDEX %s ON %s(%s)",
			kind, ast.QuoteName(d.GetName()), ast.QuoteName(on), strings.Join(fields, ", "))))
		return t, nil
	}
	return nil, at(s, "unsupported SHOW CREATE")
}

// createSchemaText is the CREATE TAG | EDGE statement of a schema version.
func createSchemaText(kind, name string, v *metapb.Schema) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE %s %s (\n", kind, ast.QuoteName(name))
	for i, c := range v.GetColumns() {
		fmt.Fprintf(&b, "  %s %s", ast.QuoteName(c.GetName()), schema.TypeName(c))
		if c.GetNullable() {
			b.WriteString(" NULL")
		} else {
			b.WriteString(" NOT NULL")
		}
		switch {
		case c.GetDefaultExpr() != "":
			b.WriteString(" DEFAULT " + c.GetDefaultExpr())
		case c.GetDefaultValue() != nil:
			b.WriteString(" DEFAULT " + value.FromProto(c.GetDefaultValue()).String())
		}
		if c.GetComment() != "" {
			b.WriteString(" COMMENT " + value.Str(c.GetComment()).String())
		}
		if i < len(v.GetColumns())-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, ") TTL_DURATION = %d, TTL_COL = %s", v.GetTtlDuration(), value.Str(v.GetTtlCol()))
	if v.GetComment() != "" {
		b.WriteString(", COMMENT = " + value.Str(v.GetComment()).String())
	}
	return b.String()
}
