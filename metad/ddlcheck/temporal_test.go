package ddlcheck

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/temporal"
)

// TestValidateTemporalColumns checks the calendar column types and their
// defaults without a running metad.
func TestValidateTemporalColumns(t *testing.T) {
	date := func(d int32) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: d}} }
	tm := func(us int64) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_TimeVal{TimeVal: us}} }
	dt := func(us int64) *commonpb.Value {
		return &commonpb.Value{V: &commonpb.Value_DatetimeVal{DatetimeVal: us}}
	}
	du := func(m int32, us int64) *commonpb.Value {
		return &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: m, Micros: us}}}
	}
	col := func(name string, typ metapb.PropType, def *commonpb.Value) *metapb.ColumnDef {
		return &metapb.ColumnDef{Name: name, Type: typ, DefaultValue: def, Nullable: true}
	}
	good := []*metapb.ColumnDef{
		col("d", metapb.PropType_DATE, date(19724)),
		col("t", metapb.PropType_TIME, tm(temporal.Day-1)),
		col("dt", metapb.PropType_DATETIME, dt(-1)),
		col("du", metapb.PropType_DURATION, du(-1, 5)),
		col("n", metapb.PropType_DATE, nil),
	}
	out, err := Columns("tag t", good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range good {
		if !proto.Equal(out[i], good[i]) {
			t.Errorf("column %s normalized to %v", good[i].Name, out[i])
		}
	}
	// A duration_val with no message is the zero duration.
	out, err = Columns("tag t", []*metapb.ColumnDef{col("du", metapb.PropType_DURATION, &commonpb.Value{V: &commonpb.Value_DurationVal{}})})
	if err != nil || !proto.Equal(out[0].DefaultValue, du(0, 0)) {
		t.Errorf("empty duration default = %v, %v", out, err)
	}
	for _, tc := range []struct {
		c    *metapb.ColumnDef
		want string
	}{
		{col("d", metapb.PropType_DATE, tm(0)), "a time default does not fit type DATE"},
		{col("d", metapb.PropType_DATE, &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte("2024-01-02")}}), "a string default does not fit type DATE"},
		{col("t", metapb.PropType_TIME, dt(0)), "a datetime default does not fit type TIME"},
		{col("dt", metapb.PropType_DATETIME, date(0)), "a date default does not fit type DATETIME"},
		{col("du", metapb.PropType_DURATION, &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 1}}), "a integer default does not fit type DURATION"},
		{col("x", metapb.PropType_INT64, du(0, 0)), "a duration default does not fit type INT64"},
		{col("d", metapb.PropType_DATE, date(int32(temporal.MaxDate)+1)), "default date 11248738 days is out of range"},
		{col("t", metapb.PropType_TIME, tm(-1)), "default time -1 microseconds is out of range"},
		{col("dt", metapb.PropType_DATETIME, dt(int64(temporal.MaxDateTime)+1)), "default datetime"},
		{&metapb.ColumnDef{Name: "d", Type: metapb.PropType_DATE, FixedLen: 3}, "fixed_len 3 is only for FIXED_STRING, not DATE"},
		{&metapb.ColumnDef{Name: "z", Type: metapb.PropType(11)}, "unknown type 11"},
	} {
		_, err := Columns("tag t", []*metapb.ColumnDef{tc.c})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("column %v: %v, want an error containing %q", tc.c, err, tc.want)
		}
	}
}

func TestValidateTemporalIndexFields(t *testing.T) {
	cols := []*metapb.ColumnDef{
		{Name: "d", Type: metapb.PropType_DATE},
		{Name: "t", Type: metapb.PropType_TIME},
		{Name: "dt", Type: metapb.PropType_DATETIME},
		{Name: "du", Type: metapb.PropType_DURATION},
	}
	if _, err := IndexFields("i", "tag t", cols, []*metapb.IndexField{{Name: "d"}, {Name: "t"}, {Name: "dt"}}); err != nil {
		t.Errorf("index on date, time, datetime: %v", err)
	}
	_, err := IndexFields("i", "tag t", cols, []*metapb.IndexField{{Name: "du"}})
	if err == nil || !strings.Contains(err.Error(), `field "du" is a DURATION, which has no order and cannot be indexed`) {
		t.Errorf("index on a duration: %v", err)
	}
	if err := TTL("tag t", cols, "dt", 10); err == nil || !strings.Contains(err.Error(), "not INT64 or TIMESTAMP") {
		t.Errorf("TTL on a datetime: %v", err)
	}
}
