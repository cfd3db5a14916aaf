package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Statement kinds. Everything the executor knows about one kind of
// statement sits on one type here: the permission it needs of the
// session's user, how it runs, and how EXPLAIN shows it. kindOf is the
// executor's one switch on the statement's AST type; adding a statement to
// the language means adding a kind (TestEveryStatementHasAKind walks the
// AST package and fails for a type kindOf does not know).
//
// Three optional interfaces say how a kind takes part in a pipe:
//
//   - rowStatement: it reads the table piped into it ($-) or returns rows to
//     a pipe, an assignment or a set operator (query). A kind without it
//     "cannot be used here" anywhere but on its own.
//   - streamer: it streams its rows into the rest of the pipe (produce)
//     instead of building its table first (GO, and a pipe itself).
//   - pipeOperator: after a pipe it runs row by row as a sink (YIELD,
//     GROUP BY, ORDER BY, LIMIT); any other statement after a pipe gets all
//     its input at once through a materializeSink.

// statementKind is one kind of statement, bound to one parsed statement.
type statementKind interface {
	// rules is what the statement needs of the session's user (users.go);
	// a composite statement needs what each of its parts needs, in order.
	rules() ([]rule, error)
	// run executes the statement on its own, not after a pipe, and returns
	// its result (nil when it has none).
	run(ctx context.Context, r *runState) (*table, error)
	// describe appends the statement's EXPLAIN nodes (explain.go) reading
	// deps; in is the columns of its input (nil: none; unknownCols: not
	// known without running). It returns its root node and output columns
	// (nil when not known).
	describe(pl *planner, in []string, deps ...int) (int, []string, error)
}

// rowStatement is a kind that produces rows over a piped input (nil when
// nothing is piped in).
type rowStatement interface {
	query(ctx context.Context, r *runState, input *table) (*table, error)
}

// streamer is a kind that streams its rows into out (stream.go).
type streamer interface {
	produce(ctx context.Context, r *runState, input *table, out rowSink) error
}

// pipeOperator is a kind that runs after a pipe as a sink feeding next.
type pipeOperator interface {
	sink(r *runState, next rowSink) rowSink
}

// The least roles of the permission rules.
const (
	roleGuest = metapb.RoleType_GUEST
	roleUser  = metapb.RoleType_USER
	roleDBA   = metapb.RoleType_DBA
	roleAdmin = metapb.RoleType_ADMIN
)

