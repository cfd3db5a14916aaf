package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// opsCell renders one cell: NULL as NULL, strings bare, floats always
// with a fraction (so 4.0 and 4 differ), lists as [a, b].
func opsCell(row client.Row, j int) string {
	if row.IsNull(j) {
		return "NULL"
	}
	if s, ok := row.Value(j).(string); ok {
		return s
	}
	if l, ok := row.Value(j).([]any); ok {
		parts := make([]string, len(l))
		for i, x := range l {
			if s, ok := x.(string); ok {
				parts[i] = s
			} else {
				parts[i] = client.FormatValue(x)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return row.Display(j)
}

// opsRows runs stmt and renders its rows in result order, "a|b|c".
func opsRows(t *testing.T, s *client.Session, stmt string) []string {
	t.Helper()
	rs := exec(t, s, stmt)
	out := make([]string, rs.Len())
	for i := range out {
		row := rs.Row(i)
		parts := make([]string, row.Len())
		for j := range parts {
			parts[j] = opsCell(row, j)
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// expectOrdered checks the rows of stmt, in order.
func expectOrdered(t *testing.T, s *client.Session, stmt string, want ...string) {
	t.Helper()
	got := opsRows(t, s, stmt)
	if !slices.Equal(got, want) {
		t.Fatalf("%s\ngot:  %q\nwant: %q", stmt, got, want)
	}
}

// expectSet checks the rows of stmt in any order.
func expectSet(t *testing.T, s *client.Session, stmt string, want ...string) {
	t.Helper()
	got := opsRows(t, s, stmt)
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s\ngot:  %q\nwant: %q", stmt, got, want)
	}
}

// expectColumns checks the column names of stmt's result.
func expectColumns(t *testing.T, s *client.Session, stmt string, want ...string) {
	t.Helper()
	if got := exec(t, s, stmt).Columns(); !slices.Equal(got, want) {
		t.Fatalf("%s: columns %q, want %q", stmt, got, want)
	}
}

// subMultiset reports whether every row of got is in pool, as often at
// most as pool has it.
func subMultiset(got, pool []string) bool {
	left := map[string]int{}
	for _, p := range pool {
		left[p]++
	}
	for _, g := range got {
		if left[g] == 0 {
			return false
		}
		left[g]--
	}
	return true
}

// TestQueryOperators covers GROUP BY and aggregates, ORDER BY, LIMIT, the
// set operators and GO's per-step SAMPLE / LIMIT on small hand-checked
// graphs, and the errors users meet.
func TestQueryOperators(t *testing.T) {
	s := startSpace(t, "ops", 3)
	exec(t, s, `CREATE TAG person(name string, age int NULL)`)
	exec(t, s, `CREATE EDGE e(w int NULL)`)
	exec(t, s, `CREATE EDGE s()`)
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "a":("Ann", 30), "b":("Bob", 40), "c":("Cid", NULL), "d":("Dee", 30)`)
	// a→b (w 1), a→b@1 (w 2), a→c (NULL), a→d (3), b→c (4), b→d (4),
	// c→a (5), d→a (NULL).
	exec(t, s, `INSERT EDGE e(w) VALUES "a"->"b":(1), "a"->"b"@1:(2), "a"->"c":(NULL), "a"->"d":(3), "b"->"c":(4), "b"->"d":(4), "c"->"a":(5), "d"->"a":(NULL)`)
	// A two-level star over s: h→x01..x20, each xNN→yNNa, yNNb, yNNc.
	var star []string
	for i := 1; i <= 20; i++ {
		star = append(star, fmt.Sprintf(`"h"->"x%02d":()`, i))
		for _, c := range "abc" {
			star = append(star, fmt.Sprintf(`"x%02d"->"y%02d%c":()`, i, i, c))
		}
	}
	exec(t, s, `INSERT EDGE s() VALUES `+strings.Join(star, ", "))

	// From a and b: (b,1) (b,2) (c,NULL) (d,3) (c,4) (d,4).
	const ab = `GO FROM "a", "b" OVER e YIELD dst(edge) AS d, e.w AS w`

	t.Run("group by", func(t *testing.T) {
		expectSet(t, s, ab+` | GROUP BY $-.d YIELD $-.d AS d, count(*) AS n, count($-.w) AS nw, sum($-.w) AS s, avg($-.w) AS a, min($-.w) AS lo, max($-.w) AS hi`,
			"b|2|2|3|1.5|1|2", "c|2|1|4|4.0|4|4", "d|2|2|7|3.5|3|4")
		expectColumns(t, s, ab+` | GROUP BY $-.d YIELD $-.d, count(*), COUNT(DISTINCT $-.w)`, "$-.d", "count(*)", "COUNT(DISTINCT $-.w)")
		// A group whose values are all NULL: count 0, sum 0, the rest NULL.
		expectSet(t, s, `GO FROM "a" OVER e WHERE dst(edge) == "c" YIELD dst(edge) AS d, e.w AS w | GROUP BY $-.d YIELD $-.d, count($-.w), sum($-.w), avg($-.w), min($-.w), max($-.w), collect($-.w), count(*)`,
			"c|0|0|NULL|NULL|NULL|[]|1")
		// NULL is a key like any other; keys may be expressions.
		expectSet(t, s, ab+` | GROUP BY $-.w % 2 YIELD $-.w % 2 AS parity, count(*) AS n, sum($-.w) + 100 AS s`,
			"1|2|104", "0|3|110", "NULL|1|100")
		expectSet(t, s, ab+` | GROUP BY $-.d, $-.w > 1 YIELD $-.d, $-.w > 1, count(*)`,
			"b|false|1", "b|true|1", "c|NULL|1", "c|true|1", "d|true|2")
		// DISTINCT inside aggregates and collect over ordered input.
		expectSet(t, s, ab+` | GROUP BY $-.d YIELD $-.d, count(DISTINCT $-.w), sum(DISTINCT $-.w), count(DISTINCT $-.d)`,
			"b|2|3|1", "c|1|4|1", "d|2|7|1")
		expectSet(t, s, ab+` | ORDER BY $-.w, $-.d | YIELD collect_set($-.d) AS ds, collect($-.d) AS all, collect_set($-.w % 2) AS ps`,
			"[b, d, c]|[b, b, d, c, d, c]|[1, 0]")
		expectOrdered(t, s, ab+` | ORDER BY $-.w DESC, $-.d | GROUP BY $-.d YIELD $-.d AS d, collect($-.w) AS ws | ORDER BY $-.d`,
			"b|[2, 1]", "c|[4]", "d|[4, 3]")
		// YIELD DISTINCT of GROUP BY, and grouping piped on.
		expectSet(t, s, ab+` | GROUP BY $-.d YIELD DISTINCT count(*) AS n`, "2")
		expectSet(t, s, `GO 2 STEPS FROM "h" OVER s YIELD src(edge) AS x | GROUP BY $-.x YIELD $-.x AS x, count(*) AS n | YIELD count(*) AS groups, sum($-.n) AS total, min($-.n), max($-.n)`,
			"20|60|3|3")
		// Empty input: GROUP BY yields no rows.
		expectSet(t, s, `GO FROM "zz" OVER e YIELD dst(edge) AS d | GROUP BY $-.d YIELD $-.d, count(*)`)
		// A variable as input, as NebulaGraph allows.
		expectSet(t, s, `$v = GO FROM "a" OVER e YIELD dst(edge) AS d; GROUP BY $v.d YIELD $v.d AS d, count(*) AS n`, "b|2", "c|1", "d|1")
	})

	t.Run("aggregate yield", func(t *testing.T) {
		expectSet(t, s, ab+` | ORDER BY $-.d | YIELD count(*) AS n, count(DISTINCT $-.d) AS nd, sum($-.w), avg($-.w), collect_set($-.d)`, "6|3|14|2.8|[b, c, d]")
		// Columns without aggregates group implicitly.
		expectSet(t, s, ab+` | YIELD $-.d AS d, count(*) AS n, max($-.w) AS hi`, "b|2|2", "c|2|4", "d|2|4")
		expectSet(t, s, ab+` | YIELD count(*) AS n WHERE $-.w IS NOT NULL`, "5")
		// No input rows and no keys: one row.
		expectSet(t, s, `GO FROM "zz" OVER e YIELD dst(edge) AS d | YIELD count(*), count($-.d), sum(1), avg(1), min($-.d), collect($-.d)`, "0|0|0|NULL|NULL|[]")
		expectSet(t, s, `YIELD count(*) AS n, sum(2) AS s`, "1|2")
		expectSet(t, s, `$v = GO FROM "a" OVER e YIELD dst(edge) AS d; YIELD count($v.d) AS n`, "4")
		// sum of INT stays INT, of FLOAT is FLOAT; avg is FLOAT.
		expectSet(t, s, `(YIELD 1 AS x UNION ALL YIELD 2.5 AS x) | YIELD sum($-.x), avg($-.x), min($-.x), max($-.x)`, "3.5|1.75|1|2.5")
	})

	t.Run("order by", func(t *testing.T) {
		expectOrdered(t, s, ab+` | ORDER BY $-.w, $-.d`, "b|1", "b|2", "d|3", "c|4", "d|4", "c|NULL")
		expectOrdered(t, s, ab+` | ORDER BY $-.w DESC, $-.d DESC`, "c|NULL", "d|4", "c|4", "d|3", "b|2", "b|1")
		expectOrdered(t, s, ab+` | ORDER BY $-.w ASC, $-.d DESC`, "b|1", "b|2", "d|3", "d|4", "c|4", "c|NULL")
		// Stable: ties keep the order of the input.
		expectOrdered(t, s, ab+` | ORDER BY $-.d, $-.w | ORDER BY $-.d DESC`, "d|3", "d|4", "c|4", "c|NULL", "b|1", "b|2")
		expectOrdered(t, s, ab+` | ORDER BY $-.d, $-.w | ORDER BY $-.w IS NULL`, "b|1", "b|2", "c|4", "d|3", "d|4", "c|NULL")
		// Mixed kinds: BOOL < numbers < STRING < NULL; INT and FLOAT by value.
		const mixed = `(YIELD 2 AS x UNION ALL YIELD NULL AS x UNION ALL YIELD 1.5 AS x UNION ALL YIELD "a" AS x UNION ALL YIELD 1 AS x UNION ALL YIELD true AS x)`
		expectOrdered(t, s, mixed+` | ORDER BY $-.x`, "true", "1", "1.5", "2", "a", "NULL")
		expectOrdered(t, s, mixed+` | ORDER BY $-.x DESC`, "NULL", "a", "2", "1.5", "1", "true")
		// A variable as input, as in NebulaGraph's documentation.
		expectOrdered(t, s, `$v = GO FROM "a" OVER e YIELD dst(edge) AS dst; ORDER BY $v.dst DESC`, "d", "c", "b", "b")
		expectColumns(t, s, ab+` | ORDER BY $-.d`, "d", "w")
	})

	t.Run("limit", func(t *testing.T) {
		const sorted = ab + ` | ORDER BY $-.w, $-.d`
		expectOrdered(t, s, sorted+` | LIMIT 2`, "b|1", "b|2")
		expectOrdered(t, s, sorted+` | LIMIT 2, 3`, "d|3", "c|4", "d|4")
		expectOrdered(t, s, sorted+` | OFFSET 4 LIMIT 10`, "d|4", "c|NULL")
		expectOrdered(t, s, sorted+` | LIMIT 10, 3`)
		expectOrdered(t, s, sorted+` | LIMIT 0`)
		expectOrdered(t, s, sorted+` | LIMIT 1 | GO FROM $-.d OVER e YIELD $-.d, dst(edge) AS next | ORDER BY $-.next`, "b|c", "b|d")
		expectColumns(t, s, sorted+` | LIMIT 1`, "d", "w")
	})

	t.Run("set operators", func(t *testing.T) {
		// a: b, b, c, d; b: c, d; c: a.
		expectSet(t, s, `GO FROM "a" OVER e UNION GO FROM "b" OVER e`, "b", "c", "d")
		expectSet(t, s, `GO FROM "a" OVER e UNION DISTINCT GO FROM "b" OVER e`, "b", "c", "d")
		expectSet(t, s, `GO FROM "a" OVER e UNION ALL GO FROM "b" OVER e`, "b", "b", "c", "d", "c", "d")
		expectSet(t, s, `GO FROM "a" OVER e INTERSECT GO FROM "b" OVER e`, "c", "d")
		// INTERSECT and MINUS keep the left side's duplicates.
		expectSet(t, s, `GO FROM "a" OVER e INTERSECT GO FROM "c", "a" OVER e`, "b", "b", "c", "d")
		expectSet(t, s, `GO FROM "a" OVER e MINUS GO FROM "b" OVER e`, "b", "b")
		expectSet(t, s, `GO FROM "a" OVER e MINUS GO FROM "a" OVER e`)
		// Whole rows compare; names come from the left.
		expectSet(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS x, e.w AS w UNION GO FROM "b" OVER e YIELD dst(edge) AS y, e.w AS v`,
			"b|1", "b|2", "c|NULL", "d|3", "c|4", "d|4")
		expectColumns(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS x UNION GO FROM "b" OVER e YIELD dst(edge) AS y`, "x")
		expectSet(t, s, `YIELD NULL AS x UNION YIELD NULL AS x`, "NULL")
		expectSet(t, s, `YIELD NULL AS x INTERSECT YIELD NULL AS x`, "NULL")
		// INT 1 and FLOAT 1.0 are different rows, as for DISTINCT.
		expectSet(t, s, `YIELD 1 AS x INTERSECT YIELD 1.0 AS x`)
		// '|' binds tighter; set operators chain to the left.
		expectSet(t, s, `YIELD 5 AS x UNION YIELD 1 AS x | YIELD $-.x + 1 AS x`, "5", "2")
		expectSet(t, s, `(YIELD 5 AS x UNION YIELD 1 AS x) | YIELD $-.x + 1 AS x`, "6", "2")
		expectSet(t, s, `YIELD 1 AS x UNION ALL YIELD 1 AS x UNION YIELD 2 AS x`, "1", "2")
		expectSet(t, s, `YIELD 1 AS x UNION ALL (YIELD 1 AS x UNION YIELD 2 AS x)`, "1", "1", "2")
		expectSet(t, s, `YIELD 1 AS x UNION ALL YIELD 1 AS x MINUS YIELD 2 AS x`, "1", "1")
		expectSet(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id | GO FROM $-.id OVER e YIELD dst(edge) AS id UNION GO FROM "d" OVER e YIELD dst(edge) AS id`,
			"a", "c", "d")
		// Both sides read the same piped rows.
		expectSet(t, s, `YIELD 3 AS x | (YIELD $-.x AS x UNION ALL YIELD $-.x * 2 AS x) | ORDER BY $-.x`, "3", "6")
		expectSet(t, s, `$v = GO FROM "a" OVER e YIELD dst(edge) AS id MINUS GO FROM "b" OVER e YIELD dst(edge) AS id; YIELD $v.id`, "b", "b")
		expectOrdered(t, s, `(GO FROM "a" OVER e YIELD dst(edge) AS id UNION GO FROM "c" OVER e YIELD dst(edge) AS id) | ORDER BY $-.id DESC | LIMIT 2`, "d", "c")
	})

	t.Run("go limit and sample", func(t *testing.T) {
		aEdges := []string{"b|0", "b|1", "c|0", "d|0"}
		for _, n := range []int{0, 1, 2, 3} {
			got := opsRows(t, s, fmt.Sprintf(`GO FROM "a" OVER e YIELD dst(edge), rank(edge) LIMIT [%d]`, n))
			if len(got) != n || !subMultiset(got, aEdges) {
				t.Fatalf("LIMIT [%d] from a: %q", n, got)
			}
		}
		expectSet(t, s, `GO FROM "a" OVER e YIELD dst(edge), rank(edge) LIMIT [10]`, aEdges...)
		// Step 2 continues from step 1's kept edges only.
		for i := 0; i < 5; i++ {
			got := opsRows(t, s, `GO 2 STEPS FROM "a" OVER e YIELD src(edge), dst(edge) LIMIT [1, 10]`)
			slices.Sort(got)
			if !slices.Equal(got, []string{"b|c", "b|d"}) && !slices.Equal(got, []string{"c|a"}) && !slices.Equal(got, []string{"d|a"}) {
				t.Fatalf("LIMIT [1, 10]: %q", got)
			}
		}
		expectSet(t, s, `GO 1 TO 2 STEPS FROM "a" OVER e YIELD dst(edge) LIMIT [4, 0]`, "b", "b", "c", "d")
		expectSet(t, s, `GO 2 STEPS FROM "a" OVER e YIELD dst(edge) LIMIT [0, 5]`)
		// The limit is on the step's total, across the frontier.
		star := func(stmt string, want int) []string {
			t.Helper()
			got := opsRows(t, s, stmt)
			if len(got) != want {
				t.Fatalf("%s: %d rows, want %d: %q", stmt, len(got), want, got)
			}
			return got
		}
		star(`GO 2 STEPS FROM "h" OVER s LIMIT [5, 7]`, 7)
		star(`GO 2 STEPS FROM "h" OVER s LIMIT [5, 100]`, 15)
		star(`GO 2 STEPS FROM "h" OVER s SAMPLE [5, 7]`, 7)
		star(`GO 2 STEPS FROM "h" OVER s SAMPLE [20, 100]`, 60)
		star(`GO 2 STEPS FROM "h" OVER s SAMPLE [2, 100]`, 6)
		star(`GO 2 STEPS FROM "h" OVER s YIELD src(edge) AS x LIMIT [5, 100] | GROUP BY $-.x YIELD $-.x, count(*) AS n`, 5)
		// The rows of step 2 leave from vertices step 1 kept, and no edge
		// is picked twice.
		for i := 0; i < 10; i++ {
			rows := star(`GO 1 TO 2 STEPS FROM "h" OVER s YIELD src(edge), dst(edge) SAMPLE [4, 6]`, 10)
			reached := map[string]bool{}
			seen := map[string]bool{}
			for _, r := range rows {
				if seen[r] {
					t.Fatalf("SAMPLE picked %s twice: %q", r, rows)
				}
				seen[r] = true
				src, dst, _ := strings.Cut(r, "|")
				if src == "h" {
					reached[dst] = true
				}
			}
			if len(reached) != 4 {
				t.Fatalf("step 1 kept %d edges: %q", len(reached), rows)
			}
			for _, r := range rows {
				src, dst, _ := strings.Cut(r, "|")
				if src != "h" && (!reached[src] || !strings.HasPrefix(dst, "y"+src[1:])) {
					t.Fatalf("step 2 row %s does not continue step 1: %q", r, rows)
				}
			}
		}
		// Every edge of the step can be sampled: over 40 samples of 2 of
		// a's 4 edges each edge shows up (each run keeps a given edge with
		// probability 1/2, so missing one has probability about 4/2^40).
		counts := map[string]int{}
		for i := 0; i < 40; i++ {
			got := opsRows(t, s, `GO FROM "a" OVER e YIELD dst(edge), rank(edge) SAMPLE [2]`)
			if len(got) != 2 || !subMultiset(got, aEdges) || got[0] == got[1] {
				t.Fatalf("SAMPLE [2] from a: %q", got)
			}
			for _, r := range got {
				counts[r]++
			}
		}
		for _, e := range aEdges {
			if counts[e] == 0 {
				t.Fatalf("edge %s never sampled in 40 runs: %v", e, counts)
			}
		}
		// Sampling across vertices: 3 distinct edges of the 6 from a and b.
		abEdges := []string{"a|b|0", "a|b|1", "a|c|0", "a|d|0", "b|c|0", "b|d|0"}
		for i := 0; i < 10; i++ {
			got := opsRows(t, s, `GO FROM "a", "b" OVER e YIELD src(edge), dst(edge), rank(edge) SAMPLE [3]`)
			slices.Sort(got)
			if len(got) != 3 || !subMultiset(got, abEdges) || len(slices.Compact(slices.Clone(got))) != 3 {
				t.Fatalf("SAMPLE [3] from a, b: %q", got)
			}
		}
		// WHERE that storage evaluates applies before the limit.
		expectSet(t, s, `GO FROM "a" OVER e WHERE e.w > 1 YIELD dst(edge), e.w LIMIT [2]`, "b|2", "d|3")
		plan := strings.Join(opsRows(t, s, `EXPLAIN GO 2 STEPS FROM "h" OVER s SAMPLE [5, 7]`), "\n")
		if !strings.Contains(plan, "samplePerVertex: 5") || !strings.Contains(plan, "samplePerVertex: 7") {
			t.Fatalf("EXPLAIN does not show the pushed-down sample:\n%s", plan)
		}
	})

	t.Run("properties", func(t *testing.T) {
		expectSet(t, s, `GO FROM "a" OVER e YIELD dst(edge), properties(edge).w`, "b|1", "b|2", "c|NULL", "d|3")
		expectColumns(t, s, `GO FROM "a" OVER e YIELD dst(edge), properties(edge).w, properties($$).name AS n`, "dst(EDGE)", "properties(EDGE).w", "n")
		expectSet(t, s, `GO FROM "a" OVER e WHERE properties(edge).w > 1 YIELD properties($^).name, properties($$).name, properties($$).age`,
			"Ann|Bob|40", "Ann|Dee|30")
		expectSet(t, s, `GO FROM "a", "b" OVER e YIELD properties($$).name AS n | GROUP BY $-.n YIELD $-.n, count(*)`, "Bob|2", "Cid|2", "Dee|2")
		// Over several edge types, each row reads its own edge's property.
		expectSet(t, s, `GO FROM "x01", "a" OVER s, e WHERE dst(edge) != "b" YIELD type(edge), properties(edge).w`,
			"s|NULL", "s|NULL", "s|NULL", "e|NULL", "e|3")
		expectError(t, s, `GO FROM "a" OVER e YIELD properties(edge).nope`, graphpb.QueryErrorCode_E_SEMANTIC, "line 1, column 26", `no edge type of OVER has a property "nope"`)
		expectError(t, s, `GO FROM "a" OVER s YIELD properties(edge).w`, graphpb.QueryErrorCode_E_SEMANTIC, `property "w"`)
		expectError(t, s, `GO FROM "a" OVER e YIELD properties($$).nope`, graphpb.QueryErrorCode_E_SEMANTIC, `no tag of space "ops" has a property "nope"`)
	})

	t.Run("errors", func(t *testing.T) {
		sem, syn, run := graphpb.QueryErrorCode_E_SEMANTIC, graphpb.QueryErrorCode_E_SYNTAX, graphpb.QueryErrorCode_E_EXECUTION
		expectError(t, s, ab+` | GROUP BY $-.d YIELD $-.w, count(*)`, sem, "line 1, column 78", "$-.w", "GROUP BY key")
		expectError(t, s, ab+` | YIELD $-.d AS d, $-.w + count(*)`, sem, "column 75", "$-.w", "aggregate function")
		expectError(t, s, `GO FROM "a" OVER e YIELD count(*)`, sem, "line 1, column 26", "aggregate function count(*)")
		expectError(t, s, `GO FROM "a" OVER e WHERE sum(e.w) > 1`, sem, "column 26", "aggregate function sum(e.w)")
		expectError(t, s, `FETCH PROP ON person "a" YIELD max(person.age)`, sem, "aggregate function max(person.age)")
		expectError(t, s, ab+` | GROUP BY count(*) YIELD count(*)`, sem, "column 67", "cannot be a GROUP BY key")
		expectError(t, s, ab+` | GROUP BY $-.d YIELD sum(count(*))`, sem, "column 82", "cannot be nested")
		expectError(t, s, ab+` | YIELD count(*) WHERE count(*) > 1`, sem, "not allowed in WHERE")
		expectError(t, s, ab+` | GROUP BY $-.nope YIELD count(*)`, sem, `no column "nope"`)
		expectError(t, s, ab+` | GROUP BY $-.d YIELD $-.d AS n, count(*) AS n`, sem, `duplicate column name "n"`)
		expectError(t, s, ab+` | GROUP BY $-.d YIELD nope($-.d)`, sem, "unknown function nope")
		expectError(t, s, ab+` | ORDER BY $-.nope`, sem, `no column "nope"`)
		expectError(t, s, ab+` | ORDER BY e.w`, sem, "ORDER BY cannot read edge or vertex properties")
		expectError(t, s, `ORDER BY $-.d`, sem, "no input is piped")
		expectError(t, s, `GROUP BY 1 YIELD count(*)`, sem, "line 1, column 1", "GROUP BY needs rows")
		expectError(t, s, `(LIMIT 1)`, sem, "LIMIT needs rows")
		expectError(t, s, `LIMIT 3`, syn, "line 1, column 1", "LIMIT reads piped rows")
		expectError(t, s, ab+` | LIMIT -1`, syn, "a row count must be an integer from 0")
		expectError(t, s, `YIELD "x" AS s | YIELD sum($-.s)`, run, "sum() expects numbers")
		expectError(t, s, `YIELD 1 AS a UNION YIELD 1 AS a, 2 AS b`, sem, "line 1, column 14", "UNION needs the same number of columns")
		expectError(t, s, `YIELD 1 AS a MINUS GO FROM "a" OVER e YIELD src(edge), dst(edge)`, sem, "MINUS needs the same number of columns")
		expectError(t, s, `USE ops UNION YIELD 1`, syn, "column 9", "combined with UNION")
		expectError(t, s, `GO 2 STEPS FROM "a" OVER e LIMIT [1]`, sem, "line 1, column 28", "LIMIT has 1 count(s) but GO takes 2 step(s)")
		expectError(t, s, `GO FROM "a" OVER e SAMPLE [1, 2]`, sem, "SAMPLE has 2 count(s) but GO takes 1 step(s)")
		expectError(t, s, `GO FROM "a" OVER e LIMIT 1`, syn, "line 1, column 26", "GO's LIMIT takes one count per step")
		expectError(t, s, `GO FROM "a" OVER e SAMPLE [-1]`, syn, "line 1, column 28", "an edge count must be an integer from 0")
	})
}
