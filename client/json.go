package client

import (
	"fmt"
	"math"
)

// JSONValue converts a cell as Row.Value returns it for encoding/json,
// as nova-console --format json and graphd's HTTP API print it: NULL is
// nil, lists are slices, maps are objects, a vertex is {vid, tags}, an edge
// {type, src, dst, rank, props}, a path {nodes, relationships}; floats JSON
// cannot hold (NaN, ±Inf) and temporal values are their text.
func JSONValue(v any) any {
	switch v := v.(type) {
	case nil, string, int64, bool:
		return v
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return FormatValue(v)
		}
		return v
	case []any:
		items := make([]any, len(v))
		for i, item := range v {
			items[i] = JSONValue(item)
		}
		return items
	case Map:
		return jsonMap(v)
	case Vertex:
		return jsonVertex(v)
	case Edge:
		return jsonEdge(v)
	case Path:
		nodes := make([]any, 0, len(v.Steps)+1)
		for _, n := range v.Nodes() {
			nodes = append(nodes, jsonVertex(n))
		}
		rels := make([]any, 0, len(v.Steps))
		for _, e := range v.Relationships() {
			rels = append(rels, jsonEdge(e))
		}
		return map[string]any{"nodes": nodes, "relationships": rels}
	}
	return fmt.Sprint(v) // temporal values print as NebulaGraph does
}

// jsonMap is a map as a JSON object (encoding/json sorts its keys).
func jsonMap(m Map) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = JSONValue(v)
	}
	return out
}

func jsonVertex(v Vertex) map[string]any {
	tags := make(map[string]any, len(v.Tags))
	for _, t := range v.Tags {
		tags[t.Name] = jsonMap(t.Props)
	}
	return map[string]any{"vid": JSONValue(v.VID), "tags": tags}
}

func jsonEdge(e Edge) map[string]any {
	return map[string]any{"type": e.Type, "src": JSONValue(e.Src), "dst": JSONValue(e.Dst), "rank": e.Rank, "props": jsonMap(e.Props)}
}
