package nebulaapi

import (
	"fmt"
	"math"

	"github.com/vesoft-inc/nebula-go/v3/nebula"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/temporal"
)

// The mapping between novagraph's values (commonpb.Value, the gRPC wire
// form graphd answers in) and NebulaGraph's Value union, kind by kind:
//
//	NULL          nVal __NULL__ (novagraph has one NULL; NaN, BAD_TYPE
//	              and the other null kinds are never produced)
//	bool, int,    bVal, iVal, fVal, sVal
//	float, string
//	timestamp     iVal: NebulaGraph's timestamp is an int64 of seconds
//	date          dVal {year, month, day}
//	time          tVal {hour, minute, sec, microsec}, UTC
//	datetime      dtVal {year, ..., microsec}, UTC
//	duration      duVal {months, seconds, microseconds}: the microseconds
//	              split toward zero, so both parts have the sign of the
//	              whole
//	list, map     lVal, mVal
//	vertex        vVal {vid, tags [{name, props}]}
//	edge          eVal {src, dst, type, name, ranking, props}, always in
//	              the stored direction with a positive type
//	path          pVal {src, steps [{dst, type, name, ranking, props}]}:
//	              a step walked against its edge (an in-edge) has a
//	              negative type, which is how NebulaGraph and its clients
//	              tell the direction
//
// novagraph has no set, DataSet-in-a-cell or geography values, so uVal,
// gVal and ggVal never appear in an answer; a set parameter is read as a
// list.
//
// The numeric edge type in eVal and in a path's steps is the edge type's
// id in the catalog (edgeTypes), as NebulaGraph sends it. Clients use its
// sign; the number itself they only print.

// edgeTypeFunc names the catalog id of an edge type in the answer's space;
// 0 when unknown.
type edgeTypeFunc func(name string) int32

// converter turns one answer's values into NebulaGraph's. The unions,
// scalars, rows and cells of typed columns come from the arena's pooled
// chunks (arena.go), not one or two allocations per cell: a k-hop answer
// is millions of cells.
type converter struct {
	edgeType edgeTypeFunc
	types    map[string]int32 // edge types already asked for
	arena    *arena           // the chunks cells come from (arena.go)
}

func newConverter(edgeType edgeTypeFunc) *converter {
	return &converter{edgeType: edgeType}
}

// nullType is the NULL every NULL cell points at; the encoder only reads it.
var nullType = nebula.NullType___NULL__

// dataSet converts an answer's rows, in either of the forms graphd sends
// (row form, or columns), to NebulaGraph's DataSet.
func (c *converter) dataSet(d *graphpb.DataSet) (*nebula.DataSet, error) {
	if d == nil {
		return nil, nil
	}
	if c.arena == nil {
		c.arena = newArena(&pools{}) // not pooled: nothing gives it back
	}
	a := c.arena
	out := &nebula.DataSet{ColumnNames: make([][]byte, len(d.ColumnNames))}
	for i, name := range d.ColumnNames {
		out.ColumnNames[i] = []byte(name)
	}
	width := len(d.ColumnNames)
	if len(d.Columns) == 0 {
		out.Rows = make([]*nebula.Row, len(d.Rows))
		for i, r := range d.Rows {
			if len(r.Values) != width {
				return nil, fmt.Errorf("row %d has %d cells for %d columns", i, len(r.Values), width)
			}
			row := a.rows.one()
			row.Values = a.cells.take(width)
			for j, v := range r.Values {
				row.Values[j] = c.value(v)
			}
			out.Rows[i] = row
		}
		return out, nil
	}
	if len(d.Columns) != width {
		return nil, fmt.Errorf("%d columns for %d column names", len(d.Columns), width)
	}
	n := int(d.NumRows)
	for j, col := range d.Columns {
		if err := col.Check(n); err != nil {
			return nil, fmt.Errorf("column %q: %w", d.ColumnNames[j], err)
		}
	}
	out.Rows = make([]*nebula.Row, n)
	for i := range out.Rows {
		row := a.rows.one()
		row.Values = a.cells.take(width)
		out.Rows[i] = row
	}
	for j, col := range d.Columns {
		c.column(col, out.Rows, j)
	}
	return out, nil
}

// column fills cell j of every row from one checked column.
func (c *converter) column(col *commonpb.Column, rows []*nebula.Row, j int) {
	a := c.arena
	null := &nebula.Value{NVal: &nullType}
	switch col.GetKind() {
	case commonpb.ColumnKind_COL_INT:
		for i, row := range rows {
			if col.NullAt(i) {
				row.Values[j] = null
				continue
			}
			v, x := a.values.one(), a.ints.one()
			*x = col.Ints[i]
			v.IVal = x
			row.Values[j] = v
		}
	case commonpb.ColumnKind_COL_FLOAT:
		for i, row := range rows {
			if col.NullAt(i) {
				row.Values[j] = null
				continue
			}
			v, x := a.values.one(), a.floats.one()
			*x = col.Floats[i]
			v.FVal = x
			row.Values[j] = v
		}
	case commonpb.ColumnKind_COL_STR:
		for i, row := range rows {
			if col.NullAt(i) {
				row.Values[j] = null
				continue
			}
			// The encoder writes an empty sVal only when it is non-nil.
			s := col.Str(i)
			if s == nil {
				s = []byte{}
			}
			v := a.values.one()
			v.SVal = s
			row.Values[j] = v
		}
	case commonpb.ColumnKind_COL_BOOL:
		t, f := true, false
		yes, no := &nebula.Value{BVal: &t}, &nebula.Value{BVal: &f}
		for i, row := range rows {
			switch {
			case col.NullAt(i):
				row.Values[j] = null
			case col.Bools[i] != 0:
				row.Values[j] = yes
			default:
				row.Values[j] = no
			}
		}
	default: // COL_ANY
		for i, row := range rows {
			row.Values[j] = c.value(col.Values[i])
		}
	}
}

