package eval

import (
	"fmt"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Functions of the graph values that FIND PATH and GET SUBGRAPH return, as
// NebulaGraph names them: nodes(path), relationships(path),
// startNode(path), endNode(path); src(e), dst(e), rank(e) and type(e) of an
// edge value (src(EDGE) and friends, of the row's edge, are special forms:
// see evalCall); tags(v) and labels(v), the tag names of a vertex value;
// and id(vertex) for a vertex value (see evalCall). length(path), the
// number of hops, is in fnLength; keys() and properties() in maps.go.

// lookupGraph finds the graph functions; lookup falls back to it.
func lookupGraph(name string) (builtin, bool) {
	switch name {
	case "nodes":
		return fixed(1, fnNodes), true
	case "relationships":
		return fixed(1, fnRelationships), true
	case "startnode":
		return fixed(1, fnStartNode), true
	case "endnode":
		return fixed(1, fnEndNode), true
	case "src", "dst", "rank", "type":
		return fixed(1, edgeFieldFn(name)), true
	case "tags", "labels":
		return fixed(1, fnTags), true
	}
	return builtin{}, false
}

// edgeFieldFn is src, dst, rank or type of an edge value: its stored
// source and destination ids, its rank, the name of its type.
func edgeFieldFn(name string) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		e, ok := args[0].EdgeVal()
		if !ok {
			return value.Value{}, argError("an edge", args[0])
		}
		switch name {
		case "src":
			return e.Src, nil
		case "dst":
			return e.Dst, nil
		case "rank":
			return value.Int(e.Rank), nil
		}
		return value.Str(e.Type), nil
	}
}

// fnTags lists the names of a vertex value's tags, sorted (empty when its
// properties were not read).
func fnTags(args []value.Value) (value.Value, error) {
	v, ok := args[0].VertexVal()
	if !ok {
		return value.Value{}, argError("a vertex", args[0])
	}
	names := v.TagNames()
	out := make([]value.Value, len(names))
	for i, n := range names {
		out[i] = value.Str(n)
	}
	return value.List(out...), nil
}

func pathArg(v value.Value) (*value.Path, error) {
	p, ok := v.PathVal()
	if !ok {
		return nil, argError("a path", v)
	}
	return p, nil
}

func fnNodes(args []value.Value) (value.Value, error) {
	p, err := pathArg(args[0])
	if err != nil {
		return value.Value{}, err
	}
	nodes := p.Nodes()
	out := make([]value.Value, len(nodes))
	for i, n := range nodes {
		out[i] = value.VertexValue(n)
	}
	return value.List(out...), nil
}

func fnRelationships(args []value.Value) (value.Value, error) {
	p, err := pathArg(args[0])
	if err != nil {
		return value.Value{}, err
	}
	out := make([]value.Value, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = value.EdgeValue(s.Edge)
	}
	return value.List(out...), nil
}

func fnStartNode(args []value.Value) (value.Value, error) {
	p, err := pathArg(args[0])
	if err != nil {
		return value.Value{}, err
	}
	return value.VertexValue(p.Src), nil
}

func fnEndNode(args []value.Value) (value.Value, error) {
	p, err := pathArg(args[0])
	if err != nil {
		return value.Value{}, err
	}
	if len(p.Steps) == 0 {
		return value.VertexValue(p.Src), nil
	}
	return value.VertexValue(p.Steps[len(p.Steps)-1].Dst), nil
}

// idOfValue is id(expr) for an expression other than $^, $$ or VERTEX: the
// id of the vertex value it gives (NULL for NULL).
func idOfValue(ctx Context, c *ast.FuncCall) (value.Value, error) {
	v, err := eval(ctx, c.Args[0])
	if err != nil {
		return value.Value{}, err
	}
	if v.IsNull() {
		return value.Value{}, nil
	}
	vx, ok := v.VertexVal()
	if !ok {
		return value.Value{}, fail(c, fmt.Errorf("%w: id() expects $^, $$, VERTEX or a vertex, got %s", value.ErrType, v.Kind()))
	}
	return vx.VID, nil
}
