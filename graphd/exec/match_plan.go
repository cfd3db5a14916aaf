package exec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
)

// MATCH, NebulaGraph 3.x semantics (openCypher subset):
//
//   - A query is reading clauses (MATCH, OPTIONAL MATCH, UNWIND, WITH) and
//     RETURN. Each clause maps the rows of variable bindings before it to
//     the rows after it; the first starts from one empty row.
//   - A pattern binds a vertex to each node and an edge to each
//     relationship (a list of edges to a variable-length one, *m..n), and
//     the path to a named path. One MATCH clause uses an edge at most once
//     across all its patterns (each path is a trail), as in Cypher;
//     vertices may repeat.
//   - Every pattern must start from known vertices (NebulaGraph's rule): a
//     variable bound before, id(v) == x or id(v) IN [...] in the WHERE, or
//     a tag with an index (the tag's property map and WHERE comparisons of
//     its properties with constants narrow the index scan). Otherwise the
//     error says which index would let it run.
//   - From the start, each relationship is one GetNeighbors round over the
//     distinct vertices the rows reached (the frontier, as GO's steps),
//     right of the start first, then left. A node with a tag or property
//     map, or whose variable is read other than through id(), has its
//     vertex fetched (every tag, one GetProps per round).
//   - OPTIONAL MATCH keeps each row it finds nothing for, its new
//     variables NULL; its WHERE is part of the match.
//   - WITH and RETURN project; an item with an aggregate groups the rows by
//     the others. ORDER BY may read the projected names and, without
//     aggregation or DISTINCT, the variables before the projection.
//
// The plan below is fixed before anything runs, so EXPLAIN prints what
// running does.

// bindKind says what a binding column holds. Nodes and edges are kept as
// indexes into the run's vertex and edge tables, so that a row costs a
// word per binding and a vertex reached by many rows is fetched and held
// once; they become VERTEX and EDGE values only when an expression reads
// them.
type bindKind uint8

const (
	bindValue bindKind = iota // a value (UNWIND, WITH expr AS x)
	bindNode                  // INT: index into matchRun.verts
	bindEdge                  // INT: index into matchRun.edges
	bindEdges                 // LIST of INT: a variable-length relationship
	bindPath                  // LIST of INT: vertex, edge, vertex, ... indexes
)

// bindCol is one column of the bindings. Hidden columns hold the
// anonymous nodes and relationships of the clause being matched.
type bindCol struct {
	name   string
	kind   bindKind
	hidden bool
}

// anchorKind is how a pattern finds its start vertices.
type anchorKind uint8

const (
	anchorBound anchorKind = iota + 1 // a variable bound before
	anchorIDs                         // id(v) == x / id(v) IN list, per row
	anchorIndex                       // an index scan of a tag
)

// hopPlan is one relationship of a pattern, followed from node from to
// node to (reverse: against the pattern's writing order).
type hopPlan struct {
	rel      int
	from, to int
	reverse  bool
	types    []int32 // signed for the direction followed
	typeText string
}

// patternPlan is how one pattern of a MATCH runs.
type patternPlan struct {
	pat      *ast.Pattern
	nodeCols []int // column of each node
	relCols  []int // column of each relationship
	pathCol  int   // -1 without a path variable
	anchor   int   // the start node
	kind     anchorKind
	ids      ast.Expr // anchorIDs: the vid or list of vids
	idsList  bool     // anchorIDs: ids is a list (id(v) IN ...)
	// used are the WHERE conditions the start (and a shortest path's
	// target) satisfy by construction: id(v) == x for a start from x.
	used   []ast.Expr
	lookup *ast.LookupStmt
	hops   []hopPlan
	// A shortest-path pattern searches from the anchor to the other node,
	// whose vertices are bound before (targetIDs nil) or given by an id
	// condition.
	targetIDs  ast.Expr
	targetList bool
	// fetch is, per node, whether its vertex is read (tags, properties or
	// a variable read other than through id()).
	fetch []bool
	// relProps is, per relationship, whether its edges' properties are read.
	relProps []bool
	// slim is, per node, the properties fetched when its vertex is read
	// only through v.tag.prop (slimRefs); nil: every tag is fetched.
	slim [][]propKey
	// pathRead: the named path is read, so every vertex on it is fetched
	// (those inside variable-length relationships too).
	pathRead bool
}

// clausePlan is one clause of the query.
type clausePlan struct {
	clause   ast.Clause
	patterns []*patternPlan
	// cols are the columns after the clause (MATCH: hidden ones included
	// while it runs; they are dropped at its end).
	cols []bindCol
	// keep are the columns left after a MATCH drops its hidden ones.
	keep []int
	// where is the MATCH's WHERE less the conditions the starts satisfy
	// (nil: none left).
	where ast.Expr
	// relCols are the relationship columns of every pattern of a MATCH:
	// one match uses an edge once across all of them, as in Cypher.
	relCols []int
}

