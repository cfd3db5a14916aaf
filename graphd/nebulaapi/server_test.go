package nebulaapi_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
	nebulago "github.com/vesoft-inc/nebula-go/v3"
	"github.com/vesoft-inc/nebula-go/v3/nebula"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"
	"google.golang.org/grpc/peer"

	"github.com/novagraph/novagraph/graphd/nebulaapi"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/temporal"
)

// fakeGraphd answers as graphd would, from canned answers: these tests
// check the protocol and the value mapping, the e2e tests the whole.
type fakeGraphd struct {
	mu       sync.Mutex
	hosts    []string // the client host each sign-in came from
	started  chan struct{}
	ended    chan error // what ended each "slow" statement (its context's error)
	nanRuns  int
	lastReq  *graphpb.ExecuteReq
	sessions map[int64]bool
}

const fakeSession = 7

func newFake() *fakeGraphd {
	return &fakeGraphd{started: make(chan struct{}, 1), ended: make(chan error, 1), sessions: map[int64]bool{fakeSession: true}}
}

func (f *fakeGraphd) Authenticate(ctx context.Context, req *graphpb.AuthReq) (*graphpb.AuthResp, error) {
	if p, ok := peer.FromContext(ctx); ok {
		f.mu.Lock()
		f.hosts = append(f.hosts, p.Addr.String())
		f.mu.Unlock()
	}
	switch {
	case req.Username == "root" && req.Password == "nova":
		f.mu.Lock()
		f.sessions[fakeSession] = true
		f.mu.Unlock()
		return &graphpb.AuthResp{SessionId: fakeSession}, nil
	case req.Username == "down":
		return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_NO_HOSTS, Error: "cannot verify the user now: no metad"}, nil
	}
	return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT, Error: "bad username or password"}, nil
}

func (f *fakeGraphd) Signout(_ context.Context, req *graphpb.SignoutReq) (*graphpb.SignoutResp, error) {
	f.mu.Lock()
	delete(f.sessions, req.SessionId)
	f.mu.Unlock()
	return &graphpb.SignoutResp{}, nil
}

func (f *fakeGraphd) EdgeTypeID(space, edge string) int32 {
	if space == "nba" && edge == "follow" {
		return 5
	}
	return 0
}

func str(s string) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(s)}}
}
func integer(i int64) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: i}} }
func null() *commonpb.Value           { return &commonpb.Value{V: &commonpb.Value_Null{Null: true}} }

func props(kv ...any) *commonpb.MapVal {
	m := &commonpb.MapVal{}
	for i := 0; i < len(kv); i += 2 {
		m.Entries = append(m.Entries, &commonpb.MapEntry{Key: []byte(kv[i].(string)), Value: kv[i+1].(*commonpb.Value)})
	}
	return m
}

func vertex(vid string, tag string, p *commonpb.MapVal) *commonpb.VertexVal {
	v := &commonpb.VertexVal{Vid: str(vid)}
	if tag != "" {
		v.Tags = []*commonpb.TagVal{{Name: tag, Props: p}}
	}
	return v
}

