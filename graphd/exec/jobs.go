package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/temporal"
)

// Jobs (NebulaGraph 3.x): SUBMIT JOB BALANCE DATA [REMOVE ...], BALANCE
// LEADER and COMPACT queue a job on the current space in metad, which runs
// it in the background (metad/jobs_run.go); SUBMIT answers the job id at
// once. SHOW JOBS, SHOW JOB, STOP JOB and RECOVER JOB act on the jobs of
// the current space.

// jobStmt runs a job statement.
func (r *runState) jobStmt(ctx context.Context, st ast.Statement) (*table, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, st)
	if err != nil {
		return nil, err
	}
	sid := space.GetSpaceId()
	switch s := st.(type) {
	case *ast.SubmitJobStmt:
		var typ metapb.JobType
		switch s.Kind {
		case ast.JobBalanceData:
			typ = metapb.JobType_JOB_BALANCE_DATA
		case ast.JobBalanceLeader:
			typ = metapb.JobType_JOB_BALANCE_LEADER
		case ast.JobCompact:
			typ = metapb.JobType_JOB_COMPACT
		case ast.JobStats:
			typ = metapb.JobType_JOB_STATS
		}
		var remove []*commonpb.HostAddr
		for _, h := range s.Remove {
			remove = append(remove, &commonpb.HostAddr{Host: h.Host, Port: int32(h.Port)})
		}
		id, err := r.x.meta.SubmitJob(ctx, sid, typ, remove)
		if err != nil {
			return nil, metaError(s.String(), err)
		}
		t := newTable("New Job Id")
		t.add(value.Int(id))
		return t, nil

	case *ast.ShowJobsStmt:
		jobs, err := r.x.meta.ListJobs(ctx, sid)
		if err != nil {
			return nil, metaError("SHOW JOBS", err)
		}
		t := newTable("Job Id", "Command", "Status", "Start Time", "Stop Time")
		for _, j := range jobs {
			t.add(value.Int(j.JobId), value.Str(j.Command), value.Str(jobStatus(j.Status)), msTime(j.StartTimeMs), msTime(j.StopTimeMs))
		}
		return t, nil

	case *ast.ShowJobStmt:
		job, tasks, err := r.x.meta.GetJob(ctx, sid, s.ID)
		if err != nil {
			return nil, metaError(s.String(), err)
		}
		// The job first, then one row per task.
		t := newTable("Job Id(TaskId)", "Command(Task)", "Space", "Part", "Status", "Start Time", "Stop Time", "Message")
		t.add(value.Int(job.JobId), value.Str(job.Command), value.Str(space.GetName()), value.Null(),
			value.Str(jobStatus(job.Status)), msTime(job.StartTimeMs), msTime(job.StopTimeMs), value.Str(job.Message))
		for _, task := range tasks {
			part := value.Null()
			if task.PartId != 0 {
				part = value.Int(int64(task.PartId))
			}
			t.add(value.Int(int64(task.TaskId)), value.Str(taskText(snap, job.Type, task)), value.Str(space.GetName()), part,
				value.Str(jobStatus(task.Status)), msTime(task.StartTimeMs), msTime(task.StopTimeMs), value.Str(task.Message))
		}
		return t, nil

	case *ast.StopJobStmt:
		if err := r.x.meta.StopJob(ctx, sid, s.ID); err != nil {
			return nil, metaError(s.String(), err)
		}
		t := newTable("Result")
		t.add(value.Str("Job stopped"))
		return t, nil

	case *ast.RecoverJobStmt:
		n, err := r.x.meta.RecoverJob(ctx, sid, s.IDs)
		if err != nil {
			return nil, metaError(s.String(), err)
		}
		t := newTable("Recovered job num")
		t.add(value.Int(int64(n)))
		return t, nil
	}
	return nil, at(st, "unsupported job statement")
}

// jobStatus prints a job or task status as NebulaGraph does: QUEUE,
// RUNNING, FINISHED, FAILED or STOPPED.
func jobStatus(st metapb.JobStatus) string { return strings.TrimPrefix(st.String(), "JOB_") }

// msTime is a metad timestamp (ms since the epoch) as a datetime; 0 is
// null (not started, not ended).
func msTime(ms int64) value.Value {
	if ms == 0 {
		return value.Null()
	}
	return value.DateTime(temporal.DateTime(ms * 1000))
}

// taskText says what a task does: "move 127.0.0.1:9780 → 127.0.0.1:9781".
func taskText(snap *catalog.Snapshot, typ metapb.JobType, t *metapb.JobTask) string {
	switch typ {
	case metapb.JobType_JOB_BALANCE_DATA:
		return fmt.Sprintf("move %s → %s", hostName(snap, t.FromStore), hostName(snap, t.ToStore))
	case metapb.JobType_JOB_BALANCE_LEADER:
		return fmt.Sprintf("leader %s → %s", hostName(snap, t.FromStore), hostName(snap, t.ToStore))
	case metapb.JobType_JOB_COMPACT:
		return "compact " + hostName(snap, t.ToStore)
	case metapb.JobType_JOB_STATS:
		return "count the space's vertices and edges"
	}
	return typ.String()
}

// showStats runs SHOW STATS: what the space's newest finished STATS job
// counted, in NebulaGraph's rows: each tag's vertices, each edge type's
// edges, then the space's vertices and edges. Tags and types with none
// show 0; a schema dropped since the job is left out.
func (r *runState) showStats(ctx context.Context, s *ast.ShowStmt) (*table, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	sid := space.GetSpaceId()
	jobs, err := r.x.meta.ListJobs(ctx, sid)
	if err != nil {
		return nil, metaError("SHOW STATS", err)
	}
	var newest *metapb.JobDesc
	for _, j := range jobs {
		if j.Type == metapb.JobType_JOB_STATS && j.Status == metapb.JobStatus_JOB_FINISHED && (newest == nil || j.JobId > newest.JobId) {
			newest = j
		}
	}
	if newest == nil {
		return nil, at(s, "SHOW STATS: no STATS job has finished in space %q: run SUBMIT JOB STATS, and SHOW JOB <id> until it is FINISHED", space.GetName())
	}
	_, tasks, err := r.x.meta.GetJob(ctx, sid, newest.JobId)
	if err != nil {
		return nil, metaError("SHOW STATS", err)
	}
	var stats *metapb.SpaceStats
	for _, t := range tasks {
		if t.GetStats() != nil {
			stats = t.GetStats()
		}
	}
	if stats == nil {
		return nil, execErrorf("SHOW STATS: STATS job %d finished without counts", newest.JobId)
	}
	count := func(list []*metapb.SchemaCount, id int32) int64 {
		for _, c := range list {
			if c.GetSchemaId() == id {
				return c.GetCount()
			}
		}
		return 0
	}
	t := newTable("Type", "Name", "Count")
	for _, tag := range snap.Tags(sid) {
		t.add(value.Str("Tag"), value.Str(tag.GetName()), value.Int(count(stats.GetTags(), tag.GetTagId())))
	}
	for _, e := range snap.Edges(sid) {
		t.add(value.Str("Edge"), value.Str(e.GetName()), value.Int(count(stats.GetEdgeTypes(), e.GetEdgeType())))
	}
	t.add(value.Str("Space"), value.Str("vertices"), value.Int(stats.GetVertices()))
	t.add(value.Str("Space"), value.Str("edges"), value.Int(stats.GetEdges()))
	return t, nil
}
