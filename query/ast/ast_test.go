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
