package e2e

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/novagraph/novagraph/testkit/oracle"
)

// MATCH on the real graphs of TestRealGraphMatchesReference, against the
// reference's pattern matcher (oracle.Graph.Match): each pattern form
// (direction, edge types, tags on nodes, variable length with and without
// direction, a start in the middle, two patterns, an index start, named
// paths), OPTIONAL MATCH with missing parts, WITH and aggregation chains,
// ORDER BY / SKIP / LIMIT compared in order, and MATCH against the GO
// that means the same.

// matchDir is a direction as a MATCH pattern writes it.
type matchDir struct {
	dir         oracle.Direction
	left, right string // around the relationship's brackets
}

var matchDirs = []matchDir{{oracle.Out, "-", "->"}, {oracle.In, "<-", "-"}, {oracle.Both, "-", "-"}}

// rel prints -[name:types*range]-> for a direction.
func (d matchDir) rel(name string, types []string, hops string) string {
	body := name
	if len(types) > 0 {
		body += ":" + strings.Join(types, "|")
	}
	return d.left + "[" + body + hops + "]" + d.right
}

// matchRows runs the reference pattern matcher.
func (sp *realSpace) matchRows(p oracle.PatternSpec) []oracle.Binding {
	return sp.g.Match(p)
}

func ids(vs []int64) []oracle.Vid { return asVids(vs) }

func sumNum(steps []oracle.Step, prop string) any {
	var s int64
	for _, st := range steps {
		if x, ok := st.Edge.Props[prop].(int64); ok {
			s += x
		}
	}
	return s
}

