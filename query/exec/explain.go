package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// explain prints the plan of a GO statement as NebulaGraph's row format
// does: one row per plan node, the first row the root. PROFILE also runs
// it and adds rows and time per node.
func (r *runState) explain(ctx context.Context, s *ast.ExplainStmt) (*table, error) {
	g, ok := s.Stmt.(*ast.GoStmt)
	if !ok {
		return nil, at(s, "EXPLAIN and PROFILE support GO statements for now")
	}
	if s.Format != "" && s.Format != "row" {
		return nil, at(s, "EXPLAIN FORMAT = %q is not supported; use \"row\"", s.Format)
	}
	p, err := r.planGo(g, nil)
	if err != nil {
		return nil, err
	}
	nodes := p.describe()
	cols := []string{"id", "name", "dependencies", "operator info"}
	if s.Profile {
		var stats []stageStat
		if _, err := p.run(ctx, &stats); err != nil {
			return nil, err
		}
		// Attach each stage's figures to the plan node of the same name, in
		// order (GetNeighbors repeats once per step).
		used := make([]bool, len(stats))
		for i := range nodes {
			for j, st := range stats {
				if !used[j] && st.name == nodes[i].name {
					used[j] = true
					nodes[i].rows, nodes[i].took = st.rows, st.took
					break
				}
			}
		}
		cols = []string{"id", "name", "dependencies", "profiling data", "operator info"}
	}
	t := newTable(cols...)
	for i := len(nodes) - 1; i >= 0; i-- {
		deps := ""
		if i > 0 {
			deps = fmt.Sprint(i - 1)
		}
		row := []value.Value{value.Int(int64(i)), value.Str(nodes[i].name), value.Str(deps)}
		if s.Profile {
			row = append(row, value.Str(fmt.Sprintf("rows: %d, time: %dus", nodes[i].rows, nodes[i].took.Microseconds())))
		}
		row = append(row, value.Str(strings.TrimSpace(nodes[i].info)))
		t.add(row...)
	}
	return t, nil
}