// kindOf returns the kind of st; nil for a statement type the executor
// does not know (authorize then refuses it with errNoRule).
func kindOf(st ast.Statement) statementKind {
	switch s := st.(type) {
	// Composite statements.
	case *ast.PipeStmt:
		return pipeKind{s}
	case *ast.AssignStmt:
		return assignKind{s}
	case *ast.ExplainStmt:
		return explainKind{s}
	case *ast.SetOpStmt:
		return setOpKind{s}

	// Reads.
	case *ast.GoStmt:
		return goKind{s}
	case *ast.FetchVerticesStmt:
		return fetchVerticesKind{s}
	case *ast.FetchEdgesStmt:
		return fetchEdgesKind{s}
	case *ast.LookupStmt:
		return lookupKind{s}
	case *ast.FindPathStmt:
		return findPathKind{s}
	case *ast.SubgraphStmt:
		return subgraphKind{s}
	case *ast.MatchStmt:
		return matchKind{s}
	case *ast.YieldStmt:
		return yieldKind{s}
	case *ast.GroupByStmt:
		return groupByKind{s}
	case *ast.OrderByStmt:
		return orderByKind{s}
	case *ast.LimitStmt:
		return limitKind{s}

	// Writes.
	case *ast.InsertVertexStmt:
		return simpleKind{st: s, rule: onCurrent("INSERT VERTEX", roleUser), exec: func(ctx context.Context, r *runState) error { return r.insertVertices(ctx, s) }}
	case *ast.InsertEdgeStmt:
		return simpleKind{st: s, rule: onCurrent("INSERT EDGE", roleUser), exec: func(ctx context.Context, r *runState) error { return r.insertEdges(ctx, s) }}
	case *ast.DeleteVertexStmt:
		return deleteKind{st: s, what: "DELETE VERTEX", del: func(ctx context.Context, r *runState, in *table) error { return r.deleteVertices(ctx, s, in) }}
	case *ast.DeleteTagStmt:
		return deleteKind{st: s, what: "DELETE TAG", del: func(ctx context.Context, r *runState, in *table) error { return r.deleteTags(ctx, s, in) }}
	case *ast.DeleteEdgeStmt:
		return deleteKind{st: s, what: "DELETE EDGE", del: func(ctx context.Context, r *runState, in *table) error { return r.deleteEdges(ctx, s, in) }}
	case *ast.UpdateVertexStmt:
		return tableKind{st: s, rule: onCurrent(updateWord(s.Upsert)+" VERTEX", roleUser), exec: func(ctx context.Context, r *runState) (*table, error) { return r.updateVertex(ctx, s) }}
	case *ast.UpdateEdgeStmt:
		return tableKind{st: s, rule: onCurrent(updateWord(s.Upsert)+" EDGE", roleUser), exec: func(ctx context.Context, r *runState) (*table, error) { return r.updateEdge(ctx, s) }}

	// Spaces, schemas and indexes.
	case *ast.CreateSpaceStmt:
		return simpleKind{st: s, rule: godOnly("CREATE SPACE"), exec: func(ctx context.Context, r *runState) error { return r.createSpace(ctx, s) }}
	case *ast.DropSpaceStmt:
		return simpleKind{st: s, rule: godOnly("DROP SPACE"), exec: func(ctx context.Context, r *runState) error { return r.dropSpace(ctx, s) }}
	case *ast.SnapshotStmt:
		return snapshotKind{s}
	case *ast.ClearSpaceStmt:
		return simpleKind{st: s, rule: godOnly("CLEAR SPACE"), exec: func(ctx context.Context, r *runState) error { return r.clearSpace(ctx, s) }}
	case *ast.UseStmt:
		return simpleKind{st: s, rule: onSpace("USE", s.Space, roleGuest), exec: func(_ context.Context, r *runState) error { return r.use(s) }}
	case *ast.ShowStmt:
		return showKind{s}
	case *ast.DescribeStmt:
		return describeKind{s}
	case *ast.CreateSchemaStmt:
		return simpleKind{st: s, rule: onCurrent("CREATE "+s.Kind.String(), roleDBA), exec: func(ctx context.Context, r *runState) error { return r.createSchema(ctx, s) }}
	case *ast.AlterSchemaStmt:
		return simpleKind{st: s, rule: onCurrent("ALTER "+s.Kind.String(), roleDBA), exec: func(ctx context.Context, r *runState) error { return r.alterSchema(ctx, s) }}
	case *ast.DropSchemaStmt:
		return simpleKind{st: s, rule: onCurrent("DROP "+s.Kind.String(), roleDBA), exec: func(ctx context.Context, r *runState) error { return r.dropSchema(ctx, s) }}
	case *ast.CreateIndexStmt:
		return simpleKind{st: s, rule: onCurrent("CREATE "+s.Kind.String()+" INDEX", roleDBA), exec: func(ctx context.Context, r *runState) error { return r.createIndex(ctx, s) }}
	case *ast.DropIndexStmt:
		return simpleKind{st: s, rule: onCurrent("DROP "+s.Kind.String()+" INDEX", roleDBA), exec: func(ctx context.Context, r *runState) error { return r.dropIndex(ctx, s) }}
	case *ast.RebuildIndexStmt:
		return simpleKind{st: s, rule: onCurrent("REBUILD "+s.Kind.String()+" INDEX", roleDBA), exec: func(ctx context.Context, r *runState) error { return r.rebuildIndex(ctx, s) }}

	// Hosts, jobs and the session (hosts.go, jobs.go, limits.go). Jobs as
	// in NebulaGraph: COMPACT and managing the jobs of the current space
	// need ADMIN there; BALANCE moves data between hosts and is GOD's alone.
	case *ast.AddHostsStmt:
		return simpleKind{st: s, rule: godOnly("ADD HOSTS"), exec: func(ctx context.Context, r *runState) error { return r.addHosts(ctx, s) }}
	case *ast.DropHostsStmt:
		return simpleKind{st: s, rule: godOnly("DROP HOSTS"), exec: func(ctx context.Context, r *runState) error { return r.dropHosts(ctx, s) }}
	case *ast.SubmitJobStmt:
		rule := godOnly("SUBMIT JOB " + s.Kind.String())
		if s.Kind == ast.JobCompact || s.Kind == ast.JobStats {
			rule = onCurrent("SUBMIT JOB "+s.Kind.String(), roleAdmin)
		}
		return jobKind{st: s, rule: rule}
	case *ast.ShowJobsStmt:
		return jobKind{st: s, rule: onCurrent("SHOW JOBS", roleAdmin)}
	case *ast.ShowJobStmt:
		return jobKind{st: s, rule: onCurrent("SHOW JOB", roleAdmin)}
	case *ast.StopJobStmt:
		return jobKind{st: s, rule: onCurrent("STOP JOB", roleAdmin)}
	case *ast.RecoverJobStmt:
		return jobKind{st: s, rule: onCurrent("RECOVER JOB", roleAdmin)}
	case *ast.SetSessionStmt:
		return simpleKind{st: s, rule: anyone("SET"), exec: func(ctx context.Context, r *runState) error { return r.setSession(ctx, s) }}
	case *ast.KillQueryStmt:
		return killQueryKind{s}
	case *ast.KillSessionStmt:
		return simpleKind{st: s, rule: anyone("KILL SESSION"), exec: func(ctx context.Context, r *runState) error { return r.killSession(ctx, s) }}

	// Users and roles (users.go).
	case *ast.CreateUserStmt:
		return simpleKind{st: s, rule: godOnly("CREATE USER"), exec: func(ctx context.Context, r *runState) error {
			_, err := r.x.meta.CreateUser(ctx, s.Name, s.Password, s.IfNotExists)
			return userError(s, err)
		}}
	case *ast.AlterUserStmt:
		return simpleKind{st: s, rule: godOnly("ALTER USER"), exec: func(ctx context.Context, r *runState) error {
			_, err := r.x.meta.AlterUser(ctx, s.Name, s.Password)
			return userError(s, err)
		}}
	case *ast.DropUserStmt:
		return simpleKind{st: s, rule: godOnly("DROP USER"), exec: func(ctx context.Context, r *runState) error {
			_, err := r.x.meta.DropUser(ctx, s.Name, s.IfExists)
			return userError(s, err)
		}}
	case *ast.ChangePasswordStmt:
		return simpleKind{st: s, rule: []rule{{what: "CHANGE PASSWORD", kind: needSelf, user: s.Name}}, exec: func(ctx context.Context, r *runState) error {
			_, err := r.x.meta.ChangePassword(ctx, s.Name, s.Old, s.New)
			return userError(s, err)
		}}
	case *ast.GrantRoleStmt:
		return simpleKind{st: s, rule: []rule{{what: "GRANT", kind: needGrant, role: roleType(s.Role), space: s.Space, user: s.User}},
			exec: func(ctx context.Context, r *runState) error {
				return r.changeRole(ctx, r.x.meta.Catalog(), s, s.Role, s.Space, s.User, true)
			}}
	case *ast.RevokeRoleStmt:
		return simpleKind{st: s, rule: []rule{{what: "REVOKE", kind: needGrant, role: roleType(s.Role), space: s.Space, user: s.User}},
			exec: func(ctx context.Context, r *runState) error {
				return r.changeRole(ctx, r.x.meta.Catalog(), s, s.Role, s.Space, s.User, false)
			}}
	case *ast.ShowUsersStmt:
		return tableKind{st: s, rule: godOnly("SHOW USERS"), exec: func(_ context.Context, r *runState) (*table, error) {
			t := newTable("Account")
			for _, u := range r.x.meta.Catalog().Users() {
				t.add(value.Str(u.GetName()))
			}
			return t, nil
		}}
	case *ast.ShowRolesStmt:
		return tableKind{st: s, rule: onSpace("SHOW ROLES", s.Space, roleGuest), exec: func(_ context.Context, r *runState) (*table, error) {
			return r.showRoles(r.x.meta.Catalog(), s)
		}}
	case *ast.DescribeUserStmt:
		return tableKind{st: s, rule: []rule{{what: "DESCRIBE USER", kind: needSelf, user: s.Name}}, exec: func(_ context.Context, r *runState) (*table, error) {
			return describeUser(r.x.meta.Catalog(), s)
		}}
	}
	return nil
}

