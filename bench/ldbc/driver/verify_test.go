package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/gen"
)

func nbrs(pairs ...int64) []Neighbour {
	var out []Neighbour
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Neighbour{ID: pairs[i], Prop: pairs[i+1]})
	}
	return out
}

func TestCompareNeighbours(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got []Neighbour
		withProp  bool
		diff      NeighbourDiff
	}{
		{name: "equal, any order", want: nbrs(1, 10, 2, 20, 3, 30), got: nbrs(3, 30, 1, 10, 2, 20), withProp: true,
			diff: NeighbourDiff{Want: 3, Got: 3}},
		{name: "both empty", diff: NeighbourDiff{}},
		{name: "missing", want: nbrs(1, 0, 2, 0, 3, 0), got: nbrs(1, 0, 3, 0),
			diff: NeighbourDiff{Want: 3, Got: 2, Missing: nbrs(2, 0)}},
		{name: "all missing", want: nbrs(1, 0, 2, 0),
			diff: NeighbourDiff{Want: 2, Got: 0, Missing: nbrs(1, 0, 2, 0)}},
		{name: "unexpected", want: nbrs(2, 0), got: nbrs(1, 0, 2, 0, 4, 0),
			diff: NeighbourDiff{Want: 1, Got: 3, Unexpected: nbrs(1, 0, 4, 0)}},
		// A multiset: the right set of ids, one of them twice.
		{name: "duplicate", want: nbrs(1, 0, 2, 0), got: nbrs(2, 0, 1, 0, 2, 0),
			diff: NeighbourDiff{Want: 2, Got: 3, Duplicates: []int64{2}}},
		{name: "triplicate", want: nbrs(5, 0), got: nbrs(5, 0, 5, 0, 5, 0),
			diff: NeighbourDiff{Want: 1, Got: 3, Duplicates: []int64{5, 5}}},
		{name: "property differs", want: nbrs(1, 10, 2, 20), got: nbrs(1, 10, 2, 21), withProp: true,
			diff: NeighbourDiff{Want: 2, Got: 2, Props: []PropDiff{{ID: 2, Want: 20, Got: 21}}}},
		{name: "property ignored", want: nbrs(1, 10, 2, 20), got: nbrs(1, 10, 2, 21),
			diff: NeighbourDiff{Want: 2, Got: 2}},
		{name: "duplicate with one right property", want: nbrs(2, 20), got: nbrs(2, 19, 2, 20), withProp: true,
			diff: NeighbourDiff{Want: 1, Got: 2, Duplicates: []int64{2}}},
		{name: "everything at once", want: nbrs(1, 1, 2, 2, 3, 3), got: nbrs(0, 0, 2, 9, 3, 3, 3, 3), withProp: true,
			diff: NeighbourDiff{Want: 3, Got: 4, Missing: nbrs(1, 1), Unexpected: nbrs(0, 0), Duplicates: []int64{3},
				Props: []PropDiff{{ID: 2, Want: 2, Got: 9}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CompareNeighbours(tc.want, tc.got, tc.withProp)
			if !reflect.DeepEqual(got, tc.diff) {
				t.Fatalf("CompareNeighbours(%v, %v) =\n%+v, want\n%+v", tc.want, tc.got, got, tc.diff)
			}
			if got.Empty() != (len(tc.diff.Missing)+len(tc.diff.Unexpected)+len(tc.diff.Duplicates)+len(tc.diff.Props) == 0) {
				t.Fatalf("Empty() = %v for %+v", got.Empty(), got)
			}
		})
	}
	d := CompareNeighbours(nbrs(1, 5, 2, 6), nbrs(2, 7, 3, 8, 3, 8), true)
	if s := d.String(); s != "want 2, got 3 rows: missing 1 [1(5)]; unexpected 2 [3(8) 3(8)]; property differs 1 [2(want 6, got 7)]" {
		t.Fatalf("String() = %q", s)
	}
}

