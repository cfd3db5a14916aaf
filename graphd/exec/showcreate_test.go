package exec_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/testkit/memgraph"
)

// TestShowCreateParsesBack: what SHOW CREATE prints creates the same
// object again: the statement run in another space shows the same text.
func TestShowCreateParsesBack(t *testing.T) {
	g := memgraph.New(memgraph.Options{})
	x := exec.New(g.Meta(), g.Storage(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	sess := &exec.SessionState{User: "root"}
	run := func(stmt string) *graphpb.DataSet {
		t.Helper()
		ds, err := x.Execute(context.Background(), sess, stmt)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		return ds
	}
	text := func(ds *graphpb.DataSet) string {
		t.Helper()
		if len(ds.GetRows()) != 1 || len(ds.GetRows()[0].GetValues()) != 2 {
			t.Fatalf("SHOW CREATE answered %v", ds)
		}
		s, _ := value.FromProto(ds.GetRows()[0].GetValues()[1]).StrVal()
		return s
	}
	run(`CREATE SPACE a(partition_num=3, replica_factor=1, vid_type=FIXED_STRING(12))`)
	spaceText := text(run(`SHOW CREATE SPACE a`))
	if want := "CREATE SPACE a (partition_num = 3, replica_factor = 1, vid_type = FIXED_STRING(12))"; spaceText != want {
		t.Fatalf("SHOW CREATE SPACE a = %q, want %q", spaceText, want)
	}
	run(`USE a`)
	run(`CREATE TAG player(name string NOT NULL DEFAULT "x" COMMENT "the name", age int8 NULL, ts timestamp DEFAULT now(), ` + "`from`" + ` fixed_string(4)) TTL_DURATION = 100, TTL_COL = "ts", COMMENT = "a player's tag"`)
	run(`CREATE EDGE follow(degree double NOT NULL)`)
	run(`CREATE TAG INDEX player_name ON player(name(10), age)`)
	tagText := text(run(`SHOW CREATE TAG player`))
	edgeText := text(run(`SHOW CREATE EDGE follow`))
	indexText := text(run(`SHOW CREATE TAG INDEX player_name`))
	for _, want := range []string{"`from` fixed_string(4)", "age int8 NULL", `name string NOT NULL DEFAULT "x" COMMENT "the name"`, `TTL_COL = "ts"`, `COMMENT = "a player's tag"`} {
		if !strings.Contains(tagText, want) {
			t.Errorf("SHOW CREATE TAG player = %q, missing %q", tagText, want)
		}
	}
	run(strings.Replace(spaceText, "SPACE a", "SPACE b", 1))
	run(`USE b`)
	run(tagText)
	run(edgeText)
	run(indexText)
	for stmt, want := range map[string]string{
		`SHOW CREATE TAG player`:            tagText,
		`SHOW CREATE EDGE follow`:           edgeText,
		`SHOW CREATE TAG INDEX player_name`: indexText,
	} {
		if got := text(run(stmt)); got != want {
			t.Errorf("in the copy, %s = %q\nwant %q", stmt, got, want)
		}
	}
}
