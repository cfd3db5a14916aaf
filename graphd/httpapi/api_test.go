package httpapi_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// caller is a script of the API's: a base URL, an HTTP client, a session.
type caller struct {
	t       *testing.T
	base    string
	http    *http.Client
	session string
}

// call sends method path with body (JSON-encoded unless a string) and the
// session, if any, and returns the status and the decoded answer.
func (c *caller) call(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.session != "" {
		req.Header.Set("Authorization", "Bearer "+c.session)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	var out map[string]any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &out); err != nil {
			c.t.Fatalf("%s %s: answer is not JSON: %v: %s", method, path, err, data)
		}
	}
	return resp.StatusCode, out
}

// callAuth sends a call without a body and with the Authorization header
// as given.
func (c *caller) callAuth(method, path, authorization string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", authorization)
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if len(data) > 0 {
		_ = json.Unmarshal(data, &out)
	}
	return resp.StatusCode, out
}

// signIn signs in and keeps the session.
func (c *caller) signIn(user, password string) {
	c.t.Helper()
	status, out := c.call("POST", "/api/v1/sessions", map[string]string{"username": user, "password": password})
	if status != http.StatusOK || out["session"] == "" {
		c.t.Fatalf("sign-in as %s: %d %v", user, status, out)
	}
	c.session = out["session"].(string)
}

// exec runs a statement that must succeed and returns its answer.
func (c *caller) exec(stmt string, params map[string]any) map[string]any {
	c.t.Helper()
	status, out := c.call("POST", "/api/v1/execute", map[string]any{"stmt": stmt, "params": params})
	if status != http.StatusOK || out["code"] != "OK" {
		c.t.Fatalf("%s: %d %v", stmt, status, out)
	}
	return out
}

