package client

import (
	"context"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// AddHosts adds storage hosts to the cluster (ADD HOSTS): all of them or,
// if one is already added, none. It returns the catalog version that has
// them, once the cache has it.
func (c *Client) AddHosts(ctx context.Context, hosts []*commonpb.HostAddr) (int64, error) {
	var resp *metapb.AddHostsResp
	err := c.call(ctx, "AddHosts", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.AddHosts(ctx, &metapb.AddHostsReq{Hosts: hosts})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "AddHosts", resp.Version)
}

// DropHosts removes storage hosts from the cluster (DROP HOSTS): all of
// them or none. metad refuses a host that is not added or still holds a
// partition replica.
func (c *Client) DropHosts(ctx context.Context, hosts []*commonpb.HostAddr) (int64, error) {
	var resp *metapb.DropHostsResp
	err := c.call(ctx, "DropHosts", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.DropHosts(ctx, &metapb.DropHostsReq{Hosts: hosts})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.Version, c.await(ctx, "DropHosts", resp.Version)
}
