package raftgroup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	grpckeepalive "google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/internal/grpcdial"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
)

const (
	// peerQueueSize bounds the messages waiting for one destination. Raft
	// tolerates loss, so a full queue drops (and reports the peer
	// unreachable) rather than blocking the engine round.
	peerQueueSize = 4096
	// defaultMaxBatch is the most messages sent in one MessageBatch.
	defaultMaxBatch = 512
	// maxBatchBytes bounds one MessageBatch well below the receiver's gRPC
	// message limit (64 MiB), since a single append can be 1 MiB.
	maxBatchBytes = 8 << 20
)

// TransportOptions tune a GRPCTransport.
type TransportOptions struct {
	// MaxBatch is the most messages per stream send (default 512). 1 turns
	// batching off; only benchmarks do that, to show what batching buys.
	MaxBatch int
	// TLS is the store's certificate and CAs for its raft and snapshot
	// streams (nil: plaintext).
	TLS *nodetls.Config
}

// Resolver maps a store id to the address of its storaged.
type Resolver func(storeID uint64) (addr string, ok bool)

// GRPCTransport sends raft messages over one long-lived gRPC stream per
// destination store, batching the messages of every group bound there.
type GRPCTransport struct {
	storeID  uint64
	maxBatch int
	resolve  Resolver
	tls      *nodetls.Config
	log      *slog.Logger

	mu        sync.Mutex
	engine    *Engine
	snapSlots chan struct{} // bounds concurrent snapshot sends
	peers     map[uint64]*peer
	closed    bool
	stop      chan struct{}
	wg        sync.WaitGroup
}

// NewGRPCTransport returns a transport for the store storeID. Attach the
// engine with SetEngine before it sends anything.
func NewGRPCTransport(storeID uint64, resolve Resolver, log *slog.Logger, opts TransportOptions) *GRPCTransport {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = defaultMaxBatch
	}
	return &GRPCTransport{
		storeID:  storeID,
		maxBatch: opts.MaxBatch,
		resolve:  resolve,
		tls:      opts.TLS,
		log:      log.With("component", "raft-transport"),
		peers:    map[uint64]*peer{},
		stop:     make(chan struct{}),
	}
}

// SetEngine attaches the engine that receives unreachable reports.
func (t *GRPCTransport) SetEngine(e *Engine) {
	t.mu.Lock()
	t.engine = e
	t.mu.Unlock()
}

// peer is the queue and sender goroutine of one destination store.
type peer struct {
	to    uint64
	queue chan *queued
}

type queued struct {
	group GroupID
	msg   *raftmsgpb.GroupMessage
}

// Send implements Transport.
func (t *GRPCTransport) Send(msgs []Envelope) {
	for _, env := range msgs {
		to := env.Msg.GetTo()
		data, err := proto.Marshal(env.Msg)
		if err != nil {
			t.log.Error("encoding raft message", "group", env.Group, "err", err)
			continue
		}
		p := t.peer(to)
		if p == nil {
			return // closed
		}
		q := &queued{group: env.Group, msg: &raftmsgpb.GroupMessage{SpaceId: env.Group.Space, PartId: env.Group.Part, Message: data}}
		select {
		case p.queue <- q:
		default:
			t.unreachable(env.Group, to)
		}
	}
}

func (t *GRPCTransport) peer(to uint64) *peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	p := t.peers[to]
	if p == nil {
		p = &peer{to: to, queue: make(chan *queued, peerQueueSize)}
		t.peers[to] = p
		t.wg.Add(1)
		go t.runPeer(p)
	}
	return p
}

func (t *GRPCTransport) unreachable(g GroupID, to uint64) {
	t.mu.Lock()
	e := t.engine
	t.mu.Unlock()
	if e != nil {
		e.ReportUnreachable(g, to)
	}
}

// runPeer owns the stream to one store: it connects, sends batches, and on
// any error reports the batch's groups unreachable and reconnects with
// backoff. Messages are never retried: raft resends what matters.
func (t *GRPCTransport) runPeer(p *peer) {
	defer t.wg.Done()
	backoff := 50 * time.Millisecond
	for {
		select {
		case <-t.stop:
			return
		default:
		}
		err := t.stream(p)
		if err == nil {
			return // stopped
		}
		t.log.Debug("raft stream to store ended", "to", p.to, "err", err)
		// Drain what queued up while the stream was down: those messages
		// are lost, and raft must hear it.
		t.dropQueued(p)
		select {
		case <-t.stop:
			return
		case <-time.After(backoff):
		}
		// Capped low: a dial attempt already takes up to a second
		// (peerConnectTimeout), and each second a stream stays down
		// after a heal is a second some partition may go without a
		// leader.
		backoff = min(backoff*2, 200*time.Millisecond)
	}
}

