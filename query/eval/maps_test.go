package eval

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// graphRow is a row whose $-.v, $-.e, $-.p and $-.m are a vertex, an edge,
// a path and a map, and which gives whole properties (PropsSource).
type graphRow struct {
	pathRow
	input map[string]value.Value
	all   map[Scope]value.Value
}

func (r graphRow) InputProp(col string) (value.Value, error) {
	if v, ok := r.input[col]; ok {
		return v, nil
	}
	return value.Null(), fmt.Errorf("no $-.%s", col)
}

func (r graphRow) AllProps(scope Scope) (value.Value, error) { return r.all[scope], nil }

func testGraphRow() graphRow {
	tim := value.Vertex{VID: value.Str("tim"), Tags: []value.TagProps{
		{Name: "player", Props: []value.Prop{{Name: "name", Value: value.Str("Tim")}, {Name: "age", Value: value.Int(42)}}},
		{Name: "coach", Props: []value.Prop{{Name: "since", Value: value.Int(2020)}}},
	}}
	tony := value.Vertex{VID: value.Str("tony"), Tags: []value.TagProps{{Name: "player", Props: []value.Prop{{Name: "name", Value: value.Str("Tony")}}}}}
	follow := value.Edge{Src: value.Str("tony"), Dst: value.Str("tim"), Type: "follow", Rank: 3, Props: []value.Prop{{Name: "degree", Value: value.Int(95)}}}
	p := value.PathValue(value.Path{Src: tim, Steps: []value.Step{{Edge: follow, Reverse: true, Dst: tony}}})
	return graphRow{
		input: map[string]value.Value{
			"v": value.VertexValue(tim), "e": value.EdgeValue(follow), "p": p,
			"m": value.Map(value.Prop{Name: "a", Value: value.Int(1)}, value.Prop{Name: "b c", Value: value.List(value.Int(1), value.Int(2))}),
		},
		all: map[Scope]value.Value{
			ScopeEdge: value.Map(value.Prop{Name: "degree", Value: value.Int(95)}),
			ScopeSrc:  value.Map(value.Prop{Name: "name", Value: value.Str("Tim")}),
			ScopeDst:  value.Null(),
		},
	}
}

