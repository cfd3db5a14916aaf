package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/testkit/oracle"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestRealGraphMatchesReference loads pieces of real graphs from
// ../shared/data into a 1-store and a 3-store (replica_factor=3) cluster and
// compares graphd's answers with the in-memory reference (testkit/oracle)
// for every query form: GO (steps, M TO N, REVERSELY, BIDIRECT, several
// edge types and *, WHERE on the edge, $^ and $$, DISTINCT, pipes,
// variables, GROUP BY, ORDER BY / LIMIT), FETCH, LOOKUP, FIND PATH and GET
// SUBGRAPH, and MATCH (match_realgraph_test.go). Both cluster sizes run the same statements (one seed), so a
// difference between them points at replication.
//
// The graphs (deterministic, see slashdotSpace and ldbcSpace):
//
//   - space sd: the subgraph of soc-Slashdot0902 induced by the first
//     sdBallVertices vertices of a breadth-first search (edges taken as
//     undirected, neighbours in id order) from vertex sdBallSeed: 1,601
//     real directed edges, self-loops included, around hub 0 (degree 399),
//     split into edge types e1 and e2 by a hash of the pair; vertex
//     properties from the full graph's degrees; one vertex in 11 has no tag.
//   - space ldbc: the LDBC SF0.1 persons of a breadth-first ball of
//     ldbcBallPersons persons around person ldbcBallSeed with their real
//     properties, and the knows rows between them, each inserted once in
//     the file's direction (so REVERSELY and BIDIRECT differ).
//
// Statements hit by a known bug (realKnownBugs) are left out and counted.
// Start vertices are drawn from a seeded sample that includes the hub, and
// drawn again while an answer would exceed realRowBudget rows.
//
// go test -race -count=1 -run TestRealGraph -v ./testkit/e2e
func TestRealGraphMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	t.Logf("seed %d", realGraphSeed)
	spaces := []*realSpace{slashdotSpace(t)}
	if ld := ldbcSpace(t); ld != nil {
		spaces = append(spaces, ld)
	}
	for _, sp := range spaces {
		t.Logf("space %s: %d vertices (%d with a tag), %d edges, hub %d (degree %d), sample %v",
			sp.name, len(sp.vids), len(sp.g.VerticesWith(sp.tag)), len(sp.g.EdgeList()), sp.hub,
			sp.g.Degree(sp.hub, sp.types, oracle.Both), sp.sample)
	}
	for _, stores := range []int{1, 3} {
		t.Run(fmt.Sprintf("stores=%d", stores), func(t *testing.T) {
			start := time.Now()
			c := testcluster.Start(t, testcluster.Options{Stores: stores})
			s := c.Session()
			defer s.Close()
			for _, sp := range spaces {
				sp.load(t, s, stores)
			}
			t.Logf("cluster started and graphs loaded in %v", time.Since(start).Round(time.Millisecond))
			checks := []struct {
				name string
				fn   func(c *realChecker, sp *realSpace, rng *rand.Rand)
			}{
				{"GO", checkRealGo},
				{"pipes_vars", checkRealPipes},
				{"groupby_orderby", checkRealGroupOrder},
				{"FETCH", checkRealFetch},
				{"LOOKUP", checkRealLookup},
				{"FIND_PATH", checkRealPaths},
				{"GET_SUBGRAPH", checkRealSubgraph},
				{"MATCH", checkRealMatch},
			}
			for i, ch := range checks {
				t.Run(ch.name, func(t *testing.T) {
					for j, sp := range spaces {
						exec(t, s, "USE "+sp.name)
						rc := &realChecker{t: t, s: s, space: sp.name}
						// Each check has its own stream, so skipping or
						// changing one leaves the others' statements alone.
						ch.fn(rc, sp, rand.New(rand.NewSource(realGraphSeed+int64(100*i+j))))
						t.Logf("%s: %d statements compared (%d skipped as too large), %d rows, %v waiting for graphd",
							sp.name, rc.compared, rc.skipped, rc.rows, rc.waited.Round(time.Millisecond))
						for bug, n := range rc.excludedBugs {
							t.Logf("%s: %d statements not run: known bug %s: %s", sp.name, n, bug, realKnownBugs[bug])
						}
					}
				})
			}
		})
	}
}

const (
	realGraphSeed   int64 = 20250918
	sdBallSeed            = 0
	sdBallVertices        = 200
	ldbcBallSeed          = 933
	ldbcBallPersons       = 200
	realMissingVid        = 999999999 // no vertex has this id
	// realMaxRows bounds the reference answer of one statement; larger
	// ones are skipped (and counted) to keep the test's time in check.
	realMaxRows = 20000
	// realRowBudget is the answer size fitStarts aims at.
	realRowBudget = 1000
)

// realKnownBugs are discrepancies this test found, excluded (not run)
// until they are fixed: delete an entry to check its statements again.
// Empty: the two it found first (GO M TO N STEPS losing rows when storaged
// filtered the frontier, and piped GO repeating rows when its YIELD read no
// input column) are fixed in graphd/exec/go.go.
var realKnownBugs = map[string]string{}

// realSpace is one real graph: its schema, how it is loaded and its
// reference copy, and the names the generic checks use.
type realSpace struct {
	name      string
	g         *oracle.Graph
	tag       string
	tagProps  []string            // in schema order
	types     []string            // edge types, in creation order
	edgeProps map[string][]string // per type, in schema order
	vids      []int64             // every vertex of the piece, sorted
	hub       int64               // the vertex of highest degree
	sample    []int64             // start vertices: the hub and a seeded sample
	// Generic names: num is an int property of every edge type; tagNum,
	// tagStr and tagCat an int, a string and a categorical tag property.
	num, tagNum, tagStr, tagCat string
	numMid, tagNumMid           int64 // medians
	catVal                      any   // a value of tagCat
	overs                       [][]string
	wheres                      []realWhere
	pathFilters                 []realPathFilter
	subgraphClauses             []realSubgraphClause
	ddl, afterLoad              []string // before and after the inserts
	lookups                     func(sp *realSpace, rng *rand.Rand) []realQuery
}

// realWhere is a GO WHERE clause and the reference's version of it.
type realWhere struct {
	scope string   // what it reads, for the log
	types []string // edge types it names (OVER must have them)
	text  string
	keep  func(r oracle.Row) bool
}

// pushed reports whether graphd pushes the WHERE down to storaged: when it
// reads no $$ property (nor input, variables or anything random).
func (w *realWhere) pushed() bool { return !strings.Contains(w.text, "$$") }

type realPathFilter struct {
	types []string
	pathFilter
}

type realSubgraphClause struct {
	text string
	dirs []oracle.TypeDir
}

// realQuery is a statement and its reference answer, rendered.
type realQuery struct {
	stmt    string
	want    []string
	ordered bool
}

// --- loading ---------------------------------------------------------------

// bfsBall returns the first n vertices of a breadth-first search from seed
// over adj, visiting neighbours in id order.
func bfsBall(adj map[int64][]int64, seed int64, n int) []int64 {
	seen := map[int64]bool{seed: true}
	order := []int64{seed}
	for i := 0; i < len(order) && len(order) < n; i++ {
		nb := slices.Clone(adj[order[i]])
		slices.Sort(nb)
		for _, w := range slices.Compact(nb) {
			if !seen[w] && len(order) < n {
				seen[w] = true
				order = append(order, w)
			}
		}
	}
	return order
}

// pickSample returns the hub and k more distinct vertices of vids.
func pickSample(vids []int64, hub int64, k int) []int64 {
	rng := rand.New(rand.NewSource(realGraphSeed))
	out := []int64{hub}
	for _, i := range rng.Perm(len(vids)) {
		if len(out) > k {
			break
		}
		if vids[i] != hub {
			out = append(out, vids[i])
		}
	}
	return out
}

func (sp *realSpace) finish() {
	best := -1
	for _, v := range sp.vids {
		if d := sp.g.Degree(v, sp.types, oracle.Both); d > best {
			best, sp.hub = d, v
		}
	}
	sp.sample = pickSample(sp.vids, sp.hub, 11)
	var nums, tagNums []int64
	for _, e := range sp.g.EdgeList() {
		nums = append(nums, e.Props[sp.num].(int64))
	}
	for _, v := range sp.g.VerticesWith(sp.tag) {
		tagNums = append(tagNums, sp.g.Tag(v, sp.tag)[sp.tagNum].(int64))
	}
	slices.Sort(nums)
	slices.Sort(tagNums)
	sp.numMid, sp.tagNumMid = nums[len(nums)/2], tagNums[len(tagNums)/2]
}

// sdType splits Slashdot's edges into two types by a hash of the pair.
func sdType(e sdEdge) string {
	h := uint64(e.src)*0x9E3779B97F4A7C15 ^ uint64(e.dst)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	if h%3 == 0 {
		return "e2"
	}
	return "e1"
}