// everyKind is one row with a cell of each kind graphd answers with.
func everyKind() *graphpb.DataSet {
	d, _ := temporal.NewDate(2024, 2, 29)
	tm, _ := temporal.NewTime(23, 59, 58, 123456)
	dt := temporal.NewDateTime(d, tm)
	follow := &commonpb.EdgeVal{Src: str("a"), Dst: str("b"), Name: "follow", Rank: 3, Props: props("degree", integer(95))}
	path := &commonpb.PathVal{
		Src: vertex("a", "player", props("name", str("A"))),
		Steps: []*commonpb.PathStep{
			{Edge: follow, Dst: vertex("b", "", nil)},
			// b was reached; then an in-edge c->b walked from b to c.
			{Edge: &commonpb.EdgeVal{Src: str("c"), Dst: str("b"), Name: "follow", Props: props()}, Reverse: true, Dst: vertex("c", "", nil)},
		},
	}
	cells := []*commonpb.Value{
		null(),
		{V: &commonpb.Value_BoolVal{BoolVal: true}},
		integer(-42),
		{V: &commonpb.Value_FloatVal{FloatVal: 2.5}},
		str("héllo"),
		{V: &commonpb.Value_TimestampVal{TimestampVal: 1700000000}},
		{V: &commonpb.Value_DateVal{DateVal: int32(d)}},
		{V: &commonpb.Value_TimeVal{TimeVal: int64(tm)}},
		{V: &commonpb.Value_DatetimeVal{DatetimeVal: int64(dt)}},
		{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: 14, Micros: -90061_500000}}},
		{V: &commonpb.Value_ListVal{ListVal: &commonpb.ValueList{Values: []*commonpb.Value{integer(1), str("x"), null()}}}},
		{V: &commonpb.Value_MapVal{MapVal: props("k", integer(1), "n", null())}},
		{V: &commonpb.Value_VertexVal{VertexVal: vertex("a", "player", props("name", str("A"), "age", integer(33)))}},
		{V: &commonpb.Value_EdgeVal{EdgeVal: follow}},
		{V: &commonpb.Value_PathVal{PathVal: path}},
		str(""),
	}
	names := []string{"null", "bool", "int", "float", "string", "timestamp", "date", "time", "datetime", "duration", "list", "map", "vertex", "edge", "path", "empty"}
	return &graphpb.DataSet{ColumnNames: names, Rows: []*graphpb.Row{{Values: cells}}}
}

// typedColumns is an answer in columns, with NULLs, as GO answers.
func typedColumns() *graphpb.DataSet {
	var ints, floats, strs, bools commonpb.ColumnBuilder
	ints.AddValue(integer(1))
	ints.AddValue(null())
	ints.AddValue(integer(3))
	floats.AddValue(&commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: 0.5}})
	floats.AddValue(&commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: 1.5}})
	floats.AddValue(null())
	strs.AddValue(str("x"))
	strs.AddValue(str(""))
	strs.AddValue(null())
	bools.AddValue(null())
	bools.AddValue(&commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: false}})
	bools.AddValue(&commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: true}})
	cols := []*commonpb.Column{ints.Finish(), floats.Finish(), strs.Finish(), bools.Finish()}
	for i, c := range cols {
		if c.Kind == commonpb.ColumnKind_COL_ANY {
			panic(fmt.Sprintf("column %d is not typed", i))
		}
	}
	return &graphpb.DataSet{ColumnNames: []string{"i", "f", "s", "b"}, Columns: cols, NumRows: 3}
}

func (f *fakeGraphd) Execute(ctx context.Context, req *graphpb.ExecuteReq) (*graphpb.ExecuteResp, error) {
	f.mu.Lock()
	f.lastReq = req
	ok := f.sessions[req.SessionId]
	f.mu.Unlock()
	if !ok {
		return &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_SESSION, Error: fmt.Sprintf("session %d not found (expired, or graphd restarted): sign in again", req.SessionId)}, nil
	}
	resp := &graphpb.ExecuteResp{LatencyUs: 1234, SpaceName: "nba"}
	switch req.Stmt {
	case "every kind":
		resp.Data = everyKind()
	case "columns":
		resp.Data = typedColumns()
	case "params":
		names := make([]string, 0, len(req.Params))
		for n := range req.Params {
			names = append(names, n)
		}
		sort.Strings(names)
		row := &graphpb.Row{}
		for _, n := range names {
			row.Values = append(row.Values, req.Params[n])
		}
		resp.Data = &graphpb.DataSet{ColumnNames: names, Rows: []*graphpb.Row{row}}
	case "USE nba":
	case "bad syntax":
		resp.Code, resp.Error = graphpb.QueryErrorCode_E_SYNTAX, "syntax error near `bad`"
	case "too big":
		resp.Code, resp.Error = graphpb.QueryErrorCode_E_MEMORY_EXCEEDED, "the query went over its memory limit"
	case "not allowed":
		resp.Code, resp.Error = graphpb.QueryErrorCode_E_BAD_PERMISSION, "CREATE TAG needs role ADMIN"
	case "huge":
		// 2M rows: over MaxAnswerBytes in NebulaGraph's form.
		var col commonpb.ColumnBuilder
		for i := range 2 << 20 {
			col.AddInt(int64(i))
		}
		resp.Data = &graphpb.DataSet{ColumnNames: []string{"i"}, Columns: []*commonpb.Column{col.Finish()}, NumRows: 2 << 20}
	case "nan":
		f.mu.Lock()
		f.nanRuns++
		f.mu.Unlock()
		resp.Data = &graphpb.DataSet{ColumnNames: []string{"x"}, Rows: []*graphpb.Row{{Values: []*commonpb.Value{{V: &commonpb.Value_FloatVal{FloatVal: math.NaN()}}}}}}
	case "slow":
		f.started <- struct{}{}
		<-ctx.Done()
		f.ended <- ctx.Err()
		resp.Code, resp.Error = graphpb.QueryErrorCode_E_KILLED, "stopped: graphd is stopping"
	default:
		resp.Code, resp.Error = graphpb.QueryErrorCode_E_SEMANTIC, "unknown statement "+req.Stmt
	}
	return resp, nil
}

