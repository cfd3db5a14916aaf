package temporal

import (
	"fmt"
	"strings"
)

// Strings accepted by the parsers (surrounding white space is ignored):
//
//	date      [+|-]Y[-M[-D]]                  2024-01-02, 2024-1-2, 2024-03, 23333
//	time      H:M[:S[.fraction]][zone]       12:34:56, 1:2:3.5, 12:34:56.123456Z, 08:00+08:00
//	datetime  date[(T|space)time]            2024-01-02T12:34:56.5, 2024-01-02 12:34:56+08:00
//	zone      Z | (+|-)HH[:MM] | (+|-)HHMM    converted to UTC
//	          and, on a datetime, [Area/City] after or instead of it: the
//	          IANA zone's offset at that local time (zone.go); after Z
//	          the name does not move the instant
//	duration  [-]P[nY][nM][nW][nD][T[nH][nM][n[.fraction]S]]   ISO 8601, e.g. P1DT2H,
//	          PT1.5S, P0MT93600.000000000S; numbers may carry a sign
//
// Fractions of a second keep six digits (microseconds) and drop the rest.
// A time of day alone takes an offset, not a zone name: it has no date to
// choose the zone's offset by.

// ParseDate parses a date string.
func ParseDate(s string) (Date, error) {
	p := scanner{s: strings.TrimSpace(s), what: "date"}
	d, err := p.date()
	if err != nil {
		return 0, err
	}
	if !p.done() {
		return 0, p.fail("unexpected %q", p.rest())
	}
	return d, nil
}

// ParseTime parses a time string; an offset converts it to UTC, wrapping
// around midnight.
func ParseTime(s string) (Time, error) {
	p := scanner{s: strings.TrimSpace(s), what: "time"}
	t, z, err := p.clock()
	if err != nil {
		return 0, err
	}
	if !p.done() {
		return 0, p.fail("unexpected %q", p.rest())
	}
	if z.name != "" {
		return 0, p.fail("a time of day has no date to choose the offset of %s by; give an offset such as +01:00", z.name)
	}
	return Time(floorMod(int64(t)-z.offset, Day)), nil
}

// ParseDateTime parses a datetime string; a date alone is midnight, and an
// offset converts it to UTC.
func ParseDateTime(s string) (DateTime, error) {
	p := scanner{s: strings.TrimSpace(s), what: "datetime"}
	d, err := p.date()
	if err != nil {
		return 0, err
	}
	dt := NewDateTime(d, 0)
	if p.done() {
		return dt, nil
	}
	if c := p.peek(); c != 'T' && c != 't' && c != ' ' {
		return 0, p.fail("expected T or a space between the date and the time, got %q", p.rest())
	}
	p.i++
	t, z, err := p.clock()
	if err != nil {
		return 0, err
	}
	if !p.done() {
		return 0, p.fail("unexpected %q", p.rest())
	}
	if z.name != "" {
		convert := LocalToUTC
		if z.utc {
			convert = func(utc DateTime, name string, _ int64, _ bool) (DateTime, error) { return UTCInZone(utc, name) }
		}
		dt, err := convert(NewDateTime(d, t), z.name, z.offset, z.hasOffset)
		if err != nil {
			return 0, fmt.Errorf("datetime %q: %w", s, err)
		}
		return dt, nil
	}
	dt = NewDateTime(d, t) - DateTime(z.offset)
	if !dt.Valid() {
		return 0, fmt.Errorf("datetime %q: %w", s, ErrRange)
	}
	return dt, nil
}

