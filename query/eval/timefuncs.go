package eval

import (
	"strings"
	"time"

	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/temporal"
)

// The time functions. Without an argument, date(), time(), datetime() and
// timestamp() read the clock (UTC), as now() does; with one they convert:
//
//	date(x)      x a date string (2024-01-02), a map ({year: 2024,
//	             month: 1, day: 2}), a DATE, a DATETIME (its date), or a
//	             TIMESTAMP or INT of seconds since the epoch
//	time(x)      a time string (12:34:56.5), a map ({hour: 12,
//	             minute: 34}), a TIME, a DATETIME (its time of day), or
//	             seconds since the epoch
//	datetime(x)  a datetime string (2024-01-02T12:34:56), a map, a
//	             DATETIME, a DATE (midnight), or seconds since the epoch;
//	             a named zone converts local time to UTC, in the string
//	             (2024-07-01T12:00:00[Europe/Berlin]) or as the map's
//	             timezone field ({year: 2024, timezone: "Asia/Shanghai"})
//	timestamp(x) seconds since the epoch (INT or TIMESTAMP), a datetime
//	             string, a DATETIME or a DATE
//	duration(x)  an ISO 8601 string (P1DT2H), a map ({days: 1,
//	             hours: 2}), or a DURATION
//
// A map is a map value, duration({days: 1, hours: 2}), with integer values
// and names in any case; the same map written as a string,
// duration("{days: 1, hours: 2}"), is accepted too. See package temporal
// for the formats and field names.

func now() temporal.DateTime {
	return temporal.DateTime(time.Now().UnixMicro())
}

// fnNow is now(): the current time in seconds since the epoch, an INT.
func fnNow([]value.Value) (value.Value, error) { return value.Int(now().Unix()), nil }

// mapText returns the fields of a map string, or ok false if s is not one.
func mapText(s string) (map[string]int64, bool, error) {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return nil, false, nil
	}
	f, err := temporal.ParseFields(s)
	return f, true, err
}

// secondsArg reads an INT or TIMESTAMP of seconds since the epoch.
func secondsArg(v value.Value) (temporal.DateTime, bool, error) {
	sec, ok := v.IntVal()
	if !ok {
		return 0, false, nil
	}
	dt, err := temporal.FromUnix(sec)
	return dt, true, err
}

func fnTimestamp(args []value.Value) (value.Value, error) {
	if len(args) == 0 {
		return value.Timestamp(now().Unix()), nil
	}
	a := args[0]
	if sec, ok := a.IntVal(); ok {
		return value.Timestamp(sec), nil
	}
	if s, ok := a.StrVal(); ok {
		dt, err := temporal.ParseDateTime(s)
		if err != nil {
			return value.Value{}, err
		}
		return value.Timestamp(dt.Unix()), nil
	}
	if dt, ok := a.DateTimeVal(); ok {
		return value.Timestamp(dt.Unix()), nil
	}
	if d, ok := a.DateVal(); ok {
		return value.Timestamp(temporal.NewDateTime(d, 0).Unix()), nil
	}
	return value.Value{}, argError("seconds, a datetime string, a DATETIME or a DATE", a)
}

func fnDate(args []value.Value) (value.Value, error) {
	if len(args) == 0 {
		return value.Date(now().Date()), nil
	}
	a := args[0]
	switch a.Kind() {
	case value.KindDate:
		return a, nil
	case value.KindDateTime:
		dt, _ := a.DateTimeVal()
		return value.Date(dt.Date()), nil
	case value.KindMap:
		f, err := mapFields(a)
		if err != nil {
			return value.Value{}, err
		}
		d, err := temporal.DateFromFields(f)
		return value.Date(d), err
	case value.KindString:
		s, _ := a.StrVal()
		if f, ok, err := mapText(s); ok {
			if err != nil {
				return value.Value{}, err
			}
			d, err := temporal.DateFromFields(f)
			return value.Date(d), err
		}
		d, err := temporal.ParseDate(s)
		return value.Date(d), err
	}
	if dt, ok, err := secondsArg(a); ok {
		return value.Date(dt.Date()), err
	}
	return value.Value{}, argError("a date string or map, DATE, DATETIME or seconds", a)
}

func fnTime(args []value.Value) (value.Value, error) {
	if len(args) == 0 {
		return value.Time(now().Time()), nil
	}
	a := args[0]
	switch a.Kind() {
	case value.KindTime:
		return a, nil
	case value.KindDateTime:
		dt, _ := a.DateTimeVal()
		return value.Time(dt.Time()), nil
	case value.KindMap:
		f, err := mapFields(a)
		if err != nil {
			return value.Value{}, err
		}
		t, err := temporal.TimeFromFields(f)
		return value.Time(t), err
	case value.KindString:
		s, _ := a.StrVal()
		if f, ok, err := mapText(s); ok {
			if err != nil {
				return value.Value{}, err
			}
			t, err := temporal.TimeFromFields(f)
			return value.Time(t), err
		}
		t, err := temporal.ParseTime(s)
		return value.Time(t), err
	}
	if dt, ok, err := secondsArg(a); ok {
		return value.Time(dt.Time()), err
	}
	return value.Value{}, argError("a time string or map, TIME, DATETIME or seconds", a)
}

func fnDateTime(args []value.Value) (value.Value, error) {
	if len(args) == 0 {
		return value.DateTime(now()), nil
	}
	a := args[0]
	switch a.Kind() {
	case value.KindDateTime:
		return a, nil
	case value.KindDate:
		d, _ := a.DateVal()
		return value.DateTime(temporal.NewDateTime(d, 0)), nil
	case value.KindMap:
		f, zone, err := mapFieldsZone(a)
		if err != nil {
			return value.Value{}, err
		}
		dt, err := temporal.DateTimeFromFields(f)
		if err == nil && zone != "" {
			dt, err = temporal.LocalToUTC(dt, zone, 0, false)
		}
		return value.DateTime(dt), err
	case value.KindString:
		s, _ := a.StrVal()
		if f, ok, err := mapText(s); ok {
			if err != nil {
				return value.Value{}, err
			}
			dt, err := temporal.DateTimeFromFields(f)
			return value.DateTime(dt), err
		}
		dt, err := temporal.ParseDateTime(s)
		return value.DateTime(dt), err
	}
	if dt, ok, err := secondsArg(a); ok {
		return value.DateTime(dt), err
	}
	return value.Value{}, argError("a datetime string or map, DATETIME, DATE or seconds", a)
}

func fnDuration(args []value.Value) (value.Value, error) {
	a := args[0]
	if a.Kind() == value.KindDuration {
		return a, nil
	}
	if a.Kind() == value.KindMap {
		f, err := mapFields(a)
		if err != nil {
			return value.Value{}, err
		}
		du, err := temporal.DurationFromFields(f)
		return value.Duration(du), err
	}
	s, ok := a.StrVal()
	if !ok {
		return value.Value{}, argError("a duration string or map, or a DURATION", a)
	}
	if f, ok, err := mapText(s); ok {
		if err != nil {
			return value.Value{}, err
		}
		du, err := temporal.DurationFromFields(f)
		return value.Duration(du), err
	}
	du, err := temporal.ParseDuration(s)
	return value.Duration(du), err
}