func startServer(t *testing.T, f *fakeGraphd, cfg nebulaapi.Config) (*nebulaapi.Server, nebulago.HostAddress) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := nebulaapi.New(f, cfg)
	srv.Serve(lis)
	t.Cleanup(func() { srv.Stop(time.Second) })
	a := lis.Addr().(*net.TCPAddr)
	return srv, nebulago.HostAddress{Host: "127.0.0.1", Port: a.Port}
}

type quietLog struct{ nebulago.DefaultLogger }

func (quietLog) Info(string) {}
func (quietLog) Warn(string) {}

func newPool(t *testing.T, addr nebulago.HostAddress, conf nebulago.PoolConfig) *nebulago.ConnectionPool {
	t.Helper()
	conf.TimeOut = 10 * time.Second
	pool, err := nebulago.NewConnectionPool([]nebulago.HostAddress{addr}, conf, quietLog{})
	if err != nil {
		t.Fatalf("nebula-go connection pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func session(t *testing.T, pool *nebulago.ConnectionPool) *nebulago.Session {
	t.Helper()
	s, err := pool.GetSession("root", "nova")
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	t.Cleanup(s.Release)
	return s
}

func run(t *testing.T, s *nebulago.Session, stmt string) *nebulago.ResultSet {
	t.Helper()
	rs, err := s.Execute(stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if !rs.IsSucceed() {
		t.Fatalf("%s: %d %s", stmt, rs.GetErrorCode(), rs.GetErrorMsg())
	}
	return rs
}

func cell(t *testing.T, rs *nebulago.ResultSet, col string) *nebulago.ValueWrapper {
	t.Helper()
	vals, err := rs.GetValuesByColName(col)
	if err != nil {
		t.Fatal(err)
	}
	return vals[0]
}

// TestEveryKindThroughNebulaGo reads each kind of value back through
// nebula-go's getters.
func TestEveryKindThroughNebulaGo(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	rs := run(t, s, "every kind")
	if rs.GetSpaceName() != "nba" || rs.GetLatency() != 1234 || rs.GetRowSize() != 1 {
		t.Fatalf("space %q latency %d rows %d", rs.GetSpaceName(), rs.GetLatency(), rs.GetRowSize())
	}
	if !cell(t, rs, "null").IsNull() {
		t.Error("null is not NULL")
	}
	if b, err := cell(t, rs, "bool").AsBool(); err != nil || !b {
		t.Errorf("bool: %v %v", b, err)
	}
	if i, err := cell(t, rs, "int").AsInt(); err != nil || i != -42 {
		t.Errorf("int: %v %v", i, err)
	}
	if f, err := cell(t, rs, "float").AsFloat(); err != nil || f != 2.5 {
		t.Errorf("float: %v %v", f, err)
	}
	if s, err := cell(t, rs, "string").AsString(); err != nil || s != "héllo" {
		t.Errorf("string: %q %v", s, err)
	}
	if s, err := cell(t, rs, "empty").AsString(); err != nil || s != "" {
		t.Errorf("empty string: %q %v", s, err)
	}
	if i, err := cell(t, rs, "timestamp").AsInt(); err != nil || i != 1700000000 {
		t.Errorf("timestamp: %v %v", i, err)
	}
	if d, err := cell(t, rs, "date").AsDate(); err != nil || d.Year != 2024 || d.Month != 2 || d.Day != 29 {
		t.Errorf("date: %v %v", d, err)
	}
	// nebula-go's time wrappers have no exported getters: their String
	// prints the local time by the zone the sign-in named (UTC).
	if _, err := cell(t, rs, "time").AsTime(); err != nil || cell(t, rs, "time").String() != "23:59:58.123456" {
		t.Errorf("time: %s %v", cell(t, rs, "time"), err)
	}
	if _, err := cell(t, rs, "datetime").AsDateTime(); err != nil || cell(t, rs, "datetime").String() != "2024-02-29T23:59:58.123456" {
		t.Errorf("datetime: %s %v", cell(t, rs, "datetime"), err)
	}
	// -90061.5 s: both parts carry the sign.
	if du, err := cell(t, rs, "duration").AsDuration(); err != nil || du.Months != 14 || du.Seconds != -90061 || du.Microseconds != -500000 {
		t.Errorf("duration: %+v %v", du, err)
	}
	list, err := cell(t, rs, "list").AsList()
	if err != nil || len(list) != 3 || !list[2].IsNull() {
		t.Fatalf("list: %v %v", list, err)
	}
	if s, _ := list[1].AsString(); s != "x" {
		t.Errorf("list[1] = %q", s)
	}
	m, err := cell(t, rs, "map").AsMap()
	if err != nil || len(m) != 2 || !m["n"].IsNull() {
		t.Fatalf("map: %v %v", m, err)
	}
	if k, _ := m["k"].AsInt(); k != 1 {
		t.Errorf("map k = %d", k)
	}
	node, err := cell(t, rs, "vertex").AsNode()
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := node.GetID().AsString(); id != "a" || !node.HasTag("player") {
		t.Errorf("vertex %s", node)
	}
	if p, err := node.Properties("player"); err != nil || len(p) != 2 {
		t.Errorf("vertex props %v %v", p, err)
	} else if age, _ := p["age"].AsInt(); age != 33 {
		t.Errorf("vertex age %d", age)
	}
	rel, err := cell(t, rs, "edge").AsRelationship()
	if err != nil {
		t.Fatal(err)
	}
	src, _ := rel.GetSrcVertexID().AsString()
	dst, _ := rel.GetDstVertexID().AsString()
	if src != "a" || dst != "b" || rel.GetEdgeName() != "follow" || rel.GetRanking() != 3 {
		t.Errorf("edge %s", rel)
	}
	if d, _ := rel.Properties()["degree"].AsInt(); d != 95 {
		t.Errorf("edge degree %d", d)
	}
	if got := cell(t, rs, "edge").String(); got != `[:follow "a"->"b" @3 {degree: 95}]` {
		t.Errorf("edge prints as %s", got)
	}
	path, err := cell(t, rs, "path").AsPath()
	if err != nil {
		t.Fatal(err)
	}
	if path.GetPathLength() != 2 || len(path.GetNodes()) != 3 {
		t.Fatalf("path %v", path)
	}
	// The second hop went against its edge: nebula-go gives the edge in
	// its stored direction, c->b.
	rels := path.GetRelationships()
	src, _ = rels[1].GetSrcVertexID().AsString()
	dst, _ = rels[1].GetDstVertexID().AsString()
	if src != "c" || dst != "b" {
		t.Errorf("reversed step's edge %s->%s, want c->b", src, dst)
	}
	if got := cell(t, rs, "path").String(); got != `<("a" :player{name: "A"})-[:follow@3 {degree: 95}]->("b")<-[:follow@0 {}]-("c")>` {
		t.Errorf("path prints as %s", got)
	}
}

// TestColumnsWithNulls: graphd's typed columns, NULLs among them.
func TestColumnsWithNulls(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	rs := run(t, s, "columns")
	if got := strings.Join(rs.GetColNames(), ","); got != "i,f,s,b" {
		t.Fatalf("columns %s", got)
	}
	var rows []string
	for i := range rs.GetRowSize() {
		r, err := rs.GetRowValuesByIndex(i)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r.String())
	}
	want := []string{`1, 0.5, "x", __NULL__`, `__NULL__, 1.5, "", false`, `3, __NULL__, __NULL__, true`}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// TestParametersReachGraphd: executeWithParameter's values arrive as
// graphd's parameters, each kind converted.
func TestParametersReachGraphd(t *testing.T) {
	f := newFake()
	_, addr := startServer(t, f, nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	rs, err := s.ExecuteWithParameter("params", map[string]any{
		"b": true, "i": 7, "f": 1.25, "s": "x", "n": nil,
		"l": []any{1, "y"}, "m": map[string]any{"k": 2},
	})
	if err != nil || !rs.IsSucceed() {
		t.Fatalf("%v %s", err, rs.GetErrorMsg())
	}
	r, err := rs.GetRowValuesByIndex(0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), `true, 1.25, 7, [1, "y"], {k: 2}, __NULL__, "x"`; got != want {
		t.Fatalf("parameters read back as\n%s\nwant\n%s", got, want)
	}
	if !f.lastReq.Columnar || !f.lastReq.PackedStrings {
		t.Error("the request does not ask graphd for packed columns")
	}
	// A vertex cannot be a parameter: refused by name, nothing run.
	f.lastReq = nil
	rs, err = s.ExecuteWithParameter("params", map[string]any{"v": nebulago.Node{}})
	if err == nil && rs.IsSucceed() {
		t.Fatal("a vertex parameter was taken")
	}
}

// TestErrorCodes: graphd's errors come back as NebulaGraph's codes, with
// graphd's message.
func TestErrorCodes(t *testing.T) {
	f := newFake()
	_, addr := startServer(t, f, nebulaapi.Config{})
	pool := newPool(t, addr, nebulago.GetDefaultConf())
	s := session(t, pool)
	for _, tc := range []struct {
		stmt string
		code nebulago.ErrorCode
		msg  string
	}{
		{"bad syntax", nebulago.ErrorCode_E_SYNTAX_ERROR, "syntax error near `bad`"},
		{"unknown", nebulago.ErrorCode_E_SEMANTIC_ERROR, "unknown statement unknown"},
		{"not allowed", nebulago.ErrorCode_E_BAD_PERMISSION, "needs role ADMIN"},
		{"too big", nebulago.ErrorCode(nebulaapi.ErrGraphMemoryExceeded), "memory limit"},
	} {
		rs, err := s.Execute(tc.stmt)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		if rs.GetErrorCode() != tc.code || !strings.Contains(rs.GetErrorMsg(), tc.msg) {
			t.Errorf("%s: code %d %q, want %d and %q", tc.stmt, rs.GetErrorCode(), rs.GetErrorMsg(), tc.code, tc.msg)
		}
	}
	// An ended session: E_SESSION_INVALID.
	f.mu.Lock()
	delete(f.sessions, fakeSession)
	f.mu.Unlock()
	rs, err := s.Execute("USE nba")
	if err != nil {
		t.Fatal(err)
	}
	if rs.GetErrorCode() != nebulago.ErrorCode_E_SESSION_INVALID || !strings.Contains(rs.GetErrorMsg(), "sign in again") {
		t.Errorf("ended session: %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
	}
	// A wrong password and an unreachable metad, as nebula-go reports them.
	if _, err := pool.GetSession("root", "wrong"); err == nil || !strings.Contains(err.Error(), "bad username or password") {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := pool.GetSession("down", "x"); err == nil || !strings.Contains(err.Error(), "cannot verify the user now") {
		t.Errorf("metad down: %v", err)
	}
	// The sign-ins carried the client's address, for graphd's limits.
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.hosts) == 0 || !strings.HasPrefix(f.hosts[0], "127.0.0.1:") {
		t.Errorf("sign-ins came from %v", f.hosts)
	}
}

// TestClientVersions: 3.x clients are taken, others refused by name.
func TestClientVersions(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	for _, v := range []string{"", "3.0.0", "3.8.0", "3.8"} {
		conf := nebulago.GetDefaultConf()
		conf.HandshakeKey = v
		newPool(t, addr, conf) // fails the test if refused
	}
	for _, v := range []string{"2.6.0", "4.0.0", "3.x", "30.1"} {
		conf := nebulago.GetDefaultConf()
		conf.HandshakeKey = v
		conf.TimeOut = 5 * time.Second
		pool, err := nebulago.NewConnectionPool([]nebulago.HostAddress{addr}, conf, quietLog{})
		if err == nil {
			pool.Close()
			t.Errorf("client version %q was taken", v)
			continue
		}
		if !strings.Contains(err.Error(), "accepts clients of version 3") {
			t.Errorf("client version %q refused with %v", v, err)
		}
	}
}

// TestExecuteJSON: executeJson answers in NebulaGraph's JSON shape.
func TestExecuteJSON(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	raw, err := s.ExecuteJson("columns")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Errors  []struct{ Code int } `json:"errors"`
		Results []struct {
			SpaceName string   `json:"spaceName"`
			Columns   []string `json:"columns"`
			Data      []struct {
				Row []any `json:"row"`
			} `json:"data"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if len(doc.Errors) != 1 || doc.Errors[0].Code != 0 || len(doc.Results) != 1 {
		t.Fatalf("shape: %s", raw)
	}
	r := doc.Results[0]
	if r.SpaceName != "nba" || strings.Join(r.Columns, ",") != "i,f,s,b" || len(r.Data) != 3 || fmt.Sprint(r.Data[0].Row) != "[1 0.5 x <nil>]" {
		t.Fatalf("result: %s", raw)
	}
	raw, err = s.ExecuteJson("bad syntax")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"code":-1004`) || !strings.Contains(string(raw), "syntax error near") {
		t.Fatalf("an error as JSON: %s", raw)
	}
}

// TestSessionPool: nebula-go's session pool signs in, USEs its space and
// runs statements.
func TestSessionPool(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	conf, err := nebulago.NewSessionPoolConf("root", "nova", []nebulago.HostAddress{addr}, "nba", nebulago.WithTimeOut(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := nebulago.NewSessionPool(*conf, quietLog{})
	if err != nil {
		t.Fatalf("session pool: %v", err)
	}
	defer pool.Close()
	rs, err := pool.Execute("columns")
	if err != nil || !rs.IsSucceed() || rs.GetRowSize() != 3 {
		t.Fatalf("%v %v", err, rs)
	}
}

// dial opens a raw connection to the server, closed when the test ends.
func dial(t *testing.T, addr nebulago.HostAddress) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", net.JoinHostPort(addr.Host, strconv.Itoa(addr.Port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// rawFrame sends one frame of the given declared size and body to the
// server and reports whether the server closed the connection.
func rawFrame(t *testing.T, addr nebulago.HostAddress, size uint32, body []byte) bool {
	t.Helper()
	conn := dial(t, addr)
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], size)
	if _, err := conn.Write(append(head[:], body...)); err != nil {
		return true
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.ReadAll(conn)
	return err == nil // EOF: the server closed it
}

// TestHostileFrames: a frame over the limit, and a header frame asking
// for compression, close the connection without reading it; the server
// goes on serving.
func TestHostileFrames(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{MaxFrameBytes: 1 << 20})
	if !rawFrame(t, addr, 1<<30, nil) {
		t.Error("a 1 GiB frame was not refused")
	}
	// A header frame: magic 0x0FFF, flags, seq id, header length 1 word,
	// protocol id 2 (compact), one transform (zlib).
	hdr := []byte{0x0F, 0xFF, 0, 0, 0, 0, 0, 1, 0, 1, 2, 1, 1, 0}
	if !rawFrame(t, addr, uint32(len(hdr)), hdr) {
		t.Error("a frame asking for zlib was not refused")
	}
	// Bytes of an unframed client read as a huge length.
	if !rawFrame(t, addr, 0x80010001, nil) {
		t.Error("an unframed binary-protocol client was not refused")
	}
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	run(t, s, "columns")
}

// TestIdleConnectionClosed: a connection that sends nothing is closed
// after the first request's timeout, one idle after a request after the
// idle timeout; nebula-go reconnects on its own and its session lives
// on.
func TestIdleConnectionClosed(t *testing.T) {
	srv, addr := startServer(t, newFake(), nebulaapi.Config{FirstRequestTimeout: 200 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	conn := dial(t, addr)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the silent connection was not closed: %v", err)
	}
	// Room for nebula-go's reconnection: it counts the closed connection
	// until it has replaced it.
	s := session(t, newPool(t, addr, nebulago.PoolConfig{MaxConnPoolSize: 2, MinConnPoolSize: 1}))
	run(t, s, "columns")
	for deadline := time.Now().Add(10 * time.Second); srv.Conns() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after the idle timeout", srv.Conns())
		}
	}
	run(t, s, "columns") // through a new connection
}

// TestMaxConns: a connection over the limit, in all or from one host, is
// closed at once.
func TestMaxConns(t *testing.T) {
	for _, cfg := range []nebulaapi.Config{{MaxConns: 1}, {MaxConnsPerHost: 1}} {
		maxConns(t, cfg)
	}
}

func maxConns(t *testing.T, cfg nebulaapi.Config) {
	_, addr := startServer(t, newFake(), cfg)
	// nebula-go pings the address on a connection of its own before it
	// opens the pool's: until graphd has seen that one close, the pool's
	// is one too many.
	var pool *nebulago.ConnectionPool
	for deadline := time.Now().Add(10 * time.Second); pool == nil; {
		p, err := nebulago.NewConnectionPool([]nebulago.HostAddress{addr}, nebulago.PoolConfig{MaxConnPoolSize: 1, MinConnPoolSize: 1, TimeOut: 10 * time.Second}, quietLog{})
		switch {
		case err == nil:
			pool = p
		case time.Now().After(deadline):
			t.Fatalf("no connection under the limit of one: %v", err)
		default:
			time.Sleep(20 * time.Millisecond)
		}
	}
	defer pool.Close()
	run(t, session(t, pool), "columns")
	conn := dial(t, addr)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the second connection was not closed: %v", err)
	}
}

// TestStopCancelsRunningStatements: Stop waits for the grace period, then
// cancels what still runs, and returns.
func TestStopCancelsRunningStatements(t *testing.T) {
	f := newFake()
	srv, addr := startServer(t, f, nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	done := make(chan *nebulago.ResultSet, 1)
	go func() {
		rs, _ := s.Execute("slow")
		done <- rs
	}()
	<-f.started
	stopped := make(chan struct{})
	go func() {
		srv.Stop(100 * time.Millisecond)
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return")
	}
	if rs := <-done; rs != nil && rs.GetErrorCode() != nebulago.ErrorCode(nebula.ErrorCode_E_PLAN_IS_KILLED) {
		t.Errorf("the running statement ended with %d %q", rs.GetErrorCode(), rs.GetErrorMsg())
	}
}

// callFrame is one request as nebula-go frames it: a header-transport
// frame holding the call.
func callFrame(t *testing.T, name string, args thrift.Struct) []byte {
	t.Helper()
	buf := thrift.NewMemoryBuffer()
	proto := thrift.NewHeaderProtocol(thrift.NewHeaderTransport(buf))
	if err := proto.WriteMessageBegin(name, thrift.CALL, 1); err != nil {
		t.Fatal(err)
	}
	if err := args.Write(proto); err != nil {
		t.Fatal(err)
	}
	if err := proto.WriteMessageEnd(); err != nil {
		t.Fatal(err)
	}
	if err := proto.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAnswer reads one answer frame's length and body.
func readAnswer(t *testing.T, conn net.Conn) []byte {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var head [4]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body := make([]byte, binary.BigEndian.Uint32(head[:]))
	if _, err := io.ReadFull(conn, body); err != nil {
		t.Fatalf("a short answer: %v", err)
	}
	return body
}

// TestTrailingBytesAreNotAFrame: bytes after a request's message, inside
// its frame, are never read as a next frame (here one asking for zlib,
// which the frame check would refuse); the connection goes on.
func TestTrailingBytesAreNotAFrame(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	conn := dial(t, addr)
	verify := &graph.GraphServiceVerifyClientVersionArgs{Req: &graph.VerifyClientVersionReq{Version: []byte("3.0.0")}}
	frame := callFrame(t, "verifyClientVersion", verify)
	zlib := []byte{0, 0, 0, 14, 0x0F, 0xFF, 0, 0, 0, 0, 0, 1, 0, 1, 2, 1, 1, 0}
	frame = append(frame, zlib...)
	binary.BigEndian.PutUint32(frame[:4], uint32(len(frame)-4))
	if _, err := conn.Write(frame); err != nil {
		t.Fatal(err)
	}
	readAnswer(t, conn)
	// The connection still answers.
	if _, err := conn.Write(callFrame(t, "verifyClientVersion", verify)); err != nil {
		t.Fatal(err)
	}
	readAnswer(t, conn)
}

// TestClientGoneCancelsStatement: a client that closes its connection
// while its statement runs stops the statement.
func TestClientGoneCancelsStatement(t *testing.T) {
	f := newFake()
	_, addr := startServer(t, f, nebulaapi.Config{})
	conn := dial(t, addr)
	if _, err := conn.Write(callFrame(t, "execute", &graph.GraphServiceExecuteArgs{SessionId: fakeSession, Stmt: []byte("slow")})); err != nil {
		t.Fatal(err)
	}
	<-f.started
	conn.Close()
	select {
	case err := <-f.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the statement ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the statement still runs 10 s after its client left")
	}
}

// TestJSONOfNaN: an answer JSON cannot hold is the statement's error, in
// JSON, and the statement runs once (a transport error would make
// nebula-go run it again).
func TestJSONOfNaN(t *testing.T) {
	f := newFake()
	_, addr := startServer(t, f, nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	raw, err := s.ExecuteJson("nan")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"code":-1005`) || !strings.Contains(string(raw), "cannot be written as JSON") {
		t.Fatalf("NaN as JSON: %s", raw)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nanRuns != 1 {
		t.Fatalf("the statement ran %d times", f.nanRuns)
	}
}

// TestDeclaredFramesReserveNothing: connections that declare large frames
// and send nothing more hold only what they sent, so the bound on frames
// being read does not lock other clients out.
func TestDeclaredFramesReserveNothing(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{MaxBufferedBytes: 4 << 20, MaxFrameBytes: 1 << 20})
	for range 50 {
		conn := dial(t, addr)
		if _, err := conn.Write([]byte{0, 0x10, 0, 0}); err != nil { // a frame of 1 MiB, then silence
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the frames have begun
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	run(t, s, "columns")
}

// TestAnswerTooLarge: an answer over MaxAnswerBytes in NebulaGraph's form
// is refused with a hint to page it, keeping the session's space.
func TestAnswerTooLarge(t *testing.T) {
	_, addr := startServer(t, newFake(), nebulaapi.Config{})
	s := session(t, newPool(t, addr, nebulago.GetDefaultConf()))
	rs, err := s.Execute("huge")
	if err != nil {
		t.Fatal(err)
	}
	if rs.GetErrorCode() != nebulago.ErrorCode_E_EXECUTION_ERROR || !strings.Contains(rs.GetErrorMsg(), "page it with LIMIT and SKIP") || rs.GetSpaceName() != "nba" {
		t.Fatalf("a 2M-row answer: %d %q in space %q", rs.GetErrorCode(), rs.GetErrorMsg(), rs.GetSpaceName())
	}
}
