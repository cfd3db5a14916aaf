package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/console"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// execParams runs stmt with query parameters and fails the test on error.
func execParams(t *testing.T, s *client.Session, stmt string, params map[string]any) *client.ResultSet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rs, err := s.ExecuteWithParams(ctx, stmt, params)
	if err != nil {
		t.Fatalf("%s with %v\n-> %v", stmt, params, err)
	}
	return rs
}

// expectParamRows runs stmt with params and compares its rows, rendered and
// sorted as render does, with want in any order.
func expectParamRows(t *testing.T, s *client.Session, stmt string, params map[string]any, want ...string) {
	t.Helper()
	got := render(execParams(t, s, stmt, params))
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s with %v:\ngot:  %q\nwant: %q", stmt, params, got, want)
	}
}

// expectParamError runs stmt with params and checks it fails with code and
// a message that contains every fragment.
func expectParamError(t *testing.T, s *client.Session, stmt string, params map[string]any, code graphpb.QueryErrorCode, fragments ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.ExecuteWithParams(ctx, stmt, params)
	var qe *client.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("%s with %v: got %v, want a %s error", stmt, params, err, code)
	}
	if qe.Code != code {
		t.Fatalf("%s with %v: code %s (%s), want %s", stmt, params, qe.Code, qe.Msg, code)
	}
	for _, f := range fragments {
		if !strings.Contains(qe.Msg, f) {
			t.Fatalf("%s with %v: message %q does not mention %q", stmt, params, qe.Msg, f)
		}
	}
}

