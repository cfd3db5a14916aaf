package exec

import (
	"context"
	"errors"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// The executor owns the two interfaces it runs statements against: the
// catalog it reads names from and changes with DDL (metad), and the storage
// it reads and writes the graph through (storaged). graphd wires the real
// clients (metad/client.Client and storaged/client.Client satisfy them);
// the executor's own tests wire an in-memory graph (testkit/memgraph), so
// GO, FETCH, LOOKUP and pipe semantics are tested without a cluster.
//
// Failures that carry a code (a refused DDL, a partition that answered with
// an error) implement codedError; the executor classifies them by code,
// never by the concrete client's error type.

// Catalog is metad as the executor sees it.
type Catalog interface {
	// Catalog is the newest catalog snapshot the process has. A statement
	// takes one snapshot when it starts and resolves every name against it.
	Catalog() *catalog.Snapshot
	// Addrs lists the metad addresses (SHOW HOSTS META).
	Addrs() []string

	// DDL. Each returns once the new catalog version is in Catalog().
	CreateSpace(ctx context.Context, space *metapb.SpaceDesc, ifNotExists bool) (int32, int64, error)
	DropSpace(ctx context.Context, name string, ifExists bool) (int64, error)
	CreateSchema(ctx context.Context, req *metapb.CreateSchemaReq) (int32, int64, error)
	AlterSchema(ctx context.Context, req *metapb.AlterSchemaReq) (int64, error)
	DropSchema(ctx context.Context, req *metapb.DropSchemaReq) (int64, error)
	CreateIndex(ctx context.Context, req *metapb.CreateIndexReq) (int32, int64, error)
	DropIndex(ctx context.Context, req *metapb.DropIndexReq) (int64, error)

	// Hosts and jobs (ADD/DROP HOSTS, SUBMIT/SHOW/STOP/RECOVER JOB).
	AddHosts(ctx context.Context, hosts []*commonpb.HostAddr) (int64, error)
	DropHosts(ctx context.Context, hosts []*commonpb.HostAddr) (int64, error)
	SubmitJob(ctx context.Context, space int32, typ metapb.JobType, removeHosts []*commonpb.HostAddr) (int64, error)
	ListJobs(ctx context.Context, space int32) ([]*metapb.JobDesc, error)
	GetJob(ctx context.Context, space int32, id int64) (*metapb.JobDesc, []*metapb.JobTask, error)
	StopJob(ctx context.Context, space int32, id int64) error
	RecoverJob(ctx context.Context, space int32, ids []int64) (int, error)

	// Snapshots (CREATE SNAPSHOT, SHOW SNAPSHOTS, DROP SNAPSHOT).
	CreateSnapshot(ctx context.Context, spaces []int32) (*metapb.SnapshotDesc, error)
	ListSnapshots(ctx context.Context) ([]*metapb.SnapshotDesc, error)
	DropSnapshot(ctx context.Context, name string, ifExists bool) error

	// Users and roles.
	CreateUser(ctx context.Context, name, password string, ifNotExists bool) (int64, error)
	AlterUser(ctx context.Context, name, password string) (int64, error)
	DropUser(ctx context.Context, name string, ifExists bool) (int64, error)
	ChangePassword(ctx context.Context, name, old, password string) (int64, error)
	GrantRole(ctx context.Context, user string, spaceID int32, role metapb.RoleType) (int64, error)
	RevokeRole(ctx context.Context, user string, spaceID int32, role metapb.RoleType) (int64, error)
}

// Storage is storaged as the executor sees it. Requests name partitions
// (the maps are keyed by partition id); the implementation finds each
// partition's leader. Reads return every answered row once; a partition
// that fails fails the call.
type Storage interface {
	// GetNeighbors answers tmpl for the vertices of parts.
	GetNeighbors(ctx context.Context, tmpl *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList) ([]*storagepb.VertexNeighbors, error)
	// GetNeighborsStream is GetNeighbors that shows each batch to onBatch
	// as it arrives (calls serialised); an error from onBatch ends the call
	// with that error. A batch may be shown twice if a host is retried.
	GetNeighborsStream(ctx context.Context, tmpl *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList,
		onBatch func(batch []*storagepb.VertexNeighbors) error) ([]*storagepb.VertexNeighbors, error)
	// GetProps reads properties of vertices or (exactly one of the two
	// maps set) of edges.
	GetProps(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
		edgeParts map[int32]*storagepb.EdgeKeyList) ([]*storagepb.PropRow, error)
	// GetPropColumns reads properties of vertices in columns: a block per
	// partition that found any (PropColumns), shown to onBlocks as they
	// arrive, as GetNeighborsStream.
	GetPropColumns(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
		onBlocks func(blocks []*storagepb.PropColumns) error) ([]*storagepb.PropColumns, error)
	// LookupIndex scans an index on every partition of req.
	LookupIndex(ctx context.Context, req *storagepb.LookupIndexReq) ([]*storagepb.PropRow, error)

	// Writes return once applied (and, for edges, readable from both ends).
	AddVertices(ctx context.Context, req *storagepb.AddVerticesReq) error
	AddEdges(ctx context.Context, req *storagepb.AddEdgesReq) error
	DeleteVertices(ctx context.Context, req *storagepb.DeleteVerticesReq) error
	DeleteTags(ctx context.Context, req *storagepb.DeleteTagsReq) error
	DeleteEdges(ctx context.Context, req *storagepb.DeleteEdgesReq) error
	Update(ctx context.Context, req *storagepb.UpdateReq) (*storagepb.UpdateResp, error)
	// RebuildIndex rebuilds an index on every partition of the space.
	RebuildIndex(ctx context.Context, space, indexID int32, catalogVersion int64) error
	// ClearSpace deletes every vertex, edge and index entry of the space.
	ClearSpace(ctx context.Context, space int32) error
}

// codedError is a failure the catalog or storage answered with a code
// (metad/client.Error, storaged/client.PartError).
type codedError interface {
	error
	ErrorCode() commonpb.ErrorCode
}

// partitionError is a storage failure of one partition
// (storaged/client.PartError); its Error text names the partition.
type partitionError interface {
	codedError
	Partition() int32
}

// codeOf is the code of err: SUCCEEDED for nil, the code a codedError
// carries, E_TIMEOUT for an expired or cancelled context, else E_UNKNOWN
// (a host that could not be reached, for instance).
func codeOf(err error) commonpb.ErrorCode {
	var c codedError
	switch {
	case err == nil:
		return commonpb.ErrorCode_SUCCEEDED
	case errors.As(err, &c):
		return c.ErrorCode()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return commonpb.ErrorCode_E_TIMEOUT
	}
	return commonpb.ErrorCode_E_UNKNOWN
}
