package main

import (
	"fmt"
	"strings"
)

// Workload is one k-hop form of issue 22's table.
type Workload struct {
	Name  string // go1, go2, go3, go3_props, ...
	Steps int
	Props bool
}

// Label is the row label of the report ("GO 3 + props").
func (w Workload) Label() string {
	if w.Props {
		return fmt.Sprintf("GO %d + props", w.Steps)
	}
	return fmt.Sprintf("GO %d", w.Steps)
}

// Workloads are the forms the harness knows; DefaultWorkloads are issue
// 22's table.
var (
	Workloads = []Workload{
		{"go1", 1, false}, {"go2", 2, false}, {"go3", 3, false},
		{"go1_props", 1, true}, {"go2_props", 2, true}, {"go3_props", 3, true},
	}
	DefaultWorkloads = "go1,go2,go3,go3_props"
)

// FindWorkloads parses a comma-separated list of workload names.
func FindWorkloads(list string) ([]Workload, error) {
	var out []Workload
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, w := range Workloads {
			if strings.EqualFold(w.Name, name) {
				out = append(out, w)
				found = true
			}
		}
		if !found {
			var names []string
			for _, w := range Workloads {
				names = append(names, w.Name)
			}
			return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(names, ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no workloads")
	}
	return out, nil
}

// NGQL is the statement sent to graphd, reading the start vertex as $id.
func (w Workload) NGQL() string {
	step := "STEPS"
	if w.Steps == 1 {
		step = "STEP"
	}
	yield := "dst(edge)"
	if w.Props {
		yield = "dst(edge), $$.node.name, $$.node.age, follows.weight"
	}
	return fmt.Sprintf("GO %d %s FROM $id OVER follows YIELD %s", w.Steps, step, yield)
}

// SQL is the same query for DuckDB, in issue 22's shape: the frontier of
// each step a SELECT DISTINCT CTE over the previous one joined with the
// (sorted, indexed) edge table, and the result every edge leaving the last
// frontier, with multiplicity, the destination's properties joined from
// the node table (LEFT JOIN: a destination without the tag gives NULLs, as
// $$.node.name does). The start vertex is the statement's one parameter.
func (w Workload) SQL() string {
	var b strings.Builder
	last := "f0"
	// f1 .. f{steps-1}: the frontiers of steps 2 .. steps.
	for k := 1; k < w.Steps; k++ {
		if k == 1 {
			b.WriteString("WITH f1 AS (SELECT DISTINCT dst AS v FROM follows WHERE src = $1)")
		} else {
			fmt.Fprintf(&b, ",\nf%d AS (SELECT DISTINCT e.dst AS v FROM f%d JOIN follows e ON e.src = f%d.v)", k, k-1, k-1)
		}
		last = fmt.Sprintf("f%d", k)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	cols := "e.dst"
	if w.Props {
		cols = "e.dst, n.name, n.age, e.weight"
	}
	if w.Steps == 1 {
		fmt.Fprintf(&b, "SELECT %s FROM follows e", cols)
	} else {
		fmt.Fprintf(&b, "SELECT %s FROM %s JOIN follows e ON e.src = %s.v", cols, last, last)
	}
	if w.Props {
		b.WriteString(" LEFT JOIN node n ON n.id = e.dst")
	}
	if w.Steps == 1 {
		b.WriteString(" WHERE e.src = $1")
	}
	return b.String()
}
