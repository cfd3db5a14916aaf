package rowread

import (
	"fmt"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// pushedFilter is a GetNeighbors or LookupIndex filter: an nGQL expression
// over edge properties and the source vertex's tag properties.
type pushedFilter struct {
	expr    ast.Expr
	srcTags []int32 // tags whose rows the filter reads
}

func parseFilter(snap *catalog.Snapshot, spaceID int32, text string) (*pushedFilter, error) {
	if text == "" {
		return nil, nil
	}
	e, err := parser.ParseExpr(text)
	if err != nil {
		return nil, Invalid("filter %q: %v", text, err)
	}
	if !eval.IsDeterministic(e) {
		return nil, Invalid("filter %q is not deterministic (rand(), now()...): graphd must evaluate it", text)
	}
	f := &pushedFilter{expr: e}
	props := eval.CollectProps(e)
	if len(props.Dst) > 0 || len(props.Input) > 0 || len(props.Var) > 0 || len(props.Param) > 0 {
		return nil, Invalid("filter %q reads $$, $-, variables or query parameters, which storage does not have", text)
	}
	for _, p := range props.Src {
		if p.Owner == eval.AnyTag {
			continue
		}
		t, ok := snap.TagByName(spaceID, p.Owner)
		if !ok {
			return nil, &Error{Code: commonpb.ErrorCode_E_TAG_NOT_FOUND, Msg: fmt.Sprintf("filter %q: tag %s not found", text, p.Owner)}
		}
		f.srcTags = append(f.srcTags, t.GetTagId())
	}
	for _, p := range props.Edge {
		if p.Owner == eval.AnyEdge {
			continue
		}
		if _, ok := snap.EdgeByName(spaceID, p.Owner); !ok {
			return nil, &Error{Code: commonpb.ErrorCode_E_EDGE_NOT_FOUND, Msg: fmt.Sprintf("filter %q: edge %s not found", text, p.Owner)}
		}
	}
	return f, nil
}

// filterRow is the eval.Context of a pushed filter for one edge (or one
// vertex, for a tag lookup).
type filterRow struct {
	r        *Reader
	space    *metapb.SpaceDesc
	vid      []byte     // the source vertex (the key's vertex)
	tags     VertexRows // the source vertex's rows the filter reads
	edgeType int32      // 0: no edge
	edgeName string
	rank     int64
	other    []byte
	row      []byte
	// edgeRow decodes row, once per edge (setEdge), however many of its
	// properties the filter reads.
	edgeRow    partition.RowReader
	edgeLoaded bool
}

// setEdge points the filter at the next edge.
func (f *filterRow) setEdge(rank int64, other, row []byte) {
	f.rank, f.other, f.row, f.edgeLoaded = rank, other, row, false
}

func (f *filterRow) EdgeProp(edge, prop string) (value.Value, error) {
	if f.edgeType == 0 {
		return value.Value{}, fmt.Errorf("edge property %s.%s is not available here", edge, prop)
	}
	if edge != eval.AnyEdge && edge != f.edgeName {
		return value.Null(), nil // a property of another edge type
	}
	// The reserved properties mean what graphd's GO gives them (so a WHERE
	// selects the same rows pushed down or not): src(edge), dst(edge) and
	// type(edge) are the stored edge's endpoints and its type's name;
	// edge._src, edge._dst and edge._type follow the traversal (the vertex
	// the step leaves from, the one it reaches, the signed type).
	if edge != eval.AnyEdge {
		switch prop {
		case eval.PropSrc:
			return vidValue(f.space, f.vid), nil
		case eval.PropDst:
			return vidValue(f.space, f.other), nil
		case eval.PropType:
			return value.Int(int64(f.edgeType)), nil
		}
	} else if prop == eval.PropType {
		return value.Str(f.edgeName), nil
	}
	if pv, ok := edgeKeyProp(prop, f.edgeType, f.rank, f.vid, f.other); ok {
		if prop == eval.PropSrc || prop == eval.PropDst {
			return vidValue(f.space, pv.GetStrVal()), nil
		}
		return value.FromProto(pv), nil
	}
	sv, err := f.r.Edge(f.edgeType)
	if err != nil {
		return value.Value{}, err
	}
	if !f.edgeLoaded {
		if err := f.edgeRow.ResetLayout(f.row, sv.Versions); err != nil {
			return value.Value{}, err
		}
		f.edgeLoaded = true
	}
	v, typ, err := getProp(&f.edgeRow, sv, prop)
	if err != nil {
		return value.Value{}, err
	}
	return goValue(v, typ)
}

func (f *filterRow) SrcProp(tag, prop string) (value.Value, error) {
	if tag == eval.AnyTag && prop == eval.PropVID {
		return vidValue(f.space, f.vid), nil
	}
	t, ok := f.r.snap.TagByName(f.r.spaceID, tag)
	if !ok {
		return value.Value{}, fmt.Errorf("tag %s not found", tag)
	}
	row, ok := f.tags[t.GetTagId()]
	if !ok {
		return value.Null(), nil
	}
	sv, err := f.r.Tag(t.GetTagId())
	if err != nil {
		return value.Value{}, err
	}
	pv, err := f.r.prop(row, sv, prop)
	if err != nil {
		return value.Value{}, err
	}
	return value.FromProto(pv), nil
}

func (f *filterRow) DstProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$$.%s.%s is not available in storage", tag, prop)
}

func (f *filterRow) InputProp(col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$-.%s is not available in storage", col)
}

func (f *filterRow) VarProp(variable, col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$%s.%s is not available in storage", variable, col)
}
