// Package temporal holds the calendar values of nGQL — DATE, TIME,
// DATETIME and DURATION — in the compact forms that the query engine
// (query/value), the row codec (partition), the wire (commonpb) and the
// client share:
//
//	Date      int32   days since 1970-01-01 in the proleptic Gregorian calendar
//	Time      int64   microseconds since midnight, 0 ≤ t < 86 400 000 000
//	DateTime  int64   microseconds since 1970-01-01T00:00:00 UTC
//	Duration  int32 months + int64 microseconds
//
// Every value is UTC: there is no time zone setting, and a string with an
// offset (2024-01-02T12:00:00+08:00) is converted to UTC when parsed, as
// NebulaGraph does with its timezone_name. Years range over -32768..32767,
// as in NebulaGraph. Precision is the microsecond; finer digits in a string
// are dropped.
//
// Values print as NebulaGraph prints them: 2024-01-02, 12:34:56.000000,
// 2024-01-02T12:34:56.000000, and a duration as P<months>MT<seconds>S with
// nine fractional digits (P0MT93600.000000000S for one day and two hours).
//
// The package has no dependencies within the module, so that any layer can
// use it.
package temporal

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// The range of years, as NebulaGraph's int16 year has it.
const (
	MinYear = -32768
	MaxYear = 32767
)

// Units in microseconds.
const (
	Microsecond int64 = 1
	Millisecond       = 1000 * Microsecond
	Second            = 1000 * Millisecond
	Minute            = 60 * Second
	Hour              = 60 * Minute
	Day               = 24 * Hour
)

// ErrRange is wrapped by errors about values outside the representable
// range; ErrSyntax by errors about strings that do not parse.
var (
	ErrRange  = errors.New("temporal value out of range")
	ErrSyntax = errors.New("invalid temporal string")
)

// The first and last representable dates and datetimes.
var (
	MinDate     = Date(daysFromCivil(MinYear, 1, 1))
	MaxDate     = Date(daysFromCivil(MaxYear, 12, 31))
	MinDateTime = DateTime(int64(MinDate) * Day)
	MaxDateTime = DateTime(int64(MaxDate)*Day + Day - 1)
)

