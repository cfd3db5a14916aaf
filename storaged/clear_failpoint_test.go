//go:build failpoints

package storaged_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/novagraph/novagraph/internal/failpoint"
	metaclient "github.com/novagraph/novagraph/metad/client"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestFailpointClearWaitsForEdgeHalves: CLEAR SPACE first has every
// partition carry out its pending edge intents. While in-edges cannot be
// mirrored (the failpoint fails every resolver pass), the clear does not
// go ahead, so no in-edge can land later in a partition already cleared;
// once they can, it clears both halves.
func TestFailpointClearWaitsForEdgeHalves(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Stores: 1, MirrorWait: 100 * time.Millisecond})
	s := c.Session()
	defer s.Close()
	mustExec(t, s, "CREATE SPACE cl(partition_num=4, replica_factor=1, vid_type=INT64)")
	mustExec(t, s, "USE cl")
	mustExec(t, s, "CREATE EDGE e(w int)")
	off, err := failpoint.Enable("storaged/beforeMirror", `return("paused")`)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	mustExec(t, s, "INSERT EDGE e(w) VALUES 1->2:(1), 2->3:(2), 3->4:(3)")

	quiet := slog.New(slog.DiscardHandler)
	meta := metaclient.New(c.MetaAddrs(), quiet)
	defer meta.Close()
	sc := storageclient.New(meta, quiet)
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	space, _ := meta.Catalog().SpaceByName("cl")
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	err = sc.ClearSpace(short, space.GetSpaceId())
	cancelShort()
	if err == nil {
		t.Fatal("ClearSpace went ahead while edge halves were pending")
	}
	t.Logf("refused while halves pend: %v", err)
	if got := mustExec(t, s, "GO FROM 1, 2, 3 OVER e YIELD dst(edge)"); len(got) != 3 {
		t.Fatalf("the refused clear deleted data: %q", got)
	}
	off()
	if err := sc.ClearSpace(ctx, space.GetSpaceId()); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{"GO FROM 1, 2, 3, 4 OVER e YIELD dst(edge)", "GO FROM 1, 2, 3, 4 OVER e REVERSELY YIELD src(edge)"} {
		if got := mustExec(t, s, stmt); len(got) != 0 {
			t.Fatalf("%s after CLEAR: %q", stmt, got)
		}
	}
}
