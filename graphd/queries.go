package graphd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/stats"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// Defaults of the per-query limits (Config). A query's memory is what its
// budget accounts (graphd/exec/budget.go), an estimate of its live heap.
// The garbage a query leaves on the way is not accounted: cmd/graphd bounds
// it with a Go soft memory limit of 1.5 times the total plus 256 MiB
// (DefaultGoMemoryLimit), 9.25 GiB with these defaults, where without one the
// heap ran to 2.5 times the accounted bytes. On a 24 GiB machine shared
// with storaged, 1 GiB per query and 6 GiB for all running queries
// together then keep graphd clear of the OOM killer while a handful of
// heavy traversals run side by side.
const (
	DefaultQueryMemoryLimit      = 1 << 30
	DefaultQueryMemoryLimitTotal = 6 << 30
	DefaultQueryTimeout          = 60 * time.Second
	DefaultSlowQueryThreshold    = time.Second
)

// Where the server's limits come from, as limit errors name them.
const (
	memorySourceFlag  = "graphd's default, --query-memory-limit; SET QUERY_MEMORY_LIMIT changes it for a session"
	totalSourceFlag   = "graphd --query-memory-limit-total"
	timeoutSourceFlag = "graphd's default, --query-timeout; SET QUERY_TIMEOUT changes it for a session"
)

// maxShownText bounds the query text SHOW QUERIES and the slow-query log
// repeat.
const maxShownText = 1024

// queryRegistry is graphd's list of running queries, for SHOW QUERIES and
// KILL QUERY. The Server owns it; an entry is added when a request starts
// and removed when it ends, whatever the outcome.
type queryRegistry struct {
	host  string
	total *exec.Budget // every running query's bytes; its limit is --query-memory-limit-total

	mu      sync.Mutex
	lastID  int64
	running map[int64]*runningQuery // by plan id
}

// runningQuery is one request being executed.
type runningQuery struct {
	id, session int64
	user, text  string
	start       time.Time
	budget      *exec.Budget
	cancel      context.CancelCauseFunc // stops it with a cause
	stopTimeout context.CancelFunc      // releases its deadline's timer
	killed      bool                    // guarded by queryRegistry.mu
}

func newQueryRegistry(total int64) *queryRegistry {
	return &queryRegistry{total: exec.NewBudget(total, totalSourceFlag, nil, nil), running: map[int64]*runningQuery{}}
}

// Queries lists this graphd's running queries.
func (r *queryRegistry) Queries() []exec.QueryInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]exec.QueryInfo, 0, len(r.running))
	for _, q := range r.running {
		status := "RUNNING"
		if q.killed {
			status = "KILLING"
		}
		out = append(out, exec.QueryInfo{
			SessionID: q.session, PlanID: q.id, User: q.user, Host: r.host, Text: shorten(q.text), Start: q.start,
			Status: status, MemoryUsed: q.budget.Used(), MemoryLimit: q.budget.Limit(),
		})
	}
	return out
}

type sessionKey struct{}

// KillQuery stops one of this graphd's queries: it cancels the query's
// context with the killed error as the cause; the query returns that
// error as soon as it notices (storage calls in flight are cancelled).
func (r *queryRegistry) KillQuery(ctx context.Context, session, plan int64) error {
	if session == 0 {
		session, _ = ctx.Value(sessionKey{}).(int64)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.running[plan]
	if q == nil || q.session != session {
		return &exec.Error{Code: graphpb.QueryErrorCode_E_SEMANTIC,
			Msg: fmt.Sprintf("KILL QUERY: no running query with plan=%d in session %d (SHOW QUERIES lists the running ones)", plan, session)}
	}
	q.killed = true
	q.cancel(exec.KilledError(session, plan))
	return nil
}

// owner is the user of this graphd's query plan of session; false if it
// runs no such query.
func (r *queryRegistry) owner(session, plan int64) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.running[plan]
	if q == nil || q.session != session {
		return "", false
	}
	return q.user, true
}

// killSession stops every running query of a session (KILL SESSION).
func (r *queryRegistry) killSession(session int64) {
	r.stopSession(session, exec.SessionKilledError)
}

// stopSession stops the session's running queries, each with the error
// cause makes of its session and plan ids.
func (r *queryRegistry) stopSession(session int64, cause func(session, plan int64) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.running {
		if q.session == session && !q.killed {
			q.killed = true
			q.cancel(cause(session, q.id))
		}
	}
}