// slashdotSpace builds space sd from soc-Slashdot0902 (see the test's doc).
func slashdotSpace(t *testing.T) *realSpace {
	edges := loadSlashdot(t) // skips the test when the data is absent
	outdeg, indeg := map[int64]int64{}, map[int64]int64{}
	adj := map[int64][]int64{}
	for _, e := range edges {
		outdeg[e.src]++
		indeg[e.dst]++
		adj[e.src] = append(adj[e.src], e.dst)
		adj[e.dst] = append(adj[e.dst], e.src)
	}
	ball := bfsBall(adj, sdBallSeed, sdBallVertices)
	in := map[int64]bool{}
	for _, v := range ball {
		in[v] = true
	}
	g := oracle.New()
	for _, v := range ball {
		if v%11 == 3 {
			continue // no vertex data: its edges stay, its $^/$$ props are NULL
		}
		g.AddVertex(v, "user", map[string]any{"name": fmt.Sprintf("u%d", v), "outdeg": outdeg[v], "indeg": indeg[v], "grp": v % 7})
	}
	for _, e := range edges {
		if !in[e.src] || !in[e.dst] {
			continue
		}
		if sdType(e) == "e1" {
			g.AddEdge(oracle.Edge{Src: e.src, Dst: e.dst, Type: "e1", Props: map[string]any{"w": gnW(e), "ts": gnTS(e)}})
		} else {
			kind := "fan"
			if (e.src+e.dst)%2 == 1 {
				kind = "foe"
			}
			g.AddEdge(oracle.Edge{Src: e.src, Dst: e.dst, Type: "e2", Props: map[string]any{"w": (e.src*17 + e.dst*3) % 50, "kind": kind}})
		}
	}
	sp := &realSpace{
		name: "sd", g: g, tag: "user", tagProps: []string{"name", "outdeg", "indeg", "grp"},
		types: []string{"e1", "e2"}, edgeProps: map[string][]string{"e1": {"w", "ts"}, "e2": {"w", "kind"}},
		vids: slices.Sorted(slices.Values(ball)),
		num:  "w", tagNum: "outdeg", tagStr: "name", tagCat: "grp", catVal: int64(2),
		overs: [][]string{{"e1"}, {"e2", "e1"}, nil},
		ddl: []string{
			"CREATE TAG user(name string, outdeg int, indeg int, grp int)",
			"CREATE EDGE e1(w int, ts int)",
			"CREATE EDGE e2(w int, kind string)",
			// Indexes created before the load are kept by the inserts...
			"CREATE TAG INDEX user_grp ON user(grp)",
			"CREATE EDGE INDEX e2_w ON e2(w)",
		},
		afterLoad: []string{
			// ...these are built from the data by REBUILD.
			"CREATE TAG INDEX user_deg ON user(outdeg, indeg)",
			"REBUILD TAG INDEX user_deg",
			"CREATE EDGE INDEX e1_ts ON e1(ts)",
			"REBUILD EDGE INDEX e1_ts",
		},
		lookups: slashdotLookups,
	}
	sp.finish()
	w := func(r oracle.Row) int64 { return r.Edge.Props["w"].(int64) }
	is := func(r oracle.Row, typ string) bool { return r.Edge.Type == typ }
	sp.wheres = []realWhere{
		{"edge", []string{"e1"}, "WHERE e1.w > 40", func(r oracle.Row) bool { return is(r, "e1") && w(r) > 40 }},
		{"edge, two types", []string{"e1", "e2"}, `WHERE e1.w > 70 OR e2.kind == "foe"`, func(r oracle.Row) bool {
			return is(r, "e1") && w(r) > 70 || is(r, "e2") && r.Edge.Props["kind"] == "foe"
		}},
		{"edge keys", nil, "WHERE dst(edge) % 3 != 1 AND rank(edge) == 0", func(r oracle.Row) bool { return r.Edge.Dst.(int64)%3 != 1 }},
		{"$^", nil, "WHERE $^.user.grp <= 3", func(r oracle.Row) bool { x := sp.vprop(r.From, "grp"); return x != nil && x.(int64) <= 3 }},
		{"$$", nil, "WHERE $$.user.outdeg > 20", func(r oracle.Row) bool { x := sp.vprop(r.To, "outdeg"); return x != nil && x.(int64) > 20 }},
		{"$^, $$ and edge", nil, "WHERE $$.user.grp != $^.user.grp AND properties(edge).w < 30", func(r oracle.Row) bool {
			a, b := sp.vprop(r.To, "grp"), sp.vprop(r.From, "grp")
			return a != nil && b != nil && a != b && w(r) < 30
		}},
	}
	wOf := func(e *oracle.Edge, typ string) (int64, bool) {
		if e.Type != typ {
			return 0, false
		}
		return e.Props["w"].(int64), true
	}
	sp.pathFilters = []realPathFilter{
		{nil, pathFilter{"", nil}},
		{[]string{"e1"}, pathFilter{"WHERE e1.w > 30", func(e *oracle.Edge) bool { x, ok := wOf(e, "e1"); return ok && x > 30 }}},
		{[]string{"e1", "e2"}, pathFilter{`WHERE e1.w < 60 OR e2.kind == "fan"`, func(e *oracle.Edge) bool {
			x, ok := wOf(e, "e1")
			return ok && x < 60 || e.Type == "e2" && e.Props["kind"] == "fan"
		}}},
		{[]string{"e1", "e2"}, pathFilter{fmt.Sprintf("WHERE e1.ts > %d OR e2.w < 25", gnTSBase+15000000), func(e *oracle.Edge) bool {
			if e.Type == "e1" {
				return e.Props["ts"].(int64) > gnTSBase+15000000
			}
			return e.Props["w"].(int64) < 25
		}}},
	}
	sp.subgraphClauses = []realSubgraphClause{
		{"", []oracle.TypeDir{{Type: "e1", Dir: oracle.Both}, {Type: "e2", Dir: oracle.Both}}},
		{"OUT e1", []oracle.TypeDir{{Type: "e1", Dir: oracle.Out}}},
		{"IN e1, e2", []oracle.TypeDir{{Type: "e1", Dir: oracle.In}, {Type: "e2", Dir: oracle.In}}},
		{"BOTH e2", []oracle.TypeDir{{Type: "e2", Dir: oracle.Both}}},
		{"IN e2 OUT e1", []oracle.TypeDir{{Type: "e2", Dir: oracle.In}, {Type: "e1", Dir: oracle.Out}}},
	}
	return sp
}

// ldbcSpace builds space ldbc from LDBC SF0.1 (see the test's doc), or
// returns nil when the data is absent.
func ldbcSpace(t *testing.T) *realSpace {
	dir := filepath.Join(dataDir, "ldbc-sf0.1")
	if _, err := os.Stat(dir); err != nil {
		t.Logf("LDBC SF0.1 not found at %s: only soc-Slashdot0902 is checked (%v)", dir, err)
		return nil
	}
	persons, knowsRows := loadLDBC(t)
	type extra struct {
		gender, browser string
		birthday        int64
	}
	extras := map[int64]extra{}
	readPipeCSV(t, filepath.Join(dir, "person_0_0.csv"), func(f []string) {
		id, _ := strconv.ParseInt(f[0], 10, 64)
		bd, _ := strconv.ParseInt(f[4], 10, 64)
		extras[id] = extra{gender: f[3], birthday: bd, browser: f[7]}
	})
	adj := map[int64][]int64{}
	for _, k := range knowsRows {
		adj[k.a] = append(adj[k.a], k.b)
		adj[k.b] = append(adj[k.b], k.a)
	}
	ball := bfsBall(adj, ldbcBallSeed, ldbcBallPersons)
	in := map[int64]bool{}
	for _, v := range ball {
		in[v] = true
	}
	g := oracle.New()
	for _, p := range persons {
		if in[p.id] {
			x := extras[p.id]
			g.AddVertex(p.id, "Person", map[string]any{"firstName": p.firstName, "lastName": p.lastName, "gender": x.gender,
				"birthday": x.birthday, "creationDate": p.creationDate, "browserUsed": x.browser})
		}
	}
	for _, k := range knowsRows {
		if in[k.a] && in[k.b] {
			g.AddEdge(oracle.Edge{Src: k.a, Dst: k.b, Type: "knows", Props: map[string]any{"creationDate": k.creationDate}})
		}
	}
	sp := &realSpace{
		name: "ldbc", g: g, tag: "Person", tagProps: []string{"firstName", "lastName", "gender", "birthday", "creationDate", "browserUsed"},
		types: []string{"knows"}, edgeProps: map[string][]string{"knows": {"creationDate"}},
		vids: slices.Sorted(slices.Values(ball)),
		num:  "creationDate", tagNum: "birthday", tagStr: "firstName", tagCat: "gender", catVal: "female",
		overs: [][]string{{"knows"}, nil},
		ddl: []string{
			"CREATE TAG Person(firstName string, lastName string, gender string, birthday int, creationDate int, browserUsed string)",
			"CREATE EDGE knows(creationDate int)",
			"CREATE TAG INDEX person_first ON Person(firstName(20))",
		},
		afterLoad: []string{
			"CREATE TAG INDEX person_birthday ON Person(birthday)",
			"REBUILD TAG INDEX person_birthday",
			"CREATE EDGE INDEX knows_date ON knows(creationDate)",
			"REBUILD EDGE INDEX knows_date",
		},
		lookups: ldbcLookups,
	}
	sp.finish()
	cd := func(r oracle.Row) int64 { return r.Edge.Props["creationDate"].(int64) }
	mid := sp.numMid
	sp.wheres = []realWhere{
		{"edge", []string{"knows"}, fmt.Sprintf("WHERE knows.creationDate > %d", mid), func(r oracle.Row) bool { return cd(r) > mid }},
		{"$^", nil, `WHERE $^.Person.gender == "female"`, func(r oracle.Row) bool { return sp.vprop(r.From, "gender") == "female" }},
		{"$$", nil, fmt.Sprintf("WHERE $$.Person.birthday < %d", sp.tagNumMid), func(r oracle.Row) bool {
			return sp.vprop(r.To, "birthday").(int64) < sp.tagNumMid
		}},
		{"$^, $$ and edge", []string{"knows"}, fmt.Sprintf("WHERE $^.Person.browserUsed == $$.Person.browserUsed OR knows.creationDate < %d", mid-50*86400000), func(r oracle.Row) bool {
			return sp.vprop(r.From, "browserUsed") == sp.vprop(r.To, "browserUsed") || cd(r) < mid-50*86400000
		}},
	}
	sp.pathFilters = []realPathFilter{
		{nil, pathFilter{"", nil}},
		{[]string{"knows"}, pathFilter{fmt.Sprintf("WHERE knows.creationDate > %d", mid), func(e *oracle.Edge) bool { return e.Props["creationDate"].(int64) > mid }}},
		{[]string{"knows"}, pathFilter{fmt.Sprintf("WHERE knows.creationDate < %d", mid+100*86400000), func(e *oracle.Edge) bool {
			return e.Props["creationDate"].(int64) < mid+100*86400000
		}}},
	}
	sp.subgraphClauses = []realSubgraphClause{
		{"", []oracle.TypeDir{{Type: "knows", Dir: oracle.Both}}},
		{"OUT knows", []oracle.TypeDir{{Type: "knows", Dir: oracle.Out}}},
		{"IN knows", []oracle.TypeDir{{Type: "knows", Dir: oracle.In}}},
		{"BOTH knows", []oracle.TypeDir{{Type: "knows", Dir: oracle.Both}}},
	}
	return sp
}

