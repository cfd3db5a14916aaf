package graphd

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/value"
)

// TestParamsRangeChecked: a client's date, time or datetime parameter out
// of range, at any depth, is the statement's error, not an operand the
// temporal arithmetic would overflow with.
func TestParamsRangeChecked(t *testing.T) {
	dt := func(us int64) *commonpb.Value {
		return &commonpb.Value{V: &commonpb.Value_DatetimeVal{DatetimeVal: us}}
	}
	list := func(vs ...*commonpb.Value) *commonpb.Value {
		return &commonpb.Value{V: &commonpb.Value_ListVal{ListVal: &commonpb.ValueList{Values: vs}}}
	}
	if ps, err := params(map[string]*commonpb.Value{"a": dt(1_700_000_000_000_000), "l": list(dt(0))}); err != nil || len(ps) != 2 {
		t.Fatalf("datetimes in range: %v, %v", ps, err)
	}
	for _, tc := range []struct {
		name string
		in   map[string]*commonpb.Value
		want string
	}{
		{"datetime", map[string]*commonpb.Value{"a": dt(math.MaxInt64)}, "parameter $a: datetime"},
		{"in a list", map[string]*commonpb.Value{"l": list(dt(0), dt(math.MinInt64))}, "parameter $l: datetime"},
		{"time", map[string]*commonpb.Value{"t": {V: &commonpb.Value_TimeVal{TimeVal: -1}}}, "parameter $t: time"},
		{"list too long", map[string]*commonpb.Value{"l": list(make([]*commonpb.Value, value.MaxListItems+1)...)},
			"parameter $l: a list of 1048577 items; the limit is 1048576"},
	} {
		_, err := params(tc.in)
		var ee *exec.Error
		if !errors.As(err, &ee) || ee.Code != graphpb.QueryErrorCode_E_SEMANTIC || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an E_SEMANTIC error with %q", tc.name, err, tc.want)
		}
	}
}