func startCluster(t *testing.T, useTLS bool) (*testcluster.Cluster, *caller) {
	t.Helper()
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1, TLS: useTLS, Graph: func(cfg *graphd.Config) {
		cfg.WebAddr = "127.0.0.1:0"
		cfg.WebHosts = []string{"graph.example.com"}
		cfg.MaxStatementBytes = 1 << 10
	}})
	cl := &caller{t: t, base: "http://" + c.Graph.WebAddr(), http: &http.Client{}}
	if useTLS {
		pem, err := os.ReadFile(filepath.Join(c.TLS.Dir, "ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		cl.base = "https://" + c.Graph.WebAddr()
		cl.http = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	}
	return c, cl
}

// TestAPI: a script signs in, creates a graph, queries it with parameters
// and gets typed JSON back; statement errors and limits are gRPC's; every
// call but sign-in needs a live session.
func TestAPI(t *testing.T) {
	_, c := startCluster(t, false)

	// Every call but sign-in is refused without a session, or with one
	// graphd does not have.
	for _, call := range [][2]string{{"POST", "/api/v1/execute"}, {"POST", "/api/v1/cancel"}, {"DELETE", "/api/v1/sessions"}} {
		for _, token := range []string{"", "12345", "not-a-number"} {
			c.session = token
			status, out := c.call(call[0], call[1], map[string]string{"stmt": "SHOW SPACES"})
			if status != http.StatusUnauthorized || out["code"] != "E_UNAUTHORIZED" {
				t.Errorf("%s %s with session %q: %d %v", call[0], call[1], token, status, out)
			}
		}
	}
	c.session = ""
	if status, out := c.call("POST", "/api/v1/sessions", map[string]string{"username": "root", "password": "wrong"}); status != http.StatusUnauthorized ||
		!strings.Contains(fmt.Sprint(out["error"]), "bad username or password") {
		t.Fatalf("a wrong password: %d %v", status, out)
	}
	if status, out := c.call("POST", "/api/v1/sessions", `{"username": "root", "pasword": "x"}`); status != http.StatusBadRequest ||
		!strings.Contains(fmt.Sprint(out["error"]), `unknown field "pasword"`) {
		t.Fatalf("a misspelt field: %d %v", status, out)
	}
	// A body that does not say it is JSON, as another site's page can
	// send without asking: refused.
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
		req, _ := http.NewRequest("POST", c.base+"/api/v1/sessions", strings.NewReader(`{"username":"root","password":"nova"}`))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Fatalf("a sign-in with Content-Type %q: %d", ct, resp.StatusCode)
		}
	}
	if status, out := c.call("GET", "/api/v1/nosuch", nil); status != http.StatusNotFound {
		t.Fatalf("an unknown call: %d %v", status, out)
	}

	// A host name graphd was not given is refused: a page of another site
	// whose name resolves to graphd's address (DNS rebinding) gets nothing.
	req, _ := http.NewRequest("POST", c.base+"/api/v1/sessions", strings.NewReader(`{"username":"root","password":"nova"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Host = "rebound.example.com"
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("a request naming another host: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", c.base+"/", nil)
	req.Host = "graph.example.com:7001" // --web-hosts names it
	if resp, err = c.http.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a request naming a host of --web-hosts: %d", resp.StatusCode)
	}

	c.signIn("root", testcluster.Password)
	c.exec("CREATE SPACE web(partition_num=2, replica_factor=1, vid_type=INT64)", nil)
	if out := c.exec("USE web", nil); out["space"] != "web" {
		t.Fatalf("USE: %v", out)
	}
	c.exec("CREATE TAG person(name string, age int)", nil)
	c.exec("CREATE EDGE knows(since int)", nil)
	c.exec(`INSERT VERTEX person(name, age) VALUES 1:("Ann", 31), 2:("Bo", 27), 3:("Cy", 45)`, nil)
	c.exec("INSERT EDGE knows(since) VALUES 1->2:(2010), 2->3:(2015)", nil)

	out := c.exec("GO 2 STEPS FROM $start OVER knows WHERE $$.person.age > $minAge YIELD dst(edge) AS id, $$.person.name AS name, $$.person.age * 1.5 AS f",
		map[string]any{"start": 1, "minAge": 40})
	if got, _ := json.Marshal(out["columns"]); string(got) != `["id","name","f"]` {
		t.Fatalf("columns: %s", got)
	}
	if got, _ := json.Marshal(out["rows"]); string(got) != `[[3,"Cy",67.5]]` {
		t.Fatalf("rows: %s", got)
	}
	// Several statements in one call, as the shell example of
	// docs/http-api.md sends them.
	out = c.exec("USE web; GO FROM $id OVER knows YIELD dst(edge) AS d", map[string]any{"id": 1})
	if got, _ := json.Marshal(out["rows"]); string(got) != `[[2]]` {
		t.Fatalf("USE; GO: %s", got)
	}
	out = c.exec("FETCH PROP ON person 1 YIELD vertex AS v", nil)
	if got, _ := json.Marshal(out["rows"]); string(got) != `[[{"tags":{"person":{"age":31,"name":"Ann"}},"vid":1}]]` {
		t.Fatalf("a vertex: %s", got)
	}
	out = c.exec("GO FROM 1 OVER knows YIELD edge AS e", nil)
	if got, _ := json.Marshal(out["rows"]); string(got) != `[[{"dst":2,"props":{"since":2010},"rank":0,"src":1,"type":"knows"}]]` {
		t.Fatalf("an edge: %s", got)
	}

	// Statement errors come as gRPC sends them, with HTTP 200.
	status, out := c.call("POST", "/api/v1/execute", map[string]any{"stmt": "GO FROM 1 OVER knows YIELD"})
	if status != http.StatusOK || out["code"] != "E_SYNTAX" || !strings.Contains(fmt.Sprint(out["error"]), "line 1") {
		t.Fatalf("a syntax error: %d %v", status, out)
	}
	status, out = c.call("POST", "/api/v1/execute", map[string]any{"stmt": "YIELD 1 AS x -- " + strings.Repeat("x", 2000)})
	if status != http.StatusOK || out["code"] != "E_SYNTAX" || !strings.Contains(fmt.Sprint(out["error"]), "--max-statement-bytes") {
		t.Fatalf("a statement over the limit: %d %v", status, out)
	}
	status, out = c.call("POST", "/api/v1/execute", map[string]any{"stmt": "YIELD $p AS p", "params": map[string]any{"p": []any{1, "x", nil, 2.5, map[string]any{"k": true}}}})
	if got, _ := json.Marshal(out["rows"]); status != http.StatusOK || string(got) != `[[[1,"x",null,2.5,{"k":true}]]]` {
		t.Fatalf("a list parameter: %d %v", status, out)
	}

	for _, bad := range []struct{ body, want string }{
		{`{"stmt": "YIELD 1"}}`, "more after the JSON object"},
		{`{"stmt": "YIELD $p", "params": {"p": 99999999999999999999}}`, "past a 64-bit integer"},
		{`{"stmt": "YIELD $p", "params": {"p": [1e400]}}`, "past a 64-bit float"},
	} {
		if status, out := c.call("POST", "/api/v1/execute", bad.body); status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), bad.want) {
			t.Errorf("%s: %d %v", bad.body, status, out)
		}
	}
	// A result without rows has an empty list of them.
	if out := c.exec("GO FROM 3 OVER knows YIELD dst(edge) AS d", nil); fmt.Sprint(out["rows"]) != "[]" {
		t.Fatalf("a result without rows: %v", out)
	}
	// The scheme's name is case-insensitive (RFC 7235).
	if status, out := c.callAuth("POST", "/api/v1/cancel", "bearer "+c.session); status != http.StatusNoContent {
		t.Fatalf("cancel with a lower-case scheme: %d %v", status, out)
	}
	if status, out := c.call("DELETE", "/api/v1/sessions", nil); status != http.StatusNoContent {
		t.Fatalf("sign-out: %d %v", status, out)
	}
	if status, out := c.call("POST", "/api/v1/execute", map[string]any{"stmt": "SHOW SPACES"}); status != http.StatusUnauthorized {
		t.Fatalf("a statement after sign-out: %d %v", status, out)
	}
}

// TestAPIOverTLS: with TLS, the API is HTTPS with graphd's certificate,
// and plain HTTP gets no answer.
func TestAPIOverTLS(t *testing.T) {
	cluster, c := startCluster(t, true)
	c.signIn("root", testcluster.Password)
	if out := c.exec("YIELD 1 + 1 AS two", nil); fmt.Sprint(out["rows"]) != "[[2]]" {
		t.Fatalf("YIELD over HTTPS: %v", out)
	}
	resp, err := http.Post("http://"+cluster.Graph.WebAddr()+"/api/v1/sessions", "application/json", strings.NewReader(`{}`))
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTPS") {
			t.Fatalf("plain HTTP to the TLS API: %d %s", resp.StatusCode, body)
		}
	}
}

// TestAPICancel: POST /api/v1/cancel stops the statement the session is
// running (a variable-length MATCH over a complete graph of 60 vertices,
// twelve million paths, which runs for many seconds), and the statement's
// own call answers that it was killed.
func TestAPICancel(t *testing.T) {
	_, c := startCluster(t, false)
	c.signIn("root", testcluster.Password)
	c.exec("CREATE SPACE slow(partition_num=2, replica_factor=1, vid_type=INT64)", nil)
	c.exec("USE slow", nil)
	c.exec("CREATE EDGE e()", nil)
	var edges []string
	for i := 1; i <= 60; i++ {
		for j := 1; j <= 60; j++ {
			if i != j {
				edges = append(edges, fmt.Sprintf("%d->%d:()", i, j))
			}
		}
	}
	for len(edges) > 0 {
		n := min(60, len(edges))
		c.exec("INSERT EDGE e() VALUES "+strings.Join(edges[:n], ","), nil)
		edges = edges[n:]
	}
	const slow = "MATCH (a)-[:e*4]->(b) WHERE id(a) == 1 RETURN count(*) AS n"
	type answer struct {
		status int
		body   map[string]any
	}
	done := make(chan answer, 1)
	runner := &caller{t: t, base: c.base, http: c.http, session: c.session}
	go func() {
		status, out := runner.call("POST", "/api/v1/execute", map[string]any{"stmt": slow})
		done <- answer{status, out}
	}()
	// Another session watches for the statement to be running.
	watcher := &caller{t: t, base: c.base, http: c.http}
	watcher.signIn("root", testcluster.Password)
	for {
		out := watcher.exec("SHOW QUERIES", nil)
		if strings.Contains(fmt.Sprint(out["rows"]), "MATCH (a)") {
			break
		}
		select {
		case a := <-done:
			t.Fatalf("the statement ended before it was cancelled: %d %v", a.status, a.body)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if status, out := c.call("POST", "/api/v1/cancel", nil); status != http.StatusNoContent {
		t.Fatalf("cancel: %d %v", status, out)
	}
	a := <-done
	// The session goes on.
	if out := c.exec("YIELD 1 AS one", nil); fmt.Sprint(out["rows"]) != "[[1]]" {
		t.Fatalf("the session after a cancel: %v", out)
	}
	if a.status != http.StatusOK || a.body["code"] != "E_KILLED" || !strings.Contains(fmt.Sprint(a.body["error"]), "its client cancelled it") {
		t.Fatalf("the cancelled statement answered %d %v", a.status, a.body)
	}
}