// load creates the space and its schema and inserts the graph in batches.
func (sp *realSpace) load(t *testing.T, s *client.Session, stores int) {
	t.Helper()
	exec(t, s, fmt.Sprintf("CREATE SPACE %s(partition_num=6, replica_factor=%d, vid_type=INT64)", sp.name, stores))
	exec(t, s, "USE "+sp.name)
	for _, stmt := range sp.ddl {
		exec(t, s, stmt)
	}
	const batch = 400
	var tagged []int64
	for _, v := range sp.vids {
		if sp.g.HasTag(v, sp.tag) {
			tagged = append(tagged, v)
		}
	}
	for i := 0; i < len(tagged); i += batch {
		var b strings.Builder
		fmt.Fprintf(&b, "INSERT VERTEX %s(%s) VALUES ", sp.tag, strings.Join(sp.tagProps, ", "))
		for j, v := range tagged[i:min(i+batch, len(tagged))] {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d:(%s)", v, formatProps(sp.g.Tag(v, sp.tag), sp.tagProps))
		}
		exec(t, s, b.String())
	}
	for _, typ := range sp.types {
		edges := sp.g.EdgeList(typ)
		for i := 0; i < len(edges); i += batch {
			var b strings.Builder
			fmt.Fprintf(&b, "INSERT EDGE %s(%s) VALUES ", typ, strings.Join(sp.edgeProps[typ], ", "))
			for j, e := range edges[i:min(i+batch, len(edges))] {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%d->%d@%d:(%s)", e.Src, e.Dst, e.Rank, formatProps(e.Props, sp.edgeProps[typ]))
			}
			exec(t, s, b.String())
		}
	}
	for _, stmt := range sp.afterLoad {
		exec(t, s, stmt)
	}
}

func formatProps(props map[string]any, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = oracle.FormatValue(props[n])
	}
	return strings.Join(parts, ", ")
}

// --- comparing -------------------------------------------------------------

// realChecker runs statements and reports differences from the reference
// without stopping at the first, so one run lists them all.
type realChecker struct {
	t                 *testing.T
	s                 *client.Session
	space             string
	compared, skipped int
	failures          int
	rows              int           // rows received
	waited            time.Duration // in Execute
	excludedBugs      map[string]int
}

// excluded reports whether statements hit by bug are left out, counting them.
func (c *realChecker) excluded(bug string) bool {
	if _, ok := realKnownBugs[bug]; !ok {
		return false
	}
	if c.excludedBugs == nil {
		c.excludedBugs = map[string]int{}
	}
	c.excludedBugs[bug]++
	return true
}

// goExcluded: GO M TO N STEPS with a pushed-down WHERE (see realKnownBugs).
func (c *realChecker) goExcluded(minS, maxS int, where *realWhere) bool {
	return minS != maxS && where != nil && where.pushed() && c.excluded("mton-pushed-where")
}

func (c *realChecker) run(stmt string) *client.ResultSet {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	rs, err := c.s.Execute(ctx, stmt)
	c.waited += time.Since(start)
	if rs != nil {
		c.rows += rs.Len()
	}
	if d := time.Since(start); d > 3*time.Second {
		c.t.Logf("slow statement (%v): %s", d.Round(time.Millisecond), truncate(stmt))
	}
	if err != nil {
		c.fail(stmt, fmt.Sprintf("error: %v", err))
		return nil
	}
	return rs
}

func (c *realChecker) fail(stmt, msg string) {
	c.t.Helper()
	c.failures++
	c.t.Errorf("space %s, seed %d\n  statement: %s\n  %s", c.space, realGraphSeed, stmt, msg)
	if c.failures >= 20 {
		c.t.Fatalf("20 differences in this check; stopping it")
	}
}

// tooLarge skips a statement whose reference answer exceeds realMaxRows.
func (c *realChecker) tooLarge(n int) bool {
	if n > realMaxRows {
		c.skipped++
		return true
	}
	return false
}

// compare checks got against want: as multisets, or as sequences when
// ordered. On a difference it prints the first differing rows.
func (c *realChecker) compare(stmt string, got, want []string, ordered bool) {
	c.t.Helper()
	c.compared++
	if !ordered {
		got, want = slices.Clone(got), slices.Clone(want)
		sort.Strings(got)
		sort.Strings(want)
	}
	if slices.Equal(got, want) {
		return
	}
	missing, extra := multisetDiff(got, want)
	msg := fmt.Sprintf("got %d rows, want %d", len(got), len(want))
	if len(missing) > 0 || len(extra) > 0 {
		msg += fmt.Sprintf("\n  missing (%d rows wanted, not got): %s\n  unexpected (%d rows got, not wanted): %s",
			len(missing), firstRows(missing), len(extra), firstRows(extra))
	} else {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		msg += fmt.Sprintf("\n  same rows in another order; first difference at row %d:\n  got:  %s\n  want: %s",
			i, firstRows(got[i:]), firstRows(want[i:]))
	}
	c.fail(stmt, msg)
}

