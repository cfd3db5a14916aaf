package temporal

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestCivilMatchesTimePackage(t *testing.T) {
	// Every 97th day over the whole range, plus the ends, against Go's
	// proleptic Gregorian calendar.
	for days := int64(MinDate); days <= int64(MaxDate); days += 97 {
		checkCivilDay(t, days)
	}
	checkCivilDay(t, int64(MinDate))
	checkCivilDay(t, int64(MaxDate))
	for days := int64(-800); days < 800; days++ {
		checkCivilDay(t, days)
	}
}

func checkCivilDay(t *testing.T, days int64) {
	t.Helper()
	y, m, d := Date(days).Civil()
	want := time.Unix(days*86400, 0).UTC()
	if y != int64(want.Year()) || m != int64(want.Month()) || d != int64(want.Day()) {
		t.Fatalf("day %d: civil %d-%d-%d, time package %s", days, y, m, d, want)
	}
	if back := daysFromCivil(y, m, d); back != days {
		t.Fatalf("day %d → %d-%d-%d → %d", days, y, m, d, back)
	}
}

func TestFormat(t *testing.T) {
	d, _ := NewDate(2024, 1, 2)
	tm, _ := NewTime(12, 34, 56, 7)
	for _, c := range []struct{ got, want string }{
		{d.String(), "2024-01-02"},
		{Date(0).String(), "1970-01-01"},
		{MinDate.String(), "-32768-01-01"},
		{MaxDate.String(), "32767-12-31"},
		{tm.String(), "12:34:56.000007"},
		{Time(0).String(), "00:00:00.000000"},
		{NewDateTime(d, tm).String(), "2024-01-02T12:34:56.000007"},
		{DateTime(-1).String(), "1969-12-31T23:59:59.999999"},
		{Duration{Micros: Day + 2*Hour}.String(), "P0MT93600.000000000S"},
		{Duration{Months: 14, Micros: 1500 * Millisecond}.String(), "P14MT1.500000000S"},
		{Duration{Micros: -1500 * Millisecond}.String(), "P0MT-1.500000000S"},
		{Duration{Micros: math.MinInt64}.String(), "P0MT-9223372036854.775808000S"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	date := func(y, m, d int64) Date {
		x, err := NewDate(y, m, d)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	clock := func(h, m, s, us int64) Time {
		x, err := NewTime(h, m, s, us)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for s, want := range map[string]Date{
		"2024-01-02": date(2024, 1, 2), " 2024-1-2 ": date(2024, 1, 2), "2024-03": date(2024, 3, 1),
		"23333": date(23333, 1, 1), "-123-12-03": date(-123, 12, 3), "2024-02-29": date(2024, 2, 29),
		"+5-06-07": date(5, 6, 7),
	} {
		if got, err := ParseDate(s); err != nil || got != want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]Time{
		"12:34:56": clock(12, 34, 56, 0), "1:2:3": clock(1, 2, 3, 0), "12:34": clock(12, 34, 0, 0),
		"12:34:56.5": clock(12, 34, 56, 500000), "12:34:56.123456789": clock(12, 34, 56, 123456),
		"12:00:00Z": clock(12, 0, 0, 0), "08:30:00+08:00": clock(0, 30, 0, 0), "01:00:00+0200": clock(23, 0, 0, 0),
		"23:00:00-02": clock(1, 0, 0, 0),
	} {
		if got, err := ParseTime(s); err != nil || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]DateTime{
		"2024-01-02T12:34:56":          NewDateTime(date(2024, 1, 2), clock(12, 34, 56, 0)),
		"2024-01-02 12:34:56.000001":   NewDateTime(date(2024, 1, 2), clock(12, 34, 56, 1)),
		"2024-01-02":                   NewDateTime(date(2024, 1, 2), 0),
		"2024-01-02T02:00:00+08:00":    NewDateTime(date(2024, 1, 1), clock(18, 0, 0, 0)),
		"1970-01-01T00:00:00.000000":   0,
		"2024-01-02T12:34:56.000000":   NewDateTime(date(2024, 1, 2), clock(12, 34, 56, 0)),
		"-32768-01-01T00:00:00":        MinDateTime,
		"32767-12-31T23:59:59.9999999": MaxDateTime,
	} {
		if got, err := ParseDateTime(s); err != nil || got != want {
			t.Errorf("ParseDateTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]Duration{
		"P1DT2H":               {Micros: Day + 2*Hour},
		"PT1.5S":               {Micros: 1500 * Millisecond},
		"P1Y2M3W4DT5H6M7.25S":  {Months: 14, Micros: 25*Day + 5*Hour + 6*Minute + 7250*Millisecond},
		"P0MT93600.000000000S": {Micros: Day + 2*Hour},
		"-P1D":                 {Micros: -Day},
		"P-1D":                 {Micros: -Day},
		"PT-1.5S":              {Micros: -1500 * Millisecond},
		"PT-0.5S":              {Micros: -500 * Millisecond},
		"p1m":                  {Months: 1},
	} {
		if got, err := ParseDuration(s); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2024-13-01", "2024-02-30", "2024-01-02x", "99999", "33000", "2024--01", "abc", "2024-01-02T"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) succeeded", s)
		}
	}
	for _, s := range []string{"", "24:00:00", "12", "12:60", "12:00:60", "12:00:00.", "12:00:00+19:00", "12:00:00 x", "123:00"} {
		if _, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) succeeded", s)
		}
	}
	for _, s := range []string{"2024-01-02X12:00:00", "2024-01-02T25:00:00", "32767-12-31T23:00:00-02:00"} {
		if _, err := ParseDateTime(s); err == nil {
			t.Errorf("ParseDateTime(%q) succeeded", s)
		}
	}
	for _, s := range []string{"", "P", "PT", "1D", "P1H", "PT1D", "P1.5D", "P1D1D", "P1", "PT999999999999999999H", "P99999999999Y"} {
		if _, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", s)
		}
	}
	if _, err := ParseDate("2024-13-01"); !errors.Is(err, ErrRange) {
		t.Errorf("month 13: %v, want ErrRange", err)
	}
	if _, err := ParseDate("x"); !errors.Is(err, ErrSyntax) {
		t.Errorf("x: %v, want ErrSyntax", err)
	}
}

func TestFields(t *testing.T) {
	f, err := ParseFields(" {days: 1, Hours:2 , seconds: -3} ")
	if err != nil || len(f) != 3 || f["days"] != 1 || f["hours"] != 2 || f["seconds"] != -3 {
		t.Fatalf("ParseFields = %v, %v", f, err)
	}
	if f, err := ParseFields("{}"); err != nil || len(f) != 0 {
		t.Fatalf("ParseFields({}) = %v, %v", f, err)
	}
	for _, s := range []string{"", "{", "{a}", "{a:}", "{a:1", "{a:1,}", "{a:1}x", "{a:1, a:2}", "{1:2}", "{a: 1.5}"} {
		if _, err := ParseFields(s); err == nil {
			t.Errorf("ParseFields(%q) succeeded", s)
		}
	}
	du, err := DurationFromFields(map[string]int64{"years": 1, "quarters": 1, "weeks": 1, "days": 1, "milliseconds": 2, "microseconds": 3})
	if err != nil || du != (Duration{Months: 15, Micros: 8*Day + 2003}) {
		t.Errorf("DurationFromFields = %v, %v", du, err)
	}
	if _, err := DurationFromFields(map[string]int64{"days": math.MaxInt64}); !errors.Is(err, ErrRange) {
		t.Errorf("huge days: %v", err)
	}
	if _, err := DurationFromFields(map[string]int64{"years": math.MaxInt32}); !errors.Is(err, ErrRange) {
		t.Errorf("huge years: %v", err)
	}
	if _, err := DurationFromFields(map[string]int64{"fortnights": 1}); err == nil {
		t.Errorf("unknown field accepted")
	}
	d, err := DateFromFields(map[string]int64{"year": -123, "month": 12, "day": 3})
	if err != nil || d.String() != "-123-12-03" {
		t.Errorf("DateFromFields = %v, %v", d, err)
	}
	if _, err := DateFromFields(map[string]int64{"month": 1}); err == nil {
		t.Errorf("date without a year accepted")
	}
	tm, err := TimeFromFields(map[string]int64{"hour": 1, "millisecond": 2, "microsecond": 3})
	if err != nil || tm.String() != "01:00:00.002003" {
		t.Errorf("TimeFromFields = %v, %v", tm, err)
	}
	if _, err := TimeFromFields(map[string]int64{"millisecond": 1, "microsecond": 1000}); err == nil {
		t.Errorf("microsecond 1000 with milliseconds accepted")
	}
	dt, err := DateTimeFromFields(map[string]int64{"year": 2024, "hour": 23, "microsecond": 999999})
	if err != nil || dt.String() != "2024-01-01T23:00:00.999999" {
		t.Errorf("DateTimeFromFields = %v, %v", dt, err)
	}
	if _, err := DateTimeFromFields(map[string]int64{"year": 2024, "day": 0}); err == nil {
		t.Errorf("day 0 accepted")
	}
}

func TestArithmetic(t *testing.T) {
	mustDate := func(s string) Date {
		d, err := ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	mustDT := func(s string) DateTime {
		d, err := ParseDateTime(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		d    string
		du   Duration
		want string
	}{
		{"2024-01-31", Duration{Months: 1}, "2024-02-29"},
		{"2023-01-31", Duration{Months: 1}, "2023-02-28"},
		{"2024-01-02", Duration{Micros: Day + 2*Hour}, "2024-01-03"},
		{"2024-01-02", Duration{Micros: -Day - 2*Hour}, "2024-01-01"},
		{"2024-03-31", Duration{Months: -13}, "2023-02-28"},
		{"2024-01-02", Duration{Months: 12, Micros: -Day}, "2025-01-01"},
	} {
		got, err := mustDate(c.d).AddDuration(c.du)
		if err != nil || got.String() != c.want {
			t.Errorf("%s + %s = %v, %v; want %s", c.d, c.du, got, err, c.want)
		}
	}
	if _, err := MaxDate.AddDuration(Duration{Micros: Day}); !errors.Is(err, ErrRange) {
		t.Errorf("MaxDate + 1 day: %v", err)
	}
	if _, err := MinDate.AddDuration(Duration{Months: -1}); !errors.Is(err, ErrRange) {
		t.Errorf("MinDate - 1 month: %v", err)
	}
	for _, c := range []struct {
		dt   string
		du   Duration
		want string
	}{
		{"2024-01-31T12:00:00", Duration{Months: 1, Micros: 13 * Hour}, "2024-03-01T01:00:00.000000"},
		{"2024-01-01T00:00:00", Duration{Micros: -1}, "2023-12-31T23:59:59.999999"},
	} {
		got, err := mustDT(c.dt).AddDuration(c.du)
		if err != nil || got.String() != c.want {
			t.Errorf("%s + %s = %v, %v; want %s", c.dt, c.du, got, err, c.want)
		}
	}
	if _, err := MaxDateTime.AddDuration(Duration{Micros: 1}); !errors.Is(err, ErrRange) {
		t.Errorf("MaxDateTime + 1us: %v", err)
	}
	if _, err := MaxDateTime.AddDuration(Duration{Micros: math.MaxInt64}); !errors.Is(err, ErrRange) {
		t.Errorf("MaxDateTime + max: %v", err)
	}
	tm, _ := ParseTime("23:00:00")
	if got := tm.AddDuration(Duration{Months: 5, Micros: 2 * Hour}); got.String() != "01:00:00.000000" {
		t.Errorf("23:00 + 2h = %s", got)
	}
	if got := tm.AddDuration(Duration{Micros: -25 * Hour}); got.String() != "22:00:00.000000" {
		t.Errorf("23:00 - 25h = %s", got)
	}
	if got := mustDT("2024-01-02T00:00:00").Sub(mustDT("2024-01-01T00:00:00")); got != (Duration{Micros: Day}) {
		t.Errorf("Sub = %v", got)
	}
	if _, err := (Duration{Months: math.MinInt32}).Neg(); err == nil {
		t.Errorf("Neg overflow not reported")
	}
	if _, err := (Duration{Micros: math.MaxInt64}).Add(Duration{Micros: 1}); err == nil {
		t.Errorf("Add overflow not reported")
	}
	if dt, err := FromUnix(1704067200); err != nil || dt.String() != "2024-01-01T00:00:00.000000" || dt.Unix() != 1704067200 {
		t.Errorf("FromUnix = %v, %v", dt, err)
	}
	if _, err := FromUnix(math.MaxInt64); err == nil {
		t.Errorf("FromUnix(max) succeeded")
	}
	if DateTime(-1).Unix() != -1 || DateTime(-1).Date() != -1 {
		t.Errorf("negative datetimes round down")
	}
}

func TestDurationAttributes(t *testing.T) {
	du := Duration{Months: 14, Micros: 2*Day + 3*Hour + 4*Minute + 5*Second + 6789}
	for name, want := range map[string]int64{"years": 1, "months": 2, "days": 2, "hours": 3, "minutes": 4, "seconds": 5, "milliseconds": 6, "microseconds": 6789} {
		if got, ok := du.Attribute(name); !ok || got != want {
			t.Errorf("%s = %d, %v; want %d", name, got, ok, want)
		}
	}
	if _, ok := du.Attribute("weeks"); ok {
		t.Errorf("weeks is not an attribute")
	}
}

// TestNamedZones: a zone name gives the offset of that local time, the
// repeated autumn hour takes the offset written next to the name, and
// what the zone never uses there is refused.
func TestNamedZones(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "2024-07-01T12:00:00[Europe/Berlin]", want: "2024-07-01T10:00:00.000000"},
		{in: "2024-01-01T12:00:00[Europe/Berlin]", want: "2024-01-01T11:00:00.000000"},
		{in: "2024-01-01 08:00[Asia/Shanghai]", want: "2024-01-01T00:00:00.000000"},
		{in: "2024-01-01T00:00:00Z[UTC]", want: "2024-01-01T00:00:00.000000"},
		// 02:30 happens twice on 2024-10-27 in Berlin.
		{in: "2024-10-27T02:30:00+02:00[Europe/Berlin]", want: "2024-10-27T00:30:00.000000"},
		{in: "2024-10-27T02:30:00+01:00[Europe/Berlin]", want: "2024-10-27T01:30:00.000000"},
		{in: "2024-10-27T02:30:00+03:00[Europe/Berlin]", err: "offset +03:00 is not what Europe/Berlin uses at 2024-10-27T02:30:00.000000 (it uses +01:00 or +02:00)"},
		// Without an offset, a repeated time is its earlier instant (the
		// offset before the change), on either side of Greenwich.
		{in: "2024-10-27T02:30:00[Europe/Berlin]", want: "2024-10-27T00:30:00.000000"},
		{in: "2024-11-03T01:30:00[America/New_York]", want: "2024-11-03T05:30:00.000000"},
		// A skipped time moves forward by the gap: 02:30 is 03:30 summer time.
		{in: "2024-03-31T02:30:00[Europe/Berlin]", want: "2024-03-31T01:30:00.000000"},
		{in: "2024-03-10T02:30:00[America/New_York]", want: "2024-03-10T07:30:00.000000"},
		{in: "2024-03-31T02:30:00+01:00[Europe/Berlin]", err: "does not exist in Europe/Berlin: the clocks skip from +01:00 to +02:00"},
		// After Z the instant is UTC; the name must still be a zone.
		{in: "2024-07-01T12:00:00Z[Europe/Berlin]", want: "2024-07-01T12:00:00.000000"},
		{in: "2024-07-01T12:00:00Z[Mars/Base]", err: `unknown time zone "Mars/Base"`},
		{in: "1800-01-01T00:00:00+00:10[Europe/Paris]", err: "(it uses +00:09:21)"},
		// Only names of the embedded database: not the host's files.
		{in: "2024-01-01T00:00:00[localtime]", err: "unknown time zone"},
		{in: "2024-01-01T00:00:00[posixrules]", err: "unknown time zone"},
		{in: "2024-01-01T00:00:00[Europe/./Berlin]", err: "unknown time zone"},
		{in: "2024-01-01T00:00:00[/usr/share/zoneinfo/UTC]", err: "unknown time zone"},
		// Before standard time, Paris kept its local mean time, 9 min
		// 21 s east of Greenwich.
		{in: "-2000-01-01T00:00:00[Europe/Paris]", want: "-2001-12-31T23:50:39.000000"},
		{in: "2024-01-01T00:00:00[Nowhere/Land]", err: `unknown time zone "Nowhere/Land"`},
		{in: "2024-01-01T00:00:00[../../etc/passwd]", err: "unknown time zone"},
		{in: "2024-01-01T00:00:00[]", err: "empty zone name"},
		{in: "2024-01-01T00:00:00[UTC]x", err: "unexpected"},
	} {
		dt, err := ParseDateTime(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDateTime(%q) = %s, %v; want an error with %q", tc.in, dt, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseDateTime(%q): %v", tc.in, err)
		case dt.String() != tc.want:
			t.Errorf("ParseDateTime(%q) = %s, want %s", tc.in, dt, tc.want)
		}
	}
	if _, err := ParseTime("12:00[Europe/Berlin]"); err == nil || !strings.Contains(err.Error(), "no date to choose") {
		t.Errorf("a time with a zone name: %v", err)
	}
}

