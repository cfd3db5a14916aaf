package studio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/console"
	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// browser starts headless Chromium (Debian's chromium, which make deps
// installs) and returns a context for chromedp; the test skips where there
// is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("the studio's browser tests need Chromium (apt-get install chromium; make deps installs it): none on PATH")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	// The first action starts the browser, which lives as long as the
	// context of that call: it gets no deadline (chromedp.Run).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// do runs chromedp steps with a deadline.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one chromedp action with a deadline and returns its value.
func get[T any](t *testing.T, ctx context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, action)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// poll waits until a JavaScript expression is true, as long as the step
// around it may take (chromedp's own default is 30 s).
func poll(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(60*time.Second))
}

// screenshot saves the page as docs/studio/<name>.png when
// NOVAGRAPH_STUDIO_SCREENSHOTS names the directory (make
// studio-screenshots): the docs' pictures come from this test.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("NOVAGRAPH_STUDIO_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// query runs a statement on the Go client, failing the test if it fails.
func query(t *testing.T, s *client.Session, stmt string) *client.ResultSet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs, err := s.Execute(ctx, stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return rs
}

// edgesOf runs a statement that yields edges (column e) and returns each
// as the graph view names it: type, then the JSON of its ends, then rank.
func edgesOf(t *testing.T, s *client.Session, stmt string) []string {
	t.Helper()
	rs := query(t, s, stmt)
	var out []string
	for i := 0; i < rs.Len(); i++ {
		e, ok := rs.Row(i).Value(0).(client.Edge)
		if !ok {
			t.Fatalf("%s: row %d is not an edge", stmt, i)
		}
		src, _ := json.Marshal(e.Src)
		dst, _ := json.Marshal(e.Dst)
		out = append(out, fmt.Sprintf("%s %s %s %d", e.Type, src, dst, e.Rank))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// drawnEdges reads the edges the graph view drew.
func drawnEdges(t *testing.T, ctx context.Context) []string {
	t.Helper()
	out := get(t, ctx, "reading the drawn edges", chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#graph line.edge")].map(l => l.dataset.type + " " + l.dataset.src + " " + l.dataset.dst + " " + l.dataset.rank)`))
	slices.Sort(out)
	return out
}

// TestStudioInBrowser: in headless Chromium, a wrong password is refused;
// root signs in, picks the demo's space, runs GO 2 STEPS and the graph
// view draws exactly the answer's edges and their ends; a click on a
// vertex adds its edges; a syntax error is shown with its position and the
// cursor put there; sign-out returns to the sign-in form and the session
// is gone.
func TestStudioInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster and browser test")
	}
	ctx := browser(t)
	c := testcluster.Start(t, testcluster.Options{Stores: 1, Graph: func(cfg *graphd.Config) { cfg.WebAddr = "127.0.0.1:0" }})
	s := c.Session()
	defer s.Close()
	stmts, err := console.DemoStatements("basketball")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range stmts {
		query(t, s, stmt)
	}
	const goTwo = `GO 2 STEPS FROM "player100" OVER follow YIELD edge AS e`
	want := edgesOf(t, s, goTwo)
	if len(want) < 2 {
		t.Fatalf("the demo's 2-step answer has %d edges: too few to tell anything", len(want))
	}
	url := "http://" + c.Graph.WebAddr() + "/"

	// The page itself: no inline script may run, and nobody may frame it.
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("Content-Security-Policy: %q", csp)
	}

	C := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	do(t, ctx, "a wrong password",
		chromedp.Navigate(url),
		chromedp.WaitVisible(C("#signin-form")),
		chromedp.SetValue(C("#signin-user"), "root"),
		chromedp.SetValue(C("#signin-password"), "wrong"),
		chromedp.Click(C("#signin-button")),
		poll(`document.getElementById("signin-error").textContent.includes("bad username or password")`),
	)
	screenshot(t, ctx, "signin")
	do(t, ctx, "signing in",
		chromedp.SetValue(C("#signin-password"), testcluster.Password),
		chromedp.Click(C("#signin-button")),
		chromedp.WaitVisible(C("#main-view")),
		poll(`[...document.getElementById("space").options].some(o => o.value === "basketball")`),
	)
	do(t, ctx, "choosing the space and running GO 2 STEPS",
		chromedp.SetValue(C("#space"), "basketball"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("space").dispatchEvent(new Event("change")), undefined`),
		poll(`document.getElementById("status").textContent === "using basketball"`),
		chromedp.SetValue(C("#stmt"), goTwo),
		chromedp.Click(C("#run")),
		poll(`document.getElementById("status").textContent.includes("rows")`),
	)
	if text := get(t, ctx, "the table view", chromedp.Text(C("#view-table"))); !strings.Contains(text, "player101") {
		t.Fatalf("the table view does not show the answer: %q", text)
	}
	screenshot(t, ctx, "table")
	do(t, ctx, "the JSON view", chromedp.Click(C(`.tabs button[data-view="json"]`)), chromedp.WaitVisible(C("#view-json")))
	text := get(t, ctx, "the JSON view", chromedp.Text(C("#view-json")))
	var shown struct{ Rows [][]map[string]any }
	if err := json.Unmarshal([]byte(text), &shown); err != nil || len(shown.Rows) == 0 {
		t.Fatalf("the JSON view: %v: %q", err, text)
	}
	screenshot(t, ctx, "json")
	do(t, ctx, "the graph view", chromedp.Click(C(`.tabs button[data-view="graph"]`)), chromedp.WaitVisible(C("#graph")))
	if got := drawnEdges(t, ctx); !slices.Equal(got, want) {
		t.Fatalf("the graph view drew\n%v\nthe answer has\n%v", got, want)
	}
	vertices := get(t, ctx, "reading the drawn vertices", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#graph g.vertex")].map(g => g.dataset.vid)`))
	ends := map[string]bool{}
	for _, e := range want {
		f := strings.Fields(e)
		ends[f[1]], ends[f[2]] = true, true
	}
	if len(vertices) != len(ends) {
		t.Fatalf("drawn vertices %v, the edges' ends %v", vertices, ends)
	}
	for _, v := range vertices {
		if !ends[v] {
			t.Fatalf("drawn vertex %s is no edge's end", v)
		}
	}
	screenshot(t, ctx, "graph")

	// A click on a vertex adds its outgoing edges of every type.
	var leaf string
	for _, v := range vertices {
		if v != `"player100"` {
			leaf = v
			break
		}
	}
	var leafVid string
	if err := json.Unmarshal([]byte(leaf), &leafVid); err != nil {
		t.Fatal(err)
	}
	more := edgesOf(t, s, fmt.Sprintf(`GO 1 STEP FROM %q OVER * YIELD edge AS e`, leafVid))
	do(t, ctx, "expanding "+leaf,
		chromedp.Click(C(fmt.Sprintf(`#graph g.vertex[data-vid=%q] circle`, leaf))),
		poll(`document.getElementById("status").textContent.startsWith("expanded")`),
	)
	got := drawnEdges(t, ctx)
	for _, e := range append(slices.Clone(want), more...) {
		if !slices.Contains(got, e) {
			t.Fatalf("after expanding %s the graph lacks edge %s: %v", leaf, e, got)
		}
	}
	screenshot(t, ctx, "expanded")

	// PROFILE is drawn as its plan tree, each node with its rows and time.
	plan := profileRows(t, s, "PROFILE "+goTwo)
	do(t, ctx, "PROFILE",
		chromedp.SetValue(C("#stmt"), "PROFILE "+goTwo),
		chromedp.Click(C("#run")),
		chromedp.WaitVisible(C("#view-plan ul.plan")),
	)
	drawn := get(t, ctx, "reading the plan tree", chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#view-plan .plan-node")].map(n => n.dataset.id + " " + n.querySelector(".op").textContent.split(" ").slice(1).join(" ") + " | " + (n.querySelector(".stats") || {}).textContent + " | " + n.parentElement.parentElement.closest("li")?.querySelector(".plan-node").dataset.id)`))
	// The times differ between two runs; the rows, the operators and the
	// tree must not.
	for i := range drawn {
		if !timing.MatchString(drawn[i]) {
			t.Fatalf("plan node %q shows no time", drawn[i])
		}
		drawn[i] = timing.ReplaceAllString(drawn[i], "time: …")
	}
	for i := range plan {
		plan[i] = timing.ReplaceAllString(plan[i], "time: …")
	}
	if len(drawn) != len(plan) {
		t.Fatalf("the plan tree has %d nodes, PROFILE %d rows: %v", len(drawn), len(plan), drawn)
	}
	for _, node := range drawn {
		if !slices.Contains(plan, node) {
			t.Fatalf("plan node %q is not as PROFILE answered: %v", node, plan)
		}
	}
	screenshot(t, ctx, "plan")

	// The schema of the space, with SHOW CREATE on a click.
	do(t, ctx, "the schema",
		chromedp.Click(C(`#pages button[data-page="schema"]`)),
		chromedp.WaitVisible(C(`#schema-tags li[data-name="player"]`)),
		chromedp.WaitVisible(C(`#schema-edges li[data-name="follow"]`)),
		chromedp.Click(C(`#schema-tags li[data-name="player"]`)),
		poll(`document.getElementById("schema-create").textContent.startsWith("CREATE TAG player")`),
	)
	screenshot(t, ctx, "schema")

	// Hosts, the space's partitions, and running queries with KILL. The
	// only query running when the page asks is its own SHOW QUERIES, so
	// KILL finds it finished: graphd's answer names the session, whose id
	// (63 bits) must have crossed JSON and JavaScript exactly.
	do(t, ctx, "the cluster",
		chromedp.Click(C(`#pages button[data-page="cluster"]`)),
		poll(`document.getElementById("cluster-hosts").textContent.includes("ONLINE")`),
		poll(`document.querySelectorAll("#cluster-parts tbody tr").length > 0`),
		chromedp.WaitVisible(C(`#cluster-queries button.kill`)),
	)
	session := get(t, ctx, "the session", chromedp.Evaluate[string](`sessionStorage.getItem("novagraph.session")`))
	do(t, ctx, "KILL",
		chromedp.Click(C(`#cluster-queries button.kill`)),
		poll(`document.getElementById("cluster-message").textContent !== ""`),
	)
	if msg := get(t, ctx, "the KILL answer", chromedp.Text(C("#cluster-message"))); !strings.Contains(msg, "in session "+session+" ") {
		t.Fatalf("KILL of the page's own finished query: %q (session %s)", msg, session)
	}
	screenshot(t, ctx, "cluster")
	do(t, ctx, "back to the console", chromedp.Click(C(`#pages button[data-page="console"]`)), chromedp.WaitVisible(C("#stmt")))

	// A syntax error names its place, and the cursor goes there.
	do(t, ctx, "a syntax error",
		chromedp.SetValue(C("#stmt"), "GO FROM \"player100\"\nOVER follow YIELDD dst(edge)"),
		chromedp.Click(C("#run")),
		poll(`document.getElementById("error").textContent.includes("E_SYNTAX")`),
	)
	line := get(t, ctx, "the error's line", chromedp.Evaluate[string](`document.getElementById("error").dataset.line || ""`))
	column := get(t, ctx, "the error's column", chromedp.Evaluate[string](`document.getElementById("error").dataset.column || ""`))
	selStart := get(t, ctx, "the cursor", chromedp.Evaluate[int](`document.getElementById("stmt").selectionStart`))
	text = get(t, ctx, "the error", chromedp.Text(C("#error")))
	if line != "2" || column == "" || !strings.Contains(text, "line 2, column "+column) {
		t.Fatalf("the syntax error shown: %q (line %q, column %q)", text, line, column)
	}
	if want := len("GO FROM \"player100\"\n") + int(mustInt(t, column)) - 1; selStart != want {
		t.Fatalf("the cursor is at %d, the error at %d", selStart, want)
	}
	screenshot(t, ctx, "syntax-error")

	do(t, ctx, "signing out",
		chromedp.Click(C("#signout")),
		chromedp.WaitVisible(C("#signin-form")),
		poll(`document.getElementById("signin-error").textContent === "Signed out."`),
	)
	if session == "" || c.Graph.SessionExists(mustInt(t, session)) {
		t.Fatalf("session %q still signed in after signing out", session)
	}
}

// timing is the time of a PROFILE node ("rows: 4, time: 21us").
var timing = regexp.MustCompile(`time: \d+us`)

// profileRows runs a PROFILE and returns each plan node as the studio's
// tree shows it: "id name | profiling data | parent id" (the root's
// parent is "undefined").
func profileRows(t *testing.T, s *client.Session, stmt string) []string {
	t.Helper()
	rs := query(t, s, stmt)
	parent := map[string]string{}
	type node struct{ id, name, stats string }
	var nodes []node
	for i := 0; i < rs.Len(); i++ {
		row := rs.Row(i)
		id := fmt.Sprint(row.Value(0))
		name, _ := row.String(1)
		deps, _ := row.String(2)
		stats, _ := row.String(3)
		nodes = append(nodes, node{id, name, stats})
		for _, d := range strings.Split(deps, ",") {
			if d != "" {
				parent[d] = id
			}
		}
	}
	out := make([]string, len(nodes))
	for i, n := range nodes {
		p, ok := parent[n.id]
		if !ok {
			p = "undefined"
		}
		out[i] = fmt.Sprintf("%s %s | %s | %s", n.id, n.name, n.stats, p)
	}
	return out
}

// mustInt parses a decimal integer the page showed.
func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
