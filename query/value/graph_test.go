package value

import (
	"testing"

	"github.com/novagraph/novagraph/proto/commonpb"
)

func TestGraphValues(t *testing.T) {
	a := Vertex{VID: Str("a")}
	b := Vertex{VID: Str("b"), Tags: []TagProps{{Name: "t2", Props: []Prop{{"y", Int(1)}}}, {Name: "t1", Props: []Prop{{"z", Null()}, {"x", Str("q")}}}}}
	p := PathValue(Path{Src: a, Steps: []Step{
		{Edge: Edge{Src: Str("a"), Dst: Str("b"), Type: "e", Rank: 0}, Dst: b},
		{Edge: Edge{Src: Str("c"), Dst: Str("b"), Type: "f", Rank: 2, Props: []Prop{{"w", Float(1.5)}}}, Reverse: true, Dst: Vertex{VID: Str("c")}},
	}})
	want := `<("a")-[:e@0 {}]->("b" :t1{x: "q", z: NULL} :t2{y: 1})<-[:f@2 {w: 1.5}]-("c")>`
	if got := p.String(); got != want {
		t.Fatalf("path prints %s, want %s", got, want)
	}
	if p.Kind() != KindPath || p.Kind().String() != "PATH" {
		t.Fatalf("kind %v", p.Kind())
	}
	if pp, ok := p.PathVal(); !ok || pp.Length() != 2 || len(pp.Nodes()) != 3 {
		t.Fatalf("PathVal = %v, %v", pp, ok)
	}
	if _, ok := p.ToProto().GetV().(*commonpb.Value_PathVal); !ok {
		t.Fatalf("a path travels as %T", p.ToProto().GetV())
	}
	if back := FromProto(p.ToProto()); back.String() != want || back.Kind() != KindPath {
		t.Fatalf("path reads back from the wire as %s (%s)", back, back.Kind())
	}
	v := VertexValue(Vertex{VID: Int(7)})
	if v.String() != "(7)" || v.Kind().String() != "VERTEX" {
		t.Fatalf("vertex %s %s", v, v.Kind())
	}
	e := EdgeValue(Edge{Src: Int(1), Dst: Int(2), Type: "e", Rank: 3, Props: []Prop{{"w", Int(4)}}})
	if e.String() != "[:e 1->2 @3 {w: 4}]" {
		t.Fatalf("edge %s", e)
	}
	// Equality, hashing and ordering follow the printed form.
	p2 := PathValue(Path{Src: Vertex{VID: Str("a")}, Steps: []Step{{Edge: Edge{Src: Str("a"), Dst: Str("b"), Type: "e"}, Dst: Vertex{VID: Str("b")}}}})
	p3 := PathValue(Path{Src: Vertex{VID: Str("a")}, Steps: []Step{{Edge: Edge{Src: Str("a"), Dst: Str("b"), Type: "e"}, Dst: Vertex{VID: Str("b")}}}})
	if eq, _ := Equal(p2, p3).BoolVal(); !eq {
		t.Fatal("equal paths compare unequal")
	}
	if string(p2.AppendKey(nil)) != string(p3.AppendKey(nil)) {
		t.Fatal("equal paths hash differently")
	}
	if eq, _ := Equal(p2, Str(p2.String())).BoolVal(); eq {
		t.Fatal("a path equals a string")
	}
	if c, ok := Compare(p2, p); !ok || c == 0 {
		t.Fatalf("Compare = %d, %v", c, ok)
	}
	if _, ok := Str("x").PathVal(); ok {
		t.Fatal("a string is a path")
	}
}
