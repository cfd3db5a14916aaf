package metad

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// metad HA (docs/architecture.md, "metad HA"). Several metad embed one
// etcd cluster, one member each (--meta-peers), and every metad serves
// reads and writes: each write is an etcd transaction whose comparisons
// cover what it read (txn.go), so two metad can never interleave a
// read-modify-write. What must happen once per cluster is a transaction
// too, never a loop run by a chosen metad: root is created by a
// create-if-absent transaction (bootstrapRoot), ids come from counters
// read and bumped in the transaction that uses them, a host's lease is
// attached by a transaction that asserts the alive key it read (a losing
// heartbeat revokes the lease it granted), hosts are added and dropped
// by transactions that assert the host and placement keys they read. So
// the request handlers need no leader: any metad may serve any of them,
// concurrently with the others. Only a background writer whose steps are
// not each one guarded transaction needs a single runner cluster-wide (an
// etcd election through go.etcd.io/etcd/client/v3/concurrency, or a job
// claimed by a transaction); the catalog watch, the only other background
// goroutine, writes nothing.
//
// A metad whose etcd member has no leader (it is cut off from the quorum,
// or the cluster is electing) answers every unary call with gRPC
// Unavailable, and ends WatchCatalog streams once its catalog watch keeps
// failing; the metad client then moves to the next metad. Nothing was
// written in either case.

// codeNoQuorum marks, between toStatus and requireQuorum, a request whose
// etcd call found no leader. It never reaches a client: requireQuorum
// turns it into gRPC Unavailable.
const codeNoQuorum = commonpb.ErrorCode_E_LEADER_CHANGED

// WatchCatalog ends its stream after its catalog watch has failed at
// watchHealthFailures checks in a row, watchHealthInterval apart.
const (
	watchHealthInterval = time.Second
	watchHealthFailures = 2
)

// requireQuorum refuses a call at once while this metad's embedded etcd
// member has no leader, makes every etcd call of the handler fail fast
// rather than wait for a leader (clientv3.WithRequireLeader), and cancels
// the handler when the member loses its leader midway: a linearizable read
// on a member cut off from the quorum would otherwise wait for the
// caller's whole deadline. Such failures are answered with gRPC
// Unavailable, which the metad client retries on the next metad, unless
// the handler had begun committing a transaction, whose outcome is then
// unknown (the answer stays E_TIMEOUT or E_UNKNOWN).
func (s *Server) requireQuorum(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if !strings.HasPrefix(info.FullMethod, "/novagraph.") {
		return handler(ctx, req) // health, reflection: they answer for themselves
	}
	if s.etcd != nil && s.etcd.Server.Leader() == 0 {
		return nil, status.Errorf(codes.Unavailable,
			"metad %s: its etcd member has no leader (the metad cluster has lost its quorum, or is electing a leader)", s.Addr())
	}
	st := &requestState{}
	ctx, cancel := context.WithCancelCause(context.WithValue(clientv3.WithRequireLeader(ctx), requestStateKey{}, st))
	defer cancel(nil)
	if s.etcd != nil {
		go s.cancelOnLostLeader(ctx, cancel)
	}
	resp, err := handler(ctx, req)
	r, ok := resp.(interface{ GetStatus() *metapb.Status })
	if !ok || err != nil {
		return resp, err
	}
	switch code := r.GetStatus().GetCode(); {
	case code == codeNoQuorum:
		return nil, status.Errorf(codes.Unavailable, "metad %s: %s", s.Addr(), r.GetStatus().GetMessage())
	case (code == commonpb.ErrorCode_E_TIMEOUT || code == commonpb.ErrorCode_E_UNKNOWN) &&
		errors.Is(context.Cause(ctx), errLostLeader) && !st.committing.Load():
		return nil, status.Errorf(codes.Unavailable, "metad %s: %v while serving the request", s.Addr(), errLostLeader)
	}
	return resp, err
}

// errLostLeader cancels a request whose etcd member lost its leader.
var errLostLeader = errors.New("its etcd member lost its leader (the metad cluster has lost its quorum, or is electing a leader)")

// lostLeaderPoll is how often a request checks its etcd member's leader.
const lostLeaderPoll = 50 * time.Millisecond

// cancelOnLostLeader cancels ctx with errLostLeader once the embedded etcd
// member has no leader; it returns when ctx ends.
func (s *Server) cancelOnLostLeader(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(lostLeaderPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.etcd.Server.Leader() == 0 {
				cancel(errLostLeader)
				return
			}
		}
	}
}

// requestState is what requireQuorum needs to know of a request's
// progress: whether a transaction commit was sent (update marks it).
type requestState struct{ committing atomic.Bool }

type requestStateKey struct{}

