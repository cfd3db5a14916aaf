package schema

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/temporal"
)

func TestValueRoundTrip(t *testing.T) {
	day, _ := temporal.NewDate(2024, 1, 2)
	for _, c := range []struct {
		v any
		t partition.PropType
	}{
		{nil, partition.PropInt64},
		{true, partition.PropBool},
		{int64(-3), partition.PropInt64},
		{int64(1700000000), partition.PropTimestamp},
		{2.5, partition.PropDouble},
		{"x", partition.PropString},
		{day, partition.PropDate},
		{temporal.Time(temporal.Hour + 5), partition.PropTime},
		{temporal.NewDateTime(day, 7), partition.PropDateTime},
		{temporal.Duration{Months: -2, Micros: temporal.Day}, partition.PropDuration},
	} {
		pv := ValueToProto(c.v, c.t)
		if got := ValueFromProto(pv); got != c.v {
			t.Errorf("ValueFromProto(ValueToProto(%#v)) = %#v", c.v, got)
		}
		// And through the wire encoding.
		b, err := proto.Marshal(pv)
		if err != nil {
			t.Fatal(err)
		}
		var back commonpb.Value
		if err := proto.Unmarshal(b, &back); err != nil || ValueFromProto(&back) != c.v {
			t.Errorf("wire round trip of %#v = %#v, %v", c.v, ValueFromProto(&back), err)
		}
	}
	if _, ok := ValueToProto(int64(5), partition.PropTimestamp).GetV().(*commonpb.Value_TimestampVal); !ok {
		t.Errorf("a TIMESTAMP column's int64 is not a timestamp_val")
	}
}

func TestFromProtoTemporalColumns(t *testing.T) {
	s := FromProto(&metapb.Schema{Version: 3, Columns: []*metapb.ColumnDef{
		{Name: "d", Type: metapb.PropType_DATE, DefaultValue: &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: 19724}}},
		{Name: "t", Type: metapb.PropType_TIME, Nullable: true},
		{Name: "dt", Type: metapb.PropType_DATETIME, Nullable: true},
		{Name: "du", Type: metapb.PropType_DURATION, DefaultValue: &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: 1}}}},
	}})
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []partition.PropType{partition.PropDate, partition.PropTime, partition.PropDateTime, partition.PropDuration}
	for i, c := range s.Columns {
		if c.Type != want[i] {
			t.Errorf("column %s: type %s, want %s", c.Name, c.Type, want[i])
		}
	}
	if s.Columns[0].Default != temporal.Date(19724) || s.Columns[3].Default != (temporal.Duration{Months: 1}) {
		t.Errorf("defaults = %#v, %#v", s.Columns[0].Default, s.Columns[3].Default)
	}
}

// TestVersionsLayout: a row of each version is read with that version's
// layout, the latest's or an older one's, and a version the catalog does
// not list is an error naming it.
func TestVersionsLayout(t *testing.T) {
	v0 := &metapb.Schema{Version: 0, Columns: []*metapb.ColumnDef{{Name: "a", Type: metapb.PropType_INT64}}}
	v1 := &metapb.Schema{Version: 1, Columns: []*metapb.ColumnDef{
		{Name: "s", Type: metapb.PropType_STRING}, {Name: "a", Type: metapb.PropType_INT64}}}
	vs := NewVersions([]*metapb.Schema{v0, v1})
	for _, tc := range []struct {
		schema *metapb.Schema
		vals   []any
	}{{v0, []any{int64(7)}}, {v1, []any{"x", int64(9)}}} {
		row, err := partition.EncodeRow(FromProto(tc.schema), tc.vals)
		if err != nil {
			t.Fatal(err)
		}
		var r partition.RowReader
		if err := r.ResetLayout(row, vs); err != nil {
			t.Fatalf("version %d: %v", tc.schema.Version, err)
		}
		got, ok, err := r.Get("a")
		if r.Schema().Version != tc.schema.Version || !ok || err != nil || got != tc.vals[len(tc.vals)-1] {
			t.Fatalf("version %d: read a = %v, %v, %v with version %d", tc.schema.Version, got, ok, err, r.Schema().Version)
		}
	}
	if _, err := vs.Layout(5); !errors.Is(err, partition.ErrMalformedRow) || !strings.Contains(err.Error(), "schema version 5") {
		t.Fatalf("Layout(5) = %v, want an unknown version error", err)
	}
}
