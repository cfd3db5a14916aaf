package exec

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// Result operators over tables: GROUP BY and aggregate YIELD, ORDER BY,
// LIMIT and the set operators UNION [ALL], INTERSECT and MINUS.
//
// Semantics, following NebulaGraph 3.x where it defines them:
//
//   - GROUP BY emits one row per distinct key combination, in the order the
//     combinations first occur. Keys compare as DISTINCT does (INT 1 and
//     FLOAT 1.0 are different keys; NULL is a key like any other value).
//     A YIELD column must be an aggregate, a GROUP BY key, or built from
//     them and constants.
//   - A YIELD with aggregates over piped rows (or a variable) groups
//     implicitly by its columns that hold no aggregate; with no such
//     column it yields exactly one row, also for no input rows (count 0,
//     sum 0, the others NULL or an empty list).
//   - count(*) counts rows; every other aggregate skips NULL arguments:
//     count(expr) counts non-NULL values, sum/avg/min/max ignore NULLs,
//     sum of nothing is 0, avg/min/max of nothing is NULL. collect gives a
//     list of the non-NULL values in row order; collect_set the distinct
//     ones in first-seen order (a LIST: there is no SET type). DISTINCT
//     makes any aggregate see each distinct value once. sum and avg of a
//     non-number are errors.
//   - ORDER BY is stable. ASC puts NULLs last and DESC first (NULL is
//     greater than every value, as NebulaGraph orders it). Numbers compare
//     by value across INT and FLOAT; values of kinds that do not compare
//     order by kind: BOOL < numbers < STRING < LIST < others < NULL.
//   - LIMIT [offset,] n and OFFSET offset LIMIT n keep rows offset .. offset+n-1.
//   - UNION removes duplicate rows (of the whole result), UNION ALL keeps
//     them, INTERSECT keeps the left rows that also occur on the right and
//     MINUS those that do not; both keep the left side's duplicates and
//     order, as NebulaGraph's executors do. Both sides need the same number
//     of columns; the result takes the left side's column names.

// opRows is the rows an operator reads: the piped input, or the rows of
// the one variable its expressions read.
type opRows struct {
	t       *table
	input   *table // the piped input, nil when reading a variable
	varName string
	vars    map[string]*table
	params  map[string]value.Value
}

// context returns an evaluation context positioned on row.
func (o *opRows) context(row []value.Value) *rowContext {
	c := &rowContext{Context: constContext{}, input: o.input, vars: o.vars, params: o.params}
	if o.varName != "" {
		c.varName, c.varRow = o.varName, row
	} else {
		c.inputRow = row
	}
	return c
}

// rowsFor finds the rows an operator named what reads, checking what its
// expressions (props) refer to.
func (r *runState) rowsFor(n ast.Node, what string, input *table, props *eval.Props) (*opRows, error) {
	if len(props.Edge)+len(props.Src)+len(props.Dst) > 0 {
		return nil, at(n, "%s cannot read edge or vertex properties: yield them before the pipe and read them as $-.col", what)
	}
	if err := r.checkRefs(n, props, input); err != nil {
		return nil, err
	}
	if input != nil {
		if len(props.Var) > 0 {
			ref := props.Var[0]
			return nil, at(n, "%s reads the piped rows: use $-.col, not $%s.%s", what, ref.Var, ref.Col)
		}
		return &opRows{t: input, input: input, vars: r.vars, params: r.params}, nil
	}
	if len(props.Var) == 0 {
		return nil, at(n, "%s needs rows to read: write it after a pipe '|' or read a variable ($var.col)", what)
	}
	name := props.Var[0].Var
	for _, ref := range props.Var {
		if ref.Var != name {
			return nil, at(n, "%s reads both $%s and $%s: it can read one variable", what, name, ref.Var)
		}
	}
	return &opRows{t: r.vars[name], varName: name, vars: r.vars, params: r.params}, nil
}

// --- Aggregation ---

// hasAggregate reports whether any of cols calls an aggregate function.
func hasAggregate(cols []*ast.YieldColumn) bool {
	for _, c := range cols {
		if findAggregate(c.Expr) != nil {
			return true
		}
	}
	return false
}

