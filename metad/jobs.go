package metad

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Jobs: SUBMIT JOB BALANCE DATA [REMOVE host, ...], BALANCE LEADER and
// COMPACT, and SHOW JOBS, SHOW JOB, STOP JOB, RECOVER JOB, as in
// NebulaGraph 3.x. A job belongs to a space and lives in etcd beside the
// catalog (keys.go): the job (JobDesc) and its tasks (JobTask), each with
// a status QUEUE, RUNNING, FINISHED, FAILED or STOPPED. This file holds
// the RPCs and the storage of jobs; jobs_run.go runs them and balance.go
// plans them.
//
// Job writes go through update, never commit: they are outside the
// catalog's prefix, so the catalog never reaches their revision and
// commit's wait for it would never end.

func (svc *service) SubmitJob(ctx context.Context, req *metapb.SubmitJobReq) (*metapb.SubmitJobResp, error) {
	id, err := svc.s.submitJob(ctx, req)
	return &metapb.SubmitJobResp{Status: svc.s.toStatus("SubmitJob", err), JobId: id}, nil
}

func (svc *service) ListJobs(ctx context.Context, req *metapb.ListJobsReq) (*metapb.ListJobsResp, error) {
	jobs, err := svc.s.listJobs(ctx, req.GetSpaceId())
	return &metapb.ListJobsResp{Status: svc.s.toStatus("ListJobs", err), Jobs: jobs}, nil
}

func (svc *service) GetJob(ctx context.Context, req *metapb.GetJobReq) (*metapb.GetJobResp, error) {
	job, tasks, err := svc.s.getJob(ctx, req.GetSpaceId(), req.GetJobId())
	return &metapb.GetJobResp{Status: svc.s.toStatus("GetJob", err), Job: job, Tasks: tasks}, nil
}

func (svc *service) StopJob(ctx context.Context, req *metapb.StopJobReq) (*metapb.StopJobResp, error) {
	err := svc.s.stopJob(ctx, req.GetSpaceId(), req.GetJobId())
	return &metapb.StopJobResp{Status: svc.s.toStatus("StopJob", err)}, nil
}

func (svc *service) RecoverJob(ctx context.Context, req *metapb.RecoverJobReq) (*metapb.RecoverJobResp, error) {
	n, err := svc.s.recoverJobs(ctx, req.GetSpaceId(), req.GetJobIds())
	return &metapb.RecoverJobResp{Status: svc.s.toStatus("RecoverJob", err), Recovered: int32(n)}, nil
}

// JobStatusName is a status as SHOW JOBS prints it: QUEUE, RUNNING,
// FINISHED, FAILED or STOPPED.
func JobStatusName(st metapb.JobStatus) string {
	return strings.TrimPrefix(st.String(), "JOB_")
}

// jobCommand is the command of a job as SHOW JOBS prints it.
func jobCommand(t metapb.JobType, remove []string) string {
	switch t {
	case metapb.JobType_JOB_BALANCE_DATA:
		if len(remove) > 0 {
			return "BALANCE DATA REMOVE " + strings.Join(remove, ", ")
		}
		return "BALANCE DATA"
	case metapb.JobType_JOB_BALANCE_LEADER:
		return "BALANCE LEADER"
	case metapb.JobType_JOB_COMPACT:
		return "COMPACT"
	case metapb.JobType_JOB_STATS:
		return "STATS"
	}
	return t.String()
}

func nowMs() int64 { return time.Now().UnixMilli() }

func decodeJob(kv *mvccpb.KeyValue) (*metapb.JobDesc, error) {
	var j metapb.JobDesc
	if err := proto.Unmarshal(kv.Value, &j); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	return &j, nil
}

func decodeTask(kv *mvccpb.KeyValue) (*metapb.JobTask, error) {
	var t metapb.JobTask
	if err := proto.Unmarshal(kv.Value, &t); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	return &t, nil
}

