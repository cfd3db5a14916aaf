package exec

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/value"
)

// TestColumnsReadAsRows sends the same tables to the client in rows and in
// columns (through a scripted graphd and the real client) and checks that
// every cell reads the same through every accessor, for each column kind:
// typed columns with and without NULLs (also before the first value),
// mixed and composite columns (COL_ANY), an all-NULL column, and an empty
// result.
func TestColumnsReadAsRows(t *testing.T) {
	null := value.Null()
	list := value.List(value.Int(1), value.Str("x"))
	tables := map[string]*table{
		"ints": {cols: []string{"a"}, rows: [][]value.Value{{value.Int(1)}, {value.Int(-7)}, {value.Int(1 << 60)}}},
		"typed with NULLs": {cols: []string{"i", "f", "s", "b"}, rows: [][]value.Value{
			{value.Int(3), value.Float(0.5), value.Str("v1"), value.Bool(true)},
			{null, null, null, null},
			{value.Int(0), value.Float(-2), value.Str(""), value.Bool(false)},
			{value.Int(9), null, value.Str("é"), null},
			{null, value.Float(1e300), null, value.Bool(true)},
			{value.Int(4), value.Float(0), value.Str("v9"), value.Bool(false)},
			{value.Int(5), value.Float(1), value.Str("v10"), value.Bool(true)},
			{value.Int(6), value.Float(2), value.Str("v11"), value.Bool(true)},
			{null, value.Float(3), value.Str("v12"), value.Bool(true)}, // row 8: the second byte of NULL bits
		}},
		"mixed and composite": {cols: []string{"mixed", "list", "ts", "nulls"}, rows: [][]value.Value{
			{value.Int(1), list, value.Timestamp(1700000000), null},
			{value.Str("one"), null, value.Timestamp(0), null},
			{null, list, null, null},
		}},
		"NULLs first": {cols: []string{"late int", "late mixed"}, rows: [][]value.Value{
			{null, null},
			{null, value.Int(1)},
			{value.Int(5), null},
			{value.Int(6), value.Str("x")},
		}},
		"empty": {cols: []string{"a", "b"}},
	}
	wantKinds := map[string][]commonpb.ColumnKind{
		"ints":                {commonpb.ColumnKind_COL_INT},
		"typed with NULLs":    {commonpb.ColumnKind_COL_INT, commonpb.ColumnKind_COL_FLOAT, commonpb.ColumnKind_COL_STR, commonpb.ColumnKind_COL_BOOL},
		"mixed and composite": {commonpb.ColumnKind_COL_ANY, commonpb.ColumnKind_COL_ANY, commonpb.ColumnKind_COL_ANY, commonpb.ColumnKind_COL_ANY},
		"NULLs first":         {commonpb.ColumnKind_COL_INT, commonpb.ColumnKind_COL_ANY},
		"empty":               {commonpb.ColumnKind_COL_ANY, commonpb.ColumnKind_COL_ANY},
	}

	graphd := clienttest.Start(t)
	for name, tb := range tables {
		rowsDS, err := tb.toDataSet(nil)
		if err != nil {
			t.Fatal(err)
		}
		colsDS, err := tb.toColumns(nil)
		if err != nil {
			t.Fatal(err)
		}
		for j, c := range colsDS.Columns {
			if c.Kind != wantKinds[name][j] {
				t.Errorf("%s: column %d is %s, want %s", name, j, c.Kind, wantKinds[name][j])
			}
		}
		graphd.Script("rows "+name, &graphpb.ExecuteResp{Data: rowsDS})
		graphd.Script("cols "+name, &graphpb.ExecuteResp{Data: colsDS})
	}
	pool, err := client.NewPool(client.Config{Addresses: []string{graphd.Addr}, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := pool.Session(ctx, "root", "nova")
	if err != nil {
		t.Fatal(err)
	}
	for name, tb := range tables {
		byRows, err := sess.Execute(ctx, "rows "+name)
		if err != nil {
			t.Fatal(err)
		}
		byCols, err := sess.Execute(ctx, "cols "+name)
		if err != nil {
			t.Fatal(err)
		}
		if byCols.Len() != len(tb.rows) || byRows.Len() != len(tb.rows) || !byCols.HasData() ||
			!reflect.DeepEqual(byCols.Columns(), tb.cols) {
			t.Fatalf("%s: %d and %d rows, columns %v; want %d rows, %v", name, byRows.Len(), byCols.Len(), byCols.Columns(), len(tb.rows), tb.cols)
		}
		for i := 0; i < byRows.Len(); i++ {
			r, c := byRows.Row(i), byCols.Row(i)
			if r.Len() != c.Len() {
				t.Fatalf("%s row %d: %d and %d cells", name, i, r.Len(), c.Len())
			}
			for j := 0; j < r.Len(); j++ {
				if r.IsNull(j) != c.IsNull(j) || !reflect.DeepEqual(r.Value(j), c.Value(j)) || r.Display(j) != c.Display(j) {
					t.Errorf("%s row %d col %d: rows say %v (null %v), columns %v (null %v)", name, i, j, r.Value(j), r.IsNull(j), c.Value(j), c.IsNull(j))
				}
				ri, rerr := r.Int(j)
				ci, cerr := c.Int(j)
				if ri != ci || (rerr == nil) != (cerr == nil) {
					t.Errorf("%s row %d col %d: Int %d, %v against %d, %v", name, i, j, ri, rerr, ci, cerr)
				}
				rs, rerr := r.String(j)
				cs, cerr := c.String(j)
				if rs != cs || (rerr == nil) != (cerr == nil) {
					t.Errorf("%s row %d col %d: String %q, %v against %q, %v", name, i, j, rs, rerr, cs, cerr)
				}
			}
		}
	}
}