// ---------------------------------------------------------------- civil

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// daysFromCivil is Howard Hinnant's days_from_civil: the day number of
// y-m-d (proleptic Gregorian) counted from 1970-01-01.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// IsLeapYear reports whether y has a February 29.
func IsLeapYear(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// DaysInMonth is the number of days of month m (1..12) of year y.
func DaysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if IsLeapYear(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func checkCivil(y, m, d int64) error {
	if y < MinYear || y > MaxYear {
		return fmt.Errorf("year %d is not in [%d, %d]: %w", y, MinYear, MaxYear, ErrRange)
	}
	if m < 1 || m > 12 {
		return fmt.Errorf("month %d is not in [1, 12]: %w", m, ErrRange)
	}
	if d < 1 || d > DaysInMonth(y, m) {
		return fmt.Errorf("day %d is not in [1, %d] for %d-%02d: %w", d, DaysInMonth(y, m), y, m, ErrRange)
	}
	return nil
}

func checkClock(h, mi, s, us int64) error {
	switch {
	case h < 0 || h > 23:
		return fmt.Errorf("hour %d is not in [0, 23]: %w", h, ErrRange)
	case mi < 0 || mi > 59:
		return fmt.Errorf("minute %d is not in [0, 59]: %w", mi, ErrRange)
	case s < 0 || s > 59:
		return fmt.Errorf("second %d is not in [0, 59]: %w", s, ErrRange)
	case us < 0 || us > 999999:
		return fmt.Errorf("microsecond %d is not in [0, 999999]: %w", us, ErrRange)
	}
	return nil
}

// ---------------------------------------------------------------- Date

// Date is a calendar date: the number of days since 1970-01-01 in the
// proleptic Gregorian calendar. Valid dates lie in [MinDate, MaxDate].
type Date int32

// NewDate returns year-month-day, or an error if that is not a date in range.
func NewDate(year, month, day int64) (Date, error) {
	if err := checkCivil(year, month, day); err != nil {
		return 0, err
	}
	return Date(daysFromCivil(year, month, day)), nil
}

// Valid reports whether d is in [MinDate, MaxDate].
func (d Date) Valid() bool { return d >= MinDate && d <= MaxDate }

// Civil returns d's year, month (1..12) and day (1..31).
func (d Date) Civil() (year, month, day int64) { return civilFromDays(int64(d)) }

// String prints d as NebulaGraph does: year-MM-DD, the year unpadded.
func (d Date) String() string {
	y, m, dd := d.Civil()
	return fmt.Sprintf("%d-%02d-%02d", y, m, dd)
}

// AddDuration returns d moved by du: first by du's months (a day past the
// end of the resulting month is clamped to its last day, as openCypher
// does), then by du's whole days; the part of du below a day is ignored,
// as in NebulaGraph.
func (d Date) AddDuration(du Duration) (Date, error) {
	y, m, dd := d.Civil()
	if du.Months != 0 {
		var err error
		if y, m, err = addMonths(y, m, int64(du.Months)); err != nil {
			return 0, err
		}
		dd = min(dd, DaysInMonth(y, m))
	}
	days := daysFromCivil(y, m, dd) + du.Micros/Day
	if days < int64(MinDate) || days > int64(MaxDate) {
		return 0, fmt.Errorf("date %s + %s: %w", d, du, ErrRange)
	}
	return Date(days), nil
}

// addMonths moves y-m by n months, checking the year range.
func addMonths(y, m, n int64) (int64, int64, error) {
	total := y*12 + (m - 1) + n
	ny, nm := floorDiv(total, 12), floorMod(total, 12)+1
	if ny < MinYear || ny > MaxYear {
		return 0, 0, fmt.Errorf("year %d is not in [%d, %d]: %w", ny, MinYear, MaxYear, ErrRange)
	}
	return ny, nm, nil
}

// ---------------------------------------------------------------- Time

// Time is a time of day: microseconds since midnight, in [0, Day).
type Time int64

// NewTime returns hour:minute:second.micro, or an error if a field is out
// of range.
func NewTime(hour, minute, second, micro int64) (Time, error) {
	if err := checkClock(hour, minute, second, micro); err != nil {
		return 0, err
	}
	return Time(hour*Hour + minute*Minute + second*Second + micro), nil
}

// Valid reports whether t is in [0, Day).
func (t Time) Valid() bool { return t >= 0 && int64(t) < Day }

// Clock returns t's hour, minute, second and microsecond.
func (t Time) Clock() (hour, minute, second, micro int64) {
	u := int64(t)
	return u / Hour, u % Hour / Minute, u % Minute / Second, u % Second
}

// String prints t as NebulaGraph does: HH:MM:SS.ffffff.
func (t Time) String() string {
	h, m, s, us := t.Clock()
	return fmt.Sprintf("%02d:%02d:%02d.%06d", h, m, s, us)
}

// AddDuration returns t moved by du's time part, wrapping around midnight;
// du's months are ignored, as in NebulaGraph.
func (t Time) AddDuration(du Duration) Time {
	return Time(floorMod(int64(t)+floorMod(du.Micros, Day), Day))
}

// ---------------------------------------------------------------- DateTime

// DateTime is an instant: microseconds since 1970-01-01T00:00:00 UTC.
// Valid datetimes lie in [MinDateTime, MaxDateTime].
type DateTime int64

// NewDateTime combines a date and a time of day.
func NewDateTime(d Date, t Time) DateTime { return DateTime(int64(d)*Day + int64(t)) }

// FromUnix returns the datetime sec seconds after the Unix epoch, or an
// error if that is out of range.
func FromUnix(sec int64) (DateTime, error) {
	if sec < int64(MinDateTime)/Second || sec > int64(MaxDateTime)/Second {
		return 0, fmt.Errorf("timestamp %d: %w", sec, ErrRange)
	}
	return DateTime(sec * Second), nil
}

// Valid reports whether dt is in [MinDateTime, MaxDateTime].
func (dt DateTime) Valid() bool { return dt >= MinDateTime && dt <= MaxDateTime }

// Date is dt's date.
func (dt DateTime) Date() Date { return Date(floorDiv(int64(dt), Day)) }

// Time is dt's time of day.
func (dt DateTime) Time() Time { return Time(floorMod(int64(dt), Day)) }

// Unix is dt in whole seconds since the Unix epoch, rounded down.
func (dt DateTime) Unix() int64 { return floorDiv(int64(dt), Second) }

// String prints dt as NebulaGraph does: year-MM-DDTHH:MM:SS.ffffff.
func (dt DateTime) String() string { return dt.Date().String() + "T" + dt.Time().String() }

// AddDuration returns dt moved by du: first by its months (clamping the
// day to the end of the month), then by its microseconds.
func (dt DateTime) AddDuration(du Duration) (DateTime, error) {
	d, t := dt.Date(), dt.Time()
	if du.Months != 0 {
		y, m, dd := d.Civil()
		var err error
		if y, m, err = addMonths(y, m, int64(du.Months)); err != nil {
			return 0, err
		}
		d = Date(daysFromCivil(y, m, min(dd, DaysInMonth(y, m))))
	}
	sum, ok := add64(int64(NewDateTime(d, t)), du.Micros)
	if !ok || !DateTime(sum).Valid() {
		return 0, fmt.Errorf("datetime %s + %s: %w", dt, du, ErrRange)
	}
	return DateTime(sum), nil
}

// Sub returns dt - other as a duration of microseconds (no months).
func (dt DateTime) Sub(other DateTime) Duration {
	// Both are in range, so the difference fits easily.
	return Duration{Micros: int64(dt) - int64(other)}
}

// ---------------------------------------------------------------- Duration

// Duration is an amount of time: Months (whose length in days varies) plus
// Micros (days and below). Durations compare only for equality.
type Duration struct {
	Months int32
	Micros int64
}

// String prints du as NebulaGraph 3.x does: P<months>MT<seconds>S with the
// seconds carrying nine fractional digits, e.g. P0MT93600.000000000S.
// A negative time part prints with one leading minus: P0MT-1.500000000S.
func (du Duration) String() string {
	var b strings.Builder
	b.WriteByte('P')
	b.WriteString(strconv.FormatInt(int64(du.Months), 10))
	b.WriteString("MT")
	u := du.Micros
	neg := u < 0
	var mag uint64
	if neg {
		mag = uint64(-(u + 1)) + 1 // |MinInt64| without overflow
		b.WriteByte('-')
	} else {
		mag = uint64(u)
	}
	b.WriteString(strconv.FormatUint(mag/uint64(Second), 10))
	fmt.Fprintf(&b, ".%06d000S", mag%uint64(Second))
	return b.String()
}

// Neg returns -du, or an error if a field overflows.
func (du Duration) Neg() (Duration, error) {
	if du.Months == math.MinInt32 || du.Micros == math.MinInt64 {
		return Duration{}, fmt.Errorf("-%s: %w", du, ErrRange)
	}
	return Duration{Months: -du.Months, Micros: -du.Micros}, nil
}

// Add returns du + o, or an error if a field overflows.
func (du Duration) Add(o Duration) (Duration, error) {
	m := int64(du.Months) + int64(o.Months)
	us, ok := add64(du.Micros, o.Micros)
	if !ok || m < math.MinInt32 || m > math.MaxInt32 {
		return Duration{}, fmt.Errorf("%s + %s: %w", du, o, ErrRange)
	}
	return Duration{Months: int32(m), Micros: us}, nil
}

// Attribute returns a component of du by its nGQL name: years, months (of
// the year), days, hours (of the day), minutes, seconds, milliseconds and
// microseconds (of the second). Each truncates toward zero, as
// NebulaGraph's accessors do.
func (du Duration) Attribute(name string) (int64, bool) {
	m, u := int64(du.Months), du.Micros
	switch name {
	case "years":
		return m / 12, true
	case "months":
		return m % 12, true
	case "days":
		return u / Day, true
	case "hours":
		return u % Day / Hour, true
	case "minutes":
		return u % Hour / Minute, true
	case "seconds":
		return u % Minute / Second, true
	case "milliseconds":
		return u % Second / Millisecond, true
	case "microseconds":
		return u % Second, true
	}
	return 0, false
}

// DurationUnits are the field names of a duration map, each with its
// length: months for years, quarters and months, microseconds otherwise.
var durationUnits = map[string]struct {
	months bool
	scale  int64
}{
	"years": {true, 12}, "quarters": {true, 3}, "months": {true, 1},
	"weeks": {false, 7 * Day}, "days": {false, Day}, "hours": {false, Hour},
	"minutes": {false, Minute}, "seconds": {false, Second},
	"milliseconds": {false, Millisecond}, "microseconds": {false, Microsecond},
}

// DurationFromFields builds a duration from named amounts, as the map form
// duration({days: 1, hours: 2}) gives them. Names are those of
// durationUnits (years, quarters, months, weeks, days, hours, minutes,
// seconds, milliseconds, microseconds), lower case.
func DurationFromFields(fields map[string]int64) (Duration, error) {
	var months, micros int64
	for name, n := range fields {
		u, ok := durationUnits[name]
		if !ok {
			return Duration{}, fmt.Errorf("unknown duration field %q (want years, quarters, months, weeks, days, hours, minutes, seconds, milliseconds or microseconds): %w", name, ErrSyntax)
		}
		p, ok := mul64(n, u.scale)
		if u.months {
			if ok {
				months, ok = add64(months, p)
			}
		} else if ok {
			micros, ok = add64(micros, p)
		}
		if !ok {
			return Duration{}, fmt.Errorf("duration field %s: %d: %w", name, n, ErrRange)
		}
	}
	if months < math.MinInt32 || months > math.MaxInt32 {
		return Duration{}, fmt.Errorf("duration of %d months: %w", months, ErrRange)
	}
	return Duration{Months: int32(months), Micros: micros}, nil
}

// DateFromFields builds a date from year, month and day (month and day
// default to 1).
func DateFromFields(fields map[string]int64) (Date, error) {
	if err := onlyFields(fields, "year", "month", "day"); err != nil {
		return 0, err
	}
	y, ok := fields["year"]
	if !ok {
		return 0, fmt.Errorf("a date needs a year: %w", ErrSyntax)
	}
	return NewDate(y, orDefault(fields, "month", 1), orDefault(fields, "day", 1))
}

// TimeFromFields builds a time from hour, minute, second, millisecond and
// microsecond, all defaulting to 0.
func TimeFromFields(fields map[string]int64) (Time, error) {
	if err := onlyFields(fields, "hour", "minute", "second", "millisecond", "microsecond"); err != nil {
		return 0, err
	}
	return timeFromFields(fields)
}

func timeFromFields(fields map[string]int64) (Time, error) {
	ms, us := orDefault(fields, "millisecond", 0), orDefault(fields, "microsecond", 0)
	if ms < 0 || ms > 999 {
		return 0, fmt.Errorf("millisecond %d is not in [0, 999]: %w", ms, ErrRange)
	}
	if _, ok := fields["millisecond"]; ok && (us < 0 || us > 999) {
		return 0, fmt.Errorf("microsecond %d is not in [0, 999] when millisecond is given: %w", us, ErrRange)
	}
	return NewTime(orDefault(fields, "hour", 0), orDefault(fields, "minute", 0), orDefault(fields, "second", 0), ms*1000+us)
}

// DateTimeFromFields builds a datetime from the fields of a date and a time.
func DateTimeFromFields(fields map[string]int64) (DateTime, error) {
	if err := onlyFields(fields, "year", "month", "day", "hour", "minute", "second", "millisecond", "microsecond"); err != nil {
		return 0, err
	}
	y, ok := fields["year"]
	if !ok {
		return 0, fmt.Errorf("a datetime needs a year: %w", ErrSyntax)
	}
	d, err := NewDate(y, orDefault(fields, "month", 1), orDefault(fields, "day", 1))
	if err != nil {
		return 0, err
	}
	t, err := timeFromFields(fields)
	if err != nil {
		return 0, err
	}
	return NewDateTime(d, t), nil
}

func onlyFields(fields map[string]int64, names ...string) error {
next:
	for k := range fields {
		for _, n := range names {
			if k == n {
				continue next
			}
		}
		return fmt.Errorf("unknown field %q (want %s): %w", k, strings.Join(names, ", "), ErrSyntax)
	}
	return nil
}

func orDefault(fields map[string]int64, name string, def int64) int64 {
	if v, ok := fields[name]; ok {
		return v
	}
	return def
}

// ---------------------------------------------------------------- arithmetic

func add64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	hi, lo := bits.Mul64(uint64(absU(a)), uint64(absU(b)))
	neg := (a < 0) != (b < 0)
	if hi != 0 || lo > math.MaxInt64+boolU(neg) {
		return 0, false
	}
	if neg {
		return int64(-lo), true // -(2^63) wraps to MinInt64, as wanted
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-(a + 1)) + 1
	}
	return uint64(a)
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
