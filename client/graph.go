package client

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novagraph/novagraph/proto/commonpb"
)

// Maps and graph values as Row.Value returns them. Values inside them
// (map values, vertex ids, properties) are what Row.Value returns for a
// cell: nil, int64, float64, bool, string, the temporal types, []any, Map,
// and so on.

// Map is a MAP cell, as map literals ({a: 1}) and properties() give it.
// It prints with its keys sorted: {age: 42, name: "Tim"}.
type Map map[string]any

// Keys returns the keys, sorted.
func (m Map) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// String prints m as the console does: {age: 42, name: "Tim"}, keys sorted,
// values as FormatValue prints them.
func (m Map) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range m.Keys() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatKey(k))
		b.WriteString(": ")
		b.WriteString(FormatValue(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// formatKey prints a map key or property name bare when it is an
// identifier, else quoted.
func formatKey(k string) string {
	if k == "" {
		return `""`
	}
	for i, r := range k {
		if r == utf8.RuneError || !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return strconv.Quote(k)
		}
	}
	return k
}

// Tag is one tag of a vertex and its property values.
type Tag struct {
	Name  string
	Props Map
}

// Vertex is a VERTEX cell: its id (int64 or string) and, when its
// properties were read (WITH PROP), its tags by name.
type Vertex struct {
	VID  any
	Tags []Tag
}

// Tag returns the properties of tag name, and whether the vertex has it.
func (v Vertex) Tag(name string) (Map, bool) {
	for _, t := range v.Tags {
		if t.Name == name {
			return t.Props, true
		}
	}
	return nil, false
}

// String prints v as nebula-console does: ("v1" :player{age: 42, name:
// "Tim"}), or ("v1") without tags.
func (v Vertex) String() string {
	var b strings.Builder
	b.WriteByte('(')
	b.WriteString(FormatValue(v.VID))
	for _, t := range v.Tags {
		b.WriteString(" :")
		b.WriteString(t.Name)
		b.WriteString(t.Props.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Edge is an EDGE cell: an edge as stored, Src and Dst its endpoints as
// inserted (whichever way a traversal followed it), Type its type's name.
type Edge struct {
	Src, Dst any
	Type     string
	Rank     int64
	Props    Map // empty when its properties were not read
}

// String prints e as nebula-console does: [:follow "a"->"b" @0 {degree: 95}].
func (e Edge) String() string {
	return "[:" + e.Type + " " + FormatValue(e.Src) + "->" + FormatValue(e.Dst) +
		" @" + strconv.FormatInt(e.Rank, 10) + " " + e.Props.String() + "]"
}

// Step is one hop of a path: the edge followed and the vertex reached.
// Reverse reports that the hop went against the edge's direction, from
// Edge.Dst to Edge.Src.
type Step struct {
	Edge    Edge
	Reverse bool
	Dst     Vertex
}

// Path is a PATH cell: the vertex it starts at and its hops.
type Path struct {
	Start Vertex
	Steps []Step
}

// Length is the number of hops.
func (p Path) Length() int { return len(p.Steps) }

// Nodes lists the vertices of p, the start first.
func (p Path) Nodes() []Vertex {
	out := make([]Vertex, 0, len(p.Steps)+1)
	out = append(out, p.Start)
	for _, s := range p.Steps {
		out = append(out, s.Dst)
	}
	return out
}

// Relationships lists the edges of p in order.
func (p Path) Relationships() []Edge {
	out := make([]Edge, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.Edge
	}
	return out
}

// String prints p as nebula-console does:
// <("a" :player{name: "A"})-[:follow@0 {degree: 95}]->("b")<-[:serve@0 {}]-("c")>.
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('<')
	b.WriteString(p.Start.String())
	for _, s := range p.Steps {
		head, tail := "-[:", "]->"
		if s.Reverse {
			head, tail = "<-[:", "]-"
		}
		b.WriteString(head + s.Edge.Type + "@" + strconv.FormatInt(s.Edge.Rank, 10) + " " + s.Edge.Props.String() + tail)
		b.WriteString(s.Dst.String())
	}
	b.WriteByte('>')
	return b.String()
}

func mapFromProto(m *commonpb.MapVal) Map {
	out := make(Map, len(m.GetEntries()))
	for _, e := range m.GetEntries() {
		out[string(e.GetKey())] = toAny(e.GetValue()) // the last of a repeated key wins
	}
	return out
}

func vertexFromProto(v *commonpb.VertexVal) Vertex {
	out := Vertex{VID: toAny(v.GetVid())}
	for _, t := range v.GetTags() {
		out.Tags = append(out.Tags, Tag{Name: t.GetName(), Props: mapFromProto(t.GetProps())})
	}
	sort.SliceStable(out.Tags, func(i, j int) bool { return out.Tags[i].Name < out.Tags[j].Name })
	return out
}

func edgeFromProto(e *commonpb.EdgeVal) Edge {
	return Edge{Src: toAny(e.GetSrc()), Dst: toAny(e.GetDst()), Type: e.GetName(), Rank: e.GetRank(), Props: mapFromProto(e.GetProps())}
}

func pathFromProto(p *commonpb.PathVal) Path {
	out := Path{Start: vertexFromProto(p.GetSrc())}
	for _, s := range p.GetSteps() {
		out.Steps = append(out.Steps, Step{Edge: edgeFromProto(s.GetEdge()), Reverse: s.GetReverse(), Dst: vertexFromProto(s.GetDst())})
	}
	return out
}

// Map returns cell j, a map, with its values as Value returns them.
func (r Row) Map(j int) (Map, error) {
	if v, ok := r.cell(j).GetV().(*commonpb.Value_MapVal); ok {
		return mapFromProto(v.MapVal), nil
	}
	return nil, r.typeError(j, "map")
}

// Vertex returns cell j, a vertex.
func (r Row) Vertex(j int) (Vertex, error) {
	if v, ok := r.cell(j).GetV().(*commonpb.Value_VertexVal); ok {
		return vertexFromProto(v.VertexVal), nil
	}
	return Vertex{}, r.typeError(j, "vertex")
}

// Edge returns cell j, an edge.
func (r Row) Edge(j int) (Edge, error) {
	if v, ok := r.cell(j).GetV().(*commonpb.Value_EdgeVal); ok {
		return edgeFromProto(v.EdgeVal), nil
	}
	return Edge{}, r.typeError(j, "edge")
}

// Path returns cell j, a path.
func (r Row) Path(j int) (Path, error) {
	if v, ok := r.cell(j).GetV().(*commonpb.Value_PathVal); ok {
		return pathFromProto(v.PathVal), nil
	}
	return Path{}, r.typeError(j, "path")
}