func (s *Server) submitJob(ctx context.Context, req *metapb.SubmitJobReq) (int64, error) {
	switch req.GetType() {
	case metapb.JobType_JOB_BALANCE_DATA:
	case metapb.JobType_JOB_BALANCE_LEADER, metapb.JobType_JOB_COMPACT, metapb.JobType_JOB_STATS:
		if len(req.GetRemoveHosts()) > 0 {
			return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "only BALANCE DATA removes hosts")
		}
	default:
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "unknown job type %s", req.GetType())
	}
	var addrs []string
	for _, a := range req.GetRemoveHosts() {
		addr := net.JoinHostPort(a.GetHost(), strconv.Itoa(int(a.GetPort())))
		if !slices.Contains(addrs, addr) {
			addrs = append(addrs, addr)
		}
	}
	var id int64
	_, err := update(ctx, s.cli, s.metrics.txnConflicts.Inc, func(r *txnReader) ([]clientv3.Op, error) {
		spaceKV, err := r.get(spaceKey(req.GetSpaceId()))
		if err != nil {
			return nil, err
		}
		if spaceKV == nil {
			return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %d not found", req.GetSpaceId())
		}
		var remove []uint64
		var shown []string
		for _, addr := range addrs {
			kv, err := r.get(hostAddrKey(addr))
			if err != nil {
				return nil, err
			}
			if kv == nil {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "host %s is not a registered storage host", addr)
			}
			store, err := strconv.ParseUint(string(kv.Value), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: malformed store id %q", kv.Key, kv.Value)
			}
			remove = append(remove, store)
			host, port, _ := net.SplitHostPort(addr)
			shown = append(shown, strconv.Quote(host)+":"+port)
		}
		next, counterOp, err := nextID(r, keyJobIDCounter, math.MaxInt64, "job")
		if err != nil {
			return nil, err
		}
		id = next
		val, err := marshal(&metapb.JobDesc{
			JobId: id, SpaceId: req.GetSpaceId(), Type: req.GetType(), RemoveStores: remove,
			Status: metapb.JobStatus_JOB_QUEUE, Command: jobCommand(req.GetType(), shown), SubmitTimeMs: nowMs(),
		})
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{counterOp, clientv3.OpPut(jobKey(id), val)}, nil
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("job submitted", "job_id", id, "space_id", req.GetSpaceId(), "type", req.GetType(), "remove", addrs)
	s.jobs.wake()
	return id, nil
}

// loadJobs reads every job, oldest first.
func (s *Server) loadJobs(ctx context.Context) ([]*metapb.JobDesc, error) {
	resp, err := s.cli.Get(ctx, prefixJobs, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("reading jobs: %w", err)
	}
	jobs := make([]*metapb.JobDesc, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		j, err := decodeJob(kv)
		if err != nil {
			s.log.Error("skipping undecodable job", "err", err)
			continue
		}
		jobs = append(jobs, j)
	}
	slices.SortFunc(jobs, func(a, b *metapb.JobDesc) int { return cmp.Compare(a.JobId, b.JobId) })
	return jobs, nil
}

// loadTasks reads a job's tasks, by task id.
func (s *Server) loadTasks(ctx context.Context, job int64) ([]*metapb.JobTask, error) {
	resp, err := s.cli.Get(ctx, jobTasksPrefix(job), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("reading tasks of job %d: %w", job, err)
	}
	tasks := make([]*metapb.JobTask, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		t, err := decodeTask(kv)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	slices.SortFunc(tasks, func(a, b *metapb.JobTask) int { return cmp.Compare(a.TaskId, b.TaskId) })
	return tasks, nil
}

// loadJob reads one job; nil if it does not exist.
func (s *Server) loadJob(ctx context.Context, id int64) (*metapb.JobDesc, error) {
	resp, err := s.cli.Get(ctx, jobKey(id))
	if err != nil {
		return nil, fmt.Errorf("reading job %d: %w", id, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	return decodeJob(resp.Kvs[0])
}

func (s *Server) listJobs(ctx context.Context, space int32) ([]*metapb.JobDesc, error) {
	all, err := s.loadJobs(ctx)
	if err != nil {
		return nil, err
	}
	var out []*metapb.JobDesc
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].SpaceId == space {
			out = append(out, all[i])
		}
	}
	return out, nil
}

func (s *Server) getJob(ctx context.Context, space int32, id int64) (*metapb.JobDesc, []*metapb.JobTask, error) {
	job, err := s.loadJob(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if job == nil || job.SpaceId != space {
		return nil, nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "job %d not found in this space", id)
	}
	tasks, err := s.loadTasks(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return job, tasks, nil
}

// stopJob marks a QUEUE or RUNNING job STOPPED. The runner sees it before
// its next step and stops there, marking the task it was in STOPPED.
func (s *Server) stopJob(ctx context.Context, space int32, id int64) error {
	_, err := update(ctx, s.cli, s.metrics.txnConflicts.Inc, func(r *txnReader) ([]clientv3.Op, error) {
		kv, err := r.get(jobKey(id))
		if err != nil {
			return nil, err
		}
		if kv == nil {
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "job %d not found in this space", id)
		}
		job, err := decodeJob(kv)
		if err != nil {
			return nil, err
		}
		if job.SpaceId != space {
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "job %d not found in this space", id)
		}
		if job.Status != metapb.JobStatus_JOB_QUEUE && job.Status != metapb.JobStatus_JOB_RUNNING {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "job %d is %s: only QUEUE and RUNNING jobs can be stopped", id, JobStatusName(job.Status))
		}
		job.Status, job.StopTimeMs, job.Message = metapb.JobStatus_JOB_STOPPED, nowMs(), "stopped by STOP JOB"
		val, err := marshal(job)
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{clientv3.OpPut(jobKey(id), val)}, nil
	})
	if err == nil {
		s.log.Info("job stopped", "job_id", id)
	}
	return err
}

