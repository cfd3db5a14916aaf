// Package client is the catalog cache graphd and storaged keep: one
// goroutine follows metad's WatchCatalog stream and swaps in an immutable
// Snapshot per version, so readers never lock and never see a half-applied
// change. A waiter the stream leaves behind reads the catalog from metad
// itself (WaitVersion). It also wraps the catalog-writing RPCs so that a caller can use
// what it just created at once.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/grpcdial"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Error is a call metad answered with a code other than SUCCEEDED.
type Error struct {
	Code commonpb.ErrorCode
	Msg  string
}

func (e *Error) Error() string { return "metad: " + e.Code.String() + ": " + e.Msg }

// ErrorCode is the code metad answered with.
func (e *Error) ErrorCode() commonpb.ErrorCode { return e.Code }

// CodeOf is the ErrorCode of err: SUCCEEDED for nil, the code of an *Error,
// E_TIMEOUT for an expired or cancelled context and E_UNKNOWN otherwise
// (metad unreachable, for instance).
func CodeOf(err error) commonpb.ErrorCode {
	var e *Error
	switch {
	case err == nil:
		return commonpb.ErrorCode_SUCCEEDED
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return commonpb.ErrorCode_E_TIMEOUT
	default:
		return commonpb.ErrorCode_E_UNKNOWN
	}
}

// ErrClosed is returned by waits on a closed Client.
var ErrClosed = errors.New("meta client closed")

// Watch reconnection backoff: quick enough to pick up a restarted metad in
// well under a second, capped so an outage costs little.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 3 * time.Second
)

// Client caches the catalog of the metad at one of addrs.
type Client struct {
	addrs []string
	log   *slog.Logger
	tls   *nodetls.Config
	conns []*grpc.ClientConn
	stubs []metapb.MetaServiceClient

	// preferred is the index of the metad unary calls try first: the last
	// one that answered.
	preferred atomic.Int64

	// snap is the newest catalog installed. The watch goroutine installs
	// what the stream sends and refresh what it reads directly; installMu
	// orders the two so that the cache never goes back a version.
	snap      atomic.Pointer[catalog.Snapshot]
	installMu sync.Mutex

	// wake cuts the watch goroutine's reconnect backoff short; refreshing
	// keeps concurrent waiters to one direct read at a time.
	wake       chan struct{}
	refreshing atomic.Bool

	cancel    context.CancelFunc
	done      chan struct{} // closed when the watch goroutine has exited
	closeOnce sync.Once
}

// Option configures a Client.
type Option func(*Client)

// WithTLS makes the client connect to metad over TLS with cfg's
// certificates, and the storaged clients built on it (storaged/client)
// connect with them too. nil: plaintext.
func WithTLS(cfg *nodetls.Config) Option { return func(c *Client) { c.tls = cfg } }

// TLS is the TLS material the client connects with (nil: plaintext).
func (c *Client) TLS() *nodetls.Config { return c.tls }

// New starts following the catalog of the metad processes at addrs
// ("host:port"). It returns at once; the cache starts empty (version 0) and
// WaitVersion(ctx, 1) waits for the first catalog.
func New(addrs []string, logger *slog.Logger, opts ...Option) *Client {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		log:    logger.With("component", "meta-client"),
		cancel: cancel,
		done:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(c)
	}
	c.snap.Store(catalog.NewSnapshot(&metapb.Catalog{}))
	for _, addr := range addrs {
		// Names are looked up at each connection attempt (grpcdial).
		// gRPC's default reconnect backoff grows to two minutes; a
		// restarted metad must be picked up within about a second.
		conn, err := grpcdial.NewClient(addr, c.tls, 2*time.Second,
			backoff.Config{BaseDelay: minBackoff, Multiplier: 1.6, Jitter: 0.2, MaxDelay: maxBackoff},
			// Pings detect a metad that vanished without closing the
			// connection (host down, network partition).
			grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 5 * time.Second, PermitWithoutStream: true}),
			// Catalogs of many spaces with many partitions outgrow gRPC's
			// 4 MiB default.
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20)),
		)
		if err != nil {
			c.log.Error("ignoring unusable metad address", "addr", addr, "err", err)
			continue
		}
		c.addrs = append(c.addrs, addr)
		c.conns = append(c.conns, conn)
		c.stubs = append(c.stubs, metapb.NewMetaServiceClient(conn))
	}
	go c.run(ctx)
	return c
}

