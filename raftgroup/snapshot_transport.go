package raftgroup

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/linxGnu/grocksdb"
	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
)

const (
	// snapshotChunkBytes bounds one stream message of a snapshot.
	snapshotChunkBytes = 1 << 20
	// maxSnapshotSends bounds concurrent outgoing snapshots per store, so a
	// store that lost many followers does not saturate its disk and network.
	maxSnapshotSends = 2
)

// SendSnapshot implements SnapshotTransport: it streams the data range on a
// stream of its own and reports the outcome through data.Release.
func (t *GRPCTransport) SendSnapshot(d *SnapshotData) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		d.Release(false)
		return
	}
	if t.snapSlots == nil {
		t.snapSlots = make(chan struct{}, maxSnapshotSends)
	}
	slots := t.snapSlots
	t.wg.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		select {
		case slots <- struct{}{}:
		case <-t.stop:
			d.Release(false)
			return
		}
		defer func() { <-slots }()
		n, err := t.streamSnapshot(d)
		if err != nil {
			t.log.Warn("sending snapshot failed", "group", d.Group, "to", d.Msg.GetTo(), "err", err)
		} else {
			t.log.Info("sent snapshot", "group", d.Group, "to", d.Msg.GetTo(), "index", d.Msg.GetSnapshot().GetMetadata().GetIndex(), "keys", n)
		}
		d.Release(err == nil)
	}()
}

func (t *GRPCTransport) streamSnapshot(d *SnapshotData) (int, error) {
	to := d.Msg.GetTo()
	addr, ok := t.resolve(to)
	if !ok {
		return 0, fmt.Errorf("no address known for store %d", to)
	}
	msg, err := proto.Marshal(d.Msg)
	if err != nil {
		return 0, fmt.Errorf("encoding MsgSnap: %w", err)
	}
	conn, err := t.dialPeer(addr)
	if err != nil {
		return 0, fmt.Errorf("dialing store %d at %s: %w", to, addr, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-t.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	stream, err := raftmsgpb.NewRaftSnapshotServiceClient(conn).Snapshot(ctx)
	if err != nil {
		return 0, fmt.Errorf("opening snapshot stream to store %d: %w", to, err)
	}
	chunk := &raftmsgpb.SnapshotChunk{Header: &raftmsgpb.SnapshotHeader{
		FromStore: t.storeID, ToStore: to, SpaceId: d.Group.Space, PartId: d.Group.Part, Message: msg,
	}}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // a range of many prefixes; storaged sets a prefix extractor
	ro.SetSnapshot(d.Snap)
	ro.SetIterateUpperBound(d.Upper)
	ro.SetFillCache(false)
	it := d.DB.NewIterator(ro)
	defer it.Close()
	size, keys := 0, 0
	sum := newSnapshotHash()
	for it.Seek(d.Lower); it.Valid(); it.Next() {
		// The iterator's slices point into RocksDB memory that the next
		// step reuses: copy them.
		k, v := append([]byte(nil), it.Key().Data()...), append([]byte(nil), it.Value().Data()...)
		chunk.Keys = append(chunk.Keys, k)
		chunk.Values = append(chunk.Values, v)
		sum.add(k, v)
		size += len(k) + len(v)
		keys++
		if size >= snapshotChunkBytes {
			if err := stream.Send(chunk); err != nil {
				return keys, fmt.Errorf("streaming snapshot to store %d: %w", to, err)
			}
			chunk = &raftmsgpb.SnapshotChunk{}
			size = 0
		}
	}
	if err := it.Err(); err != nil {
		return keys, fmt.Errorf("reading snapshot range: %w", err)
	}
	chunk.Done = true
	chunk.TotalKeys = uint64(keys)
	chunk.Checksum = sum.sum()
	if err := stream.Send(chunk); err != nil {
		return keys, fmt.Errorf("streaming snapshot to store %d: %w", to, err)
	}
	if _, err := stream.CloseAndRecv(); err != nil {
		return keys, fmt.Errorf("store %d did not accept the snapshot: %w", to, err)
	}
	return keys, nil
}

// SnapshotServer receives snapshots: it writes each into an SST file under
// dir and hands the file and its MsgSnap to the engine.
type SnapshotServer struct {
	raftmsgpb.UnimplementedRaftSnapshotServiceServer
	storeID    uint64
	engine     *Engine
	dir        string
	sstOptions SSTOptions
	check      PeerCheck
	log        *slog.Logger
	seq        atomic.Uint64
}

// SSTOptions returns the options a received snapshot's SST file is
// written with; the caller destroys them. The store's own table options
// (filters, index format, compression) make the ingested file like the
// ones its compactions write.
type SSTOptions func() (*grocksdb.Options, error)

// NewSnapshotServer returns the RaftSnapshotService of a store; files go
// under dir, which should be on the same filesystem as the data so ingest
// moves rather than copies them. They are written with sstOptions, or with
// RocksDB's defaults (no filters, a whole index per file) if it is nil.
//
// check, if not nil, must approve the sending store (see PeerCheck).
func NewSnapshotServer(storeID uint64, engine *Engine, dir string, sstOptions SSTOptions, check PeerCheck, log *slog.Logger) (*SnapshotServer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("snapshot directory %s: %w", dir, err)
	}
	if sstOptions == nil {
		sstOptions = func() (*grocksdb.Options, error) { return grocksdb.NewDefaultOptions(), nil }
	}
	return &SnapshotServer{storeID: storeID, engine: engine, dir: dir, sstOptions: sstOptions, check: check, log: log.With("component", "raft-snapshot")}, nil
}

// Snapshot implements RaftSnapshotServiceServer.
func (s *SnapshotServer) Snapshot(stream grpc.ClientStreamingServer[raftmsgpb.SnapshotChunk, raftmsgpb.BatchAck]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	h := first.GetHeader()
	if h == nil {
		return errors.New("snapshot stream does not start with a header")
	}
	if h.ToStore != s.storeID {
		return fmt.Errorf("snapshot for store %d reached store %d", h.ToStore, s.storeID)
	}
	if s.check != nil {
		if err := s.check(stream.Context(), h.FromStore); err != nil {
			s.log.Warn("refusing snapshot stream", "from_store", h.FromStore, "err", err)
			return errForged("snapshot from store %d: %v", h.FromStore, err)
		}
	}
	m := &rpb.Message{}
	if err := proto.Unmarshal(h.Message, m); err != nil || m.GetType() != rpb.MessageType_MsgSnap {
		return fmt.Errorf("snapshot header carries no MsgSnap: %v", err)
	}
	if m.GetFrom() != h.FromStore || m.GetTo() != s.storeID {
		return errForged("snapshot from store %d to store %d carries a message from replica %d to replica %d", h.FromStore, h.ToStore, m.GetFrom(), m.GetTo())
	}
	id := GroupID{Space: h.SpaceId, Part: h.PartId}
	idx := m.GetSnapshot().GetMetadata().GetIndex()
	path := filepath.Join(s.dir, fmt.Sprintf("%d-%d-%d-%d.sst", id.Space, id.Part, idx, s.seq.Add(1)))
	keys, err := s.receive(stream, first, id, path)
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("%s: receiving snapshot %d: %w", id, idx, err)
	}
	if keys == 0 {
		path = ""
	}
	if err := s.engine.StepSnapshot(id, m, path); err != nil {
		return err
	}
	s.log.Info("received snapshot", "group", id, "index", idx, "keys", keys, "from", h.FromStore)
	return stream.SendAndClose(&raftmsgpb.BatchAck{})
}