func TestComparePerson(t *testing.T) {
	p := Person{ID: 1, FirstName: "Ann", LastName: "Lee", Birthday: 628646400000}
	if d := ComparePerson(p, []any{"Ann", "Lee", int64(628646400000)}); len(d) != 0 {
		t.Fatalf("equal person: %v", d)
	}
	d := ComparePerson(p, []any{"Ann", "Li", nil})
	if want := []string{`lastName: want "Lee", got "Li"`, `birthday: want 628646400000, got <nil>`}; !reflect.DeepEqual(d, want) {
		t.Fatalf("got %q, want %q", d, want)
	}
	if d := ComparePerson(p, []any{"Ann"}); len(d) != 1 || !strings.Contains(d[0], "want 3 properties") {
		t.Fatalf("short row: %v", d)
	}
}

func TestSampleDistinct(t *testing.T) {
	pop := make([]int64, 1000)
	for i := range pop {
		pop[i] = int64(i) * 7
	}
	a := SampleDistinct(pop, 300, 1)
	if len(a) != 300 {
		t.Fatalf("%d ids", len(a))
	}
	seen := map[int64]bool{}
	for _, v := range a {
		if seen[v] || v%7 != 0 || v < 0 || v >= 7000 {
			t.Fatalf("%d: repeated or not in the population", v)
		}
		seen[v] = true
	}
	if b := SampleDistinct(pop, 300, 1); !slices.Equal(a, b) {
		t.Fatal("the same seed gave another sample")
	}
	if c := SampleDistinct(pop, 300, 2); slices.Equal(a, c) {
		t.Fatal("another seed gave the same sample")
	}
	all := SampleDistinct(pop, 5000, 3)
	slices.Sort(all)
	if !slices.Equal(all, pop) {
		t.Fatal("n >= population: want every element once")
	}
	// Uniform: over many seeds each element is drawn about n/len of the time.
	counts := make([]int, 10)
	small := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for seed := range int64(20000) {
		for _, v := range SampleDistinct(small, 3, seed) {
			counts[v]++
		}
	}
	for v, c := range counts {
		if c < 5400 || c > 6600 { // expectation 6000
			t.Fatalf("element %d drawn %d times of 60000, want about 6000: %v", v, c, counts)
		}
	}
}

// ldbcFixture: persons 1..4 (5 has edges but no person row), knows rows
// 1|2|100, 1|3|200, 2|3|300, 3|5|500, and 2|1|150 repeating the pair 1-2
// the other way round (the later row wins for both directions).
func ldbcFixture() *Expectation {
	persons := []Person{
		{ID: 1, FirstName: "A", LastName: "One", Birthday: 11},
		{ID: 2, FirstName: "B", LastName: "Two", Birthday: 22},
		{ID: 3, FirstName: "C", LastName: "Three", Birthday: 33},
		{ID: 4, FirstName: "D", LastName: "Four", Birthday: 44},
	}
	knows := []Knows{{1, 2, 100}, {1, 3, 200}, {2, 3, 300}, {3, 5, 500}, {2, 1, 150}}
	return ExpectLDBCRows("fixture", persons, knows)
}

func TestExpectLDBC(t *testing.T) {
	x := ldbcFixture()
	if !slices.Equal(x.Vertices, []int64{1, 2, 3, 4, 5}) || x.TagVertices != 4 || x.OutEdges() != 8 {
		t.Fatalf("vertices %v, tagged %d, edges %d", x.Vertices, x.TagVertices, x.OutEdges())
	}
	for _, tc := range []struct {
		v       int64
		out, in []Neighbour
	}{
		{1, nbrs(2, 150, 3, 200), nbrs(2, 150, 3, 200)},
		{2, nbrs(1, 150, 3, 300), nbrs(1, 150, 3, 300)},
		{3, nbrs(1, 200, 2, 300, 5, 500), nbrs(1, 200, 2, 300, 5, 500)},
		{4, nil, nil},
		{5, nbrs(3, 500), nbrs(3, 500)},
	} {
		if got := x.Out(tc.v); !slices.Equal(got, tc.out) {
			t.Errorf("Out(%d) = %v, want %v", tc.v, got, tc.out)
		}
		if got := x.In(tc.v); !slices.Equal(got, tc.in) {
			t.Errorf("In(%d) = %v, want %v", tc.v, got, tc.in)
		}
	}
}

