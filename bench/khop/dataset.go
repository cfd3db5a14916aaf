package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
)

// The property rules. Both systems load the same CSV files written from
// these functions, and the reference computes the same values from them.
//
//   - TAG node(name string, age int): name "v<id>", age id % 100;
//   - EDGE follows(weight int): weight (31·src + dst) % 100.
//
// Neither the importer's SNAP preset (TAG node(), EDGE link(), no
// properties) nor nova-bench seed defines a weight for soc-Slashdot0902,
// so the rule is this harness's own: deterministic, cheap, and varied
// enough that a weight read from the wrong edge (say dst->src) is caught.
// Ids are non-negative in every data set used here; the modulo is taken
// non-negative anyway.
func nodeName(id int64) string { return "v" + strconv.FormatInt(id, 10) }

func nodeAge(id int64) int64 { return mod100(id) }

func edgeWeight(src, dst int64) int64 { return mod100(31*src + dst) }

func mod100(x int64) int64 { return (x%100 + 100) % 100 }

// Slashdot's published counts with self-loops dropped (issue 22).
const (
	slashdotVertices = 82168
	slashdotEdges    = 870161
)

// Dataset is a directed graph as both systems store it: the vertices (each
// with the node tag) and the distinct edges sorted by (src, dst), plus the
// CSR the reference answers from.
type Dataset struct {
	Name   string // slashdot, ldbc-sf1, ...
	Source string // the file or folder read
	Graph  *driver.Graph
	Loops  int // self-loops dropped
	csr    *CSR
}

// LoadSlashdot reads a SNAP edge list (soc-Slashdot0902.txt.gz), drops its
// self-loops, and, when the file is soc-Slashdot0902, checks the counts
// against the published ones.
func LoadSlashdot(path string) (*Dataset, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("soc-Slashdot0902 not found (%v): the shared data folder ../shared/data/snap/soc-Slashdot0902/ is absent; give --data FILE", err)
	}
	g, err := driver.LoadSNAP(path, driver.SNAPOptions{})
	if err != nil {
		return nil, err
	}
	ds := dropLoops("slashdot", path, g)
	if strings.HasPrefix(filepath.Base(path), "soc-Slashdot0902") {
		if len(ds.Graph.Vertices) != slashdotVertices || len(ds.Graph.Edges) != slashdotEdges {
			return nil, fmt.Errorf("%s: %d vertices and %d edges after dropping %d self-loops, want %d and %d",
				path, len(ds.Graph.Vertices), len(ds.Graph.Edges), ds.Loops, slashdotVertices, slashdotEdges)
		}
	}
	return ds, nil
}

// dropLoops removes self-loops from g's edges; the vertex set is every
// endpoint of every line, self-loops included (for Slashdot the two are
// the same 82,168 vertices).
func dropLoops(name, source string, g *driver.Graph) *Dataset {
	edges := make([]driver.Edge, 0, len(g.Edges))
	for _, e := range g.Edges {
		if e.Src != e.Dst {
			edges = append(edges, e)
		}
	}
	loops := len(g.Edges) - len(edges)
	g.Edges = edges
	return &Dataset{Name: name, Source: source, Graph: g, Loops: loops, csr: NewCSR(g)}
}

// LoadLDBC reads an LDBC CsvComposite folder (nova-bench gen output):
// every person a vertex, every knows row two directed edges.
func LoadLDBC(dir string) (*Dataset, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("LDBC folder not found (%v): generate it with bin/nova-bench gen --sf 1 --out DIR", err)
	}
	g, err := driver.LoadLDBC(dir, 0)
	if err != nil {
		return nil, err
	}
	return dropLoops("ldbc-"+filepath.Base(filepath.Clean(dir)), dir, g), nil
}

// NewDataset wraps a hand-made graph (tests).
func NewDataset(name string, vertices []int64, edges []driver.Edge) *Dataset {
	return dropLoops(name, "memory", driver.NewGraph(name, vertices, edges))
}

