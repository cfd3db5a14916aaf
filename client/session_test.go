package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

func newSession(t *testing.T, graphd *clienttest.Graphd) *client.Session {
	t.Helper()
	sess, err := newPool(t, graphd.Addr).Session(testContext(t), "root", "nova")
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	return sess
}

func TestExecuteReturnsTypedValues(t *testing.T) {
	graphd := clienttest.Start(t)
	graphd.Script("MATCH (v) RETURN v", clienttest.Result(1234,
		[]string{"id", "name", "score", "active", "tags", "since", "nothing"},
		clienttest.Row(
			clienttest.Int(7),
			clienttest.Str("Tim"),
			clienttest.Float(0.5),
			clienttest.Bool(true),
			clienttest.List(clienttest.Str("a"), clienttest.Int(1)),
			clienttest.Timestamp(1700000000),
			clienttest.Null(),
		),
	))
	sess := newSession(t, graphd)
	ctx := testContext(t)
	if _, err := sess.Execute(ctx, "USE nba"); err != nil {
		t.Fatalf("USE: %v", err)
	}

	rs, err := sess.Execute(ctx, "MATCH (v) RETURN v")
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if rs.Len() != 1 || len(rs.Columns()) != 7 || !rs.HasData() {
		t.Fatalf("result has %d rows, columns %v", rs.Len(), rs.Columns())
	}
	if rs.LatencyUS() != 1234 || rs.SpaceName() != "nba" || sess.SpaceName() != "nba" {
		t.Errorf("latency %d, space %q / %q; want 1234, nba", rs.LatencyUS(), rs.SpaceName(), sess.SpaceName())
	}
	if i, ok := rs.ColumnIndex("score"); !ok || i != 2 {
		t.Errorf("ColumnIndex(score) = %d, %v", i, ok)
	}
	row := rs.Row(0)
	if v, err := row.Int(0); err != nil || v != 7 {
		t.Errorf("Int(0) = %v, %v", v, err)
	}
	if v, err := row.String(1); err != nil || v != "Tim" {
		t.Errorf("String(1) = %v, %v", v, err)
	}
	if v, err := row.Float(2); err != nil || v != 0.5 {
		t.Errorf("Float(2) = %v, %v", v, err)
	}
	if v, err := row.Bool(3); err != nil || !v {
		t.Errorf("Bool(3) = %v, %v", v, err)
	}
	if v, err := row.List(4); err != nil || len(v) != 2 || v[0] != "a" || v[1] != int64(1) {
		t.Errorf("List(4) = %v, %v", v, err)
	}
	if v, err := row.Int(5); err != nil || v != 1700000000 {
		t.Errorf("Int(5) of a timestamp = %v, %v", v, err)
	}
	if !row.IsNull(6) || row.Value(6) != nil || row.IsNull(0) {
		t.Errorf("IsNull(6) = %v, Value(6) = %v, IsNull(0) = %v", row.IsNull(6), row.Value(6), row.IsNull(0))
	}
	if _, err := row.Int(1); !errors.Is(err, client.ErrType) {
		t.Errorf("Int of a string: err = %v, want ErrType", err)
	}
	if _, err := row.String(6); !errors.Is(err, client.ErrNull) {
		t.Errorf("String of NULL: err = %v, want ErrNull", err)
	}
}

func TestExecuteWithoutDataSet(t *testing.T) {
	graphd := clienttest.Start(t)
	graphd.Script(`INSERT VERTEX t() VALUES "a":()`, clienttest.Done(42))
	rs, err := newSession(t, graphd).Execute(testContext(t), `INSERT VERTEX t() VALUES "a":()`)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if rs.HasData() || rs.Len() != 0 || rs.LatencyUS() != 42 {
		t.Errorf("HasData %v, Len %d, latency %d; want false, 0, 42", rs.HasData(), rs.Len(), rs.LatencyUS())
	}
}

func TestExecuteReturnsQueryErrors(t *testing.T) {
	codes := map[string]graphpb.QueryErrorCode{
		"bad syntax":   graphpb.QueryErrorCode_E_SYNTAX,
		"bad semantic": graphpb.QueryErrorCode_E_SEMANTIC,
		"bad run":      graphpb.QueryErrorCode_E_EXECUTION,
	}
	graphd := clienttest.Start(t)
	for stmt, code := range codes {
		graphd.Script(stmt, clienttest.Fail(code, "because "+stmt))
	}
	sess := newSession(t, graphd)
	if _, err := sess.Execute(testContext(t), "USE nba"); err != nil {
		t.Fatalf("USE: %v", err)
	}

	for stmt, code := range codes {
		_, err := sess.Execute(testContext(t), stmt)
		var qe *client.QueryError
		if !errors.As(err, &qe) || qe.Code != code || qe.Msg != "because "+stmt {
			t.Errorf("Execute(%q) = %v, want QueryError %s", stmt, err, code)
		}
	}
	if sess.SpaceName() != "nba" {
		t.Errorf("space after failed statements = %q, want nba", sess.SpaceName())
	}
}