// findAggregate returns the first aggregate call in e, or nil.
func findAggregate(e ast.Expr) *ast.AggregateExpr {
	var found *ast.AggregateExpr
	ast.Inspect(e, func(x ast.Expr) bool {
		if a, ok := x.(*ast.AggregateExpr); ok && found == nil {
			found = a
		}
		return found == nil
	})
	return found
}

// aggPrefix starts the column names under which the output expressions
// read the aggregates' results; no column of a table can be named so.
const aggPrefix = "\x00agg"

// aggPlan is a validated aggregation: keys, the distinct aggregate calls,
// and the output columns with each call replaced by a reference to its
// result.
type aggPlan struct {
	keys  []ast.Expr
	aggs  []*ast.AggregateExpr
	outs  []ast.Expr
	names []string
}

// planAggregate validates cols grouped by keys. what names the statement
// for errors ("GROUP BY" or "YIELD").
func planAggregate(what string, keys []ast.Expr, cols []*ast.YieldColumn) (*aggPlan, error) {
	p := &aggPlan{keys: keys}
	keyText := map[string]bool{}
	for _, k := range keys {
		if a := findAggregate(k); a != nil {
			return nil, at(a, "aggregate function %s cannot be a GROUP BY key", a)
		}
		keyText[k.String()] = true
	}
	index := map[string]int{}
	var checked []ast.Expr
	for _, c := range cols {
		if err := checkGrouped(what, c.Expr, keyText); err != nil {
			return nil, err
		}
		out, err := rewrite(c.Expr, func(x ast.Expr) (ast.Expr, error) {
			a, ok := x.(*ast.AggregateExpr)
			if !ok {
				return nil, nil
			}
			i, seen := index[a.String()]
			if !seen {
				i = len(p.aggs)
				index[a.String()] = i
				p.aggs = append(p.aggs, a)
				if a.Arg != nil {
					checked = append(checked, a.Arg)
				}
			}
			return &ast.InputPropExpr{Pos: a.Pos, Col: aggPrefix + strconv.Itoa(i)}, nil
		})
		if err != nil {
			return nil, err
		}
		p.outs = append(p.outs, out)
		p.names = append(p.names, c.Name())
		checked = append(checked, out)
	}
	checked = append(checked, keys...)
	if err := checkColumns(cols, checked...); err != nil {
		return nil, err
	}
	return p, nil
}

// checkGrouped checks that e reads rows only through keys and aggregate
// calls, and that no aggregate call nests another.
func checkGrouped(what string, e ast.Expr, keys map[string]bool) error {
	var err error
	ast.Inspect(e, func(x ast.Expr) bool {
		if err != nil {
			return false
		}
		if keys[x.String()] {
			return false
		}
		switch x := x.(type) {
		case *ast.AggregateExpr:
			if x.Arg != nil {
				if inner := findAggregate(x.Arg); inner != nil {
					err = at(inner, "aggregate function %s cannot be nested in %s", inner, x.Name)
				}
			}
			return false
		case *ast.InputPropExpr, *ast.VarPropExpr, *ast.EdgePropExpr, *ast.SrcPropExpr, *ast.DstPropExpr:
			if what == "GROUP BY" {
				err = at(x, "%s in YIELD must be a GROUP BY key or inside an aggregate function", x)
			} else {
				err = at(x, "%s must be a column of its own (a grouping key) or inside an aggregate function", x)
			}
			return false
		}
		return true
	})
	return err
}

// aggContext is a row context in which the aggregate results are readable
// under their aggPrefix names.
type aggContext struct {
	*rowContext
	results []value.Value
}

func (c *aggContext) InputProp(col string) (value.Value, error) {
	if strings.HasPrefix(col, aggPrefix) {
		i, err := strconv.Atoi(col[len(aggPrefix):])
		if err == nil && i >= 0 && i < len(c.results) {
			return c.results[i], nil
		}
	}
	return c.rowContext.InputProp(col)
}

// group is one group of rows: a representative row (for the key
// expressions) and the aggregates' accumulators.
type group struct {
	row  []value.Value
	accs []*accumulator
}

