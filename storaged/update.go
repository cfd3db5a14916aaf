package storaged

import (
	"fmt"

	"google.golang.org/protobuf/proto"

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

// update runs UPDATE / UPSERT of one vertex tag or one edge inside the
// apply: read the row, test WHEN, assign the SET items in order (each sees
// the ones before it, as in NebulaGraph), write the row with its indexes
// (and, for an edge, the mirror intent), evaluate YIELD on the new row. The
// result is an encoded storagepb.UpdateResp.
//
// The expressions arrive as nGQL text that graphd normalised: a property of
// the updated tag is $^.tag.prop, one of the updated edge is edge.prop.
func (st *applyState) update(u *storagepb.UpdateReq) ([]byte, error) {
	rc := &rowContext{space: st.space, now: st.now}
	var key []byte
	var edgeKey *storagepb.EdgeKey
	if u.Edge != nil {
		edgeKey = u.Edge
		if err := st.checkEdgeKey(edgeKey.Src, edgeKey.EdgeType, edgeKey.Dst); err != nil {
			return nil, err
		}
		si, err := st.edge(edgeKey.EdgeType)
		if err != nil {
			return nil, err
		}
		rc.si, rc.isEdge, rc.edge = si, true, edgeKey
		key = partition.EdgeKey(st.g.Space, st.g.Part, edgeKey.Src, edgeKey.EdgeType, edgeKey.Rank, edgeKey.Dst)
	} else {
		if err := st.checkOwn(u.Vid); err != nil {
			return nil, err
		}
		si, err := st.tag(u.TagId)
		if err != nil {
			return nil, err
		}
		rc.si, rc.vid = si, u.Vid
		key = partition.TagKey(st.g.Space, st.g.Part, u.Vid, u.TagId)
	}
	latest := rc.si.versions.Latest()

	old, err := st.b.Get(key)
	if err != nil {
		return nil, err
	}
	if old != nil {
		if rc.vals, err = decodeRow(rc.si, old); err != nil {
			return nil, err
		}
		if rc.si.expired(rc.vals, st.now) {
			old, rc.vals = nil, nil
		}
	}
	if old == nil {
		if !u.Insertable {
			what := fmt.Sprintf("vertex %x has no tag %s", u.Vid, rc.si.name)
			if rc.isEdge {
				what = fmt.Sprintf("edge %s %x->%x@%d does not exist", rc.si.name, edgeKey.Src, edgeKey.Dst, edgeKey.Rank)
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
					return nil, invalid("%s.%s: default %s: %v", rc.si.name, c.Name, c.DefaultExpr, err)
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
			return nil, invalid("%s has no property %q", rc.si.name, set.Name)
		}
		v, err := rc.eval(set.Expr)
		if err != nil {
			return nil, err
		}
		rc.vals[col] = v.ToGo()
	}
	for i, c := range latest.Columns {
		if rc.vals[i] == nil && !c.Nullable {
			return nil, invalid("%s.%s is NOT NULL and has no value", rc.si.name, c.Name)
		}
	}
	row, err := partition.EncodeRow(latest, rc.vals)
	if err != nil {
		return nil, invalid("%s: %v", rc.si.name, err)
	}
	if rc.isEdge {
		err = st.putOutEdge(rc.si, edgeKey, old, row)
	} else {
		err = st.putTagRow(rc.si, u.Vid, old, row)
	}
	if err != nil {
		return nil, err
	}
	return rc.result(true, u.Yield)
}

// rowContext is the eval.Context of an UPDATE: the one row being updated.
type rowContext struct {
	space  *metapb.SpaceDesc
	si     *schemaInfo
	isEdge bool
	vid    []byte             // vertex update
	edge   *storagepb.EdgeKey // edge update
	vals   []any              // laid out as the latest schema
	now    int64              // the command's time, seconds since the epoch
}

// Now is the clock of expressions evaluated in the apply (eval.Clock):
// the command's time, so that every replica gets the same value.
func (rc *rowContext) Now() temporal.DateTime { return temporal.DateTime(rc.now * 1_000_000) }

func (rc *rowContext) parse(text string) (ast.Expr, error) {
	e, err := parser.ParseExpr(text)
	if err != nil {
		return nil, invalid("expression %q: %v", text, err)
	}
	// Every replica applies the update on its own: a random or clock call
	// would make them disagree. graphd folds such calls into literals.
	if !eval.IsDeterministic(e) {
		return nil, invalid("expression %q is not deterministic (rand(), now()...): graphd must evaluate it", text)
	}
	return e, nil
}

// evalDefault evaluates a column's default_expr (DEFAULT now()). Unlike
// SET's expressions it reads the clock, and may: rc's clock is the
// command's time (Now), the same on every replica. graphd only stores
// defaults whose volatile calls are all clock functions.
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

func (rc *rowContext) result(updated bool, yield []string) ([]byte, error) {
	resp := &storagepb.UpdateResp{Updated: updated}
	for _, y := range yield {
		v, err := rc.eval(y)
		if err != nil {
			return nil, err
		}
		resp.YieldValues = append(resp.YieldValues, v.ToProto())
	}
	b, err := proto.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("encoding update result: %w", err)
	}
	return b, nil
}

// column returns a property of the row, typed by its column.
func (rc *rowContext) column(prop string) (value.Value, error) {
	latest := rc.si.versions.Latest()
	i := latest.Index(prop)
	if i < 0 {
		return value.Value{}, fmt.Errorf("%s has no property %q", rc.si.name, prop)
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
	if !rc.isEdge || (edge != eval.AnyEdge && edge != rc.si.name) {
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
		return value.Str(rc.si.name), nil
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
	if tag != rc.si.name {
		return value.Value{}, fmt.Errorf("tag %s is not the updated tag %s", tag, rc.si.name)
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

// vidValue is an encoded vid as nGQL sees it: INT64 or a string without
// its padding.
func vidValue(space *metapb.SpaceDesc, vid []byte) value.Value {
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		if i, err := partition.DecodeInt64Vid(vid); err == nil {
			return value.Int(i)
		}
	}
	return value.Str(partition.DecodeStringVid(vid))
}
