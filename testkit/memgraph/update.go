package memgraph

import (
	"fmt"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/temporal"
)

// update runs UPDATE / UPSERT of one vertex tag or one edge, as
// storaged's apply does (storaged/update.go): read the row, test WHEN,
// assign the SET items in order (each sees the ones before it), write the
// row with its indexes (and, for an edge, its in-edge), evaluate YIELD on
// the new row.
func (st *applyState) update(u *storagepb.UpdateReq) (*storagepb.UpdateResp, error) {
	rc := &rowContext{space: st.space, now: st.now}
	var key []byte
	var edgeKey *storagepb.EdgeKey
	if u.Edge != nil {
		edgeKey = u.Edge
		sv, err := st.r.edge(edgeKey.EdgeType)
		if err != nil {
			return nil, err
		}
		rc.sv, rc.isEdge, rc.edge = sv, true, edgeKey
		key = partition.EdgeKey(st.spaceID, st.part, edgeKey.Src, edgeKey.EdgeType, edgeKey.Rank, edgeKey.Dst)
	} else {
		sv, err := st.r.tag(u.TagId)
		if err != nil {
			return nil, err
		}
		rc.sv, rc.vid = sv, u.Vid
		key = partition.TagKey(st.spaceID, st.part, u.Vid, u.TagId)
	}
	latest := rc.sv.versions.Latest()

	old := st.data.get(key)
	if old != nil {
		var err error
		if rc.vals, err = decodeRow(rc.sv, old); err != nil {
			return nil, err
		}
		if rc.sv.expiredVals(rc.vals, st.now) {
			old, rc.vals = nil, nil
		}
	}
	if old == nil {
		if !u.Insertable {
			what := fmt.Sprintf("vertex %x has no tag %s", u.Vid, rc.sv.name)
			if rc.isEdge {
				what = fmt.Sprintf("edge %s %x->%x@%d does not exist", rc.sv.name, edgeKey.Src, edgeKey.Dst, edgeKey.Rank)
			}
			return nil, &partitionError{code: commonpb.ErrorCode_E_NOT_FOUND, msg: what}
		}
		// UPSERT of an absent row starts from the defaults, and ignores
		// WHEN (there is nothing to test it on), as NebulaGraph does.
		rc.vals = make([]any, len(latest.Columns))
		for i, c := range latest.Columns {
			rc.vals[i] = c.Default
			if c.DefaultExpr != "" {
				v, err := rc.evalDefault(c.DefaultExpr)
				if err != nil {
					return nil, invalid("%s.%s: default %s: %v", rc.sv.name, c.Name, c.DefaultExpr, err)
				}
				rc.vals[i] = v.ToGo()
			}
		}
	} else if u.When != "" {
		ok, err := rc.filter(u.When)
		if err != nil {
			return nil, err
		}
		if !ok {
			return rc.result(false, u.Yield)
		}
	}
	for _, set := range u.Set {
		col := latest.Index(set.Name)
		if col < 0 {
			return nil, invalid("%s has no property %q", rc.sv.name, set.Name)
		}
		v, err := rc.eval(set.Expr)
		if err != nil {
			return nil, err
		}
		rc.vals[col] = v.ToGo()
	}
	for i, c := range latest.Columns {
		if rc.vals[i] == nil && !c.Nullable {
			return nil, invalid("%s.%s is NOT NULL and has no value", rc.sv.name, c.Name)
		}
	}
	row, err := partition.EncodeRow(latest, rc.vals)
	if err != nil {
		return nil, invalid("%s: %v", rc.sv.name, err)
	}
	if rc.isEdge {
		err = st.putOutEdge(rc.sv, edgeKey, old, row)
	} else {
		err = st.putTagRow(rc.sv, u.Vid, old, row)
	}
	if err != nil {
		return nil, err
	}
	return rc.result(true, u.Yield)
}

// rowContext is the eval.Context of an UPDATE: the one row being updated.
type rowContext struct {
	space  *metapb.SpaceDesc
	sv     *schemaView
	isEdge bool
	vid    []byte             // vertex update
	edge   *storagepb.EdgeKey // edge update
	vals   []any              // laid out as the latest schema
	now    int64              // the write's time, seconds since the epoch
}