// matchPlan is a validated MATCH query.
type matchPlan struct {
	stmt    *ast.MatchStmt
	snap    *catalog.Snapshot
	space   *metapb.SpaceDesc
	clauses []*clausePlan
	// read are the variables some expression reads whole (other than as
	// id(v), length(p), size(e) or v.tag.prop).
	read map[string]bool
	// tagProps are, per variable, the v.tag.prop it is read as.
	tagProps map[string]map[propKey]bool
}

// propKey names a property of a tag (prop "_tag": whether the vertex has
// the tag).
type propKey struct{ tag, prop string }

func (r *runState) planMatch(s *ast.MatchStmt) (*matchPlan, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	read, tagProps := readVariables(s)
	p := &matchPlan{stmt: s, snap: snap, space: space, read: read, tagProps: tagProps}
	var cols []bindCol
	for _, c := range s.Clauses {
		cp := &clausePlan{clause: c}
		switch c := c.(type) {
		case *ast.MatchClause:
			if err := p.planMatchClause(c, cp, cols); err != nil {
				return nil, err
			}
			cols = make([]bindCol, 0, len(cp.keep))
			for _, i := range cp.keep {
				cols = append(cols, cp.cols[i])
			}
		case *ast.UnwindClause:
			if findCol(cols, c.Alias) >= 0 {
				return nil, at(c, "UNWIND ... AS %s: variable %s is already defined", c.Alias, c.Alias)
			}
			if err := checkMatchExpr(c.Expr, cols, "UNWIND", false); err != nil {
				return nil, err
			}
			cols = append(append([]bindCol(nil), cols...), bindCol{name: c.Alias, kind: bindValue})
			cp.cols = cols
		case *ast.WithClause:
			out, err := projectionCols(c.Proj, cols, "WITH")
			if err != nil {
				return nil, err
			}
			if c.Where != nil {
				if err := checkMatchExpr(c.Where, out, "WHERE", false); err != nil {
					return nil, err
				}
			}
			cols = out
			cp.cols = cols
		}
		p.clauses = append(p.clauses, cp)
	}
	if _, err := projectionCols(s.Return, cols, "RETURN"); err != nil {
		return nil, err
	}
	return p, nil
}

