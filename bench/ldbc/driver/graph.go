package driver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Edge is one directed edge as novagraph stores it: an out-edge of Src
// (and, mirrored, an in-edge of Dst).
type Edge struct{ Src, Dst int64 }

// Graph is the data a run samples its inputs from and the floor loads: the
// vertex ids and the directed edges, as the importer writes them. Edges are
// distinct (novagraph keys an edge by src, type, rank 0 and dst, so a
// duplicate line of the input is the same edge) and sorted by (Src, Dst);
// Vertices are distinct and ascending.
//
// A summary graph (LoadLDBCSummary) holds, for a load test that only draws
// inputs, a uniform sample of the edges in Edges, and each vertex's degree
// and the edge count beside them.
type Graph struct {
	Vertices []int64
	Edges    []Edge
	// Source says where the graph was read from, for reports.
	Source string

	degrees  []int64 // summary: out-degree of each of Vertices
	numEdges int64   // summary: the directed edges of the files
}

// Summary reports whether g holds a sample of its edges only
// (LoadLDBCSummary): Out and the floor need them all.
func (g *Graph) Summary() bool { return g.degrees != nil }

// NumEdges is the number of directed edges of the graph (of a summary
// graph too).
func (g *Graph) NumEdges() int64 {
	if g.Summary() {
		return g.numEdges
	}
	return int64(len(g.Edges))
}

// Out returns the out-edges of v (a sub-slice of g.Edges; of a summary
// graph, those in its sample).
func (g *Graph) Out(v int64) []Edge {
	lo, _ := slices.BinarySearchFunc(g.Edges, v, func(e Edge, v int64) int { return cmpInt(e.Src, v) })
	hi := lo
	for hi < len(g.Edges) && g.Edges[hi].Src == v {
		hi++
	}
	return g.Edges[lo:hi]
}

