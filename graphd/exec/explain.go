package exec

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// EXPLAIN prints the plan of any statement in NebulaGraph's row format:
// one row per plan node, the root first, each naming the nodes it reads
// from. PROFILE runs the statement and adds each node's output rows and
// time.
//
// A statement's nodes come from the same planning its execution does where
// planning is separate (GO: one node per stage; LOOKUP: the index chosen
// and the filter pushed down) and from the statement itself otherwise.
// Under PROFILE every statement records its stages as it runs (profile in
// stream.go), keyed by its AST node, and describe attaches them to its
// nodes in order.

// planNode is one row of EXPLAIN.
type planNode struct {
	name string
	info string
	deps []int
	stmt ast.Statement // the statement the node belongs to
	rows int
	took time.Duration
}

// planner builds the node list of one EXPLAIN; ids are list positions.
type planner struct {
	r     *runState
	nodes []planNode
}

// add appends a node and returns its id.
func (pl *planner) add(st ast.Statement, name, info string, deps ...int) int {
	pl.nodes = append(pl.nodes, planNode{name: name, info: info, deps: deps, stmt: st})
	return len(pl.nodes) - 1
}

// chain appends nodes that read each other in order, the first reading
// deps; it returns the last one's id.
func (pl *planner) chain(st ast.Statement, stages []stageStat, deps ...int) int {
	id := -1
	for _, s := range stages {
		id = pl.add(st, s.name, s.info, deps...)
		deps = []int{id}
	}
	return id
}

// describe appends the nodes of st, whose input has the columns in (nil:
// no input; unknownCols: some not known without running), and returns its
// root node and its output columns (nil when not known). Each kind
// describes itself (kinds.go).
func (pl *planner) describe(st ast.Statement, in []string, deps ...int) (int, []string, error) {
	k := kindOf(st)
	if k == nil {
		return 0, nil, at(st, "%s is not supported yet", stmtName(st))
	}
	return k.describe(pl, in, deps...)
}

// checkSink validates an operator after a pipe against its input columns,
// as running it would, without running anything.
func (pl *planner) checkSink(st ast.Statement, in []string) error {
	sink, err := pl.r.sinkFor(st, discardSink{})
	if err != nil {
		return err
	}
	return unwrapSink(sink).open(context.Background(), in)
}

// discardSink accepts and drops rows (EXPLAIN's validation).
type discardSink struct{}

func (discardSink) open(context.Context, []string) error        { return nil }
func (discardSink) push(context.Context, [][]value.Value) error { return nil }
func (discardSink) close(context.Context) error                 { return nil }

// unknownCols stands for the columns of an input that are not known
// without running its statement (FETCH or LOOKUP without YIELD, …).
var unknownCols = []string{"\x00unknown"}

func isUnknown(cols []string) bool { return len(cols) == 1 && cols[0] == unknownCols[0] }

func yieldNames(y *ast.YieldClause) []string {
	if y == nil {
		return nil
	}
	names := make([]string, len(y.Columns))
	for i, c := range y.Columns {
		names[i] = c.Name()
	}
	return names
}

func columnsText(y *ast.YieldClause) string {
	if y == nil {
		return "[default]"
	}
	cols := make([]string, len(y.Columns))
	for i, c := range y.Columns {
		cols[i] = c.String()
	}
	return "[" + strings.Join(cols, ", ") + "]"
}

// goStagesFromText describes a GO whose input columns are unknown until
// its input ran: the stages without what planning would resolve.
func goStagesFromText(s *ast.GoStmt) []stageStat {
	stages := []stageStat{{name: "Start", info: "from: " + s.From.String()}}
	for step := 1; step <= s.Steps.Max; step++ {
		stages = append(stages, stageStat{name: "GetNeighbors", info: fmt.Sprintf("step: %d, over: %s", step, s.Over)})
	}
	if s.Where != nil {
		stages = append(stages, stageStat{name: "Filter", info: "condition: " + s.Where.String()})
	}
	stages = append(stages, stageStat{name: "Project", info: "columns: " + columnsText(s.Yield)})
	if s.Yield != nil && s.Yield.Distinct {
		stages = append(stages, stageStat{name: "Dedup"})
	}
	return stages
}

// nodeName names the single plan node of a statement that has no stages:
// its first two keywords in CamelCase ("INSERT EDGE …" → "InsertEdge",
// "USE s" → "Use").
func nodeName(st ast.Statement) string {
	var b strings.Builder
	for i, w := range strings.Fields(st.String()) {
		if i == 2 || w != strings.ToUpper(w) || strings.IndexFunc(w, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
			break
		}
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	if b.Len() == 0 {
		return "Statement"
	}
	return b.String()
}

// explain answers EXPLAIN and PROFILE.
func (r *runState) explain(ctx context.Context, s *ast.ExplainStmt) (*table, error) {
	if s.Format != "" && s.Format != "row" {
		return nil, at(s, "EXPLAIN FORMAT = %q is not supported; use \"row\"", s.Format)
	}
	if _, nested := s.Stmt.(*ast.ExplainStmt); nested {
		return nil, at(s, "EXPLAIN and PROFILE cannot be nested")
	}
	pl := &planner{r: r}
	if !s.Profile {
		if _, _, err := pl.describe(s.Stmt, nil); err != nil {
			return nil, err
		}
		return pl.table(false), nil
	}
	// PROFILE runs the statement first: describing it before would plan
	// against the catalog as it was before a DDL it runs.
	r.prof = &profile{stats: map[ast.Statement][]stageStat{}}
	_, err := r.statement(ctx, s.Stmt)
	prof := r.prof
	r.prof = nil
	if err != nil {
		return nil, err
	}
	if _, _, err := pl.describe(s.Stmt, nil); err != nil {
		return nil, err
	}
	pl.attach(prof)
	return pl.table(true), nil
}

// attach gives each node the figures its statement recorded: stages in
// order by name, and a statement's one unnamed record to its last node.
func (pl *planner) attach(prof *profile) {
	used := map[ast.Statement]int{}
	for i := range pl.nodes {
		n := &pl.nodes[i]
		stats := prof.stats[n.stmt]
		for j := used[n.stmt]; j < len(stats); j++ {
			if stats[j].name == n.name {
				n.rows, n.took = stats[j].rows, stats[j].took
				used[n.stmt] = j + 1
				break
			}
		}
	}
	// Unnamed records (a statement run as one piece) go to the last node
	// of their statement: the one whose rows leave it.
	last := map[ast.Statement]int{}
	for i, n := range pl.nodes {
		last[n.stmt] = i
	}
	for st, i := range last {
		for _, s := range prof.stats[st] {
			if s.name == "" {
				pl.nodes[i].rows, pl.nodes[i].took = s.rows, s.took
			}
		}
	}
}

// table renders the nodes, root first.
func (pl *planner) table(profiled bool) *table {
	cols := []string{"id", "name", "dependencies", "operator info"}
	if profiled {
		cols = []string{"id", "name", "dependencies", "profiling data", "operator info"}
	}
	t := newTable(cols...)
	for i := len(pl.nodes) - 1; i >= 0; i-- {
		n := pl.nodes[i]
		deps := make([]string, len(n.deps))
		for j, d := range n.deps {
			deps[j] = fmt.Sprint(d)
		}
		row := []value.Value{value.Int(int64(i)), value.Str(n.name), value.Str(strings.Join(deps, ","))}
		if profiled {
			row = append(row, value.Str(fmt.Sprintf("rows: %d, time: %dus", n.rows, n.took.Microseconds())))
		}
		row = append(row, value.Str(strings.TrimSpace(n.info)))
		t.add(row...)
	}
	return t
}
