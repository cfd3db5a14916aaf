package temporal

import (
	"fmt"
	"strings"
	"sync"
	"time"

	// The IANA zone database inside the binary: the images are FROM
	// scratch, with no /usr/share/zoneinfo, and a zone name must mean
	// the same on every host whatever its packages.
	_ "time/tzdata"
)

// A named zone (Europe/Berlin, Asia/Shanghai, UTC) turns a local date and
// time into UTC with the offset the zone had at that moment, daylight
// saving time included. It can follow a datetime string in brackets,
// 2024-07-01T12:00:00[Europe/Berlin], after an offset or instead of one,
// as ISO 8601's extended form and openCypher write it, or be the timezone
// field of a datetime map. A time of day alone has no date to choose the
// offset by, so it takes only an offset.
//
// A local time that a change of offset skips (02:30 on a spring-forward
// night) or repeats (the autumn hour) takes the offset Go's time.Date
// gives it; an explicit offset next to the name picks one of the repeated
// hour's two, and must be one the zone uses there.

// zones memoizes LoadLocation, which reads and parses the zone's data on
// every call: an import of a million rows with one zone name would parse
// it a million times. Only names that loaded are kept, so it holds at
// most the database's few hundred zones; the values never change.
var zones sync.Map // string → *time.Location

// LoadZone returns the named IANA zone. "Local" is refused: it would mean
// a different zone on each host.
func LoadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if name == "" || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("time zone %q: name a zone such as Europe/Berlin or UTC: %w", name, ErrSyntax)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: %w", name, ErrSyntax)
	}
	zones.Store(name, loc)
	return loc, nil
}

// ZoneOffset returns the offset east of UTC, in microseconds, that the
// named zone has at the local datetime local (a DateTime read as wall
// clock time in that zone, not UTC).
func ZoneOffset(name string, local DateTime) (int64, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return 0, err
	}
	y, m, d := local.Date().Civil()
	h, mi, s, us := local.Time().Clock()
	_, off := time.Date(int(y), time.Month(m), int(d), int(h), int(mi), int(s), int(us)*1000, loc).Zone()
	return int64(off) * Second, nil
}

// LocalToUTC converts a wall clock datetime in the named zone to UTC. If
// offset is given (hasOffset), it must be an offset the zone uses at that
// local time, and it is the one applied: it picks between the two
// readings of a repeated hour.
func LocalToUTC(local DateTime, name string, offset int64, hasOffset bool) (DateTime, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return 0, err
	}
	if hasOffset {
		utc := local - DateTime(offset)
		at := time.UnixMicro(int64(utc)).In(loc)
		if _, off := at.Zone(); int64(off)*Second != offset {
			return 0, fmt.Errorf("offset %s is not what %s uses at %s (it uses %s): %w",
				formatOffset(offset), name, local, formatOffset(int64(off)*Second), ErrRange)
		}
		return checkDateTime(utc)
	}
	off, err := ZoneOffset(name, local)
	if err != nil {
		return 0, err
	}
	return checkDateTime(local - DateTime(off))
}

func checkDateTime(dt DateTime) (DateTime, error) {
	if !dt.Valid() {
		return 0, fmt.Errorf("datetime %s: %w", dt, ErrRange)
	}
	return dt, nil
}

func formatOffset(off int64) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%c%02d:%02d", sign, off/Hour, off%Hour/Minute)
}
