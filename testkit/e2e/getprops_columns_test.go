package e2e

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

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
	_, _, snap := storageClients(t, c, "gpc", "e")
	space, _ := snap.SpaceByName("gpc")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := rawConn(t, c.Stores[0].Server.Addr())
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

// rawConn dials a daemon's gRPC port for a test that sends requests as a
// peer would, below the clients; it closes with the test.
func rawConn(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
