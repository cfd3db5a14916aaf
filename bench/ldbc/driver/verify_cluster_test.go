package driver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestVerifyOnCluster loads a slice of LDBC SF0.1 as the importer stores it
// (every knows row both ways), verifies it against the files' rows (every
// vertex sampled, totals on), then damages the space — one direction of a
// friendship deleted, a last name changed — and checks that Verify names
// exactly those differences.
func TestVerifyOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	dir, persons, all := readClusterSlice(t)
	in := map[int64]bool{}
	for _, p := range persons {
		in[p.ID] = true
	}
	var knows []driver.Knows
	for _, k := range all {
		if in[k.Src] && in[k.Dst] {
			knows = append(knows, k)
		}
	}
	x := driver.ExpectLDBCRows(dir, persons, knows)

	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, fmt.Sprintf("CREATE SPACE ldbc(partition_num=%d, replica_factor=1, vid_type=INT64)", clusterParts))
	exec(t, s, "USE ldbc")
	exec(t, s, "CREATE TAG Person(firstName string, lastName string, gender string, birthday int, creationDate int, locationIP string, browserUsed string, language string, email string)")
	exec(t, s, "CREATE EDGE knows(creationDate int)")
	loadSlice(t, s, persons, knows)

	ctx := context.Background()
	q := driver.SessionQuerier{Session: s}
	opts := driver.VerifyOptions{Sample: len(x.Vertices), Seed: 1, Batch: 30, Counts: true, CountBatch: 70}
	res, err := driver.Verify(ctx, q, x, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || res.OutEdges != x.OutEdges() || res.InEdges != x.OutEdges() || res.TagRows != int64(len(persons)) {
		t.Fatalf("intact space: %s\n%v", res.Summary("ldbc"), res.Mismatches)
	}
	t.Log(res.Summary("ldbc"))

	// Damage it.
	k := knows[len(knows)/2]
	p := persons[7]
	exec(t, s, fmt.Sprintf("DELETE EDGE knows %d->%d", k.Src, k.Dst))
	exec(t, s, fmt.Sprintf(`UPDATE VERTEX ON Person %d SET lastName = "Changed"`, p.ID))
	res, err = driver.Verify(ctx, q, x, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Mismatches {
		got = append(got, m.String())
	}
	slices.Sort(got)
	n := x.OutEdges()
	want := []string{
		fmt.Sprintf("count: in-edges: want %d (files), got %d (space)", n, n-1),
		fmt.Sprintf("count: out-edges: want %d (files), got %d (space)", n, n-1),
		fmt.Sprintf("vertex %d: out-edges: want %d, got %d rows: missing 1 [%d(%d)]", k.Src, len(x.Out(k.Src)), len(x.Out(k.Src))-1, k.Dst, k.CreationDate),
		fmt.Sprintf("vertex %d: in-edges: want %d, got %d rows: missing 1 [%d(%d)]", k.Dst, len(x.In(k.Dst)), len(x.In(k.Dst))-1, k.Src, k.CreationDate),
		fmt.Sprintf("vertex %d: vertex: lastName: want %q, got \"Changed\"", p.ID, p.LastName),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