func multisetDiff(got, want []string) (missing, extra []string) {
	n := map[string]int{}
	for _, w := range want {
		n[w]++
	}
	for _, g := range got {
		if n[g] > 0 {
			n[g]--
		} else {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if n[w] > 0 {
			n[w]--
			missing = append(missing, w)
		}
	}
	return missing, extra
}

func firstRows(rows []string) string {
	const k = 5
	var b strings.Builder
	for i, r := range rows {
		if i == k {
			fmt.Fprintf(&b, "\n      … %d more", len(rows)-k)
			break
		}
		if len(r) > 300 {
			r = r[:300] + "…"
		}
		b.WriteString("\n      " + r)
	}
	return b.String()
}

// expect runs stmt and compares its rows with want (rows of cells).
func (c *realChecker) expect(stmt string, want [][]any, ordered bool) {
	c.t.Helper()
	if c.tooLarge(len(want)) {
		return
	}
	rs := c.run(stmt)
	if rs == nil {
		return
	}
	c.compare(stmt, resultRows(rs), renderCells(want), ordered)
}

// realCell renders a cell: NULL, literals as nGQL writes them (strings
// quoted, floats with a fraction), lists with their elements sorted (the
// order of collect() depends on the order rows arrive in).
func realCell(x any) string {
	switch x := x.(type) {
	case nil:
		return "NULL"
	case int:
		return strconv.Itoa(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = realCell(e)
		}
		sort.Strings(parts)
		return "[" + strings.Join(parts, ", ") + "]"
	case fmt.Stringer:
		return x.String() // vertices, edges, paths
	}
	return oracle.FormatValue(x)
}

func renderCells(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, x := range r {
			parts[j] = realCell(x)
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// resultRows renders a result set like renderCells, in result order.
func resultRows(rs *client.ResultSet) []string {
	out := make([]string, rs.Len())
	for i := range out {
		row := rs.Row(i)
		parts := make([]string, row.Len())
		for j := range parts {
			parts[j] = realCell(row.Value(j))
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// --- reference helpers -----------------------------------------------------

func (sp *realSpace) vprop(v oracle.Vid, prop string) any {
	x, ok := sp.g.VertexProp(v, sp.tag, prop)
	if !ok {
		return nil
	}
	return x
}

func (sp *realSpace) overTypes(over []string) []string {
	if over == nil {
		return sp.types
	}
	return over
}

func overText(over []string) string {
	if over == nil {
		return "*"
	}
	return strings.Join(over, ", ")
}

func vidList(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ", ")
}

func asVids(vs []int64) []oracle.Vid {
	out := make([]oracle.Vid, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// starts picks 1–3 start vertices from the sample, the hub when withHub,
// sometimes one twice.
func (sp *realSpace) starts(rng *rand.Rand, withHub bool) []int64 {
	var out []int64
	if withHub {
		out = append(out, sp.hub)
	}
	for k := 1 + rng.Intn(3); len(out) < k; {
		out = append(out, sp.sample[1+rng.Intn(len(sp.sample)-1)])
	}
	if rng.Intn(5) == 0 {
		out = append(out, out[0])
	}
	return out
}

// fitStarts draws start vertices (with the hub when withHub) until the
// reference answer of the statement, size(from) rows, is at most
// realRowBudget, at most six times (then the smallest draw), so that the
// hub and dense steps show up without making the test slow.
func (sp *realSpace) fitStarts(rng *rand.Rand, withHub bool, size func(from []int64) int) []int64 {
	best, bestN := []int64(nil), 0
	for try := 0; try < 6; try++ {
		from := sp.starts(rng, withHub && try == 0)
		n := size(from)
		if n <= realRowBudget {
			return from
		}
		if best == nil || n < bestN {
			best, bestN = from, n
		}
	}
	return best
}

// goRows is the reference GO: rows of steps min..max, filtered by where.
func (sp *realSpace) goRows(from []int64, minS, maxS int, over []string, dir oracle.Direction, where *realWhere) []oracle.Row {
	rows := sp.g.Go(asVids(from), minS, maxS, sp.overTypes(over), dir)
	if where == nil {
		return rows
	}
	kept := rows[:0]
	for _, r := range rows {
		if where.keep(r) {
			kept = append(kept, r)
		}
	}
	return kept
}

// goCol is a GO YIELD column and its value on a reference row.
type goCol struct {
	text string
	val  func(r oracle.Row) any
}

func (sp *realSpace) goCols(over []string) []goCol {
	cols := []goCol{
		{"id($^)", func(r oracle.Row) any { return r.From }},
		{"id($$)", func(r oracle.Row) any { return r.To }},
		{"src(edge)", func(r oracle.Row) any { return r.Edge.Src }},
		{"dst(edge)", func(r oracle.Row) any { return r.Edge.Dst }},
		{"rank(edge)", func(r oracle.Row) any { return r.Edge.Rank }},
		{"type(edge)", func(r oracle.Row) any { return r.Edge.Type }},
	}
	for _, typ := range sp.overTypes(over) {
		cols = append(cols, goCol{typ + "._dst", func(r oracle.Row) any {
			if r.Edge.Type != typ {
				return nil
			}
			return r.To
		}})
		for _, p := range sp.edgeProps[typ] {
			cols = append(cols, goCol{typ + "." + p, func(r oracle.Row) any {
				if r.Edge.Type != typ {
					return nil
				}
				return r.Edge.Props[p]
			}})
		}
	}
	cols = append(cols,
		goCol{"properties(edge)." + sp.num, func(r oracle.Row) any { return r.Edge.Props[sp.num] }},
		goCol{"$^." + sp.tag + "." + sp.tagCat, func(r oracle.Row) any { return sp.vprop(r.From, sp.tagCat) }},
		goCol{"$$." + sp.tag + "." + sp.tagStr, func(r oracle.Row) any { return sp.vprop(r.To, sp.tagStr) }},
		goCol{"$$." + sp.tag + "." + sp.tagNum, func(r oracle.Row) any { return sp.vprop(r.To, sp.tagNum) }},
	)
	return cols
}

func yieldOf(cols []goCol) string {
	texts := make([]string, len(cols))
	for i, c := range cols {
		texts[i] = c.text
	}
	return strings.Join(texts, ", ")
}

func project(rows []oracle.Row, cols []goCol) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		cells := make([]any, len(cols))
		for j, c := range cols {
			cells[j] = c.val(r)
		}
		out[i] = cells
	}
	return out
}

func distinctCells(rows [][]any) [][]any {
	seen := map[string]bool{}
	var out [][]any
	for i, s := range renderCells(rows) {
		if !seen[s] {
			seen[s] = true
			out = append(out, rows[i])
		}
	}
	return out
}

var goSteps = []struct {
	text     string
	min, max int
}{{"", 1, 1}, {"2 STEPS ", 2, 2}, {"3 STEPS ", 3, 3}, {"1 TO 3 STEPS ", 1, 3}}

// --- GO --------------------------------------------------------------------

func checkRealGo(c *realChecker, sp *realSpace, rng *rand.Rand) {
	// Every steps form × direction, the OVER list rotating so that each
	// direction meets every list; a YIELD of every kind of column.
	for i, st := range goSteps {
		for j, d := range pathDirs {
			over := sp.overs[(i+j)%len(sp.overs)]
			from := sp.fitStarts(rng, (i+j)%4 == 0, func(from []int64) int {
				return len(sp.goRows(from, st.min, st.max, over, d.dir, nil))
			})
			cols := sp.goCols(over)
			stmt := fmt.Sprintf("GO %sFROM %s OVER %s %s YIELD %s", st.text, vidList(from), overText(over), d.kw, yieldOf(cols))
			c.expect(stmt, project(sp.goRows(from, st.min, st.max, over, d.dir, nil), cols), false)
		}
	}
	// WHERE on each scope, on one step, N steps and M TO N steps.
	whereSteps := []struct {
		text     string
		min, max int
	}{{"1 STEPS ", 1, 1}, {"2 STEPS ", 2, 2}, {"1 TO 3 STEPS ", 1, 3}, {"2 TO 3 STEPS ", 2, 3}}
	for i, w := range sp.wheres {
		for j, st := range whereSteps {
			d := pathDirs[(i+j)%len(pathDirs)]
			over := w.types
			if over == nil || rng.Intn(2) == 0 {
				over = nil // OVER *
			}
			if c.goExcluded(st.min, st.max, &w) {
				continue
			}
			from := sp.fitStarts(rng, (i+j)%3 == 0, func(from []int64) int {
				return len(sp.goRows(from, st.min, st.max, over, d.dir, nil))
			})
			cols := sp.goCols(over)
			stmt := fmt.Sprintf("GO %sFROM %s OVER %s %s %s YIELD %s", st.text, vidList(from), overText(over), d.kw, w.text, yieldOf(cols))
			c.expect(stmt, project(sp.goRows(from, st.min, st.max, over, d.dir, &w), cols), false)
		}
	}
	// YIELD DISTINCT.
	for k := 0; k < 4; k++ {
		st := goSteps[1+k%3]
		d := pathDirs[k%3]
		from := sp.fitStarts(rng, k == 0, func(from []int64) int { return len(sp.goRows(from, st.min, st.max, nil, d.dir, nil)) })
		cols := []goCol{
			{"id($$)", func(r oracle.Row) any { return r.To }},
			{"$$." + sp.tag + "." + sp.tagCat, func(r oracle.Row) any { return sp.vprop(r.To, sp.tagCat) }},
		}
		if k%2 == 1 {
			cols = []goCol{
				{"type(edge)", func(r oracle.Row) any { return r.Edge.Type }},
				{"$^." + sp.tag + "." + sp.tagCat, func(r oracle.Row) any { return sp.vprop(r.From, sp.tagCat) }},
			}
		}
		var where *realWhere
		whereText := ""
		if k >= 2 {
			// the last two read $$ (not pushed down: see realKnownBugs)
			where = &sp.wheres[len(sp.wheres)-1-k%2]
			whereText = where.text
		}
		stmt := fmt.Sprintf("GO %sFROM %s OVER * %s %s YIELD DISTINCT %s", st.text, vidList(from), d.kw, whereText, yieldOf(cols))
		c.expect(stmt, distinctCells(project(sp.goRows(from, st.min, st.max, nil, d.dir, where), cols)), false)
	}
	// No YIELD: the reached vertex per edge type of OVER.
	for k, st := range goSteps[:3] {
		d := pathDirs[k]
		over := sp.overs[len(sp.overs)-2]
		from := sp.fitStarts(rng, false, func(from []int64) int { return len(sp.goRows(from, st.min, st.max, over, d.dir, nil)) })
		var cols []goCol
		for _, typ := range over {
			cols = append(cols, goCol{"", func(r oracle.Row) any {
				if r.Edge.Type == typ {
					return r.To
				}
				return nil
			}})
		}
		stmt := fmt.Sprintf("GO %sFROM %s OVER %s %s", st.text, vidList(from), overText(over), d.kw)
		c.expect(stmt, project(sp.goRows(from, st.min, st.max, over, d.dir, nil), cols), false)
	}
}

// --- pipes and variables ----------------------------------------------------

// lightStarts picks 1–2 sample vertices other than the hub, for
// statements whose answers multiply (joins).
func (sp *realSpace) lightStarts(rng *rand.Rand) []int64 {
	out := []int64{sp.sample[1+rng.Intn(len(sp.sample)-1)]}
	if rng.Intn(2) == 0 {
		out = append(out, sp.sample[1+rng.Intn(len(sp.sample)-1)])
	}
	return out
}

// expectFit runs the statement build makes for start vertices drawn by
// lightStarts, drawing again (up to six times, then the smallest) while
// the reference answer has more than realRowBudget rows: joins multiply.
func (c *realChecker) expectFit(sp *realSpace, rng *rand.Rand, build func(from []int64) (string, [][]any)) {
	c.t.Helper()
	var stmt string
	var want [][]any
	for try := 0; try < 6; try++ {
		s, w := build(sp.lightStarts(rng))
		if stmt == "" || len(w) < len(want) {
			stmt, want = s, w
		}
		if len(w) <= realRowBudget {
			break
		}
	}
	c.expect(stmt, want, false)
}

func checkRealPipes(c *realChecker, sp *realSpace, rng *rand.Rand) {
	all, t0, num := sp.types, sp.types[0], sp.num
	one := func(v oracle.Vid, minS, maxS int, types []string, dir oracle.Direction) []oracle.Row {
		return sp.g.Go([]oracle.Vid{v}, minS, maxS, types, dir)
	}
	for k := 0; k < 2; k++ {
		// Each result row joins every input row its start came from.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, in := range sp.goRows(from, 1, 1, []string{t0}, oracle.Out, nil) {
				for _, o := range one(in.To, 1, 1, all, oracle.Out) {
					want = append(want, []any{in.To, in.Edge.Props[num], o.Edge.Dst, o.Edge.Type})
				}
			}
			return fmt.Sprintf("GO FROM %s OVER %s YIELD dst(edge) AS id, %s.%s AS w | GO FROM $-.id OVER * YIELD $-.id AS a, $-.w AS w, dst(edge) AS d, type(edge) AS t",
				vidList(from), t0, t0, num), want
		})

		// Into a multi-step GO the other way.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, in := range sp.goRows(from, 1, 1, nil, oracle.Both, nil) {
				for _, o := range one(in.To, 2, 2, all, oracle.In) {
					want = append(want, []any{in.To, o.Edge.Src, o.Edge.Dst})
				}
			}
			return fmt.Sprintf("GO FROM %s OVER * BIDIRECT YIELD id($$) AS id | GO 2 STEPS FROM $-.id OVER * REVERSELY YIELD $-.id AS a, src(edge) AS s, dst(edge) AS d", vidList(from)), want
		})

		// WHERE reading an input column: per input row.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, in := range sp.goRows(from, 1, 1, nil, oracle.Out, nil) {
				w := in.Edge.Props[num].(int64)
				for _, o := range one(in.To, 1, 1, all, oracle.Out) {
					if x := o.Edge.Props[num].(int64); x > w {
						want = append(want, []any{in.To, w, o.Edge.Dst, x})
					}
				}
			}
			return fmt.Sprintf("GO FROM %s OVER * YIELD dst(edge) AS id, properties(edge).%s AS w | GO FROM $-.id OVER * WHERE properties(edge).%s > $-.w YIELD $-.id AS a, $-.w AS w, dst(edge) AS d, properties(edge).%s AS x",
				vidList(from), num, num, num), want
		})

		// $^ WHERE after a pipe, with $$ props.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, in := range sp.goRows(from, 1, 1, nil, oracle.Out, nil) {
				if x := sp.vprop(in.To, sp.tagNum); x == nil || x.(int64) <= sp.tagNumMid {
					continue
				}
				for _, o := range one(in.To, 1, 1, all, oracle.In) {
					want = append(want, []any{in.To, o.Edge.Src, sp.vprop(o.To, sp.tagStr)})
				}
			}
			return fmt.Sprintf("GO FROM %s OVER * YIELD dst(edge) AS id | GO FROM $-.id OVER * REVERSELY WHERE $^.%s.%s > %d YIELD $-.id AS a, src(edge) AS s, $$.%s.%s AS n",
				vidList(from), sp.tag, sp.tagNum, sp.tagNumMid, sp.tag, sp.tagStr), want
		})

		// GO | YIELD ... WHERE, and YIELD DISTINCT ... WHERE.
		for _, distinct := range []bool{false, true} {
			c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
				var want [][]any
				for _, r := range sp.goRows(from, 2, 2, nil, oracle.Out, nil) {
					if w := r.Edge.Props[num].(int64); !distinct && w > sp.numMid {
						want = append(want, []any{r.To, w})
					} else if distinct && w <= sp.numMid {
						want = append(want, []any{r.To})
					}
				}
				base := fmt.Sprintf("GO 2 STEPS FROM %s OVER * YIELD dst(edge) AS d, properties(edge).%s AS w", vidList(from), num)
				if distinct {
					return base + fmt.Sprintf(" | YIELD DISTINCT $-.d AS d WHERE $-.w <= %d", sp.numMid), distinctCells(want)
				}
				return base + fmt.Sprintf(" | YIELD $-.d AS d, $-.w AS w WHERE $-.w > %d", sp.numMid), want
			})
		}

		// A variable joins like a pipe.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, in := range sp.goRows(from, 1, 1, []string{t0}, oracle.Out, nil) {
				for _, o := range one(in.To, 1, 1, all, oracle.In) {
					want = append(want, []any{in.To, in.Edge.Props[num], o.Edge.Src})
				}
			}
			return fmt.Sprintf("$a = GO FROM %s OVER %s YIELD dst(edge) AS id, %s.%s AS w; GO FROM $a.id OVER * REVERSELY YIELD $a.id AS a, $a.w AS w, src(edge) AS s",
				vidList(from), t0, t0, num), want
		})

		// A DISTINCT variable into M TO N steps with a $$ WHERE.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, in := range distinctCells(project(sp.goRows(from, 1, 1, nil, oracle.Both, nil), []goCol{{"", func(r oracle.Row) any { return r.To }}})) {
				for _, o := range one(in[0], 1, 2, all, oracle.Out) {
					if sp.vprop(o.To, sp.tagCat) == sp.catVal {
						want = append(want, []any{in[0], o.Edge.Dst})
					}
				}
			}
			return fmt.Sprintf("$a = GO FROM %s OVER * BIDIRECT YIELD DISTINCT id($$) AS id; GO 1 TO 2 STEPS FROM $a.id OVER * WHERE $$.%s.%s == %s YIELD $a.id AS a, dst(edge) AS d",
				vidList(from), sp.tag, sp.tagCat, oracle.FormatValue(sp.catVal)), want
		})

		// Three statements chained through two variables.
		c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
			var want [][]any
			for _, a := range sp.goRows(from, 1, 1, []string{t0}, oracle.Out, nil) {
				for _, b := range one(a.To, 1, 1, all, oracle.Out) {
					for _, o := range one(b.To, 1, 1, all, oracle.In) {
						want = append(want, []any{a.To, b.To, o.Edge.Src})
					}
				}
			}
			return fmt.Sprintf("$a = GO FROM %s OVER %s YIELD dst(edge) AS id; $b = GO FROM $a.id OVER * YIELD dst(edge) AS id, $a.id AS a; GO FROM $b.id OVER * REVERSELY YIELD $b.a AS a, $b.id AS b, src(edge) AS s",
				vidList(from), t0), want
		})

		// YIELD without input columns: NebulaGraph (and the brief: rows
		// are joined to input rows when YIELD uses input columns) starts
		// from the distinct piped vids, each result row once.
		if !c.excluded("pipe-join-without-input-columns") {
			c.expectFit(sp, rng, func(from []int64) (string, [][]any) {
				var ids []int64
				for _, in := range sp.goRows(from, 1, 1, nil, oracle.Both, nil) {
					ids = append(ids, in.To.(int64))
				}
				return fmt.Sprintf("GO FROM %s OVER * BIDIRECT YIELD id($$) AS id | GO FROM $-.id OVER * YIELD dst(edge) AS d, type(edge) AS t", vidList(from)),
					project(sp.goRows(ids, 1, 1, nil, oracle.Out, nil), []goCol{
						{"", func(r oracle.Row) any { return r.Edge.Dst }}, {"", func(r oracle.Row) any { return r.Edge.Type }}})
			})
		}
	}
}

