package graphd

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/stats"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/proto/graphpb"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func codeOf(err error) graphpb.QueryErrorCode {
	var e *exec.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return graphpb.QueryErrorCode_OK
}

func TestLimitsForSession(t *testing.T) {
	s := New(Config{QueryMemoryLimit: 5 << 20, QueryTimeout: -1})
	sess := &session{id: 1}
	mem, memSrc, timeout, _ := s.limitsFor(sess)
	if mem != 5<<20 || !strings.Contains(memSrc, "--query-memory-limit") || timeout != 0 {
		t.Fatalf("server defaults: %d %q %v", mem, memSrc, timeout)
	}
	sess.state.Limits = exec.SessionLimits{MemoryLimit: 1 << 10, Timeout: time.Second}
	mem, memSrc, timeout, timeSrc := s.limitsFor(sess)
	if mem != 1<<10 || memSrc != exec.MemorySourceSession || timeout != time.Second || timeSrc != exec.TimeoutSourceSession {
		t.Fatalf("session overrides: %d %q %v %q", mem, memSrc, timeout, timeSrc)
	}
	sess.state.Limits = exec.SessionLimits{MemoryLimit: exec.Unlimited, Timeout: exec.Unlimited}
	if mem, _, timeout, _ := s.limitsFor(sess); mem != 0 || timeout != 0 {
		t.Fatalf("session without limits: %d %v", mem, timeout)
	}
	if d := New(Config{}); d.cfg.QueryMemoryLimit != DefaultQueryMemoryLimit || d.cfg.QueryTimeout != DefaultQueryTimeout ||
		d.queries.total.Limit() != DefaultQueryMemoryLimitTotal {
		t.Fatalf("defaults: %+v", d.cfg)
	}
}