// recoverJobs puts STOPPED and FAILED jobs of the space back in the queue:
// those named, or all of them. Their STOPPED and FAILED tasks go back to
// QUEUE; FINISHED tasks stay done, so a recovered job resumes at its first
// unfinished task.
func (s *Server) recoverJobs(ctx context.Context, space int32, ids []int64) (int, error) {
	var n int
	_, err := update(ctx, s.cli, s.metrics.txnConflicts.Inc, func(r *txnReader) ([]clientv3.Op, error) {
		n = 0
		var kvs []*mvccpb.KeyValue
		if len(ids) == 0 {
			all, err := r.list(prefixJobs)
			if err != nil {
				return nil, err
			}
			kvs = all
		} else {
			for _, id := range ids {
				kv, err := r.get(jobKey(id))
				if err != nil {
					return nil, err
				}
				if kv == nil {
					return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "job %d not found in this space", id)
				}
				kvs = append(kvs, kv)
			}
		}
		var ops []clientv3.Op
		for _, kv := range kvs {
			job, err := decodeJob(kv)
			if err != nil {
				return nil, err
			}
			if job.SpaceId != space {
				if len(ids) > 0 {
					return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "job %d not found in this space", job.JobId)
				}
				continue
			}
			if job.Status != metapb.JobStatus_JOB_STOPPED && job.Status != metapb.JobStatus_JOB_FAILED {
				if len(ids) > 0 {
					return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "job %d is %s: only STOPPED and FAILED jobs can be recovered", job.JobId, JobStatusName(job.Status))
				}
				continue
			}
			r.assertUnchanged(kv)
			job.Status, job.StopTimeMs, job.Message = metapb.JobStatus_JOB_QUEUE, 0, ""
			val, err := marshal(job)
			if err != nil {
				return nil, err
			}
			ops = append(ops, clientv3.OpPut(jobKey(job.JobId), val))
			n++
			taskKVs, err := r.list(jobTasksPrefix(job.JobId))
			if err != nil {
				return nil, err
			}
			for _, tkv := range taskKVs {
				t, err := decodeTask(tkv)
				if err != nil {
					return nil, err
				}
				if t.Status != metapb.JobStatus_JOB_STOPPED && t.Status != metapb.JobStatus_JOB_FAILED {
					continue
				}
				t.Status, t.StopTimeMs = metapb.JobStatus_JOB_QUEUE, 0
				val, err := marshal(t)
				if err != nil {
					return nil, err
				}
				ops = append(ops, clientv3.OpPut(string(tkv.Key), val))
			}
		}
		if len(ops) > maxJobTxnOps {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "too many jobs to recover at once (%d); name them in smaller groups", n)
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	if n > 0 {
		s.log.Info("jobs recovered", "space_id", space, "count", n)
		s.jobs.wake()
	}
	return n, nil
}

// maxJobTxnOps keeps job transactions under etcd's default limit of 128
// operations per transaction.
const maxJobTxnOps = 100

// errJobStopped is returned by runner writes that find the job no longer
// RUNNING (STOP JOB, or a RECOVER and a newer run).
var errJobStopped = errors.New("job stopped")
