package exec

import (
	"context"
	"fmt"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// constant evaluates an expression that refers to no row.
func constant(e ast.Expr) (value.Value, error) {
	if a := findAggregate(e); a != nil {
		return value.Null(), fmt.Errorf("aggregate function %s is not allowed here", a)
	}
	return eval.Eval(nil, e)
}

// constantWith evaluates an expression that refers to no row but may read
// the request's query parameters ($name), as INSERT and UPDATE's keys and
// values do.
func constantWith(params map[string]value.Value, e ast.Expr) (value.Value, error) {
	if a := findAggregate(e); a != nil {
		return value.Null(), fmt.Errorf("aggregate function %s is not allowed here", a)
	}
	return eval.Eval(&rowContext{Context: constContext{}, params: params}, e)
}

// query runs a statement that produces rows (a rowStatement, kinds.go).
// input is the table piped in ($-), nil when there is none.
func (r *runState) query(ctx context.Context, st ast.Statement, input *table) (*table, error) {
	if q, ok := kindOf(st).(rowStatement); ok {
		return q.query(ctx, r, input)
	}
	return nil, at(st, "%s cannot be used here", stmtName(st))
}

// rowContext evaluates expressions over one row of an input table ($-),
// the request's variables ($var) and its query parameters ($name).
type rowContext struct {
	eval.Context
	input    *table
	inputRow []value.Value
	vars     map[string]*table
	varName  string        // the variable whose row varRow is, if any
	varRow   []value.Value // set when rows come from a variable
	params   map[string]value.Value
}

func (c *rowContext) InputProp(col string) (value.Value, error) {
	if c.input == nil || c.inputRow == nil {
		return value.Null(), fmt.Errorf("$-.%s: no input row here (use $- only when the statement reads FROM $-)", col)
	}
	i := c.input.colIndex(col)
	if i < 0 {
		return value.Null(), fmt.Errorf("$-.%s: the input has no column %q (it has %v)", col, col, c.input.cols)
	}
	return c.inputRow[i], nil
}

func (c *rowContext) VarProp(v, col string) (value.Value, error) {
	t, ok := c.vars[v]
	if !ok {
		return value.Null(), fmt.Errorf("$%s.%s: variable $%s is not defined", v, col, v)
	}
	i := t.colIndex(col)
	if i < 0 {
		return value.Null(), fmt.Errorf("$%s.%s: variable $%s has no column %q (it has %v)", v, col, v, col, t.cols)
	}
	if c.varName != v || c.varRow == nil {
		return value.Null(), fmt.Errorf("$%s.%s can only be used in a statement that reads FROM $%s", v, col, v)
	}
	return c.varRow[i], nil
}

// checkRefs validates $-.col and $var.col references, and query
// parameters, before anything runs.
func (r *runState) checkRefs(n ast.Node, props *eval.Props, input *table) error {
	if err := r.checkParams(n, props.Param); err != nil {
		return err
	}
	for _, col := range props.Input {
		if input == nil {
			return at(n, "$-.%s: no input is piped into this statement", col)
		}
		if input.colIndex(col) < 0 {
			return at(n, "$-.%s: the input has no column %q (it has %v)", col, col, input.cols)
		}
	}
	for _, ref := range props.Var {
		t, ok := r.vars[ref.Var]
		if !ok {
			return at(n, "variable $%s is not defined", ref.Var)
		}
		if t.colIndex(ref.Col) < 0 {
			return at(n, "variable $%s has no column %q (it has %v)", ref.Var, ref.Col, t.cols)
		}
	}
	return nil
}

// yield runs a standalone YIELD: once over constants, or once per input row.
func (r *runState) yield(s *ast.YieldStmt, input *table) (*table, error) {
	if hasAggregate(s.Yield.Columns) {
		return r.yieldAggregate(s, input)
	}
	exprs := []ast.Expr{s.Where}
	for _, c := range s.Yield.Columns {
		exprs = append(exprs, c.Expr)
	}
	props := eval.CollectProps(exprs...)
	if len(props.Edge)+len(props.Src)+len(props.Dst) > 0 {
		return nil, at(s, "YIELD on its own cannot read edge or vertex properties")
	}
	if err := r.checkRefs(s, props, input); err != nil {
		return nil, err
	}
	if err := checkColumns(s.Yield.Columns, exprs...); err != nil {
		return nil, err
	}
	out := newTable()
	for _, c := range s.Yield.Columns {
		out.cols = append(out.cols, c.Name())
	}
	// YIELD runs once per input row, or once per row of the one variable it
	// reads, or once.
	rows := [][]value.Value{nil}
	varName := ""
	if input != nil {
		rows = input.rows
	} else if len(props.Var) > 0 {
		varName = props.Var[0].Var
		for _, ref := range props.Var {
			if ref.Var != varName {
				return nil, at(s, "YIELD reads both $%s and $%s: a standalone YIELD iterates over one variable", varName, ref.Var)
			}
		}
		rows = r.vars[varName].rows
	}
	for _, in := range rows {
		ctx := &rowContext{Context: constContext{}, input: input, inputRow: in, vars: r.vars, params: r.params}
		if varName != "" {
			ctx.inputRow, ctx.varName, ctx.varRow = nil, varName, in
		}
		ok, err := eval.Filter(ctx, s.Where)
		if err != nil {
			return nil, execErrorf("%v", err)
		}
		if !ok {
			continue
		}
		row := make([]value.Value, len(s.Yield.Columns))
		for i, c := range s.Yield.Columns {
			if row[i], err = eval.Eval(ctx, c.Expr); err != nil {
				return nil, execErrorf("%v", err)
			}
		}
		out.add(row...)
	}
	if s.Yield.Distinct {
		out.rows = distinctRows(out.rows)
	}
	return out, nil
}

// constContext rejects edge and vertex references (YIELD has none).
type constContext struct{}

func (constContext) EdgeProp(edge, prop string) (value.Value, error) {
	return value.Null(), fmt.Errorf("%s.%s: no edge here", edge, prop)
}
func (constContext) SrcProp(tag, prop string) (value.Value, error) {
	return value.Null(), fmt.Errorf("$^.%s.%s: no vertex here", tag, prop)
}
func (constContext) DstProp(tag, prop string) (value.Value, error) {
	return value.Null(), fmt.Errorf("$$.%s.%s: no vertex here", tag, prop)
}
func (constContext) InputProp(col string) (value.Value, error) {
	return value.Null(), fmt.Errorf("$-.%s: no input", col)
}
func (constContext) VarProp(v, col string) (value.Value, error) {
	return value.Null(), fmt.Errorf("$%s.%s: no variable row", v, col)
}

// startVids evaluates a FROM / FETCH vertex source into the start vertices
// and, for $-/$var sources, the table rows each start vertex came from. A
// parameter source ($p) holds one vid or a list of them.
type startSet struct {
	vids    [][]byte
	origins map[string][]int // vid key → rows of src that produced it
	src     *table           // the input or variable table, nil for literals
	varName string
}

func (r *runState) startVids(vids vidCodec, from *ast.VertexSource, input *table) (*startSet, error) {
	set := &startSet{}
	seen := map[string]bool{}
	add := func(b []byte) {
		if !seen[string(b)] {
			seen[string(b)] = true
			set.vids = append(set.vids, b)
		}
	}
	if from.Ref == nil {
		for _, e := range from.VIDs {
			v, err := constantWith(r.params, e)
			if err != nil {
				return nil, at(e, "%v", err)
			}
			b, err := vids.encode(v)
			if err != nil {
				return nil, at(e, "%v", err)
			}
			add(b)
		}
		return set, nil
	}
	var col string
	switch ref := from.Ref.(type) {
	case *ast.ParamExpr:
		if err := r.checkParams(ref, []string{ref.Name}); err != nil {
			return nil, err
		}
		vals, err := paramVids(r.params, ref)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			b, err := vids.encode(v)
			if err != nil {
				return nil, at(ref, "$%s: %v", ref.Name, err)
			}
			add(b)
		}
		return set, nil
	case *ast.InputPropExpr:
		if input == nil {
			return nil, at(ref, "$-.%s: no input is piped into this statement", ref.Col)
		}
		set.src, col = input, ref.Col
	case *ast.VarPropExpr:
		t, ok := r.vars[ref.Var]
		if !ok {
			return nil, at(ref, "variable $%s is not defined", ref.Var)
		}
		set.src, col, set.varName = t, ref.Col, ref.Var
	default:
		return nil, at(from, "unsupported vertex source %s", from)
	}
	ci := set.src.colIndex(col)
	if ci < 0 {
		return nil, at(from.Ref, "%s: no column %q (columns are %v)", from.Ref, col, set.src.cols)
	}
	set.origins = map[string][]int{}
	for i, row := range set.src.rows {
		if row[ci].IsNull() {
			continue
		}
		b, err := vids.encode(row[ci])
		if err != nil {
			return nil, at(from.Ref, "row %d: %v", i+1, err)
		}
		add(b)
		set.origins[string(b)] = append(set.origins[string(b)], i)
	}
	return set, nil
}

