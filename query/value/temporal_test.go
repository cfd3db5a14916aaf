package value

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/novagraph/novagraph/temporal"
)

func mustDate(t *testing.T, s string) Value {
	t.Helper()
	d, err := temporal.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return Date(d)
}

func mustTime(t *testing.T, s string) Value {
	t.Helper()
	x, err := temporal.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return Time(x)
}

func mustDateTime(t *testing.T, s string) Value {
	t.Helper()
	x, err := temporal.ParseDateTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return DateTime(x)
}

func mustDuration(t *testing.T, s string) Value {
	t.Helper()
	x, err := temporal.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return Duration(x)
}

func TestTemporalKindsAndText(t *testing.T) {
	for _, c := range []struct {
		v              Value
		kind, lit, txt string
	}{
		{mustDate(t, "2024-01-02"), "DATE", `date("2024-01-02")`, "2024-01-02"},
		{mustTime(t, "12:34:56"), "TIME", `time("12:34:56.000000")`, "12:34:56.000000"},
		{mustDateTime(t, "2024-01-02T12:34:56"), "DATETIME", `datetime("2024-01-02T12:34:56.000000")`, "2024-01-02T12:34:56.000000"},
		{mustDuration(t, "P1DT2H"), "DURATION", `duration("P0MT93600.000000000S")`, "P0MT93600.000000000S"},
		{Str("x"), "STRING", `"x"`, "x"},
		{Int(1), "INT", "1", "1"},
	} {
		if got := c.v.Kind().String(); got != c.kind {
			t.Errorf("%v: kind %s, want %s", c.v, got, c.kind)
		}
		if got := c.v.String(); got != c.lit {
			t.Errorf("String() = %s, want %s", got, c.lit)
		}
		if got := c.v.Text(); got != c.txt {
			t.Errorf("Text() = %s, want %s", got, c.txt)
		}
		if !c.v.IsTemporal() != (c.kind == "STRING" || c.kind == "INT") {
			t.Errorf("%v: IsTemporal = %v", c.v, c.v.IsTemporal())
		}
	}
	if got := List(mustDate(t, "2024-01-02"), Str("a")).String(); got != `[date("2024-01-02"),"a"]` {
		t.Errorf("list String() = %s", got)
	}
	d, _ := mustDate(t, "2024-01-02").DateVal()
	if _, ok := Int(1).DateVal(); ok || d.String() != "2024-01-02" {
		t.Errorf("DateVal")
	}
}

