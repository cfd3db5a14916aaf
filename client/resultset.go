package client

import (
	"fmt"
	"slices"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// ResultSet is the answer to one successful statement.
//
// The session asks graphd for the result in columns (one typed array per
// column, commonpb.Column) and reads rows of cells from graphd's that
// answer in rows; either way the accessors are the same.
type ResultSet struct {
	columns   []string
	rows      []Row              // row form
	cols      []*commonpb.Column // columnar form
	numRows   int                // columnar form
	hasData   bool
	latencyUS int64
	spaceName string
}

// NewResultSet decodes the answer of a successful GraphService.Execute
// that a caller got without a Session: graphd's HTTP API, which calls the
// service in process.
func NewResultSet(resp *graphpb.ExecuteResp) (*ResultSet, error) { return newResultSet(resp) }

func newResultSet(resp *graphpb.ExecuteResp) (*ResultSet, error) {
	rs := &ResultSet{latencyUS: resp.GetLatencyUs(), spaceName: resp.GetSpaceName()}
	data := resp.GetData()
	if data == nil {
		return rs, nil
	}
	rs.hasData = true
	rs.columns = data.GetColumnNames()
	if len(data.GetColumns()) > 0 {
		if err := checkColumns(data); err != nil {
			return nil, err
		}
		rs.cols, rs.numRows = data.GetColumns(), int(data.GetNumRows())
		return rs, nil
	}
	rs.rows = make([]Row, len(data.GetRows()))
	for i, row := range data.GetRows() {
		rs.rows[i] = Row{values: row.GetValues()}
	}
	return rs, nil
}

// checkColumns checks that a columnar result holds what it says, so that
// the accessors cannot index past an array a faulty server cut short.
func checkColumns(data *graphpb.DataSet) error {
	n := data.GetNumRows()
	if len(data.GetColumns()) != len(data.GetColumnNames()) {
		return fmt.Errorf("graphd sent %d columns for %d column names", len(data.GetColumns()), len(data.GetColumnNames()))
	}
	for j, c := range data.GetColumns() {
		if err := c.Check(int(n)); err != nil {
			return fmt.Errorf("graphd sent column %d: %w", j, err)
		}
	}
	return nil
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
func (rs *ResultSet) Len() int {
	if rs.cols != nil {
		return rs.numRows
	}
	return len(rs.rows)
}

// Row returns row i; it panics when i is out of range, like a slice index.
func (rs *ResultSet) Row(i int) Row {
	if rs.cols != nil {
		if i < 0 || i >= rs.numRows {
			panic(fmt.Sprintf("client: row %d of a result of %d rows", i, rs.numRows))
		}
		return Row{cols: rs.cols, i: i}
	}
	return rs.rows[i]
}

// LatencyUS is the time graphd spent on the statement, in microseconds.
func (rs *ResultSet) LatencyUS() int64 { return rs.latencyUS }

// SpaceName is the session's space after the statement.
func (rs *ResultSet) SpaceName() string { return rs.spaceName }

// Row is one result row. Its accessors take a column index and panic when
// it is out of range, like a slice index; the typed ones return ErrNull for
// a NULL cell and an error wrapping ErrType for a cell of another type.
type Row struct {
	values []*commonpb.Value  // row form
	cols   []*commonpb.Column // columnar form: row i of cols
	i      int
}

// Len is the number of cells.
func (r Row) Len() int {
	if r.cols != nil {
		return len(r.cols)
	}
	return len(r.values)
}

// cell is cell j as a wire value; in columnar form it is made from the
// column (the typed accessors read the columns without making one).
func (r Row) cell(j int) *commonpb.Value {
	if r.cols == nil {
		return r.values[j]
	}
	return r.cols[j].Cell(r.i)
}

// IsNull reports whether cell j is NULL.
func (r Row) IsNull(j int) bool {
	if r.cols != nil && r.cols[j].GetKind() != commonpb.ColumnKind_COL_ANY {
		return r.cols[j].NullAt(r.i)
	}
	return isNull(r.cell(j))
}

// Value returns cell j as nil (NULL), int64 (int and timestamp), float64,
// bool, string, temporal.Date, temporal.Time, temporal.DateTime,
// temporal.Duration (each with a String method printing it as NebulaGraph
// does), []any or Map of those, or a Vertex, Edge or Path (graph.go).
func (r Row) Value(j int) any { return toAny(r.cell(j)) }

// Display returns cell j as the console prints it: strings quoted, NULL as
// __NULL__, floats in their shortest exact form. See FormatValue.
func (r Row) Display(j int) string { return FormatValue(r.Value(j)) }

// Int returns cell j, an int or a timestamp (seconds since the Unix epoch).
func (r Row) Int(j int) (int64, error) {
	if r.cols != nil && r.cols[j].GetKind() == commonpb.ColumnKind_COL_INT && !r.cols[j].NullAt(r.i) {
		return r.cols[j].Ints[r.i], nil
	}
	switch v := r.cell(j).GetV().(type) {
	case *commonpb.Value_IntVal:
		return v.IntVal, nil
	case *commonpb.Value_TimestampVal:
		return v.TimestampVal, nil
	}
	return 0, r.typeError(j, "int")
}

// Float returns cell j, a float.
func (r Row) Float(j int) (float64, error) {
	if v, ok := r.cell(j).GetV().(*commonpb.Value_FloatVal); ok {
		return v.FloatVal, nil
	}
	return 0, r.typeError(j, "float")
}

// Bool returns cell j, a bool.
func (r Row) Bool(j int) (bool, error) {
	if v, ok := r.cell(j).GetV().(*commonpb.Value_BoolVal); ok {
		return v.BoolVal, nil
	}
	return false, r.typeError(j, "bool")
}

// String returns cell j, a string, unquoted.
func (r Row) String(j int) (string, error) {
	if r.cols != nil && r.cols[j].GetKind() == commonpb.ColumnKind_COL_STR && !r.cols[j].NullAt(r.i) {
		return string(r.cols[j].Str(r.i)), nil
	}
	if v, ok := r.cell(j).GetV().(*commonpb.Value_StrVal); ok {
		return string(v.StrVal), nil
	}
	return "", r.typeError(j, "string")
}

// List returns cell j, a list, with its elements as Value returns them.
func (r Row) List(j int) ([]any, error) {
	if _, ok := r.cell(j).GetV().(*commonpb.Value_ListVal); ok {
		return r.Value(j).([]any), nil
	}
	return nil, r.typeError(j, "list")
}
