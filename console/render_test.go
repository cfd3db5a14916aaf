package console

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/client"
	ct "github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// players is a result with every value type, and strings that need
// quoting in both formats.
func players() *graphpb.ExecuteResp {
	return ct.Result(1200, []string{"name", "age", "score", "active", "tags", "coach"},
		ct.Row(ct.Str("Tim Duncan"), ct.Int(42), ct.Float(19.0), ct.Bool(true), ct.List(ct.Str("sa"), ct.Int(5)), ct.Null()),
		ct.Row(ct.Str(`Shaq "O'Neal", big`), ct.Int(7), ct.Float(0.25), ct.Bool(false), ct.List(), ct.Str("Phil")),
	)
}

func TestRenderTable(t *testing.T) {
	var out strings.Builder
	if err := renderResult(&out, &out, resultOf(t, players()), formatTable, 1500); err != nil {
		t.Fatal(err)
	}
	want := `+------------------------+-----+-------+--------+-----------+----------+
| name                   | age | score | active | tags      | coach    |
+------------------------+-----+-------+--------+-----------+----------+
| "Tim Duncan"           | 42  | 19.0  | true   | ["sa", 5] | __NULL__ |
| "Shaq \"O'Neal\", big" | 7   | 0.25  | false  | []        | "Phil"   |
+------------------------+-----+-------+--------+-----------+----------+
Got 2 rows (time spent 1200/1500 us)

`
	if got := out.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderCSV(t *testing.T) {
	var out strings.Builder
	if err := renderResult(&out, &out, resultOf(t, players()), formatCSV, 1500); err != nil {
		t.Fatal(err)
	}
	want := `name,age,score,active,tags,coach
Tim Duncan,42,19.0,true,"[""sa"", 5]",__NULL__
"Shaq ""O'Neal"", big",7,0.25,false,[],Phil
Got 2 rows (time spent 1200/1500 us)

`
	if got := out.String(); got != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderEmptyAndDataless(t *testing.T) {
	var out strings.Builder
	if err := renderResult(&out, &out, resultOf(t, ct.Result(30, []string{"name"})), formatTable, 80); err != nil {
		t.Fatal(err)
	}
	if err := renderResult(&out, &out, resultOf(t, ct.Done(40)), formatTable, 90); err != nil {
		t.Fatal(err)
	}
	want := `+------+
| name |
+------+
+------+
Got 0 rows (time spent 30/80 us)

Execution succeeded (time spent 40/90 us)

`
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestFormatError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&client.QueryError{Code: graphpb.QueryErrorCode_E_SYNTAX, Msg: "syntax error near `SHOW`"},
			"[ERROR (E_SYNTAX)]: syntax error near `SHOW`"},
		{&client.TransportError{Addr: "h:1", Op: "execute", Err: status.Error(codes.Unavailable, "down")},
			"[ERROR (Unavailable)]: graphd h:1: execute: rpc error: code = Unavailable desc = down"},
		{errors.New("odd"), "[ERROR (Unknown)]: odd"},
	} {
		if got := formatError(tc.err); got != tc.want {
			t.Errorf("formatError(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
