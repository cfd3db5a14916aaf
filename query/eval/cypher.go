package eval

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// VariableSource is implemented by a Context that binds names to values:
// MATCH's variables (a node, a relationship, a path, a WITH or UNWIND
// column). A bare name then evaluates to its value, and name.prop reads
// prop of it (of a vertex: name.tag is the tag's properties as a MAP, so
// name.tag.prop is one property).
type VariableSource interface {
	// Variable returns the value bound to name; ok is false when name is
	// not a variable here.
	Variable(name string) (v value.Value, ok bool)
}

// TagPropSource is implemented by a Context that can read v.tag.prop of a
// vertex variable without the whole vertex (MATCH fetches only the
// properties a query reads that way). ok is false to evaluate it the
// ordinary way, through the variable's value.
type TagPropSource interface {
	TagProp(variable, tag, prop string) (v value.Value, ok bool)
}

// scoped binds the variable of a list comprehension, a predicate function
// or reduce over its parent context, for the item being evaluated.
type scoped struct {
	Context
	parent Context
	names  [2]string
	vals   [2]value.Value
}

func (s *scoped) Variable(name string) (value.Value, bool) {
	for i, n := range s.names {
		if n != "" && n == name {
			return s.vals[i], true
		}
	}
	if vs, ok := s.parent.(VariableSource); ok {
		return vs.Variable(name)
	}
	return value.Value{}, false
}

// The optional interfaces of the parent stay reachable through scoped.

func (s *scoped) TagProp(variable, tag, prop string) (value.Value, bool) {
	for _, n := range s.names {
		if n != "" && n == variable {
			return value.Value{}, false
		}
	}
	if ts, ok := s.parent.(TagPropSource); ok {
		return ts.TagProp(variable, tag, prop)
	}
	return value.Value{}, false
}

func (s *scoped) Param(name string) (value.Value, bool) {
	if ps, ok := s.parent.(ParamSource); ok {
		return ps.Param(name)
	}
	return value.Value{}, false
}

func (s *scoped) AllProps(scope Scope) (value.Value, error) {
	if ps, ok := s.parent.(PropsSource); ok {
		return ps.AllProps(scope)
	}
	return value.Value{}, fmt.Errorf("properties() of %s is not available here", scope)
}

func (s *scoped) VertexOf(scope Scope) (value.Value, error) {
	if gs, ok := s.parent.(GraphSource); ok {
		return gs.VertexOf(scope)
	}
	return value.Value{}, fmt.Errorf("%s is not a value here", scope)
}

func (s *scoped) Regexps() *RegexCache {
	if rs, ok := s.parent.(RegexSource); ok {
		return rs.Regexps()
	}
	return nil
}

func (s *scoped) EdgeOf() (value.Value, error) {
	if gs, ok := s.parent.(GraphSource); ok {
		return gs.EdgeOf()
	}
	return value.Value{}, fmt.Errorf("EDGE is not a value here")
}

func bind(ctx Context, name string, v value.Value) *scoped {
	return &scoped{Context: ctx, parent: ctx, names: [2]string{name}, vals: [2]value.Value{v}}
}

// evalVariable is a bare name: a variable's value, or an error naming it.
func evalVariable(ctx Context, e *ast.LabelExpr) (value.Value, error) {
	if vs, ok := ctx.(VariableSource); ok {
		if v, ok := vs.Variable(e.Name); ok {
			return v, nil
		}
		return value.Value{}, fail(e, fmt.Errorf("variable %s is not defined", ast.QuoteName(e.Name)))
	}
	return value.Value{}, fail(e, fmt.Errorf("invalid label %s: write edge.prop, $^.tag.prop or $$.tag.prop", e.Name))
}

// variableAttribute is name.prop when name is a variable: ok is false when
// it is not (name.prop is then an edge property, as in GO).
func variableAttribute(ctx Context, e *ast.EdgePropExpr) (v value.Value, ok bool, err error) {
	vs, isVS := ctx.(VariableSource)
	if !isVS {
		return value.Value{}, false, nil
	}
	x, found := vs.Variable(e.Edge)
	if !found {
		return value.Value{}, false, nil
	}
	if x.IsNull() {
		return value.Value{}, true, nil
	}
	if vx, isVertex := x.VertexVal(); isVertex {
		for _, t := range vx.Tags {
			if t.Name == e.Prop {
				return t.Map(), true, nil
			}
		}
	}
	v, err = value.Attribute(x, e.Prop)
	if err != nil {
		return value.Value{}, true, fail(e, err)
	}
	return v, true, nil
}

