package exec

import (
	"strings"
	"testing"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

func parseExpr(t *testing.T, text string) ast.Expr {
	t.Helper()
	e, err := parser.ParseExpr(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return e
}

var playerColumns = []*metapb.ColumnDef{
	{Name: "name", Type: metapb.PropType_STRING},
	{Name: "age", Type: metapb.PropType_INT64},
	{Name: "score", Type: metapb.PropType_DOUBLE},
	{Name: "code", Type: metapb.PropType_FIXED_STRING, FixedLen: 3},
}

func hintString(t *testing.T, where string, fields ...string) string {
	t.Helper()
	p := &lookupPlan{name: "player", columns: playerColumns}
	ix := &metapb.IndexDesc{}
	for _, f := range fields {
		ix.Fields = append(ix.Fields, &metapb.IndexField{Name: f})
	}
	var parts []string
	for _, h := range hintsFor(ix, p.conditions(parseExpr(t, where))) {
		s := h.Column
		if h.Eq != nil {
			s += "==" + value.FromProto(h.Eq).String()
		}
		if h.Begin != nil {
			if h.BeginIncl {
				s += "[" + value.FromProto(h.Begin).String()
			} else {
				s += "(" + value.FromProto(h.Begin).String()
			}
		}
		if h.End != nil {
			if h.EndIncl {
				s += ".." + value.FromProto(h.End).String() + "]"
			} else {
				s += ".." + value.FromProto(h.End).String() + ")"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestLookupHints(t *testing.T) {
	for _, c := range []struct {
		where  string
		fields []string
		want   string
	}{
		{`player.age == 30`, []string{"age"}, `age==30`},
		{`30 == player.age`, []string{"age"}, `age==30`},
		{`player.age > 30`, []string{"age"}, `age(30`},
		{`30 < player.age AND player.age <= 40`, []string{"age"}, `age(30..40]`},
		{`player.age >= 30 AND player.age > 35 AND player.age < 50 AND player.age < 45`, []string{"age"}, `age(35..45)`},
		// Equalities on a prefix, then one range; later fields unused.
		{`player.name == "a" AND player.age > 3 AND player.score == 1.5`, []string{"name", "age", "score"}, `name=="a" age(3`},
		{`player.age > 3 AND player.name == "a"`, []string{"age", "name"}, `age(3`},
		// A gap in the prefix stops the hints.
		{`player.age == 3`, []string{"name", "age"}, ``},
		// OR, !=, non-literals: filter only.
		{`player.age == 3 OR player.age == 4`, []string{"age"}, ``},
		{`player.age != 3`, []string{"age"}, ``},
		{`player.age == player.score`, []string{"age"}, ``},
		// An int widens to a double; a double does not narrow to an int.
		{`player.score > 2`, []string{"score"}, `score(2.0`},
		{`player.age > 2.5`, []string{"age"}, ``},
		// String bounds are inclusive (prefix indexes); a literal longer
		// than a fixed_string cannot hint.
		{`player.name < "m"`, []string{"name"}, `name.."m"]`},
		{`player.code == "abcd"`, []string{"code"}, ``},
		{`player.age == NULL`, []string{"age"}, ``},
		{`other.age == 3`, []string{"age"}, ``},
	} {
		if got := hintString(t, c.where, c.fields...); got != c.want {
			t.Errorf("%s on %v: hints %q, want %q", c.where, c.fields, got, c.want)
		}
	}
}

func TestLookupFilterNormalised(t *testing.T) {
	p := &lookupPlan{name: "player", columns: playerColumns}
	f, err := p.normaliseFilter(parseExpr(t, `player.age > 3 AND id(vertex) != "x" AND other.age == 1`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.String(), `((($^.player.age>3) AND (id($^)!="x")) AND (other.age==1))`; got != want {
		t.Fatalf("tag filter %s, want %s", got, want)
	}
	p = &lookupPlan{name: "e", isEdge: true, columns: playerColumns}
	f, err = p.normaliseFilter(parseExpr(t, `e.age > 3 AND src(edge) == "a"`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.String(), `((e.age>3) AND (src(EDGE)=="a"))`; got != want {
		t.Fatalf("edge filter %s, want %s", got, want)
	}
}

func TestUpdateNormalise(t *testing.T) {
	tag := &updateTarget{what: `tag "player"`, name: "player", columns: playerColumns}
	edge := &updateTarget{what: `edge "e"`, name: "e", isEdge: true, columns: playerColumns}
	for _, c := range []struct {
		t          *updateTarget
		expr, want string
		err        string
	}{
		{tag, `age + 1`, `($^.player.age+1)`, ""},
		{tag, `player.age + $^.player.score`, `($^.player.age+$^.player.score)`, ""},
		{tag, `id(vertex) == "a" AND age > 1`, `((id($^)=="a") AND ($^.player.age>1))`, ""},
		{tag, `nope + 1`, ``, `no property "nope"`},
		{tag, `team.age`, ``, `"team" is not the updated tag "player"`},
		{tag, `$^.team.age`, ``, `"team" is not the updated tag "player"`},
		{tag, `$$.player.age`, ``, `$$`},
		{tag, `$-.x`, ``, `$-`},
		{tag, `src(edge)`, ``, `EDGE is not available in a vertex update`},
		{edge, `age * 2 + e.score`, `((e.age*2)+e.score)`, ""},
		{edge, `src(edge) == "a" AND rank(edge) == 0 AND e.age > 1`, `(((src(EDGE)=="a") AND (rank(EDGE)==0)) AND (e.age>1))`, ""},
		{edge, `$^.player.age`, ``, `only the edge's properties`},
		{edge, `f.age`, ``, `"f" is not the updated edge "e"`},
	} {
		got, err := c.t.normalise(parseExpr(t, c.expr))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.expr, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s: normalised to %s, want %s", c.expr, got, c.want)
		}
		// The text must read back as the same expression on storaged.
		if back := parseExpr(t, got.String()); back.String() != got.String() {
			t.Errorf("%s: %s reads back as %s", c.expr, got, back)
		}
	}
}