func TestExpectSNAP(t *testing.T) {
	// Directed, with a duplicate line and a self-loop.
	g, err := ReadSNAP(strings.NewReader("# c\n1\t2\n1\t2\n2\t3\n3\t3\n"), "snap", SNAPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := expectGraph(g, "", "")
	if x.Tag != "node" || x.Edge != "link" || x.EdgeProp != "" || x.TagVertices != 3 || x.OutEdges() != 3 {
		t.Fatalf("%+v", x)
	}
	if !slices.Equal(x.Out(1), nbrs(2, 0)) || x.In(1) != nil || !slices.Equal(x.In(2), nbrs(1, 0)) ||
		!slices.Equal(x.Out(3), nbrs(3, 0)) || !slices.Equal(x.In(3), nbrs(2, 0, 3, 0)) {
		t.Fatalf("out %v %v %v, in %v %v %v", x.Out(1), x.Out(2), x.Out(3), x.In(1), x.In(2), x.In(3))
	}
}

// fakeSpace answers the statements Verify sends from an in-memory copy of
// an Expectation, which a test then damages.
type fakeSpace struct {
	out, in map[int64][]Neighbour
	tagged  map[int64][]any // id -> the yielded tag properties
	fail    int             // fail this many statements first
	stmts   []string
}

func newFakeSpace(x *Expectation) *fakeSpace {
	f := &fakeSpace{out: map[int64][]Neighbour{}, in: map[int64][]Neighbour{}, tagged: map[int64][]any{}}
	for _, v := range x.Vertices {
		f.out[v] = x.Out(v)
		f.in[v] = x.In(v)
		if x.persons == nil {
			f.tagged[v] = []any{}
		} else if p, ok := x.persons[v]; ok {
			f.tagged[v] = []any{p.FirstName, p.LastName, p.Birthday}
		}
	}
	return f
}

var (
	goRE    = regexp.MustCompile("^GO FROM ([-0-9, ]+) OVER `[^`]+`( REVERSELY)? YIELD id\\(\\$\\^\\) AS s, id\\(\\$\\$\\) AS n(, `[^`]+`\\.`[^`]+` AS p)?$")
	fetchRE = regexp.MustCompile("^FETCH PROP ON `[^`]+` ([-0-9, ]+) YIELD id\\(vertex\\) AS id((?:, `[^`]+`\\.`[^`]+`)*)$")
	countRE = regexp.MustCompile("^(GO FROM|FETCH PROP ON `[^`]+`) ([-0-9, ]+) (OVER `[^`]+`( REVERSELY)? )?YIELD [^|]+ \\| YIELD count\\(\\*\\) AS n$")
)

func parseIDs(s string) []int64 {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			panic(err)
		}
		out = append(out, n)
	}
	return out
}

func (f *fakeSpace) Query(_ context.Context, stmt string) ([][]any, error) {
	f.stmts = append(f.stmts, stmt)
	if f.fail > 0 {
		f.fail--
		return nil, errors.New("transient")
	}
	var rows [][]any
	if m := countRE.FindStringSubmatch(stmt); m != nil {
		n := int64(0)
		for _, v := range parseIDs(m[2]) {
			switch {
			case m[1] != "GO FROM":
				if _, ok := f.tagged[v]; ok {
					n++
				}
			case m[4] != "":
				n += int64(len(f.in[v]))
			default:
				n += int64(len(f.out[v]))
			}
		}
		return [][]any{{n}}, nil
	}
	if m := goRE.FindStringSubmatch(stmt); m != nil {
		adj := f.out
		if m[2] != "" {
			adj = f.in
		}
		for _, v := range parseIDs(m[1]) {
			for _, e := range adj[v] {
				row := []any{v, e.ID}
				if m[3] != "" {
					row = append(row, e.Prop)
				}
				rows = append(rows, row)
			}
		}
		return rows, nil
	}
	if m := fetchRE.FindStringSubmatch(stmt); m != nil {
		for _, v := range parseIDs(m[1]) {
			if props, ok := f.tagged[v]; ok {
				rows = append(rows, append([]any{v}, props...))
			}
		}
		return rows, nil
	}
	return nil, fmt.Errorf("fake space: unexpected statement %q", stmt)
}