// receive writes the stream's key-value pairs into an SST file at path and
// returns how many there were (no file is left when there were none). It
// refuses a key outside the group's data range (installing the file
// would overwrite this replica's raft state or another partition's data),
// and a stream whose count or checksum on the last chunk is not what
// arrived: a snapshot is installed whole and exactly as sent, or not at
// all.
func (s *SnapshotServer) receive(stream grpc.ClientStreamingServer[raftmsgpb.SnapshotChunk, raftmsgpb.BatchAck], chunk *raftmsgpb.SnapshotChunk, id GroupID, path string) (int, error) {
	lower, upper := partition.DataRange(id.Space, id.Part)
	sum := newSnapshotHash()
	opts, err := s.sstOptions()
	if err != nil {
		return 0, fmt.Errorf("options of %s: %w", path, err)
	}
	defer opts.Destroy()
	env := grocksdb.NewDefaultEnvOptions()
	defer env.Destroy()
	w := grocksdb.NewSSTFileWriter(env, opts)
	defer w.Destroy()
	opened := false
	keys := 0
	for {
		if len(chunk.Keys) != len(chunk.Values) {
			return keys, fmt.Errorf("chunk has %d keys and %d values", len(chunk.Keys), len(chunk.Values))
		}
		for i, k := range chunk.Keys {
			if bytes.Compare(k, lower) < 0 || bytes.Compare(k, upper) >= 0 {
				return keys, errForged("key %x of the snapshot is outside %s's data range %x..%x", k, id, lower, upper)
			}
			sum.add(k, chunk.Values[i])
			if !opened {
				if err := w.Open(path); err != nil {
					return keys, fmt.Errorf("creating %s: %w", path, err)
				}
				opened = true
			}
			if err := w.Add(k, chunk.Values[i]); err != nil {
				return keys, fmt.Errorf("writing key %x: %w", k, err)
			}
			keys++
		}
		if chunk.Done {
			if len(chunk.Checksum) == 0 && chunk.TotalKeys == 0 {
				// A sender of a release before the checksum: refusing
				// it would leave this replica behind for the whole of
				// a rolling upgrade. Its keys were range-checked.
				s.log.Warn("snapshot without a checksum (the sender is of an older release): installed unchecked", "group", id, "keys", keys)
				break
			}
			if chunk.TotalKeys != uint64(keys) {
				return keys, fmt.Errorf("the snapshot says it sent %d keys, %d arrived", chunk.TotalKeys, keys)
			}
			if got := sum.sum(); !bytes.Equal(got, chunk.Checksum) {
				return keys, fmt.Errorf("the snapshot's checksum is %x, what arrived %x", chunk.Checksum, got)
			}
			break
		}
		var err error
		if chunk, err = stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return keys, errors.New("stream ended before the last chunk")
			}
			return keys, err
		}
	}
	if opened {
		if err := w.Finish(); err != nil {
			return keys, fmt.Errorf("finishing %s: %w", path, err)
		}
	}
	return keys, nil
}

// snapshotHash is the checksum of a snapshot stream: XXH64 of every key
// and value in order, each preceded by its length (a uvarint, so that no
// two different streams of pairs hash the same bytes).
type snapshotHash struct {
	h   *xxhash.Digest
	buf [binary.MaxVarintLen64]byte
}

func newSnapshotHash() *snapshotHash { return &snapshotHash{h: xxhash.New()} }

func (s *snapshotHash) add(key, value []byte) {
	for _, b := range [2][]byte{key, value} {
		n := binary.PutUvarint(s.buf[:], uint64(len(b)))
		_, _ = s.h.Write(s.buf[:n])
		_, _ = s.h.Write(b)
	}
}

// sum is the checksum, 8 bytes big-endian.
func (s *snapshotHash) sum() []byte { return binary.BigEndian.AppendUint64(nil, s.h.Sum64()) }