func evalCase(ctx Context, e *ast.CaseExpr) (value.Value, error) {
	var subject value.Value
	if e.Subject != nil {
		var err error
		if subject, err = eval(ctx, e.Subject); err != nil {
			return value.Value{}, err
		}
	}
	for _, w := range e.Whens {
		c, err := eval(ctx, w.When)
		if err != nil {
			return value.Value{}, err
		}
		var hit bool
		if e.Subject != nil {
			hit = value.IsTrue(value.Equal(subject, c))
		} else {
			if k := c.Kind(); k != value.KindBool && k != value.KindNull {
				return value.Value{}, fail(w.When, fmt.Errorf("%w: a WHEN condition must be BOOL, got %s", value.ErrType, k))
			}
			hit = value.IsTrue(c)
		}
		if hit {
			return eval(ctx, w.Then)
		}
	}
	if e.Else == nil {
		return value.Null(), nil
	}
	return eval(ctx, e.Else)
}

// listOf evaluates the list a comprehension, predicate or reduce walks:
// ok is false for NULL (the whole expression is NULL then).
func listOf(ctx Context, n ast.Expr, list ast.Expr) ([]value.Value, bool, error) {
	l, err := eval(ctx, list)
	if err != nil {
		return nil, false, err
	}
	if l.IsNull() {
		return nil, false, nil
	}
	items, ok := l.ListVal()
	if !ok {
		return nil, false, fail(n, fmt.Errorf("%w: %s needs a LIST after IN, got %s", value.ErrType, n, l.Kind()))
	}
	return items, true, nil
}

func evalListComprehension(ctx Context, e *ast.ListComprehension) (value.Value, error) {
	items, ok, err := listOf(ctx, e, e.List)
	if err != nil || !ok {
		return value.Value{}, err
	}
	out := make([]value.Value, 0, len(items))
	for _, it := range items {
		sc := bind(ctx, e.Var, it)
		if e.Where != nil {
			keep, err := Filter(sc, e.Where)
			if err != nil {
				return value.Value{}, err
			}
			if !keep {
				continue
			}
		}
		if e.Map != nil {
			if it, err = eval(sc, e.Map); err != nil {
				return value.Value{}, err
			}
		}
		out = append(out, it)
	}
	return value.List(out...), nil
}

// evalPredicate is all/any/none/single(x IN list WHERE cond), with
// Cypher's NULLs: a NULL condition makes all/any/none NULL unless another
// item decides the answer.
func evalPredicate(ctx Context, e *ast.PredicateExpr) (value.Value, error) {
	items, ok, err := listOf(ctx, e, e.List)
	if err != nil || !ok {
		return value.Value{}, err
	}
	trues, nulls := 0, 0
	for _, it := range items {
		c, err := eval(bind(ctx, e.Var, it), e.Where)
		if err != nil {
			return value.Value{}, err
		}
		switch {
		case c.IsNull():
			nulls++
		case c.Kind() != value.KindBool:
			return value.Value{}, fail(e.Where, fmt.Errorf("%w: the condition of %s must be BOOL, got %s", value.ErrType, e.Func, c.Kind()))
		case value.IsTrue(c):
			trues++
		}
	}
	falses := len(items) - trues - nulls
	switch e.Func {
	case "all":
		if falses > 0 {
			return value.Bool(false), nil
		}
	case "any":
		if trues > 0 {
			return value.Bool(true), nil
		}
	case "none":
		if trues > 0 {
			return value.Bool(false), nil
		}
	case "single":
		if trues > 1 {
			return value.Bool(false), nil
		}
	default:
		return value.Value{}, fail(e, fmt.Errorf("unknown list predicate %s", e.Func))
	}
	if nulls > 0 {
		return value.Null(), nil
	}
	switch e.Func {
	case "all":
		return value.Bool(true), nil
	case "any":
		return value.Bool(false), nil
	case "none":
		return value.Bool(true), nil
	}
	return value.Bool(trues == 1), nil
}

func evalReduce(ctx Context, e *ast.ReduceExpr) (value.Value, error) {
	acc, err := eval(ctx, e.Init)
	if err != nil {
		return value.Value{}, err
	}
	items, ok, err := listOf(ctx, e, e.List)
	if err != nil || !ok {
		return value.Value{}, err
	}
	for _, it := range items {
		sc := &scoped{Context: ctx, parent: ctx, names: [2]string{e.Acc, e.Var}, vals: [2]value.Value{acc, it}}
		if acc, err = eval(sc, e.Map); err != nil {
			return value.Value{}, err
		}
	}
	return acc, nil
}

