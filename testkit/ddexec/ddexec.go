// Package ddexec runs data-driven statement tests (github.com/cockroachdb/
// datadriven, as etcd-io/raft uses it): files of nGQL statements and the
// tables they must print, run through graphd's executor against whatever
// Catalog and Storage a test gives it. graphd/exec runs its testdata
// against testkit/memgraph in seconds; testkit/e2e runs the same files
// against a real cluster, so that memgraph cannot drift from storaged.
//
// # File format
//
// Each file is one session, as root: USE carries over from directive to
// directive, and every file starts with no space and an empty graph (on a
// cluster, the spaces a file created are dropped after it). Lines starting
// with # between directives are comments. The directives:
//
//	exec
//	<nGQL: one or more statements, as one request>
//	----
//	<the last statement's result>
//
// runs the statements with one Execute call (so $var assignments reach the
// later statements) and prints the last statement's result: "ok" when it
// has none (DDL, INSERT...), else a header line of column names and a line
// per row, values as nGQL writes them ("a" for a string, NULL, 1.5),
// separated by " | ", in the order the executor returned them. A failure
// prints "error (<code>): <message>" with the client's code (E_SEMANTIC,
// E_EXECUTION, E_SYNTAX). A request that only reads runs twice: in rows,
// which is what the directive prints, and in columns, as package client
// asks for its results (GO builds those straight from storage's answers,
// graphd/exec/go_columns.go); the test fails when the two differ.
//
// exec-sorted is exec with the rows sorted (as text). Use it whenever the
// statement's order is not defined by nGQL: a GO, FETCH or LOOKUP whose
// rows come from several partitions comes back in partition order, which
// memgraph fixes (ascending) but a cluster does not. exec (rows as
// returned) is for statements whose order is defined: ORDER BY, a single
// row, or the edges of one vertex of one partition, which storage returns
// in key order (edge type, then rank, then destination) on a cluster too.
//
// An exec or exec-sorted directive with the argument bug=<name> records a
// known bug: its expected output is what nGQL's semantics say, which the
// statement does not print yet. The test passes while the statement prints
// something else (and logs it), and fails once it prints the expected
// output, so that the mark is removed with the bug.
//
//	params
//	<name> = <nGQL expression>
//	...
//	----
//
// sets the query parameters ($name) of the exec directives that follow;
// params with no input clears them.
//
//	cluster-skip
//	<why>
//	----
//
// marks a file that cannot run on a cluster (its first directive); the
// cluster run skips it, saying why. On memgraph it does nothing.
package ddexec

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// Backends are what one file runs against; Close, if set, runs when the
// file is done.
type Backends struct {
	Catalog exec.Catalog
	Storage exec.Storage
	Close   func()
}

// Options tune a run.
type Options struct {
	// Cluster says the backends are a real cluster's: files marked
	// cluster-skip are skipped, and a write whose outcome is unknown (a
	// leader changed under it) is retried.
	Cluster bool
	// Timeout bounds one exec directive (default 60 s).
	Timeout time.Duration
}

// Run runs every file of dir as a subtest named after the file, each with
// the backends newBackends returns for it.
func Run(t *testing.T, dir string, opts Options, newBackends func(t *testing.T, file string) Backends) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no data-driven files (*.txt) in %s", dir)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			if opts.Cluster {
				if why, skip := clusterSkip(t, path); skip {
					t.Skipf("cluster-skip: %s", why)
				}
			}
			b := newBackends(t, name)
			if b.Close != nil {
				defer b.Close()
			}
			RunFile(t, path, opts, b)
		})
	}
}

// RunFile runs one file against b.
func RunFile(t *testing.T, path string, opts Options, b Backends) {
	t.Helper()
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	f := &file{
		opts: opts,
		x:    exec.New(b.Catalog, b.Storage, slog.New(slog.NewTextHandler(io.Discard, nil))),
		sess: &exec.SessionState{User: "root"},
	}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "exec", "exec-sorted":
			got, err := f.exec(d.Input, d.Cmd == "exec-sorted")
			if err != nil {
				t.Errorf("%s: %v", d.Pos, err)
			}
			if !d.HasArg("bug") {
				return got
			}
			// A known bug: the expected output is the right one, which
			// the executor does not print yet.
			var bug string
			d.ScanArgs(t, "bug", &bug)
			if got == strings.TrimSuffix(d.Expected, "\n") {
				t.Errorf("%s: known bug %q is fixed: remove bug= from the directive", d.Pos, bug)
			} else {
				t.Logf("%s: known bug %q: the statement prints\n%s", d.Pos, bug, got)
			}
			return d.Expected
		case "params":
			params, err := parseParams(d.Input)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			f.params = params
			return ""
		case "cluster-skip":
			return ""
		}
		d.Fatalf(t, "unknown directive %q (want exec, exec-sorted, params or cluster-skip)", d.Cmd)
		return ""
	})
}

// file is the state of one file: its session and parameters.
type file struct {
	opts   Options
	x      *exec.Executor
	sess   *exec.SessionState
	params map[string]value.Value
}

