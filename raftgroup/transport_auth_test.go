package raftgroup

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/raftmsgpb"
)

// TestSendRefusesForgedBatches: the raft server ends a stream whose batch
// carries a message from another replica than the sending store, or for
// another store, with or without TLS, and one its PeerCheck refuses; the
// refusal reaches the sender as PermissionDenied naming the cause. Every
// case is refused before the engine sees a message (none is attached).
func TestSendRefusesForgedBatches(t *testing.T) {
	const me, sender = 1, 2
	var mu sync.Mutex // the server's goroutines append, the test reads
	var checked []uint64
	check := func(_ context.Context, from uint64) error {
		mu.Lock()
		checked = append(checked, from)
		mu.Unlock()
		if from == 3 {
			return errors.New("store 3 is not who you are")
		}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	raftmsgpb.RegisterRaftServiceServer(srv, NewServer(me, nil, check, slog.New(slog.DiscardHandler)))
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	conn, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	batch := func(fromStore, msgFrom, msgTo uint64, typ rpb.MessageType) *raftmsgpb.MessageBatch {
		m, err := proto.Marshal(&rpb.Message{Type: typ.Enum(), From: &msgFrom, To: &msgTo, Term: proto.Uint64(1)})
		if err != nil {
			t.Fatal(err)
		}
		return &raftmsgpb.MessageBatch{FromStore: fromStore, ToStore: me, Messages: []*raftmsgpb.GroupMessage{{SpaceId: 1, PartId: 1, Message: m}}}
	}
	tests := []struct {
		name  string
		batch *raftmsgpb.MessageBatch
		says  string
	}{
		{"a vote from another replica", batch(sender, 7, me, rpb.MsgVote), "carries a message from replica 7 to replica 1"},
		{"an append for another store", batch(sender, sender, 9, rpb.MsgApp), "carries a message from replica 2 to replica 9"},
		{"a sender the check refuses", batch(3, 3, me, rpb.MsgHeartbeat), "store 3 is not who you are"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			stream, err := raftmsgpb.NewRaftServiceClient(conn).Send(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_ = stream.Send(tc.batch)
			_, err = stream.CloseAndRecv()
			if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want PermissionDenied saying %q", err, tc.says)
			}
		})
	}
	// The check ran once per claimed store and stream.
	mu.Lock()
	defer mu.Unlock()
	if len(checked) != 3 || checked[2] != 3 {
		t.Fatalf("PeerCheck saw %v", checked)
	}
}
