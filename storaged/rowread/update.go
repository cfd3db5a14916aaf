package rowread

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

// Update is one UPDATE or UPSERT of a vertex's tag or of an edge,
// evaluated against its row: WHEN is tested, the SET items are assigned
// in order (each sees the ones before it, as in NebulaGraph), YIELD is
// evaluated on the new row. The caller reads the stored row and writes
// the new one (with its indexes).
//
// The expressions arrive as nGQL text that graphd normalised: a property
// of the updated tag is $^.tag.prop, one of the updated edge is edge.prop.
type Update struct {
	req *storagepb.UpdateReq
	rc  rowContext
}

// NewUpdate is req on its tag or edge type sv in space, at now (the
// command's time, seconds since the epoch: the clock of now() and of
// TTLs).
func NewUpdate(space *metapb.SpaceDesc, sv *Schema, req *storagepb.UpdateReq, now int64) *Update {
	u := &Update{req: req, rc: rowContext{space: space, sv: sv, now: now}}
	if req.Edge != nil {
		u.rc.isEdge, u.rc.edge = true, req.Edge
	} else {
		u.rc.vid = req.Vid
	}
	return u
}

// Apply evaluates the update against the stored row (nil: there is
// none). old is the stored row if it is live (not expired); row is the
// row to write, nil when WHEN is false and nothing is to be written.
func (u *Update) Apply(stored []byte) (old, row []byte, err error) {
	rc, req := &u.rc, u.req
	latest := rc.sv.Versions.Latest()
	old = stored
	if old != nil {
		if rc.vals, err = rc.sv.Decode(old); err != nil {
			return nil, nil, err
		}
		if rc.sv.expired(rc.vals, rc.now) {
			old, rc.vals = nil, nil
		}
	}
	if old == nil {
		if !req.Insertable {
			what := fmt.Sprintf("vertex %x has no tag %s", req.Vid, rc.sv.Name)
			if rc.isEdge {
				what = fmt.Sprintf("edge %s %x->%x@%d does not exist", rc.sv.Name, rc.edge.Src, rc.edge.Dst, rc.edge.Rank)
			}
			return nil, nil, &Error{Code: commonpb.ErrorCode_E_NOT_FOUND, Msg: what}
		}
		// UPSERT of an absent row starts from the defaults, and ignores
		// WHEN (there is nothing to test it on), as NebulaGraph does.
		rc.vals = make([]any, len(latest.Columns))
		for i, c := range latest.Columns {
			rc.vals[i] = c.Default
			if c.DefaultExpr != "" {
				v, err := rc.evalDefault(c.DefaultExpr)
				if err != nil {
					return nil, nil, Invalid("%s.%s: default %s: %v", rc.sv.Name, c.Name, c.DefaultExpr, err)
				}
				rc.vals[i] = v.ToGo()
			}
		}
	} else if req.When != "" {
		ok, err := rc.filter(req.When)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return old, nil, nil
		}
	}
	for _, set := range req.Set {
		col := latest.Index(set.Name)
		if col < 0 {
			return nil, nil, Invalid("%s has no property %q", rc.sv.Name, set.Name)
		}
		v, err := rc.eval(set.Expr)
		if err != nil {
			return nil, nil, err
		}
		rc.vals[col] = v.ToGo()
	}
	for i, c := range latest.Columns {
		if rc.vals[i] == nil && !c.Nullable {
			return nil, nil, Invalid("%s.%s is NOT NULL and has no value", rc.sv.Name, c.Name)
		}
	}
	row, err = partition.EncodeRow(latest, rc.vals)
	if err != nil {
		return nil, nil, Invalid("%s: %v", rc.sv.Name, err)
	}
	return old, row, nil
}

// Result is the answer to the update: whether it wrote (Apply returned a
// row that was written) and YIELD, evaluated on the row as it now is.
func (u *Update) Result(updated bool) (*storagepb.UpdateResp, error) {
	resp := &storagepb.UpdateResp{Updated: updated}
	for _, y := range u.req.Yield {
		v, err := u.rc.eval(y)
		if err != nil {
			return nil, err
		}
		resp.YieldValues = append(resp.YieldValues, v.ToProto())
	}
	return resp, nil
}

// rowContext is the eval.Context of an UPDATE: the one row being updated.
type rowContext struct {
	space  *metapb.SpaceDesc
	sv     *Schema
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
		return nil, Invalid("expression %q: %v", text, err)
	}
	// Every replica applies the update on its own: a random or clock call
	// would make them disagree. graphd folds such calls into literals.
	if !eval.IsDeterministic(e) {
		return nil, Invalid("expression %q is not deterministic (rand(), now()...): graphd must evaluate it", text)
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
		return value.Value{}, Invalid("%v", err)
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
		return false, Invalid("%v", err)
	}
	return ok, nil
}

// column returns a property of the row, typed by its column.
func (rc *rowContext) column(prop string) (value.Value, error) {
	latest := rc.sv.Versions.Latest()
	i := latest.Index(prop)
	if i < 0 {
		return value.Value{}, fmt.Errorf("%s has no property %q", rc.sv.Name, prop)
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
	if !rc.isEdge || (edge != eval.AnyEdge && edge != rc.sv.Name) {
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
		return value.Str(rc.sv.Name), nil
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
	if tag != rc.sv.Name {
		return value.Value{}, fmt.Errorf("tag %s is not the updated tag %s", tag, rc.sv.Name)
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