func TestTemporalArithmetic(t *testing.T) {
	d, tm, dt, du := mustDate(t, "2024-01-31"), mustTime(t, "23:00:00"), mustDateTime(t, "2024-01-31T23:00:00"), mustDuration(t, "P1MT2H")
	for _, c := range []struct {
		name string
		got  func() (Value, error)
		want Value
	}{
		{"date+duration", func() (Value, error) { return Add(d, du) }, mustDate(t, "2024-02-29")},
		{"duration+date", func() (Value, error) { return Add(du, d) }, mustDate(t, "2024-02-29")},
		{"date+days", func() (Value, error) { return Add(d, mustDuration(t, "P2D")) }, mustDate(t, "2024-02-02")},
		{"date-duration", func() (Value, error) { return Sub(d, mustDuration(t, "P1M1D")) }, mustDate(t, "2023-12-30")},
		{"date-date", func() (Value, error) { return Sub(mustDate(t, "2024-03-01"), mustDate(t, "2024-02-01")) }, Int(29)},
		{"time+duration wraps", func() (Value, error) { return Add(tm, du) }, mustTime(t, "01:00:00")},
		{"time-duration", func() (Value, error) { return Sub(tm, mustDuration(t, "PT23H30M")) }, mustTime(t, "23:30:00")},
		{"time-time", func() (Value, error) { return Sub(tm, mustTime(t, "22:00:00")) }, mustDuration(t, "PT1H")},
		{"datetime+duration", func() (Value, error) { return Add(dt, du) }, mustDateTime(t, "2024-03-01T01:00:00")},
		{"datetime-duration", func() (Value, error) { return Sub(dt, mustDuration(t, "PT23H")) }, mustDateTime(t, "2024-01-31T00:00:00")},
		{"datetime-datetime", func() (Value, error) { return Sub(dt, mustDateTime(t, "2024-01-30T22:00:00")) }, mustDuration(t, "P1DT1H")},
		{"duration+duration", func() (Value, error) { return Add(du, du) }, mustDuration(t, "P2MT4H")},
		{"duration-duration", func() (Value, error) { return Sub(du, mustDuration(t, "PT3H")) }, mustDuration(t, "P1MT-1H")},
		{"-duration", func() (Value, error) { return Neg(du) }, mustDuration(t, "-P1MT2H")},
		{"string+date", func() (Value, error) { return Add(Str("on "), d) }, Str("on 2024-01-31")},
		{"time+string", func() (Value, error) { return Add(tm, Str("!")) }, Str("23:00:00.000000!")},
		{"list+date", func() (Value, error) { return Add(List(), d) }, List(d)},
		{"date+NULL", func() (Value, error) { return Add(d, Null()) }, Null()},
		{"NULL-date", func() (Value, error) { return Sub(Null(), d) }, Null()},
	} {
		got, err := c.got()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		run  func() (Value, error)
		is   error
	}{
		{"date+date", func() (Value, error) { return Add(d, d) }, ErrType},
		{"date+int", func() (Value, error) { return Add(d, Int(1)) }, ErrType},
		{"int+duration", func() (Value, error) { return Add(Int(1), du) }, ErrType},
		{"date-datetime", func() (Value, error) { return Sub(d, dt) }, ErrType},
		{"duration-date", func() (Value, error) { return Sub(du, d) }, ErrType},
		{"date*2", func() (Value, error) { return Mul(d, Int(2)) }, ErrType},
		{"-date", func() (Value, error) { return Neg(d) }, ErrType},
		{"max date + 1 day", func() (Value, error) { return Add(Date(temporal.MaxDate), mustDuration(t, "P1D")) }, ErrOverflow},
		{"max datetime + 1us", func() (Value, error) {
			return Add(DateTime(temporal.MaxDateTime), mustDuration(t, "PT0.000001S"))
		}, ErrOverflow},
		{"duration overflow", func() (Value, error) {
			return Add(Duration(temporal.Duration{Micros: math.MaxInt64}), mustDuration(t, "PT1S"))
		}, ErrOverflow},
		{"-min duration", func() (Value, error) { return Neg(Duration(temporal.Duration{Months: math.MinInt32})) }, ErrOverflow},
		{"date - min duration", func() (Value, error) { return Sub(d, Duration(temporal.Duration{Micros: math.MinInt64})) }, ErrOverflow},
	} {
		if _, err := c.run(); !errors.Is(err, c.is) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.is)
		}
	}
}