// Close stops following the catalog; the last snapshot stays readable.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.cancel()
		<-c.done
		for _, conn := range c.conns {
			_ = conn.Close()
		}
	})
}

// Addrs returns the metad addresses the client was given.
func (c *Client) Addrs() []string { return slices.Clone(c.addrs) }

// Catalog is the newest catalog snapshot.
func (c *Client) Catalog() *catalog.Snapshot { return c.snap.Load() }

// WaitVersion blocks until the cache holds a catalog of version ≥ v.
//
// A request names the version its sender had, so normally the stream
// delivers it within milliseconds. When it has not after staleGrace, the
// stream is not keeping up: it may be in reconnect backoff after a metad
// outage, or attached to a metad whose etcd member still lags. The waiter
// then reads the catalog from every metad directly (refresh), every
// staleGrace until ctx ends, rather than fail a request a healthy metad
// could serve.
func (c *Client) WaitVersion(ctx context.Context, v int64) error {
	var stale <-chan time.Time
	for {
		s := c.snap.Load()
		if s.Version() >= v {
			return nil
		}
		if stale == nil {
			t := time.NewTimer(staleGrace)
			defer t.Stop()
			stale = t.C
		}
		select {
		case <-s.Changed():
		case <-stale:
			c.refresh(ctx, v)
			stale = time.After(staleGrace)
		case <-ctx.Done():
			return fmt.Errorf("waiting for catalog version %d (cache at %d): %w", v, c.snap.Load().Version(), ctx.Err())
		case <-c.done:
			return ErrClosed
		}
	}
}

// staleGrace is how long a waiter trusts the stream to bring a version it
// needs before it reads the catalog itself. A few times a healthy stream's
// delay, and well below storaged's catalog wait.
const staleGrace = 250 * time.Millisecond

// refresh reads the catalog from every metad at once and installs each
// answer, until one has version v or all have answered. It also wakes the
// watch goroutine and the connections from their reconnect backoff, so
// that the stream itself recovers. While one refresh runs, others return at
// once: their waiters see its result through the snapshot's Changed.
func (c *Client) refresh(ctx context.Context, v int64) {
	if !c.refreshing.CompareAndSwap(false, true) {
		return
	}
	defer c.refreshing.Store(false)
	select {
	case c.wake <- struct{}{}:
	default:
	}
	// No ResetConnectBackoff here: in gRPC 1.85 it ranges over the
	// ClientConn's connection map outside its lock, a data race with the
	// balancer adding a connection (the race detector caught it in
	// TestMetaHAServesQueries). The reconnect backoff is capped at
	// maxBackoff instead.
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	answers := make(chan *metapb.Catalog, len(c.stubs))
	for _, stub := range c.stubs {
		go func() {
			// WaitForReady: a connection that is reconnecting is given
			// until the timeout rather than failed at once.
			resp, err := stub.GetCatalog(ctx, &metapb.GetCatalogReq{}, grpc.WaitForReady(true))
			if err != nil || statusErr(resp.GetStatus()) != nil {
				answers <- nil
				return
			}
			answers <- resp.GetCatalog()
		}()
	}
	for range c.stubs {
		if cat := <-answers; cat != nil {
			c.install(cat)
			if cat.GetVersion() >= v {
				return // the others end with ctx
			}
		}
	}
}

// refreshTimeout bounds one refresh, so that a dead metad costs a waiter
// one timeout and not its whole deadline before the next attempt.
const refreshTimeout = time.Second