func (t *GRPCTransport) dropQueued(p *peer) {
	for {
		select {
		case q := <-p.queue:
			t.unreachable(q.group, p.to)
		default:
			return
		}
	}
}

// stream runs one stream until it fails (error) or the transport stops (nil).
func (t *GRPCTransport) stream(p *peer) error {
	addr, ok := t.resolve(p.to)
	if !ok {
		return fmt.Errorf("no address known for store %d", p.to)
	}
	conn, err := t.dialPeer(addr)
	if err != nil {
		return fmt.Errorf("dialing store %d at %s: %w", p.to, addr, err)
	}
	defer conn.Close()
	if err := waitReady(conn, t.stop); err != nil {
		return fmt.Errorf("connecting to store %d at %s: %w", p.to, addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := raftmsgpb.NewRaftServiceClient(conn).Send(ctx)
	if err != nil {
		return fmt.Errorf("opening raft stream to store %d at %s: %w", p.to, addr, err)
	}
	batch := &raftmsgpb.MessageBatch{FromStore: t.storeID, ToStore: p.to}
	groups := make([]GroupID, 0, t.maxBatch)
	for {
		var first *queued
		select {
		case <-t.stop:
			_, _ = stream.CloseAndRecv()
			return nil
		case first = <-p.queue:
		}
		batch.Messages = append(batch.Messages[:0], first.msg)
		groups = append(groups[:0], first.group)
		size := len(first.msg.Message)
	fill:
		for len(batch.Messages) < t.maxBatch && size < maxBatchBytes {
			select {
			case q := <-p.queue:
				batch.Messages = append(batch.Messages, q.msg)
				groups = append(groups, q.group)
				size += len(q.msg.Message)
			default:
				break fill
			}
		}
		if err := stream.Send(batch); err != nil {
			for _, g := range groups {
				t.unreachable(g, p.to)
			}
			return fmt.Errorf("sending to store %d at %s: %w", p.to, addr, err)
		}
	}
}

// keepalive makes a stream to a peer that vanished without closing its
// connection (power loss, a partition that drops packets) fail within
// seconds instead of at TCP's timeout, so raft hears the peer is
// unreachable and snapshot slots are not held by dead transfers.
//
// gRPC also sets TCP_USER_TIMEOUT to the keepalive Timeout: data unacked
// that long closes the connection. Two seconds, not more: a connection that
// outlives a network partition comes back on TCP's retransmission backoff
// (3.2 s, 6.4 s, … after the first loss), which kept partitions leaderless
// for seconds after the network healed (the compose chaos runner measured
// 4.6 s with 5 s). A closed connection is redialled at once by runPeer,
// and each dial gives up within a second (peerConnectTimeout),
// so the stream is back within about a second of the heal. The kernel,
// not the peer process, acknowledges TCP data, so a slow or paused peer
// does not trip it.
func keepalive() grpc.DialOption {
	return grpc.WithKeepaliveParams(grpckeepalive.ClientParameters{Time: 5 * time.Second, Timeout: 2 * time.Second, PermitWithoutStream: true})
}

// dialPeer makes the connection to one peer store. Its name is looked up
// at each connection attempt, within the attempt's deadline (grpcdial).
func (t *GRPCTransport) dialPeer(addr string) (*grpc.ClientConn, error) {
	return grpcdial.NewClient(addr, t.tls, peerConnectTimeout, reconnectBackoff(), keepalive())
}

// waitReady waits until conn connected, for at most connectWait: runPeer
// then starts over with a new connection rather than queueing raft
// messages behind one that does not come up.
func waitReady(conn *grpc.ClientConn, stop <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), connectWait)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	conn.Connect()
	for {
		st := conn.GetState()
		if st == connectivity.Ready {
			return nil
		}
		if !conn.WaitForStateChange(ctx, st) {
			return fmt.Errorf("not connected within %v (%s)", connectWait, st)
		}
	}
}

// connectWait bounds one attempt to reach a peer (see waitReady).
const connectWait = 2 * time.Second

