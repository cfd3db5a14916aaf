package eval

import (
	"fmt"
	"testing"

	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// pathRow answers $-.p with a path value.
type pathRow struct{ p value.Value }

func (pathRow) EdgeProp(e, p string) (value.Value, error) { return value.Null(), fmt.Errorf("no edge") }
func (pathRow) SrcProp(t, p string) (value.Value, error)  { return value.Null(), fmt.Errorf("no $^") }
func (pathRow) DstProp(t, p string) (value.Value, error)  { return value.Null(), fmt.Errorf("no $$") }
func (r pathRow) InputProp(col string) (value.Value, error) {
	if col == "p" {
		return r.p, nil
	}
	return value.Null(), nil
}
func (pathRow) VarProp(v, c string) (value.Value, error) { return value.Null(), fmt.Errorf("no var") }

func TestPathFunctions(t *testing.T) {
	p := value.PathValue(value.Path{Src: value.Vertex{VID: value.Int(1)}, Steps: []value.Step{
		{Edge: value.Edge{Src: value.Int(1), Dst: value.Int(2), Type: "e"}, Dst: value.Vertex{VID: value.Int(2)}},
		{Edge: value.Edge{Src: value.Int(3), Dst: value.Int(2), Type: "e", Rank: 1}, Reverse: true, Dst: value.Vertex{VID: value.Int(3)}},
	}})
	for src, want := range map[string]string{
		"length($-.p)":                   "2",
		"id(startNode($-.p))":            "1",
		"id(endNode($-.p))":              "3",
		"nodes($-.p)":                    "[(1),(2),(3)]",
		"relationships($-.p)":            "[[:e 1->2 @0 {}],[:e 3->2 @1 {}]]",
		"size(nodes($-.p))":              "3",
		"id(endNode($-.nothing))":        "NULL",
		"endNode($-.p) == endNode($-.p)": "true",
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := Eval(pathRow{p}, e)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got.String() != want {
			t.Errorf("%s = %s, want %s", src, got, want)
		}
	}
	for _, src := range []string{"length(1)", "nodes(1)", "id(length($-.p))"} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, err := Eval(pathRow{p}, e); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}
