package e2e

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/oracle"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// renderSubgraph turns GET SUBGRAPH rows (VERTICES, EDGES) into one line
// per row, in row order: "V: a b | E: x y" with each list sorted.
func renderSubgraph(t *testing.T, rs *client.ResultSet) []string {
	t.Helper()
	out := make([]string, rs.Len())
	for i := range out {
		row := rs.Row(i)
		var parts []string
		for j := 0; j < row.Len(); j++ {
			items, err := row.List(j)
			if err != nil {
				t.Fatalf("row %d column %d: %v", i, j, err)
			}
			ss := make([]string, len(items))
			for k, it := range items {
				ss[k] = fmt.Sprint(it)
			}
			sort.Strings(ss)
			parts = append(parts, strings.Join(ss, " "))
		}
		out[i] = "V: " + parts[0] + " | E: " + parts[1]
	}
	return out
}

func oracleSubgraph(g *oracle.Graph, rows []oracle.SubgraphRow, withProp bool) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vs := make([]string, len(r.Vertices))
		for k, v := range r.Vertices {
			vs[k] = g.FormatVertex(v, withProp)
		}
		es := make([]string, len(r.Edges))
		for k, e := range r.Edges {
			es[k] = oracle.FormatEdge(e, withProp)
		}
		sort.Strings(vs)
		sort.Strings(es)
		out[i] = "V: " + strings.Join(vs, " ") + " | E: " + strings.Join(es, " ")
	}
	return out
}

func oraclePaths(g *oracle.Graph, ps []oracle.Path, withProp bool) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = g.FormatPath(p, withProp)
	}
	sort.Strings(out)
	return out
}

func sameSequence(got, want []string) (string, bool) {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want)), false
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: %q, want %q", i, got[i], want[i]), false
		}
	}
	return "", true
}