// WriteCSV writes dir/vertices.csv (id,name,age) and dir/edges.csv
// (src,dst,weight), without headers: the files the importer and DuckDB
// both load.
func (ds *Dataset) WriteCSV(dir string) (vertices, edges string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	vertices, edges = filepath.Join(dir, "vertices.csv"), filepath.Join(dir, "edges.csv")
	write := func(path string, fill func(w *bufio.Writer)) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fill(w)
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	var buf []byte
	err = write(vertices, func(w *bufio.Writer) {
		for _, v := range ds.Graph.Vertices {
			buf = strconv.AppendInt(buf[:0], v, 10)
			buf = append(buf, ',')
			buf = append(buf, nodeName(v)...)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, nodeAge(v), 10)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
	if err != nil {
		return "", "", err
	}
	err = write(edges, func(w *bufio.Writer) {
		for _, e := range ds.Graph.Edges {
			buf = strconv.AppendInt(buf[:0], e.Src, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, e.Dst, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, edgeWeight(e.Src, e.Dst), 10)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
	return vertices, edges, err
}

// Starts draws n distinct start vertices uniformly among the vertices with
// out-degree >= 1, with the driver's seeded PRNG: the same seed and data
// give the same list.
func (ds *Dataset) Starts(n int, seed int64) []int64 {
	deg := ds.Graph.OutDegree()
	var pop []int64
	for i, v := range ds.Graph.Vertices {
		if deg[i] > 0 {
			pop = append(pop, v)
		}
	}
	return driver.SampleDistinct(pop, n, seed)
}

// CSR is the reference: the graph as offset-indexed adjacency, answering
// GO N STEPS with NebulaGraph's semantics, independently of both systems.
type CSR struct {
	ids []int64 // sorted vertex ids
	off []int   // out-edges of ids[i] are dst[off[i]:off[i+1]]
	dst []int32 // destination as an index into ids
	// scratch for one query (a CSR is used by one goroutine at a time)
	seen     []uint32
	gen      uint32
	frontier []int32
	next     []int32
}

// NewCSR builds the CSR of g (edges sorted by (src, dst), every endpoint a
// vertex, as driver.NewGraph makes them).
func NewCSR(g *driver.Graph) *CSR {
	c := &CSR{ids: g.Vertices, off: make([]int, len(g.Vertices)+1), dst: make([]int32, len(g.Edges))}
	idx := func(v int64) int32 {
		i, ok := slices.BinarySearch(c.ids, v)
		if !ok {
			panic(fmt.Sprintf("vertex %d of an edge is not a vertex", v))
		}
		return int32(i)
	}
	for k, e := range g.Edges {
		c.off[idx(e.Src)+1]++
		c.dst[k] = idx(e.Dst)
	}
	for i := 1; i < len(c.off); i++ {
		c.off[i] += c.off[i-1]
	}
	c.seen = make([]uint32, len(c.ids))
	return c
}

// Clone returns a CSR sharing the graph with its own scratch space.
func (c *CSR) Clone() *CSR {
	return &CSR{ids: c.ids, off: c.off, dst: c.dst, seen: make([]uint32, len(c.ids))}
}

// Go calls fn with every row of GO steps STEPS FROM start OVER follows:
// the frontier of step 1 is {start}, the frontier of step k+1 is the
// distinct destinations of step k (no visited set across steps), and the
// rows are the edges leaving the last frontier, duplicates included.
func (c *CSR) Go(steps int, start int64, props bool, fn func(Row)) {
	i, ok := slices.BinarySearch(c.ids, start)
	if !ok {
		return
	}
	c.frontier = append(c.frontier[:0], int32(i))
	for step := 1; step < steps; step++ {
		c.gen++
		if c.gen == 0 { // wrapped: clear the stamps
			clear(c.seen)
			c.gen = 1
		}
		c.next = c.next[:0]
		for _, v := range c.frontier {
			for _, d := range c.dst[c.off[v]:c.off[v+1]] {
				if c.seen[d] != c.gen {
					c.seen[d] = c.gen
					c.next = append(c.next, d)
				}
			}
		}
		c.frontier, c.next = c.next, c.frontier
	}
	for _, v := range c.frontier {
		src := c.ids[v]
		for _, d := range c.dst[c.off[v]:c.off[v+1]] {
			dst := c.ids[d]
			if !props {
				fn(Row{Dst: dst})
				continue
			}
			fn(Row{Dst: dst, Name: nodeName(dst), Age: nodeAge(dst), Weight: edgeWeight(src, dst)})
		}
	}
}

// Fingerprint digests the reference answer.
func (c *CSR) Fingerprint(steps int, start int64, props bool) Fingerprint {
	var f Fingerprint
	c.Go(steps, start, props, f.Add)
	return f
}

// Rows returns the reference answer.
func (c *CSR) Rows(steps int, start int64, props bool) []Row {
	var rows []Row
	c.Go(steps, start, props, func(r Row) { rows = append(rows, r) })
	return rows
}
