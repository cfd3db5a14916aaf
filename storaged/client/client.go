// Package client is the partition-aware storage client used by graphd and
// the importer: it groups work by partition leader, sends one request per
// host concurrently, and retries the partitions whose leader moved.
package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/grpcdial"
	"github.com/novagraph/novagraph/metad/catalog"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// retryBudget bounds the time one call spends chasing leaders: many
// election timeouts (1–2 s each at the default tick), so a call rides out a
// failover instead of failing it to the user. The caller's deadline still
// wins when it is shorter.
const (
	retryBudget = 30 * time.Second
	maxBackoff  = 500 * time.Millisecond
)

// PartError is a partition that failed after the client's retries.
type PartError struct {
	Part int32
	Code commonpb.ErrorCode
	Msg  string
}

func (e *PartError) Error() string {
	return fmt.Sprintf("partition %d: %s: %s", e.Part, e.Code, e.Msg)
}

// ErrorCode is the code the partition answered with.
func (e *PartError) ErrorCode() commonpb.ErrorCode { return e.Code }

// Partition is the partition that failed.
func (e *PartError) Partition() int32 { return e.Part }

// Client talks to storaged hosts. It is safe for concurrent use.
type Client struct {
	meta *metaclient.Client
	log  *slog.Logger

	mu      sync.Mutex
	conns   map[string]*grpc.ClientConn
	leaders map[partKey]uint64 // learned from responses; wins over the catalog
	retries int64

	// suspected, if set, says whether gossip suspects the storaged at an
	// address (gossip.Node.Suspected): routing then tries the partition's
	// other replicas first. rerouted counts the partitions routed so.
	suspected atomic.Pointer[func(addr string) bool]
	rerouted  atomic.Int64
	// failFastOffline: see SetFailFastOffline.
	failFastOffline atomic.Bool
}

type partKey struct{ space, part int32 }

// New returns a client that routes by the catalog in meta and connects
// with meta's TLS material (metaclient.WithTLS).
func New(meta *metaclient.Client, log *slog.Logger) *Client {
	return &Client{meta: meta, log: log, conns: map[string]*grpc.ClientConn{}, leaders: map[partKey]uint64{}}
}

// Close closes every connection.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cc := range c.conns {
		cc.Close()
	}
	c.conns = map[string]*grpc.ClientConn{}
}

// Retries is how many partition retries the client performed so far.
func (c *Client) Retries() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retries
}