// run groups rows (those passing where) and yields one row per group.
func (p *aggPlan) run(rows [][]value.Value, ctxOf func([]value.Value) *rowContext, where ast.Expr, distinct bool) (*table, error) {
	st := p.newState(nil)
	for _, row := range rows {
		if err := st.add(row, ctxOf, where); err != nil {
			return nil, err
		}
	}
	return st.result(ctxOf, distinct)
}

// aggState is an aggregation in progress: the groups seen so far, in the
// order they first occurred. What it holds is charged to mem (may be nil).
type aggState struct {
	p      *aggPlan
	groups map[string]*group
	order  []*group
	key    []byte
	mem    *Budget
	held   int64
}

func (p *aggPlan) newState(mem *Budget) *aggState {
	return &aggState{p: p, groups: map[string]*group{}, mem: mem}
}

func (s *aggState) newGroup(row []value.Value) *group {
	g := &group{row: row, accs: make([]*accumulator, len(s.p.aggs))}
	for i, a := range s.p.aggs {
		g.accs[i] = newAccumulator(a)
	}
	return g
}

// grow charges n bytes the state now holds.
func (s *aggState) grow(n int64) error {
	if s.mem == nil {
		return nil
	}
	s.held += n
	return s.mem.Grow(n, "GROUP BY")
}

// release gives back what the state held; it is not used afterwards.
func (s *aggState) release() {
	if s.mem != nil {
		s.mem.Release(s.held)
		s.held = 0
	}
}

// add folds one row (if it passes where) into its group.
func (s *aggState) add(row []value.Value, ctxOf func([]value.Value) *rowContext, where ast.Expr) error {
	ctx := ctxOf(row)
	ok, err := eval.Filter(ctx, where)
	if err != nil {
		return execErrorf("WHERE: %v", err)
	}
	if !ok {
		return nil
	}
	s.key = s.key[:0]
	for _, k := range s.p.keys {
		v, err := eval.Eval(ctx, k)
		if err != nil {
			return execErrorf("GROUP BY %s: %v", k, err)
		}
		s.key = v.AppendKey(s.key)
	}
	g := s.groups[string(s.key)]
	if g == nil {
		g = s.newGroup(row)
		s.groups[string(s.key)] = g
		s.order = append(s.order, g)
		// The representative row, the key and the accumulators.
		if err := s.grow(rowSize(row) + mapEntryBytes + stringBytes + int64(len(s.key)) + int64(len(g.accs))*accumulatorBytes); err != nil {
			return err
		}
	}
	for i, a := range s.p.aggs {
		var v value.Value
		if a.Arg != nil {
			if v, err = eval.Eval(ctx, a.Arg); err != nil {
				return execErrorf("%s: %v", a, err)
			}
		}
		acc := g.accs[i]
		before := len(acc.items) + len(acc.seen)
		if err := acc.add(v); err != nil {
			return execErrorf("%s: %v", a, err)
		}
		if len(acc.items)+len(acc.seen) > before {
			// collect keeps the value, DISTINCT its key.
			if err := s.grow(valuesSize([]value.Value{v}) + mapEntryBytes); err != nil {
				return err
			}
		}
	}
	return nil
}

// result yields one row per group.
func (s *aggState) result(ctxOf func([]value.Value) *rowContext, distinct bool) (*table, error) {
	p := s.p
	order := s.order
	if len(order) == 0 && len(p.keys) == 0 {
		// Aggregating no rows without keys still yields one row.
		order = append(order, s.newGroup(nil))
	}
	out := newTable(p.names...)
	for _, g := range order {
		ac := &aggContext{rowContext: ctxOf(g.row), results: make([]value.Value, len(g.accs))}
		for i, acc := range g.accs {
			ac.results[i] = acc.result()
		}
		row := make([]value.Value, len(p.outs))
		for i, e := range p.outs {
			v, err := eval.Eval(ac, e)
			if err != nil {
				return nil, execErrorf("YIELD %s: %v", p.names[i], err)
			}
			row[i] = v
		}
		out.add(row...)
	}
	if distinct {
		out.rows = distinctRows(out.rows)
	}
	return out, nil
}

