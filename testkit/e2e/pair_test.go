package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestLargeWriteMirrorsEveryInEdge writes more edges in one statement, from
// one source to one other partition, than the resolver carries in one
// request: they become one intent (storaged writes one per entry and
// target partition), which the resolver must mirror in several requests
// without losing or reordering any. Every in-edge must arrive, with its
// row, and the degrees must match.
func TestLargeWriteMirrorsEveryInEdge(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE bigpair(partition_num=2, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE bigpair`)
	exec(t, s, `CREATE EDGE e(w int)`)
	const n = 9000 // more than twice the resolver's batch of 4096
	var b strings.Builder
	b.WriteString("INSERT EDGE e(w) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		// Source 2 is in partition 1, every odd destination in partition 2.
		fmt.Fprintf(&b, "2->%d:(%d)", 2*i+1, i)
	}
	exec(t, s, b.String())

	want := fmt.Sprint(n)
	// Each destination has one in-edge, from 2: grouped by source, one
	// row with all of them and the sum of their rows' w.
	reverse := `GO FROM 2 OVER e YIELD dst(edge) AS d | GO FROM $-.d OVER e REVERSELY YIELD src(edge) AS s, e.w AS w | GROUP BY $-.s YIELD $-.s, count(*), sum($-.w)`
	wantRow := fmt.Sprintf("2|%s|%d", want, n*(n-1)/2)
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := rows(t, s, reverse)
		if len(got) == 1 && got[0] == wantRow {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in-edges seen from the destinations: %q, want %q (count, sum of w)", got, wantRow)
		}
		time.Sleep(200 * time.Millisecond)
	}
	expectRows(t, s, `GO FROM 2 OVER e YIELD dst(edge) | YIELD count(*)`, want)
}
