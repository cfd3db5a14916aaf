package value

import (
	"sort"
	"strconv"
	"strings"
)

// Graph values: a vertex, an edge and a path, as FIND PATH and GET SUBGRAPH
// return them. They print as NebulaGraph 3.x prints them:
//
//	vertex  ("a")  or, with properties,  ("a" :player{age: 42, name: "Tim"})
//	edge    [:follow "a"->"b" @0 {}]  or  [:follow "a"->"b" @0 {degree: 95}]
//	path    <("a")-[:follow@0 {}]->("b")<-[:serve@0 {}]-("c")>
//
// A graph value is immutable. Its printed form is computed once, when it is
// built, and is also what equality, ordering and hashing (AppendKey) use:
// two graph values are equal when they print alike. On the wire (ToProto)
// a graph value travels as its structure (commonpb.VertexVal, EdgeVal,
// PathVal), and the receiver rebuilds the same value.
//
// A vertex's tags and an edge's properties are maps: property names to
// values, sorted by name, as a MAP holds them (map.go).

// Prop is one named property value.
type Prop struct {
	Name  string
	Value Value
}

// TagProps is one tag of a vertex with its properties.
type TagProps struct {
	Name  string
	Props []Prop
}

// Vertex is a vertex id and, when properties were fetched, its tags.
type Vertex struct {
	VID  Value
	Tags []TagProps // nil: not fetched (prints just the id)
}

// Edge is one stored edge: Src and Dst as inserted, whatever direction a
// traversal followed it in.
type Edge struct {
	Src, Dst Value
	Type     string
	Rank     int64
	Props    []Prop // nil or empty prints {}
}

// Step is one hop of a path: the edge followed and the vertex reached.
// Reverse reports that the hop went against the edge's direction (from
// Edge.Dst to Edge.Src).
type Step struct {
	Edge    Edge
	Reverse bool
	Dst     Vertex
}

// Path is a start vertex and the hops from it.
type Path struct {
	Src   Vertex
	Steps []Step
}

// Length is the number of hops (edges) of the path.
func (p *Path) Length() int { return len(p.Steps) }

// Nodes lists the vertices of the path, the start first.
func (p *Path) Nodes() []Vertex {
	out := make([]Vertex, 0, len(p.Steps)+1)
	out = append(out, p.Src)
	for _, s := range p.Steps {
		out = append(out, s.Dst)
	}
	return out
}

// VertexValue returns a VERTEX value. Tags and their properties are sorted
// by name; the slices are kept.
func VertexValue(v Vertex) Value {
	sortTags(v.Tags)
	var b strings.Builder
	formatVertex(&b, &v)
	return Value{kind: KindVertex, s: b.String(), g: &v}
}

// EdgeValue returns an EDGE value. Properties are sorted by name.
func EdgeValue(e Edge) Value {
	sortProps(e.Props)
	var b strings.Builder
	b.WriteString("[:")
	b.WriteString(e.Type)
	b.WriteByte(' ')
	e.Src.format(&b)
	b.WriteString("->")
	e.Dst.format(&b)
	b.WriteString(" @")
	b.WriteString(strconv.FormatInt(e.Rank, 10))
	b.WriteByte(' ')
	formatProps(&b, e.Props)
	b.WriteByte(']')
	return Value{kind: KindEdge, s: b.String(), g: &e}
}

// PathValue returns a PATH value.
func PathValue(p Path) Value {
	sortTags(p.Src.Tags)
	var b strings.Builder
	b.WriteByte('<')
	formatVertex(&b, &p.Src)
	for i := range p.Steps {
		st := &p.Steps[i]
		sortTags(st.Dst.Tags)
		sortProps(st.Edge.Props)
		if st.Reverse {
			b.WriteString("<-[:")
		} else {
			b.WriteString("-[:")
		}
		b.WriteString(st.Edge.Type)
		b.WriteByte('@')
		b.WriteString(strconv.FormatInt(st.Edge.Rank, 10))
		b.WriteByte(' ')
		formatProps(&b, st.Edge.Props)
		if st.Reverse {
			b.WriteString("]-")
		} else {
			b.WriteString("]->")
		}
		formatVertex(&b, &st.Dst)
	}
	b.WriteByte('>')
	return Value{kind: KindPath, s: b.String(), g: &p}
}

