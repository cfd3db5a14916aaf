package value

import (
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/temporal"
)

// The calendar kinds. A Value holds them in i (DATE: days since 1970-01-01;
// TIME: microseconds since midnight; DATETIME: microseconds since the Unix
// epoch, UTC; DURATION: microseconds) and, for DURATION, m (months): the
// forms of package temporal. They are numbered apart from the other kinds so
// that the lists can grow independently.
const (
	KindDate Kind = 20 + iota
	KindTime
	KindDateTime
	KindDuration
)

func temporalKindName(k Kind) string {
	switch k {
	case KindDate:
		return "DATE"
	case KindTime:
		return "TIME"
	case KindDateTime:
		return "DATETIME"
	}
	return "DURATION"
}

func isTemporal(k Kind) bool {
	return k == KindDate || k == KindTime || k == KindDateTime || k == KindDuration
}

// Date returns a DATE value.
func Date(d temporal.Date) Value { return Value{kind: KindDate, i: int64(d)} }

// Time returns a TIME value.
func Time(t temporal.Time) Value { return Value{kind: KindTime, i: int64(t)} }

// DateTime returns a DATETIME value.
func DateTime(dt temporal.DateTime) Value { return Value{kind: KindDateTime, i: int64(dt)} }

// Duration returns a DURATION value.
func Duration(du temporal.Duration) Value {
	return Value{kind: KindDuration, m: du.Months, i: du.Micros}
}

// DateVal returns v's date and whether v is a DATE.
func (v Value) DateVal() (temporal.Date, bool) { return temporal.Date(v.i), v.kind == KindDate }

// TimeVal returns v's time of day and whether v is a TIME.
func (v Value) TimeVal() (temporal.Time, bool) { return temporal.Time(v.i), v.kind == KindTime }

// DateTimeVal returns v's datetime and whether v is a DATETIME.
func (v Value) DateTimeVal() (temporal.DateTime, bool) {
	return temporal.DateTime(v.i), v.kind == KindDateTime
}

// DurationVal returns v's duration and whether v is a DURATION.
func (v Value) DurationVal() (temporal.Duration, bool) {
	return temporal.Duration{Months: v.m, Micros: v.i}, v.kind == KindDuration
}

// IsTemporal reports whether v is a DATE, TIME, DATETIME or DURATION.
func (v Value) IsTemporal() bool { return isTemporal(v.kind) }

// temporalText is a calendar value as NebulaGraph displays it:
// 2024-01-02, 12:34:56.000000, 2024-01-02T12:34:56.000000,
// P0MT93600.000000000S.
func (v Value) temporalText() string {
	switch v.kind {
	case KindDate:
		return temporal.Date(v.i).String()
	case KindTime:
		return temporal.Time(v.i).String()
	case KindDateTime:
		return temporal.DateTime(v.i).String()
	}
	return temporal.Duration{Months: v.m, Micros: v.i}.String()
}

// formatTemporal writes the nGQL literal of a calendar value: its
// constructor applied to its display text, date("2024-01-02"), which the
// parser and evaluator read back to the same value.
func (v Value) formatTemporal(b *strings.Builder) {
	b.WriteString(strings.ToLower(v.kind.String()))
	b.WriteByte('(')
	QuoteString(b, v.temporalText())
	b.WriteByte(')')
}

// Text is v as toString() and string concatenation render it: a STRING as
// is, a calendar value in its display form (2024-01-02), anything else as
// String prints it.
func (v Value) Text() string {
	switch {
	case v.kind == KindString:
		return v.s
	case isTemporal(v.kind):
		return v.temporalText()
	}
	return v.String()
}

// addTemporal is a+b when either is a calendar value, neither is NULL and
// neither is a LIST or STRING: a DATE, TIME or DATETIME plus a DURATION
// (either way round) moves it, two DURATIONs add. ok is false when neither
// operand is a calendar value.
func addTemporal(a, b Value) (v Value, ok bool, err error) {
	if !isTemporal(a.kind) && !isTemporal(b.kind) {
		return Value{}, false, nil
	}
	if a.kind == KindDuration && b.kind != KindDuration {
		a, b = b, a
	}
	if b.kind != KindDuration {
		return Value{}, true, typeError("+", a, b)
	}
	du, _ := b.DurationVal()
	v, err = moveBy(a, du, "+")
	return v, true, err
}

