package console

import (
	"encoding/json"
	"strings"
	"testing"

	ct "github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// graphValues is a result with a map, a vertex, an edge and a path, as
// FIND PATH, GET SUBGRAPH and properties() return them.
func graphValues() *graphpb.ExecuteResp {
	tim := ct.VertexVal(ct.Str("tim"), ct.Tag("player", ct.KV("name", ct.Str("Tim")), ct.KV("age", ct.Int(42))))
	tony := ct.VertexVal(ct.Str("tony"), ct.Tag("player", ct.KV("name", ct.Str("Tony"))))
	follow := ct.EdgeVal(ct.Str("tim"), ct.Str("tony"), "follow", 0, ct.KV("degree", ct.Int(95)))
	serve := ct.EdgeVal(ct.Str("spurs"), ct.Str("tony"), "serve", 1)
	return ct.Result(70, []string{"m", "v", "e", "p"},
		ct.Row(
			ct.Map(ct.KV("name", ct.Str("Tim")), ct.KV("age", ct.Int(42)), ct.KV("tags", ct.List(ct.Int(1), ct.Null()))),
			ct.Vertex(ct.Str("tim"), ct.Tag("player", ct.KV("name", ct.Str("Tim")), ct.KV("age", ct.Int(42)))),
			ct.Edge(ct.Str("tim"), ct.Str("tony"), "follow", 0, ct.KV("degree", ct.Int(95))),
			ct.Path(tim, ct.Step(follow, false, tony), ct.Step(serve, true, ct.VertexVal(ct.Str("spurs")))),
		),
		ct.Row(ct.Map(), ct.Vertex(ct.Int(7)), ct.Edge(ct.Int(1), ct.Int(2), "e", -1), ct.Path(ct.VertexVal(ct.Int(7)))),
	)
}

func TestRenderGraphValuesTable(t *testing.T) {
	var out strings.Builder
	if err := renderResult(&out, &out, resultOf(t, graphValues()), formatTable, 90); err != nil {
		t.Fatal(err)
	}
	want := `+---------------------------------------------+---------------------------------------+-----------------------------------------+---------------------------------------------------------------------------------------------------------------------------+
| m                                           | v                                     | e                                       | p                                                                                                                         |
+---------------------------------------------+---------------------------------------+-----------------------------------------+---------------------------------------------------------------------------------------------------------------------------+
| {age: 42, name: "Tim", tags: [1, __NULL__]} | ("tim" :player{age: 42, name: "Tim"}) | [:follow "tim"->"tony" @0 {degree: 95}] | <("tim" :player{age: 42, name: "Tim"})-[:follow@0 {degree: 95}]->("tony" :player{name: "Tony"})<-[:serve@1 {}]-("spurs")> |
| {}                                          | (7)                                   | [:e 1->2 @-1 {}]                        | <(7)>                                                                                                                     |
+---------------------------------------------+---------------------------------------+-----------------------------------------+---------------------------------------------------------------------------------------------------------------------------+
Got 2 rows (time spent 70/90 us)

`
	if got := out.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderGraphValuesCSV(t *testing.T) {
	var out strings.Builder
	if err := renderResult(&out, &out, resultOf(t, graphValues()), formatCSV, 90); err != nil {
		t.Fatal(err)
	}
	want := `m,v,e,p
"{age: 42, name: ""Tim"", tags: [1, __NULL__]}","(""tim"" :player{age: 42, name: ""Tim""})","[:follow ""tim""->""tony"" @0 {degree: 95}]","<(""tim"" :player{age: 42, name: ""Tim""})-[:follow@0 {degree: 95}]->(""tony"" :player{name: ""Tony""})<-[:serve@1 {}]-(""spurs"")>"
{},(7),[:e 1->2 @-1 {}],<(7)>
Got 2 rows (time spent 70/90 us)

`
	if got := out.String(); got != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderGraphValuesJSON(t *testing.T) {
	body, err := renderJSON(resultOf(t, graphValues()), 90)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["m","v","e","p"],"rows":[` +
		`[{"age":42,"name":"Tim","tags":[1,null]},` +
		`{"tags":{"player":{"age":42,"name":"Tim"}},"vid":"tim"},` +
		`{"dst":"tony","props":{"degree":95},"rank":0,"src":"tim","type":"follow"},` +
		`{"nodes":[{"tags":{"player":{"age":42,"name":"Tim"}},"vid":"tim"},{"tags":{"player":{"name":"Tony"}},"vid":"tony"},{"tags":{},"vid":"spurs"}],` +
		`"relationships":[{"dst":"tony","props":{"degree":95},"rank":0,"src":"tim","type":"follow"},{"dst":"tony","props":{},"rank":1,"src":"spurs","type":"serve"}]}],` +
		`[{},{"tags":{},"vid":7},{"dst":2,"props":{},"rank":-1,"src":1,"type":"e"},{"nodes":[{"tags":{},"vid":7}],"relationships":[]}]],` +
		`"latency_us":70,"wall_us":90}`
	if string(body) != want {
		t.Errorf("json:\n%s\nwant:\n%s", body, want)
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
}
