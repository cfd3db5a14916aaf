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

func (t *table) toDataSet() *graphpb.DataSet {
	ds := &graphpb.DataSet{ColumnNames: t.cols, Rows: make([]*graphpb.Row, len(t.rows))}
	for i, r := range t.rows {
		vals := make([]*commonpb.Value, len(r))
		for j, v := range r {
			vals[j] = v.ToProto()
		}
		ds.Rows[i] = &graphpb.Row{Values: vals}
	}
	return ds
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
