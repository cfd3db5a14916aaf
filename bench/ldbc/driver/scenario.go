package driver

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/novagraph/novagraph/client"
)

// Schema names the tag, edge type and properties the scenarios read, as
// the importer created them.
type Schema struct {
	Tag  string // the vertex tag (FETCH PROP ON, $$.Tag.prop, INSERT VERTEX)
	Edge string // the edge type GO traverses
	// TagProps are the two tag properties the *_props scenarios and the
	// seed workload's Q1 and Q5 read; with fewer than two they read
	// properties(vertex) / properties($$) instead.
	TagProps []string
	// EdgeProps: the first is what go*_date yields; the seed workload's Q2
	// reads two, or properties(edge) when there are fewer.
	EdgeProps []string
	// NewVertexProps and NewVertexValues make insert_vertex's
	// INSERT VERTEX Tag(NewVertexProps) VALUES $id:(NewVertexValues);
	// NewEdgeProps and NewEdgeValues insert_edge's
	// INSERT EDGE Edge(NewEdgeProps) VALUES $src->$dst:(NewEdgeValues).
	// The values may read $id and $ts (a creation date, epoch ms).
	NewVertexProps  []string
	NewVertexValues string
	NewEdgeProps    []string
	NewEdgeValues   string
}

// LDBCSchema is what the importer creates for LDBC data:
//
//	TAG Person(firstName string, lastName string, gender string, birthday int,
//	           creationDate int, locationIP string, browserUsed string,
//	           language string, email string)
//	EDGE knows(creationDate int)   -- every friendship in both directions
func LDBCSchema() Schema {
	return Schema{
		Tag: "Person", Edge: "knows",
		TagProps:  []string{"firstName", "lastName"},
		EdgeProps: []string{"creationDate"},
		NewVertexProps: []string{"firstName", "lastName", "gender", "birthday", "creationDate",
			"locationIP", "browserUsed", "language", "email"},
		NewVertexValues: `"Bench", "Driver", "female", 628646400000, $ts, "127.0.0.1", "Firefox", "en", "bench@example.com"`,
		NewEdgeProps:    []string{"creationDate"},
		NewEdgeValues:   "$ts",
	}
}

// SNAPSchema is what the importer creates for a SNAP graph: TAG node() and
// EDGE edge() (link by default), no properties.
func SNAPSchema(tag, edge string) Schema {
	if tag == "" {
		tag = "node"
	}
	if edge == "" {
		edge = "link"
	}
	return Schema{Tag: tag, Edge: edge}
}

// InputKind is what one execution of a scenario reads.
type InputKind int

const (
	InputNone      InputKind = iota // nothing: the statement is constant (Q7, Q8)
	InputVertex                     // $id: a start vertex drawn by the Sampler
	InputEdge                       // $src, $dst: an existing edge, drawn uniformly
	InputNewVertex                  // $id, $ts: a fresh vertex id above every existing one
	InputNewEdge                    // $src, $dst, $ts: an edge between two fresh ids
)

// Scenario is one statement the driver runs over and over.
type Scenario struct {
	Name string
	// Template is a text/template over Schema (see the funcs in
	// templateFuncs) that yields an nGQL statement reading its inputs as
	// $id, $src, $dst and $ts.
	Template string
	Input    InputKind
	// Literal: nGQL cannot take this statement's inputs as query
	// parameters (FETCH PROP ON edges rejects $a->$b keys), so they are
	// spliced into the text as literals.
	Literal bool
	// Steps is the number of GO steps of a plain k-hop scenario, which the
	// floor can run too; 0 otherwise.
	Steps int
	// Setup, if set, prepares the space before the scenario runs (the
	// indexes the seed workload's counts scan).
	Setup func(ctx context.Context, s *client.Session, schema Schema) error
	Doc   string
}