func (c *Client) conn(addr string) (*grpc.ClientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cc := c.conns[addr]
	if cc == nil {
		var err error
		// gRPC's default reconnect backoff grows to 120 s: a connection to
		// a store that was down for a while then keeps failing for minutes
		// after the store is back and leading, and every call through it
		// fails at once. Cap it near an election timeout.
		backoffCfg := backoff.DefaultConfig
		backoffCfg.MaxDelay = time.Second
		// Names are looked up at each connection attempt (grpcdial): a
		// store's name is missing from Docker's or Kubernetes' DNS while
		// it restarts.
		cc, err = grpcdial.NewClient(addr, c.meta.TLS(), 2*time.Second, backoffCfg,
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
		if err != nil {
			return nil, fmt.Errorf("dialing storaged %s: %w", addr, err)
		}
		c.conns[addr] = cc
	}
	return cc, nil
}

// SetSuspicion makes routing avoid storaged hosts that suspected(addr)
// reports as probably dead (gossip), until a leader they host is needed
// and no other replica is left. Suspicion only reorders: a suspected host
// is still tried when every replica is suspected.
func (c *Client) SetSuspicion(suspected func(addr string) bool) {
	c.suspected.Store(&suspected)
}

// SetFailFastOffline makes a request fail as soon as a partition it still
// needs has every replica on a host metad reports offline, instead of
// retrying for the whole retry budget (30 s). graphd sets it: a query
// should say at once that a partition is down. The importer does not: its
// retries ride through a storaged restart.
func (c *Client) SetFailFastOffline(on bool) { c.failFastOffline.Store(on) }

// Rerouted is how many partition requests went to another replica because
// gossip suspected the leader's host.
func (c *Client) Rerouted() int64 { return c.rerouted.Load() }

// leaderGuess picks the store to send a partition to: the last leader a
// response named, else the catalog's leader, else a replica chosen by the
// attempt number so that retries walk the replicas. A guess whose host
// gossip suspects gives way to the next replica it does not suspect: a
// follower answers with the leader it knows (or fails fast while there is
// none), which beats waiting on a dead host's connection timeout.
func (c *Client) leaderGuess(snap *catalog.Snapshot, space, part int32, attempt int) (uint64, error) {
	replicas := snap.Parts(space)[part]
	c.mu.Lock()
	id, ok := c.leaders[partKey{space, part}]
	c.mu.Unlock()
	if !ok {
		if id, ok = snap.Leader(space, part); !ok || attempt > 0 {
			if len(replicas) == 0 {
				return 0, &PartError{Part: part, Code: commonpb.ErrorCode_E_PART_NOT_FOUND, Msg: fmt.Sprintf("space %d has no partition %d in the catalog", space, part)}
			}
			id = replicas[attempt%len(replicas)]
		}
	}
	if c.isSuspected(snap, id) {
		for i := range replicas {
			alt := replicas[(attempt+i)%len(replicas)]
			if alt != id && !c.isSuspected(snap, alt) {
				c.rerouted.Add(1)
				return alt, nil
			}
		}
	}
	return id, nil
}

func (c *Client) isSuspected(snap *catalog.Snapshot, store uint64) bool {
	f := c.suspected.Load()
	if f == nil {
		return false
	}
	addr, ok := snap.HostAddr(store)
	return ok && (*f)(addr)
}

func (c *Client) setLeader(space, part int32, store uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if store == 0 {
		delete(c.leaders, partKey{space, part})
		return
	}
	c.leaders[partKey{space, part}] = store
}

// noLiveReplica fails a retry at once, rather than at the end of the retry
// budget, when a partition left has every replica on a host metad reports
// offline (its heartbeat lease ran out): no leader can be elected until
// one of them comes back, which is what the error says. The request was
// not delivered to a leader, as when the budget runs out.
func noLiveReplica(snap *catalog.Snapshot, space int32, parts []int32) error {
	for _, p := range parts {
		replicas := snap.Parts(space)[p]
		var addrs []string
		for _, id := range replicas {
			h, ok := snap.Host(id)
			if !ok || h.GetOnline() {
				addrs = nil
				break
			}
			addr, _ := snap.HostAddr(id)
			addrs = append(addrs, addr)
		}
		if len(replicas) > 0 && len(addrs) == len(replicas) {
			return fmt.Errorf("storage request: partition %d has no leader: every replica is on a host metad reports offline (%s); it serves again when one of them is back",
				p, strings.Join(addrs, ", "))
		}
	}
	return nil
}

// hostCall sends the given partitions to one host and returns the
// partitions that failed there. A transport error fails them all.
type hostCall func(ctx context.Context, conn grpc.ClientConnInterface, parts []int32) ([]*storagepb.PartResult, error)

// fanOut routes parts to their leaders, calls each host once per round and
// retries the partitions that report a leader change or an unreachable host.
//
// write marks calls whose retry is only safe when the request certainly did
// not take effect: a write is retried after a leader change (a follower
// never proposes) or when its host could not be dialled, but not after a
// timeout, an ambiguous leader change, or a connection lost mid-call —
// applying it twice around another write would break linearizability, so
// the caller learns the outcome is unknown.
func (c *Client) fanOut(ctx context.Context, space int32, parts []int32, write bool, call hostCall) error {
	remaining := parts
	deadline := time.Now().Add(retryBudget)
	for attempt := 0; len(remaining) > 0; attempt++ {
		if attempt > 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("storage request: partitions %v still without a reachable leader after %v (%d attempts)", remaining, retryBudget, attempt)
			}
			c.mu.Lock()
			c.retries += int64(len(remaining))
			c.mu.Unlock()
			select {
			case <-ctx.Done():
				return fmt.Errorf("storage request for %d partitions: %w", len(remaining), ctx.Err())
			case <-time.After(min(time.Duration(attempt)*50*time.Millisecond, maxBackoff)):
			}
		}
		snap := c.meta.Catalog()
		if attempt > 0 && c.failFastOffline.Load() {
			if err := noLiveReplica(snap, space, remaining); err != nil {
				return err
			}
		}
		byHost := map[uint64][]int32{}
		for _, p := range remaining {
			store, err := c.leaderGuess(snap, space, p, attempt)
			if err != nil {
				return err
			}
			byHost[store] = append(byHost[store], p)
		}
		var mu sync.Mutex
		var retry []int32
		var fatal error
		var wg sync.WaitGroup
		host := func(store uint64, hostParts []int32) {
			again, err := c.callHost(ctx, snap, space, store, hostParts, write, call)
			mu.Lock()
			defer mu.Unlock()
			retry = append(retry, again...)
			if err != nil && fatal == nil {
				fatal = err
			}
		}
		// One host's call runs on the caller's goroutine (a request to
		// one host is the common case at small scale: a new goroutine
		// would start on a fresh stack and grow it for gRPC).
		n := 0
		for store, hostParts := range byHost {
			n++
			if n == len(byHost) {
				host(store, hostParts)
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				host(store, hostParts)
			}()
		}
		wg.Wait()
		if fatal != nil {
			return fatal
		}
		remaining = retry
	}
	return nil
}

