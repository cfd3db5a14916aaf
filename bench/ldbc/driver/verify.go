package driver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/novagraph/novagraph/client"
)

// Verification (`nova-bench verify`): does an imported space answer like
// the files it was imported from? Expect* build the expectation from the
// files exactly as the importer writes them (LDBC: every knows row a|b|d
// as a->b and b->a, both with creationDate d; SNAP: every line src dst as
// src->dst, and dst->src with Undirected), and Verify samples vertices and
// compares, per vertex, what graphd returns with it:
//
//   - the out-neighbours, GO FROM ids OVER e YIELD id($^), id($$)[, e.prop],
//     as a multiset: every stored edge once, nothing more, nothing less,
//     and the edge property of each (LDBC: knows.creationDate);
//   - the in-neighbours, the same GO ... REVERSELY (the mirrored in-edges);
//   - the vertex: FETCH PROP ON tag ids YIELD id(vertex)[, props] (LDBC:
//     Person.firstName, lastName, birthday against person_*.csv; SNAP: that
//     the vertex exists with the tag);
//   - with Counts, the totals over every vertex of the files: vertices with
//     the tag, out-edges and in-edges, counted by graphd in batches.

// Neighbour is one edge as seen from the vertex it is listed under: the
// vertex at its other end and its property (0 when the edge type has
// none).
type Neighbour struct {
	ID   int64
	Prop int64
}

// halfEdge is an entry of an adjacency list: the edge From->To (out) or,
// in the in-list, the edge To->From listed under From.
type halfEdge struct {
	From, To, Prop int64
}

// Expectation is what a space imported from some files must answer.
type Expectation struct {
	Source string
	// Tag and Edge are the schema names; EdgeProp is the edge property
	// compared per edge ("" for none); TagProps are the tag properties
	// compared per vertex (LDBC: firstName, lastName, birthday).
	Tag, Edge, EdgeProp string
	TagProps            []string
	// Vertices are every vertex of the files, ascending: the population
	// Verify samples from.
	Vertices []int64
	// TagVertices is how many of them carry Tag.
	TagVertices int64

	// Sampled, when set, are the only vertices whose edges and properties
	// the expectation holds (ExpectLDBCSample): Verify checks exactly them.
	// Nil: it holds every vertex's, and Verify samples.
	Sampled []int64

	out, in  []halfEdge // sorted by (From, To), one entry per stored edge (with Sampled: per edge at a sampled vertex)
	outEdges int64      // directed edges the space must hold
	persons  map[int64]Person
}

// OutEdges is the number of directed edges the space must hold (and of
// in-edges: each is listed under both ends).
func (x *Expectation) OutEdges() int64 { return x.outEdges }

// Out returns the expected out-neighbours of v, ascending by ID.
func (x *Expectation) Out(v int64) []Neighbour { return neighbours(x.out, v) }

// In returns the expected in-neighbours of v (the sources of its
// in-edges), ascending by ID.
func (x *Expectation) In(v int64) []Neighbour { return neighbours(x.in, v) }

func neighbours(adj []halfEdge, v int64) []Neighbour {
	lo, _ := slices.BinarySearchFunc(adj, v, func(e halfEdge, v int64) int { return cmpInt(e.From, v) })
	var out []Neighbour
	for i := lo; i < len(adj) && adj[i].From == v; i++ {
		out = append(out, Neighbour{ID: adj[i].To, Prop: adj[i].Prop})
	}
	return out
}

// newExpectation sorts the directed edges (in file order) by (From, To),
// keeps the last row of a duplicate pair (a later write of the same edge
// key overwrites an earlier one), and derives the in-lists.
func newExpectation(edges []halfEdge) (out, in []halfEdge) {
	slices.SortStableFunc(edges, func(a, b halfEdge) int {
		if c := cmpInt(a.From, b.From); c != 0 {
			return c
		}
		return cmpInt(a.To, b.To)
	})
	out = edges[:0]
	for i, e := range edges {
		if i+1 < len(edges) && edges[i+1].From == e.From && edges[i+1].To == e.To {
			continue // a later duplicate follows: it wins
		}
		out = append(out, e)
	}
	in = make([]halfEdge, len(out))
	for i, e := range out {
		in[i] = halfEdge{From: e.To, To: e.From, Prop: e.Prop}
	}
	slices.SortFunc(in, func(a, b halfEdge) int {
		if c := cmpInt(a.From, b.From); c != 0 {
			return c
		}
		return cmpInt(a.To, b.To)
	})
	return out, in
}

