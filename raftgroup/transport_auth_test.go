package raftgroup

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
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

	"github.com/novagraph/novagraph/partition"
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
	conn := serveForTest(t, func(srv *grpc.Server) {
		raftmsgpb.RegisterRaftServiceServer(srv, NewServer(me, nil, check, slog.New(slog.DiscardHandler)))
	})

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

// TestSnapshotStreamRefusesForeignKeysAndDamage: the snapshot server
// refuses a stream with a key outside the group's data range (a raft key
// of this replica, another partition's key), and one whose last chunk's
// count or checksum is not what arrived; each before the engine sees a
// file (none is attached), and no file is left. (A last chunk with
// neither, from a sender of an older release, is installed unchecked.)
func TestSnapshotStreamRefusesForeignKeysAndDamage(t *testing.T) {
	const me, sender = 1, 2
	g := GroupID{Space: 4, Part: 2}
	dir := t.TempDir()
	snaps, err := NewSnapshotServer(me, nil, dir, nil, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	conn := serveForTest(t, func(srv *grpc.Server) { raftmsgpb.RegisterRaftSnapshotServiceServer(srv, snaps) })
	msg, err := proto.Marshal(&rpb.Message{Type: rpb.MsgSnap.Enum(), From: proto.Uint64(sender), To: proto.Uint64(me), Term: proto.Uint64(1),
		Snapshot: &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: proto.Uint64(10), Term: proto.Uint64(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	good := [][]byte{partition.TagKey(g.Space, g.Part, partition.EncodeInt64Vid(1), 1), partition.TagKey(g.Space, g.Part, partition.EncodeInt64Vid(2), 1)}
	// last builds the final chunk of keys as a sender does, then lets the
	// case damage it.
	last := func(keys [][]byte, damage func(c *raftmsgpb.SnapshotChunk)) *raftmsgpb.SnapshotChunk {
		c := &raftmsgpb.SnapshotChunk{Done: true, TotalKeys: uint64(len(keys))}
		sum := newSnapshotHash()
		for _, k := range keys {
			c.Keys = append(c.Keys, k)
			c.Values = append(c.Values, []byte("v"))
			sum.add(k, []byte("v"))
		}
		c.Checksum = sum.sum()
		if damage != nil {
			damage(c)
		}
		return c
	}
	for _, tc := range []struct {
		name string
		last *raftmsgpb.SnapshotChunk
		code codes.Code
		says string
	}{
		{"a raft log key of the group", last(append(good, partition.RaftLogKey(g.Space, g.Part, 1)), nil), codes.PermissionDenied, "outside space 4 part 2's data range"},
		{"another partition's key", last(append(good, partition.TagKey(g.Space, g.Part+1, partition.EncodeInt64Vid(1), 1)), nil), codes.PermissionDenied, "outside space 4 part 2's data range"},
		{"a value changed on the way", last(good, func(c *raftmsgpb.SnapshotChunk) { c.Values[1] = []byte("w") }), codes.Unknown, "the snapshot's checksum is"},
		{"a key lost on the way", last(good, func(c *raftmsgpb.SnapshotChunk) { c.Keys, c.Values = c.Keys[:1], c.Values[:1] }), codes.Unknown, "says it sent 2 keys, 1 arrived"},
		{"a count without its checksum", last(good, func(c *raftmsgpb.SnapshotChunk) { c.Checksum = nil }), codes.Unknown, "the snapshot's checksum is , what arrived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			stream, err := raftmsgpb.NewRaftSnapshotServiceClient(conn).Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_ = stream.Send(&raftmsgpb.SnapshotChunk{Header: &raftmsgpb.SnapshotHeader{FromStore: sender, ToStore: me, SpaceId: g.Space, PartId: g.Part, Message: msg}})
			_ = stream.Send(tc.last)
			_, err = stream.CloseAndRecv()
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want %v saying %q", err, tc.code, tc.says)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("a refused snapshot left %d files in its folder", len(left))
			}
		})
	}
}

// serveForTest serves what register adds on a loopback port, in
// plaintext, until the test ends, and returns a connection to it.
func serveForTest(t testing.TB, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	register(srv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
