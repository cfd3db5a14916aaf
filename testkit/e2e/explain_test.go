package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// planRow is one row of EXPLAIN / PROFILE output.
type planRow struct {
	id, name, deps, profile, info string
}

func plan(t *testing.T, s *client.Session, stmt string) []planRow {
	t.Helper()
	rs := exec(t, s, stmt)
	out := make([]planRow, rs.Len())
	for i := range out {
		row := rs.Row(i)
		cell := func(j int) string { return fmt.Sprint(row.Value(j)) }
		out[i] = planRow{id: cell(0), name: cell(1), deps: cell(2)}
		if row.Len() == 5 {
			out[i].profile, out[i].info = cell(3), cell(4)
		} else {
			out[i].info = cell(3)
		}
	}
	return out
}

func planNames(rows []planRow) string {
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.name
	}
	return strings.Join(names, " ")
}

var profileRows = regexp.MustCompile(`^rows: (\d+), time: \d+us$`)

// TestExplainAndProfile checks EXPLAIN's plan tree for every kind of
// statement and PROFILE's rows per operator against what the statement
// returns.
func TestExplainAndProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE ex(partition_num=3, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE ex`)
	exec(t, s, `CREATE TAG p(name string, age int)`)
	exec(t, s, `CREATE EDGE e(w int)`)
	exec(t, s, `CREATE TAG INDEX p_age ON p(age)`)
	var vs, es []string
	for i := 1; i <= 40; i++ {
		vs = append(vs, fmt.Sprintf("%d:(\"n%d\", %d)", i, i, i%10))
		for j := 1; j <= 5; j++ {
			es = append(es, fmt.Sprintf("%d->%d:(%d)", i, (i*j)%40+1, j))
		}
	}
	exec(t, s, `INSERT VERTEX p(name, age) VALUES `+strings.Join(vs, ", "))
	exec(t, s, `INSERT EDGE e(w) VALUES `+strings.Join(es, ", "))

	for _, tc := range []struct {
		stmt  string
		names string // root first
	}{
		{`GO 2 STEPS FROM 1 OVER e WHERE $$.p.age > 3 YIELD dst(edge) AS d`,
			"Project Filter GetDstProps GetNeighbors GetNeighbors Start"},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | GO FROM $-.d OVER e YIELD e.w AS w | ORDER BY $-.w | LIMIT 3`,
			"Limit Sort Project GetNeighbors Start Project GetNeighbors Start"},
		{`FETCH PROP ON p 1, 2 YIELD p.name AS n | YIELD $-.n AS n WHERE $-.n != "x"`,
			"Project Filter Project GetVertices"},
		{`FETCH PROP ON e 1->2 YIELD e.w`, "Project GetEdges"},
		{`LOOKUP ON p WHERE p.age == 3 YIELD id(vertex) AS id | GROUP BY $-.id YIELD count(*) AS n`,
			"Aggregate Project IndexScan"},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d UNION GO FROM 2 OVER e YIELD dst(edge) AS d`,
			"Dedup Union Project GetNeighbors Start Project GetNeighbors Start"},
		{`FIND SHORTEST PATH FROM 1 TO 7 OVER e UPTO 3 STEPS YIELD path AS p`, "FindPath"},
		{`GET SUBGRAPH 1 STEPS FROM 1 OUT e`, "Subgraph"},
		{`$a = GO FROM 1 OVER e YIELD dst(edge) AS d; `, ""}, // not a single statement: skipped below
		{`INSERT VERTEX p(name, age) VALUES 100:("z", 1)`, "InsertVertex"},
		{`SHOW TAGS`, "ShowTags"},
	} {
		if tc.names == "" {
			continue
		}
		rows := plan(t, s, "EXPLAIN "+tc.stmt)
		if got := planNames(rows); got != tc.names {
			t.Errorf("EXPLAIN %s:\nnodes %q\nwant  %q\n%v", tc.stmt, got, tc.names, rows)
		}
		// The root is the highest id and every dependency names a node
		// listed after it (a tree read root first).
		for i, r := range rows {
			if r.id != fmt.Sprint(len(rows)-1-i) {
				t.Errorf("EXPLAIN %s: row %d has id %s", tc.stmt, i, r.id)
			}
		}
	}
	// EXPLAIN plans without running: the INSERT above must not exist.
	expectRows(t, s, `FETCH PROP ON p 100 YIELD p.name`)
	expectError(t, s, `EXPLAIN GO FROM 1 OVER nope`, graphpb.QueryErrorCode_E_SEMANTIC, "nope")
	expectError(t, s, `EXPLAIN GO FROM 1 OVER e YIELD dst(edge) AS d | YIELD $-.nope`, graphpb.QueryErrorCode_E_SEMANTIC, "nope")

	// PROFILE: each operator's rows are what it passed on.
	stmt := `GO FROM 1, 2, 3 OVER e YIELD dst(edge) AS d, e.w AS w | YIELD $-.d AS d WHERE $-.w > 2 | LIMIT 4`
	all := len(rows(t, s, `GO FROM 1, 2, 3 OVER e YIELD dst(edge) AS d, e.w AS w`))
	filtered := len(rows(t, s, `GO FROM 1, 2, 3 OVER e YIELD dst(edge) AS d, e.w AS w | YIELD $-.d AS d WHERE $-.w > 2`))
	if all != 15 || filtered != 9 {
		t.Fatalf("fixture: %d edges, %d with w > 2; want 15 and 9", all, filtered)
	}
	prof := plan(t, s, "PROFILE "+stmt)
	want := map[string]string{"Limit": "4", "Project": "9", "GetNeighbors": "15", "Start": "3"}
	seenProject := false
	for _, r := range prof {
		m := profileRows.FindStringSubmatch(r.profile)
		if m == nil {
			t.Fatalf("PROFILE row %v: profiling data %q", r, r.profile)
		}
		w, ok := want[r.name]
		if r.name == "Project" {
			if seenProject {
				w = "15" // GO's own projection
			}
			seenProject = true
		}
		if ok && m[1] != w {
			t.Errorf("PROFILE %s: node %s passed on %s rows, want %s\n%v", stmt, r.name, m[1], w, prof)
		}
	}
	// PROFILE runs the statement: its writes happen.
	plan(t, s, `PROFILE INSERT VERTEX p(name, age) VALUES 101:("y", 2)`)
	expectRows(t, s, `FETCH PROP ON p 101 YIELD p.name`, "y")
}

// TestPipeStreamsWithinBudget: the rows of a pipe stream between its
// operators, so a budget too small for the whole GO result still lets
// `| LIMIT`, `| YIELD … | LIMIT` and `| ORDER BY … | LIMIT` answer, while
// keeping the whole result (or sorting all of it) fails with the budget
// error.
func TestPipeStreamsWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE st(partition_num=3, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE st`)
	exec(t, s, `CREATE EDGE e(note string)`)
	// 1 → 2000 vertices, each with 20 out-edges: 40,000 two-step rows with
	// a 100-byte string each. Under a 20 MB budget GO's own step state
	// (storage answers and edge rows) fits, the whole result kept on top
	// of it does not: rows through a pipe, or five 4.3 MB note columns
	// (probed in the thirteenth session, before strings were packed: the
	// streamed pipes pass at 16 MB).
	note := strings.Repeat("x", 100)
	var es []string
	flush := func() {
		if len(es) > 0 {
			exec(t, s, `INSERT EDGE e(note) VALUES `+strings.Join(es, ", "))
			es = es[:0]
		}
	}
	for i := 2; i <= 2001; i++ {
		es = append(es, fmt.Sprintf("1->%d:(%q)", i, note))
		for j := 0; j < 20; j++ {
			es = append(es, fmt.Sprintf("%d->%d:(%q)", i, 10000+i*20+j, note))
		}
		if len(es) > 2000 {
			flush()
		}
	}
	flush()
	const q = `GO 2 STEPS FROM 1 OVER e YIELD dst(edge) AS d, e.note AS n`
	if n := len(rows(t, s, q)); n != 40000 {
		t.Fatalf("fixture: %d rows, want 40000", n)
	}
	exec(t, s, `SET QUERY_MEMORY_LIMIT = 20MB`)
	// The whole result kept: in rows through a pipe, in columns (GO's
	// columnar projection: 8 bytes per d, the note and a 4-byte end per
	// n, 4.3 MB per note column) with the note five times.
	expectError(t, s, q+` | YIELD $-.d AS d, $-.n AS n`, graphpb.QueryErrorCode_E_MEMORY_EXCEEDED)
	expectError(t, s, q+`, e.note AS n2, e.note AS n3, e.note AS n4, e.note AS n5`, graphpb.QueryErrorCode_E_MEMORY_EXCEEDED)
	expectError(t, s, q+` | ORDER BY $-.d`, graphpb.QueryErrorCode_E_MEMORY_EXCEEDED)
	for _, tc := range []struct {
		stmt string
		want []string
	}{
		{q + ` | LIMIT 3 | YIELD count(*) AS c`, []string{"3"}},
		{q + ` | YIELD $-.d AS d WHERE $-.d % 2 == 0 | LIMIT 2 | YIELD count(*) AS c`, []string{"2"}},
		{q + ` | ORDER BY $-.d DESC | LIMIT 2 | YIELD $-.d AS d`, []string{"50039", "50038"}},
		{q + ` | YIELD count(*) AS c, max($-.d) AS m`, []string{"40000|50039"}},
		{q + ` | GROUP BY $-.d % 4 YIELD count(*) AS c`, []string{"10000", "10000", "10000", "10000"}},
	} {
		expectRows(t, s, tc.stmt, tc.want...)
	}
}