// value converts one cell.
func (c *converter) value(v *commonpb.Value) *nebula.Value {
	switch x := v.GetV().(type) {
	case nil, *commonpb.Value_Null:
		t := nebula.NullType___NULL__
		return &nebula.Value{NVal: &t}
	case *commonpb.Value_BoolVal:
		b := x.BoolVal
		return &nebula.Value{BVal: &b}
	case *commonpb.Value_IntVal:
		i := x.IntVal
		return &nebula.Value{IVal: &i}
	case *commonpb.Value_TimestampVal:
		i := x.TimestampVal
		return &nebula.Value{IVal: &i}
	case *commonpb.Value_FloatVal:
		f := x.FloatVal
		return &nebula.Value{FVal: &f}
	case *commonpb.Value_StrVal:
		s := x.StrVal
		if s == nil {
			s = []byte{}
		}
		return &nebula.Value{SVal: s}
	case *commonpb.Value_DateVal:
		return &nebula.Value{DVal: date(temporal.Date(x.DateVal))}
	case *commonpb.Value_TimeVal:
		return &nebula.Value{TVal: clock(temporal.Time(x.TimeVal))}
	case *commonpb.Value_DatetimeVal:
		dt := temporal.DateTime(x.DatetimeVal)
		d, t := date(dt.Date()), clock(dt.Time())
		return &nebula.Value{DtVal: &nebula.DateTime{Year: d.Year, Month: d.Month, Day: d.Day,
			Hour: t.Hour, Minute: t.Minute, Sec: t.Sec, Microsec: t.Microsec}}
	case *commonpb.Value_DurationVal:
		micros := x.DurationVal.GetMicros()
		return &nebula.Value{DuVal: &nebula.Duration{Months: x.DurationVal.GetMonths(),
			Seconds: micros / 1e6, Microseconds: int32(micros % 1e6)}}
	case *commonpb.Value_ListVal:
		items := make([]*nebula.Value, len(x.ListVal.GetValues()))
		for i, it := range x.ListVal.GetValues() {
			items[i] = c.value(it)
		}
		return &nebula.Value{LVal: &nebula.NList{Values: items}}
	case *commonpb.Value_MapVal:
		return &nebula.Value{MVal: &nebula.NMap{Kvs: c.props(x.MapVal)}}
	case *commonpb.Value_VertexVal:
		return &nebula.Value{VVal: c.vertex(x.VertexVal)}
	case *commonpb.Value_EdgeVal:
		e := x.EdgeVal
		return &nebula.Value{EVal: &nebula.Edge{Src: c.value(e.GetSrc()), Dst: c.value(e.GetDst()),
			Type: c.typeOf(e.GetName()), Name: []byte(e.GetName()), Ranking: e.GetRank(), Props: c.props(e.GetProps())}}
	case *commonpb.Value_PathVal:
		p := x.PathVal
		out := &nebula.Path{Src: c.vertex(p.GetSrc()), Steps: make([]*nebula.Step, len(p.GetSteps()))}
		for i, st := range p.GetSteps() {
			e := st.GetEdge()
			typ := c.typeOf(e.GetName())
			if st.GetReverse() {
				typ = -typ
			}
			out.Steps[i] = &nebula.Step{Dst: c.vertex(st.GetDst()), Type: typ, Name: []byte(e.GetName()),
				Ranking: e.GetRank(), Props: c.props(e.GetProps())}
		}
		return &nebula.Value{PVal: out}
	}
	// A kind added to commonpb.Value and not here: say so in the cell
	// rather than drop the row.
	t := nebula.NullType_BAD_TYPE
	return &nebula.Value{NVal: &t}
}

// typeOf is an edge type's catalog id, asked once per answer and name.
// An edge type the catalog no longer has (dropped while the query ran)
// gets 1: a client reads the sign, and 0 would read as reversed.
func (c *converter) typeOf(name string) int32 {
	if t, ok := c.types[name]; ok {
		return t
	}
	t := int32(0)
	if c.edgeType != nil {
		t = c.edgeType(name)
	}
	if t <= 0 {
		t = 1
	}
	if c.types == nil {
		c.types = map[string]int32{}
	}
	c.types[name] = t
	return t
}