func TestMapsAndGraphValues(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// Map literals: any expressions as values, keys sorted when printed.
		{"{}", "{}"},
		{"{b: 1 + 1, a: 'x', `c d`: [1, NULL], \"e\": {f: true}}", `{a: "x", b: 2, "c d": [1,NULL], e: {f: true}}`},
		{"{match: 1, NULL: 2, yield: 3}", "{NULL: 2, match: 1, yield: 3}"},
		{"{a: 1}.a", "1"},
		{"{a: 1}.b", "NULL"},
		{"{a: {b: [10, 20]}}.a.b[1]", "20"},
		{`{a: 1}["a"]`, "1"},
		{`{a: 1}["A"]`, "NULL"},
		{"{a: 1}[NULL]", "NULL"},
		{"$-.m.a + $-.m['b c'][0]", "2"},
		{"keys($-.m)", `["a","b c"]`},
		{"keys({})", "[]"},
		{"size($-.m)", "2"},
		{"size({})", "0"},
		{"length({x: 1})", "1"},
		{"{a: 1, b: 2} == {b: 2, a: 1.0}", "true"},
		{"{a: 1} == {a: 2}", "false"},
		{"{a: 1} != {a: 1, b: 2}", "true"},
		{"{a: NULL} == {a: NULL}", "NULL"},
		{"{a: 1} IN [{a: 1}, 2]", "true"},
		{"[{a: 1}] + {b: 2}", "[{a: 1},{b: 2}]"},
		{"toString({a: 'x'})", `"{a: \"x\"}"`},
		{"properties({a: 1})", "{a: 1}"},
		{"hash({a: 1}) == hash({a: 1})", "true"},
		{"hash({a: 1}) == hash({a: 2})", "false"},
		// Calendar constructors from maps.
		{"duration({days: 3})", `duration("P0MT259200.000000000S")`},
		{"duration({years: 1, days: 2, hours: 3})", `duration("P12MT183600.000000000S")`},
		{"duration({DAYS: 1}) == duration('P1D')", "true"},
		{"date({year: 2024, month: 2, day: 29})", `date("2024-02-29")`},
		{"date({year: 2024})", `date("2024-01-01")`},
		{"time({hour: 12, minute: 34, second: 56, millisecond: 7})", `time("12:34:56.007000")`},
		{"datetime({year: 2024, month: 1, day: 2, hour: 3})", `datetime("2024-01-02T03:00:00.000000")`},
		{"date({year: 2024, month: 1, day: 2}) == date('{year: 2024, month: 1, day: 2}')", "true"},
		{"date({year: 2024, month: 3}).month", "3"},
		// Vertex, edge and path values.
		{"id($-.v)", `"tim"`},
		{"tags($-.v)", `["coach","player"]`},
		{"labels($-.v)", `["coach","player"]`},
		{"properties($-.v)", `{age: 42, name: "Tim", since: 2020}`},
		{"properties($-.v).age", "42"},
		{"keys($-.v)", `["age","name","since"]`},
		{"$-.v.name", `"Tim"`},
		{"$-.v['since']", "2020"},
		{"$-.v.nope", "NULL"},
		{"properties($-.e)", "{degree: 95}"},
		{"properties($-.e).degree", "95"},
		{"keys($-.e)", `["degree"]`},
		{"$-.e.degree", "95"},
		{"$-.e._rank", "3"},
		{"src($-.e)", `"tony"`},
		{"dst($-.e)", `"tim"`},
		{"rank($-.e)", "3"},
		{"type($-.e)", `"follow"`},
		{"length($-.p)", "1"},
		{"size(nodes($-.p))", "2"},
		{"id(startNode($-.p))", `"tim"`},
		{"id(endNode($-.p))", `"tony"`},
		{"type(relationships($-.p)[0])", `"follow"`},
		{"src(relationships($-.p)[0])", `"tony"`},
		{"startNode($-.p) == $-.v", "true"},
		{"relationships($-.p)[0] == $-.e", "true"},
		{"src(NULL)", "NULL"},
		{"tags(NULL)", "NULL"},
		{"keys(NULL)", "NULL"},
		// The row's own edge and vertices, whole.
		{"properties(EDGE)", "{degree: 95}"},
		{"properties(edge).degree", "95"},
		{"properties($^)", `{name: "Tim"}`},
		{"properties(VERTEX)", `{name: "Tim"}`},
		{"properties($$)", "NULL"},
		{"{e: properties(edge), n: properties($^).name}", `{e: {degree: 95}, n: "Tim"}`},
	} {
		got, err := Eval(testGraphRow(), mustParse(t, tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{"nodes($-.v)", "src($-.v)", "tags($-.e)", "properties([1])", "keys('a')", "duration({days: 1.5})", "date({month: 1})", "time({hour: 25})"} {
		if _, err := Eval(testGraphRow(), mustParse(t, src)); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

func TestMapCollectProps(t *testing.T) {
	got := CollectProps(
		mustParse(t, "{a: $$.player.name, b: [$-.x], c: {d: $p}}"),
		mustParse(t, "properties(edge)"),
		mustParse(t, "properties($^).name"),
		mustParse(t, "keys(properties($$))"),
		mustParse(t, "src({a: 1})"),
	)
	want := &Props{
		Dst:     []PropRef{{"player", "name"}, {AnyTag, PropVID}},
		Src:     []PropRef{{AnyTag, PropVID}},
		Input:   []string{"x"},
		Param:   []string{"p"},
		AllEdge: true, AllSrc: true, AllDst: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CollectProps:\n got %+v\nwant %+v", got, want)
	}
	// VERTEX reads the FETCH row's vertex, which plays $^.
	if ps := CollectProps(mustParse(t, "properties(VERTEX)")); !ps.AllSrc || ps.AllDst || ps.AllEdge {
		t.Errorf("properties(VERTEX): %+v", ps)
	}
	// A map literal is deterministic unless a value is not.
	if IsDeterministic(mustParse(t, "{a: 1, b: now() - now() + 1}")) {
		t.Error("now() inside a map is deterministic")
	}
	if !IsDeterministic(mustParse(t, "{a: date({year: 2024})}")) {
		t.Error("a constant map is not deterministic")
	}
}

func TestMapCheckCall(t *testing.T) {
	for src, want := range map[string]string{
		"properties(EDGE)":    "",
		"properties($$)":      "",
		"properties(1, 2)":    "takes 1 argument(s)",
		"keys()":              "takes 1 argument(s)",
		"src($$)":             "must be EDGE or an edge value",
		"src(EDGE, 1)":        "takes one argument",
		"src($-.e)":           "",
		"tags($^)":            "$^ is not a value",
		"duration({days: 1})": "",
	} {
		c, ok := mustParse(t, src).(*ast.FuncCall)
		if !ok {
			t.Fatalf("%s is not a call", src)
		}
		err := CheckCall(c)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", c, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", c, err, want)
		}
	}
}