// --- GROUP BY, aggregates, ORDER BY, LIMIT -----------------------------------

func nonNull(vals []any) []any {
	var out []any
	for _, v := range vals {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

func sumOf(vals []any) any {
	var s int64
	for _, v := range nonNull(vals) {
		s += v.(int64)
	}
	return s
}

func minOf(vals []any, less bool) any {
	var m any
	for _, v := range nonNull(vals) {
		if m == nil || (v.(int64) < m.(int64)) == less && v.(int64) != m.(int64) {
			m = v
		}
	}
	return m
}

func avgOf(vals []any) any {
	nn := nonNull(vals)
	if len(nn) == 0 {
		return nil
	}
	return float64(sumOf(nn).(int64)) / float64(len(nn))
}

func distinctOf(vals []any) []any {
	seen := map[string]bool{}
	out := []any{}
	for _, v := range nonNull(vals) {
		if k := realCell(v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// groupBy groups rows by the cells at keys; agg turns a group into a row.
func groupBy(rows [][]any, keys []int, agg func(key []any, group [][]any) []any) [][]any {
	type grp struct {
		key  []any
		rows [][]any
	}
	groups := map[string]*grp{}
	var order []string
	for _, r := range rows {
		key := make([]any, len(keys))
		for i, k := range keys {
			key[i] = r[k]
		}
		ks := renderCells([][]any{key})[0]
		if groups[ks] == nil {
			groups[ks] = &grp{key: key}
			order = append(order, ks)
		}
		groups[ks].rows = append(groups[ks].rows, r)
	}
	out := make([][]any, 0, len(order))
	for _, ks := range order {
		out = append(out, agg(groups[ks].key, groups[ks].rows))
	}
	return out
}

func column(rows [][]any, j int) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[j]
	}
	return out
}

// cmpCell orders cells as ORDER BY does: numbers, then strings, NULL last.
func cmpCell(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	switch a := a.(type) {
	case int64:
		return cmpInt(a, b.(int64))
	case string:
		return strings.Compare(a, b.(string))
	}
	panic(fmt.Sprintf("cmpCell: %T", a))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type orderKey struct {
	col  int
	desc bool
}

func orderRows(rows [][]any, keys ...orderKey) [][]any {
	out := slices.Clone(rows)
	sort.SliceStable(out, func(i, j int) bool {
		for _, k := range keys {
			c := cmpCell(out[i][k.col], out[j][k.col])
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	return out
}

func limitRows(rows [][]any, offset, n int) [][]any {
	if offset >= len(rows) {
		return nil
	}
	return rows[offset:min(offset+n, len(rows))]
}

func checkRealGroupOrder(c *realChecker, sp *realSpace, rng *rand.Rand) {
	num, tag := sp.num, sp.tag
	for k := 0; k < 2; k++ {
		from := sp.starts(rng, k == 0)
		S := vidList(from)

		// GROUP BY a column: count, sum, min, max.
		stmt := fmt.Sprintf("GO 2 STEPS FROM %s OVER * YIELD dst(edge) AS d, properties(edge).%s AS w | GROUP BY $-.d YIELD $-.d AS d, count(*) AS n, sum($-.w) AS s, min($-.w) AS lo, max($-.w) AS hi", S, num)
		in := project(sp.goRows(from, 2, 2, nil, oracle.Out, nil), []goCol{
			{"", func(r oracle.Row) any { return r.To }}, {"", func(r oracle.Row) any { return r.Edge.Props[num] }}})
		c.expect(stmt, groupBy(in, []int{0}, func(key []any, g [][]any) []any {
			w := column(g, 1)
			return []any{key[0], int64(len(g)), sumOf(w), minOf(w, true), minOf(w, false)}
		}), false)

		// GROUP BY type over M TO N BIDIRECT: avg and count(DISTINCT).
		stmt = fmt.Sprintf("GO 1 TO 2 STEPS FROM %s OVER * BIDIRECT YIELD type(edge) AS t, properties(edge).%s %% 1000 AS w, id($$) AS v | GROUP BY $-.t YIELD $-.t AS t, count(*) AS n, avg($-.w) AS a, count(DISTINCT $-.v) AS nv", S, num)
		in = project(sp.goRows(from, 1, 2, nil, oracle.Both, nil), []goCol{
			{"", func(r oracle.Row) any { return r.Edge.Type }},
			{"", func(r oracle.Row) any { return r.Edge.Props[num].(int64) % 1000 }},
			{"", func(r oracle.Row) any { return r.To }}})
		c.expect(stmt, groupBy(in, []int{0}, func(key []any, g [][]any) []any {
			return []any{key[0], int64(len(g)), avgOf(column(g, 1)), int64(len(distinctOf(column(g, 2))))}
		}), false)

		// GROUP BY a $$ property (NULL is a key), collect and collect_set.
		stmt = fmt.Sprintf("GO FROM %s OVER * REVERSELY YIELD id($$) AS v, type(edge) AS t, $$.%s.%s AS g | GROUP BY $-.g YIELD $-.g AS g, count(*) AS n, collect($-.v) AS vs, collect_set($-.t) AS ts", S, tag, sp.tagCat)
		in = project(sp.goRows(from, 1, 1, nil, oracle.In, nil), []goCol{
			{"", func(r oracle.Row) any { return r.To }}, {"", func(r oracle.Row) any { return r.Edge.Type }},
			{"", func(r oracle.Row) any { return sp.vprop(r.To, sp.tagCat) }}})
		c.expect(stmt, groupBy(in, []int{2}, func(key []any, g [][]any) []any {
			return []any{key[0], int64(len(g)), nonNull(column(g, 0)), distinctOf(column(g, 1))}
		}), false)

		// Two keys from both ends of the edge.
		stmt = fmt.Sprintf("GO 1 TO 2 STEPS FROM %s OVER * BIDIRECT YIELD $$.%s.%s AS g, $^.%s.%s AS h, properties(edge).%s AS c | GROUP BY $-.g, $-.h YIELD $-.g AS g, $-.h AS h, count(*) AS n, min($-.c) AS lo, max($-.c) AS hi",
			S, tag, sp.tagCat, tag, sp.tagCat, num)
		in = project(sp.goRows(from, 1, 2, nil, oracle.Both, nil), []goCol{
			{"", func(r oracle.Row) any { return sp.vprop(r.To, sp.tagCat) }},
			{"", func(r oracle.Row) any { return sp.vprop(r.From, sp.tagCat) }},
			{"", func(r oracle.Row) any { return r.Edge.Props[num] }}})
		c.expect(stmt, groupBy(in, []int{0, 1}, func(key []any, g [][]any) []any {
			return []any{key[0], key[1], int64(len(g)), minOf(column(g, 2), true), minOf(column(g, 2), false)}
		}), false)

		// Aggregates without GROUP BY: one row, also for no input.
		stmt = fmt.Sprintf("GO 3 STEPS FROM %s OVER %s YIELD %s.%s AS w | YIELD count(*) AS n, sum($-.w) AS s, max($-.w) AS hi", S, sp.types[0], sp.types[0], num)
		w := column(project(sp.goRows(from, 3, 3, []string{sp.types[0]}, oracle.Out, nil), []goCol{{"", func(r oracle.Row) any { return r.Edge.Props[num] }}}), 0)
		c.expect(stmt, [][]any{{int64(len(w)), sumOf(w), minOf(w, false)}}, false)
		stmt = fmt.Sprintf("GO FROM %d OVER * YIELD properties(edge).%s AS w | YIELD count(*) AS n, sum($-.w) AS s, max($-.w) AS hi", realMissingVid, num)
		c.expect(stmt, [][]any{{int64(0), int64(0), nil}}, false)

		// GROUP BY over a variable.
		stmt = fmt.Sprintf("$v = GO 2 STEPS FROM %s OVER * BIDIRECT YIELD id($$) AS d; GROUP BY $v.d YIELD $v.d AS d, count(*) AS n", S)
		in = project(sp.goRows(from, 2, 2, nil, oracle.Both, nil), []goCol{{"", func(r oracle.Row) any { return r.To }}})
		c.expect(stmt, groupBy(in, []int{0}, func(key []any, g [][]any) []any { return []any{key[0], int64(len(g))} }), false)

		// ORDER BY every column (a total order on distinct rows) | LIMIT.
		top := fmt.Sprintf("GO 2 STEPS FROM %s OVER * YIELD src(edge) AS s, dst(edge) AS d, properties(edge).%s AS w, type(edge) AS t | ORDER BY $-.w DESC, $-.s, $-.d, $-.t", S, num)
		in = project(sp.goRows(from, 2, 2, nil, oracle.Out, nil), []goCol{
			{"", func(r oracle.Row) any { return r.Edge.Src }}, {"", func(r oracle.Row) any { return r.Edge.Dst }},
			{"", func(r oracle.Row) any { return r.Edge.Props[num] }}, {"", func(r oracle.Row) any { return r.Edge.Type }}})
		sorted := orderRows(in, orderKey{2, true}, orderKey{0, false}, orderKey{1, false}, orderKey{3, false})
		c.expect(top+" | LIMIT 10", limitRows(sorted, 0, 10), true)
		c.expect(top, sorted, true)
		// ... and on into another GO.
		stmt = top + " | LIMIT 5 | GO FROM $-.d OVER * YIELD $-.d AS d, $-.w AS w, dst(edge) AS x"
		var want [][]any
		for _, r := range limitRows(sorted, 0, 5) {
			for _, o := range sp.g.Go([]oracle.Vid{r[1]}, 1, 1, sp.types, oracle.Out) {
				want = append(want, []any{r[1], r[2], o.Edge.Dst})
			}
		}
		c.expect(stmt, want, false)

		// ORDER BY mixed directions with an offset, over M TO N REVERSELY.
		stmt = fmt.Sprintf("GO 1 TO 3 STEPS FROM %s OVER * REVERSELY YIELD id($$) AS v, properties(edge).%s AS w, type(edge) AS t | ORDER BY $-.w, $-.v DESC, $-.t | LIMIT 3, 15", S, num)
		in = project(sp.goRows(from, 1, 3, nil, oracle.In, nil), []goCol{
			{"", func(r oracle.Row) any { return r.To }}, {"", func(r oracle.Row) any { return r.Edge.Props[num] }},
			{"", func(r oracle.Row) any { return r.Edge.Type }}})
		c.expect(stmt, limitRows(orderRows(in, orderKey{1, false}, orderKey{0, true}, orderKey{2, false}), 3, 15), true)

		// ORDER BY with a string property and NULLs (vertices without a tag).
		stmt = fmt.Sprintf("GO FROM %s OVER * BIDIRECT YIELD id($$) AS v, $$.%s.%s AS n, properties(edge).%s AS c | ORDER BY $-.n DESC, $-.c, $-.v | LIMIT 25", S, tag, sp.tagStr, num)
		in = project(sp.goRows(from, 1, 1, nil, oracle.Both, nil), []goCol{
			{"", func(r oracle.Row) any { return r.To }}, {"", func(r oracle.Row) any { return sp.vprop(r.To, sp.tagStr) }},
			{"", func(r oracle.Row) any { return r.Edge.Props[num] }}})
		c.expect(stmt, limitRows(orderRows(in, orderKey{1, true}, orderKey{2, false}, orderKey{0, false}), 0, 25), true)

		// The most reached vertices: GROUP BY | ORDER BY | LIMIT.
		stmt = fmt.Sprintf("GO 2 STEPS FROM %s OVER * BIDIRECT YIELD id($$) AS d | GROUP BY $-.d YIELD $-.d AS d, count(*) AS n | ORDER BY $-.n DESC, $-.d | LIMIT 5", S)
		in = project(sp.goRows(from, 2, 2, nil, oracle.Both, nil), []goCol{{"", func(r oracle.Row) any { return r.To }}})
		grouped := groupBy(in, []int{0}, func(key []any, g [][]any) []any { return []any{key[0], int64(len(g))} })
		c.expect(stmt, limitRows(orderRows(grouped, orderKey{1, true}, orderKey{0, false}), 0, 5), true)

		// ORDER BY over a variable.
		stmt = fmt.Sprintf("$v = GO FROM %s OVER * YIELD dst(edge) AS d, properties(edge).%s AS w; ORDER BY $v.w DESC, $v.d", S, num)
		in = project(sp.goRows(from, 1, 1, nil, oracle.Out, nil), []goCol{
			{"", func(r oracle.Row) any { return r.To }}, {"", func(r oracle.Row) any { return r.Edge.Props[num] }}})
		c.expect(stmt, orderRows(in, orderKey{1, true}, orderKey{0, false}), true)
	}
}

// --- FETCH -------------------------------------------------------------------

func checkRealFetch(c *realChecker, sp *realSpace, rng *rand.Rand) {
	tag := sp.tag
	for k := 0; k < 3; k++ {
		// Distinct vids: some with the tag, some without, one absent.
		var vids []int64
		for _, i := range rng.Perm(len(sp.vids))[:3+rng.Intn(12)] {
			vids = append(vids, sp.vids[i])
		}
		if k == 0 {
			vids = append(vids, sp.hub)
		}
		vids = append(vids, realMissingVid)
		vids = slices.Compact(vids)
		var all, some, cats [][]any
		for _, v := range vids {
			p := sp.g.Tag(v, tag)
			if p == nil {
				continue
			}
			row := []any{v}
			for _, n := range sp.tagProps {
				row = append(row, p[n])
			}
			all = append(all, row)
			some = append(some, []any{v, p[sp.tagStr], p[sp.tagNum], p[sp.tagCat]})
			cats = append(cats, []any{p[sp.tagCat]})
		}
		c.expect(fmt.Sprintf("FETCH PROP ON %s %s", tag, vidList(vids)), all, false)
		c.expect(fmt.Sprintf("FETCH PROP ON %s %s YIELD id(vertex) AS id, %s.%s, %s.%s, %s.%s", tag, vidList(vids), tag, sp.tagStr, tag, sp.tagNum, tag, sp.tagCat), some, false)
		c.expect(fmt.Sprintf("FETCH PROP ON %s %s YIELD DISTINCT %s.%s AS c", tag, vidList(vids), tag, sp.tagCat), distinctCells(cats), false)

		// Edges of each type: existing keys, their reversals (which may or
		// may not exist), and rank 1 (none exists).
		for _, typ := range sp.types {
			edges := sp.g.EdgeList(typ)
			var keys []string
			var withYield, noYield [][]any
			seen := map[string]bool{}
			add := func(src, dst oracle.Vid, rank int64, text string) {
				if seen[text] {
					return
				}
				seen[text] = true
				keys = append(keys, text)
				e := sp.g.EdgeOf(src, dst, typ, rank)
				if e == nil {
					return
				}
				row := []any{e.Src, e.Dst, e.Rank}
				for _, p := range sp.edgeProps[typ] {
					row = append(row, e.Props[p])
				}
				noYield = append(noYield, row)
				withYield = append(withYield, append([]any{typ}, row...))
			}
			for i := 0; i < 4; i++ {
				e := edges[rng.Intn(len(edges))]
				add(e.Src, e.Dst, 0, fmt.Sprintf("%d->%d", e.Src, e.Dst))
				add(e.Dst, e.Src, 0, fmt.Sprintf("%d->%d@0", e.Dst, e.Src))
				if i == 0 {
					add(e.Src, e.Dst, 1, fmt.Sprintf("%d->%d@1", e.Src, e.Dst))
				}
			}
			props := make([]string, len(sp.edgeProps[typ]))
			for i, p := range sp.edgeProps[typ] {
				props[i] = typ + "." + p
			}
			c.expect(fmt.Sprintf("FETCH PROP ON %s %s", typ, strings.Join(keys, ", ")), noYield, false)
			c.expect(fmt.Sprintf("FETCH PROP ON %s %s YIELD type(edge), src(edge), dst(edge), rank(edge), %s", typ, strings.Join(keys, ", "), strings.Join(props, ", ")), withYield, false)
		}

		// From a pipe and from a variable: one row per input row.
		from := sp.starts(rng, false)
		stmt := fmt.Sprintf("GO FROM %s OVER * BIDIRECT YIELD id($$) AS id, type(edge) AS t | FETCH PROP ON %s $-.id YIELD $-.t AS t, id(vertex) AS id, %s.%s AS n", vidList(from), tag, tag, sp.tagStr)
		var want [][]any
		for _, r := range sp.goRows(from, 1, 1, nil, oracle.Both, nil) {
			if sp.g.HasTag(r.To, tag) {
				want = append(want, []any{r.Edge.Type, r.To, sp.vprop(r.To, sp.tagStr)})
			}
		}
		c.expect(stmt, want, false)
		stmt = fmt.Sprintf("$v = GO FROM %s OVER * REVERSELY YIELD src(edge) AS id; FETCH PROP ON %s $v.id YIELD $v.id AS v, %s.%s AS x", vidList(from), tag, tag, sp.tagNum)
		want = nil
		for _, r := range sp.goRows(from, 1, 1, nil, oracle.In, nil) {
			if sp.g.HasTag(r.Edge.Src, tag) {
				want = append(want, []any{r.Edge.Src, sp.vprop(r.Edge.Src, sp.tagNum)})
			}
		}
		c.expect(stmt, want, false)
	}
}

// --- LOOKUP ------------------------------------------------------------------

// lookupVertices is the reference LOOKUP ON tag: cols are "id" or props.
func (sp *realSpace) lookupVertices(keep func(p map[string]any) bool, cols ...string) []string {
	var rows [][]any
	for _, v := range sp.g.VerticesWith(sp.tag) {
		p := sp.g.Tag(v, sp.tag)
		if !keep(p) {
			continue
		}
		row := make([]any, len(cols))
		for i, col := range cols {
			if col == "id" {
				row[i] = v
			} else {
				row[i] = p[col]
			}
		}
		rows = append(rows, row)
	}
	return renderCells(rows)
}

// lookupEdges is the reference LOOKUP ON typ: cols are src, dst, rank or props.
func (sp *realSpace) lookupEdges(typ string, keep func(e *oracle.Edge) bool, cols ...string) []string {
	var rows [][]any
	for _, e := range sp.g.EdgeList(typ) {
		if !keep(e) {
			continue
		}
		row := make([]any, len(cols))
		for i, col := range cols {
			switch col {
			case "src":
				row[i] = e.Src
			case "dst":
				row[i] = e.Dst
			case "rank":
				row[i] = e.Rank
			default:
				row[i] = e.Props[col]
			}
		}
		rows = append(rows, row)
	}
	return renderCells(rows)
}

func checkRealLookup(c *realChecker, sp *realSpace, rng *rand.Rand) {
	for _, q := range sp.lookups(sp, rng) {
		if c.tooLarge(len(q.want)) {
			continue
		}
		if rs := c.run(q.stmt); rs != nil {
			c.compare(q.stmt, resultRows(rs), q.want, q.ordered)
		}
	}
}

func (sp *realSpace) randomTagged(rng *rand.Rand) map[string]any {
	vs := sp.g.VerticesWith(sp.tag)
	slices.SortFunc(vs, oracle.CompareVids)
	return sp.g.Tag(vs[rng.Intn(len(vs))], sp.tag)
}

func slashdotLookups(sp *realSpace, rng *rand.Rand) []realQuery {
	i64 := func(x any) int64 { return x.(int64) }
	var qs []realQuery
	for k := 0; k < 2; k++ {
		grp := int64(rng.Intn(7))
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON user WHERE user.grp == %d YIELD id(vertex), user.name, user.outdeg", grp),
			want: sp.lookupVertices(func(p map[string]any) bool { return p["grp"] == grp }, "id", "name", "outdeg")})
		lo := i64(sp.randomTagged(rng)["outdeg"])
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON user WHERE user.outdeg >= %d AND user.outdeg < %d YIELD id(vertex), user.outdeg, user.indeg", lo, lo+30),
			want: sp.lookupVertices(func(p map[string]any) bool { return i64(p["outdeg"]) >= lo && i64(p["outdeg"]) < lo+30 }, "id", "outdeg", "indeg")})
		p := sp.randomTagged(rng)
		od, id := i64(p["outdeg"]), i64(p["indeg"])-5
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON user WHERE user.outdeg == %d AND user.indeg > %d YIELD id(vertex)", od, id),
			want: sp.lookupVertices(func(p map[string]any) bool { return i64(p["outdeg"]) == od && i64(p["indeg"]) > id }, "id")})
		w := int64(rng.Intn(50))
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON e2 WHERE e2.w == %d YIELD src(edge), dst(edge), rank(edge), e2.kind", w),
			want: sp.lookupEdges("e2", func(e *oracle.Edge) bool { return e.Props["w"] == w }, "src", "dst", "rank", "kind")})
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON e2 WHERE e2.w == %d", w),
			want: sp.lookupEdges("e2", func(e *oracle.Edge) bool { return e.Props["w"] == w }, "src", "dst", "rank")})
		es := sp.g.EdgeList("e1")
		ts := i64(es[rng.Intn(len(es))].Props["ts"])
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON e1 WHERE e1.ts >= %d AND e1.ts < %d YIELD src(edge), dst(edge), e1.w, e1.ts", ts, ts+1000000),
			want: sp.lookupEdges("e1", func(e *oracle.Edge) bool { x := i64(e.Props["ts"]); return x >= ts && x < ts+1000000 }, "src", "dst", "w", "ts")})
	}
	qs = append(qs,
		realQuery{stmt: "LOOKUP ON user WHERE user.grp == 2 AND user.outdeg > 50 YIELD id(vertex), user.outdeg",
			want: sp.lookupVertices(func(p map[string]any) bool { return p["grp"] == int64(2) && i64(p["outdeg"]) > 50 }, "id", "outdeg")},
		realQuery{stmt: "LOOKUP ON user WHERE user.grp < 1 OR user.grp > 5 YIELD id(vertex), user.grp",
			want: sp.lookupVertices(func(p map[string]any) bool { return i64(p["grp"]) < 1 || i64(p["grp"]) > 5 }, "id", "grp")},
		realQuery{stmt: "LOOKUP ON user WHERE user.grp == 4",
			want: sp.lookupVertices(func(p map[string]any) bool { return p["grp"] == int64(4) }, "id")},
		realQuery{stmt: `LOOKUP ON e2 WHERE e2.w > 40 AND e2.kind == "foe" YIELD src(edge), dst(edge), e2.w`,
			want: sp.lookupEdges("e2", func(e *oracle.Edge) bool { return i64(e.Props["w"]) > 40 && e.Props["kind"] == "foe" }, "src", "dst", "w")},
	)
	// LOOKUP piped into GO.
	grp := int64(rng.Intn(7))
	var want [][]any
	for _, v := range sp.g.VerticesWith("user") {
		if sp.g.Tag(v, "user")["grp"] == grp {
			for _, r := range sp.g.Go([]oracle.Vid{v}, 1, 1, []string{"e2"}, oracle.Out) {
				want = append(want, []any{v, r.Edge.Dst})
			}
		}
	}
	qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON user WHERE user.grp == %d YIELD id(vertex) AS id | GO FROM $-.id OVER e2 YIELD $-.id, dst(edge)", grp), want: renderCells(want)})
	return qs
}