// evalSlice is x[from..to] of a LIST or STRING (by characters): bounds
// past the ends are clamped, negative ones count from the end, NULL
// anywhere is NULL.
func evalSlice(ctx Context, e *ast.SliceExpr) (value.Value, error) {
	x, err := eval(ctx, e.X)
	if err != nil || x.IsNull() {
		return value.Value{}, err
	}
	var n int
	items, isList := x.ListVal()
	str, isStr := x.StrVal()
	switch {
	case isList:
		n = len(items)
	case isStr:
		n = utf8.RuneCountInString(str)
	default:
		return value.Value{}, fail(e, fmt.Errorf("%w: cannot slice %s", value.ErrType, x.Kind()))
	}
	bound := func(b ast.Expr, dflt int) (int, bool, error) {
		if b == nil {
			return dflt, true, nil
		}
		v, err := eval(ctx, b)
		if err != nil || v.IsNull() {
			return 0, false, err
		}
		i, ok := v.IntVal()
		if !ok {
			return 0, false, fail(b, fmt.Errorf("%w: a slice bound must be INT, got %s", value.ErrType, v.Kind()))
		}
		if i < 0 {
			i += int64(n)
		}
		return int(max(0, min(i, int64(n)))), true, nil
	}
	from, ok, err := bound(e.From, 0)
	if err != nil || !ok {
		return value.Value{}, err
	}
	to, ok, err := bound(e.To, n)
	if err != nil || !ok {
		return value.Value{}, err
	}
	if to < from {
		to = from
	}
	if isList {
		return value.List(items[from:to]...), nil
	}
	r := []rune(str)
	return value.Str(string(r[from:to])), nil
}

// isEmpty is x IS EMPTY. novagraph has no EMPTY value apart from NULL (a
// property a vertex lacks reads as NULL), so NULL is empty, and so are an
// empty STRING, LIST and MAP.
func isEmpty(x value.Value) bool {
	switch x.Kind() {
	case value.KindNull:
		return true
	case value.KindString:
		s, _ := x.StrVal()
		return s == ""
	case value.KindList:
		l, _ := x.ListVal()
		return len(l) == 0
	case value.KindMap:
		m, _ := x.MapVal()
		return len(m) == 0
	}
	return false
}

// RegexCache keeps the compiled =~ patterns of one request: a query
// applies the same pattern to every row. The executor owns one per
// request and hands it out through RegexSource; without one, each match
// compiles its pattern.
type RegexCache struct {
	m map[string]*regexp.Regexp
}

// regexCacheSize bounds a RegexCache (patterns computed per row could
// otherwise fill it).
const regexCacheSize = 256

// RegexSource is implemented by a Context that keeps compiled patterns.
type RegexSource interface {
	Regexps() *RegexCache
}

func (c *RegexCache) get(pattern string) (*regexp.Regexp, error) {
	if re, ok := c.m[pattern]; ok {
		return re, nil
	}
	re, err := compileRegex(pattern)
	if err != nil {
		return nil, err
	}
	if c.m == nil || len(c.m) >= regexCacheSize {
		c.m = map[string]*regexp.Regexp{}
	}
	c.m[pattern] = re
	return re, nil
}

// compileRegex compiles a =~ pattern, which matches the whole string, as
// in Cypher and NebulaGraph.
func compileRegex(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", pattern, err)
	}
	return re, nil
}

// regexMatch is s =~ pattern: NULL if either is NULL.
func regexMatch(ctx Context, s, pattern value.Value) (value.Value, error) {
	if s.IsNull() || pattern.IsNull() {
		return value.Null(), nil
	}
	str, ok1 := s.StrVal()
	pat, ok2 := pattern.StrVal()
	if !ok1 || !ok2 {
		return value.Value{}, fmt.Errorf("%w: =~ compares a STRING with a STRING pattern, got %s and %s", value.ErrType, s.Kind(), pattern.Kind())
	}
	var re *regexp.Regexp
	var err error
	if rs, ok := ctx.(RegexSource); ok && rs.Regexps() != nil {
		re, err = rs.Regexps().get(pat)
	} else {
		re, err = compileRegex(pat)
	}
	if err != nil {
		return value.Value{}, err
	}
	return value.Bool(re.MatchString(str)), nil
}

// bitwise is a & b or a ^ b of two INTs.
func bitwise(op ast.BinaryOp, a, b value.Value) (value.Value, error) {
	if a.IsNull() || b.IsNull() {
		return value.Null(), nil
	}
	x, ok1 := a.IntVal()
	y, ok2 := b.IntVal()
	if !ok1 || !ok2 {
		return value.Value{}, fmt.Errorf("%w: %s needs two INTs, got %s and %s", value.ErrType, op, a.Kind(), b.Kind())
	}
	if op == ast.OpBitAnd {
		return value.Int(x & y), nil
	}
	return value.Int(x ^ y), nil
}
