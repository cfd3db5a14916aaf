package e2e

import (
	"testing"

	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestGoSemantics pins two GO rules on a hand-checked graph (found by
// TestRealGraphMatchesReference):
//   - WHERE filters result rows, never the traversal: GO M TO N STEPS
//     continues from every edge of a result step, also when storaged
//     evaluates the WHERE;
//   - GO FROM $-.col (or $var.col) whose YIELD and WHERE read no input
//     column starts once from each distinct input vertex; one that reads
//     them yields a row per matching input row.
func TestGoSemantics(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE gs(partition_num=3, replica_factor=1, vid_type=FIXED_STRING(8))`)
	exec(t, s, `USE gs`)
	exec(t, s, `CREATE TAG person(name string)`)
	exec(t, s, `CREATE EDGE e(w int)`)
	exec(t, s, `INSERT VERTEX person(name) VALUES "a":("Ann"), "b":("Bob"), "c":("Cid")`)
	exec(t, s, `INSERT EDGE e(w) VALUES "a"->"b"@0:(1), "a"->"b"@1:(2), "b"->"c":(5)`)

	// M TO N with a WHERE storaged evaluates (edge and $^ only) and with
	// one graphd evaluates ($$): the same rows.
	expectRows(t, s, `GO 1 TO 2 STEPS FROM "a" OVER e WHERE e.w > 3 YIELD src(edge), dst(edge), e.w`, "b|c|5")
	expectRows(t, s, `GO 1 TO 2 STEPS FROM "a" OVER e WHERE $^.person.name != "Ann" YIELD src(edge), dst(edge)`, "b|c")
	expectRows(t, s, `GO 1 TO 2 STEPS FROM "a" OVER e WHERE e.w > 3 AND $$.person.name IS NOT NULL YIELD src(edge), dst(edge)`, "b|c")
	expectRows(t, s, `GO 1 TO 2 STEPS FROM "a" OVER e WHERE e.w < 5 YIELD src(edge), dst(edge), e.w`, "a|b|1", "a|b|2")
	expectRows(t, s, `GO 2 STEPS FROM "a" OVER e WHERE e.w > 3 YIELD dst(edge)`, "c")

	// "b" arrives twice through the pipe (two ranks).
	expectRows(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id | GO FROM $-.id OVER e YIELD dst(edge)`, "c")
	expectRows(t, s, `$v = GO FROM "a" OVER e YIELD dst(edge) AS id; GO FROM $v.id OVER e YIELD dst(edge)`, "c")
	expectRows(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id, e.w AS w | GO FROM $-.id OVER e YIELD $-.w, dst(edge)`, "1|c", "2|c")
	expectRows(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id, e.w AS w | GO FROM $-.id OVER e WHERE $-.w > 1 YIELD dst(edge)`, "c")
}
