package eval

import (
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Maps: the literal {k: v, ...}, m.key and m["key"] (value.Attribute and
// value.Element), keys(m), size(m) (fnLength), properties(x), and the map
// arguments of the calendar constructors, date({year: 2024, month: 1}).

// evalMap evaluates a map literal; the parser has rejected repeated keys.
func evalMap(ctx Context, e *ast.MapExpr) (value.Value, error) {
	props := make([]value.Prop, len(e.Items))
	for i, item := range e.Items {
		v, err := eval(ctx, item.Value)
		if err != nil {
			return value.Value{}, err
		}
		props[i] = value.Prop{Name: item.Key, Value: v}
	}
	return value.Map(props...), nil
}

// fnKeys lists the keys of a map, or the property names of a vertex (of all
// its tags) or an edge value, sorted.
func fnKeys(args []value.Value) (value.Value, error) {
	m, err := propsOf(args[0])
	if err != nil {
		return value.Value{}, err
	}
	keys := m.MapKeys()
	out := make([]value.Value, len(keys))
	for i, k := range keys {
		out[i] = value.Str(k)
	}
	return value.List(out...), nil
}

// fnProperties is properties(x) of a value: a vertex's properties (of all
// its tags, merged) or an edge's as a map; a map is itself. The row's own
// edge and vertices, properties(EDGE) and the like, are special forms (see
// evalCall).
func fnProperties(args []value.Value) (value.Value, error) {
	return propsOf(args[0])
}

func propsOf(x value.Value) (value.Value, error) {
	switch x.Kind() {
	case value.KindMap:
		return x, nil
	case value.KindVertex:
		v, _ := x.VertexVal()
		return v.PropsMap(), nil
	case value.KindEdge:
		e, _ := x.EdgeVal()
		return e.PropsMap(), nil
	}
	return value.Value{}, argError("a map, vertex or edge", x)
}

// mapFields reads the map argument of date(), time(), datetime() and
// duration(): names (case-insensitive) to integers.
func mapFields(m value.Value) (map[string]int64, error) {
	fields, zone, err := mapFieldsZone(m)
	if err == nil && zone != "" {
		err = argErrorf("only a datetime takes a timezone field")
	}
	return fields, err
}

// mapFieldsZone is mapFields for a datetime map, which may also name its
// zone as a string: {year: 2024, hour: 12, timezone: "Europe/Berlin"}.
func mapFieldsZone(m value.Value) (map[string]int64, string, error) {
	props, _ := m.MapVal()
	fields := make(map[string]int64, len(props))
	zone, hasZone := "", false
	for _, p := range props {
		name := strings.ToLower(p.Name)
		if name == "timezone" {
			if hasZone {
				return nil, "", argErrorf("field timezone given twice")
			}
			hasZone = true
			z, ok := p.Value.StrVal()
			if !ok || z == "" {
				return nil, "", fmt.Errorf("%w: field %s must be a zone name such as \"Europe/Berlin\", got %s", value.ErrType, p.Name, p.Value.Kind())
			}
			zone = z
			continue
		}
		n, ok := p.Value.IntVal()
		if !ok {
			return nil, "", fmt.Errorf("%w: field %s must be an integer, got %s", value.ErrType, p.Name, p.Value.Kind())
		}
		if _, dup := fields[name]; dup {
			return nil, "", argErrorf("field %s given twice", name)
		}
		fields[name] = n
	}
	return fields, zone, nil
}