// TestQueryRegistry runs the registry's life cycle without a cluster: a
// query is listed while it runs, KILL QUERY cancels it with the killed
// error, and ending it removes it, returns its memory and logs it if slow.
func TestQueryRegistry(t *testing.T) {
	var logs syncBuffer
	s := New(Config{SlowQueryThreshold: time.Nanosecond, QueryMemoryLimitTotal: 1 << 20,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	a := &session{id: 10, user: "root"}
	b := &session{id: 20, user: "root"}
	ctxA, qa := s.beginQuery(context.Background(), a, "GO 3 STEPS FROM 1 OVER e", time.Now())
	ctxB, qb := s.beginQuery(context.Background(), b, "YIELD 1", time.Now())
	if err := exec.BudgetOf(ctxA).Grow(1000, "test"); err != nil {
		t.Fatal(err)
	}
	list := s.queries.Queries()
	if len(list) != 2 {
		t.Fatalf("%d queries listed, want 2", len(list))
	}
	for _, q := range list {
		if q.SessionID == a.id && (q.PlanID != qa.id || q.MemoryUsed != 1000 || q.Status != "RUNNING" || q.Text != "GO 3 STEPS FROM 1 OVER e" || q.MemoryLimit != DefaultQueryMemoryLimit) {
			t.Fatalf("query of a: %+v", q)
		}
	}
	if s.QueryMemory() != 1000 {
		t.Fatalf("total %d", s.QueryMemory())
	}

	// The plan must belong to the session named.
	if err := s.queries.KillQuery(ctxB, a.id, qb.id); codeOf(err) != graphpb.QueryErrorCode_E_SEMANTIC {
		t.Fatalf("killing b's plan as a's: %v", err)
	}
	if err := s.queries.KillQuery(ctxB, a.id, qa.id); err != nil {
		t.Fatal(err)
	}
	if ctxA.Err() == nil || ctxB.Err() != nil {
		t.Fatal("KILL QUERY cancelled the wrong query")
	}
	for _, q := range s.queries.Queries() {
		if want := map[bool]string{true: "KILLING", false: "RUNNING"}[q.PlanID == qa.id]; q.Status != want {
			t.Fatalf("plan %d is %s, want %s", q.PlanID, q.Status, want)
		}
	}
	_, err := s.endQuery(ctxA, qa, nil, errors.New("GO step 2 failed: context canceled"))
	if codeOf(err) != graphpb.QueryErrorCode_E_KILLED || !strings.Contains(err.Error(), "killed by KILL QUERY") {
		t.Fatalf("killed query ended with %v", err)
	}
	if s.Running() != 1 || s.QueryMemory() != 0 {
		t.Fatalf("after a's end: %d running, %d bytes", s.Running(), s.QueryMemory())
	}
	// session 0 is the caller's own session.
	if err := s.queries.KillQuery(ctxB, 0, qb.id); err != nil {
		t.Fatal(err)
	}
	// A query that returns a result keeps its memory charged until gRPC
	// reports its RPC ended (the response was sent).
	end := &rpcEnd{}
	rpcCtx := context.WithValue(context.Background(), rpcEndKey{}, end)
	ctxC, qc := s.beginQuery(rpcCtx, b, "YIELD 2", time.Now())
	if err := exec.BudgetOf(ctxC).Grow(500, "building the result for the client"); err != nil {
		t.Fatal(err)
	}
	data := &graphpb.DataSet{Rows: []*graphpb.Row{{}}}
	if got, err := s.endQuery(ctxC, qc, data, nil); err != nil || got != data {
		t.Fatalf("a result within the total: %v", err)
	}
	if s.QueryMemory() != 500 {
		t.Fatalf("%d bytes charged while the result is being sent, want 500", s.QueryMemory())
	}
	sendTracker{}.HandleRPC(rpcCtx, &stats.End{})
	if s.QueryMemory() != 0 {
		t.Fatalf("%d bytes charged after the RPC ended", s.QueryMemory())
	}
	// A query that fails returns its memory at once.
	ctxD, qd := s.beginQuery(context.WithValue(context.Background(), rpcEndKey{}, &rpcEnd{}), b, "YIELD 3", time.Now())
	exec.BudgetOf(ctxD).Grow(2<<20, "test")
	if _, err := s.endQuery(ctxD, qd, data, nil); codeOf(err) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED || !strings.Contains(err.Error(), "--query-memory-limit-total") {
		t.Fatalf("a query over the total: %v", err)
	}
	if s.QueryMemory() != 0 {
		t.Fatalf("%d bytes charged after a failed query ended", s.QueryMemory())
	}
	if _, err := s.endQuery(ctxB, qb, nil, nil); err != nil {
		t.Fatal(err)
	}
	if s.Running() != 0 || s.QueryMemory() != 0 {
		t.Fatalf("at the end: %d running, %d bytes", s.Running(), s.QueryMemory())
	}
	out := logs.String()
	for _, want := range []string{"level=WARN", "slow query", `stmt="GO 3 STEPS FROM 1 OVER e"`, "code=E_KILLED", "memory_peak=", "rows=0", "duration="} {
		if !strings.Contains(out, want) {
			t.Fatalf("slow-query log lacks %q:\n%s", want, out)
		}
	}
}

func TestQueryTimeoutFromServer(t *testing.T) {
	s := New(Config{QueryTimeout: time.Millisecond})
	ctx, q := s.beginQuery(context.Background(), &session{id: 1}, "GO", time.Now())
	<-ctx.Done()
	_, err := s.endQuery(ctx, q, nil, errors.New("storage request: context deadline exceeded"))
	if codeOf(err) != graphpb.QueryErrorCode_E_TIMEOUT || !strings.Contains(err.Error(), "1ms") || !strings.Contains(err.Error(), "--query-timeout") {
		t.Fatalf("%v", err)
	}
}

// TestDefaultGoMemoryLimit: the Go soft memory limit cmd/graphd sets is
// derived from the total of the query budgets, so that garbage is
// collected before the heap runs to twice the live memory (see
// DefaultGoMemoryLimit), and the library leaves the runtime's limit alone.
func TestDefaultGoMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want int64
	}{
		{Config{}, DefaultQueryMemoryLimitTotal*3/2 + goMemoryBase},
		{Config{QueryMemoryLimitTotal: 2 << 30}, 3<<30 + goMemoryBase},
		{Config{QueryMemoryLimitTotal: -1}, 0},
	} {
		if got := New(c.cfg).DefaultGoMemoryLimit(); got != c.want {
			t.Fatalf("%+v: %d, want %d", c.cfg, got, c.want)
		}
	}

	before := debug.SetMemoryLimit(-1)
	s := New(Config{ListenAddr: "127.0.0.1:0", MetaAddrs: []string{"127.0.0.1:1"}, QueryMemoryLimitTotal: 64 << 20})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	after := debug.SetMemoryLimit(-1)
	s.Stop()
	if after != before {
		t.Fatalf("Start changed the Go memory limit from %d to %d", before, after)
	}
}