// callHost runs one host's share and classifies its failures into
// partitions to retry and a permanent error.
func (c *Client) callHost(ctx context.Context, snap *catalog.Snapshot, space int32, store uint64, parts []int32, write bool, call hostCall) ([]int32, error) {
	addr, ok := snap.HostAddr(store)
	if !ok {
		for _, p := range parts {
			c.setLeader(space, p, 0)
		}
		return parts, nil
	}
	conn, err := c.conn(addr)
	if err != nil {
		return nil, err
	}
	failed, err := call(ctx, conn, parts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("storaged %s: %w", addr, ctx.Err())
		}
		if permanent(err) {
			// The host answered, and no other replica will answer
			// differently: retrying would only wait out the budget.
			return nil, &PartError{Part: parts[0], Code: commonpb.ErrorCode_E_STORAGE,
				Msg: fmt.Sprintf("storaged %s refused the call: %v", addr, err)}
		}
		if write && !notSent(err) {
			return nil, &PartError{Part: parts[0], Code: commonpb.ErrorCode_E_OUTCOME_UNKNOWN,
				Msg: fmt.Sprintf("connection to storaged %s failed during the write, which may or may not have applied: %v", addr, err)}
		}
		// Unreachable host: forget it as leader and try other replicas.
		// The connection redials within its backoff, capped at a second;
		// ResetConnectBackoff is not called to shorten it: in gRPC 1.85 it
		// ranges over the connection map outside the ClientConn's lock, a
		// data race with the balancer adding a connection.
		c.log.Debug("storaged unreachable, retrying elsewhere", "addr", addr, "err", err)
		for _, p := range parts {
			c.setLeader(space, p, 0)
		}
		return parts, nil
	}
	var retry []int32
	for _, f := range failed {
		switch f.Code {
		case commonpb.ErrorCode_E_LEADER_CHANGED, commonpb.ErrorCode_E_PART_NOT_FOUND:
			c.setLeader(space, f.PartId, f.LeaderStoreId)
			retry = append(retry, f.PartId)
		case commonpb.ErrorCode_E_TIMEOUT:
			if ctx.Err() != nil || write {
				return nil, &PartError{Part: f.PartId, Code: f.Code, Msg: f.Message}
			}
			retry = append(retry, f.PartId)
		case commonpb.ErrorCode_E_DISK_FULL:
			// The leader's data disk is full: it refused the write before
			// proposing it, so the failure is definite. Not a leader
			// change: no other replica may take the write until the
			// leader hands leadership on (which it does when it can), so
			// retrying would only wait out the budget. The message names
			// the store and the disk.
			return nil, &PartError{Part: f.PartId, Code: f.Code, Msg: f.Message}
		default:
			return nil, &PartError{Part: f.PartId, Code: f.Code, Msg: f.Message}
		}
	}
	return retry, nil
}

func keys[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// GetNeighbors runs tmpl (everything but Parts) for the vids of each
// partition and returns every vertex's neighbors.
func (c *Client) GetNeighbors(ctx context.Context, tmpl *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList) ([]*storagepb.VertexNeighbors, error) {
	return c.GetNeighborsStream(ctx, tmpl, parts, nil)
}

// GetProps reads properties of vertices or edges (tmpl without the parts).
func (c *Client) GetProps(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList, edgeParts map[int32]*storagepb.EdgeKeyList) ([]*storagepb.PropRow, error) {
	return collectProps(ctx, c, tmpl, vertexParts, edgeParts, func(r *storagepb.GetPropsResp) []*storagepb.PropRow { return r.Rows }, nil)
}

// notSent reports whether a call failed before its request could reach the
// server: the connection could not be established.
// permanent reports a gRPC error that says the call itself is wrong for
// the server (unknown method, bad request, too large), not that the host
// is unreachable or busy.
func permanent(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Unimplemented, codes.InvalidArgument, codes.ResourceExhausted, codes.PermissionDenied,
		codes.Unauthenticated, codes.FailedPrecondition, codes.OutOfRange:
		return true
	}
	return false
}

func notSent(err error) bool {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Unavailable {
		return false
	}
	msg := st.Message()
	return strings.Contains(msg, "while dialing") || strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host")
}

// IsPartError reports whether err is a permanent partition error.
func IsPartError(err error) (*PartError, bool) {
	var pe *PartError
	ok := errors.As(err, &pe)
	return pe, ok
}

// AddrString formats a host address.
func AddrString(a *commonpb.HostAddr) string {
	return net.JoinHostPort(a.GetHost(), strconv.Itoa(int(a.GetPort())))
}
