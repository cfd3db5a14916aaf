package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/novagraph/novagraph/metad/catalog"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestScanPartitionsWithCursor pages through every partition's vertices
// and out-edges with small pages and checks that the pages together hold
// each vertex (with the properties of all its tags) and each edge exactly
// once.
func TestScanPartitionsWithCursor(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE scan(partition_num=3, replica_factor=1, vid_type=INT64)")
	exec(t, s, "USE scan")
	exec(t, s, "CREATE TAG a(x int)")
	exec(t, s, "CREATE TAG b(y string)")
	exec(t, s, "CREATE EDGE e(w int)")
	var wantV, wantE []string
	for i := int64(0); i < 20; i++ {
		exec(t, s, fmt.Sprintf("INSERT VERTEX a(x) VALUES %d:(%d)", i, i*10))
		y := "NULL"
		if i%3 == 0 {
			exec(t, s, fmt.Sprintf(`INSERT VERTEX b(y) VALUES %d:("y%d")`, i, i))
			y = fmt.Sprintf("y%d", i)
		}
		wantV = append(wantV, fmt.Sprintf("%d|%d|%s", i, i*10, y))
		exec(t, s, fmt.Sprintf("INSERT EDGE e(w) VALUES %d->%d:(%d)", i, (i*7)%20, i))
		wantE = append(wantE, fmt.Sprintf("%d|%d|%d", i, (i*7)%20, i))
	}

	_, sc, snap := storageClients(t, c, "scan", "e")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	space, _ := snap.SpaceByName("scan")
	sid := space.GetSpaceId()
	ta, _ := snap.TagByName(sid, "a")
	tb, _ := snap.TagByName(sid, "b")
	e, _ := snap.EdgeByName(sid, "e")

	scanAll := func(edges bool, props []*storagepb.PropRef) (rows []*storagepb.PropRow, pages int) {
		for part := int32(1); part <= space.GetPartitionNum(); part++ {
			var cursor []byte
			for {
				req := &storagepb.ScanReq{SpaceId: sid, CatalogVersion: snap.Version(), PartId: part, Cursor: cursor, Limit: 2, Props: props}
				var resp *storagepb.ScanResp
				var err error
				if edges {
					resp, err = sc.ScanEdge(ctx, req)
				} else {
					resp, err = sc.ScanVertex(ctx, req)
				}
				if err != nil {
					t.Fatalf("scan part %d: %v", part, err)
				}
				if len(resp.Rows) > 2 {
					t.Fatalf("page of %d rows, limit 2", len(resp.Rows))
				}
				pages++
				rows = append(rows, resp.Rows...)
				if len(resp.NextCursor) == 0 {
					break
				}
				cursor = resp.NextCursor
			}
		}
		return rows, pages
	}
	vrows, pages := scanAll(false, []*storagepb.PropRef{{SchemaId: ta.GetTagId(), Name: "x"}, {SchemaId: tb.GetTagId(), Name: "y"}})
	var gotV []string
	for _, r := range vrows {
		id, err := partition.DecodeInt64Vid(r.Vid)
		if err != nil {
			t.Fatal(err)
		}
		y := "NULL"
		if sv := r.Values[1].GetStrVal(); sv != nil {
			y = string(sv)
		}
		gotV = append(gotV, fmt.Sprintf("%d|%d|%s", id, r.Values[0].GetIntVal(), y))
	}
	slices.Sort(gotV)
	slices.Sort(wantV)
	if !slices.Equal(gotV, wantV) {
		t.Fatalf("ScanVertex:\ngot  %q\nwant %q", gotV, wantV)
	}
	if pages < 10 {
		t.Fatalf("only %d pages for 20 vertices with limit 2: the cursor was not used", pages)
	}
	erows, _ := scanAll(true, []*storagepb.PropRef{{SchemaId: e.GetEdgeType(), Name: "w"}})
	var gotE []string
	for _, r := range erows {
		src, _ := partition.DecodeInt64Vid(r.Edge.Src)
		dst, _ := partition.DecodeInt64Vid(r.Edge.Dst)
		gotE = append(gotE, fmt.Sprintf("%d|%d|%d", src, dst, r.Values[0].GetIntVal()))
	}
	slices.Sort(gotE)
	slices.Sort(wantE)
	if !slices.Equal(gotE, wantE) {
		t.Fatalf("ScanEdge (out-edges only, each once):\ngot  %q\nwant %q", gotE, wantE)
	}
}

// storageClients connects a catalog cache and a storage client to the
// cluster and waits until the catalog shows the space and its edge type
// (created through a graphd session).
func storageClients(t testing.TB, c *testcluster.Cluster, spaceName, edge string) (*metaclient.Client, *storageclient.Client, *catalog.Snapshot) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	mc := metaclient.New([]string{c.MetaAddr()}, log)
	t.Cleanup(mc.Close)
	sc := storageclient.New(mc, log)
	t.Cleanup(sc.Close)
	deadline := time.After(time.Minute)
	for {
		snap := mc.Catalog()
		if sp, ok := snap.SpaceByName(spaceName); ok {
			if _, ok := snap.EdgeByName(sp.GetSpaceId(), edge); ok {
				return mc, sc, snap
			}
		}
		select {
		case <-deadline:
			t.Fatalf("catalog never showed space %q with edge %q", spaceName, edge)
		case <-snap.Changed():
		}
	}
}
