// Package exec is graphd's executor: it validates, plans and executes
// parsed nGQL statements against a Catalog and a Storage, the two
// interfaces it owns (backends.go), which graphd fills with the metad and
// storaged clients.
//
// A statement runs in three steps: resolve names against one catalog
// snapshot (so a statement sees one consistent catalog version), build a
// plan that says what each storage round fetches, and run it. EXPLAIN
// prints the plan without running it.
package exec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// Executor runs statements. It holds no per-session state; callers pass
// their SessionState.
type Executor struct {
	meta    Catalog
	storage Storage
	log     *slog.Logger
	admin   QueryAdmin // SHOW QUERIES and KILL QUERY (limits.go); nil: not available
	// sessions answers SHOW SESSIONS and KILL SESSION (limits.go); nil:
	// not available.
	sessions SessionAdmin
	// ceilings are graphd's own query limits, which only GOD may raise or
	// clear with SET (limits.go).
	ceilings LimitCeilings
}

// SessionState is what a session carries between statements.
type SessionState struct {
	SpaceName string
	SpaceID   int32
	Limits    SessionLimits // SET QUERY_MEMORY_LIMIT / QUERY_TIMEOUT (limits.go)
	// User is who signed in; every statement is checked against the user's
	// roles (users.go). UserCreated is the user's create_version at sign-in
	// (0: not checked), so a session of a dropped user stays refused even
	// if a user of the same name is created again.
	User        string
	UserCreated int64
}

// New returns an executor over the given catalog and storage (graphd passes
// the metad and storaged clients; tests pass an in-memory graph).
func New(meta Catalog, storage Storage, log *slog.Logger) *Executor {
	return &Executor{meta: meta, storage: storage, log: log}
}

// Error is a statement failure with the code the client sees.
type Error struct {
	Code graphpb.QueryErrorCode
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func semanticf(format string, args ...any) error {
	return &Error{Code: graphpb.QueryErrorCode_E_SEMANTIC, Msg: fmt.Sprintf(format, args...)}
}

func execErrorf(format string, args ...any) error {
	return &Error{Code: graphpb.QueryErrorCode_E_EXECUTION, Msg: fmt.Sprintf(format, args...)}
}

// at prefixes a semantic error with the position of the node it is about.
func at(n ast.Node, format string, args ...any) error {
	p := n.Position()
	return semanticf("semantic error at line %d, column %d: %s", p.Line, p.Col, fmt.Sprintf(format, args...))
}

// ErrorCode maps an error returned by Execute to the client's code.
func ErrorCode(err error) graphpb.QueryErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var se *parser.SyntaxError
	if errors.As(err, &se) {
		return graphpb.QueryErrorCode_E_SYNTAX
	}
	return graphpb.QueryErrorCode_E_EXECUTION
}

// Execute parses text and runs its statements in order; the result is the
// last statement's. The first failing statement ends the run.
func (x *Executor) Execute(ctx context.Context, sess *SessionState, text string) (*graphpb.DataSet, error) {
	return x.ExecuteWithParams(ctx, sess, text, nil)
}

// ExecuteWithParams is Execute with query parameters, which the statements
// read as $name (GO FROM $p, WHERE e.w > $min, YIELD $n + 1).
func (x *Executor) ExecuteWithParams(ctx context.Context, sess *SessionState, text string, params map[string]value.Value) (*graphpb.DataSet, error) {
	stmts, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	if len(stmts) == 0 {
		return nil, nil
	}
	run := &runState{x: x, sess: sess, vars: map[string]*table{}, params: params}
	var last *table
	for i, st := range stmts {
		if i == len(stmts)-1 && columnarResult(ctx) {
			run.columnarOut = st
		}
		res, err := run.statement(ctx, st)
		if err == nil {
			err = run.settle(ctx, res)
		}
		if err != nil {
			return nil, QueryEndError(ctx, err)
		}
		if next, cancel := run.applyLimits(ctx, st); cancel != nil {
			defer cancel()
			ctx = next
		}
		last = res
	}
	if last == nil {
		return nil, nil
	}
	// Only the last statement's result goes to the client; its copy is
	// charged while it is built (table.toDataSet) and stays charged until
	// the query's budget is closed, which graphd does once the response
	// has been sent.
	var out *graphpb.DataSet
	if columnarResult(ctx) {
		out, err = last.toColumns(BudgetOf(ctx))
	} else {
		out, err = last.toDataSet(BudgetOf(ctx))
	}
	if err != nil {
		return nil, QueryEndError(ctx, err)
	}
	return out, nil
}

// runState is one Execute call: statements of one request share variables
// and the request's query parameters.
type runState struct {
	x      *Executor
	sess   *SessionState
	vars   map[string]*table
	params map[string]value.Value // nil when the request has none
	prof   *profile               // set while PROFILE runs its statement
	// columnarOut is the statement whose result goes to the client in
	// columns as it is (the request's last, when the client reads
	// columns); nil otherwise.
	columnarOut ast.Statement
}

func (r *runState) statement(ctx context.Context, st ast.Statement) (*table, error) {
	// Every statement's permissions first (users.go), against the catalog
	// as it is now.
	if err := authorize(r.x.meta.Catalog(), r.sess, st); err != nil {
		return nil, err
	}
	k := kindOf(st)
	if k == nil {
		return nil, at(st, "%s is not supported yet", stmtName(st))
	}
	return k.run(ctx, r)
}

func stmtName(st ast.Statement) string {
	s := st.String()
	for i, c := range s {
		if c == ' ' {
			if j := i + 1 + indexSpace(s[i+1:]); j > i+1 && j < len(s) {
				return s[:j]
			}
			return s[:i]
		}
	}
	return s
}

func indexSpace(s string) int {
	for i, c := range s {
		if c == ' ' {
			return i
		}
	}
	return len(s)
}
