package value

import (
	"fmt"
	"math"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/temporal"
)

// FromProto converts a wire value. A nil message, an unset oneof and an
// explicit null all mean NULL.
func FromProto(pv *commonpb.Value) Value {
	if pv == nil {
		return Value{}
	}
	switch x := pv.GetV().(type) {
	case *commonpb.Value_BoolVal:
		return Bool(x.BoolVal)
	case *commonpb.Value_IntVal:
		return Int(x.IntVal)
	case *commonpb.Value_FloatVal:
		return Float(x.FloatVal)
	case *commonpb.Value_StrVal:
		return Str(string(x.StrVal))
	case *commonpb.Value_TimestampVal:
		return Timestamp(x.TimestampVal)
	case *commonpb.Value_DateVal:
		return Date(temporal.Date(x.DateVal))
	case *commonpb.Value_TimeVal:
		return Time(temporal.Time(x.TimeVal))
	case *commonpb.Value_DatetimeVal:
		return DateTime(temporal.DateTime(x.DatetimeVal))
	case *commonpb.Value_DurationVal:
		return Duration(temporal.Duration{Months: x.DurationVal.GetMonths(), Micros: x.DurationVal.GetMicros()})
	case *commonpb.Value_ListVal:
		items := make([]Value, len(x.ListVal.GetValues()))
		for i, item := range x.ListVal.GetValues() {
			items[i] = FromProto(item)
		}
		return List(items...)
	case *commonpb.Value_MapVal:
		return Map(propsFromProto(x.MapVal)...)
	case *commonpb.Value_VertexVal:
		return VertexValue(vertexFromProto(x.VertexVal))
	case *commonpb.Value_EdgeVal:
		return EdgeValue(edgeFromProto(x.EdgeVal))
	case *commonpb.Value_PathVal:
		p := Path{Src: vertexFromProto(x.PathVal.GetSrc())}
		for _, st := range x.PathVal.GetSteps() {
			p.Steps = append(p.Steps, Step{Edge: edgeFromProto(st.GetEdge()), Reverse: st.GetReverse(), Dst: vertexFromProto(st.GetDst())})
		}
		return PathValue(p)
	}
	return Value{}
}

// propsFromProto decodes a wire map's entries, sorted by key with the last
// of a repeated key kept (a nil map has none).
func propsFromProto(m *commonpb.MapVal) []Prop {
	props := make([]Prop, len(m.GetEntries()))
	for i, e := range m.GetEntries() {
		props[i] = Prop{Name: string(e.GetKey()), Value: FromProto(e.GetValue())}
	}
	out, _ := Map(props...).MapVal()
	return out
}

func vertexFromProto(pv *commonpb.VertexVal) Vertex {
	v := Vertex{VID: FromProto(pv.GetVid())}
	for _, t := range pv.GetTags() {
		v.Tags = append(v.Tags, TagProps{Name: t.GetName(), Props: propsFromProto(t.GetProps())})
	}
	return v
}

func edgeFromProto(pe *commonpb.EdgeVal) Edge {
	return Edge{Src: FromProto(pe.GetSrc()), Dst: FromProto(pe.GetDst()), Type: pe.GetName(), Rank: pe.GetRank(), Props: propsFromProto(pe.GetProps())}
}

func propsToProto(props []Prop) *commonpb.MapVal {
	m := &commonpb.MapVal{Entries: make([]*commonpb.MapEntry, len(props))}
	for i, p := range props {
		m.Entries[i] = &commonpb.MapEntry{Key: []byte(p.Name), Value: p.Value.ToProto()}
	}
	return m
}

func vertexToProto(v *Vertex) *commonpb.VertexVal {
	pv := &commonpb.VertexVal{Vid: v.VID.ToProto()}
	for _, t := range v.Tags {
		pv.Tags = append(pv.Tags, &commonpb.TagVal{Name: t.Name, Props: propsToProto(t.Props)})
	}
	return pv
}

func edgeToProto(e *Edge) *commonpb.EdgeVal {
	return &commonpb.EdgeVal{Src: e.Src.ToProto(), Dst: e.Dst.ToProto(), Name: e.Type, Rank: e.Rank, Props: propsToProto(e.Props)}
}