// TestPathStatements checks FIND PATH and GET SUBGRAPH on a small
// hand-checked graph, and their errors.
func TestPathStatements(t *testing.T) {
	s := startSpace(t, "paths", 4)
	exec(t, s, `CREATE TAG person(name string)`)
	exec(t, s, `CREATE EDGE e(w int)`)
	exec(t, s, `CREATE EDGE f()`)
	exec(t, s, `INSERT VERTEX person(name) VALUES "a":("Ann"), "b":("Bob"), "c":("Cid")`)
	// a→b (w 1), a→b@1 (w 2), b→c, a→c, c→d; d→a over f. d has no tag.
	exec(t, s, `INSERT EDGE e(w) VALUES "a"->"b":(1), "a"->"b"@1:(2), "b"->"c":(3), "a"->"c":(4), "c"->"d":(5)`)
	exec(t, s, `INSERT EDGE f() VALUES "d"->"a":()`)

	expectRows(t, s, `FIND SHORTEST PATH FROM "a" TO "d" OVER e YIELD path AS p`,
		`<("a")-[:e@0 {}]->("c")-[:e@0 {}]->("d")>`)
	// Parallel edges make distinct paths.
	expectRows(t, s, `FIND SHORTEST PATH FROM "a" TO "b" OVER e YIELD path AS p`,
		`<("a")-[:e@0 {}]->("b")>`, `<("a")-[:e@1 {}]->("b")>`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "d" TO "b" OVER e REVERSELY YIELD path AS p`,
		`<("d")<-[:e@0 {}]-("c")<-[:e@0 {}]-("b")>`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "d" TO "b" OVER e YIELD path AS p`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "c" TO "a" OVER e REVERSELY YIELD path AS p`,
		`<("c")<-[:e@0 {}]-("a")>`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "d" TO "b" OVER * BIDIRECT YIELD path AS p`,
		`<("d")-[:f@0 {}]->("a")-[:e@0 {}]->("b")>`, `<("d")-[:f@0 {}]->("a")-[:e@1 {}]->("b")>`,
		`<("d")<-[:e@0 {}]-("c")<-[:e@0 {}]-("b")>`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "a" TO "d" OVER e WHERE e.w < 4 YIELD path AS p`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "a" TO "c" OVER e WHERE e.w < 4 YIELD path AS p`,
		`<("a")-[:e@0 {}]->("b")-[:e@0 {}]->("c")>`, `<("a")-[:e@1 {}]->("b")-[:e@0 {}]->("c")>`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "a" TO "d" OVER e UPTO 1 STEPS YIELD path AS p`)
	expectRows(t, s, `FIND SHORTEST PATH WITH PROP FROM "b" TO "d" OVER e YIELD path AS p`,
		`<("b" :person{name: "Bob"})-[:e@0 {w: 3}]->("c" :person{name: "Cid"})-[:e@0 {w: 5}]->("d")>`)
	expectRows(t, s, `FIND ALL PATH FROM "a" TO "c" OVER e YIELD path AS p`,
		`<("a")-[:e@0 {}]->("c")>`, `<("a")-[:e@0 {}]->("b")-[:e@0 {}]->("c")>`, `<("a")-[:e@1 {}]->("b")-[:e@0 {}]->("c")>`)
	// ALL may go round the cycle a→c→d→a and on; NOLOOP may not.
	expectRows(t, s, `FIND ALL PATH FROM "a" TO "a" OVER e, f UPTO 3 STEPS YIELD path AS p`,
		`<("a")-[:e@0 {}]->("c")-[:e@0 {}]->("d")-[:f@0 {}]->("a")>`)
	expectRows(t, s, `FIND NOLOOP PATH FROM "a" TO "a" OVER e, f UPTO 3 STEPS YIELD path AS p`)
	expectRows(t, s, `FIND NOLOOP PATH FROM "d" TO "c" OVER e, f UPTO 3 STEPS YIELD path AS p`,
		`<("d")-[:f@0 {}]->("a")-[:e@0 {}]->("c")>`,
		`<("d")-[:f@0 {}]->("a")-[:e@0 {}]->("b")-[:e@0 {}]->("c")>`, `<("d")-[:f@0 {}]->("a")-[:e@1 {}]->("b")-[:e@0 {}]->("c")>`)
	// Sources and targets from a pipe and a variable; the result pipes on.
	expectRows(t, s, `GO FROM "a" OVER e YIELD DISTINCT dst(edge) AS d | FIND SHORTEST PATH FROM "a" TO $-.d OVER e YIELD path AS p | YIELD $-.p AS p`,
		`<("a")-[:e@0 {}]->("b")>`, `<("a")-[:e@1 {}]->("b")>`, `<("a")-[:e@0 {}]->("c")>`)
	expectRows(t, s, `$t = GO FROM "c" OVER e YIELD dst(edge) AS d; FIND SHORTEST PATH FROM "b" TO $t.d OVER e YIELD path AS p`,
		`<("b")-[:e@0 {}]->("c")-[:e@0 {}]->("d")>`)
	expectRows(t, s, `FIND SHORTEST PATH FROM "a" TO "d" OVER e YIELD path AS p | YIELD length($-.p) AS n`, "2")

	expectRows(t, s, `GET SUBGRAPH FROM "b" YIELD VERTICES AS nodes, EDGES AS relationships`,
		`[("b")]|[[:e "a"->"b" @0 {}] [:e "a"->"b" @1 {}] [:e "b"->"c" @0 {}]]`,
		`[("a") ("c")]|[[:e "a"->"c" @0 {}]]`)
	expectRows(t, s, `GET SUBGRAPH WITH PROP 2 STEPS FROM "c" OUT e YIELD VERTICES AS nodes, EDGES AS relationships`,
		`[("c" :person{name: "Cid"})]|[[:e "c"->"d" @0 {w: 5}]]`, `[("d")]|[]`)
	expectRows(t, s, `GET SUBGRAPH 2 STEPS FROM "c" OUT e, f YIELD EDGES AS r`,
		`[[:e "c"->"d" @0 {}]]`, `[[:f "d"->"a" @0 {}]]`, `[[:e "a"->"c" @0 {}]]`)
	expectRows(t, s, `GET SUBGRAPH 0 STEPS FROM "a", "b" YIELD VERTICES AS v, EDGES AS r`,
		`[("a") ("b")]|[[:e "a"->"b" @0 {}] [:e "a"->"b" @1 {}]]`)

	expectError(t, s, `FIND SHORTEST PATH FROM "a" TO "b" OVER nope YIELD path AS p`, graphpb.QueryErrorCode_E_SEMANTIC, `edge "nope" not found`)
	expectError(t, s, `FIND SHORTEST PATH FROM "a" TO "b" OVER e WHERE $$.person.name == "x" YIELD path AS p`, graphpb.QueryErrorCode_E_SEMANTIC, "edge properties")
	expectError(t, s, `FIND SHORTEST PATH FROM "a" TO "b" OVER e WHERE f.x > 1 YIELD path AS p`, graphpb.QueryErrorCode_E_SEMANTIC, "not in the OVER clause")
	expectError(t, s, `FIND SHORTEST PATH FROM "a" TO "b" OVER e WHERE e.nope > 1 YIELD path AS p`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `FIND SHORTEST PATH FROM 1 TO "b" OVER e YIELD path AS p`, graphpb.QueryErrorCode_E_SEMANTIC, "FIXED_STRING")
	expectError(t, s, `FIND SHORTEST PATH FROM "a" TO $-.d OVER e YIELD path AS p`, graphpb.QueryErrorCode_E_SEMANTIC, "no input")
	expectError(t, s, `GET SUBGRAPH FROM "a" OUT nope YIELD VERTICES AS v`, graphpb.QueryErrorCode_E_SEMANTIC, `edge "nope" not found`)
	expectError(t, s, `FIND SHORTEST PATH FROM "a" TO "b" OVER e UPTO STEPS YIELD path AS p`, graphpb.QueryErrorCode_E_SYNTAX, "step count")
}

// TestRandomPathsMatchReference compares FIND SHORTEST | ALL | NOLOOP PATH
// and GET SUBGRAPH with the reference on seeded random graphs (two edge
// types, ranks, dangling edges, self-loops), on a 1-store and a 3-store
// (replica_factor=3) cluster.
func TestRandomPathsMatchReference(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	for _, cfg := range []struct {
		stores int
		seed   int64
	}{{1, 11}, {3, 12}} {
		t.Run(fmt.Sprintf("stores=%d", cfg.stores), func(t *testing.T) {
			c := testcluster.Start(t, testcluster.Options{Stores: cfg.stores})
			s := c.Session()
			defer s.Close()
			exec(t, s, fmt.Sprintf("CREATE SPACE r(partition_num=5, replica_factor=%d, vid_type=INT64)", cfg.stores))
			exec(t, s, "USE r")
			exec(t, s, "CREATE TAG v(name string, age int)")
			exec(t, s, "CREATE EDGE e(w int)")
			exec(t, s, "CREATE EDGE f(w int)")
			rng := rand.New(rand.NewSource(cfg.seed))
			const n = 30
			g := randomGraph(t, s, rng, n, 80)
			checkRandomPaths(t, s, g, rng, n)
			checkRandomSubgraphs(t, s, g, rng, n)
		})
	}
}

type pathDir struct {
	kw  string
	dir oracle.Direction
}

var pathDirs = []pathDir{{"", oracle.Out}, {"REVERSELY", oracle.In}, {"BIDIRECT", oracle.Both}}

// pathFilter is a WHERE over the edges and the reference's version of it.
type pathFilter struct {
	where string
	keep  func(*oracle.Edge) bool
}

var pathFilters = []pathFilter{
	{"", nil},
	{"WHERE e.w > 300", func(e *oracle.Edge) bool { return e.Type == "e" && e.Props["w"].(int64) > 300 }},
	{"WHERE e.w < 600 OR f.w >= 400", func(e *oracle.Edge) bool {
		w := e.Props["w"].(int64)
		return (e.Type == "e" && w < 600) || (e.Type == "f" && w >= 400)
	}},
	{"WHERE rank(edge) != 1", func(e *oracle.Edge) bool { return e.Rank != 1 }},
}

func randomVids(rng *rand.Rand, n, k int) ([]string, []oracle.Vid) {
	var lits []string
	var vids []oracle.Vid
	for i := 0; i < k; i++ {
		v := int64(rng.Intn(n))
		lits = append(lits, fmt.Sprint(v))
		vids = append(vids, v)
	}
	return lits, vids
}

func checkRandomPaths(t *testing.T, s *client.Session, g *oracle.Graph, rng *rand.Rand, n int) {
	kinds := []string{"SHORTEST", "ALL", "NOLOOP"}
	total := map[string]int{}
	for q := 0; q < 90; q++ {
		kind := kinds[q%3]
		d := pathDirs[rng.Intn(len(pathDirs))]
		over, types := "e", []string{"e"}
		filter := pathFilters[0]
		if rng.Intn(2) == 0 {
			over, types = "e, f", []string{"e", "f"}
			filter = pathFilters[rng.Intn(len(pathFilters))]
		}
		steps := 1 + rng.Intn(5)
		if kind != "SHORTEST" {
			steps = 1 + rng.Intn(3)
			if d.dir != oracle.Both {
				steps++
			}
		}
		fromLits, from := randomVids(rng, n, 1+rng.Intn(3))
		toLits, to := randomVids(rng, n, 1+rng.Intn(3))
		withProp := rng.Intn(4) == 0
		prop := ""
		if withProp {
			prop = "WITH PROP "
		}
		stmt := fmt.Sprintf("FIND %s PATH %sFROM %s TO %s OVER %s %s %s UPTO %d STEPS YIELD path AS p",
			kind, prop, strings.Join(fromLits, ", "), strings.Join(toLits, ", "), over, d.kw, filter.where, steps)
		var want []oracle.Path
		switch kind {
		case "SHORTEST":
			want = g.ShortestPaths(from, to, types, d.dir, steps, filter.keep)
		default:
			want = g.AllPaths(from, to, types, d.dir, steps, kind == "NOLOOP", filter.keep)
		}
		got := rows(t, s, stmt)
		if diff, ok := sameMultiset(got, oraclePaths(g, want, withProp)); !ok {
			t.Fatalf("%s: %s\ngot:  %q\nwant: %q", stmt, diff, got, oraclePaths(g, want, withProp))
		}
		total[kind] += len(got)
	}
	// The same through a pipe: targets from GO.
	for q := 0; q < 10; q++ {
		start := int64(rng.Intn(n))
		stmt := fmt.Sprintf("GO 2 STEPS FROM %d OVER e YIELD dst(edge) AS d | FIND SHORTEST PATH FROM %d TO $-.d OVER e, f BIDIRECT UPTO 4 STEPS YIELD path AS p", start, start)
		var to []oracle.Vid
		for _, r := range g.Go([]oracle.Vid{start}, 2, 2, []string{"e"}, oracle.Out) {
			to = append(to, r.To)
		}
		got := rows(t, s, stmt)
		want := oraclePaths(g, g.ShortestPaths([]oracle.Vid{start}, to, []string{"e", "f"}, oracle.Both, 4, nil), false)
		if diff, ok := sameMultiset(got, want); !ok {
			t.Fatalf("%s: %s", stmt, diff)
		}
	}
	t.Logf("paths compared: %v", total)
}

func checkRandomSubgraphs(t *testing.T, s *client.Session, g *oracle.Graph, rng *rand.Rand, n int) {
	clauses := []struct {
		text string
		dirs []oracle.TypeDir
	}{
		{"", []oracle.TypeDir{{Type: "e", Dir: oracle.Both}, {Type: "f", Dir: oracle.Both}}},
		{"OUT e", []oracle.TypeDir{{Type: "e", Dir: oracle.Out}}},
		{"IN e, f", []oracle.TypeDir{{Type: "e", Dir: oracle.In}, {Type: "f", Dir: oracle.In}}},
		{"IN f OUT e", []oracle.TypeDir{{Type: "f", Dir: oracle.In}, {Type: "e", Dir: oracle.Out}}},
		{"BOTH e", []oracle.TypeDir{{Type: "e", Dir: oracle.Both}}},
	}
	for q := 0; q < 30; q++ {
		cl := clauses[rng.Intn(len(clauses))]
		steps := rng.Intn(4)
		fromLits, from := randomVids(rng, n, 1+rng.Intn(2))
		withProp := rng.Intn(3) == 0
		prop := ""
		if withProp {
			prop = "WITH PROP "
		}
		stmt := fmt.Sprintf("GET SUBGRAPH %s%d STEPS FROM %s %s YIELD VERTICES AS nodes, EDGES AS relationships",
			prop, steps, strings.Join(fromLits, ", "), cl.text)
		got := renderSubgraph(t, exec(t, s, stmt))
		want := oracleSubgraph(g, g.Subgraph(from, steps, cl.dirs), withProp)
		if diff, ok := sameSequence(got, want); !ok {
			t.Fatalf("%s: %s\ngot:  %q\nwant: %q", stmt, diff, got, want)
		}
	}
}
