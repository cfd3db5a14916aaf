package e2e

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/testkit/oracle"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestRandomMutationsMatchReference applies seeded random rounds of every
// kind of write — inserts that overwrite, DELETE EDGE / TAG / VERTEX,
// UPDATE … WHEN, UPSERT, and an ALTER TAG between rounds — to the cluster
// and to the reference graph, and after each round compares GO in both
// directions, FETCH and an index LOOKUP. Vertices have two tags, edges two
// types and several ranks, over several partitions, so deletes and edge
// writes cross partitions.
func TestRandomMutationsMatchReference(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	for _, stores := range []int{1, 3} {
		t.Run(fmt.Sprintf("stores=%d", stores), func(t *testing.T) {
			c := testcluster.Start(t, testcluster.Options{Stores: stores})
			s := c.Session()
			defer s.Close()
			rng := rand.New(rand.NewSource(int64(40 + stores)))
			runMutationRounds(t, s, rng, stores, func() uint64 {
				var hits uint64
				for _, st := range c.Stores {
					hits += st.Server.AdjacencyCached().Hits
				}
				return hits
			})
		})
	}
}

type mutationModel struct {
	g       *oracle.Graph
	n       int64
	altered bool // v has the column city (DEFAULT "nowhere")
}

// runMutationRounds runs the rounds; cacheHits, if not nil, counts the
// partition reads the stores' adjacency caches answered. After each
// round's check the reads are checked again once the caches answer some
// of them: the first check reads partitions every write just made stale,
// so it checks that writes reach reads past the cache; the second, that
// the caches rebuilt since hold what RocksDB holds.
func runMutationRounds(t *testing.T, s *client.Session, rng *rand.Rand, replicas int, cacheHits func() uint64) {
	exec(t, s, fmt.Sprintf("CREATE SPACE mut(partition_num=5, replica_factor=%d, vid_type=INT64)", replicas))
	exec(t, s, "USE mut")
	exec(t, s, "CREATE TAG v(name string, age int)")
	exec(t, s, "CREATE TAG u(score int)")
	exec(t, s, "CREATE EDGE e(w int)")
	exec(t, s, "CREATE EDGE f(w int)")
	exec(t, s, "CREATE TAG INDEX v_age ON v(age)")
	m := &mutationModel{g: oracle.New(), n: 40}

	for round := 0; round < 6; round++ {
		if round == 3 {
			exec(t, s, `ALTER TAG v ADD (city string DEFAULT "nowhere")`)
			m.altered = true
		}
		m.insertVertices(t, s, rng, 15)
		m.insertEdges(t, s, rng, 40)
		m.deleteEdges(t, s, rng, 6)
		m.updates(t, s, rng, 5)
		m.upsertEdges(t, s, rng, 4)
		m.deleteTags(t, s, rng, 3)
		m.deleteVertices(t, s, rng, 2)
		m.check(t, s, round)
		if cacheHits != nil {
			before := cacheHits()
			deadline := time.Now().Add(20 * time.Second)
			for {
				m.check(t, s, round)
				if cacheHits() > before {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: no read answered from the adjacency caches in 20s", round)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
}

func (m *mutationModel) insertVertices(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	var vs, us []string
	for i := 0; i < k; i++ {
		vid := rng.Int63n(m.n)
		name, age := fmt.Sprintf("n%d_%d", vid, rng.Intn(100)), int64(rng.Intn(60))
		props := map[string]any{"name": name, "age": age}
		if m.altered {
			city := fmt.Sprintf("c%d", rng.Intn(3))
			props["city"] = city
			vs = append(vs, fmt.Sprintf("%d:(%q, %d, %q)", vid, name, age, city))
		} else {
			vs = append(vs, fmt.Sprintf("%d:(%q, %d)", vid, name, age))
		}
		m.g.AddVertex(vid, "v", props)
		if rng.Intn(2) == 0 {
			score := int64(rng.Intn(10))
			us = append(us, fmt.Sprintf("%d:(%d)", vid, score))
			m.g.AddVertex(vid, "u", map[string]any{"score": score})
		}
	}
	cols := "v(name, age)"
	if m.altered {
		cols = "v(name, age, city)"
	}
	exec(t, s, "INSERT VERTEX "+cols+" VALUES "+strings.Join(vs, ", "))
	if len(us) > 0 {
		exec(t, s, "INSERT VERTEX u(score) VALUES "+strings.Join(us, ", "))
	}
}

func (m *mutationModel) insertEdges(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	for _, typ := range []string{"e", "f"} {
		var es []string
		for i := 0; i < k; i++ {
			src, dst, rank, w := rng.Int63n(m.n), rng.Int63n(m.n), rng.Int63n(3), rng.Int63n(1000)
			es = append(es, fmt.Sprintf("%d->%d@%d:(%d)", src, dst, rank, w))
			m.g.AddEdge(oracle.Edge{Src: src, Dst: dst, Type: typ, Rank: rank, Props: map[string]any{"w": w}})
		}
		exec(t, s, fmt.Sprintf("INSERT EDGE %s(w) VALUES %s", typ, strings.Join(es, ", ")))
	}
}

// someEdges picks up to k existing edges of a type (sorted, then sampled,
// so the pick is reproducible).
func (m *mutationModel) someEdges(rng *rand.Rand, typ string, k int) []*oracle.Edge {
	var all []*oracle.Edge
	for v := int64(0); v < m.n; v++ {
		for _, r := range m.g.Go([]oracle.Vid{v}, 1, 1, []string{typ}, oracle.Out) {
			all = append(all, r.Edge)
		}
	}
	sort.Slice(all, func(i, j int) bool { return edgeString(all[i]) < edgeString(all[j]) })
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	if len(all) > k {
		all = all[:k]
	}
	return all
}

func edgeString(e *oracle.Edge) string {
	return fmt.Sprintf("%v->%v@%d", e.Src, e.Dst, e.Rank)
}

func (m *mutationModel) deleteEdges(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	edges := m.someEdges(rng, "e", k)
	var keys []string
	for _, e := range edges {
		keys = append(keys, edgeString(e))
	}
	// One that does not exist: deleting it is not an error.
	keys = append(keys, fmt.Sprintf("%d->%d@9", m.n+1, m.n+2))
	for _, e := range edges {
		m.g.DeleteEdge(e.Src, e.Dst, e.Type, e.Rank)
	}
	exec(t, s, "DELETE EDGE e "+strings.Join(keys, ", "))
}

func (m *mutationModel) updates(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	vids := m.g.VerticesWith("v")
	sort.Slice(vids, func(i, j int) bool { return vids[i].(int64) < vids[j].(int64) })
	for i := 0; i < k && len(vids) > 0; i++ {
		vid := vids[rng.Intn(len(vids))]
		props := m.g.Tag(vid, "v")
		age := props["age"].(int64)
		rs := exec(t, s, fmt.Sprintf("UPDATE VERTEX ON v %d SET age = age + 1 WHEN age < 50 YIELD age AS a", vid))
		if age < 50 {
			age++
			props["age"] = age
		}
		if got := render(rs); len(got) != 1 || got[0] != fmt.Sprint(age) {
			t.Fatalf("UPDATE VERTEX ON v %d YIELD: %q, want %d", vid, got, age)
		}
	}
}

func (m *mutationModel) upsertEdges(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	for i := 0; i < k; i++ {
		src, dst, rank := rng.Int63n(m.n), rng.Int63n(m.n), rng.Int63n(3)
		w := rng.Int63n(1000)
		exec(t, s, fmt.Sprintf("UPSERT EDGE ON f %d->%d@%d SET w = %d", src, dst, rank, w))
		if e := m.g.EdgeOf(src, dst, "f", rank); e != nil {
			e.Props["w"] = w
		} else {
			m.g.AddEdge(oracle.Edge{Src: src, Dst: dst, Type: "f", Rank: rank, Props: map[string]any{"w": w}})
		}
	}
}

func (m *mutationModel) deleteTags(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	var vids []string
	for i := 0; i < k; i++ {
		vid := rng.Int63n(m.n)
		vids = append(vids, fmt.Sprint(vid))
		m.g.DeleteTag(vid, "u")
	}
	exec(t, s, "DELETE TAG u FROM "+strings.Join(vids, ", "))
}

func (m *mutationModel) deleteVertices(t *testing.T, s *client.Session, rng *rand.Rand, k int) {
	var vids []string
	for i := 0; i < k; i++ {
		vid := rng.Int63n(m.n)
		vids = append(vids, fmt.Sprint(vid))
		m.g.DeleteVertex(vid)
	}
	exec(t, s, "DELETE VERTEX "+strings.Join(vids, ", ")+" WITH EDGE")
}

func (m *mutationModel) check(t *testing.T, s *client.Session, round int) {
	t.Helper()
	all := make([]string, m.n)
	from := make([]oracle.Vid, m.n)
	for i := range all {
		all[i] = fmt.Sprint(i)
		from[i] = int64(i)
	}
	vids := strings.Join(all, ", ")

	// GO over both types in each direction: every edge, from each end.
	for _, dir := range []struct {
		kw  string
		dir oracle.Direction
	}{{"", oracle.Out}, {" REVERSELY", oracle.In}} {
		stmt := fmt.Sprintf("GO FROM %s OVER e, f%s YIELD src(edge), dst(edge), rank(edge), type(edge), e.w, f.w", vids, dir.kw)
		var want []string
		for _, r := range m.g.Go(from, 1, 1, []string{"e", "f"}, dir.dir) {
			ew, fw := "NULL", "NULL"
			if r.Edge.Type == "e" {
				ew = fmt.Sprint(r.Edge.Props["w"])
			} else {
				fw = fmt.Sprint(r.Edge.Props["w"])
			}
			want = append(want, fmt.Sprintf("%v|%v|%d|%s|%s|%s", r.Edge.Src, r.Edge.Dst, r.Edge.Rank, r.Edge.Type, ew, fw))
		}
		sort.Strings(want)
		if diff, ok := sameMultiset(rows(t, s, stmt), want); !ok {
			t.Fatalf("round %d: GO%s: %s", round, dir.kw, diff)
		}
	}

	// FETCH: tag rows as they are now; rows written before the ALTER read
	// the new column's default.
	cols := "id(vertex), v.name, v.age"
	if m.altered {
		cols += ", v.city"
	}
	var want []string
	for _, vid := range m.g.VerticesWith("v") {
		p := m.g.Tag(vid, "v")
		row := fmt.Sprintf("%v|%v|%v", vid, p["name"], p["age"])
		if m.altered {
			city, ok := p["city"]
			if !ok {
				city = "nowhere"
			}
			row += fmt.Sprintf("|%v", city)
		}
		want = append(want, row)
	}
	sort.Strings(want)
	if diff, ok := sameMultiset(rows(t, s, "FETCH PROP ON v "+vids+" YIELD "+cols), want); !ok {
		t.Fatalf("round %d: FETCH PROP ON v: %s", round, diff)
	}
	var wantU []string
	for _, vid := range m.g.VerticesWith("u") {
		wantU = append(wantU, fmt.Sprintf("%v|%v", vid, m.g.Tag(vid, "u")["score"]))
	}
	sort.Strings(wantU)
	if diff, ok := sameMultiset(rows(t, s, "FETCH PROP ON u "+vids+" YIELD id(vertex), u.score"), wantU); !ok {
		t.Fatalf("round %d: FETCH PROP ON u: %s", round, diff)
	}

	// The index follows inserts, updates and deletes.
	var wantIx []string
	for _, vid := range m.g.VerticesWith("v") {
		if age := m.g.Tag(vid, "v")["age"].(int64); age >= 20 && age < 40 {
			wantIx = append(wantIx, fmt.Sprintf("%v|%d", vid, age))
		}
	}
	sort.Strings(wantIx)
	if diff, ok := sameMultiset(rows(t, s, "LOOKUP ON v WHERE v.age >= 20 AND v.age < 40 YIELD id(vertex), v.age"), wantIx); !ok {
		t.Fatalf("round %d: LOOKUP: %s", round, diff)
	}
}
