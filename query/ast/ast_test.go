package ast

import (
	"testing"

	"github.com/novagraph/novagraph/query/value"
)

func TestQuoteName(t *testing.T) {
	for name, want := range map[string]string{
		"player": "player", "_x1": "_x1", "名字": "名字", "spaces": "spaces",
		"from": "`from`", "WHERE": "`WHERE`", "my tag": "`my tag`", "1st": "`1st`", "": "``",
	} {
		if got := QuoteName(name); got != want {
			t.Errorf("QuoteName(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestInspectPrunes(t *testing.T) {
	// (a.x + f(1)) AND [2]
	e := &BinaryExpr{Op: OpAnd,
		L: &BinaryExpr{Op: OpAdd,
			L: &EdgePropExpr{Edge: "a", Prop: "x"},
			R: &FuncCall{Name: "f", Args: []Expr{&Literal{Value: value.Int(1)}}}},
		R: &ListExpr{Items: []Expr{&Literal{Value: value.Int(2)}}},
	}
	var seen []string
	Inspect(e, func(x Expr) bool {
		seen = append(seen, x.String())
		_, isCall := x.(*FuncCall)
		return !isCall
	})
	want := []string{"((a.x+f(1)) AND [2])", "(a.x+f(1))", "a.x", "f(1)", "[2]", "2"}
	if len(seen) != len(want) {
		t.Fatalf("visited %q, want %q", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("visit %d = %s, want %s", i, seen[i], want[i])
		}
	}
	Inspect(nil, func(Expr) bool { t.Fatal("visited nil"); return true })
}

func TestStatementStringsQuoteNames(t *testing.T) {
	s := &GoStmt{
		Steps: StepRange{Min: 1, Max: 1},
		From:  &VertexSource{Ref: &VarPropExpr{Var: "v", Col: "from"}},
		Over:  &OverClause{Edges: []string{"my edge"}, Direction: Forward},
		Yield: &YieldClause{Columns: []*YieldColumn{{Expr: &DstPropExpr{Tag: "t", Prop: "p"}, Alias: "as"}}},
	}
	if got, want := s.String(), "GO 1 STEPS FROM $v.`from` OVER `my edge` YIELD $$.t.p AS `as`"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestNewStatementStrings(t *testing.T) {
	lit := func(v value.Value) Expr { return &Literal{Value: v} }
	for _, tc := range []struct {
		s    Statement
		want string
	}{
		{&CreateSchemaStmt{Kind: TagSchema, Name: "t", TTL: &TTLOptions{Col: `a"b`, HasCol: true}}, `CREATE TAG t() TTL_COL = "a\"b"`},
		{&AlterSchemaStmt{Kind: EdgeSchema, Name: "e", Ops: []*AlterOp{
			{Kind: AlterAdd, Props: []*PropDef{{Name: "x", Type: PropType{Kind: PropBool}, Nullable: true}}},
			{Kind: AlterDrop, Names: []string{"where", "y"}},
		}}, "ALTER EDGE e ADD (x bool), DROP (`where`, y)"},
		{&DropSchemaStmt{Kind: EdgeSchema, IfExists: true, Name: "my edge"}, "DROP EDGE IF EXISTS `my edge`"},
		{&CreateIndexStmt{Kind: TagSchema, Name: "index", Schema: "t", Fields: []*IndexField{{Prop: "a", Len: 3}, {Prop: "set"}}},
			"CREATE TAG INDEX `index` ON t(a(3), `set`)"},
		{&DropIndexStmt{Kind: TagSchema, Name: "i"}, "DROP TAG INDEX i"},
		{&RebuildIndexStmt{Kind: EdgeSchema, Names: []string{"a", "b"}}, "REBUILD EDGE INDEX a, b"},
		{&LookupStmt{On: "lookup"}, "LOOKUP ON `lookup`"},
		{&DeleteVertexStmt{Vertices: &VertexSource{Ref: &InputPropExpr{Col: "id"}}, WithEdge: true}, "DELETE VERTEX $-.id WITH EDGE"},
		{&DeleteTagStmt{All: true, From: &VertexSource{VIDs: []Expr{lit(value.Int(1))}}}, "DELETE TAG * FROM 1"},
		{&DeleteEdgeStmt{Edge: "e", Keys: []*EdgeKey{{Src: lit(value.Int(1)), Dst: lit(value.Int(2)), Rank: lit(value.Int(0))}}}, "DELETE EDGE e 1->2@0"},
		{&UpdateVertexStmt{Upsert: true, Tag: "t", Vid: lit(value.Str("v")),
			Set: []*SetItem{{Schema: "t", Prop: "when", Value: lit(value.Int(1))}}, When: &LabelExpr{Name: "a"}},
			"UPSERT VERTEX ON t \"v\" SET t.`when` = 1 WHEN a"},
		{&UpdateEdgeStmt{Edge: "e", Key: &EdgeKey{Src: lit(value.Int(1)), Dst: lit(value.Int(2))},
			Set:   []*SetItem{{Prop: "w", Value: lit(value.Float(1.5))}},
			Yield: &YieldClause{Columns: []*YieldColumn{{Expr: &LabelExpr{Name: "w"}}}}},
			"UPDATE EDGE ON e 1->2 SET w = 1.5 YIELD w"},
		{&ShowStmt{Target: ShowTagIndexes}, "SHOW TAG INDEXES"},
		{&DescribeStmt{Target: DescribeEdgeIndex, Name: "i"}, "DESCRIBE EDGE INDEX i"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
