package exec

import (
	"context"
	"sort"
	"time"

	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Unlimited, as a SessionLimits field, is a session's choice of no limit
// (SET QUERY_MEMORY_LIMIT = 0, SET QUERY_TIMEOUT = 0).
const Unlimited = -1

// Where a limit comes from, as limit errors name it.
const (
	MemorySourceSession  = "set by SET QUERY_MEMORY_LIMIT in this session"
	TimeoutSourceSession = "set by SET QUERY_TIMEOUT in this session"
)

// SessionLimits are a session's overrides of graphd's per-query limits.
// graphd applies them to each request (one Execute call) when it starts.
type SessionLimits struct {
	MemoryLimit int64         // bytes; 0: graphd's default; Unlimited: none
	Timeout     time.Duration // 0: graphd's default; Unlimited: none
}

// LimitCeilings are graphd's own per-query limits (its flags). A session
// whose user is not GOD may lower them with SET QUERY_MEMORY_LIMIT / SET
// QUERY_TIMEOUT, or go back to them with DEFAULT, but not raise or clear
// them: the limits protect graphd and the other sessions from one query.
type LimitCeilings struct {
	MemoryLimit int64         // bytes; 0: none
	Timeout     time.Duration // 0: none
}

// SetLimitCeilings tells the executor graphd's own limits (see
// LimitCeilings); without it a SET is never refused.
func (x *Executor) SetLimitCeilings(c LimitCeilings) { x.ceilings = c }

// check refuses a SET that would raise or clear a limit, for a user who is
// not GOD.
func (c LimitCeilings) check(user string, s *ast.SetSessionStmt) error {
	if s.Default {
		return nil
	}
	switch s.Name {
	case ast.SetQueryMemoryLimit:
		switch {
		case c.MemoryLimit == 0:
		case s.Bytes == 0:
			return deniedf("user %q is not GOD; SET QUERY_MEMORY_LIMIT = 0 (no limit) needs GOD: graphd's limit is %s (--query-memory-limit), which a user may only lower",
				user, bytesize.Format(c.MemoryLimit))
		case s.Bytes > c.MemoryLimit:
			return deniedf("user %q is not GOD; SET QUERY_MEMORY_LIMIT above graphd's %s (--query-memory-limit) needs GOD",
				user, bytesize.Format(c.MemoryLimit))
		}
	case ast.SetQueryTimeout:
		switch {
		case c.Timeout == 0:
		case s.Timeout == 0:
			return deniedf("user %q is not GOD; SET QUERY_TIMEOUT = 0 (no timeout) needs GOD: graphd's timeout is %s (--query-timeout), which a user may only lower",
				user, c.Timeout)
		case s.Timeout > c.Timeout:
			return deniedf("user %q is not GOD; SET QUERY_TIMEOUT above graphd's %s (--query-timeout) needs GOD", user, c.Timeout)
		}
	}
	return nil
}

// QueryAdmin is what SHOW QUERIES and KILL QUERY ask of the daemon that owns
// the running queries (graphd). ctx carries the session's credential
// (metaclient.WithCredential): the other graphds of the cluster answer
// with what that user may see and stop.
type QueryAdmin interface {
	// Queries lists the running queries of this graphd and, unless
	// local, those of every other graphd; a graphd that does not answer
	// fails the call.
	Queries(ctx context.Context, local bool) ([]QueryInfo, error)
	// KillQuery stops a running query, on this graphd or another. session
	// 0 is the session of the query that ctx belongs to.
	KillQuery(ctx context.Context, session, plan int64) error
}

// QueryInfo is one running query, a row of SHOW QUERIES.
type QueryInfo struct {
	SessionID   int64
	PlanID      int64 // the query's id, unique within its graphd
	User        string
	Host        string // the graphd serving it
	Text        string
	Start       time.Time
	Status      string // RUNNING, or KILLING once KILL QUERY asked it to stop
	MemoryUsed  int64  // bytes charged to its budget now
	MemoryLimit int64  // 0: none
}

// SetQueryAdmin connects SHOW QUERIES and KILL QUERY to their owner.
func (x *Executor) SetQueryAdmin(a QueryAdmin) { x.admin = a }

// SessionAdmin is what SHOW SESSIONS and KILL SESSION ask of the daemon
// that owns the sessions (graphd).
type SessionAdmin interface {
	// Sessions lists the signed-in sessions of this graphd and, unless
	// local, those of every other graphd (as QueryAdmin.Queries).
	Sessions(ctx context.Context, local bool) ([]SessionInfo, error)
	// KillSession signs the session out and stops its running queries,
	// on this graphd or another.
	KillSession(ctx context.Context, id int64) error
}

// SessionInfo is one session, a row of SHOW SESSIONS.
type SessionInfo struct {
	ID        int64
	User      string
	Space     string
	Created   time.Time
	Updated   time.Time
	GraphAddr string // the graphd serving it
	ClientIP  string
}

// SetSessionAdmin connects SHOW SESSIONS and KILL SESSION to their owner.
func (x *Executor) SetSessionAdmin(a SessionAdmin) { x.sessions = a }

// showSessions runs SHOW [LOCAL] SESSIONS, in NebulaGraph's columns; a
// user who is not GOD sees its own sessions only.
func (r *runState) showSessions(ctx context.Context, local bool) (*table, error) {
	if r.x.sessions == nil {
		return nil, execErrorf("SHOW SESSIONS is not available here")
	}
	ss, err := r.x.sessions.Sessions(ctx, local)
	if err != nil {
		return nil, err
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].ID < ss[j].ID })
	t := newTable("SessionId", "UserName", "SpaceName", "CreateTime", "UpdateTime", "GraphAddr", "Timezone", "ClientIp")
	for _, s := range ss {
		if !isGod(r.sess) && s.User != r.sess.User {
			continue
		}
		t.add(value.Int(s.ID), value.Str(s.User), value.Str(s.Space),
			value.Str(s.Created.UTC().Format("2006-01-02T15:04:05.000000Z")), value.Str(s.Updated.UTC().Format("2006-01-02T15:04:05.000000Z")),
			value.Str(s.GraphAddr), value.Int(0), value.Str(s.ClientIP))
	}
	return t, nil
}

