package exec

import (
	"context"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/query/ast"
)

// ADD HOSTS and DROP HOSTS (NebulaGraph 3.x; metad/hosts.go has the rules).
// Both are GOD only, change all the hosts named or none, and return once
// this graphd's catalog has the change, so a SHOW HOSTS right after shows
// it. SHOW HOSTS is in admin.go.

func hostAddrs(hosts []ast.HostAddr) []*commonpb.HostAddr {
	out := make([]*commonpb.HostAddr, len(hosts))
	for i, h := range hosts {
		out[i] = &commonpb.HostAddr{Host: h.Host, Port: int32(h.Port)}
	}
	return out
}

func (r *runState) addHosts(ctx context.Context, s *ast.AddHostsStmt) error {
	if _, err := r.x.meta.AddHosts(ctx, hostAddrs(s.Hosts)); err != nil {
		return metaError("ADD HOSTS", err)
	}
	return nil
}

func (r *runState) dropHosts(ctx context.Context, s *ast.DropHostsStmt) error {
	if _, err := r.x.meta.DropHosts(ctx, hostAddrs(s.Hosts)); err != nil {
		return metaError("DROP HOSTS", err)
	}
	return nil
}
