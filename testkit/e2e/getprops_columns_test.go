package e2e

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestGetPropsColumnsRefusesEdges: a client asking storaged for edge
// properties in columns (GetPropsReq.columns answers vertices only) gets
// each partition refused with E_INVALID_ARGUMENT and a message saying
// why, not an answer with the edges left out.
func TestGetPropsColumnsRefusesEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE gpc(partition_num=2, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE gpc`)
	exec(t, s, `CREATE EDGE e(w int)`)
	exec(t, s, `INSERT EDGE e(w) VALUES 1->2:(7)`)
	meta := metaclient.New(c.MetaAddrs(), slog.New(slog.DiscardHandler))
	defer meta.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	space, ok := meta.Catalog().SpaceByName("gpc")
	if !ok {
		t.Fatal("no space gpc")
	}
	conn, err := grpc.NewClient(c.Stores[0].Server.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := storagepb.NewStorageServiceClient(conn).GetProps(ctx, &storagepb.GetPropsReq{
		SpaceId: space.GetSpaceId(), Columns: true,
		EdgeParts: map[int32]*storagepb.EdgeKeyList{1: {Keys: []*storagepb.EdgeKey{{Src: []byte{0, 0, 0, 0, 0, 0, 0, 1}, EdgeType: 1, Dst: []byte{0, 0, 0, 0, 0, 0, 0, 2}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.FailedParts) != 1 || resp.FailedParts[0].Code != commonpb.ErrorCode_E_INVALID_ARGUMENT || len(resp.Rows)+len(resp.Blocks) != 0 {
		t.Fatalf("got %v, want partition 1 refused with E_INVALID_ARGUMENT and nothing answered", resp)
	}
	t.Logf("refused: %s", resp.FailedParts[0].GetMessage())
}