// killSession runs KILL SESSION: anyone may end their own sessions, GOD
// any session.
func (r *runState) killSession(ctx context.Context, s *ast.KillSessionStmt) error {
	if r.x.sessions == nil {
		return execErrorf("KILL SESSION is not available here")
	}
	// This graphd's sessions are checked here; a session of another
	// graphd is checked by that graphd, which knows the user by the
	// session's credential (graphd/peers.go).
	local, err := r.x.sessions.Sessions(ctx, true)
	if err != nil {
		return err
	}
	for _, info := range local {
		if info.ID == s.Session && info.User != r.sess.User && !isGod(r.sess) {
			return deniedf("user %q is not GOD; KILL SESSION of a session of user %q needs GOD", r.sess.User, info.User)
		}
	}
	return r.x.sessions.KillSession(ctx, s.Session)
}

// setSession runs SET QUERY_MEMORY_LIMIT / SET QUERY_TIMEOUT: it changes the
// session's limits from its next request on. Within the request that runs
// the SET, a memory limit applies at once and a timeout to the statements
// after it (counted from the SET, and never beyond the request's own
// deadline); DEFAULT and 0 wait for the next request.
func (r *runState) setSession(ctx context.Context, s *ast.SetSessionStmt) error {
	if !isGod(r.sess) {
		if err := r.x.ceilings.check(r.sess.User, s); err != nil {
			return err
		}
	}
	l := &r.sess.Limits
	switch s.Name {
	case ast.SetQueryMemoryLimit:
		switch {
		case s.Default:
			l.MemoryLimit = 0
		case s.Bytes == 0:
			l.MemoryLimit = Unlimited
		default:
			l.MemoryLimit = s.Bytes
			BudgetOf(ctx).SetLimit(s.Bytes, MemorySourceSession)
		}
	case ast.SetQueryTimeout:
		switch {
		case s.Default:
			l.Timeout = 0
		case s.Timeout == 0:
			l.Timeout = Unlimited
		default:
			l.Timeout = s.Timeout
		}
	}
	return nil
}

// applyLimits returns the context for the statements after st: with st's
// timeout when st is SET QUERY_TIMEOUT = d. cancel is nil when ctx stays.
func (r *runState) applyLimits(ctx context.Context, st ast.Statement) (context.Context, context.CancelFunc) {
	s, ok := st.(*ast.SetSessionStmt)
	if !ok || s.Name != ast.SetQueryTimeout || s.Default || s.Timeout <= 0 {
		return ctx, nil
	}
	return WithQueryTimeout(ctx, s.Timeout, TimeoutSourceSession)
}

// settle ends a statement: a query whose budget went over fails even if the
// statement did not notice (tables drop rows once it is over), and tables
// built without the budget (res, variables) are charged now.
func (r *runState) settle(ctx context.Context, res *table) error {
	b := BudgetOf(ctx)
	if b == nil {
		return nil
	}
	if err := b.Err(); err != nil {
		return err
	}
	charge := func(t *table) error {
		if t == nil || t.mem != nil {
			return nil
		}
		t.mem = b
		return b.Grow(tableSize(t), "holding the result")
	}
	if err := charge(res); err != nil {
		return err
	}
	for _, t := range r.vars {
		if err := charge(t); err != nil {
			return err
		}
	}
	return nil
}

func (r *runState) killQuery(ctx context.Context, s *ast.KillQueryStmt) error {
	if r.x.admin == nil {
		return execErrorf("KILL QUERY is not available here")
	}
	return r.x.admin.KillQuery(ctx, s.Session, s.Plan)
}

// showQueries lists the running queries (of this graphd alone if local),
// oldest first, with NebulaGraph's columns plus the memory each has
// charged and its limit (bytes; 0: none).
func (r *runState) showQueries(ctx context.Context, local bool) (*table, error) {
	if r.x.admin == nil {
		return nil, execErrorf("SHOW QUERIES is not available here")
	}
	qs, err := r.x.admin.Queries(ctx, local)
	if err != nil {
		return nil, err
	}
	sort.Slice(qs, func(i, j int) bool {
		if !qs[i].Start.Equal(qs[j].Start) {
			return qs[i].Start.Before(qs[j].Start)
		}
		return qs[i].PlanID < qs[j].PlanID
	})
	t := newTable("SessionID", "ExecutionPlanID", "User", "Host", "StartTime", "DurationInUSec", "Status", "MemoryUsed", "MemoryLimit", "Query")
	now := time.Now()
	for _, q := range qs {
		t.add(value.Int(q.SessionID), value.Int(q.PlanID), value.Str(q.User), value.Str(q.Host),
			value.Str(q.Start.UTC().Format("2006-01-02T15:04:05.000000Z")), value.Int(now.Sub(q.Start).Microseconds()),
			value.Str(q.Status), value.Int(q.MemoryUsed), value.Int(q.MemoryLimit), value.Str(q.Text))
	}
	return t, nil
}