// exec runs stmts and renders what they print, in rows (as nGQL clients
// other than package client read results). A request that only reads runs
// a second time asking for the result in columns, as package client does;
// err says how the two differ when they do.
func (f *file) exec(stmts string, sorted bool) (string, error) {
	got := render(f.result(stmts, false))
	if !readOnly(stmts) {
		return got(sorted), nil
	}
	inRows, inCols := got(true), render(f.result(stmts, true))(true)
	if inCols != inRows {
		return got(sorted), fmt.Errorf("the result read in columns differs from the one read in rows (both sorted here)\nin columns:\n%s\nin rows:\n%s", inCols, inRows)
	}
	return got(sorted), nil
}

// result runs stmts once; columnar asks for the result in columns.
func (f *file) result(stmts string, columnar bool) (*graphpb.DataSet, error) {
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), f.opts.Timeout)
		if columnar {
			ctx = exec.WithColumnarResult(ctx)
		}
		ds, err := f.x.ExecuteWithParams(ctx, f.sess, stmts, f.params)
		cancel()
		// A cluster's write whose leader changed under it may or may not
		// have applied: the request runs again (the files' writes are
		// INSERTs, which repeat harmlessly; a DDL statement repeated
		// fails visibly).
		if err == nil || !f.opts.Cluster || attempt == 5 || !strings.Contains(err.Error(), "E_OUTCOME_UNKNOWN") {
			return ds, err
		}
	}
}

// render renders a result or its error, sorted or not.
func render(ds *graphpb.DataSet, err error) func(sorted bool) string {
	return func(sorted bool) string {
		if err != nil {
			return fmt.Sprintf("error (%s): %s", exec.ErrorCode(err), err)
		}
		return Render(ds, sorted)
	}
}

// readOnly reports whether every statement of text only reads (or picks
// the space), so that running it twice changes nothing. EXPLAIN and
// PROFILE do not count: their timings differ from run to run.
func readOnly(text string) bool {
	stmts, err := parser.Parse(text)
	if err != nil {
		return false
	}
	var reads func(st ast.Statement) bool
	reads = func(st ast.Statement) bool {
		switch s := st.(type) {
		case *ast.GoStmt, *ast.FetchVerticesStmt, *ast.FetchEdgesStmt, *ast.LookupStmt, *ast.FindPathStmt,
			*ast.SubgraphStmt, *ast.YieldStmt, *ast.GroupByStmt, *ast.OrderByStmt, *ast.LimitStmt, *ast.UseStmt, *ast.MatchStmt:
			return true
		case *ast.PipeStmt:
			return reads(s.Left) && reads(s.Right)
		case *ast.SetOpStmt:
			return reads(s.Left) && reads(s.Right)
		case *ast.AssignStmt:
			return reads(s.Stmt)
		}
		return false
	}
	for _, st := range stmts {
		if !reads(st) {
			return false
		}
	}
	return true
}

// Render writes a result as the files show it: "ok" for none, else the
// column names and a line per row, values in nGQL's notation, " | "
// between them; sorted sorts the rows. The result may be in rows or in
// columns.
func Render(ds *graphpb.DataSet, sorted bool) string {
	if ds == nil {
		return "ok"
	}
	var rows []string
	if cols := ds.GetColumns(); len(cols) > 0 {
		rows = make([]string, ds.GetNumRows())
		for i := range rows {
			vals := make([]string, len(cols))
			for j, c := range cols {
				vals[j] = value.FromProto(c.Cell(i)).String()
			}
			rows[i] = strings.Join(vals, " | ")
		}
	} else {
		rows = make([]string, len(ds.GetRows()))
		for i, r := range ds.GetRows() {
			vals := make([]string, len(r.GetValues()))
			for j, v := range r.GetValues() {
				vals[j] = value.FromProto(v).String()
			}
			rows[i] = strings.Join(vals, " | ")
		}
	}
	if sorted {
		slices.Sort(rows)
	}
	return strings.Join(append([]string{strings.Join(ds.GetColumnNames(), " | ")}, rows...), "\n")
}

// parseParams reads "name = expression" lines; the expressions are
// constants (literals, lists, maps, deterministic calls).
func parseParams(input string) (map[string]value.Value, error) {
	if strings.TrimSpace(input) == "" {
		return nil, nil
	}
	out := map[string]value.Value{}
	for _, line := range strings.Split(input, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, text, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("params: %q is not name = expression", line)
		}
		e, err := parser.ParseExpr(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("params: %s: %v", strings.TrimSpace(name), err)
		}
		v, err := eval.Eval(nil, e)
		if err != nil {
			return nil, fmt.Errorf("params: %s: %v", strings.TrimSpace(name), err)
		}
		out[strings.TrimSpace(name)] = v
	}
	return out, nil
}

// clusterSkip reports whether a file's first directive is cluster-skip,
// and its reason.
func clusterSkip(t *testing.T, path string) (string, bool) {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	inDirective := false
	var why []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case inDirective && line == "----":
			return strings.Join(why, " "), true
		case inDirective:
			why = append(why, line)
		case line == "" || strings.HasPrefix(line, "#"):
		case line == "cluster-skip":
			inDirective = true
		default:
			return "", false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return "", false
}