func findCol(cols []bindCol, name string) int {
	for i, c := range cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// projectionCols checks a WITH or RETURN against the columns before it and
// returns the columns after it. A WITH item must be named (WITH a.x AS y)
// unless it is a variable.
func projectionCols(pr *ast.Projection, in []bindCol, clause string) ([]bindCol, error) {
	if pr.Star {
		var out []bindCol
		for _, c := range in {
			if !c.hidden {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, at(pr, "%s * has no variables to return", clause)
		}
		return out, nil
	}
	var out []bindCol
	seen := map[string]bool{}
	for _, it := range pr.Items {
		if err := checkMatchExpr(it.Expr, in, clause, true); err != nil {
			return nil, err
		}
		name := it.Name()
		kind := bindValue
		if l, ok := it.Expr.(*ast.LabelExpr); ok {
			if i := findCol(in, l.Name); i >= 0 {
				kind = in[i].kind
			}
		} else if clause == "WITH" && it.Alias == "" {
			return nil, at(it, "WITH %s: an expression needs a name: write %s AS name", it.Expr, it.Expr)
		}
		if seen[name] {
			return nil, at(it, "%s: the name %s is given twice", clause, name)
		}
		seen[name] = true
		out = append(out, bindCol{name: name, kind: kind})
	}
	// ORDER BY reads the items' names and, without DISTINCT or an
	// aggregate, the variables before the projection.
	visible := append(append([]bindCol(nil), out...), in...)
	grouped := pr.Distinct
	for _, it := range pr.Items {
		grouped = grouped || findAggregate(it.Expr) != nil
	}
	if grouped {
		visible = out
	}
	for _, k := range orderKeys(pr, pr.Items) {
		where := "ORDER BY"
		if grouped {
			where = "ORDER BY after DISTINCT or an aggregate (it reads the returned items)"
		}
		if err := checkMatchExpr(k, visible, where, false); err != nil {
			return nil, err
		}
	}
	for _, e := range []ast.Expr{pr.Skip, pr.Limit} {
		if e == nil {
			continue
		}
		if err := checkMatchExpr(e, nil, clause, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkMatchExpr rejects names that are not variables in cols (besides
// the variables the expression binds itself), GO's $^/$$/$-/EDGE forms,
// and aggregates where they cannot be.
func checkMatchExpr(e ast.Expr, cols []bindCol, where string, aggOK bool) error {
	var bad error
	ast.InspectScoped(e, func(x ast.Expr, local map[string]bool) bool {
		if bad != nil {
			return false
		}
		switch x := x.(type) {
		case *ast.LabelExpr:
			if !local[x.Name] && findCol(cols, x.Name) < 0 {
				bad = at(x, "%s: variable %s is not defined", where, ast.QuoteName(x.Name))
			}
		case *ast.EdgePropExpr:
			if !local[x.Edge] && findCol(cols, x.Edge) < 0 {
				bad = at(x, "%s: variable %s is not defined (in MATCH, read a property as v.tag.prop or e.prop)", where, ast.QuoteName(x.Edge))
			}
		case *ast.SrcPropExpr, *ast.DstPropExpr, *ast.InputPropExpr, *ast.VarPropExpr, *ast.EdgeExpr, *ast.VertexExpr:
			bad = at(x, "%s: %s cannot be used in a MATCH query; name the pattern's nodes and relationships and read their variables", where, x)
		case *ast.AggregateExpr:
			if !aggOK {
				bad = at(x, "aggregate function %s is not allowed in %s", x, where)
			} else if x.Arg != nil {
				if inner := findAggregate(x.Arg); inner != nil {
					bad = at(inner, "aggregate function %s cannot be nested in %s", inner, x.Name)
				}
			}
		}
		return bad == nil
	})
	if bad == nil {
		// Aggregates were checked above; the functions must exist.
		ast.Inspect(e, func(x ast.Expr) bool {
			if c, ok := x.(*ast.FuncCall); ok && bad == nil {
				if err := eval.CheckCall(c); err != nil {
					bad = at(c, "%v", err)
				}
			}
			return bad == nil
		})
	}
	return bad
}

// orderKeys are a projection's ORDER BY expressions, each that is one of
// the items (as written) replaced by the item's name: after DISTINCT or an
// aggregation only the items are there, and ORDER BY count(*) or ORDER BY
// v.tag.prop means the item that computed it.
func orderKeys(pr *ast.Projection, items []*ast.YieldColumn) []ast.Expr {
	out := make([]ast.Expr, len(pr.OrderBy))
	for i, f := range pr.OrderBy {
		out[i] = f.Expr
		text := f.Expr.String()
		for _, it := range items {
			if it.Expr.String() == text {
				out[i] = &ast.LabelExpr{Pos: f.Pos, Name: it.Name()}
				break
			}
		}
	}
	return out
}

// readVariables lists the variables an expression of s reads whole
// (their vertices fetched with every tag, or their edges' properties) and,
// apart, the v.tag.prop each variable is read as: a node read only so
// (and through id(v)) has only those properties fetched, in columns.
// id(v), length(p) and size(e) read nothing.
func readVariables(s *ast.MatchStmt) (read map[string]bool, tagProps map[string]map[propKey]bool) {
	read = map[string]bool{}
	tagProps = map[string]map[propKey]bool{}
	add := func(e ast.Expr) {
		ast.Inspect(e, func(x ast.Expr) bool {
			switch x := x.(type) {
			case *ast.FuncCall:
				if (strings.EqualFold(x.Name, "id") || strings.EqualFold(x.Name, "length") || strings.EqualFold(x.Name, "size")) && len(x.Args) == 1 {
					if _, ok := x.Args[0].(*ast.LabelExpr); ok {
						return false
					}
				}
			case *ast.AttributeExpr:
				if ep, ok := x.X.(*ast.EdgePropExpr); ok {
					if tagProps[ep.Edge] == nil {
						tagProps[ep.Edge] = map[propKey]bool{}
					}
					tagProps[ep.Edge][propKey{ep.Prop, x.Name}] = true
					return false
				}
			case *ast.LabelExpr:
				read[x.Name] = true
			case *ast.EdgePropExpr:
				read[x.Edge] = true
			}
			return true
		})
	}
	proj := func(pr *ast.Projection) {
		if pr.Star {
			read["*"] = true
		}
		for _, it := range pr.Items {
			add(it.Expr)
		}
		for _, f := range pr.OrderBy {
			add(f.Expr)
		}
	}
	for _, c := range s.Clauses {
		switch c := c.(type) {
		case *ast.MatchClause:
			add(c.Where)
			for _, pat := range c.Patterns {
				for _, n := range pat.Nodes {
					for _, l := range n.Labels {
						if l.Props != nil {
							add(l.Props)
						}
					}
				}
				for _, rel := range pat.Rels {
					if rel.Props != nil {
						add(rel.Props)
					}
				}
			}
		case *ast.UnwindClause:
			add(c.Expr)
		case *ast.WithClause:
			proj(c.Proj)
			add(c.Where)
		}
	}
	proj(s.Return)
	return read, tagProps
}

// isRead reports whether an expression reads the variable (whole or a
// property of it).
func (p *matchPlan) isRead(name string) bool {
	return name != "" && (p.read[name] || p.read["*"] || len(p.tagProps[name]) > 0)
}

// slimRefs are the properties to fetch for node n, in columns, when the
// query reads its vertex only as v.tag.prop (and the node's tags and
// property maps need only their own): nil when the vertex is read whole.
func (p *matchPlan) slimRefs(n *ast.NodePattern, pathRead bool) []propKey {
	if pathRead || p.read["*"] || (n.Var != "" && p.read[n.Var]) {
		return nil
	}
	set := map[propKey]bool{}
	for k := range p.tagProps[n.Var] {
		if n.Var != "" {
			set[k] = true
		}
	}
	for _, l := range n.Labels {
		set[propKey{l.Name, "_tag"}] = true
		if l.Props != nil {
			for _, it := range l.Props.Items {
				set[propKey{l.Name, it.Key}] = true
			}
		}
	}
	out := make([]propKey, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].tag < out[j].tag || out[i].tag == out[j].tag && out[i].prop < out[j].prop
	})
	return out
}

// planMatchClause lays out the columns of a MATCH clause and plans each
// pattern: its start and the order of its hops.
func (p *matchPlan) planMatchClause(c *ast.MatchClause, cp *clausePlan, in []bindCol) error {
	cols := append([]bindCol(nil), in...)
	bound := len(in) // columns before this clause are bound in every row
	hidden := 0
	colFor := func(name string, kind bindKind, n ast.Node) (int, error) {
		if name == "" {
			hidden++
			cols = append(cols, bindCol{name: "__anon" + strconv.Itoa(hidden), kind: kind, hidden: true})
			return len(cols) - 1, nil
		}
		if i := findCol(cols, name); i >= 0 {
			if cols[i].kind != kind {
				return 0, at(n, "variable %s is already bound to a %s, not a %s", name, kindName(cols[i].kind), kindName(kind))
			}
			if kind != bindNode {
				return 0, at(n, "relationship variable %s is bound twice: a pattern cannot name one edge twice", name)
			}
			return i, nil
		}
		cols = append(cols, bindCol{name: name, kind: kind})
		return len(cols) - 1, nil
	}
	for _, pat := range c.Patterns {
		pp := &patternPlan{pat: pat, pathCol: -1}
		for i, n := range pat.Nodes {
			if i > 0 {
				rel := pat.Rels[i-1]
				kind := bindEdge
				if rel.VarLen {
					kind = bindEdges
				}
				col, err := colFor(rel.Var, kind, rel)
				if err != nil {
					return err
				}
				pp.relCols = append(pp.relCols, col)
			}
			col, err := colFor(n.Var, bindNode, n)
			if err != nil {
				return err
			}
			pp.nodeCols = append(pp.nodeCols, col)
		}
		if pat.PathVar != "" {
			if findCol(cols, pat.PathVar) >= 0 {
				return at(pat, "path variable %s is already defined", pat.PathVar)
			}
			cols = append(cols, bindCol{name: pat.PathVar, kind: bindPath})
			pp.pathCol = len(cols) - 1
		}
		pathRead := p.isRead(pat.PathVar)
		pp.pathRead = pathRead
		for _, n := range pat.Nodes {
			pp.fetch = append(pp.fetch, pathRead || len(n.Labels) > 0 || p.isRead(n.Var))
			pp.slim = append(pp.slim, p.slimRefs(n, pathRead))
		}
		for _, rel := range pat.Rels {
			pp.relProps = append(pp.relProps, pathRead || rel.Props != nil || p.isRead(rel.Var))
		}
		cp.patterns = append(cp.patterns, pp)
	}
	cp.cols = cols
	for _, pp := range cp.patterns {
		cp.relCols = append(cp.relCols, pp.relCols...)
	}
	for i, col := range cols {
		if !col.hidden {
			cp.keep = append(cp.keep, i)
		}
	}
	// Check the expressions against the clause's columns.
	for _, pat := range c.Patterns {
		for _, n := range pat.Nodes {
			for _, l := range n.Labels {
				if l.Props != nil {
					if err := checkMatchExpr(l.Props, cols, "MATCH", false); err != nil {
						return err
					}
				}
			}
		}
		for _, rel := range pat.Rels {
			if rel.Props != nil {
				if err := checkMatchExpr(rel.Props, cols, "MATCH", false); err != nil {
					return err
				}
			}
		}
	}
	if c.Where != nil {
		if err := checkMatchExpr(c.Where, cols, "WHERE", false); err != nil {
			return err
		}
	}
	// Resolve the schema names, then pick each pattern's start. A pattern
	// may start from a variable an earlier pattern of the clause binds, so
	// patterns are planned in an order where each has a start.
	for _, pp := range cp.patterns {
		if err := p.resolvePattern(pp); err != nil {
			return err
		}
	}
	boundCols := map[int]bool{}
	for i := 0; i < bound; i++ {
		boundCols[i] = true
	}
	conjuncts := splitAnd(c.Where)
	var ordered []*patternPlan
	left := append([]*patternPlan(nil), cp.patterns...)
	for len(left) > 0 {
		progress := false
		var waiting error // why the first pattern left cannot be planned yet, when it is a shortest path's
		for i, pp := range left {
			if readsUnbound(pp, boundCols, cols) || !p.chooseAnchor(pp, boundCols, conjuncts, cols) {
				continue
			}
			if pp.pat.Shortest != ast.NotShortest {
				// Its other end may be bound by a pattern not planned yet.
				if err := p.planShortest(pp, boundCols, conjuncts, cols); err != nil {
					if waiting == nil {
						waiting = err
					}
					continue
				}
			}
			pp.planHops()
			p.resolveHopTypes(pp)
			for _, col := range append(append([]int(nil), pp.nodeCols...), pp.relCols...) {
				boundCols[col] = true
			}
			if pp.pathCol >= 0 {
				boundCols[pp.pathCol] = true
			}
			ordered = append(ordered, pp)
			left = append(left[:i], left[i+1:]...)
			progress = true
			break
		}
		if !progress {
			if waiting != nil {
				return waiting
			}
			return p.noStartError(left[0])
		}
	}
	cp.patterns = ordered
	used := map[ast.Expr]bool{}
	for _, pp := range ordered {
		for _, c := range pp.used {
			used[c] = true
		}
	}
	var rest []ast.Expr
	for _, c := range conjuncts {
		if !used[c] {
			rest = append(rest, c)
		}
	}
	cp.where = andAll(rest)
	return nil
}

func kindName(k bindKind) string {
	switch k {
	case bindNode:
		return "node"
	case bindEdge:
		return "relationship"
	case bindEdges:
		return "variable-length relationship"
	case bindPath:
		return "path"
	}
	return "value"
}

// splitAnd lists the top-level AND operands of e.
func splitAnd(e ast.Expr) []ast.Expr {
	if e == nil {
		return nil
	}
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == ast.OpAnd {
		return append(splitAnd(b.L), splitAnd(b.R)...)
	}
	return []ast.Expr{e}
}

// resolvePattern checks the tags and edge types a pattern names.
func (p *matchPlan) resolvePattern(pp *patternPlan) error {
	spaceID := p.space.GetSpaceId()
	for _, n := range pp.pat.Nodes {
		for _, l := range n.Labels {
			tag, ok := p.snap.TagByName(spaceID, l.Name)
			if !ok {
				return at(n, "tag %q not found in space %q", l.Name, p.space.GetName())
			}
			if l.Props != nil {
				for _, it := range l.Props.Items {
					if !hasColumn(tag.GetVersions(), it.Key) {
						return at(n, "tag %q has no property %q", l.Name, it.Key)
					}
				}
			}
		}
	}
	for _, rel := range pp.pat.Rels {
		names := rel.Types
		if len(names) == 0 {
			for _, e := range p.snap.Edges(spaceID) {
				names = append(names, e.GetName())
			}
		}
		for _, name := range names {
			e, ok := p.snap.EdgeByName(spaceID, name)
			if !ok {
				return at(rel, "edge %q not found in space %q", name, p.space.GetName())
			}
			if rel.Props != nil && len(rel.Types) > 0 {
				for _, it := range rel.Props.Items {
					if !hasColumn(e.GetVersions(), it.Key) {
						return at(rel, "edge %q has no property %q", name, it.Key)
					}
				}
			}
		}
	}
	return nil
}

// chooseAnchor picks the pattern's start node: one bound before, else one
// with an id condition, else one whose tag has an index (preferring a
// property condition the index can narrow). It reports whether any node
// can start the pattern.
func (p *matchPlan) chooseAnchor(pp *patternPlan, bound map[int]bool, conjuncts []ast.Expr, cols []bindCol) bool {
	for i, col := range pp.nodeCols {
		if bound[col] {
			pp.anchor, pp.kind = i, anchorBound
			return true
		}
	}
	patVars := map[string]bool{}
	for col := range cols {
		if !bound[col] {
			patVars[cols[col].name] = true
		}
	}
	for i, n := range pp.pat.Nodes {
		if n.Var == "" {
			continue
		}
		for _, c := range conjuncts {
			if ids, list, ok := idCondition(c, n.Var); ok && !readsAny(ids, patVars) {
				pp.anchor, pp.kind, pp.ids, pp.idsList = i, anchorIDs, ids, list
				pp.used = append(pp.used, c)
				return true
			}
		}
	}
	best, bestConds := -1, -1
	var bestLookup *ast.LookupStmt
	for i, n := range pp.pat.Nodes {
		for _, l := range n.Labels {
			tag, _ := p.snap.TagByName(p.space.GetSpaceId(), l.Name)
			if len(p.snap.IndexesOn(p.space.GetSpaceId(), false, tag.GetTagId())) == 0 {
				continue
			}
			conds := p.indexConditions(n, l, conjuncts, patVars)
			if len(conds) > bestConds {
				best, bestConds = i, len(conds)
				bestLookup = &ast.LookupStmt{Pos: n.Pos, On: l.Name, Where: andAll(conds),
					Yield: &ast.YieldClause{Pos: n.Pos, Columns: []*ast.YieldColumn{{Pos: n.Pos,
						Expr: &ast.FuncCall{Pos: n.Pos, Name: "id", Args: []ast.Expr{&ast.VertexExpr{Pos: n.Pos, Role: ast.RowVertex}}}}}}}
			}
		}
	}
	if best >= 0 {
		pp.anchor, pp.kind, pp.lookup = best, anchorIndex, bestLookup
		return true
	}
	return false
}

// readsUnbound reports whether a property map of the pattern reads a
// variable that neither an earlier pattern nor this one binds: the
// pattern waits until the one binding it is planned.
func readsUnbound(pp *patternPlan, bound map[int]bool, cols []bindCol) bool {
	own := map[int]bool{}
	for _, c := range append(append([]int(nil), pp.nodeCols...), pp.relCols...) {
		own[c] = true
	}
	unbound := map[string]bool{}
	for i, c := range cols {
		if !bound[i] && !own[i] {
			unbound[c.name] = true
		}
	}
	for _, n := range pp.pat.Nodes {
		for _, l := range n.Labels {
			if l.Props != nil && readsAny(l.Props, unbound) {
				return true
			}
		}
	}
	for _, r := range pp.pat.Rels {
		if r.Props != nil && readsAny(r.Props, unbound) {
			return true
		}
	}
	return false
}

// planShortest finds the other end of a shortest-path pattern: bound
// before, or an id condition.
func (p *matchPlan) planShortest(pp *patternPlan, bound map[int]bool, conjuncts []ast.Expr, cols []bindCol) error {
	if rel := pp.pat.Rels[0]; rel.VarLen && rel.Min > 1 {
		return at(rel, "%s: a shortest path starts at 0 or 1 hops (*0..n or *1..n), not %d", pp.pat, rel.Min)
	}
	other := 1 - pp.anchor
	if bound[pp.nodeCols[other]] {
		return nil
	}
	n := pp.pat.Nodes[other]
	patVars := map[string]bool{}
	for col := range cols {
		if !bound[col] {
			patVars[cols[col].name] = true
		}
	}
	if n.Var != "" {
		for _, c := range conjuncts {
			if ids, list, ok := idCondition(c, n.Var); ok && !readsAny(ids, patVars) {
				pp.targetIDs, pp.targetList = ids, list
				pp.used = append(pp.used, c)
				return nil
			}
		}
	}
	return at(pp.pat, "%s needs both ends known: bind %s before, or give it an id condition (WHERE id(%s) == ...)",
		pp.pat, n, ast.QuoteName(n.Var))
}

// idCondition recognises id(v) == x, x == id(v) and id(v) IN x.
func idCondition(c ast.Expr, v string) (ids ast.Expr, list, ok bool) {
	b, isBin := c.(*ast.BinaryExpr)
	if !isBin {
		return nil, false, false
	}
	isID := func(e ast.Expr) bool {
		f, ok := e.(*ast.FuncCall)
		if !ok || !strings.EqualFold(f.Name, "id") || len(f.Args) != 1 {
			return false
		}
		l, ok := f.Args[0].(*ast.LabelExpr)
		return ok && l.Name == v
	}
	switch {
	case b.Op == ast.OpEq && isID(b.L):
		return b.R, false, true
	case b.Op == ast.OpEq && isID(b.R):
		return b.L, false, true
	case b.Op == ast.OpIn && isID(b.L):
		return b.R, true, true
	}
	return nil, false, false
}

// readsAny reports whether e reads one of vars.
func readsAny(e ast.Expr, vars map[string]bool) bool {
	found := false
	ast.Inspect(e, func(x ast.Expr) bool {
		switch x := x.(type) {
		case *ast.LabelExpr:
			found = found || vars[x.Name]
		case *ast.EdgePropExpr:
			found = found || vars[x.Edge]
		}
		return !found
	})
	return found
}

// isConstant reports whether e reads no variable (parameters are fine).
func isConstant(e ast.Expr) bool {
	constant := true
	ast.Inspect(e, func(x ast.Expr) bool {
		switch x.(type) {
		case *ast.LabelExpr, *ast.EdgePropExpr, *ast.AggregateExpr, *ast.ListComprehension,
			*ast.PredicateExpr, *ast.ReduceExpr:
			constant = false
		}
		return constant
	})
	return constant
}

// indexConditions are the conditions on node n's tag l that an index scan
// of l can take: its property map, and WHERE comparisons of v.l.prop with
// a constant, written as LOOKUP's tag.prop.
func (p *matchPlan) indexConditions(n *ast.NodePattern, l *ast.NodeLabel, conjuncts []ast.Expr, patVars map[string]bool) []ast.Expr {
	var conds []ast.Expr
	if l.Props != nil {
		for _, it := range l.Props.Items {
			if isConstant(it.Value) {
				conds = append(conds, &ast.BinaryExpr{Pos: n.Pos, Op: ast.OpEq,
					L: &ast.EdgePropExpr{Pos: n.Pos, Edge: l.Name, Prop: it.Key}, R: it.Value})
			}
		}
	}
	if n.Var == "" {
		return conds
	}
	propOf := func(e ast.Expr) (string, bool) {
		a, ok := e.(*ast.AttributeExpr)
		if !ok {
			return "", false
		}
		ep, ok := a.X.(*ast.EdgePropExpr)
		if !ok || ep.Edge != n.Var || ep.Prop != l.Name {
			return "", false
		}
		return a.Name, true
	}
	for _, c := range conjuncts {
		b, ok := c.(*ast.BinaryExpr)
		if !ok {
			continue
		}
		switch b.Op {
		case ast.OpEq, ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe, ast.OpIn, ast.OpStartsWith:
		default:
			continue
		}
		if prop, ok := propOf(b.L); ok && isConstant(b.R) {
			conds = append(conds, &ast.BinaryExpr{Pos: b.Pos, Op: b.Op,
				L: &ast.EdgePropExpr{Pos: b.Pos, Edge: l.Name, Prop: prop}, R: b.R})
		}
	}
	return conds
}

func andAll(conds []ast.Expr) ast.Expr {
	var out ast.Expr
	for _, c := range conds {
		if out == nil {
			out = c
		} else {
			out = &ast.BinaryExpr{Pos: c.Position(), Op: ast.OpAnd, L: out, R: c}
		}
	}
	return out
}

// noStartError explains that a pattern has no start and what would give
// it one.
func (p *matchPlan) noStartError(pp *patternPlan) error {
	for _, n := range pp.pat.Nodes {
		if len(n.Labels) > 0 {
			l := n.Labels[0]
			prop := "()"
			if l.Props != nil && len(l.Props.Items) > 0 {
				prop = "(" + ast.QuoteName(l.Props.Items[0].Key) + ")"
			}
			return at(pp.pat, "MATCH %s has no start: tag %s has no index, and no node has an id condition. "+
				"Give one, as WHERE id(v) == ..., or create an index and rebuild it: CREATE TAG INDEX %s ON %s%s; REBUILD TAG INDEX %s",
				pp.pat, l.Name, l.Name+"_index", ast.QuoteName(l.Name), prop, l.Name+"_index")
		}
	}
	return at(pp.pat, "MATCH %s has no start: give a node an id condition (WHERE id(v) == ... or id(v) IN [...]), "+
		"or a tag with an index, as (v:tag) after CREATE TAG INDEX tag_index ON tag()", pp.pat)
}

// planHops orders the hops from the anchor: rightwards to the end, then
// leftwards to the beginning.
func (pp *patternPlan) planHops() {
	pp.hops = nil
	for i := pp.anchor; i < len(pp.pat.Rels); i++ {
		pp.hops = append(pp.hops, hopPlan{rel: i, from: i, to: i + 1})
	}
	for i := pp.anchor - 1; i >= 0; i-- {
		pp.hops = append(pp.hops, hopPlan{rel: i, from: i + 1, to: i, reverse: true})
	}
}

// resolveHopTypes fills each hop's signed edge types.
func (p *matchPlan) resolveHopTypes(pp *patternPlan) {
	spaceID := p.space.GetSpaceId()
	for h := range pp.hops {
		hop := &pp.hops[h]
		rel := pp.pat.Rels[hop.rel]
		var edges []*metapb.EdgeDesc
		if len(rel.Types) == 0 {
			edges = p.snap.Edges(spaceID)
		} else {
			for _, name := range rel.Types {
				e, _ := p.snap.EdgeByName(spaceID, name)
				edges = append(edges, e)
			}
		}
		dir := rel.Dir
		if hop.reverse {
			switch dir {
			case ast.RelOut:
				dir = ast.RelIn
			case ast.RelIn:
				dir = ast.RelOut
			}
		}
		hop.types = hop.types[:0]
		var names []string
		for _, e := range edges {
			t := e.GetEdgeType()
			switch dir {
			case ast.RelOut:
				hop.types = append(hop.types, t)
			case ast.RelIn:
				hop.types = append(hop.types, -t)
			default:
				hop.types = append(hop.types, t, -t)
			}
			names = append(names, e.GetName())
		}
		arrow := map[ast.RelDir]string{ast.RelOut: "OUT", ast.RelIn: "IN", ast.RelBoth: "BOTH"}[dir]
		hop.typeText = fmt.Sprintf("%s %s", strings.Join(names, "|"), arrow)
	}
}

// describe lists the plan's nodes for EXPLAIN, leaf first.
func (p *matchPlan) describe() []stageStat {
	var out []stageStat
	for _, cp := range p.clauses {
		switch c := cp.clause.(type) {
		case *ast.MatchClause:
			for _, pp := range cp.patterns {
				out = append(out, pp.describe()...)
			}
			if cp.where != nil {
				out = append(out, stageStat{name: "Filter", info: "condition: " + cp.where.String()})
			}
			if c.Optional {
				out = append(out, stageStat{name: "LeftJoin", info: "keeps rows without a match"})
			}
		case *ast.UnwindClause:
			out = append(out, stageStat{name: "Unwind", info: c.String()})
		case *ast.WithClause:
			out = append(out, projectionStages("WITH", c.Proj)...)
			if c.Where != nil {
				out = append(out, stageStat{name: "Filter", info: "condition: " + c.Where.String()})
			}
		}
	}
	return append(out, projectionStages("RETURN", p.stmt.Return)...)
}

func (pp *patternPlan) describe() []stageStat {
	var out []stageStat
	n := pp.pat.Nodes[pp.anchor]
	switch pp.kind {
	case anchorBound:
		out = append(out, stageStat{name: "Argument", info: "start: " + n.String() + " bound before"})
	case anchorIDs:
		op := "=="
		if pp.idsList {
			op = "IN"
		}
		out = append(out, stageStat{name: "StartFromIds", info: fmt.Sprintf("start: %s, id(%s) %s %s", n, ast.QuoteName(n.Var), op, pp.ids)})
	case anchorIndex:
		info := "start: " + n.String() + ", index scan: LOOKUP ON " + ast.QuoteName(pp.lookup.On)
		if pp.lookup.Where != nil {
			info += " WHERE " + pp.lookup.Where.String()
		}
		out = append(out, stageStat{name: "IndexScan", info: info})
	}
	if pp.fetch[pp.anchor] {
		out = append(out, stageStat{name: "GetVertices", info: "node " + n.String()})
	}
	for _, h := range pp.hops {
		rel := pp.pat.Rels[h.rel]
		info := fmt.Sprintf("%s to %s over %s", pp.pat.Nodes[h.from], pp.pat.Nodes[h.to], h.typeText)
		if pp.pat.Shortest != ast.NotShortest {
			what := map[ast.ShortestKind]string{ast.ShortestOne: "one shortest path", ast.ShortestAll: "all shortest paths"}[pp.pat.Shortest]
			out = append(out, stageStat{name: "ShortestPath", info: fmt.Sprintf("%s, %s, up to %d steps", info, what, max(rel.Max, 1))})
			if pp.fetch[h.to] {
				out = append(out, stageStat{name: "GetVertices", info: "node " + pp.pat.Nodes[h.to].String()})
			}
			continue
		}
		if rel.VarLen {
			info += fmt.Sprintf(", steps %d..%d", rel.Min, rel.Max)
		}
		if pp.relProps[h.rel] {
			info += ", edge properties"
		}
		out = append(out, stageStat{name: "Expand", info: info})
		if pp.fetch[h.to] {
			out = append(out, stageStat{name: "GetVertices", info: "node " + pp.pat.Nodes[h.to].String()})
		}
	}
	return out
}

// projectionName is the plan node of a WITH or RETURN: Aggregate when an
// item aggregates, else Project.
func projectionName(pr *ast.Projection) string {
	for _, it := range pr.Items {
		if findAggregate(it.Expr) != nil {
			return "Aggregate"
		}
	}
	return "Project"
}

func projectionStages(clause string, pr *ast.Projection) []stageStat {
	var out []stageStat
	out = append(out, stageStat{name: projectionName(pr), info: clause + " " + pr.String()})
	if pr.Distinct {
		out = append(out, stageStat{name: "Dedup"})
	}
	if len(pr.OrderBy) > 0 {
		out = append(out, stageStat{name: "Sort", info: "ORDER BY " + joinExprs(pr.OrderBy)})
	}
	if pr.Skip != nil || pr.Limit != nil {
		info := ""
		if pr.Skip != nil {
			info += "skip: " + pr.Skip.String() + " "
		}
		if pr.Limit != nil {
			info += "limit: " + pr.Limit.String()
		}
		out = append(out, stageStat{name: "Limit", info: info})
	}
	return out
}

func joinExprs[N ast.Node](ns []N) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = n.String()
	}
	return strings.Join(parts, ", ")
}