// oneNode is the EXPLAIN of a statement without stages: one node named for
// it (DDL, INSERT, UPDATE, DELETE, SHOW, USE, SET, …).
type oneNode struct{ st ast.Statement }

func (k oneNode) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	return pl.add(k.st, nodeName(k.st), k.st.String(), deps...), nil, nil
}

// simpleKind is a statement that runs on its own and returns no rows.
type simpleKind struct {
	st   ast.Statement
	rule []rule
	exec func(ctx context.Context, r *runState) error
}

func (k simpleKind) rules() ([]rule, error) { return k.rule, nil }
func (k simpleKind) run(ctx context.Context, r *runState) (*table, error) {
	return nil, k.exec(ctx, r)
}
func (k simpleKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.st}.describe(pl, in, deps...)
}

// tableKind is a statement that runs on its own and returns a table.
type tableKind struct {
	st   ast.Statement
	rule []rule
	exec func(ctx context.Context, r *runState) (*table, error)
}

func (k tableKind) rules() ([]rule, error) { return k.rule, nil }
func (k tableKind) run(ctx context.Context, r *runState) (*table, error) {
	return k.exec(ctx, r)
}
func (k tableKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.st}.describe(pl, in, deps...)
}

// rowsRun runs a row statement on its own: through the streaming path,
// into a table.
func rowsRun(ctx context.Context, r *runState, st ast.Statement) (*table, error) {
	return r.queryStream(ctx, st, nil)
}