// markCommitting records on ctx's request, if any, that a transaction is
// being committed: from then on a failure may have written.
func markCommitting(ctx context.Context) {
	if st, ok := ctx.Value(requestStateKey{}).(*requestState); ok {
		st.committing.Store(true)
	}
}

// MetaPeers is the embedded etcd membership that --meta-peers describes.
type MetaPeers struct {
	// Name is this metad's member name and InitialCluster the
	// "name=http://host:port,..." list of all members: Config.EtcdName
	// and Config.EtcdInitialCluster.
	Name           string
	InitialCluster string
	// Size is the number of members.
	Size int
}

// ParseMetaPeers reads the --meta-peers list: the etcd peer address of
// every metad, comma-separated, identical on all of them, as in
// "10.0.0.1:2380,10.0.0.2:2380,10.0.0.3:2380". An entry may name its member
// ("meta1=10.0.0.1:2380") and may carry the scheme ("http://10.0.0.1:2380",
// or https://, the same: metad picks it from whether TLS is on);
// an unnamed member is called after its address ("metad-10.0.0.1-2380"),
// which every metad derives alike. self is this metad's --etcd-peer-addr,
// which must be one of the entries, written the same way.
func ParseMetaPeers(peers, self string) (MetaPeers, error) {
	selfAddr, err := normalizePeer(self)
	if err != nil {
		return MetaPeers{}, fmt.Errorf("--etcd-peer-addr %q: %w", self, err)
	}
	var out MetaPeers
	var members []string
	names := map[string]bool{}
	addrs := map[string]bool{}
	for _, entry := range strings.Split(peers, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, addr, named := strings.Cut(entry, "=")
		if !named {
			name, addr = "", entry
		}
		hp, err := normalizePeer(addr)
		if err != nil {
			return MetaPeers{}, fmt.Errorf("--meta-peers entry %q: %w", entry, err)
		}
		if name == "" {
			if named {
				return MetaPeers{}, fmt.Errorf("--meta-peers entry %q: empty member name", entry)
			}
			name = "metad-" + strings.NewReplacer(":", "-", "[", "", "]", "").Replace(hp)
		}
		if strings.ContainsAny(name, " &=,%+/") {
			return MetaPeers{}, fmt.Errorf("--meta-peers entry %q: a member name may not contain spaces or any of &=,%%+/", entry)
		}
		if names[name] || addrs[hp] {
			return MetaPeers{}, fmt.Errorf("--meta-peers names member %s (%s) twice", name, hp)
		}
		names[name], addrs[hp] = true, true
		members = append(members, name+"=http://"+hp)
		if hp == selfAddr {
			out.Name = name
		}
	}
	if len(members) == 0 {
		return MetaPeers{}, fmt.Errorf("--meta-peers lists no peers")
	}
	if out.Name == "" {
		return MetaPeers{}, fmt.Errorf("this metad's --etcd-peer-addr %s is not in --meta-peers %q (write it the same way there)", selfAddr, peers)
	}
	out.InitialCluster = strings.Join(members, ",")
	out.Size = len(members)
	return out, nil
}

// normalizePeer validates an etcd peer address, with or without http://,
// and returns it as host:port.
func normalizePeer(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	// The scheme is metad's to choose (https with TLS on): either is
	// accepted and dropped.
	if rest, ok := strings.CutPrefix(addr, "http://"); ok {
		addr = rest
	} else if rest, ok := strings.CutPrefix(addr, "https://"); ok {
		addr = rest
	} else if strings.Contains(addr, "://") {
		return "", fmt.Errorf("only http:// or https:// peer URLs are supported")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("not host:port: %w", err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || host == "" {
		return "", fmt.Errorf("%q is not a host and a port in [1, 65535]", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// bindURL is the URL the embedded etcd listens on for an advertised URL u:
// u itself when its host is an IP address or "localhost" (etcd binds only
// those), else u with the host replaced by the address the name resolves
// to (its first IPv4 address, if any). So --etcd-peer-addr may be a DNS
// name, as a container's or a StatefulSet pod's is: etcd advertises the
// name, which stays valid when the IP changes on a restart.
func bindURL(ctx context.Context, u url.URL) (url.URL, error) {
	host, port := u.Hostname(), u.Port()
	if host == "" || host == "localhost" || net.ParseIP(host) != nil {
		return u, nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return url.URL{}, fmt.Errorf("resolving %s to an address to listen on: %w", host, err)
	}
	if len(ips) == 0 {
		return url.URL{}, fmt.Errorf("resolving %s to an address to listen on: no address", host)
	}
	ip := ips[0].IP
	for _, a := range ips {
		if a.IP.To4() != nil {
			ip = a.IP
			break
		}
	}
	u.Host = net.JoinHostPort(ip.String(), port)
	return u, nil
}
