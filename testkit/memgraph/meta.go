package memgraph

import (
	"context"
	"fmt"
	"slices"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Meta is a Graph as graphd/exec.Catalog: the catalog and its DDL, as
// metad keeps and checks them. Each change is in Catalog() when the call
// returns, as the metad client's calls wait for their version.
type Meta struct{ g *Graph }

// Catalog is the current catalog snapshot.
func (m *Meta) Catalog() *catalog.Snapshot { return m.g.catalog() }

// Addrs lists no metad: there is none.
func (m *Meta) Addrs() []string { return nil }

func schemaKind(isEdge bool) string {
	if isEdge {
		return "edge"
	}
	return "tag"
}

// schemaByName finds a tag or edge type of a space by name, whichever kind
// it is (names are unique across both kinds).
func schemaByName(snap *catalog.Snapshot, space int32, name string) (id int32, isEdge bool, versions []*metapb.Schema, ok bool) {
	if t, ok := snap.TagByName(space, name); ok {
		return t.GetTagId(), false, t.GetVersions(), true
	}
	if e, ok := snap.EdgeByName(space, name); ok {
		return e.GetEdgeType(), true, e.GetVersions(), true
	}
	return 0, false, nil, false
}

// CreateSpace creates a space (metad's createSpace): its id, and its
// partitions placed over the hosts.
func (m *Meta) CreateSpace(_ context.Context, space *metapb.SpaceDesc, ifNotExists bool) (int32, int64, error) {
	desc, err := ddlcheck.Space(space)
	if err != nil {
		return 0, 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if old, ok := g.snap.SpaceByName(desc.Name); ok {
		if !ifNotExists {
			return 0, 0, errorf(commonpb.ErrorCode_E_EXISTED, "space %q already exists", desc.Name)
		}
		return old.GetSpaceId(), g.snap.Version(), nil
	}
	hosts := g.snap.Hosts()
	if len(hosts) < int(desc.ReplicaFactor) {
		return 0, 0, errorf(commonpb.ErrorCode_E_NO_HOSTS,
			"space %q needs %d online hosts for replica_factor %d, but %d of %d added hosts are online",
			desc.Name, desc.ReplicaFactor, desc.ReplicaFactor, len(hosts), len(hosts))
	}
	g.lastSpace++
	desc.SpaceId = g.lastSpace
	ids := make([]uint64, len(hosts))
	for i, h := range hosts {
		ids[i] = h.GetStoreId()
	}
	parts := ddlcheck.PlaceParts(desc.PartitionNum, desc.ReplicaFactor, ids)
	version := g.change(func(cat *metapb.Catalog) {
		cat.Spaces = append(cat.Spaces, desc)
		cat.Parts[desc.SpaceId] = &metapb.SpaceParts{Parts: parts}
		// Every partition has a leader: its first replica.
		for _, p := range parts {
			cat.Leaders = append(cat.Leaders, &metapb.LeaderInfo{SpaceId: desc.SpaceId, PartId: p.PartId, StoreId: p.Replicas[0], Term: 1})
		}
	})
	g.data[desc.SpaceId] = newKVs()
	return desc.SpaceId, version, nil
}

// DropSpace drops a space with its schemas, indexes, grants and data.
func (m *Meta) DropSpace(_ context.Context, name string, ifExists bool) (int64, error) {
	if err := ddlcheck.Name("space", name); err != nil {
		return 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	sp, ok := g.snap.SpaceByName(name)
	if !ok {
		if ifExists {
			return g.snap.Version(), nil
		}
		return 0, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %q not found", name)
	}
	id := sp.GetSpaceId()
	delete(g.data, id)
	delete(g.lastSchema, id)
	delete(g.lastIndex, id)
	return g.change(func(cat *metapb.Catalog) {
		cat.Spaces = slices.DeleteFunc(cat.Spaces, func(s *metapb.SpaceDesc) bool { return s.SpaceId == id })
		cat.Tags = slices.DeleteFunc(cat.Tags, func(t *metapb.TagDesc) bool { return t.SpaceId == id })
		cat.Edges = slices.DeleteFunc(cat.Edges, func(e *metapb.EdgeDesc) bool { return e.SpaceId == id })
		cat.Indexes = slices.DeleteFunc(cat.Indexes, func(x *metapb.IndexDesc) bool { return x.SpaceId == id })
		cat.Leaders = slices.DeleteFunc(cat.Leaders, func(l *metapb.LeaderInfo) bool { return l.SpaceId == id })
		delete(cat.Parts, id)
		for _, u := range cat.Users {
			delete(u.Roles, id)
		}
	}), nil
}

// space returns the space with id, or metad's E_SPACE_NOT_FOUND.
func (g *Graph) space(id int32) (*metapb.SpaceDesc, error) {
	sp, ok := g.snap.SpaceByID(id)
	if !ok {
		return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %d not found", id)
	}
	return sp, nil
}

// CreateSchema creates a tag or an edge type (metad's createSchema).
func (m *Meta) CreateSchema(_ context.Context, req *metapb.CreateSchemaReq) (int32, int64, error) {
	kind := schemaKind(req.GetIsEdge())
	if err := ddlcheck.Name(kind, req.GetName()); err != nil {
		return 0, 0, metaError(err)
	}
	where := fmt.Sprintf("%s %q", kind, req.Name)
	cols, err := ddlcheck.Columns(where, req.Columns)
	if err != nil {
		return 0, 0, metaError(err)
	}
	if err := ddlcheck.TTL(where, cols, req.TtlCol, req.TtlDuration); err != nil {
		return 0, 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	space, err := g.space(req.SpaceId)
	if err != nil {
		return 0, 0, err
	}
	if id, isEdge, _, ok := schemaByName(g.snap, req.SpaceId, req.Name); ok {
		if isEdge != req.IsEdge {
			return 0, 0, errorf(commonpb.ErrorCode_E_EXISTED,
				"cannot create %s %q in space %q: the name is already used by %s %d, and a tag and an edge type may not share a name",
				kind, req.Name, space.Name, schemaKind(isEdge), id)
		}
		if !req.IfNotExists {
			return 0, 0, errorf(commonpb.ErrorCode_E_EXISTED, "%s %q already exists in space %q", kind, req.Name, space.Name)
		}
		return id, g.snap.Version(), nil
	}
	g.lastSchema[req.SpaceId]++
	id := g.lastSchema[req.SpaceId]
	versions := []*metapb.Schema{{Version: 0, Columns: cols, TtlCol: req.TtlCol, TtlDuration: req.TtlDuration, Comment: req.Comment}}
	version := g.change(func(cat *metapb.Catalog) {
		if req.IsEdge {
			cat.Edges = append(cat.Edges, &metapb.EdgeDesc{SpaceId: req.SpaceId, EdgeType: id, Name: req.Name, Versions: versions})
		} else {
			cat.Tags = append(cat.Tags, &metapb.TagDesc{SpaceId: req.SpaceId, TagId: id, Name: req.Name, Versions: versions})
		}
	})
	return id, version, nil
}

// readSchema finds the tag (or edge type) name as metad's readSchema does,
// with its errors.
func readSchema(snap *catalog.Snapshot, space *metapb.SpaceDesc, name string, isEdge bool) (int32, []*metapb.Schema, error) {
	kind := schemaKind(isEdge)
	notFound := commonpb.ErrorCode_E_TAG_NOT_FOUND
	if isEdge {
		notFound = commonpb.ErrorCode_E_EDGE_NOT_FOUND
	}
	id, gotEdge, versions, ok := schemaByName(snap, space.GetSpaceId(), name)
	if !ok {
		return 0, nil, errorf(notFound, "%s %q not found in space %q", kind, name, space.GetName())
	}
	if gotEdge != isEdge {
		return 0, nil, errorf(notFound, "%s %q not found in space %q (the name is %s %d)", kind, name, space.GetName(), schemaKind(gotEdge), id)
	}
	return id, versions, nil
}

// AlterSchema appends a schema version (metad's alterSchema).
func (m *Meta) AlterSchema(_ context.Context, req *metapb.AlterSchemaReq) (int64, error) {
	kind := schemaKind(req.GetIsEdge())
	if err := ddlcheck.Name(kind, req.GetName()); err != nil {
		return 0, metaError(err)
	}
	where := fmt.Sprintf("%s %q", kind, req.Name)
	if err := ddlcheck.AlterOps(where, req); err != nil {
		return 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	space, err := g.space(req.SpaceId)
	if err != nil {
		return 0, err
	}
	id, versions, err := readSchema(g.snap, space, req.Name, req.IsEdge)
	if err != nil {
		return 0, err
	}
	next, err := ddlcheck.Alter(where, versions[len(versions)-1], req, g.snap.IndexesOn(req.SpaceId, req.IsEdge, id))
	if err != nil {
		return 0, metaError(err)
	}
	return g.change(func(cat *metapb.Catalog) {
		if req.IsEdge {
			for _, e := range cat.Edges {
				if e.SpaceId == req.SpaceId && e.EdgeType == id {
					e.Versions = append(e.Versions, next)
				}
			}
			return
		}
		for _, t := range cat.Tags {
			if t.SpaceId == req.SpaceId && t.TagId == id {
				t.Versions = append(t.Versions, next)
			}
		}
	}), nil
}

// DropSchema drops a tag or edge type (metad's dropSchema): its id is not
// reused, so rows stored under it are never read again.
func (m *Meta) DropSchema(_ context.Context, req *metapb.DropSchemaReq) (int64, error) {
	if err := ddlcheck.Name(schemaKind(req.GetIsEdge()), req.GetName()); err != nil {
		return 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	space, err := g.space(req.SpaceId)
	if err != nil {
		return 0, err
	}
	id, _, err := readSchema(g.snap, space, req.Name, req.IsEdge)
	if err != nil {
		if req.IfExists {
			return g.snap.Version(), nil
		}
		return 0, err
	}
	if err := ddlcheck.DropSchema(fmt.Sprintf("%s %q", schemaKind(req.IsEdge), req.Name), g.snap.IndexesOn(req.SpaceId, req.IsEdge, id)); err != nil {
		return 0, metaError(err)
	}
	return g.change(func(cat *metapb.Catalog) {
		if req.IsEdge {
			cat.Edges = slices.DeleteFunc(cat.Edges, func(e *metapb.EdgeDesc) bool { return e.SpaceId == req.SpaceId && e.EdgeType == id })
			return
		}
		cat.Tags = slices.DeleteFunc(cat.Tags, func(t *metapb.TagDesc) bool { return t.SpaceId == req.SpaceId && t.TagId == id })
	}), nil
}

func indexKind(isEdge bool) string {
	if isEdge {
		return "edge index"
	}
	return "tag index"
}

// CreateIndex creates a secondary index (metad's createIndex). Like
// storaged's, its entries are written by the writes that follow; REBUILD
// INDEX indexes what was there before.
func (m *Meta) CreateIndex(_ context.Context, req *metapb.CreateIndexReq) (int32, int64, error) {
	kind := schemaKind(req.GetIsEdge())
	if err := ddlcheck.Name("index", req.GetName()); err != nil {
		return 0, 0, metaError(err)
	}
	if err := ddlcheck.Name(kind, req.GetSchemaName()); err != nil {
		return 0, 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	space, err := g.space(req.SpaceId)
	if err != nil {
		return 0, 0, err
	}
	if existing, ok := g.snap.IndexByName(req.SpaceId, req.Name); ok {
		if existing.IsEdge != req.IsEdge {
			return 0, 0, errorf(commonpb.ErrorCode_E_EXISTED,
				"cannot create %s %q in space %q: the name is already used by %s %d, and index names are unique across tag and edge indexes",
				indexKind(req.IsEdge), req.Name, space.Name, indexKind(existing.IsEdge), existing.IndexId)
		}
		if !req.IfNotExists {
			return 0, 0, errorf(commonpb.ErrorCode_E_EXISTED, "index %q already exists in space %q", req.Name, space.Name)
		}
		return existing.IndexId, g.snap.Version(), nil
	}
	id, versions, err := readSchema(g.snap, space, req.SchemaName, req.IsEdge)
	if err != nil {
		return 0, 0, err
	}
	schemaName := fmt.Sprintf("%s %q", kind, req.SchemaName)
	fields, err := ddlcheck.IndexFields(req.Name, schemaName, versions[len(versions)-1].Columns, req.Fields)
	if err != nil {
		return 0, 0, metaError(err)
	}
	if err := ddlcheck.NewIndex(schemaName, g.snap.IndexesOn(req.SpaceId, req.IsEdge, id), fields); err != nil {
		return 0, 0, metaError(err)
	}
	g.lastIndex[req.SpaceId]++
	ixID := g.lastIndex[req.SpaceId]
	desc := &metapb.IndexDesc{SpaceId: req.SpaceId, IndexId: ixID, Name: req.Name, IsEdge: req.IsEdge, SchemaId: id, Fields: fields}
	version := g.change(func(cat *metapb.Catalog) { cat.Indexes = append(cat.Indexes, desc) })
	return ixID, version, nil
}

// DropIndex drops an index (metad's dropIndex); its entries stay, never
// read again, as in storaged.
func (m *Meta) DropIndex(_ context.Context, req *metapb.DropIndexReq) (int64, error) {
	if err := ddlcheck.Name("index", req.GetName()); err != nil {
		return 0, metaError(err)
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	space, err := g.space(req.SpaceId)
	if err != nil {
		return 0, err
	}
	existing, ok := g.snap.IndexByName(req.SpaceId, req.Name)
	if !ok {
		if req.IfExists {
			return g.snap.Version(), nil
		}
		return 0, errorf(commonpb.ErrorCode_E_NOT_FOUND, "%s %q not found in space %q", indexKind(req.IsEdge), req.Name, space.Name)
	}
	if existing.IsEdge != req.IsEdge {
		return 0, errorf(commonpb.ErrorCode_E_NOT_FOUND, "%s %q not found in space %q (it is %s %d)",
			indexKind(req.IsEdge), req.Name, space.Name, indexKind(existing.IsEdge), existing.IndexId)
	}
	id := existing.IndexId
	return g.change(func(cat *metapb.Catalog) {
		cat.Indexes = slices.DeleteFunc(cat.Indexes, func(x *metapb.IndexDesc) bool { return x.SpaceId == req.SpaceId && x.IndexId == id })
	}), nil
}

// Hosts, jobs, users and roles are not modelled: root is the only user and
// the hosts are fixed (Options.Hosts).

func (m *Meta) AddHosts(context.Context, []*commonpb.HostAddr) (int64, error) {
	return 0, &Unsupported{"hosts (ADD HOSTS)"}
}

func (m *Meta) DropHosts(context.Context, []*commonpb.HostAddr) (int64, error) {
	return 0, &Unsupported{"hosts (DROP HOSTS)"}
}

func (m *Meta) SubmitJob(context.Context, int32, metapb.JobType, []*commonpb.HostAddr) (int64, error) {
	return 0, &Unsupported{"jobs (SUBMIT JOB)"}
}

func (m *Meta) ListJobs(context.Context, int32) ([]*metapb.JobDesc, error) {
	return nil, &Unsupported{"jobs (SHOW JOBS)"}
}

func (m *Meta) GetJob(context.Context, int32, int64) (*metapb.JobDesc, []*metapb.JobTask, error) {
	return nil, nil, &Unsupported{"jobs (SHOW JOB)"}
}

func (m *Meta) StopJob(context.Context, int32, int64) error {
	return &Unsupported{"jobs (STOP JOB)"}
}

func (m *Meta) RecoverJob(context.Context, int32, []int64) (int, error) {
	return 0, &Unsupported{"jobs (RECOVER JOB)"}
}

func (m *Meta) CreateSnapshot(context.Context, []int32) (*metapb.SnapshotDesc, error) {
	return nil, &Unsupported{"snapshots (CREATE SNAPSHOT)"}
}

func (m *Meta) ListSnapshots(context.Context) ([]*metapb.SnapshotDesc, error) {
	return nil, &Unsupported{"snapshots (SHOW SNAPSHOTS)"}
}

func (m *Meta) DropSnapshot(context.Context, string, bool) error {
	return &Unsupported{"snapshots (DROP SNAPSHOT)"}
}

func (m *Meta) CreateUser(context.Context, string, string, bool) (int64, error) {
	return 0, &Unsupported{"users (CREATE USER): every session is root's"}
}

func (m *Meta) AlterUser(context.Context, string, string) (int64, error) {
	return 0, &Unsupported{"users (ALTER USER)"}
}

func (m *Meta) DropUser(context.Context, string, bool) (int64, error) {
	return 0, &Unsupported{"users (DROP USER)"}
}

func (m *Meta) ChangePassword(context.Context, string, string, string) (int64, error) {
	return 0, &Unsupported{"passwords (CHANGE PASSWORD)"}
}

func (m *Meta) GrantRole(context.Context, string, int32, metapb.RoleType) (int64, error) {
	return 0, &Unsupported{"roles (GRANT ROLE)"}
}

func (m *Meta) RevokeRole(context.Context, string, int32, metapb.RoleType) (int64, error) {
	return 0, &Unsupported{"roles (REVOKE ROLE)"}
}
