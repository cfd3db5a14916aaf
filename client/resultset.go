package client

import (
	"slices"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// ResultSet is the answer to one successful statement.
type ResultSet struct {
	columns   []string
	rows      []Row
	hasData   bool
	latencyUS int64
	spaceName string
}

func newResultSet(resp *graphpb.ExecuteResp) *ResultSet {
	rs := &ResultSet{latencyUS: resp.GetLatencyUs(), spaceName: resp.GetSpaceName()}
	if data := resp.GetData(); data != nil {
		rs.hasData = true
		rs.columns = data.GetColumnNames()
		rs.rows = make([]Row, len(data.GetRows()))
		for i, row := range data.GetRows() {
			rs.rows[i] = Row{values: row.GetValues()}
		}
	}
	return rs
}

// HasData reports whether the statement returned a data set (possibly with
// no rows), as opposed to a statement such as USE or INSERT that returns
// none.
func (rs *ResultSet) HasData() bool { return rs.hasData }

// Columns returns the column names, in the order graphd returned them.
func (rs *ResultSet) Columns() []string { return slices.Clone(rs.columns) }

// ColumnIndex returns the index of the first column called name.
func (rs *ResultSet) ColumnIndex(name string) (int, bool) {
	i := slices.Index(rs.columns, name)
	return i, i >= 0
}

// Len is the number of rows.
func (rs *ResultSet) Len() int { return len(rs.rows) }

// Row returns row i; it panics when i is out of range, like a slice index.
func (rs *ResultSet) Row(i int) Row { return rs.rows[i] }

// LatencyUS is the time graphd spent on the statement, in microseconds.
func (rs *ResultSet) LatencyUS() int64 { return rs.latencyUS }

// SpaceName is the session's space after the statement.
func (rs *ResultSet) SpaceName() string { return rs.spaceName }

// Row is one result row. Its accessors take a column index and panic when
// it is out of range, like a slice index; the typed ones return ErrNull for
// a NULL cell and an error wrapping ErrType for a cell of another type.
type Row struct {
	values []*commonpb.Value
}

// Len is the number of cells.
func (r Row) Len() int { return len(r.values) }

// IsNull reports whether cell j is NULL.
func (r Row) IsNull(j int) bool { return isNull(r.values[j]) }

// Value returns cell j as nil (NULL), int64 (int and timestamp), float64,
// bool, string, temporal.Date, temporal.Time, temporal.DateTime,
// temporal.Duration (each with a String method printing it as NebulaGraph
// does), []any or Map of those, or a Vertex, Edge or Path (graph.go).
func (r Row) Value(j int) any { return toAny(r.values[j]) }

// Display returns cell j as the console prints it: strings quoted, NULL as
// __NULL__, floats in their shortest exact form. See FormatValue.
func (r Row) Display(j int) string { return FormatValue(r.Value(j)) }

// Int returns cell j, an int or a timestamp (seconds since the Unix epoch).
func (r Row) Int(j int) (int64, error) {
	switch v := r.values[j].GetV().(type) {
	case *commonpb.Value_IntVal:
		return v.IntVal, nil
	case *commonpb.Value_TimestampVal:
		return v.TimestampVal, nil
	}
	return 0, r.typeError(j, "int")
}

// Float returns cell j, a float.
func (r Row) Float(j int) (float64, error) {
	if v, ok := r.values[j].GetV().(*commonpb.Value_FloatVal); ok {
		return v.FloatVal, nil
	}
	return 0, r.typeError(j, "float")
}

// Bool returns cell j, a bool.
func (r Row) Bool(j int) (bool, error) {
	if v, ok := r.values[j].GetV().(*commonpb.Value_BoolVal); ok {
		return v.BoolVal, nil
	}
	return false, r.typeError(j, "bool")
}

// String returns cell j, a string, unquoted.
func (r Row) String(j int) (string, error) {
	if v, ok := r.values[j].GetV().(*commonpb.Value_StrVal); ok {
		return string(v.StrVal), nil
	}
	return "", r.typeError(j, "string")
}

// List returns cell j, a list, with its elements as Value returns them.
func (r Row) List(j int) ([]any, error) {
	if _, ok := r.values[j].GetV().(*commonpb.Value_ListVal); ok {
		return r.Value(j).([]any), nil
	}
	return nil, r.typeError(j, "list")
}