// run owns the watch stream: it keeps one open to some metad, moving to the
// next address whenever a stream fails, and installs every catalog it
// receives. While no metad is reachable the last catalog stays in place.
func (c *Client) run(ctx context.Context) {
	defer close(c.done)
	if len(c.stubs) == 0 {
		c.log.Error("no usable metad address; the catalog will stay empty")
		return
	}
	delay := minBackoff
	for i := 0; ; i = (i + 1) % len(c.stubs) {
		received, err := c.watch(ctx, i)
		if ctx.Err() != nil {
			return
		}
		if received {
			delay = minBackoff
		}
		c.log.Warn("catalog watch ended; reconnecting", "metad", c.addrs[i], "err", err,
			"version", c.Catalog().Version(), "retry_in", delay)
		// Jitter keeps many clients from reconnecting to a restarted
		// metad in lockstep.
		select {
		case <-time.After(delay/2 + rand.N(delay/2+1)):
			delay = min(2*delay, maxBackoff)
		case <-c.wake:
			// A waiter needs a newer catalog than the cache has: try
			// now rather than after the backoff.
		case <-ctx.Done():
			return
		}
	}
}

// watch follows one stream from metad i until it fails and reports whether
// it received anything.
func (c *Client) watch(ctx context.Context, i int) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.stubs[i].WatchCatalog(ctx, &metapb.WatchCatalogReq{KnownVersion: c.Catalog().Version()})
	if err != nil {
		return false, err
	}
	received := false
	for {
		cat, err := stream.Recv()
		if err != nil {
			return received, err
		}
		received = true
		c.install(cat)
	}
}

// install makes cat the current snapshot unless it is not newer, which
// happens only when a metad whose catalog lags answers after one that did
// not.
func (c *Client) install(cat *metapb.Catalog) {
	c.installMu.Lock()
	defer c.installMu.Unlock()
	old := c.snap.Load()
	if cat.GetVersion() <= old.Version() {
		c.log.Debug("ignoring catalog that is not newer", "version", cat.GetVersion(), "have", old.Version())
		return
	}
	c.snap.Store(catalog.NewSnapshot(cat))
	old.Supersede()
}

// call runs fn against the preferred metad, and against the others in turn
// while it cannot reach one. When none is reachable it tries again, with
// backoff, until ctx ends or no metad has answered for failoverWindow, so
// that a call rides out a metad restart or an etcd election but a DDL
// does not hang on a dead metad cluster. Only gRPC Unavailable is retried:
// the call then never reached metad, or metad refused it because its etcd
// member has no leader (metad/ha.go); either way nothing was written (a
// write that did reach metad answers E_EXISTED on a retry).
func (c *Client) call(ctx context.Context, method string, fn func(metapb.MetaServiceClient) error) error {
	n := len(c.stubs)
	if n == 0 {
		return fmt.Errorf("metad %s: no usable metad address", method)
	}
	delay := minBackoff
	began := time.Now()
	last := make([]error, n) // each metad's last failure, for the message
	for {
		start := int(c.preferred.Load())
		for k := range n {
			i := (start + k) % n
			err := fn(c.stubs[i])
			if err == nil {
				c.preferred.Store(int64(i))
				return nil
			}
			if status.Code(err) != codes.Unavailable || ctx.Err() != nil {
				return fmt.Errorf("metad %s at %s: %w", method, c.addrs[i], err)
			}
			last[i] = err
		}
		var cause error
		if time.Since(began)+delay >= failoverWindow {
			cause = fmt.Errorf("gave up after %s", time.Since(began).Round(100*time.Millisecond))
		} else {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				cause = ctx.Err()
			}
		}
		if cause != nil {
			return &UnavailableError{Method: method, Addrs: c.addrs, Errs: last, Cause: cause}
		}
		delay = min(2*delay, maxBackoff)
	}
}

// failoverWindow bounds how long call keeps trying while no metad answers.
// It covers a metad restart and an etcd election (about a second) with a
// wide margin, and stays well below graphd's query timeout, so that a DDL
// fails with UnavailableError (which names the metad tried) rather than
// with the query's timeout.
const failoverWindow = 10 * time.Second