// Scenarios is the nebula-bench-like workload of `nova-bench run` on the
// LDBC schema: k-hop GO yielding ids (go.step1/2/3 in nebula-bench), an
// edge property or destination properties, point FETCHes, and INSERTs.
// Adding a scenario is one line.
var Scenarios = []Scenario{
	{Name: "go1", Steps: 1, Input: InputVertex, Template: `GO 1 STEP FROM $id OVER {{.Edge}} YIELD dst(edge)`, Doc: "1-hop neighbour ids (nebula-bench go.step1)"},
	{Name: "go2", Steps: 2, Input: InputVertex, Template: `GO 2 STEPS FROM $id OVER {{.Edge}} YIELD dst(edge)`, Doc: "2-hop: one row per edge of the second step (nebula-bench go.step2)"},
	{Name: "go3", Steps: 3, Input: InputVertex, Template: `GO 3 STEPS FROM $id OVER {{.Edge}} YIELD dst(edge)`, Doc: "3-hop: one row per edge of the third step (nebula-bench go.step3)"},
	{Name: "go1_date", Input: InputVertex, Template: `GO 1 STEP FROM $id OVER {{.Edge}} YIELD {{eprop}}`, Doc: "1-hop, yielding an edge property (the row is read)"},
	{Name: "go2_date", Input: InputVertex, Template: `GO 2 STEPS FROM $id OVER {{.Edge}} YIELD {{eprop}}`, Doc: "2-hop, yielding an edge property of the last step"},
	{Name: "go3_date", Input: InputVertex, Template: `GO 3 STEPS FROM $id OVER {{.Edge}} YIELD {{eprop}}`, Doc: "3-hop, yielding an edge property of the last step"},
	{Name: "go1_props", Input: InputVertex, Template: `GO 1 STEP FROM $id OVER {{.Edge}} YIELD {{dstprops}}`, Doc: "1-hop, yielding two properties of each destination vertex ($$)"},
	{Name: "go2_props", Input: InputVertex, Template: `GO 2 STEPS FROM $id OVER {{.Edge}} YIELD {{dstprops}}`, Doc: "2-hop, yielding two properties of each destination vertex"},
	{Name: "go3_props", Input: InputVertex, Template: `GO 3 STEPS FROM $id OVER {{.Edge}} YIELD {{dstprops}}`, Doc: "3-hop, yielding two properties of each destination vertex"},
	{Name: "yield", Input: InputVertex, Template: `YIELD $id`, Doc: "no storage read: one client-to-graphd round trip, the floor under every statement's latency"},
	{Name: "fetch_vertex", Input: InputVertex, Template: `FETCH PROP ON {{.Tag}} $id YIELD properties(vertex)`, Doc: "one vertex's properties"},
	{Name: "fetch_edge", Input: InputEdge, Literal: true, Template: `FETCH PROP ON {{.Edge}} $src->$dst YIELD properties(edge)`, Doc: "one existing edge's properties (keys spliced as literals: edge keys cannot be parameters)"},
	{Name: "insert_vertex", Input: InputNewVertex, Template: `INSERT VERTEX {{.Tag}}({{join .NewVertexProps}}) VALUES $id:({{.NewVertexValues}})`, Doc: "one new vertex with every property"},
	{Name: "insert_edge", Input: InputNewEdge, Template: `INSERT EDGE {{.Edge}}({{join .NewEdgeProps}}) VALUES $src->$dst:({{.NewEdgeValues}})`, Doc: "one new edge between two fresh ids (the benchmarked graph is left as it is)"},
}

// ScenarioNames lists the names of a table.
func ScenarioNames(table []Scenario) []string {
	names := make([]string, len(table))
	for i, s := range table {
		names[i] = s.Name
	}
	return names
}

// FindScenarios returns the scenarios of table named in names (all of
// them for an empty list), in the order given. An unknown name is an error
// that lists the valid ones.
func FindScenarios(table []Scenario, names []string) ([]Scenario, error) {
	if len(names) == 0 {
		return slices.Clone(table), nil
	}
	var out []Scenario
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := slices.IndexFunc(table, func(s Scenario) bool { return strings.EqualFold(s.Name, n) })
		if i < 0 {
			return nil, fmt.Errorf("unknown scenario %q (valid: %s)", n, strings.Join(ScenarioNames(table), ", "))
		}
		out = append(out, table[i])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenario given (valid: %s)", strings.Join(ScenarioNames(table), ", "))
	}
	return out, nil
}

