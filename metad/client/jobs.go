package client

import (
	"context"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// RegisterHostInZone is RegisterHost with the host's zone label (storaged
// --zone; "" for none). A registered host that registers again with
// another zone moves to it.
func (c *Client) RegisterHostInZone(ctx context.Context, addr *commonpb.HostAddr, zone string) (uint64, int64, error) {
	var resp *metapb.RegisterHostResp
	err := c.call(ctx, "RegisterHost", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.RegisterHost(ctx, &metapb.RegisterHostReq{Addr: addr, Zone: zone})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, 0, err
	}
	return resp.StoreId, resp.Version, c.await(ctx, "RegisterHost", resp.Version)
}

// Jobs (SUBMIT JOB, SHOW JOBS, SHOW JOB, STOP JOB, RECOVER JOB). Jobs are
// not part of the catalog: these calls read and write metad directly and
// the cache never holds jobs.

// SubmitJob queues a job on a space and returns its id at once; metad
// runs it in the background. removeHosts is for BALANCE DATA REMOVE.
func (c *Client) SubmitJob(ctx context.Context, space int32, typ metapb.JobType, removeHosts []*commonpb.HostAddr) (int64, error) {
	var resp *metapb.SubmitJobResp
	err := c.call(ctx, "SubmitJob", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.SubmitJob(ctx, &metapb.SubmitJobReq{SpaceId: space, Type: typ, RemoveHosts: removeHosts})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return resp.JobId, nil
}

// ListJobs returns the jobs of a space, newest first.
func (c *Client) ListJobs(ctx context.Context, space int32) ([]*metapb.JobDesc, error) {
	var resp *metapb.ListJobsResp
	err := c.call(ctx, "ListJobs", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.ListJobs(ctx, &metapb.ListJobsReq{SpaceId: space})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return nil, err
	}
	return resp.Jobs, nil
}

// GetJob returns a job of the space and its tasks, by task id.
func (c *Client) GetJob(ctx context.Context, space int32, id int64) (*metapb.JobDesc, []*metapb.JobTask, error) {
	var resp *metapb.GetJobResp
	err := c.call(ctx, "GetJob", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.GetJob(ctx, &metapb.GetJobReq{SpaceId: space, JobId: id})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return nil, nil, err
	}
	return resp.Job, resp.Tasks, nil
}

// StopJob stops a QUEUE or RUNNING job of the space. A running job stops
// between two steps; it may take a step's time to show it.
func (c *Client) StopJob(ctx context.Context, space int32, id int64) error {
	var resp *metapb.StopJobResp
	err := c.call(ctx, "StopJob", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.StopJob(ctx, &metapb.StopJobReq{SpaceId: space, JobId: id})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	return err
}

// RecoverJob queues STOPPED and FAILED jobs of the space again (ids empty:
// all of them) and returns how many it queued.
func (c *Client) RecoverJob(ctx context.Context, space int32, ids []int64) (int, error) {
	var resp *metapb.RecoverJobResp
	err := c.call(ctx, "RecoverJob", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.RecoverJob(ctx, &metapb.RecoverJobReq{SpaceId: space, JobIds: ids})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return 0, err
	}
	return int(resp.Recovered), nil
}