// VertexVal returns v's vertex and whether v is a VERTEX. Do not modify it.
func (v Value) VertexVal() (*Vertex, bool) {
	x, ok := v.g.(*Vertex)
	return x, ok && v.kind == KindVertex
}

// EdgeVal returns v's edge and whether v is an EDGE. Do not modify it.
func (v Value) EdgeVal() (*Edge, bool) {
	x, ok := v.g.(*Edge)
	return x, ok && v.kind == KindEdge
}

// PathVal returns v's path and whether v is a PATH. Do not modify it.
func (v Value) PathVal() (*Path, bool) {
	x, ok := v.g.(*Path)
	return x, ok && v.kind == KindPath
}

// isGraph reports whether k is a vertex, edge or path kind.
func isGraph(k Kind) bool { return k == KindVertex || k == KindEdge || k == KindPath }

func formatVertex(b *strings.Builder, v *Vertex) {
	b.WriteByte('(')
	v.VID.format(b)
	for _, t := range v.Tags {
		b.WriteString(" :")
		b.WriteString(t.Name)
		formatProps(b, t.Props)
	}
	b.WriteByte(')')
}

func formatProps(b *strings.Builder, props []Prop) { formatMap(b, props) }

func sortProps(props []Prop) {
	sort.SliceStable(props, func(i, j int) bool { return props[i].Name < props[j].Name })
}

// Map returns the tag's properties as a MAP.
func (t TagProps) Map() Value { return Map(t.Props...) }

// Props returns the properties of all the vertex's tags, merged; a name in
// several tags takes its value in the first tag by name.
func (v *Vertex) Props() []Prop {
	var out []Prop
	seen := map[string]bool{}
	for _, t := range v.Tags {
		for _, p := range t.Props {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p)
			}
		}
	}
	sortProps(out)
	return out
}

// PropsMap returns the properties of all the vertex's tags as a MAP (see
// Props), as properties(vertex) gives them.
func (v *Vertex) PropsMap() Value { return Map(v.Props()...) }

// TagNames lists the vertex's tags by name.
func (v *Vertex) TagNames() []string {
	out := make([]string, len(v.Tags))
	for i, t := range v.Tags {
		out[i] = t.Name
	}
	return out
}

// PropsMap returns the edge's properties as a MAP, as properties(edge)
// gives them.
func (e *Edge) PropsMap() Value { return Map(e.Props...) }

// graphAttribute is x.name for a MAP (the key's value), a VERTEX (the
// property of its first tag by name that has it) or an EDGE (a property,
// or one of the key fields _src, _dst, _rank and _type, the type's name),
// NULL when absent; ok is false for other kinds.
func graphAttribute(x Value, name string) (Value, bool) {
	switch x.kind {
	case KindMap:
		v, _ := x.MapGet(name)
		return v, true
	case KindVertex:
		vx, _ := x.VertexVal()
		for _, t := range vx.Tags {
			if v, ok := t.Map().MapGet(name); ok {
				return v, true
			}
		}
		return Value{}, true
	case KindEdge:
		e, _ := x.EdgeVal()
		switch name {
		case "_src":
			return e.Src, true
		case "_dst":
			return e.Dst, true
		case "_rank":
			return Int(e.Rank), true
		case "_type":
			return Str(e.Type), true
		}
		v, _ := e.PropsMap().MapGet(name)
		return v, true
	}
	return Value{}, false
}

func sortTags(tags []TagProps) {
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].Name < tags[j].Name })
	for _, t := range tags {
		sortProps(t.Props)
	}
}

// The graph kinds. They are numbered apart from the scalar kinds so that
// the two lists can grow independently.
const (
	KindVertex Kind = 100 + iota
	KindEdge
	KindPath
)

func graphKindName(k Kind) string {
	switch k {
	case KindVertex:
		return "VERTEX"
	case KindEdge:
		return "EDGE"
	}
	return "PATH"
}
