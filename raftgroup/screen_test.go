package raftgroup

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// TestScreenPeerMessage: each message raft would panic on is dropped (or,
// for a heartbeat, corrected); what correct replicas send passes as is.
func TestScreenPeerMessage(t *testing.T) {
	u := proto.Uint64
	typ := func(t rpb.MessageType) *rpb.MessageType { return t.Enum() }
	ent := func(index, term uint64) *rpb.Entry { return &rpb.Entry{Index: u(index), Term: u(term)} }
	snap := func(index uint64, cs *rpb.ConfState) *rpb.Snapshot {
		return &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: u(index), Term: u(3), ConfState: cs}}
	}
	view := peerView{written: 10, emitted: 12, snapshotReceived: func(i uint64) bool { return i == 20 }}
	for _, tc := range []struct {
		name       string
		m          *rpb.Message
		refused    bool
		wantCommit uint64 // for a passed heartbeat
	}{
		{"append that follows on", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), LogTerm: u(2), Entries: []*rpb.Entry{ent(11, 2), ent(12, 3)}}, false, 0},
		{"empty append", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), LogTerm: u(3)}, false, 0},
		{"append with a gap", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), LogTerm: u(2), Entries: []*rpb.Entry{ent(11, 2), ent(13, 3)}}, true, 0},
		{"append not starting after its index", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), Entries: []*rpb.Entry{ent(10, 2)}}, true, 0},
		{"append with terms going down", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), LogTerm: u(2), Entries: []*rpb.Entry{ent(11, 3), ent(12, 2)}}, true, 0},
		{"append with an entry above its term", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), LogTerm: u(2), Entries: []*rpb.Entry{ent(11, 4)}}, true, 0},
		{"append with a log term above its term", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(10), LogTerm: u(4)}, true, 0},
		{"append whose index overflows", &rpb.Message{Type: typ(rpb.MessageType_MsgApp), Term: u(3), Index: u(^uint64(0))}, true, 0},
		{"heartbeat within the log", &rpb.Message{Type: typ(rpb.MessageType_MsgHeartbeat), Term: u(3), Commit: u(9)}, false, 9},
		{"heartbeat committing past the log", &rpb.Message{Type: typ(rpb.MessageType_MsgHeartbeat), Term: u(3), Commit: u(1 << 40)}, false, 10},
		{"acknowledgement of an emitted entry", &rpb.Message{Type: typ(rpb.MessageType_MsgAppResp), Term: u(3), Index: u(12)}, false, 0},
		{"acknowledgement past the log", &rpb.Message{Type: typ(rpb.MessageType_MsgAppResp), Term: u(3), Index: u(13)}, true, 0},
		{"rejection past the log", &rpb.Message{Type: typ(rpb.MessageType_MsgAppResp), Term: u(3), Index: u(1 << 40), Reject: proto.Bool(true)}, false, 0},
		{"snapshot with its data", &rpb.Message{Type: typ(rpb.MessageType_MsgSnap), Term: u(3), Snapshot: snap(20, &rpb.ConfState{Voters: []uint64{1, 2, 3}})}, false, 0},
		{"snapshot without data", &rpb.Message{Type: typ(rpb.MessageType_MsgSnap), Term: u(3), Snapshot: snap(21, &rpb.ConfState{Voters: []uint64{1, 2, 3}})}, true, 0},
		{"snapshot without voters", &rpb.Message{Type: typ(rpb.MessageType_MsgSnap), Term: u(3), Snapshot: snap(20, &rpb.ConfState{Learners: []uint64{1}})}, true, 0},
		{"snapshot with a voter twice", &rpb.Message{Type: typ(rpb.MessageType_MsgSnap), Term: u(3), Snapshot: snap(20, &rpb.ConfState{Voters: []uint64{1, 2, 2}})}, true, 0},
		{"snapshot with a voter as learner", &rpb.Message{Type: typ(rpb.MessageType_MsgSnap), Term: u(3), Snapshot: snap(20, &rpb.ConfState{Voters: []uint64{1, 2}, Learners: []uint64{2}})}, true, 0},
		{"snapshot with learners next but not joint", &rpb.Message{Type: typ(rpb.MessageType_MsgSnap), Term: u(3), Snapshot: snap(20, &rpb.ConfState{Voters: []uint64{1, 2}, LearnersNext: []uint64{3}})}, true, 0},
		{"vote", &rpb.Message{Type: typ(rpb.MessageType_MsgVote), Term: u(4), Index: u(1 << 40), LogTerm: u(4)}, false, 0},
		{"vote without a term", &rpb.Message{Type: typ(rpb.MessageType_MsgVote)}, true, 0},
		{"heartbeat without a term", &rpb.Message{Type: typ(rpb.MessageType_MsgHeartbeat), Commit: u(1)}, true, 0},
		{"empty proposal", &rpb.Message{Type: typ(rpb.MessageType_MsgProp), Term: u(3)}, true, 0},
		{"forwarded proposal", &rpb.Message{Type: typ(rpb.MessageType_MsgProp), Term: u(3), Entries: []*rpb.Entry{{Data: []byte("x")}}}, true, 0},
		{"read index request", &rpb.Message{Type: typ(rpb.MessageType_MsgReadIndex), Term: u(3)}, true, 0},
		{"local message", &rpb.Message{Type: typ(rpb.MessageType_MsgStorageAppend), Term: u(3)}, true, 0},
		{"campaign trigger", &rpb.Message{Type: typ(rpb.MessageType_MsgHup)}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := proto.CloneOf(tc.m)
			got, err := screenPeerMessage(tc.m, view)
			if tc.refused {
				if err == nil || !errors.Is(err, errScreened) {
					t.Fatalf("passed (%v), want refused", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.m.GetType() == rpb.MessageType_MsgHeartbeat && got.GetCommit() != tc.wantCommit {
				t.Fatalf("heartbeat commit %d, want %d", got.GetCommit(), tc.wantCommit)
			}
			if !proto.Equal(tc.m, before) {
				t.Fatal("screening changed the caller's message")
			}
		})
	}
}