// moveBy is a + du for a calendar value a.
func moveBy(a Value, du temporal.Duration, op string) (Value, error) {
	switch a.kind {
	case KindDate:
		d, err := temporal.Date(a.i).AddDuration(du)
		if err != nil {
			return Value{}, fmt.Errorf("%w: %w", ErrOverflow, err)
		}
		return Date(d), nil
	case KindTime:
		return Time(temporal.Time(a.i).AddDuration(du)), nil
	case KindDateTime:
		dt, err := temporal.DateTime(a.i).AddDuration(du)
		if err != nil {
			return Value{}, fmt.Errorf("%w: %w", ErrOverflow, err)
		}
		return DateTime(dt), nil
	case KindDuration:
		x, _ := a.DurationVal()
		sum, err := x.Add(du)
		if err != nil {
			return Value{}, fmt.Errorf("%w: %w", ErrOverflow, err)
		}
		return Duration(sum), nil
	}
	return Value{}, typeError(op, a, Duration(du))
}

// subTemporal is a-b when either is a calendar value: moving back by a
// DURATION, DATE - DATE as the INT number of days between them, TIME -
// TIME and DATETIME - DATETIME as a DURATION.
func subTemporal(a, b Value) (Value, error) {
	if a.IsNull() || b.IsNull() {
		return Value{}, nil
	}
	switch {
	case b.kind == KindDuration && isTemporal(a.kind):
		du, _ := b.DurationVal()
		neg, err := du.Neg()
		if err != nil {
			return Value{}, fmt.Errorf("%w: %w", ErrOverflow, err)
		}
		return moveBy(a, neg, "-")
	case a.kind == KindDate && b.kind == KindDate:
		return Int(a.i - b.i), nil
	case a.kind == KindTime && b.kind == KindTime, a.kind == KindDateTime && b.kind == KindDateTime:
		// Both in range: the difference cannot overflow.
		return Duration(temporal.Duration{Micros: a.i - b.i}), nil
	}
	return Value{}, typeError("-", a, b)
}

// Attribute returns a component of a calendar value, as d.year or
// duration(...).hours read it: year, month, day of a DATE; hour, minute,
// second, millisecond, microsecond of a TIME; all of those of a DATETIME;
// years, months, days, hours, minutes, seconds, milliseconds, microseconds
// of a DURATION (see temporal.Duration.Attribute). Names are
// case-insensitive. NULL has every attribute, as NULL. A MAP's attributes
// are its keys, a VERTEX's and an EDGE's their properties (see
// graphAttribute); those names are case-sensitive and a missing one is NULL.
func Attribute(v Value, name string) (Value, error) {
	if v.IsNull() {
		return Value{}, nil
	}
	if x, ok := graphAttribute(v, name); ok {
		return x, nil // maps, vertices and edges (graph.go)
	}
	n := strings.ToLower(name)
	var dateOK, timeOK bool
	var d temporal.Date
	var t temporal.Time
	switch v.kind {
	case KindDate:
		d, dateOK = temporal.Date(v.i), true
	case KindTime:
		t, timeOK = temporal.Time(v.i), true
	case KindDateTime:
		dt := temporal.DateTime(v.i)
		d, t, dateOK, timeOK = dt.Date(), dt.Time(), true, true
	case KindDuration:
		du, _ := v.DurationVal()
		if x, ok := du.Attribute(n); ok {
			return Int(x), nil
		}
	}
	if dateOK {
		y, m, dd := d.Civil()
		switch n {
		case "year":
			return Int(y), nil
		case "month":
			return Int(m), nil
		case "day":
			return Int(dd), nil
		}
	}
	if timeOK {
		h, mi, s, us := t.Clock()
		switch n {
		case "hour":
			return Int(h), nil
		case "minute":
			return Int(mi), nil
		case "second":
			return Int(s), nil
		case "millisecond":
			return Int(us / 1000), nil
		case "microsecond":
			return Int(us), nil
		}
	}
	return Value{}, fmt.Errorf("%w: %s has no attribute %s", ErrType, v.kind, name)
}