// pipeKind: LEFT | RIGHT. The right side runs over the left's rows as they
// stream (a pipeOperator) or, for any other statement, over all of them.
type pipeKind struct{ s *ast.PipeStmt }

func (k pipeKind) rules() ([]rule, error) { return rulesOfAll(k.s.Left, k.s.Right) }
func (k pipeKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k pipeKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.queryStream(ctx, k.s, input)
}
func (k pipeKind) produce(ctx context.Context, r *runState, input *table, out rowSink) error {
	sink, err := r.sinkFor(k.s.Right, out)
	if err != nil {
		return err
	}
	return r.produce(ctx, k.s.Left, input, sink)
}
func (k pipeKind) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	left, cols, err := pl.describe(k.s.Left, nil, deps...)
	if err != nil {
		return 0, nil, err
	}
	if cols == nil {
		cols = unknownCols
	}
	return pl.describe(k.s.Right, cols, left)
}

// assignKind: $var = STATEMENT. The variable lives for the request.
type assignKind struct{ s *ast.AssignStmt }

func (k assignKind) rules() ([]rule, error) { return rulesOf(k.s.Stmt) }
func (k assignKind) run(ctx context.Context, r *runState) (*table, error) {
	t, err := r.queryStream(ctx, k.s.Stmt, nil)
	if err != nil {
		return nil, err
	}
	r.vars[k.s.Var] = t
	return nil, nil
}
func (k assignKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	root, cols, err := pl.describe(k.s.Stmt, in, deps...)
	if err != nil {
		return 0, nil, err
	}
	return pl.add(k.s, "Assign", "variable: $"+k.s.Var, root), cols, nil
}

// explainKind: EXPLAIN and PROFILE (explain.go).
type explainKind struct{ s *ast.ExplainStmt }

func (k explainKind) rules() ([]rule, error) { return rulesOf(k.s.Stmt) }
func (k explainKind) run(ctx context.Context, r *runState) (*table, error) {
	return r.explain(ctx, k.s)
}
func (k explainKind) describe(*planner, []string, ...int) (int, []string, error) {
	return 0, nil, at(k.s, "EXPLAIN and PROFILE cannot be nested")
}

// setOpKind: UNION [ALL], INTERSECT, MINUS (ops.go).
type setOpKind struct{ s *ast.SetOpStmt }

func (k setOpKind) rules() ([]rule, error) { return rulesOfAll(k.s.Left, k.s.Right) }
func (k setOpKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k setOpKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.setOp(ctx, k.s, input)
}
func (k setOpKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	left, cols, err := pl.describe(k.s.Left, in, deps...)
	if err != nil {
		return 0, nil, err
	}
	right, _, err := pl.describe(k.s.Right, in, deps...)
	if err != nil {
		return 0, nil, err
	}
	name := map[ast.SetOp]string{ast.Union: "Union", ast.Intersect: "Intersect", ast.Minus: "Minus"}[k.s.Op]
	root := pl.add(k.s, name, "", left, right)
	if k.s.Op == ast.Union && !k.s.All {
		root = pl.add(k.s, "Dedup", "", root)
	}
	return root, cols, nil
}

