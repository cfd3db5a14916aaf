package e2e

import (
	"fmt"
	"math/rand"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	nebulago "github.com/vesoft-inc/nebula-go/v3"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/console"
	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/graphd/nebulaapi"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/temporal"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// The NebulaGraph protocol against a real cluster: NebulaGraph's own Go
// client (nebula-go v3.8.0) runs DDL, writes and every kind of query, and
// each answer, read through nebula-go's getters, is compared with what
// novagraph's client reads for the same statement.

// withNebulaProtocol starts graphd with the NebulaGraph protocol on a
// free port.
func withNebulaProtocol(cfg *graphd.Config) { cfg.NebulaAddr = "127.0.0.1:0" }

type quietNebulaLog struct{ nebulago.DefaultLogger }

func (quietNebulaLog) Info(string) {}
func (quietNebulaLog) Warn(string) {}

func nebulaAddr(t testing.TB, c *testcluster.Cluster) nebulago.HostAddress {
	t.Helper()
	host, port, err := net.SplitHostPort(c.Graph.NebulaAddr())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return nebulago.HostAddress{Host: host, Port: p}
}

func nebulaPool(t testing.TB, c *testcluster.Cluster) *nebulago.ConnectionPool {
	t.Helper()
	conf := nebulago.GetDefaultConf()
	conf.TimeOut = 2 * time.Minute
	pool, err := nebulago.NewConnectionPool([]nebulago.HostAddress{nebulaAddr(t, c)}, conf, quietNebulaLog{})
	if err != nil {
		t.Fatalf("nebula-go connection pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// nebulaExec runs stmt through nebula-go and fails the test on an error;
// an unknown write outcome is repeated, as exec does.
func nebulaExec(t testing.TB, s *nebulago.Session, stmt string, params map[string]any) *nebulago.ResultSet {
	t.Helper()
	for attempt := 1; ; attempt++ {
		rs, err := s.ExecuteWithParameter(stmt, params)
		if err != nil {
			t.Fatalf("%s\n-> %v", truncate(stmt), err)
		}
		if rs.IsSucceed() {
			return rs
		}
		if attempt < 5 && strings.Contains(rs.GetErrorMsg(), "E_OUTCOME_UNKNOWN") {
			continue
		}
		t.Fatalf("%s\n-> %d %s", truncate(stmt), rs.GetErrorCode(), rs.GetErrorMsg())
	}
}

// nativeCanon writes a cell as novagraph's client reads it, in a form
// nebulaCanon writes NebulaGraph's the same way.
func nativeCanon(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "bool:" + strconv.FormatBool(x)
	case int64:
		return "int:" + strconv.FormatInt(x, 10)
	case float64:
		return "float:" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "str:" + strconv.Quote(x)
	case temporal.Date:
		return "date:" + x.String()
	case temporal.Time:
		return "time:" + x.String()
	case temporal.DateTime:
		return "datetime:" + x.String()
	case temporal.Duration:
		return fmt.Sprintf("duration:%dM%dus", x.Months, x.Micros)
	case []any:
		items := make([]string, len(x))
		for i, it := range x {
			items[i] = nativeCanon(it)
		}
		return "[" + strings.Join(items, ",") + "]"
	case client.Map:
		return canonMap(len(x), func(yield func(string, string)) {
			for k, v := range x {
				yield(k, nativeCanon(v))
			}
		})
	case client.Vertex:
		tags := make([]string, len(x.Tags))
		for i, t := range x.Tags {
			tags[i] = t.Name + nativeCanon(t.Props)
		}
		sort.Strings(tags)
		return "vertex(" + nativeCanon(x.VID) + " " + strings.Join(tags, " ") + ")"
	case client.Edge:
		return fmt.Sprintf("edge(%s->%s :%s@%d %s)", nativeCanon(x.Src), nativeCanon(x.Dst), x.Type, x.Rank, nativeCanon(x.Props))
	case client.Path:
		nodes := make([]string, 0, len(x.Steps)+1)
		for _, n := range x.Nodes() {
			nodes = append(nodes, nativeCanon(n))
		}
		rels := make([]string, 0, len(x.Steps))
		for _, e := range x.Relationships() {
			rels = append(rels, nativeCanon(e))
		}
		return "path(" + strings.Join(nodes, ",") + " | " + strings.Join(rels, ",") + ")"
	}
	return fmt.Sprintf("unknown %T", v)
}

func canonMap(n int, each func(yield func(string, string))) string {
	items := make([]string, 0, n)
	each(func(k, v string) { items = append(items, strconv.Quote(k)+":"+v) })
	sort.Strings(items)
	return "{" + strings.Join(items, ",") + "}"
}

// nebulaCanon writes a cell as nebula-go's getters read it.
func nebulaCanon(t testing.TB, v *nebulago.ValueWrapper) string {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatalf("reading %s (%s) through nebula-go: %v", v, v.GetType(), err)
		}
	}
	switch {
	case v.IsNull():
		return "NULL"
	case v.IsBool():
		b, err := v.AsBool()
		must(err)
		return "bool:" + strconv.FormatBool(b)
	case v.IsInt():
		i, err := v.AsInt()
		must(err)
		return "int:" + strconv.FormatInt(i, 10)
	case v.IsFloat():
		f, err := v.AsFloat()
		must(err)
		return "float:" + strconv.FormatFloat(f, 'g', -1, 64)
	case v.IsString():
		s, err := v.AsString()
		must(err)
		return "str:" + strconv.Quote(s)
	case v.IsDate():
		d, err := v.AsDate()
		must(err)
		return fmt.Sprintf("date:%04d-%02d-%02d", d.Year, d.Month, d.Day)
	case v.IsTime():
		// nebula-go's time wrappers export no getters: String prints the
		// local time by the zone the sign-in named (UTC).
		_, err := v.AsTime()
		must(err)
		return "time:" + v.String()
	case v.IsDateTime():
		_, err := v.AsDateTime()
		must(err)
		return "datetime:" + v.String()
	case v.IsDuration():
		d, err := v.AsDuration()
		must(err)
		return fmt.Sprintf("duration:%dM%dus", d.Months, d.Seconds*1e6+int64(d.Microseconds))
	case v.IsList():
		items, err := v.AsList()
		must(err)
		out := make([]string, len(items))
		for i := range items {
			out[i] = nebulaCanon(t, &items[i])
		}
		return "[" + strings.Join(out, ",") + "]"
	case v.IsMap():
		m, err := v.AsMap()
		must(err)
		return canonMap(len(m), func(yield func(string, string)) {
			for k, it := range m {
				yield(k, nebulaCanon(t, &it))
			}
		})
	case v.IsVertex():
		n, err := v.AsNode()
		must(err)
		return nodeCanon(t, n)
	case v.IsEdge():
		r, err := v.AsRelationship()
		must(err)
		return relCanon(t, r)
	case v.IsPath():
		p, err := v.AsPath()
		must(err)
		var nodes, rels []string
		for _, n := range p.GetNodes() {
			nodes = append(nodes, nodeCanon(t, n))
		}
		for _, r := range p.GetRelationships() {
			rels = append(rels, relCanon(t, r))
		}
		return "path(" + strings.Join(nodes, ",") + " | " + strings.Join(rels, ",") + ")"
	}
	t.Fatalf("a value of type %s nebula-go cannot read: %s", v.GetType(), v)
	return ""
}

func propsCanon(t testing.TB, m map[string]*nebulago.ValueWrapper) string {
	return canonMap(len(m), func(yield func(string, string)) {
		for k, it := range m {
			yield(k, nebulaCanon(t, it))
		}
	})
}

func nodeCanon(t testing.TB, n *nebulago.Node) string {
	id := n.GetID()
	var tags []string
	for _, tag := range n.GetTags() {
		p, err := n.Properties(tag)
		if err != nil {
			t.Fatal(err)
		}
		tags = append(tags, tag+propsCanon(t, p))
	}
	sort.Strings(tags)
	return "vertex(" + nebulaCanon(t, &id) + " " + strings.Join(tags, " ") + ")"
}

func relCanon(t testing.TB, r *nebulago.Relationship) string {
	src, dst := r.GetSrcVertexID(), r.GetDstVertexID()
	return fmt.Sprintf("edge(%s->%s :%s@%d %s)", nebulaCanon(t, &src), nebulaCanon(t, &dst), r.GetEdgeName(), r.GetRanking(), propsCanon(t, r.Properties()))
}

// sameAnswer runs stmt through both clients and compares the columns and
// rows: in order when the statement orders them, as multisets otherwise.
func sameAnswer(t *testing.T, native *client.Session, neb *nebulago.Session, stmt string, params map[string]any) int {
	t.Helper()
	var want *client.ResultSet
	if len(params) == 0 {
		want = exec(t, native, stmt)
	} else {
		want = execParams(t, native, stmt, params)
	}
	got := nebulaExec(t, neb, stmt, params)
	if g, w := strings.Join(got.GetColNames(), ","), strings.Join(want.Columns(), ","); g != w {
		t.Fatalf("%s: nebula-go reads columns %s, novagraph's client %s", stmt, g, w)
	}
	if got.GetSpaceName() != want.SpaceName() {
		t.Errorf("%s: space %q through nebula-go, %q through novagraph's client", stmt, got.GetSpaceName(), want.SpaceName())
	}
	var wantRows, gotRows []string
	for i := range want.Len() {
		row := want.Row(i)
		cells := make([]string, row.Len())
		for j := range cells {
			cells[j] = nativeCanon(row.Value(j))
		}
		wantRows = append(wantRows, strings.Join(cells, " | "))
	}
	for i := range got.GetRowSize() {
		rec, err := got.GetRowValuesByIndex(i)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]string, got.GetColSize())
		for j := range cells {
			v, err := rec.GetValueByIndex(j)
			if err != nil {
				t.Fatal(err)
			}
			cells[j] = nebulaCanon(t, v)
		}
		gotRows = append(gotRows, strings.Join(cells, " | "))
	}
	if !strings.Contains(strings.ToUpper(stmt), "ORDER BY") {
		sort.Strings(wantRows)
		sort.Strings(gotRows)
	}
	if strings.Join(gotRows, "\n") != strings.Join(wantRows, "\n") {
		t.Fatalf("%s: nebula-go reads %d rows:\n%s\nnovagraph's client %d:\n%s", stmt, len(gotRows), head(gotRows), len(wantRows), head(wantRows))
	}
	return len(wantRows)
}