// ParseDuration parses an ISO 8601 duration such as P1Y2M3DT4H5M6.5S.
func ParseDuration(s string) (Duration, error) {
	p := scanner{s: strings.TrimSpace(s), what: "duration"}
	neg := p.accept('-')
	if !p.accept('P') && !p.accept('p') {
		return Duration{}, p.fail("a duration starts with P, as in P1DT2H")
	}
	fields := map[string]int64{}
	inTime, seen := false, false
	var frac int64 // microseconds of a fractional S
	for !p.done() {
		if !inTime && (p.accept('T') || p.accept('t')) {
			inTime = true
			continue
		}
		n, err := p.signedInt()
		if err != nil {
			return Duration{}, err
		}
		var f int64
		hasFrac := false
		if p.peek() == '.' || p.peek() == ',' {
			p.i++
			if f, err = p.fraction(); err != nil {
				return Duration{}, err
			}
			hasFrac = true
		}
		unit := p.peek()
		p.i++
		var name string
		switch {
		case !inTime && (unit == 'Y' || unit == 'y'):
			name = "years"
		case !inTime && (unit == 'M' || unit == 'm'):
			name = "months"
		case !inTime && (unit == 'W' || unit == 'w'):
			name = "weeks"
		case !inTime && (unit == 'D' || unit == 'd'):
			name = "days"
		case inTime && (unit == 'H' || unit == 'h'):
			name = "hours"
		case inTime && (unit == 'M' || unit == 'm'):
			name = "minutes"
		case inTime && (unit == 'S' || unit == 's'):
			name = "seconds"
			if hasFrac {
				if strings.HasPrefix(p.s[p.numStart:], "-") {
					f = -f
				}
				frac = f
			}
		default:
			p.i--
			return Duration{}, p.fail("expected a unit (Y, M, W, D before T; H, M, S after it), got %q", p.rest())
		}
		if hasFrac && name != "seconds" {
			return Duration{}, p.fail("only seconds may have a fraction")
		}
		if _, dup := fields[name]; dup {
			return Duration{}, p.fail("%s given twice", name)
		}
		fields[name] = n
		seen = true
	}
	if !seen {
		return Duration{}, p.fail("no amount")
	}
	du, err := DurationFromFields(fields)
	if err != nil {
		return Duration{}, err
	}
	if du, err = du.Add(Duration{Micros: frac}); err != nil {
		return Duration{}, err
	}
	if neg {
		return du.Neg()
	}
	return du, nil
}

type scanner struct {
	s        string
	i        int
	what     string
	numStart int // where the last signedInt began
}

func (p *scanner) done() bool   { return p.i >= len(p.s) }
func (p *scanner) rest() string { return p.s[p.i:] }

func (p *scanner) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *scanner) accept(c byte) bool {
	if p.peek() == c && !p.done() {
		p.i++
		return true
	}
	return false
}

func (p *scanner) fail(format string, args ...any) error {
	return fmt.Errorf("%s %q: %s: %w", p.what, p.s, fmt.Sprintf(format, args...), ErrSyntax)
}

// digits reads 1 to max decimal digits.
func (p *scanner) digits(max int, field string) (int64, error) {
	start := p.i
	var n int64
	for !p.done() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		if p.i-start == max {
			return 0, p.fail("%s has more than %d digits", field, max)
		}
		n = n*10 + int64(p.s[p.i]-'0')
		p.i++
	}
	if p.i == start {
		return 0, p.fail("expected the %s", field)
	}
	return n, nil
}

// signedInt reads an optionally signed integer of up to 18 digits.
func (p *scanner) signedInt() (int64, error) {
	p.numStart = p.i
	neg := p.accept('-')
	if !neg {
		p.accept('+')
	}
	n, err := p.digits(18, "amount")
	if neg {
		n = -n
	}
	return n, err
}

// fraction reads the digits after a decimal point as microseconds,
// dropping digits past the sixth.
func (p *scanner) fraction() (int64, error) {
	start := p.i
	var us int64
	for !p.done() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		if p.i-start < 6 {
			us = us*10 + int64(p.s[p.i]-'0')
		}
		p.i++
	}
	n := p.i - start
	if n == 0 {
		return 0, p.fail("expected digits after the decimal point")
	}
	for ; n < 6; n++ {
		us *= 10
	}
	return us, nil
}

func (p *scanner) date() (Date, error) {
	neg := p.accept('-')
	if !neg {
		p.accept('+')
	}
	y, err := p.digits(5, "year")
	if err != nil {
		return 0, err
	}
	if neg {
		y = -y
	}
	m, d := int64(1), int64(1)
	if p.accept('-') {
		if m, err = p.digits(2, "month"); err != nil {
			return 0, err
		}
		if p.accept('-') {
			if d, err = p.digits(2, "day"); err != nil {
				return 0, err
			}
		}
	}
	date, err := NewDate(y, m, d)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", p.what, p.s, err)
	}
	return date, nil
}

