package exec

import (
	"strings"
	"testing"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

func TestFoldVolatile(t *testing.T) {
	for _, c := range []struct {
		src    string
		random bool
		check  func(out string) bool
		msg    string // error substring, if it must fail
	}{
		{src: "t.x + 1", check: func(out string) bool { return out == "(t.x+1)" }},
		{src: "t.x > now()", check: func(out string) bool { return strings.HasPrefix(out, "(t.x>") && !strings.Contains(out, "now") }},
		{src: "t.d == date()", check: func(out string) bool { return strings.HasPrefix(out, `(t.d==date("`) }},
		{src: "t.x < rand() + 1", random: true, check: func(out string) bool { return strings.HasPrefix(out, "(t.x<(0.") }},
		{src: "t.x < rand32(5)", random: true, check: func(out string) bool { return !strings.Contains(out, "rand") }},
		{src: "t.x < rand()", msg: "LOOKUP: rand() is random per row"},
		{src: "rand32(t.x) > 1", random: true, msg: "rand32(t.x) is not deterministic, so graphd evaluates it once"},
	} {
		out, err := foldVolatile(parseExpr(t, c.src), c.random, "LOOKUP")
		if c.msg != "" {
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: %v, want an error containing %q", c.src, err, c.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if !eval.IsDeterministic(out) || !c.check(out.String()) {
			t.Errorf("%s folded to %s", c.src, out)
		}
		// The folded text is what storaged parses: it must parse.
		parseExpr(t, out.String())
	}
}

func TestLookupHintsOnDates(t *testing.T) {
	p := &lookupPlan{name: "ev", columns: []*metapb.ColumnDef{
		{Name: "d", Type: metapb.PropType_DATE},
		{Name: "at", Type: metapb.PropType_DATETIME},
	}}
	for _, c := range []struct {
		where, field, want string
	}{
		{`ev.d == date("2024-01-02")`, "d", `d==date("2024-01-02")`},
		{`date("2024-01-02") < ev.d`, "d", `d(date("2024-01-02")`},
		{`ev.at >= datetime("2024-01-02T00:00:00") AND ev.at < datetime("2024-02-01")`, "at",
			`at[datetime("2024-01-02T00:00:00.000000")..datetime("2024-02-01T00:00:00.000000"))`},
		{`ev.d > date()`, "d", ``},                  // the clock: filter only
		{`ev.d == "2024-01-02"`, "d", ``},           // a string is not a date
		{`ev.d == datetime("2024-01-02")`, "d", ``}, // nor is a datetime
	} {
		ix := &metapb.IndexDesc{Fields: []*metapb.IndexField{{Name: c.field}}}
		var parts []string
		for _, h := range hintsFor(ix, p.conditions(parseExpr(t, c.where))) {
			s := h.Column
			if h.Eq != nil {
				s += "==" + value.FromProto(h.Eq).String()
			}
			if h.Begin != nil {
				s += map[bool]string{true: "[", false: "("}[h.BeginIncl] + value.FromProto(h.Begin).String()
			}
			if h.End != nil {
				s += ".." + value.FromProto(h.End).String() + map[bool]string{true: "]", false: ")"}[h.EndIncl]
			}
			parts = append(parts, s)
		}
		if got := strings.Join(parts, " "); got != c.want {
			t.Errorf("%s: hints %q, want %q", c.where, got, c.want)
		}
	}
}