func head(rows []string) string {
	if len(rows) > 10 {
		rows = append(rows[:10:10], "…")
	}
	return strings.Join(rows, "\n")
}

// basketballStatements cover each statement kind and each kind of value
// on the demo graph.
var basketballStatements = []string{
	`GO FROM "player100" OVER follow YIELD dst(edge) AS d, $$.player.name AS name, follow.degree AS degree`,
	`GO 2 STEPS FROM "player100" OVER follow YIELD $^.player.name AS src, $$.player.name AS dst, follow.degree AS w`,
	`GO 3 STEPS FROM "player100" OVER follow BIDIRECT YIELD DISTINCT id($$) AS v`,
	`GO FROM "player100", "player105" OVER follow, serve YIELD edge AS e, $$ AS v, $^ AS s`,
	`GO FROM "player100" OVER follow REVERSELY YIELD edge AS e, src(edge) AS s, dst(edge) AS d`,
	`GO 1 TO 2 STEPS FROM "player101" OVER * YIELD type(edge) AS t, rank(edge) AS r, properties(edge) AS p`,
	`FETCH PROP ON player "player100", "player101", "nobody" YIELD vertex AS v, properties(vertex) AS p`,
	`FETCH PROP ON follow "player100"->"player101", "player101"->"player100" YIELD edge AS e`,
	`LOOKUP ON player WHERE player.age > 35 YIELD id(vertex) AS id, player.name AS name, vertex AS v`,
	`FIND SHORTEST PATH FROM "player102" TO "player100", "team204" OVER * YIELD path AS p`,
	`FIND ALL PATH FROM "player100" TO "player102" OVER follow UPTO 3 STEPS YIELD path AS p`,
	`FIND ALL PATH FROM "player102" TO "player100" OVER * BIDIRECT UPTO 2 STEPS YIELD path AS p`,
	`GET SUBGRAPH 1 STEPS FROM "player100" YIELD VERTICES AS nodes, EDGES AS relationships`,
	`MATCH p = (v:player{name: "Tim Duncan"})-[e:follow]->(w) RETURN p, e, w, nodes(p) AS n, relationships(p) AS r, length(p) AS l ORDER BY id(w)`,
	`MATCH (v:player)-[:serve]->(t:team) WHERE v.player.age < 33 RETURN v.player.name AS n, t.team.name AS t ORDER BY n, t`,
	`MATCH p = (a)<-[:follow*1..2]-(b) WHERE id(a) == "player100" RETURN p`,
	`YIELD NULL AS n, true AS b, -1 AS i, 1.5 AS f, "s" AS s, "" AS e, date("2024-02-29") AS d, time("12:34:56.789") AS t, ` +
		`datetime("2024-02-29T12:34:56.123456") AS dt, duration({days: 1, hours: 2, seconds: -3}) AS du, [1, "a", NULL, [2]] AS l, ` +
		`{a: 1, b: {c: "x"}} AS m, timestamp("2024-01-01T00:00:00") AS ts`,
	`SHOW TAGS`,
	`DESCRIBE EDGE serve`,
	`SHOW CREATE TAG player`,
}