// goKind: GO [M TO] N STEPS FROM … OVER … (go.go).
type goKind struct{ s *ast.GoStmt }

func (k goKind) rules() ([]rule, error) { return onCurrent("GO", roleGuest), nil }
func (k goKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k goKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.queryStream(ctx, k.s, input)
}
func (k goKind) produce(ctx context.Context, r *runState, input *table, out rowSink) error {
	p, err := r.planGo(k.s, input)
	if err != nil {
		return err
	}
	return p.stream(ctx, out)
}
func (k goKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	if isUnknown(in) {
		return pl.chain(k.s, goStagesFromText(k.s), deps...), yieldNames(k.s.Yield), nil
	}
	p, err := pl.r.planGo(k.s, inputOf(in))
	if err != nil {
		return 0, nil, err
	}
	cols := make([]string, len(p.columns))
	for i, c := range p.columns {
		cols[i] = c.Name()
	}
	return pl.chain(k.s, p.describe(), deps...), cols, nil
}

// inputOf is a table with the columns in and no rows, for planning against
// an input without running what produces it (nil: no input).
func inputOf(in []string) *table {
	if in == nil {
		return nil
	}
	return newTable(in...)
}

// fetchVerticesKind: FETCH PROP ON tags vids (fetch.go).
type fetchVerticesKind struct{ s *ast.FetchVerticesStmt }

func (k fetchVerticesKind) rules() ([]rule, error) { return onCurrent("FETCH", roleGuest), nil }
func (k fetchVerticesKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k fetchVerticesKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.fetchVertices(ctx, k.s, input)
}
func (k fetchVerticesKind) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	tags := strings.Join(k.s.Tags, ", ")
	if k.s.AllTags {
		tags = "*"
	}
	get := pl.add(k.s, "GetVertices", fmt.Sprintf("tags: [%s], vids: %s", tags, k.s.Vertices), deps...)
	return pl.add(k.s, "Project", "columns: "+columnsText(k.s.Yield), get), yieldNames(k.s.Yield), nil
}

// fetchEdgesKind: FETCH PROP ON edge src -> dst[@rank] (fetch.go).
type fetchEdgesKind struct{ s *ast.FetchEdgesStmt }

func (k fetchEdgesKind) rules() ([]rule, error) { return onCurrent("FETCH", roleGuest), nil }
func (k fetchEdgesKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k fetchEdgesKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.fetchEdges(ctx, k.s, input)
}
func (k fetchEdgesKind) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	var keys []string
	for _, key := range k.s.Keys {
		keys = append(keys, key.String())
	}
	get := pl.add(k.s, "GetEdges", fmt.Sprintf("edge: %s, keys: [%s]", k.s.Edge, strings.Join(keys, ", ")), deps...)
	return pl.add(k.s, "Project", "columns: "+columnsText(k.s.Yield), get), yieldNames(k.s.Yield), nil
}

// lookupKind: LOOKUP ON tag|edge WHERE … (lookup.go).
type lookupKind struct{ s *ast.LookupStmt }

func (k lookupKind) rules() ([]rule, error) { return onCurrent("LOOKUP", roleGuest), nil }
func (k lookupKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k lookupKind) query(ctx context.Context, r *runState, _ *table) (*table, error) {
	return r.lookup(ctx, k.s)
}
func (k lookupKind) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	p, err := pl.r.planLookup(k.s)
	if err != nil {
		return 0, nil, err
	}
	info := fmt.Sprintf("schema: %s, index: %s", p.name, p.index.GetName())
	if len(p.hints) > 0 {
		var hs []string
		for _, h := range p.hints {
			hs = append(hs, h.String())
		}
		info += ", hints: [" + strings.Join(hs, "; ") + "]"
	}
	if p.filter != "" {
		info += ", filter: " + p.filter
	}
	if len(p.props) > 0 {
		info += ", props: " + refsString(p.props)
	}
	scan := pl.add(k.s, "IndexScan", info, deps...)
	return pl.add(k.s, "Project", "columns: "+columnsText(k.s.Yield), scan), yieldNames(k.s.Yield), nil
}