func (r *queryRegistry) add(q *runningQuery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastID++
	q.id = r.lastID
	r.running[q.id] = q
}

func (r *queryRegistry) remove(q *runningQuery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, q.id)
}

// Running is the number of queries running now.
func (s *Server) Running() int {
	s.queries.mu.Lock()
	defer s.queries.mu.Unlock()
	return len(s.queries.running)
}

// QueryMemory is the bytes the running queries have charged together.
func (s *Server) QueryMemory() int64 { return s.queries.total.Used() }

// limitsFor resolves a session's limits against the server's defaults.
func (s *Server) limitsFor(sess *session) (memory int64, memorySource string, timeout time.Duration, timeoutSource string) {
	memory, memorySource = max(s.cfg.QueryMemoryLimit, 0), memorySourceFlag
	switch l := sess.state.Limits.MemoryLimit; {
	case l == exec.Unlimited:
		memory, memorySource = 0, exec.MemorySourceSession
	case l > 0:
		memory, memorySource = l, exec.MemorySourceSession
	}
	timeout, timeoutSource = max(s.cfg.QueryTimeout, 0), timeoutSourceFlag
	switch l := sess.state.Limits.Timeout; {
	case l == exec.Unlimited:
		timeout, timeoutSource = 0, exec.TimeoutSourceSession
	case l > 0:
		timeout, timeoutSource = l, exec.TimeoutSourceSession
	}
	return
}

// beginQuery registers a request of sess and returns its context: with the
// session's memory budget and deadline, cancellable by KILL QUERY.
func (s *Server) beginQuery(ctx context.Context, sess *session, text string, start time.Time) (context.Context, *runningQuery) {
	memory, memorySource, timeout, timeoutSource := s.limitsFor(sess)
	ctx, cancel := context.WithCancelCause(ctx)
	q := &runningQuery{session: sess.id, user: sess.user, text: text, start: start, cancel: cancel, stopTimeout: func() {}}
	q.budget = exec.NewBudget(memory, memorySource, s.queries.total, cancel)
	if timeout > 0 {
		ctx, q.stopTimeout = exec.WithQueryTimeout(ctx, timeout, timeoutSource)
	}
	ctx = exec.WithBudget(ctx, q.budget)
	ctx = context.WithValue(ctx, sessionKey{}, sess.id)
	s.queries.add(q)
	return ctx, q
}

// endQuery settles a request: an error caused by a limit or KILL QUERY
// becomes that limit's error, the query leaves the registry, and a slow
// query is logged. Its memory leaves the total once the response has been
// sent (afterSend): the result (charged while the executor built it,
// exec's table.toDataSet) is still alive until gRPC has marshalled and
// written it, and releasing it earlier let other queries grow into memory
// that was not free yet.
func (s *Server) endQuery(ctx context.Context, q *runningQuery, data *graphpb.DataSet, err error) (*graphpb.DataSet, error) {
	if err == nil {
		err = q.budget.Err() // went over after the executor's last check
	}
	err = exec.QueryEndError(ctx, err)
	if err != nil {
		data = nil
	}
	s.queries.remove(q)
	q.stopTimeout()
	q.cancel(nil)
	if data == nil {
		q.budget.Close()
	} else {
		afterSend(ctx, q.budget.Close)
	}
	took := time.Since(q.start)
	if t := s.cfg.SlowQueryThreshold; t > 0 && took >= t {
		code := graphpb.QueryErrorCode_OK
		if err != nil {
			code = exec.ErrorCode(err)
		}
		s.log.Warn("slow query", "session", q.session, "plan", q.id, "user", q.user, "stmt", shorten(q.text),
			"duration", took, "rows", len(data.GetRows()), "memory_peak", bytesize.Format(q.budget.Peak()),
			"memory_peak_bytes", q.budget.Peak(), "code", code.String())
	}
	return data, err
}

// rpcEnd is what waits for the end of one Execute RPC: sendTracker puts
// one in the RPC's context and runs its functions when gRPC reports the
// RPC ended, which is after the response was marshalled and written to
// the connection.
type rpcEnd struct {
	mu   sync.Mutex
	done bool
	fns  []func()
}

type rpcEndKey struct{}

