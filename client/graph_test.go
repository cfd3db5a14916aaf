package client_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/novagraph/novagraph/client"
	ct "github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/temporal"
)

func TestExecuteReturnsMapsAndGraphValues(t *testing.T) {
	tim := ct.VertexVal(ct.Str("tim"), ct.Tag("player", ct.KV("name", ct.Str("Tim")), ct.KV("age", ct.Int(42))))
	tony := ct.VertexVal(ct.Str("tony"))
	follow := ct.EdgeVal(ct.Str("tony"), ct.Str("tim"), "follow", 0, ct.KV("degree", ct.Int(95)))
	graphd := ct.Start(t)
	graphd.Script("q", ct.Result(10, []string{"m", "v", "e", "p", "n"},
		ct.Row(
			// Entries out of order, and a repeated key: the last wins.
			ct.Map(ct.KV("b", ct.List(ct.Int(1), ct.Int(2))), ct.KV("a", ct.Int(0)), ct.KV("a", ct.Int(1)), ct.KV("c", ct.Null()),
				ct.KV("d", ct.Map(ct.KV("x", ct.Float(0.5)))), ct.KV("since", &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: 19000}})),
			ct.Vertex(ct.Str("tim"), ct.Tag("player", ct.KV("name", ct.Str("Tim")), ct.KV("age", ct.Int(42))), ct.Tag("coach")),
			ct.Edge(ct.Int(1), ct.Int(2), "e", -3),
			ct.Path(tim, ct.Step(follow, true, tony)),
			ct.Null(),
		)))
	rs, err := newSession(t, graphd).Execute(testContext(t), "q")
	if err != nil {
		t.Fatal(err)
	}
	row := rs.Row(0)

	m, err := row.Map(0)
	if err != nil {
		t.Fatal(err)
	}
	want := client.Map{"a": int64(1), "b": []any{int64(1), int64(2)}, "c": nil, "d": client.Map{"x": 0.5}, "since": temporal.Date(19000)}
	if !reflect.DeepEqual(m, want) || !reflect.DeepEqual(row.Value(0), want) {
		t.Fatalf("Map(0) = %#v, want %#v", m, want)
	}
	if got := row.Display(0); got != `{a: 1, b: [1, 2], c: __NULL__, d: {x: 0.5}, since: 2022-01-08}` {
		t.Errorf("Display(0) = %s", got)
	}

	v, err := row.Vertex(1)
	if err != nil {
		t.Fatal(err)
	}
	if v.VID != "tim" || len(v.Tags) != 2 || v.Tags[0].Name != "coach" || v.Tags[1].Props["age"] != int64(42) {
		t.Fatalf("Vertex(1) = %#v", v)
	}
	if p, ok := v.Tag("player"); !ok || p["name"] != "Tim" {
		t.Errorf("Tag(player) = %v, %v", p, ok)
	}
	if got := row.Display(1); got != `("tim" :coach{} :player{age: 42, name: "Tim"})` {
		t.Errorf("Display(1) = %s", got)
	}

	e, err := row.Edge(2)
	if err != nil {
		t.Fatal(err)
	}
	if e.Src != int64(1) || e.Dst != int64(2) || e.Type != "e" || e.Rank != -3 || len(e.Props) != 0 {
		t.Fatalf("Edge(2) = %#v", e)
	}
	if got := fmt.Sprint(row.Value(2)); got != `[:e 1->2 @-3 {}]` {
		t.Errorf("edge prints %s", got)
	}

	p, err := row.Path(3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Length() != 1 || len(p.Nodes()) != 2 || p.Nodes()[1].VID != "tony" || p.Relationships()[0].Props["degree"] != int64(95) || !p.Steps[0].Reverse {
		t.Fatalf("Path(3) = %#v", p)
	}
	if got := row.Display(3); got != `<("tim" :player{age: 42, name: "Tim"})<-[:follow@0 {degree: 95}]-("tony")>` {
		t.Errorf("Display(3) = %s", got)
	}

	// Typed accessors refuse other kinds and NULL.
	if _, err := row.Map(1); !errors.Is(err, client.ErrType) {
		t.Errorf("Map of a vertex: %v", err)
	}
	if _, err := row.Path(2); !errors.Is(err, client.ErrType) {
		t.Errorf("Path of an edge: %v", err)
	}
	if _, err := row.Vertex(4); !errors.Is(err, client.ErrNull) {
		t.Errorf("Vertex of NULL: %v", err)
	}
	if _, err := row.Edge(0); err == nil || !errors.Is(err, client.ErrType) {
		t.Errorf("Edge of a map: %v", err)
	}
}

func TestMapParams(t *testing.T) {
	for _, in := range []any{
		client.Map{"b": 2, "a": "x"},
		map[string]any{"b": 2, "a": "x"},
		map[string]int{"b": 2, "a": 3},
	} {
		pv, err := client.ParamValue(in)
		if err != nil {
			t.Fatalf("ParamValue(%v): %v", in, err)
		}
		var keys []string
		for _, e := range pv.GetMapVal().GetEntries() {
			keys = append(keys, string(e.GetKey()))
		}
		if !reflect.DeepEqual(keys, []string{"a", "b"}) {
			t.Errorf("ParamValue(%v) keys %q, want sorted", in, keys)
		}
	}
	if _, err := client.ParamValue(map[string]any{"k": struct{}{}}); !errors.Is(err, client.ErrType) {
		t.Errorf("a map of an unsupported value: %v", err)
	}
	if _, err := client.ParamValue(client.Vertex{VID: "a"}); !errors.Is(err, client.ErrType) {
		t.Errorf("a vertex parameter: %v", err)
	}
}

func TestFormatMapKeys(t *testing.T) {
	if got := client.FormatValue(client.Map{"a b": int64(1), "": "e", "_x1": true}); got != `{"": "e", _x1: true, "a b": 1}` {
		t.Errorf("FormatValue = %s", got)
	}
	if got := client.FormatValue(client.Map{}); got != "{}" {
		t.Errorf("empty map prints %s", got)
	}
}