func TestVerify(t *testing.T) {
	ctx := context.Background()
	all := VerifyOptions{Sample: 100, Batch: 2, Counts: true, CountBatch: 3, RetryWait: time.Millisecond}

	x := ldbcFixture()
	f := newFakeSpace(x)
	res, err := Verify(ctx, f, x, all)
	if err != nil || !res.OK() {
		t.Fatalf("intact space: %v %+v", err, res)
	}
	if res.Sampled != 5 || res.OutEdges != 8 || res.InEdges != 8 || res.EdgeProps != 16 || res.TagRows != 4 || res.TagProps != 12 {
		t.Fatalf("counted %+v", res)
	}
	wantCounts := []CountCheck{{"vertices", 4, 4}, {"out-edges", 8, 8}, {"in-edges", 8, 8}}
	if !reflect.DeepEqual(res.Counts, wantCounts) {
		t.Fatalf("counts %+v", res.Counts)
	}
	// 3 batches × (GO out, GO in, FETCH) + 3 totals × 2 batches.
	if res.Statements != 15 || res.Retries != 0 {
		t.Fatalf("%d statements, %d retries: %q", res.Statements, res.Retries, f.stmts)
	}
	if s := res.Summary("ldbc"); !strings.Contains(s, ": OK;") || !strings.Contains(s, "out-edges 8 = 8") {
		t.Fatalf("summary %q", s)
	}

	// Damage: an in-edge lost (3's mirror of 2->3), a duplicated out-edge,
	// a wrong date, a wrong name, a lost vertex, a tag on 5.
	f = newFakeSpace(x)
	f.in[3] = slices.DeleteFunc(slices.Clone(f.in[3]), func(n Neighbour) bool { return n.ID == 2 })
	f.out[1] = append(f.out[1], Neighbour{ID: 3, Prop: 200})
	f.out[2] = []Neighbour{{1, 150}, {3, 301}}
	f.tagged[2] = []any{"B", "Tw0", int64(22)}
	delete(f.tagged, 4)
	f.tagged[5] = []any{"E", "Five", int64(55)}
	f.fail = 1 // and a transient error, retried
	res, err = Verify(ctx, f, x, VerifyOptions{Sample: 100, Batch: 5, Counts: true, Retries: 1, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Retries != 1 {
		t.Fatalf("%d retries", res.Retries)
	}
	var got []string
	for _, m := range res.Mismatches {
		got = append(got, m.String())
	}
	slices.Sort(got)
	want := []string{
		"count: in-edges: want 8 (files), got 7 (space)",
		"count: out-edges: want 8 (files), got 9 (space)",
		"vertex 1: out-edges: want 2, got 3 rows: duplicated 1 [3]",
		"vertex 2: out-edges: want 2, got 2 rows: property differs 1 [3(want 300, got 301)]",
		`vertex 2: vertex: lastName: want "Two", got "Tw0"`,
		"vertex 3: in-edges: want 3, got 2 rows: missing 1 [2(300)]",
		"vertex 4: vertex: want a Person vertex, FETCH returned nothing",
		`vertex 5: vertex: has tag Person ([E Five 55]), but no row of the files gives it one`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.MismatchCount != len(want) || res.OK() || !strings.Contains(res.Summary("s"), "MISMATCH (8)") {
		t.Fatalf("%d mismatches, summary %q", res.MismatchCount, res.Summary("s"))
	}

	// The sample is a seeded subset; a persistent error stops Verify.
	x2 := ldbcFixture()
	f = newFakeSpace(x2)
	res, err = Verify(ctx, f, x2, VerifyOptions{Sample: 2, Seed: 7, Batch: 100})
	if err != nil || res.Sampled != 2 || res.Statements != 3 || len(res.Counts) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	f.fail = 10
	if _, err := Verify(ctx, f, x2, VerifyOptions{Sample: 2, Retries: 2, RetryWait: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "transient") {
		t.Fatalf("want the persistent error, got %v", err)
	}

	// SNAP: no properties, every vertex tagged.
	g, _ := ReadSNAP(strings.NewReader("1 2\n2 3\n3 1\n3 4\n"), "snap", SNAPOptions{})
	xs := expectGraph(g, "", "")
	fs := newFakeSpace(xs)
	if res, err := Verify(ctx, fs, xs, all); err != nil || !res.OK() || res.EdgeProps != 0 || res.TagRows != 4 || res.TagProps != 0 {
		t.Fatalf("snap: %v %+v", err, res)
	}
	fs.out[3] = nbrs(1, 0)
	res, err = Verify(ctx, fs, xs, VerifyOptions{Sample: 10})
	if err != nil || res.MismatchCount != 1 || res.Mismatches[0].String() != "vertex 3: out-edges: want 2, got 1 rows: missing 1 [4]" {
		t.Fatalf("snap damaged: %v %+v", err, res)
	}
}

// TestExpectLDBCSampleAsExpectLDBC: the streaming expectation holds, for
// the vertices it samples, what the one holding every edge holds, with the
// same totals and the sample Verify would draw, on generated SF0.1 data
// plus a shard with a pair repeated the other way round, a self-loop
// (twice) and an end with no person row. Verify against a space built
// from the full expectation passes with it, and finds a damaged edge.
func TestExpectLDBCSampleAsExpectLDBC(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Generate(context.Background(), gen.Config{ScaleFactor: 0.1, Seed: 5, OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	knows, err := ReadLDBCKnows(dir)
	if err != nil {
		t.Fatal(err)
	}
	k0 := knows[0]
	extra := fmt.Sprintf("Person.id|Person.id|creationDate\n%d|%d|7\n%d|%d|8\n%d|%d|9\n%d|%d|10\n",
		k0.Dst, k0.Src, k0.Src, k0.Src, k0.Src, k0.Src, k0.Dst, int64(1)<<60)
	if err := os.WriteFile(filepath.Join(dir, "person_knows_person_9_0.csv"), []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := ExpectLDBC(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sample int
		seed   int64
	}{{50, 1}, {300, 2}, {1 << 30, 3}} {
		x, err := ExpectLDBCSample(dir, tc.sample, tc.seed)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.Vertices, full.Vertices) || x.TagVertices != full.TagVertices || x.OutEdges() != full.OutEdges() {
			t.Fatalf("sample %d: %d vertices, %d tagged, %d edges; ExpectLDBC: %d, %d, %d", tc.sample,
				len(x.Vertices), x.TagVertices, x.OutEdges(), len(full.Vertices), full.TagVertices, full.OutEdges())
		}
		if want := SampleDistinct(full.Vertices, tc.sample, tc.seed); !slices.Equal(x.Sampled, want) {
			t.Fatalf("sample %d: Sampled is not SampleDistinct's", tc.sample)
		}
		for _, v := range x.Sampled {
			if !slices.Equal(x.Out(v), full.Out(v)) || !slices.Equal(x.In(v), full.In(v)) {
				t.Fatalf("vertex %d: out %v in %v, ExpectLDBC: out %v in %v", v, x.Out(v), x.In(v), full.Out(v), full.In(v))
			}
			if x.persons[v] != full.persons[v] {
				t.Fatalf("vertex %d: person %+v, ExpectLDBC %+v", v, x.persons[v], full.persons[v])
			}
		}
	}
	// The self-loop counts once, the repeated pair not at all: 2 per
	// generated row, 1 for the loop, 2 for the edge to the stranger.
	if want := 2*int64(len(knows)) + 1 + 2; full.OutEdges() != want {
		t.Fatalf("ExpectLDBC has %d edges, want %d", full.OutEdges(), want)
	}

	x, err := ExpectLDBCSample(dir, 200, 4)
	if err != nil {
		t.Fatal(err)
	}
	space := newFakeSpace(full)
	res, err := Verify(context.Background(), space, x, VerifyOptions{Sample: 7, Counts: true})
	if err != nil || !res.OK() || res.Sampled != 200 {
		t.Fatalf("verify: %v, %+v", err, res)
	}
	v := x.Sampled[0]
	space.out[v] = append(space.out[v], Neighbour{ID: -1})
	if res, err := Verify(context.Background(), space, x, VerifyOptions{Counts: true}); err != nil || res.OK() {
		t.Fatalf("verify of a damaged space: %v, OK %v", err, res.OK())
	}
}