// findPathKind: FIND SHORTEST|ALL|NOLOOP PATH (path.go).
type findPathKind struct{ s *ast.FindPathStmt }

func (k findPathKind) rules() ([]rule, error) { return onCurrent("FIND PATH", roleGuest), nil }
func (k findPathKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k findPathKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.findPath(ctx, k.s, input)
}
func (k findPathKind) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	s := k.s
	info := fmt.Sprintf("kind: %s, from: %s, to: %s, over: %s, upto: %d steps", s.Kind, s.From, s.To, s.Over, s.Steps)
	if s.Where != nil {
		info += ", filter: " + s.Where.String()
	}
	if s.WithProp {
		info += ", withProp: true"
	}
	return pl.add(s, "FindPath", info, deps...), []string{s.Column()}, nil
}

// matchKind: MATCH (match.go, match_plan.go).
type matchKind struct{ s *ast.MatchStmt }

func (k matchKind) rules() ([]rule, error) { return onCurrent("MATCH", roleGuest), nil }
func (k matchKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k matchKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.queryStream(ctx, k.s, input)
}
func (k matchKind) produce(ctx context.Context, r *runState, input *table, out rowSink) error {
	if input != nil {
		return at(k.s, "MATCH cannot read piped rows ($-): start it from ids or an index")
	}
	return r.match(ctx, k.s, out)
}
func (k matchKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	p, err := pl.r.planMatch(k.s)
	if err != nil {
		return 0, nil, err
	}
	var cols []string
	for _, it := range k.s.Return.Items {
		cols = append(cols, it.Name())
	}
	if k.s.Return.Star {
		cols = unknownCols
	}
	return pl.chain(k.s, p.describe(), deps...), cols, nil
}

// subgraphKind: GET SUBGRAPH (subgraph.go).
type subgraphKind struct{ s *ast.SubgraphStmt }

func (k subgraphKind) rules() ([]rule, error) { return onCurrent("GET SUBGRAPH", roleGuest), nil }
func (k subgraphKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k subgraphKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return r.getSubgraph(ctx, k.s, input)
}
func (k subgraphKind) describe(pl *planner, _ []string, deps ...int) (int, []string, error) {
	return pl.add(k.s, "Subgraph", strings.TrimPrefix(k.s.String(), "GET SUBGRAPH "), deps...), nil, nil
}

// checkOperator validates an operator after a pipe against its input
// columns, when they are known, as running it would.
func checkOperator(pl *planner, st ast.Statement, in []string) error {
	if in == nil || isUnknown(in) {
		return nil
	}
	return pl.checkSink(st, in)
}

// yieldKind: YIELD … [WHERE …] (query.go; ops_stream.go after a pipe).
type yieldKind struct{ s *ast.YieldStmt }

func (k yieldKind) rules() ([]rule, error) { return onCurrent("YIELD", roleGuest), nil }
func (k yieldKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k yieldKind) query(_ context.Context, r *runState, input *table) (*table, error) {
	return r.yield(k.s, input)
}
func (k yieldKind) sink(r *runState, next rowSink) rowSink {
	if hasAggregate(k.s.Yield.Columns) {
		return &aggSink{r: r, stmt: k.s, next: next}
	}
	return &yieldSink{r: r, stmt: k.s, next: next}
}
func (k yieldKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	if err := checkOperator(pl, k.s, in); err != nil {
		return 0, nil, err
	}
	id := -1
	if k.s.Where != nil {
		id = pl.add(k.s, "Filter", "condition: "+k.s.Where.String(), deps...)
		deps = []int{id}
	}
	name := "Project"
	if hasAggregate(k.s.Yield.Columns) {
		name = "Aggregate"
	}
	id = pl.add(k.s, name, "columns: "+columnsText(k.s.Yield), deps...)
	if k.s.Yield.Distinct {
		id = pl.add(k.s, "Dedup", "", id)
	}
	return id, yieldNames(k.s.Yield), nil
}

// groupByKind: GROUP BY … YIELD … (ops.go, ops_stream.go).
type groupByKind struct{ s *ast.GroupByStmt }