// zoneSpec is what follows a clock time: an offset east of UTC in
// microseconds, if one was written, and a zone name, if one was.
type zoneSpec struct {
	offset    int64
	hasOffset bool
	utc       bool // Z: the instant is UTC; a name then only says where
	name      string
}

// clock reads H:M[:S[.f]][zone] and returns the local time and its zone.
func (p *scanner) clock() (Time, zoneSpec, error) {
	h, err := p.digits(2, "hour")
	if err != nil {
		return 0, zoneSpec{}, err
	}
	if !p.accept(':') {
		return 0, zoneSpec{}, p.fail("expected :MM after the hour")
	}
	mi, err := p.digits(2, "minute")
	if err != nil {
		return 0, zoneSpec{}, err
	}
	var s, us int64
	if p.accept(':') {
		if s, err = p.digits(2, "second"); err != nil {
			return 0, zoneSpec{}, err
		}
		if p.accept('.') || p.accept(',') {
			if us, err = p.fraction(); err != nil {
				return 0, zoneSpec{}, err
			}
		}
	}
	t, err := NewTime(h, mi, s, us)
	if err != nil {
		return 0, zoneSpec{}, fmt.Errorf("%s %q: %w", p.what, p.s, err)
	}
	z, err := p.zone()
	return t, z, err
}

func (p *scanner) zone() (zoneSpec, error) {
	var z zoneSpec
	switch c := p.peek(); {
	case p.done() || c == '[':
	case c == 'Z' || c == 'z':
		p.i++
		z.hasOffset, z.utc = true, true
	case c == '+' || c == '-':
		p.i++
		start := p.i
		var h int64
		for p.i-start < 2 && p.peek() >= '0' && p.peek() <= '9' {
			h = h*10 + int64(p.peek()-'0')
			p.i++
		}
		if p.i == start {
			return z, p.fail("expected the zone hour")
		}
		var err error
		var m int64
		if p.i-start == 2 && !p.done() && p.peek() != '[' {
			p.accept(':')
			if m, err = p.digits(2, "zone minute"); err != nil {
				return z, err
			}
		}
		if h > 18 || m > 59 {
			return z, p.fail("zone offset %02d:%02d out of range", h, m)
		}
		z.offset, z.hasOffset = h*Hour+m*Minute, true
		if c == '-' {
			z.offset = -z.offset
		}
	default:
		return z, p.fail("unexpected %q", p.rest())
	}
	if p.accept('[') {
		end := strings.IndexByte(p.rest(), ']')
		if end < 0 {
			return z, p.fail("the zone name has no closing ]")
		}
		z.name = p.rest()[:end]
		if z.name == "" {
			return z, p.fail("empty zone name in []")
		}
		p.i += end + 1
	}
	return z, nil
}

// ParseFields parses the text of a map of integers, {name: n, ...}, as the
// string form of date({year: 2024, month: 1}) and duration({days: 1}).
// Names are lower-cased; a name given twice is an error.
func ParseFields(s string) (map[string]int64, error) {
	p := scanner{s: strings.TrimSpace(s), what: "map"}
	if !p.accept('{') {
		return nil, p.fail("expected {")
	}
	fields := map[string]int64{}
	p.space()
	if p.accept('}') {
		p.space()
		if !p.done() {
			return nil, p.fail("unexpected %q", p.rest())
		}
		return fields, nil
	}
	for {
		p.space()
		start := p.i
		for !p.done() && (isLetter(p.peek()) || p.i > start && p.peek() >= '0' && p.peek() <= '9') {
			p.i++
		}
		if p.i == start {
			return nil, p.fail("expected a field name")
		}
		name := strings.ToLower(p.s[start:p.i])
		p.space()
		if !p.accept(':') {
			return nil, p.fail("expected : after %s", name)
		}
		p.space()
		n, err := p.signedInt()
		if err != nil {
			return nil, err
		}
		if _, dup := fields[name]; dup {
			return nil, p.fail("%s given twice", name)
		}
		fields[name] = n
		p.space()
		if p.accept('}') {
			break
		}
		if !p.accept(',') {
			return nil, p.fail("expected , or }")
		}
	}
	p.space()
	if !p.done() {
		return nil, p.fail("unexpected %q", p.rest())
	}
	return fields, nil
}

func (p *scanner) space() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\n' || p.peek() == '\r') {
		p.i++
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