// OutDegree returns the number of out-edges of every vertex, parallel to
// g.Vertices.
func (g *Graph) OutDegree() []int64 {
	if g.Summary() {
		return slices.Clone(g.degrees)
	}
	deg := make([]int64, len(g.Vertices))
	i := 0
	for _, e := range g.Edges {
		for i < len(g.Vertices) && g.Vertices[i] < e.Src {
			i++
		}
		if i < len(g.Vertices) && g.Vertices[i] == e.Src {
			deg[i]++
		}
	}
	return deg
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

// NewGraph builds a Graph from vertices and edges in any order, with
// duplicates: it sorts and dedups both, and adds the endpoints of every
// edge to the vertices.
func NewGraph(source string, vertices []int64, edges []Edge) *Graph {
	vs := slices.Clone(vertices)
	for _, e := range edges {
		vs = append(vs, e.Src, e.Dst)
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	return &Graph{Vertices: vs, Edges: sortEdges(slices.Clone(edges)), Source: source}
}

// Person is one row of LDBC's person_0_0.csv (CsvComposite, dates as epoch
// milliseconds), the properties of the Person tag.
type Person struct {
	ID                                       int64
	FirstName, LastName, Gender              string
	Birthday, CreationDate                   int64
	LocationIP, BrowserUsed, Language, Email string
}

// Knows is one row of LDBC's person_knows_person_0_0.csv: one friendship,
// listed once; the importer stores it as two directed knows edges.
type Knows struct{ Src, Dst, CreationDate int64 }

// LDBC file names in a CsvComposite directory. Sharded output (nova-bench
// gen --shard, Datagen's threads) has person_<i>_<j>.csv and
// person_knows_person_<i>_<j>.csv, gzipped ones end in .gz: the readers
// take every file of the kind, ordered by (i, j), as the importer does.
const (
	LDBCPersonFile = "person_0_0.csv"
	LDBCKnowsFile  = "person_knows_person_0_0.csv"
)

// ldbcFiles returns the files of one LDBC file kind in dir,
// prefix<i>_<j>.csv or prefix<i>_<j>.csv.gz, ordered by (i, j).
func ldbcFiles(dir, prefix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile("^" + regexp.QuoteMeta(prefix) + `(\d+)_(\d+)\.csv(\.gz)?$`)
	type shard struct {
		i, j int
		path string
	}
	var shards []shard
	for _, e := range entries {
		if m := re.FindStringSubmatch(e.Name()); m != nil && !e.IsDir() {
			i, _ := strconv.Atoi(m[1])
			j, _ := strconv.Atoi(m[2])
			shards = append(shards, shard{i, j, filepath.Join(dir, e.Name())})
		}
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("no %s<i>_<j>.csv in %s (an LDBC CsvComposite directory has %s)", prefix, dir, prefix+"0_0.csv")
	}
	slices.SortFunc(shards, func(a, b shard) int {
		if a.i != b.i {
			return a.i - b.i
		}
		return a.j - b.j
	})
	out := make([]string, len(shards))
	for i, s := range shards {
		out[i] = s.path
	}
	return out, nil
}

// ReadLDBCPersons reads dir/person_0_0.csv (and the other shards, see
// LDBCPersonFile): '|'-delimited, with the header
// id|firstName|lastName|gender|birthday|creationDate|locationIP|browserUsed|language|email.
// limit > 0 keeps the first limit rows.
func ReadLDBCPersons(dir string, limit int) ([]Person, error) {
	var out []Person
	err := forEachLDBCPerson(dir, func(p Person) error {
		if limit > 0 && len(out) >= limit {
			return errStop
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEachLDBCPerson calls fn with every person row of dir's shards, in
// file order, holding none of them; fn returning errStop ends the read
// without an error.
func forEachLDBCPerson(dir string, fn func(Person) error) error {
	paths, err := ldbcFiles(dir, "person_")
	if err != nil {
		return err
	}
	stopped := false // readPipeCSV ends one file on errStop; this ends them all
	for _, path := range paths {
		err := readPipeCSV(path, 10, func(line int, f []string) error {
			p := Person{FirstName: f[1], LastName: f[2], Gender: f[3], LocationIP: f[6], BrowserUsed: f[7], Language: f[8], Email: f[9]}
			var err error
			if p.ID, err = strconv.ParseInt(f[0], 10, 64); err != nil {
				return fmt.Errorf("%s:%d: id %q: %w", path, line, f[0], err)
			}
			if p.Birthday, err = strconv.ParseInt(f[4], 10, 64); err != nil {
				return fmt.Errorf("%s:%d: birthday %q: %w", path, line, f[4], err)
			}
			if p.CreationDate, err = strconv.ParseInt(f[5], 10, 64); err != nil {
				return fmt.Errorf("%s:%d: creationDate %q: %w", path, line, f[5], err)
			}
			if err := fn(p); err == errStop {
				stopped = true
				return errStop
			} else if err != nil {
				return err
			}
			return nil
		})
		if err != nil || stopped {
			return err
		}
	}
	return nil
}

// ReadLDBCKnows reads dir/person_knows_person_0_0.csv (and the other
// shards): '|'-delimited, with
// the header Person.id|Person.id|creationDate.
func ReadLDBCKnows(dir string) ([]Knows, error) {
	var out []Knows
	err := forEachLDBCKnows(dir, func(k Knows) error {
		out = append(out, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEachLDBCKnows calls fn with every knows row of dir's shards, in file
// order, holding none of them.
func forEachLDBCKnows(dir string, fn func(Knows) error) error {
	paths, err := ldbcFiles(dir, "person_knows_person_")
	if err != nil {
		return err
	}
	for _, path := range paths {
		err := readPipeCSV(path, 3, func(line int, f []string) error {
			var k Knows
			var err1, err2, err3 error
			k.Src, err1 = strconv.ParseInt(f[0], 10, 64)
			k.Dst, err2 = strconv.ParseInt(f[1], 10, 64)
			k.CreationDate, err3 = strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				return fmt.Errorf("%s:%d: malformed knows row %q", path, line, strings.Join(f, "|"))
			}
			return fn(k)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// countLDBCRows returns the number of lines of one file kind's shards, an
// upper bound of their rows (headers and blank lines included), so that a
// loader can allocate once: at SF1000 a slice grown by doubling would hold
// up to three times the edges it ends with.
func countLDBCRows(dir, prefix string) (int, error) {
	paths, err := ldbcFiles(dir, prefix)
	if err != nil {
		return 0, err
	}
	n := 0
	buf := make([]byte, 1<<20)
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		r, err := maybeGunzip(f)
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		for {
			k, err := r.Read(buf)
			n += bytes.Count(buf[:k], []byte{'\n'})
			if err == io.EOF {
				n++ // a last line without a newline
				break
			}
			if err != nil {
				f.Close()
				return 0, fmt.Errorf("%s: %w", path, err)
			}
		}
		f.Close()
	}
	return n, nil
}

var errStop = errors.New("stop")

// readPipeCSV calls fn with the fields of every line of a '|'-delimited
// file after its header; lines with fewer than minFields fields are an
// error. fn returning errStop ends the read without an error.
func readPipeCSV(path string, minFields int, fn func(line int, fields []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := maybeGunzip(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue // header
		}
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		fields := strings.Split(text, "|")
		if len(fields) < minFields {
			return fmt.Errorf("%s:%d: %d fields, want at least %d", path, line, len(fields), minFields)
		}
		if err := fn(line, fields); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// maybeGunzip returns r decompressed if it starts with the gzip magic,
// else r as it is (both buffered).
func maybeGunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		return bufio.NewReaderSize(zr, 1<<16), nil
	}
	return br, nil
}

// LoadLDBC reads the persons and knows of an LDBC CsvComposite directory as
// the importer stores them: every person a vertex, every knows row two
// directed edges. maxPersons > 0 keeps the first maxPersons persons and
// the knows among them.
//
// It streams the knows files into one slice allocated from a line count
// and sorted in place: what it keeps is the graph's own 16 bytes per
// directed edge (7.9 GB at SF1000) and a map of the person ids, beside the
// parser's garbage (nova-bench collects often while loading). Holding the
// rows, then a copy of the edges and every endpoint (LDBCGraph's way) took
// 4.83 GB of peak RSS for SF100's 49.7 M edges; this takes 1.68 GB, 0.91
// GB with nova-bench's GOGC of 10 (docs/benchmarks.md, "Issue 23").
func LoadLDBC(dir string, maxPersons int) (*Graph, error) {
	var ids []int64
	paths, err := ldbcFiles(dir, "person_")
	if err != nil {
		return nil, err
	}
	for _, path := range paths {
		err := readPipeCSV(path, 10, func(line int, f []string) error {
			if maxPersons > 0 && len(ids) >= maxPersons {
				return errStop
			}
			id, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%s:%d: id %q: %w", path, line, f[0], err)
			}
			ids = append(ids, id)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	in := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		in[id] = struct{}{}
	}
	// With every person kept, every row gives two edges: size the slice
	// once. With a few persons, let it grow from nothing.
	var edges []Edge
	if maxPersons <= 0 {
		rows, err := countLDBCRows(dir, "person_knows_person_")
		if err != nil {
			return nil, err
		}
		edges = make([]Edge, 0, 2*rows)
	}
	err = forEachLDBCKnows(dir, func(k Knows) error {
		_, src := in[k.Src]
		_, dst := in[k.Dst]
		if src && dst {
			edges = append(edges, Edge{k.Src, k.Dst}, Edge{k.Dst, k.Src})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return &Graph{Vertices: slices.Compact(ids), Edges: slices.Clip(sortEdges(edges)), Source: dir}, nil
}

// summaryEdgeSample is how many edges LoadLDBCSummary keeps: 16 MiB of
// them (a variable for tests).
var summaryEdgeSample = 1 << 20

// LoadLDBCSummary is LoadLDBC for a load test that only draws inputs (a
// run without the floor), on graphs whose edges are too many to hold: it
// keeps the vertices, each one's degree and a uniform sample of 2^20
// directed edges (reservoir sampling, seeded by seed),
// 16 bytes per person (and, while it reads, an id index of some 40 more)
// instead of LoadLDBC's 16 per edge (7.9 GB at SF1000). A size-biased draw of start vertices is then the same as on
// the whole graph, and an edge drawn from the sample is an edge drawn
// uniformly. One difference: a knows pair repeated in the files counts in
// the degrees once per row (LoadLDBC keeps it once; LDBC and nova-bench
// gen write none).
func LoadLDBCSummary(dir string, maxPersons int, seed int64) (*Graph, error) {
	var ids []int64
	err := forEachLDBCPerson(dir, func(p Person) error {
		if maxPersons > 0 && len(ids) >= maxPersons {
			return errStop
		}
		ids = append(ids, p.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	index := make(map[int64]int32, len(ids))
	for i, id := range ids {
		index[id] = int32(i)
	}
	g := &Graph{Vertices: ids, Source: dir, degrees: make([]int64, len(ids))}
	r := NewRand(seed)
	sample := make([]Edge, 0, summaryEdgeSample)
	keep := func(e Edge) { // Algorithm R over the directed edges in file order
		if len(sample) < summaryEdgeSample {
			sample = append(sample, e)
		} else if j := r.Int64N(g.numEdges + 1); j < int64(summaryEdgeSample) {
			sample[j] = e
		}
		g.numEdges++
	}
	err = forEachLDBCKnows(dir, func(k Knows) error {
		i, src := index[k.Src]
		j, dst := index[k.Dst]
		switch {
		case !src || !dst:
		case i == j: // a self-loop is one edge
			g.degrees[i]++
			keep(Edge{k.Src, k.Dst})
		default:
			g.degrees[i]++
			g.degrees[j]++
			keep(Edge{k.Src, k.Dst})
			keep(Edge{k.Dst, k.Src})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.Edges = slices.Clip(sortEdges(sample))
	return g, nil
}

// sortEdges sorts edges by (Src, Dst) in place and drops duplicates.
func sortEdges(edges []Edge) []Edge {
	slices.SortFunc(edges, func(a, b Edge) int {
		if c := cmpInt(a.Src, b.Src); c != 0 {
			return c
		}
		return cmpInt(a.Dst, b.Dst)
	})
	return slices.Compact(edges)
}

// LDBCGraph is the graph of persons and knows (both directions), keeping
// only the knows between the given persons.
func LDBCGraph(source string, persons []Person, knows []Knows) *Graph {
	ids := make([]int64, len(persons))
	in := make(map[int64]bool, len(persons))
	for i, p := range persons {
		ids[i] = p.ID
		in[p.ID] = true
	}
	edges := make([]Edge, 0, 2*len(knows))
	for _, k := range knows {
		if in[k.Src] && in[k.Dst] {
			edges = append(edges, Edge{k.Src, k.Dst}, Edge{k.Dst, k.Src})
		}
	}
	return NewGraph(source, ids, edges)
}

// SNAPOptions tune LoadSNAP.
type SNAPOptions struct {
	// Undirected adds dst->src for every src->dst line, for graphs that
	// list each undirected edge once and are imported in both directions.
	Undirected bool
}

// LoadSNAP reads a SNAP-style edge list: optionally gzipped (detected from
// the content), '#' or '%' comment lines, CRLF or LF line ends, then one
// edge per line as src and dst separated by tabs, spaces or a comma; further
// columns (a weight) are ignored. Two kinds of first line are skipped: a
// non-numeric header ("src,dst"), and a size line "V E" whose E equals the
// number of edge lines after it (email-Enron's "36692 367662").
func LoadSNAP(path string, opts SNAPOptions) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSNAP(f, path, opts)
}

// ReadSNAP is LoadSNAP on a reader; name is used in errors and as the
// graph's Source.
func ReadSNAP(r io.Reader, name string, opts SNAPOptions) (*Graph, error) {
	br, err := maybeGunzip(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var edges []Edge
	var first []string // fields of the first data line
	line, data := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' || text[0] == '%' {
			continue
		}
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == '\t' || r == ' ' || r == ',' })
		data++
		if data == 1 {
			first = fields
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s:%d: %q is not an edge (want src and dst)", name, line, text)
		}
		src, err1 := strconv.ParseInt(fields[0], 10, 64)
		dst, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil {
			if data == 1 {
				continue // a header such as src,dst
			}
			return nil, fmt.Errorf("%s:%d: %q is not an edge of two integer ids", name, line, text)
		}
		edges = append(edges, Edge{src, dst})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(first) == 2 && len(edges) > 0 {
		if n, err := strconv.ParseInt(first[1], 10, 64); err == nil && n == int64(len(edges)-1) {
			if v, err := strconv.ParseInt(first[0], 10, 64); err == nil && (Edge{v, n}) == edges[0] {
				edges = edges[1:] // "V E" size line
			}
		}
	}
	if len(edges) == 0 {
		return nil, fmt.Errorf("%s: no edges", name)
	}
	if opts.Undirected {
		n := len(edges)
		for _, e := range edges[:n] {
			edges = append(edges, Edge{e.Dst, e.Src})
		}
	}
	return NewGraph(name, nil, edges), nil
}