// TestNebulaClientsMatchNativeClient drives a cluster with nebula-go and
// compares every answer with novagraph's own client's.
func TestNebulaClientsMatchNativeClient(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1, Graph: withNebulaProtocol})
	native := c.Session()
	defer native.Close()
	pool := nebulaPool(t, c)
	neb, err := pool.GetSession("root", testcluster.Password)
	if err != nil {
		t.Fatalf("nebula-go sign-in: %v", err)
	}
	defer neb.Release()

	t.Run("basketball", func(t *testing.T) {
		// The demo loads through nebula-go: DDL, indexes, writes, USE.
		stmts, err := console.DemoStatements("basketball")
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stmts {
			nebulaExec(t, neb, st, nil)
		}
		if rs := nebulaExec(t, neb, "YIELD 1", nil); rs.GetSpaceName() != "basketball" {
			t.Fatalf("nebula-go's session is in space %q after the demo's USE", rs.GetSpaceName())
		}
		exec(t, native, "USE basketball")
		for _, st := range basketballStatements {
			sameAnswer(t, native, neb, st, nil)
		}
		// executeJson: NebulaGraph's JSON shape. (nebula-go's session
		// pool does not implement it; its sessions do.)
		raw, err := neb.ExecuteJson(`FETCH PROP ON player "player100" YIELD vertex AS v`)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"row":[{"player.age":42,"player.name":"Tim Duncan"}]`; !strings.Contains(string(raw), want) {
			t.Fatalf("executeJson: %s, want it to hold %s", raw, want)
		}
		// Query parameters, of each kind nebula-go sends.
		sameAnswer(t, native, neb, `GO FROM $start OVER follow WHERE follow.degree >= $min YIELD dst(edge) AS d, $label AS label`,
			map[string]any{"start": "player100", "min": 95, "label": "x"})
		sameAnswer(t, native, neb, `YIELD $l AS l, $m AS m, $f AS f, $b AS b, size($l) AS n`,
			map[string]any{"l": []any{1, "two", 3.5}, "m": map[string]any{"k": []any{true}}, "f": 0.25, "b": false})
	})

	ldbcLoaded := false
	t.Run("ldbc", func(t *testing.T) {
		persons, edges := loadLDBC(t)
		nebulaExec(t, neb, "CREATE SPACE ldbcneb(partition_num=6, replica_factor=1, vid_type=INT64)", nil)
		nebulaExec(t, neb, "USE ldbcneb", nil)
		nebulaExec(t, neb, "CREATE TAG Person(firstName string, lastName string, creationDate int)", nil)
		nebulaExec(t, neb, "CREATE EDGE knows(creationDate int)", nil)
		nebulaExec(t, neb, "CREATE TAG INDEX person_first ON Person(firstName(20))", nil)
		for _, stmt := range ldbcInserts(persons, edges) {
			nebulaExec(t, neb, stmt, nil)
		}
		exec(t, native, "USE ldbcneb")
		// Every write went through nebula-go: the counts say none was lost.
		if rs := exec(t, native, "MATCH (p:Person) RETURN count(p) AS n"); rs.Row(0).Value(0) != int64(len(persons)) {
			t.Fatalf("%v persons after the load through nebula-go, want %d", rs.Row(0).Value(0), len(persons))
		}
		rng := rand.New(rand.NewSource(20261205))
		rows := 0
		for _, k := range rng.Perm(len(persons))[:12] {
			id := persons[k].id
			for _, st := range []string{
				"GO FROM %d OVER knows YIELD dst(edge) AS d, knows.creationDate AS cd, $$.Person.firstName AS fn",
				"GO 2 STEPS FROM %d OVER knows YIELD DISTINCT id($$) AS v, $$.Person.lastName AS ln",
				"GO 3 STEPS FROM %d OVER knows YIELD dst(edge) AS d",
				"FETCH PROP ON Person %d YIELD vertex AS v",
				"MATCH (a)-[e:knows]->(b)-[:knows]->(c) WHERE id(a) == %d RETURN b.Person.firstName AS f, e.creationDate AS cd, id(c) AS c",
			} {
				rows += sameAnswer(t, native, neb, fmt.Sprintf(st, id), nil)
			}
			rows += sameAnswer(t, native, neb, "GO 2 STEPS FROM $id OVER knows WHERE knows.creationDate > $after YIELD src(edge) AS s, dst(edge) AS d",
				map[string]any{"id": int(id), "after": 1300000000000})
		}
		rows += sameAnswer(t, native, neb, `LOOKUP ON Person WHERE Person.firstName == "Jan" YIELD id(vertex) AS id, Person.lastName AS ln`, nil)
		t.Logf("%d rows compared", rows)
		ldbcLoaded = true
	})

	t.Run("metrics", func(t *testing.T) {
		// The protocol's statements count in graphd's own series, and its
		// connections have one of their own.
		gather := func() (conns, queries float64) {
			families, err := c.GraphRegistry.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, mf := range families {
				for _, m := range mf.GetMetric() {
					switch mf.GetName() {
					case "novagraph_graphd_nebula_connections":
						conns += m.GetGauge().GetValue()
					case "novagraph_graphd_queries_total":
						queries += m.GetCounter().GetValue()
					}
				}
			}
			return conns, queries
		}
		_, before := gather()
		for range 3 {
			nebulaExec(t, neb, "YIELD 1", nil)
		}
		conns, after := gather()
		if conns < 1 || after-before != 3 {
			t.Fatalf("novagraph_graphd_nebula_connections %v; novagraph_graphd_queries_total rose by %v for 3 statements through nebula-go", conns, after-before)
		}
	})

	t.Run("session pool", func(t *testing.T) {
		conf, err := nebulago.NewSessionPoolConf("root", testcluster.Password, []nebulago.HostAddress{nebulaAddr(t, c)}, "basketball",
			nebulago.WithTimeOut(time.Minute), nebulago.WithMaxSize(4))
		if err != nil {
			t.Fatal(err)
		}
		sp, err := nebulago.NewSessionPool(*conf, quietNebulaLog{})
		if err != nil {
			t.Fatalf("nebula-go session pool: %v", err)
		}
		defer sp.Close()
		rs, err := sp.Execute(`GO FROM "player100" OVER follow YIELD dst(edge) AS d`)
		if err != nil || !rs.IsSucceed() || rs.GetRowSize() != 2 {
			t.Fatalf("%v %v", err, rs)
		}
	})

	t.Run("errors", func(t *testing.T) {
		code := func(rs *nebulago.ResultSet, err error) nebulago.ErrorCode {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			return rs.GetErrorCode()
		}
		rs, err := neb.Execute("GO FROM OVER")
		if code(rs, err) != nebulago.ErrorCode_E_SYNTAX_ERROR || !strings.Contains(rs.GetErrorMsg(), "syntax error") {
			t.Errorf("syntax error: %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
		}
		rs, err = neb.Execute("GO FROM 1 OVER nosuchedge YIELD dst(edge)")
		if code(rs, err) != nebulago.ErrorCode_E_SEMANTIC_ERROR {
			t.Errorf("unknown edge type: %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
		}
		// A user without the role: refused as NebulaGraph refuses.
		exec(t, native, `CREATE USER IF NOT EXISTS nebguest WITH PASSWORD "guest-pw"`)
		exec(t, native, `GRANT ROLE GUEST ON basketball TO nebguest`)
		var guest *nebulago.Session
		for deadline := time.Now().Add(30 * time.Second); guest == nil; {
			guest, err = pool.GetSession("nebguest", "guest-pw")
			if err != nil && time.Now().After(deadline) {
				t.Fatalf("guest sign-in: %v", err)
			}
		}
		defer guest.Release()
		nebulaExec(t, guest, "USE basketball", nil)
		rs, err = guest.Execute("CREATE TAG sneaky(a int)")
		if code(rs, err) != nebulago.ErrorCode_E_BAD_PERMISSION {
			t.Errorf("GUEST creating a tag: %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
		}
		if _, err := pool.GetSession("nebguest", "wrong"); err == nil || !strings.Contains(err.Error(), "bad username or password") {
			t.Errorf("wrong password: %v", err)
		}
		// Over the query's memory limit (LDBC's knows are enough to go
		// over it; person 933 has 3-hop friends by the thousand).
		if ldbcLoaded {
			nebulaExec(t, neb, "USE ldbcneb", nil)
			nebulaExec(t, neb, "SET QUERY_MEMORY_LIMIT = 64KB", nil)
			rs, err = neb.Execute("GO 3 STEPS FROM 933 OVER knows BIDIRECT YIELD $$.Person.firstName AS f, $$.Person.lastName AS l")
			if code(rs, err) != nebulago.ErrorCode(nebulaapi.ErrGraphMemoryExceeded) || !strings.Contains(rs.GetErrorMsg(), "memory limit") {
				t.Errorf("over the memory limit: %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
			}
			nebulaExec(t, neb, "SET QUERY_MEMORY_LIMIT = DEFAULT", nil)
		} else {
			t.Log("LDBC SF0.1 absent: the memory limit through nebula-go is not checked")
		}
		// A session ended by KILL SESSION: E_SESSION_INVALID.
		victim, err := pool.GetSession("root", testcluster.Password)
		if err != nil {
			t.Fatal(err)
		}
		defer victim.Release()
		exec(t, native, fmt.Sprintf("KILL SESSION %d", victim.GetSessionID()))
		rs, err = victim.Execute("YIELD 1")
		if code(rs, err) != nebulago.ErrorCode_E_SESSION_INVALID {
			t.Errorf("killed session: %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
		}
	})
}

// TestNebulaProtocolTLS: with TLS on, the NebulaGraph protocol is TLS
// with graphd's certificate, as nebula-go's SslConfig expects; a
// plaintext client gets nowhere.
func TestNebulaProtocolTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1, TLS: true, Graph: withNebulaProtocol})
	tlsCfg, err := c.TLS.Load(nodetls.RoleClient)
	if err != nil {
		t.Fatal(err)
	}
	conf := nebulago.GetDefaultConf()
	conf.TimeOut = time.Minute
	pool, err := nebulago.NewSslConnectionPool([]nebulago.HostAddress{nebulaAddr(t, c)}, conf, tlsCfg.ClientTLS(), quietNebulaLog{})
	if err != nil {
		t.Fatalf("nebula-go over TLS: %v", err)
	}
	defer pool.Close()
	s, err := pool.GetSession("root", testcluster.Password)
	if err != nil {
		t.Fatalf("sign-in over TLS: %v", err)
	}
	defer s.Release()
	if rs := nebulaExec(t, s, "YIELD 1 + 1 AS two", nil); rs.GetRowSize() != 1 {
		t.Fatalf("YIELD over TLS: %v", rs)
	}
	conf.TimeOut = 5 * time.Second
	if plain, err := nebulago.NewConnectionPool([]nebulago.HostAddress{nebulaAddr(t, c)}, conf, quietNebulaLog{}); err == nil {
		plain.Close()
		t.Fatal("a plaintext nebula-go client connected to the TLS port")
	}
}
