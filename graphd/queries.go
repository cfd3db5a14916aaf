package graphd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/exec"
)

// Defaults of the per-query limits (Config). A query's memory is what its
// budget accounts (query/exec/budget.go), an estimate of its live heap; the
// Go heap runs up to about twice the live data between collections. On a
// 24 GiB machine shared with storaged, 1 GiB per query and 6 GiB for all
// running queries together keep graphd well clear of the OOM killer while
// a handful of heavy traversals run side by side.
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

// Queries implements exec.QueryAdmin.
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

// KillQuery implements exec.QueryAdmin: it cancels the query's context with
// the killed error as the cause; the query returns that error as soon as it
// notices (storage calls in flight are cancelled).
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

// endQuery settles a request: the result is charged to the budget (it is
// about to be copied out), an error caused by a limit or KILL QUERY becomes
// that limit's error, the query leaves the registry and its memory account,
// and a slow query is logged.
func (s *Server) endQuery(ctx context.Context, q *runningQuery, data *graphpb.DataSet, err error) (*graphpb.DataSet, error) {
	if err == nil && data != nil {
		err = q.budget.Grow(exec.DataSetSize(data), "sending the result")
	}
	err = exec.QueryEndError(ctx, err)
	if err != nil {
		data = nil
	}
	s.queries.remove(q)
	q.stopTimeout()
	q.cancel(nil)
	q.budget.Close()
	took := time.Since(q.start)
	if t := s.cfg.SlowQueryThreshold; t > 0 && took >= t {
		code := graphpb.QueryErrorCode_OK
		if err != nil {
			code = exec.ErrorCode(err)
		}
		s.log.Warn("slow query", "session", q.session, "plan", q.id, "user", q.user, "stmt", shorten(q.text),
			"duration", took, "rows", len(data.GetRows()), "memory_peak", exec.FormatBytes(q.budget.Peak()),
			"memory_peak_bytes", q.budget.Peak(), "code", code.String())
	}
	return data, err
}

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
	)
}
