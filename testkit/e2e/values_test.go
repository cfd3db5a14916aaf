package e2e

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/temporal"
)

// TestValues checks that maps, vertices, edges and paths reach the client
// as typed values (client.Map, client.Vertex, client.Edge, client.Path),
// not as their printed strings: FIND PATH and GET SUBGRAPH WITH PROP,
// properties() of GO's and FETCH's rows, map literals, the map forms of the
// calendar constructors, and map parameters.
func TestValues(t *testing.T) {
	s := startSpace(t, "vals", 3)
	exec(t, s, `CREATE TAG player(name string, age int)`)
	exec(t, s, `CREATE TAG team(name string)`)
	exec(t, s, `CREATE EDGE follow(degree int)`)
	exec(t, s, `CREATE EDGE serve(start int)`)
	exec(t, s, `INSERT VERTEX player(name, age) VALUES "tim":("Tim", 42), "tony":("Tony", 36), "pop":("Pop", 70)`)
	exec(t, s, `INSERT VERTEX team(name) VALUES "spurs":("Spurs"), "pop":("Coach")`)
	// "ghost" has no vertex: a dangling edge.
	exec(t, s, `INSERT EDGE follow(degree) VALUES "tim"->"tony":(95), "tim"->"pop":(80), "tim"->"ghost":(10)`)
	exec(t, s, `INSERT EDGE serve(start) VALUES "tim"->"spurs":(1997), "tony"->"spurs":(2001)`)

	tim := client.Vertex{VID: "tim", Tags: []client.Tag{{Name: "player", Props: client.Map{"name": "Tim", "age": int64(42)}}}}
	tony := client.Vertex{VID: "tony", Tags: []client.Tag{{Name: "player", Props: client.Map{"name": "Tony", "age": int64(36)}}}}
	spurs := client.Vertex{VID: "spurs", Tags: []client.Tag{{Name: "team", Props: client.Map{"name": "Spurs"}}}}
	timFollowsTony := client.Edge{Src: "tim", Dst: "tony", Type: "follow", Props: client.Map{"degree": int64(95)}}
	timServes := client.Edge{Src: "tim", Dst: "spurs", Type: "serve", Props: client.Map{"start": int64(1997)}}

	// FIND SHORTEST PATH WITH PROP: a path of vertices with their tags and
	// edges with their properties; a hop against an edge's direction
	// keeps the edge's own src and dst.
	rs := exec(t, s, `FIND SHORTEST PATH WITH PROP FROM "tim" TO "spurs" OVER serve YIELD path AS p`)
	wantPath := client.Path{Start: tim, Steps: []client.Step{{Edge: timServes, Dst: spurs}}}
	if got := onePath(t, rs); !reflect.DeepEqual(got, wantPath) {
		t.Fatalf("FIND SHORTEST PATH WITH PROP:\n got %#v\nwant %#v", got, wantPath)
	}
	rs = exec(t, s, `FIND SHORTEST PATH WITH PROP FROM "tony" TO "tim" OVER follow REVERSELY YIELD path AS p`)
	wantPath = client.Path{Start: tony, Steps: []client.Step{{Edge: timFollowsTony, Reverse: true, Dst: tim}}}
	if got := onePath(t, rs); !reflect.DeepEqual(got, wantPath) {
		t.Fatalf("FIND SHORTEST PATH REVERSELY:\n got %#v\nwant %#v", got, wantPath)
	}
	if got := rs.Row(0).Display(0); got != `<("tony" :player{age: 36, name: "Tony"})<-[:follow@0 {degree: 95}]-("tim" :player{age: 42, name: "Tim"})>` {
		t.Errorf("path displays as %s", got)
	}
	// Without WITH PROP: ids only, edges with empty properties.
	rs = exec(t, s, `FIND SHORTEST PATH FROM "tim" TO "spurs" OVER serve YIELD path AS p`)
	wantPath = client.Path{Start: client.Vertex{VID: "tim"}, Steps: []client.Step{{Edge: client.Edge{Src: "tim", Dst: "spurs", Type: "serve", Props: client.Map{}}, Dst: client.Vertex{VID: "spurs"}}}}
	if got := onePath(t, rs); !reflect.DeepEqual(got, wantPath) {
		t.Fatalf("FIND SHORTEST PATH:\n got %#v\nwant %#v", got, wantPath)
	}
	// The path functions, piped: each result is typed too.
	rs = exec(t, s, `FIND SHORTEST PATH WITH PROP FROM "tim" TO "spurs" OVER serve YIELD path AS p | `+
		`YIELD length($-.p) AS n, nodes($-.p) AS ns, relationships($-.p)[0] AS r, startNode($-.p) AS s, type(relationships($-.p)[0]) AS t, properties(endNode($-.p)) AS pe, tags(startNode($-.p)) AS tg`)
	row := rs.Row(0)
	for j, want := range []any{int64(1), []any{tim, spurs}, timServes, tim, "serve", client.Map{"name": "Spurs"}, []any{"player"}} {
		if got := row.Value(j); !reflect.DeepEqual(got, want) {
			t.Errorf("path function column %s = %#v, want %#v", rs.Columns()[j], got, want)
		}
	}

	// GET SUBGRAPH WITH PROP: lists of vertices and edges.
	rs = exec(t, s, `GET SUBGRAPH WITH PROP 1 STEPS FROM "tony" OUT serve YIELD VERTICES AS nodes, EDGES AS relationships`)
	if rs.Len() != 2 {
		t.Fatalf("GET SUBGRAPH: %d rows", rs.Len())
	}
	wantRows := [][]any{
		{[]any{tony}, []any{client.Edge{Src: "tony", Dst: "spurs", Type: "serve", Props: client.Map{"start": int64(2001)}}}},
		{[]any{spurs}, []any{}},
	}
	for i, want := range wantRows {
		for j := range want {
			if got := rs.Row(i).Value(j); !reflect.DeepEqual(got, want[j]) {
				t.Errorf("GET SUBGRAPH row %d column %d = %#v, want %#v", i, j, got, want[j])
			}
		}
	}

	// properties() of GO's edge and vertices, whole: maps. A vertex with
	// two tags merges them (the first tag by name wins a shared name); one
	// that does not exist is NULL.
	rs = exec(t, s, `GO FROM "tim" OVER follow YIELD dst(edge) AS d, properties($$) AS dp, properties(edge) AS ep, properties($^) AS sp`)
	got := map[string][]any{}
	for i := range rs.Len() {
		r := rs.Row(i)
		d, _ := r.String(0)
		got[d] = []any{r.Value(1), r.Value(2), r.Value(3)}
		if m, err := r.Map(2); err != nil || len(m) != 1 {
			t.Errorf("Map(ep) = %v, %v", m, err)
		}
	}
	timProps := client.Map{"name": "Tim", "age": int64(42)}
	wantGo := map[string][]any{
		"tony":  {client.Map{"name": "Tony", "age": int64(36)}, client.Map{"degree": int64(95)}, timProps},
		"pop":   {client.Map{"name": "Pop", "age": int64(70)}, client.Map{"degree": int64(80)}, timProps},
		"ghost": {nil, client.Map{"degree": int64(10)}, timProps},
	}
	if !reflect.DeepEqual(got, wantGo) {
		t.Fatalf("GO YIELD properties():\n got %#v\nwant %#v", got, wantGo)
	}
	// Over two edge types, each row's edge has its own type's properties;
	// properties($$).name still reads one property.
	expectRows(t, s, `GO FROM "tim" OVER follow, serve YIELD dst(edge), properties(edge), properties($$).name`,
		`ghost|{degree: 10}|NULL`, `pop|{degree: 80}|Pop`, `spurs|{start: 1997}|Spurs`, `tony|{degree: 95}|Tony`)
	// Whole properties in WHERE stay in graphd (storage cannot build them).
	expectRows(t, s, `GO FROM "tim" OVER follow WHERE properties(edge) == {degree: 95} YIELD dst(edge)`, "tony")
	expectRows(t, s, `GO FROM "tim" OVER follow WHERE size(keys(properties($$))) == 2 YIELD dst(edge)`, "pop", "tony")
	expectRows(t, s, `GO FROM "tim" OVER follow WHERE properties($^).age == 42 AND properties(edge).degree > 50 YIELD dst(edge)`, "pop", "tony")
	expectError(t, s, `FIND SHORTEST PATH FROM "tim" TO "tony" OVER follow WHERE properties(edge) == {degree: 95} YIELD path AS p`,
		graphpb.QueryErrorCode_E_SEMANTIC, "properties(edge)")

	// FETCH: properties(VERTEX) of the fetched tags, properties(EDGE).
	rs = exec(t, s, `FETCH PROP ON player, team "pop" YIELD properties(vertex) AS p, properties(vertex).name AS n`)
	if got := rs.Row(0).Value(0); !reflect.DeepEqual(got, client.Map{"name": "Pop", "age": int64(70)}) {
		t.Errorf("FETCH properties(vertex) = %#v", got)
	}
	rs = exec(t, s, `FETCH PROP ON team "pop" YIELD properties(vertex) AS p`)
	if got := rs.Row(0).Value(0); !reflect.DeepEqual(got, client.Map{"name": "Coach"}) {
		t.Errorf("FETCH PROP ON team properties(vertex) = %#v", got)
	}
	rs = exec(t, s, `FETCH PROP ON follow "tim"->"tony" YIELD properties(edge) AS p`)
	if got := rs.Row(0).Value(0); !reflect.DeepEqual(got, client.Map{"degree": int64(95)}) {
		t.Errorf("FETCH properties(edge) = %#v", got)
	}
	// LOOKUP: properties(vertex) of the tag looked up, properties(edge).
	exec(t, s, `CREATE TAG INDEX player_age ON player(age)`)
	exec(t, s, `CREATE EDGE INDEX follow_degree ON follow(degree)`)
	exec(t, s, `REBUILD TAG INDEX player_age`)
	exec(t, s, `REBUILD EDGE INDEX follow_degree`)
	rs = exec(t, s, `LOOKUP ON player WHERE player.age > 60 YIELD properties(vertex) AS p`)
	if got := rs.Row(0).Value(0); rs.Len() != 1 || !reflect.DeepEqual(got, client.Map{"name": "Pop", "age": int64(70)}) {
		t.Errorf("LOOKUP properties(vertex) = %#v (%d rows)", got, rs.Len())
	}
	rs = exec(t, s, `LOOKUP ON follow WHERE follow.degree == 95 YIELD properties(edge) AS p`)
	if got := rs.Row(0).Value(0); rs.Len() != 1 || !reflect.DeepEqual(got, client.Map{"degree": int64(95)}) {
		t.Errorf("LOOKUP properties(edge) = %#v (%d rows)", got, rs.Len())
	}
	expectError(t, s, `LOOKUP ON follow WHERE follow.degree == 95 YIELD properties(vertex) AS p`, graphpb.QueryErrorCode_E_SEMANTIC, "no vertex")

	// Map literals, and the map forms of the calendar constructors.
	rs = exec(t, s, `YIELD {a: 1, b: [1,2]}, {a: 1, b: {c: "x"}}.b.c AS c, keys({z: 1, a: 2}) AS k, duration({days: 3}) AS du, date({year: 2024, month: 2, day: 29}) AS d`)
	if cols := rs.Columns(); cols[0] != "{a:1,b:[1,2]}" {
		t.Errorf("map column named %q", cols[0])
	}
	row = rs.Row(0)
	m, err := row.Map(0)
	if want := (client.Map{"a": int64(1), "b": []any{int64(1), int64(2)}}); err != nil || !reflect.DeepEqual(m, want) {
		t.Errorf("YIELD {a: 1, b: [1,2]} = %#v, %v", m, err)
	}
	d29, _ := temporal.NewDate(2024, 2, 29)
	for j, want := range map[int]any{1: "x", 2: []any{"a", "z"}, 3: temporal.Duration{Micros: 3 * 86400 * 1_000_000}, 4: d29} {
		if got := row.Value(j); !reflect.DeepEqual(got, want) {
			t.Errorf("column %s = %#v, want %#v", rs.Columns()[j], got, want)
		}
	}
	expectRows(t, s, `YIELD duration({days: 3}) == duration("P3D"), {a: 1} == {a: 1.0}, {a: 1} IN [{a: 1}]`, "true|true|true")
	expectRows(t, s, `YIELD {b: 1, a: 2} AS m | YIELD $-.m.a, $-.m["b"], size($-.m)`, "2|1|2")
	expectRows(t, s, `YIELD {a: 1} AS m UNION YIELD {a: 1} AS m UNION YIELD {a: 2} AS m`, "{a: 1}", "{a: 2}")
	expectError(t, s, `YIELD {a: 1, a: 2}`, graphpb.QueryErrorCode_E_SYNTAX, `map key "a" given twice`)
	expectError(t, s, `YIELD date({year: "x"})`, graphpb.QueryErrorCode_E_EXECUTION, "must be an integer")

	// A map parameter: read in graphd, and sent to storage as a literal
	// in a pushed filter.
	rs = execParams(t, s, `YIELD $m AS m, $m["deg"] AS d`, map[string]any{"m": map[string]any{"deg": 95, "tags": []string{"x"}}})
	if got := rs.Row(0).Value(0); !reflect.DeepEqual(got, client.Map{"deg": int64(95), "tags": []any{"x"}}) {
		t.Errorf("$m = %#v", got)
	}
	expectParamRows(t, s, `GO FROM "tim" OVER follow WHERE follow.degree == $m["deg"] YIELD dst(edge)`, map[string]any{"m": client.Map{"deg": 95}}, "tony")
}

// onePath is the path of a one-row, one-column result.
func onePath(t *testing.T, rs *client.ResultSet) client.Path {
	t.Helper()
	if rs.Len() != 1 {
		var rows []string
		for i := range rs.Len() {
			rows = append(rows, fmt.Sprint(rs.Row(i).Value(0)))
		}
		sort.Strings(rows)
		t.Fatalf("%d paths, want 1: %q", rs.Len(), rows)
	}
	p, err := rs.Row(0).Path(0)
	if err != nil {
		t.Fatalf("Path(0): %v", err)
	}
	return p
}