func (c *converter) vertex(v *commonpb.VertexVal) *nebula.Vertex {
	out := &nebula.Vertex{Vid: c.value(v.GetVid()), Tags: make([]*nebula.Tag, len(v.GetTags()))}
	for i, t := range v.GetTags() {
		out.Tags[i] = &nebula.Tag{Name: []byte(t.GetName()), Props: c.props(t.GetProps())}
	}
	return out
}

func (c *converter) props(m *commonpb.MapVal) map[string]*nebula.Value {
	out := make(map[string]*nebula.Value, len(m.GetEntries()))
	for _, e := range m.GetEntries() {
		out[string(e.GetKey())] = c.value(e.GetValue())
	}
	return out
}

func date(d temporal.Date) *nebula.Date {
	y, m, day := d.Civil()
	return &nebula.Date{Year: int16(y), Month: int8(m), Day: int8(day)}
}

func clock(t temporal.Time) *nebula.Time {
	h, m, s, us := t.Clock()
	return &nebula.Time{Hour: int8(h), Minute: int8(m), Sec: int8(s), Microsec: int32(us)}
}

// maxParamDepth bounds how deep a parameter's lists and maps nest: a
// hostile client could otherwise send a value nested deep enough to
// exhaust the stack of the conversion.
const maxParamDepth = 64

// paramValue converts a query parameter from a NebulaGraph client. Dates
// and times are checked for range by graphd itself (as for gRPC's
// parameters); here only what has no novagraph form is refused.
func paramValue(v *nebula.Value, depth int) (*commonpb.Value, error) {
	if depth > maxParamDepth {
		return nil, fmt.Errorf("lists and maps nested over %d deep", maxParamDepth)
	}
	switch {
	case v == nil || v.NVal != nil:
		return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}, nil
	case v.BVal != nil:
		return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: *v.BVal}}, nil
	case v.IVal != nil:
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: *v.IVal}}, nil
	case v.FVal != nil:
		return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: *v.FVal}}, nil
	case v.SVal != nil:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: v.SVal}}, nil
	case v.DVal != nil:
		d, err := temporal.NewDate(int64(v.DVal.Year), int64(v.DVal.Month), int64(v.DVal.Day))
		if err != nil {
			return nil, err
		}
		return &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: int32(d)}}, nil
	case v.TVal != nil:
		t, err := temporal.NewTime(int64(v.TVal.Hour), int64(v.TVal.Minute), int64(v.TVal.Sec), int64(v.TVal.Microsec))
		if err != nil {
			return nil, err
		}
		return &commonpb.Value{V: &commonpb.Value_TimeVal{TimeVal: int64(t)}}, nil
	case v.DtVal != nil:
		x := v.DtVal
		d, err := temporal.NewDate(int64(x.Year), int64(x.Month), int64(x.Day))
		if err != nil {
			return nil, err
		}
		t, err := temporal.NewTime(int64(x.Hour), int64(x.Minute), int64(x.Sec), int64(x.Microsec))
		if err != nil {
			return nil, err
		}
		return &commonpb.Value{V: &commonpb.Value_DatetimeVal{DatetimeVal: int64(temporal.NewDateTime(d, t))}}, nil
	case v.DuVal != nil:
		x := v.DuVal
		const maxSeconds = int64(math.MaxInt64/1_000_000 - 1) // room for the microseconds
		if x.Seconds > maxSeconds || x.Seconds < -maxSeconds {
			return nil, fmt.Errorf("a duration of %d seconds is out of range (at most %d)", x.Seconds, maxSeconds)
		}
		return &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{
			Months: x.Months, Micros: x.Seconds*1e6 + int64(x.Microseconds)}}}, nil
	case v.LVal != nil:
		return paramList(v.LVal.Values, depth)
	case v.UVal != nil:
		return paramList(v.UVal.Values, depth)
	case v.MVal != nil:
		m := &commonpb.MapVal{Entries: make([]*commonpb.MapEntry, 0, len(v.MVal.Kvs))}
		for k, it := range v.MVal.Kvs {
			pv, err := paramValue(it, depth+1)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			m.Entries = append(m.Entries, &commonpb.MapEntry{Key: []byte(k), Value: pv})
		}
		return &commonpb.Value{V: &commonpb.Value_MapVal{MapVal: m}}, nil
	case v.VVal != nil, v.EVal != nil, v.PVal != nil:
		return nil, fmt.Errorf("a vertex, edge or path cannot be a parameter: pass its id or properties")
	case v.GVal != nil:
		return nil, fmt.Errorf("a dataset cannot be a parameter")
	case v.GgVal != nil:
		return nil, fmt.Errorf("novagraph has no geography values")
	}
	return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}, nil
}

func paramList(items []*nebula.Value, depth int) (*commonpb.Value, error) {
	out := &commonpb.ValueList{Values: make([]*commonpb.Value, len(items))}
	for i, it := range items {
		pv, err := paramValue(it, depth+1)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out.Values[i] = pv
	}
	return &commonpb.Value{V: &commonpb.Value_ListVal{ListVal: out}}, nil
}