func ldbcLookups(sp *realSpace, rng *rand.Rand) []realQuery {
	i64 := func(x any) int64 { return x.(int64) }
	const year = 365 * 86400000
	var qs []realQuery
	for k := 0; k < 3; k++ {
		p := sp.randomTagged(rng)
		name := p["firstName"].(string)
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON Person WHERE Person.firstName == %s YIELD id(vertex), Person.lastName", quote(name)),
			want: sp.lookupVertices(func(p map[string]any) bool { return p["firstName"] == name }, "id", "lastName")})
		bd := i64(p["birthday"])
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON Person WHERE Person.birthday >= %d AND Person.birthday < %d YIELD id(vertex), Person.firstName, Person.birthday", bd-year, bd+year),
			want: sp.lookupVertices(func(p map[string]any) bool { x := i64(p["birthday"]); return x >= bd-year && x < bd+year }, "id", "firstName", "birthday")})
		es := sp.g.EdgeList("knows")
		cd := i64(es[rng.Intn(len(es))].Props["creationDate"])
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON knows WHERE knows.creationDate > %d AND knows.creationDate < %d YIELD src(edge), dst(edge), rank(edge), knows.creationDate", cd-20*86400000, cd+20*86400000),
			want: sp.lookupEdges("knows", func(e *oracle.Edge) bool {
				x := i64(e.Props["creationDate"])
				return x > cd-20*86400000 && x < cd+20*86400000
			}, "src", "dst", "rank", "creationDate")})
		qs = append(qs, realQuery{stmt: fmt.Sprintf("LOOKUP ON knows WHERE knows.creationDate == %d", cd),
			want: sp.lookupEdges("knows", func(e *oracle.Edge) bool { return e.Props["creationDate"] == cd }, "src", "dst", "rank")})
	}
	qs = append(qs,
		realQuery{stmt: `LOOKUP ON Person WHERE Person.firstName > "K" AND Person.firstName < "M" YIELD Person.firstName, Person.gender`,
			want: sp.lookupVertices(func(p map[string]any) bool { n := p["firstName"].(string); return n > "K" && n < "M" }, "firstName", "gender")},
		realQuery{stmt: fmt.Sprintf(`LOOKUP ON Person WHERE Person.birthday > %d AND Person.gender == "male" YIELD id(vertex)`, sp.tagNumMid),
			want: sp.lookupVertices(func(p map[string]any) bool { return i64(p["birthday"]) > sp.tagNumMid && p["gender"] == "male" }, "id")},
	)
	return qs
}

