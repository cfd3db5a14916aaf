package parser

import (
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestTemporalPropTypes: the calendar types parse in CREATE and ALTER, print
// as DESCRIBE names them, and their names stay usable as functions and
// property names.
func TestTemporalPropTypes(t *testing.T) {
	for src, want := range map[string]string{
		`CREATE TAG t(d date, t time, dt datetime, du duration)`:    `CREATE TAG t(d date, t time, dt datetime, du duration)`,
		`CREATE EDGE e(d DATE NOT NULL DEFAULT date("2024-01-02"))`: `CREATE EDGE e(d date NOT NULL DEFAULT date("2024-01-02"))`,
		`ALTER TAG t ADD (at DateTime), CHANGE (d Duration)`:        `ALTER TAG t ADD (at datetime), CHANGE (d duration)`,
		`CREATE TAG date(time time, date date)`:                     `CREATE TAG date(time time, date date)`,
	} {
		if got := parseOne(t, src).String(); got != want {
			t.Errorf("%s\n got %s\nwant %s", src, got, want)
		}
	}
	c := parseOne(t, `CREATE TAG t(a date, b time, c datetime, d duration)`).(*ast.CreateSchemaStmt)
	for i, k := range []ast.PropKind{ast.PropDate, ast.PropTime, ast.PropDateTime, ast.PropDuration} {
		if c.Props[i].Type.Kind != k {
			t.Errorf("prop %d: kind %v, want %v", i, c.Props[i].Type.Kind, k)
		}
	}
	for _, src := range []string{
		`YIELD date("2024-01-02").year, time().hour, datetime(), duration("P1D"), timestamp()`,
		`GO FROM "a" OVER e WHERE e.d > date("2024-01-01") YIELD e.d.month`,
		`INSERT VERTEX t(d) VALUES "a":(date("2024-01-02"))`,
	} {
		if _, err := Parse(src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, err := Parse(`CREATE TAG t(a timestamptz)`); err == nil || !strings.Contains(err.Error(), "date, time, datetime or duration") {
		t.Errorf("unknown type: %v", err)
	}
}