func TestExecuteHonoursDeadline(t *testing.T) {
	graphd := clienttest.Start(t)
	// The answer waits for the test to end rather than for the RPC's
	// context, whose expiry on the server races the client's own deadline.
	release := make(chan struct{})
	defer close(release)
	graphd.ScriptFunc("slow", func(context.Context, string) *graphpb.ExecuteResp {
		<-release
		return clienttest.Done(0)
	})
	sess := newSession(t, graphd)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := sess.Execute(ctx, "slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute past its deadline = %v, want DeadlineExceeded", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Execute returned after %v, long past its 100ms deadline", elapsed)
	}
	var te *client.TransportError
	if !errors.As(err, &te) || te.Addr != graphd.Addr {
		t.Errorf("error %v is not a TransportError naming %s", err, graphd.Addr)
	}
}

func TestExecuteReportsExpiredSession(t *testing.T) {
	graphd := clienttest.Start(t)
	sess := newSession(t, graphd)
	graphd.ExpireSessions()

	_, err := sess.Execute(testContext(t), "USE nba")
	if !client.IsSessionExpired(err) {
		t.Fatalf("Execute on an expired session = %v, want E_SESSION", err)
	}
	if got := len(graphd.Executed()); got != 1 {
		t.Errorf("graphd received %d statements, want only the failed one (no silent re-auth)", got)
	}
}

func TestExecuteOnDeadGraphdNamesAddress(t *testing.T) {
	graphd := clienttest.Start(t)
	sess := newSession(t, graphd)
	graphd.Stop()

	_, err := sess.Execute(testContext(t), "USE nba")
	var te *client.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), graphd.Addr) {
		t.Fatalf("Execute on a stopped graphd = %v, want a TransportError naming %s", err, graphd.Addr)
	}
}

func TestExecuteAfterClose(t *testing.T) {
	sess := newSession(t, clienttest.Start(t))
	if err := sess.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := sess.Execute(testContext(t), "USE nba"); !errors.Is(err, client.ErrSessionClosed) {
		t.Errorf("Execute after Close = %v, want ErrSessionClosed", err)
	}
}

// A columnar result that does not hold what it says (a faulty or hostile
// server) is refused when it arrives, naming the column, instead of
// panicking later in an accessor.
func TestMalformedColumnsAreRefused(t *testing.T) {
	graphd := clienttest.Start(t)
	for stmt, data := range map[string]*graphpb.DataSet{
		"short ints": {ColumnNames: []string{"a"}, NumRows: 3,
			Columns: []*commonpb.Column{{Kind: commonpb.ColumnKind_COL_INT, Ints: []int64{1, 2}}}},
		"short nulls": {ColumnNames: []string{"a"}, NumRows: 9,
			Columns: []*commonpb.Column{{Kind: commonpb.ColumnKind_COL_STR, Strs: make([][]byte, 9), Nulls: []byte{1}}}},
		"missing column": {ColumnNames: []string{"a", "b"}, NumRows: 1,
			Columns: []*commonpb.Column{{Kind: commonpb.ColumnKind_COL_BOOL, Bools: []byte{1}}}},
		"unknown kind": {ColumnNames: []string{"a"}, NumRows: 1,
			Columns: []*commonpb.Column{{Kind: 99, Ints: []int64{1}}}},
		"strings past their data": {ColumnNames: []string{"a"}, NumRows: 2,
			Columns: []*commonpb.Column{{Kind: commonpb.ColumnKind_COL_STR, StrData: []byte("ab"), StrEnds: []uint32{1, 5}}}},
	} {
		graphd.Script(stmt, &graphpb.ExecuteResp{Data: data})
	}
	sess := newSession(t, graphd)
	for _, stmt := range []string{"short ints", "short nulls", "missing column", "unknown kind", "strings past their data"} {
		_, err := sess.Execute(testContext(t), stmt)
		var te *client.TransportError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "column") {
			t.Errorf("%s: %v, want a transport error naming the column", stmt, err)
		}
	}
}