// templateFuncs are the helpers scenario templates call. They fail, with
// a message naming what is missing, when the schema lacks a property the
// scenario cannot do without.
func templateFuncs(s Schema) template.FuncMap {
	qual := func(owner string, props []string) string {
		out := make([]string, len(props))
		for i, p := range props {
			out[i] = owner + "." + p
		}
		return strings.Join(out, ", ")
	}
	return template.FuncMap{
		"join": func(xs []string) string { return strings.Join(xs, ", ") },
		// eprop: the first edge property, Edge.prop.
		"eprop": func() (string, error) {
			if len(s.EdgeProps) == 0 {
				return "", fmt.Errorf("needs an edge property, and the schema's edge %s has none", s.Edge)
			}
			return s.Edge + "." + s.EdgeProps[0], nil
		},
		// eprops2: two edge properties, or properties(edge).
		"eprops2": func() string {
			if len(s.EdgeProps) < 2 {
				return "properties(edge)"
			}
			return qual(s.Edge, s.EdgeProps[:2])
		},
		// vprops2: two properties of the fetched vertex, or properties(vertex).
		"vprops2": func() string {
			if len(s.TagProps) < 2 {
				return "properties(vertex)"
			}
			return qual(s.Tag, s.TagProps[:2])
		},
		// dstprops: two properties of the destination, or properties($$).
		"dstprops": func() string {
			if len(s.TagProps) < 2 {
				return "properties($$)"
			}
			return qual("$$."+s.Tag, s.TagProps[:2])
		},
	}
}

// Prepared is a scenario rendered for a schema: the statement with its
// inputs still as $names.
type Prepared struct {
	Scenario Scenario
	Stmt     string
	// Params are the inputs the statement reads, in order of appearance.
	Params []string
	// Literal splices the inputs into the text instead of sending them as
	// query parameters.
	Literal bool
	// segments and names split Stmt for literal binding:
	// segments[0] names[0] segments[1] names[1] ... segments[n].
	segments []string
	names    []string
}

// inputRef matches $name; $$, $^ and $- (and $var.col, whose name is not
// an input) are left alone.
var inputRef = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)

// inputNames are the $names a statement may read.
var inputNames = map[string]bool{"id": true, "src": true, "dst": true, "ts": true}

// Prepare renders sc's template for schema. literal forces the inputs into
// the text even where parameters would do (to measure parsing and planning
// of distinct texts, as clients that do not use parameters cause).
func Prepare(sc Scenario, schema Schema, literal bool) (Prepared, error) {
	t, err := template.New(sc.Name).Funcs(templateFuncs(schema)).Option("missingkey=error").Parse(sc.Template)
	if err != nil {
		return Prepared{}, fmt.Errorf("scenario %s: template: %w", sc.Name, err)
	}
	var b strings.Builder
	if err := t.Execute(&b, schema); err != nil {
		return Prepared{}, fmt.Errorf("scenario %s: %w", sc.Name, unwrapExecError(err))
	}
	p := Prepared{Scenario: sc, Stmt: b.String(), Literal: literal || sc.Literal}
	last := 0
	for _, m := range inputRef.FindAllStringSubmatchIndex(p.Stmt, -1) {
		name := p.Stmt[m[2]:m[3]]
		if m[1] < len(p.Stmt) && p.Stmt[m[1]] == '.' || !inputNames[name] {
			continue // $var.col, or not an input
		}
		p.segments = append(p.segments, p.Stmt[last:m[0]])
		p.names = append(p.names, name)
		last = m[1]
		if !slices.Contains(p.Params, name) {
			p.Params = append(p.Params, name)
		}
	}
	p.segments = append(p.segments, p.Stmt[last:])
	return p, nil
}

// unwrapExecError strips text/template's "template: name:1:23: executing
// ... at <eprop>: error calling eprop:" prefix down to the func's message.
func unwrapExecError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "error calling "); i >= 0 {
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			return fmt.Errorf("%s", msg[i+j+2:])
		}
	}
	return err
}

// value returns the value of input name for in.
func (in Input) value(name string) int64 {
	switch name {
	case "id":
		return in.ID
	case "src":
		return in.Src
	case "dst":
		return in.Dst
	case "ts":
		return in.TS
	}
	return 0
}

// Bind returns the statement for one input: with its inputs as query
// parameters, or spliced in as integer literals (params is then nil).
func (p *Prepared) Bind(in Input) (stmt string, params map[string]any) {
	if len(p.Params) == 0 {
		return p.Stmt, nil
	}
	if !p.Literal {
		params = make(map[string]any, len(p.Params))
		for _, n := range p.Params {
			params[n] = in.value(n)
		}
		return p.Stmt, params
	}
	var b strings.Builder
	b.Grow(len(p.Stmt) + 8*len(p.names))
	var num [24]byte
	for i, n := range p.names {
		b.WriteString(p.segments[i])
		b.Write(strconv.AppendInt(num[:0], in.value(n), 10))
	}
	b.WriteString(p.segments[len(p.segments)-1])
	return b.String(), nil
}