// ExpectLDBC reads an LDBC CsvComposite directory (every person_<i>_<j>.csv
// and person_knows_person_<i>_<j>.csv shard, plain or gzipped) as the
// importer's --ldbc preset stores it: TAG Person, EDGE knows(creationDate)
// with every row a|b|d as a->b and b->a.
func ExpectLDBC(dir string) (*Expectation, error) {
	persons, err := ReadLDBCPersons(dir, 0)
	if err != nil {
		return nil, err
	}
	knows, err := ReadLDBCKnows(dir)
	if err != nil {
		return nil, err
	}
	return ExpectLDBCRows(dir, persons, knows), nil
}

// ExpectLDBCRows is ExpectLDBC on rows already read: persons as the Person
// vertices, every knows row in both directions.
func ExpectLDBCRows(source string, persons []Person, knows []Knows) *Expectation {
	x := &Expectation{Source: source, Tag: "Person", Edge: "knows", EdgeProp: "creationDate",
		TagProps: []string{"firstName", "lastName", "birthday"}, persons: make(map[int64]Person, len(persons))}
	vs := make([]int64, 0, len(persons)+2*len(knows))
	for _, p := range persons {
		x.persons[p.ID] = p // a later row of the same id overwrites
		vs = append(vs, p.ID)
	}
	edges := make([]halfEdge, 0, 2*len(knows))
	for _, k := range knows {
		edges = append(edges, halfEdge{k.Src, k.Dst, k.CreationDate}, halfEdge{k.Dst, k.Src, k.CreationDate})
		vs = append(vs, k.Src, k.Dst)
	}
	x.out, x.in = newExpectation(edges)
	x.outEdges = int64(len(x.out))
	slices.Sort(vs)
	x.Vertices = slices.Compact(vs)
	x.TagVertices = int64(len(x.persons))
	return x
}

