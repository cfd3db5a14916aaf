package console

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/lexer"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// Query parameters: ":param name => value" sets $name for every following
// statement, which the console then sends with ExecuteWithParams. The
// value is an nGQL expression evaluated here, once: a literal ("player100",
// 3, 1.5, true, NULL), a list, a call (date("2024-01-02")), or arithmetic
// on those and on parameters already set ($n + 1).

// paramCommand is a parsed :param: the value is nil to remove the
// parameter.
type paramCommand struct {
	name  string
	value *value.Value
}

const paramUsage = `want :param name => value (an nGQL value such as "player100", 3 or [1, 2]), or :param name => to remove it`

// parseParam parses the arguments of :param; params are those already
// set, which the value may read.
func parseParam(args string, params map[string]value.Value) (paramCommand, error) {
	rawName, expr, ok := strings.Cut(args, "=>")
	if !ok {
		if strings.TrimSpace(args) == "" {
			return paramCommand{}, commandErrorf("param", "%s", paramUsage)
		}
		return paramCommand{}, commandErrorf("param", "missing '=>' in %q: %s", args, paramUsage)
	}
	name := strings.TrimPrefix(strings.TrimSpace(rawName), "$")
	if err := checkParamName(name); err != nil {
		return paramCommand{}, commandErrorf("param", "%v", err)
	}
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return paramCommand{name: name}, nil
	}
	v, err := evalParam(expr, params)
	if err != nil {
		return paramCommand{}, commandErrorf("param", "$%s => %s: %v", name, expr, err)
	}
	return paramCommand{name: name, value: &v}, nil
}

// checkParamName accepts what nGQL reads as $name: a letter or '_', then
// letters, digits and '_'.
func checkParamName(name string) error {
	if name == "" {
		return errors.New("missing the parameter name: " + paramUsage)
	}
	for i, r := range name {
		if r == utf8.RuneError || (i == 0 && !lexer.IsIdentStart(r)) || !lexer.IsIdentPart(r) {
			return fmt.Errorf("invalid parameter name %q: a name starts with a letter or '_' and has only letters, digits and '_'", name)
		}
	}
	return nil
}

// evalParam evaluates the value of a :param.
func evalParam(expr string, params map[string]value.Value) (value.Value, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return value.Value{}, err
	}
	v, err := eval.Eval(paramContext(params), e)
	if err != nil {
		return value.Value{}, err
	}
	switch v.Kind() {
	case value.KindVertex, value.KindEdge, value.KindPath:
		return value.Value{}, fmt.Errorf("a %s cannot be a parameter", v.Kind())
	}
	return v, nil
}

// paramContext evaluates :param values: constants and parameters, nothing
// that needs a row.
type paramContext map[string]value.Value

var _ eval.ParamSource = paramContext(nil)

func (p paramContext) Param(name string) (value.Value, bool) {
	v, ok := p[name]
	return v, ok
}

func noRow(ref string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("%s: a parameter is a constant and cannot read properties or columns", ref)
}

func (paramContext) EdgeProp(edge, prop string) (value.Value, error) { return noRow(edge + "." + prop) }
func (paramContext) SrcProp(tag, prop string) (value.Value, error) {
	return noRow("$^." + tag + "." + prop)
}
func (paramContext) DstProp(tag, prop string) (value.Value, error) {
	return noRow("$$." + tag + "." + prop)
}
func (paramContext) InputProp(col string) (value.Value, error)  { return noRow("$-." + col) }
func (paramContext) VarProp(v, col string) (value.Value, error) { return noRow("$" + v + "." + col) }

// setParam runs :param.
func (c *console) setParam(args string) error {
	cmd, err := parseParam(args, c.params)
	if err != nil {
		return err
	}
	if cmd.value == nil {
		if _, ok := c.params[cmd.name]; !ok {
			return commandErrorf("param", "$%s is not set, so there is nothing to remove", cmd.name)
		}
		delete(c.params, cmd.name)
		return nil
	}
	if c.params == nil {
		c.params = map[string]value.Value{}
	}
	c.params[cmd.name] = *cmd.value
	return nil
}

// showParams runs :params, or :params name.
func (c *console) showParams(args string) error {
	if args != "" {
		name := strings.TrimPrefix(args, "$")
		v, ok := c.params[name]
		if !ok {
			return commandErrorf("params", "$%s is not set", name)
		}
		fmt.Fprintf(c.info(), "$%s => %s\n", name, v)
		return nil
	}
	if len(c.params) == 0 {
		fmt.Fprintln(c.info(), "No parameters are set (:param name => value sets one).")
		return nil
	}
	names := make([]string, 0, len(c.params))
	for name := range c.params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(c.info(), "$%s => %s\n", name, c.params[name])
	}
	return nil
}

// paramArgs is the parameters as ExecuteWithParams takes them.
func (c *console) paramArgs() map[string]any {
	out := make(map[string]any, len(c.params))
	for name, v := range c.params {
		out[name] = v.ToProto()
	}
	return out
}
