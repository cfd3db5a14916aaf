package raftgroup

import (
	"context"
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
)

// dropTransport loses every message: the fuzzed replica talks to no one.
type dropTransport struct{}

func (dropTransport) Send([]Envelope) {}

// FuzzSnapshotReceiver streams arbitrary chunks to a store's snapshot
// service, as a peer with a storaged certificate could: a header (the
// fuzzer's own, or a valid one for a group the store hosts) and then
// whatever chunks the input decodes to. The receiver must answer every
// stream, never panic, and leave no file behind when it refuses one. The
// seeds are a valid stream and damaged ones.
//
//	go test ./raftgroup -run '^$' -fuzz FuzzSnapshotReceiver -fuzztime 60s
func FuzzSnapshotReceiver(f *testing.F) {
	const me, sender = 1, 2
	g := GroupID{Space: 4, Part: 2}
	db := openTestDB(f, filepath.Join(f.TempDir(), "db"))
	engine := NewEngine(Config{StoreID: me, TickInterval: 10 * time.Millisecond, Transport: dropTransport{}, Applier: kvApplier{},
		Logger: slog.New(slog.DiscardHandler)})
	if err := engine.AddGroup(g, db, []uint64{me, sender}); err != nil {
		f.Fatal(err)
	}
	engine.Start()
	f.Cleanup(func() {
		engine.Stop()
		db.Close()
	})
	dir := filepath.Join(f.TempDir(), "snapshots")
	snaps, err := NewSnapshotServer(me, engine, dir, nil, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		f.Fatal(err)
	}
	conn := serveForTest(f, func(srv *grpc.Server) { raftmsgpb.RegisterRaftSnapshotServiceServer(srv, snaps) })
	client := raftmsgpb.NewRaftSnapshotServiceClient(conn)

	header := func(index uint64) *raftmsgpb.SnapshotChunk {
		msg, err := proto.Marshal(&rpb.Message{Type: rpb.MsgSnap.Enum(), From: proto.Uint64(sender), To: proto.Uint64(me), Term: proto.Uint64(1),
			Snapshot: &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: proto.Uint64(index), Term: proto.Uint64(1),
				ConfState: &rpb.ConfState{Voters: []uint64{me, sender}}}}})
		if err != nil {
			f.Fatal(err)
		}
		return &raftmsgpb.SnapshotChunk{Header: &raftmsgpb.SnapshotHeader{FromStore: sender, ToStore: me, SpaceId: g.Space, PartId: g.Part, Message: msg}}
	}
	// encode lays chunks out as the fuzz input: a byte saying whether the
	// stream starts with the valid header (0) or the first chunk's own, then
	// each chunk as a uvarint length and its protobuf.
	encode := func(validHeader bool, chunks ...*raftmsgpb.SnapshotChunk) []byte {
		out := []byte{1}
		if validHeader {
			out[0] = 0
		}
		for _, c := range chunks {
			b, err := proto.Marshal(c)
			if err != nil {
				f.Fatal(err)
			}
			out = binary.AppendUvarint(out, uint64(len(b)))
			out = append(out, b...)
		}
		return out
	}
	keys := [][]byte{partition.TagKey(g.Space, g.Part, partition.EncodeInt64Vid(1), 1), partition.TagKey(g.Space, g.Part, partition.EncodeInt64Vid(2), 1)}
	sum := newSnapshotHash()
	done := &raftmsgpb.SnapshotChunk{Done: true, TotalKeys: uint64(len(keys))}
	for _, k := range keys {
		done.Keys, done.Values = append(done.Keys, k), append(done.Values, []byte("v"))
		sum.add(k, []byte("v"))
	}
	done.Checksum = sum.sum()
	f.Add(encode(true, done))
	f.Add(encode(false, header(20), done))
	f.Add(encode(true, &raftmsgpb.SnapshotChunk{Keys: keys[:1], Values: [][]byte{[]byte("v")}},
		&raftmsgpb.SnapshotChunk{Keys: keys[1:], Values: [][]byte{[]byte("v")}, Done: true, TotalKeys: 2, Checksum: done.Checksum}))
	f.Add(encode(true, &raftmsgpb.SnapshotChunk{Keys: [][]byte{partition.RaftLogKey(g.Space, g.Part, 1)}, Values: [][]byte{nil}, Done: true}))
	f.Add(encode(true, &raftmsgpb.SnapshotChunk{Keys: keys, Values: [][]byte{nil}}))
	f.Add(encode(true, &raftmsgpb.SnapshotChunk{Done: true, TotalKeys: 1 << 40}))
	f.Add(encode(false, &raftmsgpb.SnapshotChunk{Header: &raftmsgpb.SnapshotHeader{FromStore: sender, ToStore: me, Message: []byte{0xff}}}))

	valid := header(10)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		var chunks []*raftmsgpb.SnapshotChunk
		if data[0] == 0 {
			chunks = append(chunks, valid)
		}
		for rest := data[1:]; len(rest) > 0; {
			n, k := binary.Uvarint(rest)
			if k <= 0 || n > uint64(len(rest)-k) {
				break
			}
			c := &raftmsgpb.SnapshotChunk{}
			if proto.Unmarshal(rest[k:k+int(n)], c) != nil {
				return
			}
			chunks = append(chunks, c)
			rest = rest[k+int(n):]
		}
		before := map[string]bool{}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				before[e.Name()] = true // an accepted snapshot's file, the engine's now
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		stream, err := client.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if stream.Send(c) != nil {
				break // the receiver refused the stream already
			}
		}
		_, err = stream.CloseAndRecv()
		if ctx.Err() != nil {
			t.Fatalf("the receiver did not answer %d chunks within 20s: %v", len(chunks), err)
		}
		if err != nil {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !before[e.Name()] {
					t.Fatalf("a refused snapshot (%v) left %s in its folder", err, e.Name())
				}
			}
		}
	})
}