// UnavailableError is a call that no metad could serve: every address was
// unreachable or refused it (a metad without an etcd quorum does), until
// the caller's context ended or the client gave up. Nothing was written.
type UnavailableError struct {
	Method string
	Addrs  []string
	Errs   []error // Errs[i] is the last failure of Addrs[i]
	Cause  error   // the context's error, or the client giving up
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "metad %s: no metad could serve it (%v); tried ", e.Method, e.Cause)
	for i, addr := range e.Addrs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(addr)
		if i < len(e.Errs) && e.Errs[i] != nil {
			msg := e.Errs[i].Error()
			if st, ok := status.FromError(e.Errs[i]); ok {
				// metad's own refusals start with its address.
				msg = strings.TrimPrefix(st.Message(), "metad "+addr+": ")
			}
			b.WriteString(": " + msg)
		}
	}
	return b.String()
}

func (e *UnavailableError) Unwrap() error { return e.Cause }

func statusErr(s *metapb.Status) error {
	if s.GetCode() == commonpb.ErrorCode_SUCCEEDED {
		return nil
	}
	return &Error{Code: s.GetCode(), Msg: s.GetMessage()}
}

// await waits for the cache to reach the version a write returned. The write
// is committed either way; the error says only that the cache lags.
func (c *Client) await(ctx context.Context, what string, version int64) error {
	if err := c.WaitVersion(ctx, version); err != nil {
		return fmt.Errorf("%s committed at catalog version %d, but the cache has not caught up: %w", what, version, err)
	}
	return nil
}

// CreateSpace creates space (its space_id is assigned) and returns its id
// and the catalog version that has it, once the cache has that version.
func (c *Client) CreateSpace(ctx context.Context, space *metapb.SpaceDesc, ifNotExists bool) (int32, int64, error) {
	var resp *metapb.CreateSpaceResp
	err := c.call(ctx, "CreateSpace", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.CreateSpace(ctx, &metapb.CreateSpaceReq{Space: space, IfNotExists: ifNotExists})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, 0, err
	}
	return resp.SpaceId, resp.Version, c.await(ctx, "CreateSpace", resp.Version)
}

// DropSpace drops the space and everything in it from the catalog.
func (c *Client) DropSpace(ctx context.Context, name string, ifExists bool) (int64, error) {
	var resp *metapb.DropSpaceResp
	err := c.call(ctx, "DropSpace", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.DropSpace(ctx, &metapb.DropSpaceReq{Name: name, IfExists: ifExists})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "DropSpace", resp.Version)
}

