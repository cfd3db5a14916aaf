package exec

import (
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/value"
)

// table is an intermediate or final result: named columns and rows.
type table struct {
	cols []string
	rows [][]value.Value
	// mem, if set, is charged for each row added (budget.go). Once it is
	// exceeded add drops rows: the query is ending with the limit error.
	mem *Budget
	// columns, when set, is the result already in the client's columnar
	// form, and rows is empty: GO builds the result of a request's last
	// statement so when the client reads columns (go_columns.go). Only the
	// request's end reads such a table (toColumns).
	columns *graphpb.DataSet
}

func newTable(cols ...string) *table { return &table{cols: cols} }

func (t *table) add(row ...value.Value) {
	if t.mem != nil && t.mem.Grow(rowSize(row), "building the result") != nil {
		return
	}
	t.rows = append(t.rows, row)
}

func (t *table) colIndex(name string) int {
	for i, c := range t.cols {
		if c == name {
			return i
		}
	}
	return -1
}

// toDataSet converts the table into the result sent to the client,
// charging mem (if not nil) as it goes: the DataSet is a second copy of
// every row (about a third of a large GO's memory), so it is charged per
// batch of rows while it is built, and building stops with the limit error
// as soon as the budget is exceeded, instead of being charged after the
// whole copy exists.
func (t *table) toDataSet(mem *Budget) (*graphpb.DataSet, error) {
	if t.columns != nil {
		return nil, execErrorf("internal error: a result built in columns was asked for in rows")
	}
	ds := &graphpb.DataSet{ColumnNames: t.cols, Rows: make([]*graphpb.Row, len(t.rows))}
	if err := mem.Grow(int64(len(t.rows))*pointerBytes, "building the result for the client"); err != nil {
		return nil, err
	}
	for start := 0; start < len(t.rows); start += batchRows {
		end := min(start+batchRows, len(t.rows))
		for i, r := range t.rows[start:end] {
			vals := make([]*commonpb.Value, len(r))
			for j, v := range r {
				vals[j] = v.ToProto()
			}
			ds.Rows[start+i] = &graphpb.Row{Values: vals}
		}
		if mem != nil {
			if err := mem.Grow(dataSetRowsSize(ds.Rows[start:end]), "building the result for the client"); err != nil {
				return nil, err
			}
		}
	}
	return ds, nil
}

// distinctRows keeps the first of each group of equal rows, in order.
func distinctRows(rows [][]value.Value) [][]value.Value {
	seen := make(map[string]struct{}, len(rows))
	out := rows[:0:0]
	var key []byte
	for _, r := range rows {
		key = key[:0]
		for _, v := range r {
			key = v.AppendKey(key)
		}
		if _, dup := seen[string(key)]; dup {
			continue
		}
		seen[string(key)] = struct{}{}
		out = append(out, r)
	}
	return out
}