// checkColumns rejects, before anything runs, what NebulaGraph's validator
// rejects: unknown functions, bare labels (a name that is not a property
// reference), VERTEX outside FETCH, and duplicate column names.
func checkColumns(cols []*ast.YieldColumn, exprs ...ast.Expr) error {
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c.Name()] {
			return at(c, "duplicate column name %q", c.Name())
		}
		seen[c.Name()] = true
	}
	for _, e := range exprs {
		if err := checkCalls(e); err != nil {
			return err
		}
		var bad error
		ast.InspectScoped(e, func(x ast.Expr, bound map[string]bool) bool {
			if l, ok := x.(*ast.LabelExpr); ok && bad == nil && !bound[l.Name] {
				bad = at(l, "invalid label %q: name a property as edge.prop, $^.tag.prop, $$.tag.prop, $-.col or $var.col", l.Name)
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

// rejectVertex rejects VERTEX (the FETCH row's vertex) in GO.
func rejectVertex(exprs ...ast.Expr) error {
	var bad error
	for _, e := range exprs {
		ast.Inspect(e, func(x ast.Expr) bool {
			if v, ok := x.(*ast.VertexExpr); ok && v.Role == ast.RowVertex && bad == nil {
				bad = at(v, "VERTEX is not defined in GO: use $^ or $$")
			}
			return bad == nil
		})
	}
	return bad
}

// checkSourceRefs rejects $-.col and $var.col in a statement whose vertices
// do not come from $- or that $var: there is no input row to read them from.
func checkSourceRefs(n ast.Node, from *ast.VertexSource, props *eval.Props) error {
	var fromInput bool
	var fromVar string
	if from != nil && from.Ref != nil {
		switch ref := from.Ref.(type) {
		case *ast.InputPropExpr:
			fromInput = true
		case *ast.VarPropExpr:
			fromVar = ref.Var
		}
	}
	if len(props.Input) > 0 && !fromInput {
		return at(n, "$-.%s can only be used when the statement reads FROM $-", props.Input[0])
	}
	for _, ref := range props.Var {
		if ref.Var != fromVar {
			return at(n, "$%s.%s can only be used when the statement reads FROM $%s", ref.Var, ref.Col, ref.Var)
		}
	}
	return nil
}