// peerConnectTimeout and reconnectBackoff bound gRPC's own connection
// attempts to a peer: its defaults (a 20 s connect timeout, backoff
// growing to 120 s) would keep a stream down long after the peer came
// back.
const peerConnectTimeout = time.Second

func reconnectBackoff() backoff.Config {
	b := backoff.DefaultConfig
	b.BaseDelay, b.MaxDelay = 100*time.Millisecond, time.Second
	return b
}

// ServerKeepalive is the server side of keepalive: it admits the clients'
// pings. storaged passes it to grpc.NewServer.
func ServerKeepalive() grpc.ServerOption {
	return grpc.KeepaliveEnforcementPolicy(grpckeepalive.EnforcementPolicy{MinTime: 2 * time.Second, PermitWithoutStream: true})
}

// Close stops every sender goroutine.
func (t *GRPCTransport) Close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	close(t.stop)
	t.mu.Unlock()
	t.wg.Wait()
}

// PeerCheck decides whether the caller of a raft or snapshot stream (its
// gRPC context carries the caller's certificate) may speak for store
// fromStore. storaged's, with TLS on, compares the certificate with the
// address the store registered in metad.
type PeerCheck func(ctx context.Context, fromStore uint64) error

// Server is the receiving side: the RaftService implementation that hands
// inbound messages to the engine.
type Server struct {
	raftmsgpb.UnimplementedRaftServiceServer
	storeID uint64
	engine  *Engine
	check   PeerCheck
	log     *slog.Logger
}

// NewServer returns the RaftService of store storeID. check, if not nil,
// must approve each batch's sending store.
func NewServer(storeID uint64, engine *Engine, check PeerCheck, log *slog.Logger) *Server {
	return &Server{storeID: storeID, engine: engine, check: check, log: log.With("component", "raft-server")}
}

// errForged refuses a stream whose batch claims to come from a store its
// caller may not speak for, or carries a message from another replica
// than the sending store's: raft would otherwise count a forged vote or
// accept a forged append. The sender learns why; the stream ends.
func errForged(format string, args ...any) error {
	return status.Errorf(codes.PermissionDenied, format, args...)
}

// Send implements RaftServiceServer.
func (s *Server) Send(stream grpc.ClientStreamingServer[raftmsgpb.MessageBatch, raftmsgpb.BatchAck]) error {
	var approved uint64 // the sending store the check approved; 0 is no store
	for {
		batch, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(&raftmsgpb.BatchAck{})
		}
		if err != nil {
			return err
		}
		if batch.ToStore != s.storeID {
			return fmt.Errorf("raft batch for store %d reached store %d", batch.ToStore, s.storeID)
		}
		// A stream comes from one store: its certificate is checked once
		// per store it claims, not per batch.
		if s.check != nil && batch.FromStore != approved {
			if err := s.check(stream.Context(), batch.FromStore); err != nil {
				s.log.Warn("refusing raft stream", "from_store", batch.FromStore, "err", err)
				return errForged("raft batch from store %d: %v", batch.FromStore, err)
			}
			approved = batch.FromStore
		}
		for _, gm := range batch.Messages {
			m := &rpb.Message{}
			if err := proto.Unmarshal(gm.Message, m); err != nil {
				s.log.Warn("dropping undecodable raft message", "from", batch.FromStore, "err", err)
				continue
			}
			// Replica ids are store ids: a store sends only its own
			// replicas' messages. Except MsgTransferLeader, which names the
			// transferee as From and which a follower forwards to the
			// leader as it is (etcd raft's stepFollower).
			if (m.GetFrom() != batch.FromStore && m.GetType() != rpb.MessageType_MsgTransferLeader) || m.GetTo() != s.storeID {
				s.log.Warn("refusing raft stream: message not from the sending store", "from_store", batch.FromStore, "msg_from", m.GetFrom(), "msg_to", m.GetTo(), "group", GroupID{Space: gm.SpaceId, Part: gm.PartId})
				return errForged("raft batch from store %d to store %d carries a message from replica %d to replica %d", batch.FromStore, batch.ToStore, m.GetFrom(), m.GetTo())
			}
			// A group not (yet) created here drops the message; raft will
			// retry once the catalog has made the replica.
			_ = s.engine.Step(GroupID{Space: gm.SpaceId, Part: gm.PartId}, m)
		}
	}
}