// ToProto converts v to its wire form. NULL is sent as an explicit null so
// that a receiver can tell it from a value that was never set.
func (v Value) ToProto() *commonpb.Value {
	switch v.kind {
	case KindBool:
		return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: v.i != 0}}
	case KindInt:
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: v.i}}
	case KindFloat:
		return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: v.f}}
	case KindString:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(v.s)}}
	case KindMap:
		props, _ := v.MapVal()
		return &commonpb.Value{V: &commonpb.Value_MapVal{MapVal: propsToProto(props)}}
	case KindVertex:
		vx, _ := v.VertexVal()
		return &commonpb.Value{V: &commonpb.Value_VertexVal{VertexVal: vertexToProto(vx)}}
	case KindEdge:
		e, _ := v.EdgeVal()
		return &commonpb.Value{V: &commonpb.Value_EdgeVal{EdgeVal: edgeToProto(e)}}
	case KindPath:
		p, _ := v.PathVal()
		pp := &commonpb.PathVal{Src: vertexToProto(&p.Src), Steps: make([]*commonpb.PathStep, len(p.Steps))}
		for i := range p.Steps {
			st := &p.Steps[i]
			pp.Steps[i] = &commonpb.PathStep{Edge: edgeToProto(&st.Edge), Reverse: st.Reverse, Dst: vertexToProto(&st.Dst)}
		}
		return &commonpb.Value{V: &commonpb.Value_PathVal{PathVal: pp}}
	case KindTimestamp:
		return &commonpb.Value{V: &commonpb.Value_TimestampVal{TimestampVal: v.i}}
	case KindDate:
		return &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: int32(v.i)}}
	case KindTime:
		return &commonpb.Value{V: &commonpb.Value_TimeVal{TimeVal: v.i}}
	case KindDateTime:
		return &commonpb.Value{V: &commonpb.Value_DatetimeVal{DatetimeVal: v.i}}
	case KindDuration:
		return &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: v.m, Micros: v.i}}}
	case KindList:
		items := make([]*commonpb.Value, len(v.l))
		for i, item := range v.l {
			items[i] = item.ToProto()
		}
		return &commonpb.Value{V: &commonpb.Value_ListVal{ListVal: &commonpb.ValueList{Values: items}}}
	}
	return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}
}

// FromGo converts a plain Go value, as the storage row codec produces it:
// nil, bool, int64, float64, string and the temporal types, plus the other
// sized ints and float32, []byte (as a string), []any (as a list),
// map[string]any (as a map) and Value itself.
func FromGo(x any) (Value, error) {
	switch x := x.(type) {
	case nil:
		return Value{}, nil
	case Value:
		return x, nil
	case bool:
		return Bool(x), nil
	case int64:
		return Int(x), nil
	case int:
		return Int(int64(x)), nil
	case int32:
		return Int(int64(x)), nil
	case int16:
		return Int(int64(x)), nil
	case int8:
		return Int(int64(x)), nil
	case uint32:
		return Int(int64(x)), nil
	case uint16:
		return Int(int64(x)), nil
	case uint8:
		return Int(int64(x)), nil
	case uint64:
		if x > math.MaxInt64 {
			return Value{}, fmt.Errorf("value: uint64 %d overflows INT", x)
		}
		return Int(int64(x)), nil
	case float64:
		return Float(x), nil
	case float32:
		return Float(float64(x)), nil
	case string:
		return Str(x), nil
	case []byte:
		return Str(string(x)), nil
	case temporal.Date:
		return Date(x), nil
	case temporal.Time:
		return Time(x), nil
	case temporal.DateTime:
		return DateTime(x), nil
	case temporal.Duration:
		return Duration(x), nil
	case []any:
		items := make([]Value, len(x))
		for i, item := range x {
			v, err := FromGo(item)
			if err != nil {
				return Value{}, err
			}
			items[i] = v
		}
		return List(items...), nil
	case map[string]any:
		props := make([]Prop, 0, len(x))
		for k, item := range x {
			v, err := FromGo(item)
			if err != nil {
				return Value{}, err
			}
			props = append(props, Prop{Name: k, Value: v})
		}
		return Map(props...), nil
	}
	return Value{}, fmt.Errorf("value: cannot convert Go %T", x)
}

// ToGo converts v to a plain Go value: nil, bool, int64 (also for
// TIMESTAMP, which the row codec stores as int64), float64, string, []any,
// map[string]any, or temporal.Date, Time, DateTime or Duration for the
// calendar kinds (the row codec's types for them). Graph values give nil.
func (v Value) ToGo() any {
	switch v.kind {
	case KindBool:
		return v.i != 0
	case KindInt, KindTimestamp:
		return v.i
	case KindFloat:
		return v.f
	case KindString:
		return v.s
	case KindDate:
		return temporal.Date(v.i)
	case KindTime:
		return temporal.Time(v.i)
	case KindDateTime:
		return temporal.DateTime(v.i)
	case KindDuration:
		return temporal.Duration{Months: v.m, Micros: v.i}
	case KindList:
		items := make([]any, len(v.l))
		for i, item := range v.l {
			items[i] = item.ToGo()
		}
		return items
	case KindMap:
		props, _ := v.MapVal()
		m := make(map[string]any, len(props))
		for _, p := range props {
			m[p.Name] = p.Value.ToGo()
		}
		return m
	}
	return nil
}