// accumulatorBytes estimates one accumulator's fixed memory.
const accumulatorBytes = 160

// accumulator is the running state of one aggregate call over one group.
type accumulator struct {
	fn    string // lower case
	star  bool   // count(*)
	seen  map[string]struct{}
	key   []byte
	count int64
	sum   value.Value
	fsum  float64
	best  value.Value
	items []value.Value
}

func newAccumulator(a *ast.AggregateExpr) *accumulator {
	acc := &accumulator{fn: strings.ToLower(a.Name), star: a.Arg == nil, sum: value.Int(0)}
	if a.Distinct || acc.fn == "collect_set" {
		acc.seen = map[string]struct{}{}
	}
	return acc
}

func (a *accumulator) add(v value.Value) error {
	if a.star {
		a.count++
		return nil
	}
	if v.IsNull() {
		return nil
	}
	if a.seen != nil {
		a.key = v.AppendKey(a.key[:0])
		if _, dup := a.seen[string(a.key)]; dup {
			return nil
		}
		a.seen[string(a.key)] = struct{}{}
	}
	a.count++
	switch a.fn {
	case "sum":
		if !v.IsNumeric() {
			return fmt.Errorf("%w: sum() expects numbers, got %s", value.ErrType, v.Kind())
		}
		s, err := value.Add(a.sum, v)
		if err != nil {
			return err
		}
		a.sum = s
	case "avg":
		f, ok := numberOf(v)
		if !ok {
			return fmt.Errorf("%w: avg() expects numbers, got %s", value.ErrType, v.Kind())
		}
		a.fsum += f
	case "min":
		if a.count == 1 || sortCompare(v, a.best) < 0 {
			a.best = v
		}
	case "max":
		if a.count == 1 || sortCompare(v, a.best) > 0 {
			a.best = v
		}
	case "collect", "collect_set":
		a.items = append(a.items, v)
	}
	return nil
}

func (a *accumulator) result() value.Value {
	switch a.fn {
	case "count":
		return value.Int(a.count)
	case "sum":
		return a.sum
	case "avg":
		if a.count == 0 {
			return value.Null()
		}
		return value.Float(a.fsum / float64(a.count))
	case "min", "max":
		return a.best // NULL when no value was seen
	case "collect", "collect_set":
		return value.List(append([]value.Value(nil), a.items...)...)
	}
	return value.Null()
}

func numberOf(v value.Value) (float64, bool) {
	if i, ok := v.IntVal(); ok {
		return float64(i), true
	}
	return v.FloatVal()
}

// groupBy runs GROUP BY over the piped rows (or a variable's).
func (r *runState) groupBy(s *ast.GroupByStmt, input *table) (*table, error) {
	return r.aggregate(s, input)
}

// yieldAggregate runs a YIELD whose columns call aggregate functions: it
// groups by its other columns, over the piped rows, the rows of the
// variable it reads, or the one row of a YIELD of constants.
func (r *runState) yieldAggregate(s *ast.YieldStmt, input *table) (*table, error) {
	return r.aggregate(s, input)
}

func (r *runState) aggregate(st ast.Statement, input *table) (*table, error) {
	src, p, where, distinct, err := r.planAggregateStmt(st, input)
	if err != nil {
		return nil, err
	}
	return p.run(src.t.rows, src.context, where, distinct)
}

// --- ORDER BY and LIMIT ---