func checkRealMatch(c *realChecker, sp *realSpace, rng *rand.Rand) {
	tag := sp.tag
	// One hop: every direction with every OVER list; the edge's key and a
	// property, the far vertex's property.
	for i, over := range sp.overs {
		for j, d := range matchDirs {
			spec := func(from []int64) oracle.PatternSpec {
				return oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {}},
					Rels: []oracle.RelSpec{{Types: over, Dir: d.dir, Min: 1, Max: 1}}}
			}
			from := sp.fitStarts(rng, (i+j)%3 == 0, func(from []int64) int { return len(sp.matchRows(spec(from))) })
			stmt := fmt.Sprintf("MATCH (v)%s(w) WHERE id(v) IN [%s] RETURN id(v), id(w), type(e), rank(e), e.%s, w.%s.%s",
				d.rel("e", over, ""), vidList(from), sp.num, tag, sp.tagStr)
			var want [][]any
			for _, b := range sp.matchRows(spec(from)) {
				e := b.Steps[0][0].Edge
				want = append(want, []any{b.Vertices[0], b.Vertices[1], e.Type, e.Rank, e.Props[sp.num], sp.vprop(b.Vertices[1], sp.tagStr)})
			}
			c.expect(stmt, want, false)
		}
	}
	// A tag on the far node keeps the vertices that have it.
	for j, d := range matchDirs {
		spec := func(from []int64) oracle.PatternSpec {
			return oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {Tag: tag}},
				Rels: []oracle.RelSpec{{Dir: d.dir, Min: 1, Max: 1}}}
		}
		from := sp.fitStarts(rng, j == 0, func(from []int64) int { return len(sp.matchRows(spec(from))) })
		stmt := fmt.Sprintf("MATCH (v)%s(w:%s) WHERE id(v) IN [%s] RETURN id(v), id(w), w.%s.%s",
			d.rel("", nil, ""), tag, vidList(from), tag, sp.tagNum)
		var want [][]any
		for _, b := range sp.matchRows(spec(from)) {
			want = append(want, []any{b.Vertices[0], b.Vertices[1], sp.vprop(b.Vertices[1], sp.tagNum)})
		}
		c.expect(stmt, want, false)
	}
	// Variable length, with and without direction: the trails of 1 to 3
	// (and 0 to 2) hops, with the sum of a property along each.
	for k, hop := range []struct {
		text     string
		min, max int
	}{{"*1..3", 1, 3}, {"*0..2", 0, 2}, {"*2", 2, 2}} {
		for j, d := range matchDirs {
			over := sp.overs[(k+j)%len(sp.overs)]
			spec := func(from []int64) oracle.PatternSpec {
				return oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {}},
					Rels: []oracle.RelSpec{{Types: over, Dir: d.dir, Min: hop.min, Max: hop.max}}}
			}
			from := sp.fitStarts(rng, false, func(from []int64) int { return len(sp.matchRows(spec(from))) })
			stmt := fmt.Sprintf("MATCH (v)%s(w) WHERE id(v) IN [%s] RETURN id(v), id(w), size(e), reduce(s = 0, x IN e | s + x.%s)",
				d.rel("e", over, hop.text), vidList(from), sp.num)
			var want [][]any
			for _, b := range sp.matchRows(spec(from)) {
				want = append(want, []any{b.Vertices[0], b.Vertices[1], int64(len(b.Steps[0])), sumNum(b.Steps[0], sp.num)})
			}
			c.expect(stmt, want, false)
		}
	}
	// A start in the middle of a pattern: it grows both ways.
	for j, d := range matchDirs {
		over := sp.overs[j%len(sp.overs)]
		spec := func(mid []int64) oracle.PatternSpec {
			return oracle.PatternSpec{Nodes: []oracle.NodeSpec{{}, {IDs: ids(mid)}, {Tag: tag}},
				Rels: []oracle.RelSpec{{Types: over, Dir: oracle.Out, Min: 1, Max: 1}, {Types: over, Dir: d.dir, Min: 1, Max: 1}}}
		}
		mid := sp.fitStarts(rng, false, func(from []int64) int { return len(sp.matchRows(spec(from))) })
		stmt := fmt.Sprintf("MATCH (a)%s(b)%s(c:%s) WHERE id(b) IN [%s] RETURN id(a), id(b), id(c)",
			matchDirs[0].rel("", over, ""), d.rel("", over, ""), tag, vidList(mid))
		var want [][]any
		for _, b := range sp.matchRows(spec(mid)) {
			want = append(want, []any{b.Vertices[0], b.Vertices[1], b.Vertices[2]})
		}
		c.expect(stmt, want, false)
	}
	// A named path: its length and its vertices.
	{
		over := sp.overs[0]
		spec := func(from []int64) oracle.PatternSpec {
			return oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {}},
				Rels: []oracle.RelSpec{{Types: over, Dir: oracle.Out, Min: 1, Max: 2}}}
		}
		from := sp.fitStarts(rng, false, func(from []int64) int { return len(sp.matchRows(spec(from))) })
		stmt := fmt.Sprintf("MATCH p = (v)%s(w) WHERE id(v) IN [%s] RETURN length(p), [x IN nodes(p) | id(x)], id(startNode(p)), id(endNode(p))",
			matchDirs[0].rel("", over, "*1..2"), vidList(from))
		var want [][]any
		for _, b := range sp.matchRows(spec(from)) {
			nodes := []any{b.Vertices[0]}
			for _, st := range b.Steps[0] {
				nodes = append(nodes, st.To)
			}
			want = append(want, []any{int64(len(b.Steps[0])), nodes, b.Vertices[0], b.Vertices[1]})
		}
		c.expect(stmt, want, false)
	}
	// Two patterns sharing a variable.
	{
		t1, t2 := sp.types[0], sp.types[len(sp.types)-1]
		build := func(from []int64) (string, [][]any) {
			first := sp.matchRows(oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {}},
				Rels: []oracle.RelSpec{{Types: []string{t1}, Dir: oracle.Out, Min: 1, Max: 1}}})
			var want [][]any
			for _, a := range first {
				for _, b := range sp.matchRows(oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: []oracle.Vid{a.Vertices[1]}}, {}},
					Rels: []oracle.RelSpec{{Types: []string{t2}, Dir: oracle.In, Min: 1, Max: 1}}}) {
					if t1 == t2 && b.Steps[0][0].Edge == a.Steps[0][0].Edge {
						continue // one MATCH uses an edge once
					}
					want = append(want, []any{a.Vertices[0], a.Vertices[1], b.Vertices[1]})
				}
			}
			return fmt.Sprintf("MATCH (a)-[:%s]->(b), (b)<-[:%s]-(c) WHERE id(a) IN [%s] RETURN id(a), id(b), id(c)", t1, t2, vidList(from)), want
		}
		c.expectFit(sp, rng, build)
	}
	// OPTIONAL MATCH: starts without a match (one has no vertex at all)
	// keep a row with NULLs.
	for j, d := range matchDirs {
		from := append(sp.lightStarts(rng), realMissingVid)
		var want [][]any
		for _, v := range from {
			found := false
			for _, b := range sp.matchRows(oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: []oracle.Vid{v}}, {Tag: tag}},
				Rels: []oracle.RelSpec{{Types: sp.overs[j%len(sp.overs)], Dir: d.dir, Min: 1, Max: 1}}}) {
				if x := sp.vprop(b.Vertices[1], sp.tagNum); x != nil && x.(int64) > sp.tagNumMid {
					want = append(want, []any{v, b.Vertices[1]})
					found = true
				}
			}
			if !found {
				want = append(want, []any{v, nil})
			}
		}
		stmt := fmt.Sprintf("MATCH (v) WHERE id(v) IN [%s] OPTIONAL MATCH (v)%s(w:%s) WHERE w.%s.%s > %d RETURN id(v), id(w)",
			vidList(from), d.rel("", sp.overs[j%len(sp.overs)], ""), tag, tag, sp.tagNum, sp.tagNumMid)
		c.expect(stmt, want, false)
	}
	// WITH and aggregation, then ORDER BY, SKIP and LIMIT, in order.
	for j, d := range matchDirs {
		from := sp.fitStarts(rng, j == 0, func(from []int64) int { return len(from) })
		type agg struct {
			deg int64
			sum int64
		}
		per := map[int64]*agg{}
		for _, b := range sp.matchRows(oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {}},
			Rels: []oracle.RelSpec{{Dir: d.dir, Min: 1, Max: 1}}}) {
			v := b.Vertices[0].(int64)
			if per[v] == nil {
				per[v] = &agg{}
			}
			per[v].deg++
			per[v].sum += sumNum(b.Steps[0], sp.num).(int64)
		}
		var want [][]any
		for v, a := range per {
			if a.deg > 1 {
				want = append(want, []any{v, a.deg, a.sum})
			}
		}
		want = orderRows(want, orderKey{1, true}, orderKey{0, false})
		stmt := fmt.Sprintf("MATCH (v)%s(w) WHERE id(v) IN [%s] WITH v, count(e) AS deg, sum(e.%s) AS s WHERE deg > 1 RETURN id(v) AS id, deg, s ORDER BY deg DESC, id",
			d.rel("e", nil, ""), vidList(from), sp.num)
		c.expect(stmt, want, true)
	}
	for k := 0; k < 3; k++ {
		over := sp.overs[k%len(sp.overs)]
		spec := func(from []int64) oracle.PatternSpec {
			return oracle.PatternSpec{Nodes: []oracle.NodeSpec{{IDs: ids(from)}, {}},
				Rels: []oracle.RelSpec{{Types: over, Dir: oracle.Both, Min: 1, Max: 1}}}
		}
		from := sp.fitStarts(rng, k == 0, func(from []int64) int { return len(sp.matchRows(spec(from))) })
		var rows [][]any
		for _, b := range sp.matchRows(spec(from)) {
			e := b.Steps[0][0].Edge
			rows = append(rows, []any{b.Vertices[0], b.Vertices[1], e.Type, e.Rank, e.Src})
		}
		rows = orderRows(rows, orderKey{0, false}, orderKey{1, true}, orderKey{2, false}, orderKey{3, false}, orderKey{4, false})
		skip, limit := 1+k, 5+3*k
		stmt := fmt.Sprintf("MATCH (v)%s(w) WHERE id(v) IN [%s] RETURN id(v) AS a, id(w) AS b, type(e) AS t, rank(e) AS r, src(e) AS s ORDER BY a, b DESC, t, r, s SKIP %d LIMIT %d",
			matchDirs[2].rel("e", over, ""), vidList(from), skip, limit)
		c.expect(stmt, limitRows(rows, skip, limit), true)
	}
	// A start from the tag's index, narrowed by a property.
	{
		var want [][]any
		for _, b := range sp.matchRows(oracle.PatternSpec{Nodes: []oracle.NodeSpec{{Tag: tag}, {}},
			Rels: []oracle.RelSpec{{Types: sp.overs[0], Dir: oracle.Out, Min: 1, Max: 1}}}) {
			if oracle.FormatValue(sp.vprop(b.Vertices[0], sp.tagCat)) == oracle.FormatValue(sp.catVal) {
				want = append(want, []any{b.Vertices[0], b.Vertices[1]})
			}
		}
		stmt := fmt.Sprintf("MATCH (v:%s)%s(w) WHERE v.%s.%s == %s RETURN id(v), id(w)",
			tag, matchDirs[0].rel("", sp.overs[0], ""), tag, sp.tagCat, oracle.FormatValue(sp.catVal))
		c.expect(stmt, want, false)
	}
	// MATCH and the GO that means the same return the same rows.
	for j, d := range pathDirs {
		over := sp.overs[j%len(sp.overs)]
		from := sp.fitStarts(rng, j == 0, func(from []int64) int { return len(sp.goRows(from, 1, 1, over, d.dir, nil)) })
		m := matchDirs[j]
		goStmt := fmt.Sprintf("GO FROM %s OVER %s %s YIELD src(edge) AS s, dst(edge) AS d, rank(edge) AS r, type(edge) AS t", vidList(from), overText(over), d.kw)
		matchStmt := fmt.Sprintf("MATCH (v)%s(w) WHERE id(v) IN [%s] RETURN src(e) AS s, dst(e) AS d, rank(e) AS r, type(e) AS t",
			m.rel("e", over, ""), vidList(from))
		c.sameRows(goStmt, matchStmt)
	}
	// Two steps, distinct destinations: the same unless a self-loop lets
	// GO use an edge twice (a MATCH trail does not).
	if !sp.hasSelfLoop() {
		over := sp.overs[0]
		from := sp.fitStarts(rng, true, func(from []int64) int { return len(sp.goRows(from, 2, 2, over, oracle.Out, nil)) })
		c.sameRows(fmt.Sprintf("GO 2 STEPS FROM %s OVER %s YIELD DISTINCT dst(edge) AS d", vidList(from), overText(over)),
			fmt.Sprintf("MATCH (v)%s(w) WHERE id(v) IN [%s] RETURN DISTINCT id(w) AS d", matchDirs[0].rel("", over, "*2"), vidList(from)))
	}
}

func (sp *realSpace) hasSelfLoop() bool {
	for _, e := range sp.g.EdgeList() {
		if e.Src == e.Dst {
			return true
		}
	}
	return false
}

// sameRows runs two statements and compares their rows as multisets.
func (c *realChecker) sameRows(a, b string) {
	c.t.Helper()
	ra, rb := c.run(a), c.run(b)
	if ra == nil || rb == nil {
		return
	}
	c.compare(b+"\n  against: "+a, resultRows(rb), resultRows(ra), false)
}
