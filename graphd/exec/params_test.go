package exec

import (
	"math"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

func TestBindParams(t *testing.T) {
	params := map[string]value.Value{
		"min": value.Int(90), "name": value.Str(`a "b"`), "ids": value.List(value.Str("x"), value.Null()),
		"nan": value.Float(math.NaN()), "list": value.List(value.Float(math.Inf(1))), "f": value.Float(0.5),
	}
	for _, tc := range []struct {
		src, want string
		ok        bool
	}{
		{"e.w > $min AND $$.t.n == $name", `((e.w>90) AND ($$.t.n=="a \"b\""))`, true},
		{"$-.id IN $ids", `($-.id IN ["x",NULL])`, true},
		{"e.w * $f", `(e.w*0.5)`, true},
		{"e.w > $nan", "", false},
		{"e.w IN $list", "", false},
		{"e.w > 1", "(e.w>1)", true},
	} {
		e, err := parser.ParseExpr(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := bindParams(params, e)
		if err != nil || ok != tc.ok || (ok && got.String() != tc.want) {
			t.Errorf("bindParams(%s) = %v, %v, %v; want %s, %v", tc.src, got, ok, err, tc.want, tc.ok)
		}
		if ok {
			// What storaged reads back is what graphd meant.
			back, err := parser.ParseExpr(got.String())
			if err != nil || back.String() != got.String() {
				t.Errorf("%s does not read back: %v", got, err)
			}
		}
		if e.String() != parseExpr(t, tc.src).String() {
			t.Errorf("bindParams modified its input %s", tc.src)
		}
	}

	e, _ := parser.ParseExpr("e.w > $missing")
	if _, _, err := bindParams(params, e); err == nil || !strings.Contains(err.Error(), "query parameter $missing is not set") {
		t.Errorf("unset parameter: %v", err)
	}
	e, _ = parser.ParseExpr("e.w > $nan")
	if _, err := mustBindParams(params, e, "LOOKUP"); err == nil || !strings.Contains(err.Error(), "LOOKUP: query parameter $nan holds nan, which has no literal to send to storage") {
		t.Errorf("mustBindParams with NaN: %v", err)
	}
}

func TestParamVids(t *testing.T) {
	params := map[string]value.Value{"one": value.Str("a"), "many": value.List(value.Int(1), value.Null(), value.Int(2))}
	for name, want := range map[string]int{"one": 1, "many": 2} {
		vids, err := paramVids(params, &ast.ParamExpr{Name: name})
		if err != nil || len(vids) != want {
			t.Errorf("$%s: %v, %v; want %d vids", name, vids, err, want)
		}
	}
	if _, err := paramVids(params, &ast.ParamExpr{Name: "none"}); err == nil || !strings.Contains(err.Error(), "query parameter $none is not set") {
		t.Errorf("unset: %v", err)
	}
}