// Now is the clock of expressions evaluated by the update (eval.Clock).
func (rc *rowContext) Now() temporal.DateTime { return temporal.DateTime(rc.now * 1_000_000) }

func (rc *rowContext) parse(text string) (ast.Expr, error) {
	e, err := parser.ParseExpr(text)
	if err != nil {
		return nil, invalid("expression %q: %v", text, err)
	}
	if !eval.IsDeterministic(e) {
		return nil, invalid("expression %q is not deterministic (rand(), now()...): graphd must evaluate it", text)
	}
	return e, nil
}

// evalDefault evaluates a column's default_expr (DEFAULT now()).
func (rc *rowContext) evalDefault(text string) (value.Value, error) {
	e, err := parser.ParseExpr(text)
	if err != nil {
		return value.Value{}, err
	}
	if !eval.IsClockOnly(e) {
		return value.Value{}, fmt.Errorf("%q is random, which replicas cannot agree on", text)
	}
	return eval.Eval(rc, e)
}

func (rc *rowContext) eval(text string) (value.Value, error) {
	e, err := rc.parse(text)
	if err != nil {
		return value.Value{}, err
	}
	v, err := eval.Eval(rc, e)
	if err != nil {
		return value.Value{}, invalid("%v", err)
	}
	return v, nil
}

func (rc *rowContext) filter(text string) (bool, error) {
	e, err := rc.parse(text)
	if err != nil {
		return false, err
	}
	ok, err := eval.Filter(rc, e)
	if err != nil {
		return false, invalid("%v", err)
	}
	return ok, nil
}

func (rc *rowContext) result(updated bool, yield []string) (*storagepb.UpdateResp, error) {
	resp := &storagepb.UpdateResp{Updated: updated}
	for _, y := range yield {
		v, err := rc.eval(y)
		if err != nil {
			return nil, err
		}
		resp.YieldValues = append(resp.YieldValues, v.ToProto())
	}
	return resp, nil
}

// column returns a property of the row, typed by its column.
func (rc *rowContext) column(prop string) (value.Value, error) {
	latest := rc.sv.versions.Latest()
	i := latest.Index(prop)
	if i < 0 {
		return value.Value{}, fmt.Errorf("%s has no property %q", rc.sv.name, prop)
	}
	if rc.vals[i] == nil {
		return value.Null(), nil
	}
	if latest.Columns[i].Type == partition.PropTimestamp {
		if t, ok := rc.vals[i].(int64); ok {
			return value.Timestamp(t), nil
		}
	}
	return value.FromGo(rc.vals[i])
}

func (rc *rowContext) EdgeProp(edge, prop string) (value.Value, error) {
	if !rc.isEdge || (edge != eval.AnyEdge && edge != rc.sv.name) {
		return value.Value{}, fmt.Errorf("edge property %s.%s is not available in this update", edge, prop)
	}
	switch prop {
	case eval.PropSrc:
		return vidValue(rc.space, rc.edge.Src), nil
	case eval.PropDst:
		return vidValue(rc.space, rc.edge.Dst), nil
	case eval.PropRank:
		return value.Int(rc.edge.Rank), nil
	case eval.PropType:
		return value.Str(rc.sv.name), nil
	}
	return rc.column(prop)
}

func (rc *rowContext) SrcProp(tag, prop string) (value.Value, error) {
	if rc.isEdge {
		return value.Value{}, fmt.Errorf("$^.%s.%s is not available in an edge update", tag, prop)
	}
	if tag == eval.AnyTag && prop == eval.PropVID {
		return vidValue(rc.space, rc.vid), nil
	}
	if tag != rc.sv.name {
		return value.Value{}, fmt.Errorf("tag %s is not the updated tag %s", tag, rc.sv.name)
	}
	return rc.column(prop)
}

func (rc *rowContext) DstProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$$.%s.%s is not available in an update", tag, prop)
}

func (rc *rowContext) InputProp(col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$-.%s is not available in an update", col)
}

func (rc *rowContext) VarProp(variable, col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$%s.%s is not available in an update", variable, col)
}
