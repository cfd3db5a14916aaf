// Package schema converts between the catalog's wire types (metapb,
// commonpb) and the row codec's types (partition), so graphd and storaged
// read and write rows with the same rules.
package schema

import (
	"fmt"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/temporal"
)

// FromProto converts one schema version.
func FromProto(s *metapb.Schema) *partition.Schema {
	out := &partition.Schema{Version: s.GetVersion(), Columns: make([]partition.Column, len(s.GetColumns()))}
	for i, c := range s.GetColumns() {
		out.Columns[i] = partition.Column{
			Name:        c.GetName(),
			Type:        partition.PropType(c.GetType()),
			FixedLen:    int(c.GetFixedLen()),
			Nullable:    c.GetNullable(),
			IntBits:     int(c.GetIntBits()),
			Float32:     c.GetFloat32(),
			DefaultExpr: c.GetDefaultExpr(),
		}
		if c.GetDefaultValue() != nil {
			out.Columns[i].Default = ValueFromProto(c.GetDefaultValue())
		}
	}
	return out
}

// Versions holds every schema version of one tag or edge type, converted.
type Versions struct {
	byVersion map[int32]*partition.Schema
	latest    *partition.Schema
	// layouts are the versions' row layouts (partition.RowLayout), or
	// why a version has none (a schema the codec refuses), by version;
	// latestLayout is the latest's, which most rows are written with.
	layouts      map[int32]layoutOrErr
	latestLayout layoutOrErr
}

type layoutOrErr struct {
	layout *partition.RowLayout
	err    error
}

// NewVersions converts the versions of a tag or edge type (oldest first).
func NewVersions(versions []*metapb.Schema) *Versions {
	v := &Versions{byVersion: make(map[int32]*partition.Schema, len(versions)), layouts: make(map[int32]layoutOrErr, len(versions))}
	for _, s := range versions {
		ps := FromProto(s)
		v.byVersion[ps.Version] = ps
		var l layoutOrErr
		l.layout, l.err = partition.NewRowLayout(ps)
		v.layouts[ps.Version] = l
		if v.latest == nil || ps.Version >= v.latest.Version { // the last of a version listed twice, as byVersion
			v.latest, v.latestLayout = ps, l
		}
	}
	return v
}

// Layout is the row layout of one version, for
// partition.RowReader.ResetLayout.
func (v *Versions) Layout(version int32) (*partition.RowLayout, error) {
	l := v.latestLayout
	if v.latest == nil || version != v.latest.Version {
		var ok bool
		if l, ok = v.layouts[version]; !ok {
			return nil, partition.UnknownVersion(version)
		}
	}
	return l.layout, l.err
}

// Latest is the newest version, the one new rows are written with.
func (v *Versions) Latest() *partition.Schema { return v.latest }

// Source is the partition.SchemaSource over these versions.
func (v *Versions) Source() partition.SchemaSource {
	return func(version int32) (*partition.Schema, bool) {
		s, ok := v.byVersion[version]
		return s, ok
	}
}

// ValueFromProto converts a wire value into the codec's Go value: nil,
// int64, float64, bool or string (timestamps become int64 seconds), or
// temporal.Date, Time, DateTime or Duration.
func ValueFromProto(v *commonpb.Value) any {
	switch x := v.GetV().(type) {
	case *commonpb.Value_BoolVal:
		return x.BoolVal
	case *commonpb.Value_IntVal:
		return x.IntVal
	case *commonpb.Value_FloatVal:
		return x.FloatVal
	case *commonpb.Value_StrVal:
		return string(x.StrVal)
	case *commonpb.Value_TimestampVal:
		return x.TimestampVal
	case *commonpb.Value_DateVal:
		return temporal.Date(x.DateVal)
	case *commonpb.Value_TimeVal:
		return temporal.Time(x.TimeVal)
	case *commonpb.Value_DatetimeVal:
		return temporal.DateTime(x.DatetimeVal)
	case *commonpb.Value_DurationVal:
		return temporal.Duration{Months: x.DurationVal.GetMonths(), Micros: x.DurationVal.GetMicros()}
	default:
		return nil
	}
}

// ValueToProto converts a codec value read from a column of type t.
func ValueToProto(v any, t partition.PropType) *commonpb.Value {
	switch x := v.(type) {
	case nil:
		return NullValue()
	case bool:
		return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: x}}
	case int64:
		if t == partition.PropTimestamp {
			return &commonpb.Value{V: &commonpb.Value_TimestampVal{TimestampVal: x}}
		}
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: x}}
	case float64:
		return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: x}}
	case string:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(x)}}
	case temporal.Date:
		return &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: int32(x)}}
	case temporal.Time:
		return &commonpb.Value{V: &commonpb.Value_TimeVal{TimeVal: int64(x)}}
	case temporal.DateTime:
		return &commonpb.Value{V: &commonpb.Value_DatetimeVal{DatetimeVal: int64(x)}}
	case temporal.Duration:
		return &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: x.Months, Micros: x.Micros}}}
	default:
		panic(fmt.Sprintf("schema: codec value of unexpected type %T", v))
	}
}

// NullValue is the wire NULL.
func NullValue() *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_Null{Null: true}} }