// FuzzParse: no parser panics, and what parses prints to a string that
// parses back to the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2024-01-02", "12:34:56.5+08:00", "2024-01-02T12:34:56Z", "P1Y2M3W4DT5H6M7.5S", "-P1D", "{days: 1}", "23333", "-32768-01-01",
		"2024-10-27T02:30:00+01:00[Europe/Berlin]", "2024-03-10T02:30[America/New_York]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDate(s); err == nil {
			if !d.Valid() {
				t.Fatalf("ParseDate(%q) = invalid %d", s, d)
			}
			if back, err := ParseDate(d.String()); err != nil || back != d {
				t.Fatalf("ParseDate(%q) = %s, which parses back to %v, %v", s, d, back, err)
			}
		}
		if tm, err := ParseTime(s); err == nil {
			if !tm.Valid() {
				t.Fatalf("ParseTime(%q) = invalid %d", s, tm)
			}
			if back, err := ParseTime(tm.String()); err != nil || back != tm {
				t.Fatalf("ParseTime(%q) = %s, which parses back to %v, %v", s, tm, back, err)
			}
		}
		if dt, err := ParseDateTime(s); err == nil {
			if !dt.Valid() {
				t.Fatalf("ParseDateTime(%q) = invalid %d", s, dt)
			}
			if back, err := ParseDateTime(dt.String()); err != nil || back != dt {
				t.Fatalf("ParseDateTime(%q) = %s, which parses back to %v, %v", s, dt, back, err)
			}
		}
		if du, err := ParseDuration(s); err == nil {
			if back, err := ParseDuration(du.String()); err != nil || back != du {
				t.Fatalf("ParseDuration(%q) = %s, which parses back to %v, %v", s, du, back, err)
			}
		}
		_, _ = ParseFields(s)
	})
}
