package temporal

import (
	"archive/zip"
	"bytes"
	_ "embed" // the zone database below
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// A named zone (Europe/Berlin, Asia/Shanghai, UTC) turns a local date and
// time into UTC with the offset the zone had at that moment, daylight
// saving time included. It can follow a datetime string in brackets,
// 2024-07-01T12:00:00[Europe/Berlin], after an offset or instead of one,
// as RFC 9557 and openCypher write it, or be the timezone field of a
// datetime map. A time of day alone has no date to choose the offset by,
// so it takes only an offset.
//
// Local times that a change of offset repeats or skips resolve as in
// java.time and openCypher: a repeated time (the autumn hour) takes the
// earlier of its two instants, the offset before the change, unless an
// offset written next to the name picks the other; a skipped time (02:30
// on a spring-forward night) moves forward by the length of the gap
// (03:30 in Europe/Berlin). After Z the instant is UTC already, and the
// name only says where it was observed.
//
// The zone database is the one in zoneinfo.zip beside this file (IANA
// tzdata 2025c, as Go 1.26 ships it; `make tzdata` replaces it with the
// Go toolchain's), never the host's: storaged evaluates datetime() while
// applying an UPDATE on every replica, and replicas on hosts with
// different tzdata, or none, must compute the same UTC value. Only names
// in it are zones: "Local", "localtime" and file paths are not.

//go:embed zoneinfo.zip
var zoneinfoZip []byte

// ErrZone is wrapped by errors about zone names and about offsets a zone
// does not use at the time given.
var ErrZone = errors.New("invalid time zone")

// zoneDB is the embedded zone database, indexed on first use.
var zoneDB struct {
	once  sync.Once
	files map[string]*zip.File
	err   error
	// locs memoizes parsed zones: at most one per entry of the archive
	// (about 600), immutable.
	locs sync.Map // string → *time.Location
}

// LoadZone returns the named IANA zone from the embedded database.
func LoadZone(name string) (*time.Location, error) {
	if loc, ok := zoneDB.locs.Load(name); ok {
		return loc.(*time.Location), nil
	}
	zoneDB.once.Do(func() {
		r, err := zip.NewReader(bytes.NewReader(zoneinfoZip), int64(len(zoneinfoZip)))
		if err != nil {
			zoneDB.err = fmt.Errorf("the embedded zone database: %w", err)
			return
		}
		zoneDB.files = make(map[string]*zip.File, len(r.File))
		for _, f := range r.File {
			zoneDB.files[f.Name] = f
		}
	})
	if zoneDB.err != nil {
		return nil, zoneDB.err
	}
	f, ok := zoneDB.files[name]
	if !ok {
		return nil, fmt.Errorf("unknown time zone %q (IANA names such as Europe/Berlin, America/New_York, UTC): %w", name, ErrZone)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", name, err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", name, err)
	}
	loc, err := time.LoadLocationFromTZData(name, data)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", name, err)
	}
	zoneDB.locs.Store(name, loc)
	return loc, nil
}

// offsetAt is the zone's offset east of UTC, in microseconds, at the
// instant utc.
func offsetAt(loc *time.Location, utc DateTime) int64 {
	_, off := time.UnixMicro(int64(utc)).In(loc).Zone()
	return int64(off) * Second
}

// localOffsets returns the offsets with which the wall clock time local is
// a real time in the zone, ascending: one normally, two in a repeated
// hour, none in a skipped one, and the offsets in effect around local
// (before, after). An offset is at most 14 hours (18 allowed), and zones
// change offset at most once within such a window, so the offsets 18
// hours either side are the candidates.
func localOffsets(loc *time.Location, local DateTime) (valid []int64, before, after int64) {
	before = offsetAt(loc, local-DateTime(18*Hour))
	after = offsetAt(loc, local+DateTime(18*Hour))
	for _, o := range []int64{min(before, after), max(before, after)} {
		if offsetAt(loc, local-DateTime(o)) == o && (len(valid) == 0 || valid[0] != o) {
			valid = append(valid, o)
		}
	}
	return valid, before, after
}

// ZoneOffset returns the offset east of UTC, in microseconds, with which
// the named zone turns the wall clock datetime local into UTC: the one it
// uses then; in a repeated hour the earlier instant's (the offset before
// the change); in a skipped one the offset before the gap, which moves
// the time forward by the gap.
func ZoneOffset(name string, local DateTime) (int64, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return 0, err
	}
	valid, before, _ := localOffsets(loc, local)
	switch len(valid) {
	case 0:
		return before, nil
	case 1:
		return valid[0], nil
	}
	return max(valid[0], valid[1]), nil // the earlier instant
}

// LocalToUTC converts a wall clock datetime in the named zone to UTC. If
// offset is given (hasOffset), it must be one the zone uses at that local
// time, and it is the one applied: it picks between the two readings of a
// repeated hour.
func LocalToUTC(local DateTime, name string, offset int64, hasOffset bool) (DateTime, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return 0, err
	}
	if !hasOffset {
		off, err := ZoneOffset(name, local)
		if err != nil {
			return 0, err
		}
		return checkDateTime(local - DateTime(off))
	}
	valid, before, after := localOffsets(loc, local)
	for _, o := range valid {
		if o == offset {
			return checkDateTime(local - DateTime(offset))
		}
	}
	switch len(valid) {
	case 0:
		return 0, fmt.Errorf("%s does not exist in %s: the clocks skip from %s to %s then: %w",
			local, name, formatOffset(before), formatOffset(after), ErrZone)
	case 1:
		return 0, fmt.Errorf("offset %s is not what %s uses at %s (it uses %s): %w",
			formatOffset(offset), name, local, formatOffset(valid[0]), ErrZone)
	}
	return 0, fmt.Errorf("offset %s is not what %s uses at %s (it uses %s or %s): %w",
		formatOffset(offset), name, local, formatOffset(valid[0]), formatOffset(valid[1]), ErrZone)
}

// UTCInZone checks that an instant written in UTC (Z) names a zone that
// exists; the zone does not change the instant.
func UTCInZone(utc DateTime, name string) (DateTime, error) {
	if _, err := LoadZone(name); err != nil {
		return 0, err
	}
	return checkDateTime(utc)
}

func checkDateTime(dt DateTime) (DateTime, error) {
	if !dt.Valid() {
		return 0, fmt.Errorf("datetime %s: %w", dt, ErrRange)
	}
	return dt, nil
}

// formatOffset writes an offset as ±hh:mm, with :ss when it has seconds
// (the local mean times of the 19th century).
func formatOffset(off int64) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	s := off / Second
	if s%60 != 0 {
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%c%02d:%02d", sign, s/3600, s%3600/60)
}