// --- FIND PATH -----------------------------------------------------------------

func checkRealPaths(c *realChecker, sp *realSpace, rng *rand.Rand) {
	pick := func() (string, []string, realPathFilter) {
		f := sp.pathFilters[rng.Intn(len(sp.pathFilters))]
		over := sp.overs[rng.Intn(len(sp.overs))]
		for _, typ := range f.types {
			if over != nil && !slices.Contains(over, typ) {
				over = nil // OVER * has every type the filter names
			}
		}
		return overText(over), sp.overTypes(over), f
	}
	withProp := func(q int) (string, bool) {
		if q%4 == 3 {
			return "WITH PROP ", true
		}
		return "", false
	}
	check := func(stmt string, want []oracle.Path, prop bool) {
		if c.tooLarge(len(want)) {
			return
		}
		if rs := c.run(stmt); rs != nil {
			c.compare(stmt, render(rs), oraclePaths(sp.g, want, prop), false)
		}
	}
	randomVid := func() int64 { return sp.vids[rng.Intn(len(sp.vids))] }

	// SHORTEST between sampled sources (the hub among them) and random
	// targets, in every direction, with and without filters.
	for q := 0; q < 9; q++ {
		d := pathDirs[q%3]
		over, types, f := pick()
		from := []int64{sp.sample[rng.Intn(len(sp.sample))]}
		if q%4 == 0 {
			from = []int64{sp.hub}
		}
		if rng.Intn(3) == 0 {
			from = append(from, randomVid())
		}
		to := []int64{randomVid()}
		for k := rng.Intn(3); k > 0; k-- {
			to = append(to, randomVid())
		}
		upto := 3 + rng.Intn(3)
		prop, wp := withProp(q)
		stmt := fmt.Sprintf("FIND SHORTEST PATH %sFROM %s TO %s OVER %s %s %s UPTO %d STEPS YIELD path AS p", prop, vidList(from), vidList(to), over, d.kw, f.where, upto)
		check(stmt, sp.g.ShortestPaths(asVids(from), asVids(to), types, d.dir, upto, f.keep), wp)
	}
	// ALL and NOLOOP UPTO 3 STEPS between bounded pairs: a source of low
	// degree and targets it reaches in 2–3 hops, re-picked while the
	// reference has more than 500 paths.
	for q := 0; q < 10; q++ {
		kind := []string{"ALL", "NOLOOP"}[q%2]
		d := pathDirs[(q/2)%3]
		over, types, f := pick()
		prop, wp := withProp(q)
		var stmt string
		var want []oracle.Path
		for try := 0; try < 8; try++ {
			s := randomVid()
			if sp.g.Degree(s, types, d.dir) > 12 {
				continue
			}
			reach := sp.g.Go([]oracle.Vid{s}, 2, 3, types, d.dir)
			to := []int64{randomVid()}
			if len(reach) > 0 {
				to = []int64{reach[rng.Intn(len(reach))].To.(int64)}
			}
			if rng.Intn(3) == 0 {
				to = append(to, s) // cycles back to the source
			}
			want = sp.g.AllPaths([]oracle.Vid{s}, asVids(to), types, d.dir, 3, kind == "NOLOOP", f.keep)
			stmt = fmt.Sprintf("FIND %s PATH %sFROM %d TO %s OVER %s %s %s UPTO 3 STEPS YIELD path AS p", kind, prop, s, vidList(to), over, d.kw, f.where)
			if len(want) <= 500 {
				break
			}
		}
		if stmt != "" {
			check(stmt, want, wp)
		}
	}
	// Targets from a pipe and from a variable.
	for q := 0; q < 2; q++ {
		s := sp.sample[1+rng.Intn(len(sp.sample)-1)]
		var to []oracle.Vid
		for _, r := range sp.g.Go([]oracle.Vid{s}, 2, 2, sp.types[:1], oracle.Out) {
			to = append(to, r.To)
		}
		stmt := fmt.Sprintf("GO 2 STEPS FROM %d OVER %s YIELD dst(edge) AS d | FIND SHORTEST PATH FROM %d TO $-.d OVER * BIDIRECT UPTO 3 STEPS YIELD path AS p", s, sp.types[0], s)
		check(stmt, sp.g.ShortestPaths([]oracle.Vid{s}, to, sp.types, oracle.Both, 3, nil), false)
		to = nil
		for _, r := range sp.g.Go([]oracle.Vid{s}, 1, 1, sp.types, oracle.In) {
			to = append(to, r.To)
		}
		stmt = fmt.Sprintf("$t = GO FROM %d OVER * REVERSELY YIELD src(edge) AS d; FIND NOLOOP PATH FROM %d TO $t.d OVER * UPTO 2 STEPS YIELD path AS p", s, s)
		check(stmt, sp.g.AllPaths([]oracle.Vid{s}, to, sp.types, oracle.Out, 2, true, nil), false)
	}
}