// afterSend runs fn once the response of the RPC ctx belongs to has been
// sent, or at once when ctx is not an RPC's (a direct call, as in tests) or
// the RPC has ended already.
func afterSend(ctx context.Context, fn func()) {
	e, _ := ctx.Value(rpcEndKey{}).(*rpcEnd)
	if e == nil {
		fn()
		return
	}
	e.mu.Lock()
	if !e.done {
		e.fns = append(e.fns, fn)
		e.mu.Unlock()
		return
	}
	e.mu.Unlock()
	fn()
}

func (e *rpcEnd) end() {
	e.mu.Lock()
	fns := e.fns
	e.fns, e.done = nil, true
	e.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// sendTracker is graphd's gRPC stats handler: it only marks the end of
// each Execute RPC for afterSend. gRPC reports the end of every RPC it
// tagged, whatever its outcome, so nothing waits forever.
type sendTracker struct{}

func (sendTracker) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	if info.FullMethodName != graphpb.GraphService_Execute_FullMethodName {
		return ctx
	}
	return context.WithValue(ctx, rpcEndKey{}, &rpcEnd{})
}

func (sendTracker) HandleRPC(ctx context.Context, st stats.RPCStats) {
	if _, ok := st.(*stats.End); !ok {
		return
	}
	if e, _ := ctx.Value(rpcEndKey{}).(*rpcEnd); e != nil {
		e.end()
	}
}

func (sendTracker) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (sendTracker) HandleConn(context.Context, stats.ConnStats)                       {}

// DefaultGoMemoryLimit is the Go soft memory limit
// (runtime/debug.SetMemoryLimit) a process running this graphd should set,
// derived from the total of the query budgets; 0 when there is no total to
// derive it from. graphd does not set it itself, as it is process-wide:
// cmd/graphd does (--go-memory-limit), as must any other program that
// embeds a graphd serving heavy queries.
//
// Why: the budgets count the live memory of queries (within a small factor
// of it, see graphd/exec/budget.go), but a traversal allocates about three
// times its live peak on the way (decoded storage batches, slices that
// grow, the rows and their copy for the client), and with the collector's
// default pacing (GOGC=100) the heap runs to twice the live heap before a
// collection, later still when the CPUs are saturated. Eight concurrent
// GO 3 STEPS (in-process, no Go memory limit) held 2.4–2.6 times what
// their budgets accounted; 2.5 times the 6 GiB total is the ~15 GB
// estimated for the SF10 go3 sweep at concurrency 64, where no query went
// over a limit (docs/benchmarks.md). A soft limit makes the collector
// reclaim that garbage before the heap passes it: 1.5 times the total (the
// live heap runs somewhat above the accounted bytes: gRPC buffers, storage
// batches being decoded) plus 256 MiB for the rest of graphd (sessions,
// catalog, connections). Near it the runtime spends more CPU on collection
// (at most about half) rather than let garbage grow the heap; live memory
// past it is what the budgets bound.
func (s *Server) DefaultGoMemoryLimit() int64 { return goMemoryLimit(s.cfg) }

func goMemoryLimit(cfg Config) int64 {
	if cfg.QueryMemoryLimitTotal <= 0 {
		return 0 // no total to derive it from
	}
	return cfg.QueryMemoryLimitTotal + cfg.QueryMemoryLimitTotal/2 + goMemoryBase
}

// goMemoryBase is graphd's own heap beyond its queries, for goMemoryLimit.
const goMemoryBase = 256 << 20

func shorten(text string) string {
	if len(text) <= maxShownText {
		return text
	}
	cut := maxShownText
	for cut > 0 && text[cut]&0xc0 == 0x80 {
		cut--
	}
	return text[:cut] + "…"
}

// registerQueryMetrics exports the running queries and their memory.
func registerQueryMetrics(reg *prometheus.Registry, s *Server) {
	if reg == nil {
		return
	}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "novagraph_graphd_running_queries", Help: "Queries running now."},
			func() float64 { return float64(s.Running()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "novagraph_graphd_query_memory_bytes", Help: "Memory the running queries have charged to their budgets (estimate)."},
			func() float64 { return float64(s.QueryMemory()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "novagraph_graphd_nebula_connections", Help: "Connections open on the NebulaGraph protocol's port (--nebula-addr)."},
			func() float64 { return float64(s.nebulaConns()) }),
	)
}
