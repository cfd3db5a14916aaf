package e2e

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/testkit/oracle"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// randomGraph inserts a seeded random graph into the current space and
// returns its reference copy: INT64 vids 0..n-1 where only some vertices
// have a tag (edges may lead to vertices without data), two edge types, and
// ranks, so several edges may join the same pair.
func randomGraph(t *testing.T, s *client.Session, rng *rand.Rand, n, edges int) *oracle.Graph {
	t.Helper()
	g := oracle.New()
	var vb strings.Builder
	vb.WriteString("INSERT VERTEX v(name, age) VALUES ")
	first := true
	for i := 0; i < n; i++ {
		if rng.Intn(5) == 0 {
			continue // no vertex data
		}
		name, age := fmt.Sprintf("n%d", i), int64(rng.Intn(90))
		g.AddVertex(int64(i), "v", map[string]any{"name": name, "age": age})
		if !first {
			vb.WriteString(", ")
		}
		first = false
		fmt.Fprintf(&vb, "%d:(%q, %d)", i, name, age)
	}
	exec(t, s, vb.String())
	for _, typ := range []string{"e", "f"} {
		var eb strings.Builder
		fmt.Fprintf(&eb, "INSERT EDGE %s(w) VALUES ", typ)
		for k := 0; k < edges; k++ {
			src, dst, rank, w := int64(rng.Intn(n)), int64(rng.Intn(n)), int64(rng.Intn(3)), int64(rng.Intn(1000))
			if k > 0 {
				eb.WriteString(", ")
			}
			fmt.Fprintf(&eb, "%d->%d@%d:(%d)", src, dst, rank, w)
			g.AddEdge(oracle.Edge{Src: src, Dst: dst, Type: typ, Rank: rank, Props: map[string]any{"w": w}})
		}
		exec(t, s, eb.String())
	}
	return g
}

// goRow renders one oracle row as the YIELD below does:
// $^ id, $$ id, src(edge), dst(edge), rank(edge), type(edge), edge._dst,
// w of e (NULL for f), $$.v.name, $^.v.age.
const randomYield = `YIELD id($^), id($$), src(edge), dst(edge), rank(edge), type(edge), e._dst, e.w, $$.v.name, $^.v.age`

func renderOracleRow(g *oracle.Graph, r oracle.Row) string {
	eDst, eW := "NULL", "NULL"
	if r.Edge.Type == "e" {
		eDst, eW = fmt.Sprint(r.To), fmt.Sprint(r.Edge.Props["w"])
	}
	name := "NULL"
	if v, ok := g.VertexProp(r.To, "v", "name"); ok {
		name = fmt.Sprint(v)
	}
	age := "NULL"
	if v, ok := g.VertexProp(r.From, "v", "age"); ok {
		age = fmt.Sprint(v)
	}
	return fmt.Sprintf("%v|%v|%v|%v|%d|%s|%s|%s|%s|%s", r.From, r.To, r.Edge.Src, r.Edge.Dst, r.Edge.Rank, r.Edge.Type, eDst, eW, name, age)
}

// TestRandomGraphsMatchReference compares every GO form of the walking
// skeleton with the reference on seeded random graphs, on a 1-store and a
// 3-store (replica_factor=3) cluster.
func TestRandomGraphsMatchReference(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	for _, cfg := range []struct {
		stores int
		seed   int64
	}{{1, 1}, {3, 2}} {
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
			g := randomGraph(t, s, rng, 40, 120)
			dirs := []struct {
				kw  string
				dir oracle.Direction
			}{{"", oracle.Out}, {"REVERSELY", oracle.In}, {"BIDIRECT", oracle.Both}}
			for q := 0; q < 60; q++ {
				d := dirs[rng.Intn(len(dirs))]
				minS := 1 + rng.Intn(2)
				maxS := minS + rng.Intn(2)
				steps := fmt.Sprintf("%d STEPS", maxS)
				if minS != maxS {
					steps = fmt.Sprintf("%d TO %d STEPS", minS, maxS)
				} else {
					minS = maxS
				}
				over, types := "e", []string{"e"}
				if rng.Intn(2) == 0 {
					over, types = "e, f", []string{"e", "f"}
				}
				// Several start vids, possibly repeated.
				var from []string
				var starts []oracle.Vid
				for k := 0; k < 1+rng.Intn(3); k++ {
					v := int64(rng.Intn(40))
					from = append(from, fmt.Sprint(v))
					starts = append(starts, v)
				}
				if rng.Intn(4) == 0 {
					from = append(from, from[0])
				}
				stmt := fmt.Sprintf("GO %s FROM %s OVER %s %s %s", steps, strings.Join(from, ", "), over, d.kw, randomYield)
				got := render(exec(t, s, stmt))
				rows := g.Go(starts, minS, maxS, types, d.dir)
				want := make([]string, len(rows))
				for i, r := range rows {
					want[i] = renderOracleRow(g, r)
				}
				sortStrings(want)
				if diff, ok := sameMultiset(got, want); !ok {
					t.Fatalf("%s: %s", stmt, diff)
				}
			}
			// A pipe joins each result row back to every input row its
			// start vertex came from.
			for q := 0; q < 10; q++ {
				start := int64(rng.Intn(40))
				stmt := fmt.Sprintf("GO FROM %d OVER e YIELD dst(edge) AS id, e.w AS w | GO FROM $-.id OVER e YIELD $-.id, $-.w, dst(edge)", start)
				got := render(exec(t, s, stmt))
				var want []string
				for _, in := range g.Go([]oracle.Vid{start}, 1, 1, []string{"e"}, oracle.Out) {
					for _, out := range g.Go([]oracle.Vid{in.To}, 1, 1, []string{"e"}, oracle.Out) {
						want = append(want, fmt.Sprintf("%v|%v|%v", in.To, in.Edge.Props["w"], out.To))
					}
				}
				sortStrings(want)
				if diff, ok := sameMultiset(got, want); !ok {
					t.Fatalf("%s: %s", stmt, diff)
				}
			}
			// GROUP BY counts the rows per destination as the reference does.
			for q := 0; q < 10; q++ {
				start := int64(rng.Intn(40))
				stmt := fmt.Sprintf("GO 2 STEPS FROM %d OVER e, f YIELD dst(edge) AS d | GROUP BY $-.d YIELD $-.d, count(*)", start)
				got := render(exec(t, s, stmt))
				counts := map[string]int{}
				for _, r := range g.Go([]oracle.Vid{start}, 2, 2, []string{"e", "f"}, oracle.Out) {
					counts[fmt.Sprint(r.To)]++
				}
				var want []string
				for d, n := range counts {
					want = append(want, fmt.Sprintf("%s|%d", d, n))
				}
				sortStrings(want)
				if diff, ok := sameMultiset(got, want); !ok {
					t.Fatalf("%s: %s", stmt, diff)
				}
			}
		})
	}
}