// TestParams runs parameterized queries ($name, NebulaGraph 3 style) sent
// through the Go client: as a start vertex or a list of them, in WHERE
// (pushed to storage as literals, or kept in graphd when a value has no
// literal), in YIELD, LOOKUP, FETCH and UPDATE, and the errors of missing
// and mistyped parameters.
func TestParams(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()

	exec(t, s, `CREATE SPACE params(partition_num=3, replica_factor=1, vid_type=FIXED_STRING(16))`)
	exec(t, s, `USE params`)
	exec(t, s, `CREATE TAG player(name string, age int)`)
	exec(t, s, `CREATE EDGE follow(degree int)`)
	exec(t, s, `CREATE TAG INDEX player_age ON player(age)`)
	exec(t, s, `INSERT VERTEX player(name, age) VALUES "p1":("Tim", 42), "p2":("Tony", 36), "p3":("Manu", 41), "p4":("Boris", 36)`)
	exec(t, s, `INSERT EDGE follow(degree) VALUES "p1"->"p2":(95), "p1"->"p3":(90), "p2"->"p1":(80), "p2"->"p4":(60), "p3"->"p1":(99)`)

	t.Run("start vertices", func(t *testing.T) {
		expectParamRows(t, s, `GO FROM $p OVER follow YIELD dst(edge)`, map[string]any{"p": "p1"}, "p2", "p3")
		expectParamRows(t, s, `GO FROM $p OVER follow YIELD src(edge), dst(edge)`,
			map[string]any{"p": []string{"p1", "p2", "p1"}}, "p1|p2", "p1|p3", "p2|p1", "p2|p4")
		expectParamRows(t, s, `GO 2 STEPS FROM $p OVER follow YIELD DISTINCT dst(edge)`, map[string]any{"p": []any{"p3", nil}}, "p2", "p3")
		expectParamRows(t, s, `GO FROM $p OVER follow YIELD dst(edge)`, map[string]any{"p": []string{}})
		expectParamRows(t, s, `FETCH PROP ON player $ids YIELD player.name`, map[string]any{"ids": []string{"p2", "p4"}}, "Boris", "Tony")
		expectParamRows(t, s, `GO FROM $p OVER follow YIELD dst(edge) AS id | GO FROM $-.id OVER follow WHERE follow.degree >= $min YIELD dst(edge)`,
			map[string]any{"p": "p3", "min": 90}, "p2", "p3")
	})

	t.Run("where", func(t *testing.T) {
		params := map[string]any{"p": "p1", "min": 92}
		stmt := `GO FROM $p OVER follow WHERE follow.degree > $min YIELD dst(edge), follow.degree`
		expectParamRows(t, s, stmt, params, "p2|95")
		// Storage evaluates the WHERE, with the parameter's value in it.
		plan := strings.Join(render(execParams(t, s, "EXPLAIN "+stmt, params)), "\n")
		if !strings.Contains(plan, "filter: (follow.degree>92)") {
			t.Fatalf("EXPLAIN does not show the WHERE pushed with $min's value:\n%s", plan)
		}
		// A value without a literal (-Inf) keeps the WHERE in graphd.
		params["min"] = math.Inf(-1)
		expectParamRows(t, s, stmt, params, "p2|95", "p3|90")
		plan = strings.Join(render(execParams(t, s, "EXPLAIN "+stmt, params)), "\n")
		if strings.Contains(plan, "filter: ") || !strings.Contains(plan, "condition: (follow.degree>$min)") {
			t.Fatalf("EXPLAIN should filter in graphd for $min = -Inf:\n%s", plan)
		}
		// $$ is fetched after the traversal: graphd evaluates it.
		expectParamRows(t, s, `GO FROM $p OVER follow WHERE $$.player.age < $age AND follow.degree IN $degrees YIELD $$.player.name`,
			map[string]any{"p": "p1", "age": 42, "degrees": []int{90, 95}}, "Manu", "Tony")
		expectParamRows(t, s, `GO FROM $p OVER follow WHERE $$.player.name STARTS WITH $prefix YIELD $$.player.name`,
			map[string]any{"p": []string{"p1", "p2"}, "prefix": "T"}, "Tim", "Tony")
	})

	t.Run("yield", func(t *testing.T) {
		params := map[string]any{"n": 41, "s": "x", "l": []any{1, "two", 3.5}, "f": 0.5, "b": true, "null": nil}
		rs := execParams(t, s, `YIELD $n + 1, $s AS s, $l[1] AS second, size($l) AS len, $f * 2 AS f, NOT $b AS b, $null IS NULL AS isnull`, params)
		if got := strings.Join(rs.Columns(), ","); got != "($n+1),s,second,len,f,b,isnull" {
			t.Fatalf("columns %s", got)
		}
		if got := render(rs); !slices.Equal(got, []string{"42|x|two|3|1|false|true"}) {
			t.Fatalf("YIELD with parameters: %q", got)
		}
		expectParamRows(t, s, `GO FROM "p1" OVER follow YIELD dst(edge) AS id, follow.degree - $base AS d | YIELD $-.id WHERE $-.d > $n`,
			map[string]any{"base": 90, "n": 0}, "p2")
		expectParamRows(t, s, `GO FROM "p1", "p2" OVER follow YIELD src(edge) AS s, follow.degree AS d | GROUP BY $-.s YIELD $-.s, sum($-.d) + $bonus`,
			map[string]any{"bonus": 1}, "p1|186", "p2|141")
	})

	t.Run("lookup and update", func(t *testing.T) {
		expectParamRows(t, s, `LOOKUP ON player WHERE player.age == $age YIELD id(vertex) AS id, player.name`, map[string]any{"age": 36}, "p2|Tony", "p4|Boris")
		expectParamRows(t, s, `LOOKUP ON player WHERE player.age > $lo AND player.name != $not YIELD id(vertex)`,
			map[string]any{"lo": 40, "not": "Tim"}, "p3")
		expectParamRows(t, s, `UPDATE VERTEX ON player "p4" SET age = $age WHEN player.age < $age YIELD age`, map[string]any{"age": 37}, "37")
		expectRows(t, s, `FETCH PROP ON player "p4" YIELD player.age`, "37")
		expectParamError(t, s, `LOOKUP ON player WHERE player.age > $x YIELD id(vertex)`, map[string]any{"x": math.NaN()},
			graphpb.QueryErrorCode_E_SEMANTIC, "$x", "storage")
	})

	t.Run("insert", func(t *testing.T) {
		execParams(t, s, `INSERT VERTEX player(name, age) VALUES $id:($name, $age + 1)`, map[string]any{"id": "p7", "name": "Kyle", "age": 29})
		execParams(t, s, `INSERT EDGE follow(degree) VALUES $src->$dst@$rank:($d)`, map[string]any{"src": "p7", "dst": "p1", "rank": 2, "d": 70})
		expectRows(t, s, `FETCH PROP ON player "p7" YIELD player.name, player.age`, "Kyle|30")
		expectRows(t, s, `GO FROM "p7" OVER follow YIELD dst(edge), rank(edge), follow.degree`, "p1|2|70")
		expectParamRows(t, s, `UPDATE EDGE ON follow $src->$dst@2 SET degree = $d YIELD degree`, map[string]any{"src": "p7", "dst": "p1", "d": 71}, "71")
		exec(t, s, `DELETE VERTEX "p7" WITH EDGE`)
	})

	t.Run("errors", func(t *testing.T) {
		expectParamError(t, s, `GO FROM $p OVER follow YIELD dst(edge)`, nil, graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $p is not set")
		expectParamError(t, s, `YIELD $n + 1`, map[string]any{"m": 1}, graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $n is not set")
		expectParamError(t, s, `GO FROM "p1" OVER follow WHERE follow.degree > $min YIELD dst(edge)`, nil,
			graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $min is not set")
		expectParamError(t, s, `LOOKUP ON player WHERE player.age == $age YIELD id(vertex)`, nil, graphpb.QueryErrorCode_E_SEMANTIC, "$age is not set")
		expectParamError(t, s, `$v = GO FROM "p1" OVER follow YIELD dst(edge) AS id; YIELD $v`, nil,
			graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $v is not set", "$v is a variable", "$v.col")
		expectParamError(t, s, `$v = GO FROM "p1" OVER follow YIELD dst(edge) AS id; GO FROM $v OVER follow`, nil,
			graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $v is not set", "$v is a variable")
		expectParamError(t, s, `GO FROM $p OVER follow`, map[string]any{"p": 1}, graphpb.QueryErrorCode_E_SEMANTIC, "$p", "vid 1 is a INT")
		expectParamError(t, s, `INSERT VERTEX player(name, age) VALUES "p9":($name, $age)`, map[string]any{"name": "x"},
			graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $age is not set")
		// Parameters do not outlive their request.
		execParams(t, s, `YIELD $n`, map[string]any{"n": 1})
		expectError(t, s, `YIELD $n`, graphpb.QueryErrorCode_E_SEMANTIC, "query parameter $n is not set")

		// The client refuses a Go value it cannot send.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := s.ExecuteWithParams(ctx, `YIELD $n`, map[string]any{"n": struct{}{}}); !errors.Is(err, client.ErrType) || !strings.Contains(err.Error(), "$n") {
			t.Fatalf("unsupported parameter type: %v, want client.ErrType naming $n", err)
		}
	})
}

// TestConsoleParamsAndPlay runs nova-console against a cluster: :play loads
// the embedded demo, :param sets parameters that the next statements read,
// and --format json prints one JSON object per statement.
func TestConsoleParamsAndPlay(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	host, port, err := net.SplitHostPort(c.Graph.Addr())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "follow.csv")
	script := `:play basketball
:param p => "player100"
:param min => 92
:csv ` + out + `
GO FROM $p OVER follow WHERE follow.degree > $min YIELD dst(edge) AS id, follow.degree AS degree;
:param p =>
:param ps => ["player101", "player102"]
GO FROM $ps OVER follow WHERE follow.degree > $min - 2 YIELD src(edge) AS src, dst(edge) AS dst;
`
	file := filepath.Join(t.TempDir(), "script.ngql")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := console.Run(ctx, []string{"-addr", host, "-port", port, "--format", "json", "-f", file}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if !strings.Contains(stderr.String(), "Loaded demo basketball") {
		t.Errorf("stderr lacks the :play message:\n%s", &stderr)
	}

	var results []struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r struct {
			Columns []string `json:"columns"`
			Rows    [][]any  `json:"rows"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", line, err)
		}
		results = append(results, r)
	}
	if len(results) != 2 {
		t.Fatalf("want 2 JSON results (the demo prints none), got %d:\n%s", len(results), &stdout)
	}
	rowsOf := func(r [][]any) []string {
		var out []string
		for _, row := range r {
			b, _ := json.Marshal(row)
			out = append(out, string(b))
		}
		slices.Sort(out)
		return out
	}
	if got, want := rowsOf(results[0].Rows), []string{`["player101",95]`, `["player125",95]`}; !slices.Equal(got, want) {
		t.Errorf("GO FROM $p: rows %q, want %q", got, want)
	}
	if got, want := rowsOf(results[1].Rows), []string{`["player101","player100"]`, `["player101","player125"]`}; !slices.Equal(got, want) {
		t.Errorf("GO FROM $ps: rows %q, want %q", got, want)
	}
	csv, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf(":csv wrote nothing: %v", err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 3 || lines[0] != "id,degree" {
		t.Errorf(":csv file:\n%s", csv)
	}
}
