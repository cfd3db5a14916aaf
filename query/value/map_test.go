package value

import (
	"bytes"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
)

func TestMapValues(t *testing.T) {
	m := Map(Prop{"name", Str("Tim")}, Prop{"age", Int(1)}, Prop{"age", Int(42)}, Prop{"a b", List(Int(1), Null())})
	if m.Kind() != KindMap || m.Kind().String() != "MAP" {
		t.Fatalf("kind %s", m.Kind())
	}
	// Sorted by key, the last of a repeated key kept, odd keys quoted.
	if got, want := m.String(), `{"a b": [1,NULL], age: 42, name: "Tim"}`; got != want {
		t.Fatalf("String() = %s, want %s", got, want)
	}
	if got := Map().String(); got != "{}" {
		t.Fatalf("empty map prints %s", got)
	}
	if v, ok := m.MapGet("age"); !ok || v.String() != "42" {
		t.Fatalf("MapGet(age) = %v, %v", v, ok)
	}
	if _, ok := m.MapGet("nope"); ok {
		t.Fatal("MapGet found a missing key")
	}
	if got := m.MapKeys(); !reflect.DeepEqual(got, []string{"a b", "age", "name"}) {
		t.Fatalf("MapKeys() = %q", got)
	}
	if _, ok := Str("x").MapVal(); ok {
		t.Fatal("a string is a map")
	}
	for key, bare := range map[string]bool{"a": true, "_x1": true, "MATCH": true, "1a": false, "": false, "a-b": false, "é": true} {
		if KeyIsBare(key) != bare {
			t.Errorf("KeyIsBare(%q) = %v", key, !bare)
		}
	}

	// Equality is by keys and values, three-valued; the build order does
	// not matter, nor does it for hashing.
	m2 := MapOf(map[string]Value{"name": Str("Tim"), "age": Float(42), "a b": List(Int(1), Null())})
	if eq := Equal(Map(Prop{"a", Int(1)}, Prop{"b", Int(2)}), Map(Prop{"b", Int(2)}, Prop{"a", Int(1)})); eq.String() != "true" {
		t.Fatalf("equal maps: %s", eq)
	}
	for _, tc := range []struct {
		a, b Value
		want string
	}{
		{Map(Prop{"a", Int(1)}), Map(Prop{"a", Float(1)}), "true"},
		{Map(Prop{"a", Int(1)}), Map(Prop{"a", Int(2)}), "false"},
		{Map(Prop{"a", Int(1)}), Map(Prop{"b", Int(1)}), "false"},
		{Map(Prop{"a", Int(1)}), Map(), "false"},
		{Map(Prop{"a", Null()}), Map(Prop{"a", Null()}), "NULL"},
		{Map(Prop{"a", Null()}, Prop{"b", Int(1)}), Map(Prop{"a", Null()}, Prop{"b", Int(2)}), "false"},
		{m, m2, "NULL"}, // [1,NULL] == [1,NULL] is NULL
		{Map(), List(), "false"},
		{Map(), Null(), "NULL"},
	} {
		if got := Equal(tc.a, tc.b).String(); got != tc.want {
			t.Errorf("%s == %s is %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
	if _, ok := Compare(m, m2); ok {
		t.Fatal("maps are ordered")
	}
	k1 := Map(Prop{"x", Int(1)}, Prop{"y", Str("s")}).AppendKey(nil)
	k2 := MapOf(map[string]Value{"y": Str("s"), "x": Int(1)}).AppendKey(nil)
	if !bytes.Equal(k1, k2) {
		t.Fatal("equal maps hash differently")
	}
	for _, other := range []Value{Map(Prop{"x", Int(1)}), Map(Prop{"x", Int(1)}, Prop{"y", Str("t")}), Map(Prop{"xy", Int(1)}, Prop{"", Str("s")}), List(Int(1), Str("s"))} {
		if bytes.Equal(k1, other.AppendKey(nil)) {
			t.Errorf("%s hashes like {x: 1, y: \"s\"}", other)
		}
	}

	// Attributes and subscripts.
	if v, err := Attribute(m, "name"); err != nil || v.String() != `"Tim"` {
		t.Fatalf("m.name = %v, %v", v, err)
	}
	if v, err := Attribute(m, "Name"); err != nil || !v.IsNull() {
		t.Fatalf("m.Name = %v, %v (keys are case-sensitive)", v, err)
	}
	if v, ok, err := Element(m, Str("a b")); !ok || err != nil || v.String() != "[1,NULL]" {
		t.Fatalf(`m["a b"] = %v, %v, %v`, v, ok, err)
	}
	if _, ok, err := Element(m, Int(0)); !ok || err == nil {
		t.Fatalf("m[0] = %v, %v", ok, err)
	}
	if _, ok, _ := Element(List(Int(1)), Int(0)); ok {
		t.Fatal("Element handles lists")
	}

	// Go values.
	g := m.ToGo().(map[string]any)
	if g["age"] != int64(42) || len(g) != 3 {
		t.Fatalf("ToGo() = %v", g)
	}
	back, err := FromGo(g)
	if err != nil || !bytes.Equal(back.AppendKey(nil), m.AppendKey(nil)) {
		t.Fatalf("FromGo(ToGo(m)) = %v, %v", back, err)
	}
}

func TestGraphValueAccess(t *testing.T) {
	v := VertexValue(Vertex{VID: Str("a"), Tags: []TagProps{
		{Name: "team", Props: []Prop{{"name", Str("Spurs")}}},
		{Name: "player", Props: []Prop{{"name", Str("Tim")}, {"age", Int(42)}}},
	}})
	vx, _ := v.VertexVal()
	if got := vx.PropsMap().String(); got != `{age: 42, name: "Tim"}` {
		t.Fatalf("vertex props %s (the first tag by name wins)", got)
	}
	if got := vx.TagNames(); !reflect.DeepEqual(got, []string{"player", "team"}) {
		t.Fatalf("tags %q", got)
	}
	if a, _ := Attribute(v, "age"); a.String() != "42" {
		t.Fatalf("v.age = %s", a)
	}
	if a, _ := Attribute(v, "nope"); !a.IsNull() {
		t.Fatalf("v.nope = %s", a)
	}
	e := EdgeValue(Edge{Src: Str("a"), Dst: Str("b"), Type: "follow", Rank: 2, Props: []Prop{{"degree", Int(95)}}})
	for name, want := range map[string]string{"degree": "95", "_src": `"a"`, "_dst": `"b"`, "_rank": "2", "_type": `"follow"`, "nope": "NULL"} {
		if a, err := Attribute(e, name); err != nil || a.String() != want {
			t.Errorf("e.%s = %s, %v; want %s", name, a, err, want)
		}
	}
}

func TestCompositeProtoRoundTrip(t *testing.T) {
	a := Vertex{VID: Str("a"), Tags: []TagProps{{Name: "player", Props: []Prop{{"name", Str("Tim")}, {"age", Int(42)}, {"note", Null()}}}}}
	b := Vertex{VID: Str("b")}
	path := PathValue(Path{Src: a, Steps: []Step{
		{Edge: Edge{Src: Str("a"), Dst: Str("b"), Type: "follow", Props: []Prop{{"degree", Int(95)}}}, Dst: b},
		{Edge: Edge{Src: Str("c"), Dst: Str("b"), Type: "serve", Rank: -1, Props: []Prop{}}, Reverse: true, Dst: Vertex{VID: Str("c"), Tags: []TagProps{{Name: "team", Props: []Prop{}}}}},
	}})
	for _, v := range []Value{
		Map(),
		Map(Prop{"a", Int(1)}, Prop{"b", List(Int(1), Map(Prop{"x", Null()}))}, Prop{"c", Map(Prop{"d", Float(0.5)})}),
		List(Map(Prop{"k", Str("v")}), Null()),
		VertexValue(a),
		VertexValue(Vertex{VID: Int(7)}),
		EdgeValue(Edge{Src: Int(1), Dst: Int(2), Type: "e", Rank: 3}),
		EdgeValue(Edge{Src: Str("a"), Dst: Str("b"), Type: "follow", Props: []Prop{{"degree", Int(95)}, {"since", Date(19000)}}}),
		path,
		PathValue(Path{Src: b}),
		List(path, VertexValue(a)),
	} {
		// Through the bytes, as a client receives it.
		bs, err := proto.Marshal(v.ToProto())
		if err != nil {
			t.Fatalf("marshal %s: %v", v, err)
		}
		var pv commonpb.Value
		if err := proto.Unmarshal(bs, &pv); err != nil {
			t.Fatalf("unmarshal %s: %v", v, err)
		}
		got := FromProto(&pv)
		if got.Kind() != v.Kind() || got.String() != v.String() || !bytes.Equal(got.AppendKey(nil), v.AppendKey(nil)) {
			t.Errorf("%s (%s) reads back as %s (%s)", v, v.Kind(), got, got.Kind())
		}
		if eq, _ := Equal(got, v).BoolVal(); !eq && !hasNull(v) {
			t.Errorf("%s != its round trip", v)
		}
	}
	// The wire form of a map is its sorted entries, whatever the build order.
	m1 := MapOf(map[string]Value{"z": Int(1), "a": Int(2), "m": Int(3)})
	m2 := Map(Prop{"m", Int(3)}, Prop{"z", Int(1)}, Prop{"a", Int(2)})
	b1, _ := proto.Marshal(m1.ToProto())
	b2, _ := proto.Marshal(m2.ToProto())
	if !bytes.Equal(b1, b2) {
		t.Fatal("equal maps encode differently")
	}
	var keys []string
	for _, e := range m1.ToProto().GetMapVal().GetEntries() {
		keys = append(keys, string(e.GetKey()))
	}
	if !reflect.DeepEqual(keys, []string{"a", "m", "z"}) {
		t.Fatalf("wire keys %q", keys)
	}
	// A receiver sorts entries and keeps the last of a repeated key.
	raw := &commonpb.Value{V: &commonpb.Value_MapVal{MapVal: &commonpb.MapVal{Entries: []*commonpb.MapEntry{
		{Key: []byte("b"), Value: Int(1).ToProto()}, {Key: []byte("a"), Value: Int(2).ToProto()}, {Key: []byte("b"), Value: Int(3).ToProto()}, {Key: []byte("c")},
	}}}}
	if got := FromProto(raw).String(); got != "{a: 2, b: 3, c: NULL}" {
		t.Fatalf("unsorted wire map reads as %s", got)
	}
	// The wire structure of a vertex, an edge and a path.
	pv := VertexValue(a).ToProto().GetVertexVal()
	if pv.GetVid().GetStrVal() == nil || len(pv.GetTags()) != 1 || pv.GetTags()[0].GetName() != "player" || len(pv.GetTags()[0].GetProps().GetEntries()) != 3 {
		t.Fatalf("vertex on the wire: %v", pv)
	}
	pp := path.ToProto().GetPathVal()
	if len(pp.GetSteps()) != 2 || !pp.GetSteps()[1].GetReverse() || pp.GetSteps()[1].GetEdge().GetName() != "serve" || pp.GetSteps()[1].GetEdge().GetRank() != -1 ||
		string(pp.GetSteps()[1].GetEdge().GetSrc().GetStrVal()) != "c" || string(pp.GetSrc().GetVid().GetStrVal()) != "a" {
		t.Fatalf("path on the wire: %v", pp)
	}
}

// hasNull reports whether v holds a NULL anywhere, so that == is NULL.
func hasNull(v Value) bool {
	switch {
	case v.IsNull():
		return true
	case v.Kind() == KindList:
		items, _ := v.ListVal()
		for _, x := range items {
			if hasNull(x) {
				return true
			}
		}
	case v.Kind() == KindMap:
		props, _ := v.MapVal()
		for _, p := range props {
			if hasNull(p.Value) {
				return true
			}
		}
	}
	return false
}
