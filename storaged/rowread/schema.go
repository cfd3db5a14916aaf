package rowread

import (
	"fmt"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Schema is one tag or edge type as reads and writes of its rows need it:
// its schema versions (a row is read with the version it was written
// with), its TTL and, for writes, the indexes to maintain.
type Schema struct {
	ID       int32
	Name     string
	Versions *schema.Versions
	// Indexes are the indexes on the tag or edge type that writes keep
	// (TagIndexes, EdgeIndexes); a Reader's schemas have none.
	Indexes []*schema.IndexLayout

	ttlCol  string // "": rows do not expire
	ttlSecs int64
}

// NewSchema is the tag or edge type id called name, with its versions as
// the catalog lists them.
func NewSchema(id int32, name string, versions []*metapb.Schema) *Schema {
	s := &Schema{ID: id, Name: name, Versions: schema.NewVersions(versions)}
	s.ttlCol, s.ttlSecs = ttlOf(versions)
	return s
}

// ttlOf returns the TTL of a tag's or edge's latest schema version.
func ttlOf(versions []*metapb.Schema) (col string, secs int64) {
	var latest *metapb.Schema
	for _, v := range versions {
		if latest == nil || v.GetVersion() > latest.GetVersion() {
			latest = v
		}
	}
	if latest == nil || latest.GetTtlCol() == "" || latest.GetTtlDuration() <= 0 {
		return "", 0
	}
	return latest.GetTtlCol(), latest.GetTtlDuration()
}

// Decode returns a row's values laid out as the latest schema version.
func (s *Schema) Decode(row []byte) ([]any, error) {
	vals, err := partition.ReadWithSchema(row, s.Versions.Source(), s.Versions.Latest())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return vals, nil
}

// expired reports whether a row of values (laid out as the latest schema)
// outlived its TTL at now (seconds since the epoch).
func (s *Schema) expired(vals []any, now int64) bool {
	if s.ttlCol == "" {
		return false
	}
	i := s.Versions.Latest().Index(s.ttlCol)
	if i < 0 || i >= len(vals) {
		return false
	}
	t, ok := vals[i].(int64)
	return ok && t+s.ttlSecs < now
}

// RowExpired reports whether an encoded row outlived its TTL at now
// (seconds since the epoch).
func (s *Schema) RowExpired(row []byte, now int64) (bool, error) {
	if s.ttlCol == "" {
		return false, nil
	}
	vals, err := partition.ReadWithSchema(row, s.Versions.Source(), s.Versions.Latest())
	if err != nil {
		return false, err
	}
	return s.expired(vals, now), nil
}