// FuzzRaftStep steps arbitrary raft messages into a replica as its peer
// (store 2 of the group's two voters), as a holder of store 2's
// certificate could send them: the transport has already checked that
// each message is from store 2 to this store. The replica's store must
// neither panic nor halt, and must still answer. The seeds are the
// messages raft panics on unscreened (heartbeat past the log, appends out
// of order, acknowledgements past the log after the fuzzer made the
// replica leader, a snapshot without data, empty proposals) and valid ones.
//
//	go test ./raftgroup -run '^$' -fuzz FuzzRaftStep -fuzztime 60s
func FuzzRaftStep(f *testing.F) {
	const me, peer = 1, 2
	g := GroupID{Space: 4, Part: 3}
	db := openTestDB(f, filepath.Join(f.TempDir(), "db"))
	engine := NewEngine(Config{StoreID: me, TickInterval: 10 * time.Millisecond, Transport: dropTransport{}, Applier: kvApplier{},
		Logger: slog.New(slog.DiscardHandler)})
	if err := engine.AddGroup(g, db, []uint64{me, peer}); err != nil {
		f.Fatal(err)
	}
	engine.Start()
	f.Cleanup(func() {
		engine.Stop()
		db.Close()
	})

	u := proto.Uint64
	msg := func(t rpb.MessageType, term uint64, set func(*rpb.Message)) *rpb.Message {
		m := &rpb.Message{Type: t.Enum(), Term: u(term)}
		if set != nil {
			set(m)
		}
		return m
	}
	encode := func(msgs ...*rpb.Message) []byte {
		var out []byte
		for _, m := range msgs {
			b, err := proto.Marshal(m)
			if err != nil {
				f.Fatal(err)
			}
			out = binary.AppendUvarint(out, uint64(len(b)))
			out = append(out, b...)
		}
		return out
	}
	// Far above any term the replica reaches by campaigning alone while
	// the fuzzer runs: these messages make it follow, then lead.
	const term = 1 << 20
	// First, while the replica has voted for no one and knows no leader
	// (it campaigns only after its election timeout): a vote request
	// without a term, which raft grants with a term-0 answer and panics.
	f.Add(encode(msg(rpb.MessageType_MsgVote, 0, func(m *rpb.Message) { m.Index, m.LogTerm = u(1<<40), u(term) })))
	f.Add(encode(msg(rpb.MessageType_MsgHeartbeat, term, func(m *rpb.Message) { m.Commit = u(1 << 40) })))
	f.Add(encode(msg(rpb.MessageType_MsgApp, term, func(m *rpb.Message) {
		m.Index, m.LogTerm = u(1), u(1)
		m.Entries = []*rpb.Entry{{Index: u(2), Term: u(term)}, {Index: u(5), Term: u(term)}}
	})))
	f.Add(encode(msg(rpb.MessageType_MsgApp, term, func(m *rpb.Message) {
		m.Index, m.LogTerm, m.Commit = u(0), u(0), u(3)
		m.Entries = []*rpb.Entry{{Index: u(1), Term: u(term)}, {Index: u(2), Term: u(1)}}
	})))
	f.Add(encode(msg(rpb.MessageType_MsgSnap, term, func(m *rpb.Message) {
		m.Snapshot = &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: u(1 << 30), Term: u(term), ConfState: &rpb.ConfState{Voters: []uint64{me, peer}}}}
	})))
	f.Add(encode(msg(rpb.MessageType_MsgProp, 0, nil), msg(rpb.MessageType_MsgReadIndex, 0, nil)))
	f.Add(encode(
		msg(rpb.MessageType_MsgTimeoutNow, 2*term, nil),
		msg(rpb.MessageType_MsgVoteResp, 2*term+1, nil),
		msg(rpb.MessageType_MsgAppResp, 2*term+1, func(m *rpb.Message) { m.Index = u(1 << 40) }),
		msg(rpb.MessageType_MsgAppResp, 2*term+1, func(m *rpb.Message) { m.Index, m.Reject, m.RejectHint = u(1<<40), proto.Bool(true), u(1<<41) }),
	))
	f.Add(encode(msg(rpb.MessageType_MsgHeartbeat, 4*term, func(m *rpb.Message) { m.Commit = u(1) })))

	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []*rpb.Message
		for rest := data; len(rest) > 0; {
			n, k := binary.Uvarint(rest)
			if k <= 0 || n > uint64(len(rest)-k) {
				break
			}
			m := &rpb.Message{}
			if proto.Unmarshal(rest[k:k+int(n)], m) != nil {
				return
			}
			m.From, m.To = u(peer), u(me) // what the transport lets through
			msgs = append(msgs, m)
			rest = rest[k+int(n):]
		}
		for _, m := range msgs {
			if err := engine.Step(g, m); err != nil {
				t.Fatal(err)
			}
		}
		// Two inspections: the second runs on a later pass of the worker
		// than the one that stepped the messages.
		for range 2 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := engine.Status(ctx, g)
			cancel()
			if err != nil {
				t.Fatalf("the replica no longer answers after %d messages: %v", len(msgs), err)
			}
		}
		if err := engine.Failed(); err != nil {
			t.Fatalf("the engine halted: %v", err)
		}
	})
}