func TestTemporalComparison(t *testing.T) {
	T, F, N := Bool(true), Bool(false), Null()
	d1, d2 := mustDate(t, "2024-01-02"), mustDate(t, "2024-01-03")
	dt1, dt2 := mustDateTime(t, "2024-01-02T00:00:00"), mustDateTime(t, "2024-01-02T00:00:00.000001")
	t1, t2 := mustTime(t, "01:00"), mustTime(t, "02:00")
	for _, c := range []struct {
		name string
		got  Value
		want Value
	}{
		{"date <", Less(d1, d2), T},
		{"date >=", GreaterEqual(d1, d2), F},
		{"date ==", Equal(d1, mustDate(t, "2024-1-2")), T},
		{"datetime <", Less(dt1, dt2), T},
		{"time >", Greater(t2, t1), T},
		{"date vs datetime ==", Equal(d1, dt1), F},
		{"date vs datetime <", Less(d1, dt1), N},
		{"date vs int", Less(d1, Int(0)), N},
		{"date vs string", Equal(d1, Str("2024-01-02")), F},
		{"duration ==", Equal(mustDuration(t, "P1D"), mustDuration(t, "PT24H")), T},
		{"duration months != days", Equal(mustDuration(t, "P1M"), mustDuration(t, "P30D")), F},
		{"duration <", Less(mustDuration(t, "P1D"), mustDuration(t, "P2D")), N},
		{"date IN", In(d1, List(d2, d1)), T},
		{"NULL date", Equal(N, d1), N},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if c, ok := Compare(List(d1, dt2), List(d1, dt1)); !ok || c <= 0 {
		t.Errorf("list compare = %d, %v", c, ok)
	}
}

func TestTemporalProtoGoKey(t *testing.T) {
	vals := []Value{
		mustDate(t, "2024-01-02"), mustDate(t, "-32768-01-01"), mustTime(t, "23:59:59.999999"),
		mustDateTime(t, "1969-12-31T23:59:59.5"), mustDuration(t, "-P1Y2MT3.5S"),
		Duration(temporal.Duration{Months: math.MinInt32, Micros: math.MinInt64}), List(mustDate(t, "2024-01-02")),
	}
	keys := map[string]Value{}
	for _, v := range vals {
		if got := FromProto(v.ToProto()); !reflect.DeepEqual(got, v) {
			t.Errorf("FromProto(ToProto(%v)) = %v", v, got)
		}
		back, err := FromGo(v.ToGo())
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Errorf("FromGo(ToGo(%v)) = %v, %v", v, back, err)
		}
		k := string(v.AppendKey(nil))
		if other, dup := keys[k]; dup {
			t.Errorf("%v and %v have the same key", v, other)
		}
		keys[k] = v
	}
	// Same payload, different kinds: different keys.
	same := []Value{Int(5), Date(5), Time(5), DateTime(5), Duration(temporal.Duration{Micros: 5}), Timestamp(5)}
	for i := range same {
		for j := i + 1; j < len(same); j++ {
			if bytes.Equal(same[i].AppendKey(nil), same[j].AppendKey(nil)) {
				t.Errorf("%v and %v have the same key", same[i], same[j])
			}
		}
	}
	if !bytes.Equal(Duration(temporal.Duration{Months: 1}).AppendKey(nil), Duration(temporal.Duration{Months: 1}).AppendKey(nil)) {
		t.Errorf("equal durations, different keys")
	}
	if got := mustDate(t, "2024-01-02").ToGo(); got != temporal.Date(19724) {
		t.Errorf("ToGo(date) = %#v", got)
	}
}

func TestAttribute(t *testing.T) {
	dt := mustDateTime(t, "2024-01-02T12:34:56.789012")
	for _, c := range []struct {
		v    Value
		name string
		want int64
	}{
		{dt, "year", 2024}, {dt, "Month", 1}, {dt, "day", 2}, {dt, "hour", 12}, {dt, "minute", 34},
		{dt, "second", 56}, {dt, "millisecond", 789}, {dt, "microsecond", 789012},
		{mustDate(t, "-5-06-07"), "year", -5}, {mustDate(t, "2024-06-07"), "DAY", 7},
		{mustTime(t, "01:02:03.5"), "millisecond", 500},
		{mustDuration(t, "P14MT93784.5S"), "years", 1}, {mustDuration(t, "P14MT93784.5S"), "months", 2},
		{mustDuration(t, "P14MT93784.5S"), "days", 1}, {mustDuration(t, "P14MT93784.5S"), "hours", 2},
		{mustDuration(t, "P14MT93784.5S"), "minutes", 3}, {mustDuration(t, "P14MT93784.5S"), "seconds", 4},
		{mustDuration(t, "P14MT93784.5S"), "milliseconds", 500}, {mustDuration(t, "P14MT93784.5S"), "microseconds", 500000},
	} {
		got, err := Attribute(c.v, c.name)
		if err != nil || !reflect.DeepEqual(got, Int(c.want)) {
			t.Errorf("%v.%s = %v, %v; want %d", c.v, c.name, got, err, c.want)
		}
	}
	if got, err := Attribute(Null(), "year"); err != nil || !got.IsNull() {
		t.Errorf("NULL.year = %v, %v", got, err)
	}
	for _, c := range []struct {
		v    Value
		name string
	}{{mustDate(t, "2024-01-02"), "hour"}, {mustTime(t, "01:00"), "year"}, {Int(1), "year"}, {mustDuration(t, "P1D"), "year"}, {dt, "nope"}} {
		if _, err := Attribute(c.v, c.name); !errors.Is(err, ErrType) {
			t.Errorf("%v.%s: error %v, want ErrType", c.v, c.name, err)
		}
	}
}