// CreateSchema creates a tag (or, with req.IsEdge, an edge type) and returns
// its id once the cache has it.
func (c *Client) CreateSchema(ctx context.Context, req *metapb.CreateSchemaReq) (int32, int64, error) {
	var resp *metapb.CreateSchemaResp
	err := c.call(ctx, "CreateSchema", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.CreateSchema(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, 0, err
	}
	return resp.Id, resp.Version, c.await(ctx, "CreateSchema", resp.Version)
}

// AlterSchema appends a schema version to a tag or edge type (req.IsEdge)
// and returns the catalog version that has it, once the cache has that
// version.
func (c *Client) AlterSchema(ctx context.Context, req *metapb.AlterSchemaReq) (int64, error) {
	var resp *metapb.AlterSchemaResp
	err := c.call(ctx, "AlterSchema", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.AlterSchema(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "AlterSchema", resp.Version)
}

// DropSchema drops a tag or edge type (req.IsEdge) from the catalog and
// returns the catalog version without it, once the cache has that version.
func (c *Client) DropSchema(ctx context.Context, req *metapb.DropSchemaReq) (int64, error) {
	var resp *metapb.DropSchemaResp
	err := c.call(ctx, "DropSchema", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.DropSchema(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "DropSchema", resp.Version)
}

// CreateIndex creates a tag or edge index (req.IsEdge) and returns its id
// (the existing one's with req.IfNotExists) once the cache has it.
func (c *Client) CreateIndex(ctx context.Context, req *metapb.CreateIndexReq) (int32, int64, error) {
	var resp *metapb.CreateIndexResp
	err := c.call(ctx, "CreateIndex", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.CreateIndex(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, 0, err
	}
	return resp.IndexId, resp.Version, c.await(ctx, "CreateIndex", resp.Version)
}

// DropIndex drops a tag or edge index (req.IsEdge) and returns the catalog
// version without it, once the cache has that version.
func (c *Client) DropIndex(ctx context.Context, req *metapb.DropIndexReq) (int64, error) {
	var resp *metapb.DropIndexResp
	err := c.call(ctx, "DropIndex", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.DropIndex(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "DropIndex", resp.Version)
}

// RegisterHost returns the store id of the host at addr, assigning one the
// first time; the same address always gets the same id.
func (c *Client) RegisterHost(ctx context.Context, addr *commonpb.HostAddr) (uint64, int64, error) {
	return c.RegisterHostInZone(ctx, addr, "")
}

// Heartbeat keeps the host online and reports the partitions it leads. It
// returns the catalog version after the heartbeat, but unlike the other
// writes does not wait for the cache to reach it: a host's liveness must not
// depend on the health of its watch stream. A caller that needs the cache to
// show its own leaders can WaitVersion on the result.
func (c *Client) Heartbeat(ctx context.Context, req *metapb.HeartbeatReq) (int64, error) {
	var resp *metapb.HeartbeatResp
	err := c.call(ctx, "Heartbeat", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.Heartbeat(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, nil
}

// GetCatalog reads the catalog from metad directly, bypassing the cache.
func (c *Client) GetCatalog(ctx context.Context) (*metapb.Catalog, error) {
	var resp *metapb.GetCatalogResp
	err := c.call(ctx, "GetCatalog", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.GetCatalog(ctx, &metapb.GetCatalogReq{})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return nil, err
	}
	return resp.Catalog, nil
}

// UpdatePartReplicas compare-and-sets a partition's replica and learner
// lists and waits until this cache has the result.
func (c *Client) UpdatePartReplicas(ctx context.Context, req *metapb.UpdatePartReplicasReq) (int64, error) {
	var resp *metapb.UpdatePartReplicasResp
	err := c.call(ctx, "UpdatePartReplicas", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.UpdatePartReplicas(ctx, req)
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "UpdatePartReplicas", resp.Version)
}

// writeUser runs one of the user and role RPCs, which all answer a Status
// and a catalog version, and waits until the cache has that version. All
// but ChangePassword need ctx to carry the credential of a user allowed to
// make the call (WithCredential); metad refuses them otherwise.
func (c *Client) writeUser(ctx context.Context, method string, fn func(metapb.MetaServiceClient) (*metapb.Status, int64, error)) (int64, error) {
	var st *metapb.Status
	var version int64
	err := c.call(ctx, method, func(s metapb.MetaServiceClient) (err error) {
		st, version, err = fn(s)
		return err
	})
	if err == nil {
		err = statusErr(st)
	}
	if err != nil {
		return 0, err
	}
	return version, c.await(ctx, method, version)
}

// CreateUser creates a user with a password (metad stores its bcrypt hash)
// and returns the catalog version that has it, once the cache has it.
func (c *Client) CreateUser(ctx context.Context, name, password string, ifNotExists bool) (int64, error) {
	ctx = AttachCredential(ctx)
	return c.writeUser(ctx, "CreateUser", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.CreateUser(ctx, &metapb.CreateUserReq{Name: name, Password: password, IfNotExists: ifNotExists})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}

// DropUser drops a user and its roles (never root).
func (c *Client) DropUser(ctx context.Context, name string, ifExists bool) (int64, error) {
	ctx = AttachCredential(ctx)
	return c.writeUser(ctx, "DropUser", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.DropUser(ctx, &metapb.DropUserReq{Name: name, IfExists: ifExists})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}

// AlterUser sets a user's password.
func (c *Client) AlterUser(ctx context.Context, name, password string) (int64, error) {
	ctx = AttachCredential(ctx)
	return c.writeUser(ctx, "AlterUser", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.AlterUser(ctx, &metapb.AlterUserReq{Name: name, Password: password})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}

// ChangePassword sets a user's password if old is the current one.
func (c *Client) ChangePassword(ctx context.Context, name, old, password string) (int64, error) {
	return c.writeUser(ctx, "ChangePassword", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.ChangePassword(ctx, &metapb.ChangePasswordReq{Name: name, OldPassword: old, NewPassword: password})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}

// GrantRole gives the user the role on the space, replacing its role there,
// and returns once the cache has the change, so the grant is in force for
// the next statement of every session on this graphd.
func (c *Client) GrantRole(ctx context.Context, user string, spaceID int32, role metapb.RoleType) (int64, error) {
	ctx = AttachCredential(ctx)
	return c.writeUser(ctx, "GrantRole", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.GrantRole(ctx, &metapb.GrantRoleReq{User: user, SpaceId: spaceID, Role: role})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}

// RevokeRole takes the user's role on the space away; role must be the one
// it has.
func (c *Client) RevokeRole(ctx context.Context, user string, spaceID int32, role metapb.RoleType) (int64, error) {
	ctx = AttachCredential(ctx)
	return c.writeUser(ctx, "RevokeRole", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.RevokeRole(ctx, &metapb.RevokeRoleReq{User: user, SpaceId: spaceID, Role: role})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}

// Verified is what VerifyUser learns of a login.
type Verified struct {
	// OK is false both for an unknown user and for a wrong password.
	OK bool
	// Version is a catalog version that knows the user (VerifyUser does
	// not wait for it) and Created the user's UserInfo.create_version.
	Version, Created int64
	// Credential is metad's proof of the sign-in, opaque: the session
	// attaches it (WithCredential) to the users and roles calls it makes.
	Credential []byte
}

// VerifyUser checks a login; err is set only when metad could not check.
func (c *Client) VerifyUser(ctx context.Context, name, password string) (Verified, error) {
	var resp *metapb.VerifyUserResp
	err := c.call(ctx, "VerifyUser", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.VerifyUser(ctx, &metapb.VerifyUserReq{Name: name, Password: password})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return Verified{}, err
	}
	return Verified{OK: resp.Ok, Version: resp.Version, Created: resp.CreateVersion, Credential: resp.Credential}, nil
}

// WhoAmI asks metad whose credential ctx carries (WithCredential): the
// user it was issued to, if that user still exists as it signed in.
func (c *Client) WhoAmI(ctx context.Context) (string, error) {
	ctx = AttachCredential(ctx)
	var resp *metapb.WhoAmIResp
	err := c.call(ctx, "WhoAmI", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.WhoAmI(ctx, &metapb.WhoAmIReq{})
		return err
	})
	if err == nil {
		err = statusErr(resp.GetStatus())
	}
	if err != nil {
		return "", err
	}
	return resp.GetUser(), nil
}

// CredentialHeader is the gRPC metadata key (binary: gRPC base64-encodes
// it on the wire) under which a users or roles call, and a call to a peer
// graphd, carries a session's credential. metad refuses such a call
// without one.
const CredentialHeader = "novagraph-credential-bin"

// credentialKey is the context key of WithCredential.
type credentialKey struct{}

// WithCredential returns ctx carrying the credential of a signed-in user
// (Verified.Credential), which the users and roles calls made with it send
// to metad; nil leaves ctx as it is. It is a context value, not outgoing
// metadata: a statement's context also reaches storaged, which must not
// see a credential, a bearer token for metad.
func WithCredential(ctx context.Context, credential []byte) context.Context {
	if len(credential) == 0 {
		return ctx
	}
	return context.WithValue(ctx, credentialKey{}, credential)
}

// sendCredential returns ctx whose gRPC calls carry the credential ctx
// holds (WithCredential), for the users and roles calls.
func AttachCredential(ctx context.Context) context.Context {
	c, _ := ctx.Value(credentialKey{}).([]byte)
	if len(c) == 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, CredentialHeader, string(c))
}