func (r *runState) orderBy(s *ast.OrderByStmt, input *table) (*table, error) {
	exprs := make([]ast.Expr, len(s.Factors))
	for i, f := range s.Factors {
		exprs[i] = f.Expr
	}
	src, err := r.rowsFor(s, "ORDER BY", input, eval.CollectProps(exprs...))
	if err != nil {
		return nil, err
	}
	if err := checkColumns(nil, exprs...); err != nil {
		return nil, err
	}
	rows := src.t.rows
	keys := make([][]value.Value, len(rows))
	for i, row := range rows {
		ctx := src.context(row)
		keys[i] = make([]value.Value, len(exprs))
		for j, e := range exprs {
			if keys[i][j], err = eval.Eval(ctx, e); err != nil {
				return nil, execErrorf("ORDER BY %s: %v", e, err)
			}
		}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		for j, f := range s.Factors {
			c := sortCompare(ka[j], kb[j])
			if c == 0 {
				continue
			}
			if f.Desc {
				return c > 0
			}
			return c < 0
		}
		return false
	})
	out := newTable(src.t.cols...)
	out.rows = make([][]value.Value, len(rows))
	for i, k := range idx {
		out.rows[i] = rows[k]
	}
	return out, nil
}

// sortCompare is the total order of ORDER BY, min and max: NULL after
// everything, numbers by value, kinds that do not compare by kind rank.
func sortCompare(a, b value.Value) int {
	switch an, bn := a.IsNull(), b.IsNull(); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	if c, ok := value.Compare(a, b); ok {
		return c
	}
	if ra, rb := kindRank(a), kindRank(b); ra != rb {
		if ra < rb {
			return -1
		}
		return 1
	}
	// Same kind, yet no order: lists holding NULLs or incomparable items
	// compare item by item; anything else by its printed form.
	if la, ok := a.ListVal(); ok {
		lb, _ := b.ListVal()
		for i := 0; i < len(la) && i < len(lb); i++ {
			if c := sortCompare(la[i], lb[i]); c != 0 {
				return c
			}
		}
		switch {
		case len(la) < len(lb):
			return -1
		case len(la) > len(lb):
			return 1
		}
		return 0
	}
	return strings.Compare(a.String(), b.String())
}

// kindRank orders the kinds of values that do not compare.
func kindRank(v value.Value) int {
	switch {
	case v.Kind() == value.KindBool:
		return 0
	case v.IsNumeric():
		return 1
	case v.Kind() == value.KindString:
		return 2
	case v.Kind() == value.KindList:
		return 3
	}
	return 4 + int(v.Kind())
}

func (r *runState) limit(s *ast.LimitStmt, input *table) (*table, error) {
	if input == nil {
		return nil, at(s, "LIMIT needs rows to read: write it after a pipe '|'")
	}
	out := newTable(input.cols...)
	n := int64(len(input.rows))
	start := min(s.Offset, n)
	end := start + min(s.Count, n-start)
	out.rows = input.rows[start:end:end]
	return out, nil
}

// --- Set operators ---

func (r *runState) setOp(ctx context.Context, s *ast.SetOpStmt, input *table) (*table, error) {
	left, err := r.query(ctx, s.Left, input)
	if err != nil {
		return nil, err
	}
	right, err := r.query(ctx, s.Right, input)
	if err != nil {
		return nil, err
	}
	if left == nil || right == nil {
		return nil, at(s, "%s combines query results, and one side yields none", s.Op)
	}
	if len(left.cols) != len(right.cols) {
		return nil, at(s, "%s needs the same number of columns on both sides: the left yields %d %v, the right %d %v",
			s.Op, len(left.cols), left.cols, len(right.cols), right.cols)
	}
	out := newTable(left.cols...)
	switch s.Op {
	case ast.Union:
		out.rows = make([][]value.Value, 0, len(left.rows)+len(right.rows))
		out.rows = append(append(out.rows, left.rows...), right.rows...)
		if !s.All {
			out.rows = distinctRows(out.rows)
		}
	case ast.Intersect, ast.Minus:
		inRight := make(map[string]struct{}, len(right.rows))
		for _, row := range right.rows {
			inRight[string(rowKey(nil, row))] = struct{}{}
		}
		want := s.Op == ast.Intersect
		var key []byte
		for _, row := range left.rows {
			key = rowKey(key[:0], row)
			if _, ok := inRight[string(key)]; ok == want {
				out.rows = append(out.rows, row)
			}
		}
	}
	return out, nil
}

// rowKey appends the identity of a row, as distinctRows compares rows.
func rowKey(buf []byte, row []value.Value) []byte {
	for _, v := range row {
		buf = v.AppendKey(buf)
	}
	return buf
}