// --- GET SUBGRAPH ----------------------------------------------------------------

func checkRealSubgraph(c *realChecker, sp *realSpace, rng *rand.Rand) {
	q := 0
	for round := 0; round < 2; round++ {
		for i, cl := range sp.subgraphClauses {
			steps := 2 // brief: 2 STEPS; a second round tries 1 and 3 too
			if round == 1 {
				steps = 1 + 2*(i%2)
			}
			from := []int64{sp.sample[1+rng.Intn(len(sp.sample)-1)]}
			if q%5 == 0 {
				from = []int64{sp.hub}
			}
			if rng.Intn(3) == 0 {
				from = append(from, sp.sample[rng.Intn(len(sp.sample))])
			}
			prop, wp := "", q%3 == 1
			if wp {
				prop = "WITH PROP "
			}
			q++
			stmt := fmt.Sprintf("GET SUBGRAPH %s%d STEPS FROM %s %s YIELD VERTICES AS nodes, EDGES AS relationships", prop, steps, vidList(from), cl.text)
			want := oracleSubgraph(sp.g, sp.g.Subgraph(asVids(from), steps, cl.dirs), wp)
			if rs := c.run(stmt); rs != nil {
				c.compare(stmt, renderSubgraph(c.t, rs), want, true)
			}
		}
	}
}
