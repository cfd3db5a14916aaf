package client

import (
	"math"
	"testing"
)

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  string
	}{
		{nil, "__NULL__"},
		{"Tim Duncan", `"Tim Duncan"`},
		{`say "hi"` + "\n", `"say \"hi\"\n"`},
		{"日本", `"日本"`},
		{int64(-42), "-42"},
		{true, "true"},
		{1.0, "1.0"},
		{1.0 / 3, "0.3333333333333333"},
		{2.5, "2.5"},
		{1e6, "1000000.0"},
		{-0.000125, "-0.000125"},
		{1e21, "1e+21"},
		{1.5e-7, "1.5e-07"},
		{0.0, "0.0"},
		{math.NaN(), "NaN"},
		{math.Inf(-1), "-Inf"},
		{[]any{int64(1), "a", nil, []any{}}, `[1, "a", __NULL__, []]`},
	} {
		if got := FormatValue(tc.value); got != tc.want {
			t.Errorf("FormatValue(%#v) = %s, want %s", tc.value, got, tc.want)
		}
	}
}