// ExpectLDBCSample is ExpectLDBC for graphs too large to hold: it keeps
// the edges and properties of the sample Verify checks only
// (SampleDistinct(Vertices, sample, seed), in Sampled; sample > 0) and the
// totals. It counts the knows files' lines, then reads them twice.
// ExpectLDBC holds 24 bytes per directed edge twice over, 23 GB at
// SF1000's 490 M; this holds 8 bytes per knows row for the count of
// distinct edges (2 GB at SF1000), only during the first read. Both read
// the same answer for the vertices they hold.
func ExpectLDBCSample(dir string, sample int, seed int64) (*Expectation, error) {
	x := &Expectation{Source: dir, Tag: "Person", Edge: "knows", EdgeProp: "creationDate",
		TagProps: []string{"firstName", "lastName", "birthday"}}
	var personIDs []int64
	if err := forEachLDBCPerson(dir, func(p Person) error {
		personIDs = append(personIDs, p.ID)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.Sort(personIDs)
	personIDs = slices.Compact(personIDs)
	x.TagVertices = int64(len(personIDs))

	// First read: the vertices, and the distinct edges. Every vertex gets a
	// dense index (persons by rank, others in order of appearance), and a
	// knows row a|b becomes the pair of its ends' indexes, smaller first,
	// packed in one word: a row and a later one of the same pair, either
	// way round, store the same directed edges, a->b and b->a (a self-loop
	// one, a->a).
	others := map[int64]uint64{}
	index := func(v int64) uint64 {
		if i, ok := slices.BinarySearch(personIDs, v); ok {
			return uint64(i)
		}
		i, ok := others[v]
		if !ok {
			i = uint64(len(personIDs) + len(others))
			others[v] = i
		}
		return i
	}
	rows, err := countLDBCRows(dir, "person_knows_person_")
	if err != nil {
		return nil, err
	}
	pairs := make([]uint64, 0, rows)
	if err := forEachLDBCKnows(dir, func(k Knows) error {
		a, b := index(k.Src), index(k.Dst)
		if a > b {
			a, b = b, a
		}
		if b >= 1<<32 {
			return fmt.Errorf("%s: more than 2^32 vertices", dir)
		}
		pairs = append(pairs, a<<32|b)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.Sort(pairs)
	for i, p := range pairs {
		switch {
		case i > 0 && pairs[i-1] == p:
		case p>>32 == p&(1<<32-1):
			x.outEdges++ // a->a
		default:
			x.outEdges += 2
		}
	}
	pairs = nil
	x.Vertices = slices.Grow(personIDs, len(others))
	for v := range others {
		x.Vertices = append(x.Vertices, v)
	}
	slices.Sort(x.Vertices)
	x.Sampled = SampleDistinct(x.Vertices, sample, seed)

	// Second read: the directed edges with a sampled end, in file order.
	// All rows of one pair are kept or none, so the last still wins; the
	// out-list then holds every out-edge of a sampled vertex, and its
	// mirror, the in-list, every in-edge.
	sampled := make(map[int64]bool, len(x.Sampled))
	for _, v := range x.Sampled {
		sampled[v] = true
	}
	var edges []halfEdge
	if err := forEachLDBCKnows(dir, func(k Knows) error {
		if sampled[k.Src] || sampled[k.Dst] {
			edges = append(edges, halfEdge{k.Src, k.Dst, k.CreationDate}, halfEdge{k.Dst, k.Src, k.CreationDate})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	x.out, x.in = newExpectation(edges)
	x.persons = map[int64]Person{}
	if err := forEachLDBCPerson(dir, func(p Person) error {
		if sampled[p.ID] {
			x.persons[p.ID] = p // a later row of the same id overwrites
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return x, nil
}

// ExpectSNAP reads a SNAP edge list (LoadSNAP) as the importer's --snap
// preset stores it: TAG node() on every vertex, EDGE link() src->dst (and
// dst->src with Undirected); tag and edge override the names.
func ExpectSNAP(path string, opts SNAPOptions, tag, edge string) (*Expectation, error) {
	g, err := LoadSNAP(path, opts)
	if err != nil {
		return nil, err
	}
	return expectGraph(g, tag, edge), nil
}

func expectGraph(g *Graph, tag, edge string) *Expectation {
	s := SNAPSchema(tag, edge)
	x := &Expectation{Source: g.Source, Tag: s.Tag, Edge: s.Edge, Vertices: g.Vertices, TagVertices: int64(len(g.Vertices))}
	edges := make([]halfEdge, len(g.Edges))
	for i, e := range g.Edges {
		edges[i] = halfEdge{From: e.Src, To: e.Dst}
	}
	x.out, x.in = newExpectation(edges)
	x.outEdges = int64(len(x.out))
	return x
}

// PropDiff is an edge whose property differs.
type PropDiff struct {
	ID        int64
	Want, Got int64
}

// NeighbourDiff is how a vertex's neighbours in the space differ from the
// files'.
type NeighbourDiff struct {
	Want, Got  int         // neighbours expected, rows returned
	Missing    []Neighbour // expected, not returned
	Unexpected []Neighbour // returned, not expected
	Duplicates []int64     // returned more than once (once per extra row)
	Props      []PropDiff  // returned with another property value
}

// Empty reports whether the neighbours match.
func (d NeighbourDiff) Empty() bool {
	return len(d.Missing)+len(d.Unexpected)+len(d.Duplicates)+len(d.Props) == 0
}

func (d NeighbourDiff) String() string {
	const show = 8
	var parts []string
	list := func(what string, n int, item func(i int) string) {
		if n == 0 {
			return
		}
		var items []string
		for i := range min(n, show) {
			items = append(items, item(i))
		}
		if n > show {
			items = append(items, fmt.Sprintf("… %d more", n-show))
		}
		parts = append(parts, fmt.Sprintf("%s %d [%s]", what, n, strings.Join(items, " ")))
	}
	nb := func(ns []Neighbour, withProp bool) func(int) string {
		return func(i int) string {
			if withProp {
				return fmt.Sprintf("%d(%d)", ns[i].ID, ns[i].Prop)
			}
			return strconv.FormatInt(ns[i].ID, 10)
		}
	}
	withProp := false
	for _, n := range append(slices.Clone(d.Missing), d.Unexpected...) {
		if n.Prop != 0 {
			withProp = true
		}
	}
	list("missing", len(d.Missing), nb(d.Missing, withProp))
	list("unexpected", len(d.Unexpected), nb(d.Unexpected, withProp))
	list("duplicated", len(d.Duplicates), func(i int) string { return strconv.FormatInt(d.Duplicates[i], 10) })
	list("property differs", len(d.Props), func(i int) string {
		return fmt.Sprintf("%d(want %d, got %d)", d.Props[i].ID, d.Props[i].Want, d.Props[i].Got)
	})
	return fmt.Sprintf("want %d, got %d rows: %s", d.Want, d.Got, strings.Join(parts, "; "))
}

// CompareNeighbours compares the rows a space returned for one vertex
// (got, any order, possibly with repeats) with the expected neighbours
// (want: one per ID). The comparison is of multisets: an ID returned twice
// is a duplicate even though it is expected once. withProp compares the
// edge property too.
func CompareNeighbours(want, got []Neighbour, withProp bool) NeighbourDiff {
	d := NeighbourDiff{Want: len(want), Got: len(got)}
	byID := func(a, b Neighbour) int {
		if c := cmpInt(a.ID, b.ID); c != 0 {
			return c
		}
		return cmpInt(a.Prop, b.Prop)
	}
	w := slices.Clone(want)
	slices.SortFunc(w, byID)
	g := slices.Clone(got)
	slices.SortFunc(g, byID)
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case j == len(g) || i < len(w) && w[i].ID < g[j].ID:
			d.Missing = append(d.Missing, w[i])
			i++
		case i == len(w) || g[j].ID < w[i].ID:
			d.Unexpected = append(d.Unexpected, g[j])
			j++
		default: // same ID: the first row of it matches the expected edge
			id, prop := g[j].ID, w[i].Prop
			diff := withProp && g[j].Prop != prop
			gotProp := g[j].Prop
			j++
			for ; j < len(g) && g[j].ID == id; j++ {
				d.Duplicates = append(d.Duplicates, id)
				if withProp && g[j].Prop == prop {
					diff = false // one of the copies has the right value
				}
			}
			if diff {
				d.Props = append(d.Props, PropDiff{ID: id, Want: prop, Got: gotProp})
			}
			i++
		}
	}
	return d
}

// ComparePerson compares the properties FETCH returned for a Person
// (firstName, lastName, birthday, in that order) with the file's row,
// and returns the differing ones as "prop: want X, got Y".
func ComparePerson(want Person, got []any) []string {
	var diffs []string
	check := func(name string, w, g any) {
		if w != g {
			diffs = append(diffs, fmt.Sprintf("%s: want %#v, got %#v", name, w, g))
		}
	}
	if len(got) != 3 {
		return []string{fmt.Sprintf("want 3 properties (firstName, lastName, birthday), got %d: %v", len(got), got)}
	}
	check("firstName", want.FirstName, got[0])
	check("lastName", want.LastName, got[1])
	check("birthday", want.Birthday, got[2])
	return diffs
}

// Querier runs one statement and returns its rows, each cell as
// client.Row.Value returns it (int64 for ints, string, nil for NULL, …).
type Querier interface {
	Query(ctx context.Context, stmt string) ([][]any, error)
}

// SessionQuerier is a Querier on a graphd session that has USEd the space.
type SessionQuerier struct{ Session *client.Session }

// Query implements Querier.
func (q SessionQuerier) Query(ctx context.Context, stmt string) ([][]any, error) {
	rs, err := q.Session.Execute(ctx, stmt)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, rs.Len())
	for i := range rows {
		r := rs.Row(i)
		rows[i] = make([]any, r.Len())
		for j := range rows[i] {
			rows[i][j] = r.Value(j)
		}
	}
	return rows, nil
}

// VerifyOptions shape a verification.
type VerifyOptions struct {
	Sample     int   // vertices sampled (distinct, uniform); default 500; an expectation with Sampled brings its own
	Seed       int64 // sampling seed
	Batch      int   // ids per GO / FETCH statement of the per-vertex checks; default 100
	Counts     bool  // also compare the totals over every vertex
	CountBatch int   // ids per statement of the totals; default 1000
	// MaxMismatches caps the mismatches kept (all are counted); default 100.
	MaxMismatches int
	// Timeout bounds one statement (default 2 minutes); Retries is how many
	// times a failed statement is retried (default 2), RetryWait apart
	// (default a second).
	Timeout   time.Duration
	Retries   int
	RetryWait time.Duration
	// Progress, if set, is called with a line per phase.
	Progress func(string)
}

func (o *VerifyOptions) defaults() {
	if o.Sample <= 0 {
		o.Sample = 500
	}
	if o.Batch <= 0 {
		o.Batch = 100
	}
	if o.CountBatch <= 0 {
		o.CountBatch = 1000
	}
	if o.MaxMismatches <= 0 {
		o.MaxMismatches = 100
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Retries == 0 {
		o.Retries = 2
	}
	if o.RetryWait <= 0 {
		o.RetryWait = time.Second
	}
}

// Mismatch is one difference between the space and the files.
type Mismatch struct {
	Vertex int64  // 0 for a total
	What   string // out-edges, in-edges, vertex, count
	Detail string // expected vs got
}

func (m Mismatch) String() string {
	if m.What == "count" {
		return "count: " + m.Detail
	}
	return fmt.Sprintf("vertex %d: %s: %s", m.Vertex, m.What, m.Detail)
}

// CountCheck is one total compared.
type CountCheck struct {
	What      string
	Want, Got int64
}

// VerifyResult is the outcome of Verify.
type VerifyResult struct {
	Source        string
	Sampled       int
	OutEdges      int64 // expected out-edges of the sampled vertices, compared
	InEdges       int64 // expected in-edges of the sampled vertices, compared
	EdgeProps     int64 // edge property values compared (out and in)
	TagRows       int64 // vertices compared with FETCH
	TagProps      int64 // tag property values compared
	Counts        []CountCheck
	Statements    int
	Retries       int
	MismatchCount int
	Mismatches    []Mismatch // the first MaxMismatches
	Elapsed       time.Duration
	maxMismatches int
}

// OK reports whether nothing differed.
func (r *VerifyResult) OK() bool { return r.MismatchCount == 0 }

func (r *VerifyResult) add(m Mismatch) {
	r.MismatchCount++
	if len(r.Mismatches) < r.maxMismatches {
		r.Mismatches = append(r.Mismatches, m)
	}
}

// Summary is one line: what was compared and the verdict.
func (r *VerifyResult) Summary(space string) string {
	var b strings.Builder
	verdict := "OK"
	if !r.OK() {
		verdict = fmt.Sprintf("MISMATCH (%d)", r.MismatchCount)
	}
	fmt.Fprintf(&b, "verify %s against %s: %s; %d sampled vertices: %d out-edges, %d in-edges, %d edge property values, %d vertices (%d tag property values)",
		space, r.Source, verdict, r.Sampled, r.OutEdges, r.InEdges, r.EdgeProps, r.TagRows, r.TagProps)
	if len(r.Counts) > 0 {
		var cs []string
		for _, c := range r.Counts {
			rel := "="
			if c.Want != c.Got {
				rel = "!="
			}
			cs = append(cs, fmt.Sprintf("%s %d %s %d", c.What, c.Got, rel, c.Want))
		}
		fmt.Fprintf(&b, "; totals (space vs files): %s", strings.Join(cs, ", "))
	}
	fmt.Fprintf(&b, "; %d statements, %d retries, %v", r.Statements, r.Retries, r.Elapsed.Round(time.Millisecond))
	return b.String()
}

// SampleDistinct draws n distinct elements of population (all of them, in
// a shuffled order, when n >= len) with NewRand(seed): the same seed gives
// the same sample.
func SampleDistinct(population []int64, n int, seed int64) []int64 {
	n = min(n, len(population))
	r := NewRand(seed)
	// A partial Fisher–Yates shuffle over the indexes, with the swaps kept
	// in a map: O(n) memory however large the population.
	swapped := map[int]int{}
	at := func(i int) int {
		if j, ok := swapped[i]; ok {
			return j
		}
		return i
	}
	out := make([]int64, n)
	for i := range n {
		j := i + r.IntN(len(population)-i)
		vi, vj := at(i), at(j)
		swapped[i], swapped[j] = vj, vi
		out[i] = population[vj]
	}
	return out
}

// Verify compares the space q is using with x (see the package comment
// above Neighbour). An error is a failure to ask (a statement failed after
// its retries), not a difference: differences are in the result.
func Verify(ctx context.Context, q Querier, x *Expectation, opts VerifyOptions) (*VerifyResult, error) {
	opts.defaults()
	start := time.Now()
	res := &VerifyResult{Source: x.Source, maxMismatches: opts.MaxMismatches}
	defer func() { res.Elapsed = time.Since(start) }()
	progress := func(format string, a ...any) {
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf(format, a...))
		}
	}
	query := func(stmt string) ([][]any, error) {
		var err error
		for attempt := 0; attempt <= opts.Retries; attempt++ {
			if attempt > 0 {
				res.Retries++
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(opts.RetryWait):
				}
			}
			res.Statements++
			sctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			var rows [][]any
			rows, err = q.Query(sctx, stmt)
			cancel()
			if err == nil {
				return rows, nil
			}
			if ctx.Err() != nil {
				break
			}
		}
		short := stmt
		if len(short) > 160 {
			short = short[:160] + "…"
		}
		return nil, fmt.Errorf("%s: %w", short, err)
	}

	sample := x.Sampled
	if sample == nil {
		sample = SampleDistinct(x.Vertices, opts.Sample, opts.Seed)
	}
	res.Sampled = len(sample)
	progress("checking %d sampled vertices of %d, %d per statement", len(sample), len(x.Vertices), opts.Batch)
	for lo := 0; lo < len(sample); lo += opts.Batch {
		batch := sample[lo:min(lo+opts.Batch, len(sample))]
		for _, dir := range []string{"out-edges", "in-edges"} {
			if err := verifyEdges(res, x, batch, dir, query); err != nil {
				return res, err
			}
		}
		if err := verifyVertices(res, x, batch, query); err != nil {
			return res, err
		}
	}
	if opts.Counts {
		progress("counting every vertex and edge, %d vertices per statement", opts.CountBatch)
		if err := verifyCounts(res, x, opts.CountBatch, query); err != nil {
			return res, err
		}
	}
	return res, nil
}

func idList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// cellInt reads an int cell; NULL and other types are an error.
func cellInt(row []any, j int) (int64, error) {
	if j >= len(row) {
		return 0, fmt.Errorf("row %v has no column %d", row, j)
	}
	v, ok := row[j].(int64)
	if !ok {
		return 0, fmt.Errorf("column %d is %T %v, want an int", j, row[j], row[j])
	}
	return v, nil
}

// verifyEdges runs one GO over batch (dir "out-edges" or "in-edges") and
// compares every vertex's neighbours.
func verifyEdges(res *VerifyResult, x *Expectation, batch []int64, dir string, query func(string) ([][]any, error)) error {
	reverse := dir == "in-edges"
	stmt := fmt.Sprintf("GO FROM %s OVER `%s`", idList(batch), x.Edge)
	if reverse {
		stmt += " REVERSELY"
	}
	stmt += " YIELD id($^) AS s, id($$) AS n"
	if x.EdgeProp != "" {
		stmt += fmt.Sprintf(", `%s`.`%s` AS p", x.Edge, x.EdgeProp)
	}
	rows, err := query(stmt)
	if err != nil {
		return err
	}
	got := make(map[int64][]Neighbour, len(batch))
	inBatch := make(map[int64]bool, len(batch))
	for _, v := range batch {
		inBatch[v] = true
	}
	for _, row := range rows {
		s, err1 := cellInt(row, 0)
		n, err2 := cellInt(row, 1)
		var p int64
		var err3 error
		if x.EdgeProp != "" {
			p, err3 = cellInt(row, 2)
		}
		if err := errors.Join(err1, err2, err3); err != nil {
			res.add(Mismatch{Vertex: s, What: dir, Detail: fmt.Sprintf("malformed row %v: %v", row, err)})
			continue
		}
		if !inBatch[s] {
			res.add(Mismatch{Vertex: s, What: dir, Detail: fmt.Sprintf("row %v starts from a vertex that was not asked for", row)})
			continue
		}
		got[s] = append(got[s], Neighbour{ID: n, Prop: p})
	}
	for _, v := range batch {
		var want []Neighbour
		if reverse {
			want = x.In(v)
			res.InEdges += int64(len(want))
		} else {
			want = x.Out(v)
			res.OutEdges += int64(len(want))
		}
		if x.EdgeProp != "" {
			res.EdgeProps += int64(len(want))
		}
		if d := CompareNeighbours(want, got[v], x.EdgeProp != ""); !d.Empty() {
			res.add(Mismatch{Vertex: v, What: dir, Detail: d.String()})
		}
	}
	return nil
}

// verifyVertices FETCHes the batch's vertices with the tag and compares
// them (and, for LDBC, their properties) with the files.
func verifyVertices(res *VerifyResult, x *Expectation, batch []int64, query func(string) ([][]any, error)) error {
	stmt := fmt.Sprintf("FETCH PROP ON `%s` %s YIELD id(vertex) AS id", x.Tag, idList(batch))
	for _, p := range x.TagProps {
		stmt += fmt.Sprintf(", `%s`.`%s`", x.Tag, p)
	}
	rows, err := query(stmt)
	if err != nil {
		return err
	}
	got := make(map[int64][][]any, len(rows))
	for _, row := range rows {
		id, err := cellInt(row, 0)
		if err != nil {
			res.add(Mismatch{What: "vertex", Detail: fmt.Sprintf("malformed row %v: %v", row, err)})
			continue
		}
		got[id] = append(got[id], row[1:])
	}
	for _, v := range batch {
		want := x.persons == nil // SNAP: every vertex carries the tag
		var p Person
		if x.persons != nil {
			p, want = x.persons[v]
		}
		rows := got[v]
		delete(got, v)
		switch {
		case !want && len(rows) == 0:
			continue
		case !want:
			res.add(Mismatch{Vertex: v, What: "vertex", Detail: fmt.Sprintf("has tag %s (%v), but no row of the files gives it one", x.Tag, rows[0])})
			continue
		case len(rows) == 0:
			res.add(Mismatch{Vertex: v, What: "vertex", Detail: fmt.Sprintf("want a %s vertex, FETCH returned nothing", x.Tag)})
			continue
		case len(rows) > 1:
			res.add(Mismatch{Vertex: v, What: "vertex", Detail: fmt.Sprintf("FETCH returned %d rows: %v", len(rows), rows)})
		}
		res.TagRows++
		if x.persons != nil {
			res.TagProps += int64(len(x.TagProps))
			if diffs := ComparePerson(p, rows[0]); len(diffs) > 0 {
				res.add(Mismatch{Vertex: v, What: "vertex", Detail: strings.Join(diffs, "; ")})
			}
		}
	}
	for id, rows := range got {
		res.add(Mismatch{Vertex: id, What: "vertex", Detail: fmt.Sprintf("FETCH returned a vertex that was not asked for: %v", rows)})
	}
	return nil
}

// verifyCounts counts, over every vertex of the files, the vertices with
// the tag and the out- and in-edges, in batches, each counted by graphd
// (| YIELD count(*)).
func verifyCounts(res *VerifyResult, x *Expectation, batch int, query func(string) ([][]any, error)) error {
	stmts := []struct {
		what, format string
		want         int64
	}{
		{"vertices", "FETCH PROP ON `" + x.Tag + "` %s YIELD id(vertex) AS v | YIELD count(*) AS n", x.TagVertices},
		{"out-edges", "GO FROM %s OVER `" + x.Edge + "` YIELD dst(edge) AS d | YIELD count(*) AS n", x.outEdges},
		{"in-edges", "GO FROM %s OVER `" + x.Edge + "` REVERSELY YIELD src(edge) AS s | YIELD count(*) AS n", x.outEdges},
	}
	for _, s := range stmts {
		var total int64
		for lo := 0; lo < len(x.Vertices); lo += batch {
			rows, err := query(fmt.Sprintf(s.format, idList(x.Vertices[lo:min(lo+batch, len(x.Vertices))])))
			if err != nil {
				return err
			}
			if len(rows) != 1 {
				return fmt.Errorf("counting %s: %d rows, want 1", s.what, len(rows))
			}
			n, err := cellInt(rows[0], 0)
			if err != nil {
				return fmt.Errorf("counting %s: %w", s.what, err)
			}
			total += n
		}
		res.Counts = append(res.Counts, CountCheck{What: s.what, Want: s.want, Got: total})
		if total != s.want {
			res.add(Mismatch{What: "count", Detail: fmt.Sprintf("%s: want %d (files), got %d (space)", s.what, s.want, total)})
		}
	}
	return nil
}