func (k groupByKind) rules() ([]rule, error) { return onCurrent("GROUP BY", roleGuest), nil }
func (k groupByKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k groupByKind) query(_ context.Context, r *runState, input *table) (*table, error) {
	return r.groupBy(k.s, input)
}
func (k groupByKind) sink(r *runState, next rowSink) rowSink {
	return &aggSink{r: r, stmt: k.s, next: next}
}
func (k groupByKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	if err := checkOperator(pl, k.s, in); err != nil {
		return 0, nil, err
	}
	var keys []string
	for _, key := range k.s.Keys {
		keys = append(keys, key.String())
	}
	id := pl.add(k.s, "Aggregate", fmt.Sprintf("groupKeys: [%s], columns: %s", strings.Join(keys, ", "), columnsText(k.s.Yield)), deps...)
	if k.s.Yield.Distinct {
		id = pl.add(k.s, "Dedup", "", id)
	}
	return id, yieldNames(k.s.Yield), nil
}

// orderByKind: ORDER BY … (ops.go, ops_stream.go).
type orderByKind struct{ s *ast.OrderByStmt }

func (k orderByKind) rules() ([]rule, error) { return onCurrent("ORDER BY", roleGuest), nil }
func (k orderByKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k orderByKind) query(_ context.Context, r *runState, input *table) (*table, error) {
	return r.orderBy(k.s, input)
}
func (k orderByKind) sink(r *runState, next rowSink) rowSink {
	// The pipe is left-associative, so the LIMIT after an ORDER BY is
	// built first and is next here: the sort then keeps only the rows the
	// LIMIT can pass.
	o := &orderSink{r: r, stmt: k.s, next: next}
	if l, ok := unwrapSink(next).(*limitSink); ok {
		o.keep = limitEnd(l.stmt)
	}
	return o
}
func (k orderByKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	if err := checkOperator(pl, k.s, in); err != nil {
		return 0, nil, err
	}
	var fs []string
	for _, f := range k.s.Factors {
		fs = append(fs, f.String())
	}
	return pl.add(k.s, "Sort", "factors: ["+strings.Join(fs, ", ")+"]", deps...), in, nil
}

// limitKind: LIMIT [offset,] count (ops.go, ops_stream.go).
type limitKind struct{ s *ast.LimitStmt }

func (k limitKind) rules() ([]rule, error) { return onCurrent("LIMIT", roleGuest), nil }
func (k limitKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.s)
}
func (k limitKind) query(_ context.Context, r *runState, input *table) (*table, error) {
	return r.limit(k.s, input)
}
func (k limitKind) sink(_ *runState, next rowSink) rowSink {
	return &limitSink{stmt: k.s, next: next}
}
func (k limitKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return pl.add(k.s, "Limit", fmt.Sprintf("offset: %d, count: %d", k.s.Offset, k.s.Count), deps...), in, nil
}

// deleteKind: DELETE VERTEX / TAG / EDGE (delete.go). DELETE may end a
// pipe: it consumes the rows and returns none.
type deleteKind struct {
	st   ast.Statement
	what string
	del  func(ctx context.Context, r *runState, input *table) error
}

func (k deleteKind) rules() ([]rule, error) { return onCurrent(k.what, roleUser), nil }
func (k deleteKind) run(ctx context.Context, r *runState) (*table, error) {
	return rowsRun(ctx, r, k.st)
}
func (k deleteKind) query(ctx context.Context, r *runState, input *table) (*table, error) {
	return nil, k.del(ctx, r, input)
}
func (k deleteKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.st}.describe(pl, in, deps...)
}

// showKind: SHOW … (admin.go). For a user who is not GOD, SHOW SPACES
// lists the spaces the user has a role on and SHOW QUERIES the user's own
// queries.
type showKind struct{ s *ast.ShowStmt }

func (k showKind) rules() ([]rule, error) {
	what := "SHOW " + k.s.Target.String()
	switch k.s.Target {
	case ast.ShowSpaces, ast.ShowHosts, ast.ShowHostsMeta, ast.ShowQueries, ast.ShowSessions, ast.ShowLocalQueries, ast.ShowLocalSessions:
		return anyone(what), nil
	case ast.ShowParts, ast.ShowTags, ast.ShowEdges, ast.ShowTagIndexes, ast.ShowEdgeIndexes, ast.ShowStats:
		return onCurrent(what, roleGuest), nil
	case ast.ShowSnapshots:
		return godOnly(what), nil
	}
	return []rule{{what: what, kind: needUnknown}}, nil
}
func (k showKind) run(ctx context.Context, r *runState) (*table, error) {
	switch k.s.Target {
	case ast.ShowStats:
		return r.showStats(ctx, k.s)
	case ast.ShowSnapshots:
		return r.showSnapshots(ctx)
	case ast.ShowQueries, ast.ShowLocalQueries:
		t, err := r.showQueries(ctx, k.s.Target == ast.ShowLocalQueries)
		if err == nil && !isGod(r.sess) {
			t.rows = ownRows(t, r.sess.User)
		}
		return t, err
	case ast.ShowSessions, ast.ShowLocalSessions:
		return r.showSessions(ctx, k.s.Target == ast.ShowLocalSessions)
	case ast.ShowSpaces:
		if !isGod(r.sess) {
			return r.showOwnSpaces(r.x.meta.Catalog()), nil
		}
	}
	return r.show(k.s)
}
func (k showKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.s}.describe(pl, in, deps...)
}

// describeKind: DESCRIBE SPACE / TAG / EDGE / INDEX (admin.go).
type describeKind struct{ s *ast.DescribeStmt }

func (k describeKind) rules() ([]rule, error) {
	what := "DESCRIBE " + k.s.Target.String()
	if k.s.ShowCreate {
		what = "SHOW CREATE " + k.s.Target.String()
	}
	switch k.s.Target {
	case ast.DescribeSpace:
		return onSpace(what, k.s.Name, roleGuest), nil
	case ast.DescribeTag, ast.DescribeEdge, ast.DescribeTagIndex, ast.DescribeEdgeIndex:
		return onCurrent(what, roleGuest), nil
	}
	return []rule{{what: what, kind: needUnknown}}, nil
}
func (k describeKind) run(_ context.Context, r *runState) (*table, error) {
	if k.s.ShowCreate {
		return r.showCreate(k.s)
	}
	return r.describe(k.s)
}
func (k describeKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.s}.describe(pl, in, deps...)
}

// jobKind: SUBMIT / SHOW / STOP / RECOVER JOB (jobs.go).
type jobKind struct {
	st   ast.Statement
	rule []rule
}

func (k jobKind) rules() ([]rule, error) { return k.rule, nil }
func (k jobKind) run(ctx context.Context, r *runState) (*table, error) {
	return r.jobStmt(ctx, k.st)
}
func (k jobKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.st}.describe(pl, in, deps...)
}

// killQueryKind: KILL QUERY (limits.go). Anyone may kill their own
// queries; another user's query is checked when it is found (users.go).
type killQueryKind struct{ s *ast.KillQueryStmt }

func (k killQueryKind) rules() ([]rule, error) { return anyone("KILL QUERY"), nil }
func (k killQueryKind) run(ctx context.Context, r *runState) (*table, error) {
	if !isGod(r.sess) {
		if err := r.checkKill(ctx, k.s); err != nil {
			return nil, err
		}
	}
	return nil, r.killQuery(ctx, k.s)
}
func (k killQueryKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.s}.describe(pl, in, deps...)
}

// rulesOf is what st needs of the session's user; a nil statement needs
// nothing.
func rulesOf(st ast.Statement) ([]rule, error) {
	if st == nil {
		return nil, nil
	}
	k := kindOf(st)
	if k == nil {
		return nil, errNoRule{st}
	}
	return k.rules()
}

// rulesOfAll is what the parts of a composite statement need, in order.
func rulesOfAll(parts ...ast.Statement) ([]rule, error) {
	var out []rule
	for _, p := range parts {
		rs, err := rulesOf(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// snapshotKind: CREATE SNAPSHOT and DROP SNAPSHOT (snapshots.go), GOD's
// as in NebulaGraph.
type snapshotKind struct{ s *ast.SnapshotStmt }

func (k snapshotKind) rules() ([]rule, error) {
	if k.s.Drop {
		return godOnly("DROP SNAPSHOT"), nil
	}
	return godOnly("CREATE SNAPSHOT"), nil
}
func (k snapshotKind) run(ctx context.Context, r *runState) (*table, error) {
	return r.snapshot(ctx, k.s)
}
func (k snapshotKind) describe(pl *planner, in []string, deps ...int) (int, []string, error) {
	return oneNode{k.s}.describe(pl, in, deps...)
}
