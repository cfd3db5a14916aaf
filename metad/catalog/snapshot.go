// Package catalog is the read side of metad's catalog: an immutable
// Snapshot of one catalog version with lookup indexes by name and id. It
// does no I/O; metad/client keeps the newest Snapshot current by watching
// metad, and everything that plans or checks against the catalog (graphd's
// executor, storaged, the importer) reads it through this type.
package catalog

import (
	"cmp"
	"net"
	"slices"
	"strconv"

	"github.com/novagraph/novagraph/proto/metapb"
)

// Snapshot is one immutable catalog version with lookup indexes. Everything
// it returns (descriptors, slices, maps) is shared by all its readers and
// must not be modified.
type Snapshot struct {
	cat *metapb.Catalog

	spacesByName map[string]*metapb.SpaceDesc
	spacesByID   map[int32]*metapb.SpaceDesc
	tags         map[int32]*schemaIndex[*metapb.TagDesc]
	edges        map[int32]*schemaIndex[*metapb.EdgeDesc]
	indexes      map[int32]*indexIndex
	parts        map[int32]map[int32][]uint64
	learners     map[int32]map[int32][]uint64
	initial      map[int32]map[int32][]uint64
	storeParts   map[uint64]map[int32][]int32
	hosts        map[uint64]*metapb.HostInfo
	hostAddrs    map[uint64]string
	leaders      map[partKey]uint64
	users        map[string]*metapb.UserInfo

	// next is closed when a newer snapshot replaces this one.
	next chan struct{}
}

type partKey struct{ space, part int32 }

// schemaIndex indexes one space's tags or edge types.
type schemaIndex[T any] struct {
	list   []T
	byName map[string]T
	byID   map[int32]T
}

func newSchemaIndex[T any]() *schemaIndex[T] {
	return &schemaIndex[T]{byName: map[string]T{}, byID: map[int32]T{}}
}

func (x *schemaIndex[T]) add(id int32, name string, v T) {
	x.list = append(x.list, v)
	x.byName[name] = v
	x.byID[id] = v
}

// indexIndex indexes one space's secondary indexes.
type indexIndex struct {
	list   []*metapb.IndexDesc // by index id
	byName map[string]*metapb.IndexDesc
	byID   map[int32]*metapb.IndexDesc
	on     map[schemaKey][]*metapb.IndexDesc // by index id
}

// schemaKey names a tag or an edge type within a space.
type schemaKey struct {
	isEdge bool
	id     int32
}

// NewSnapshot indexes cat, which it takes ownership of: a catalog built by
// hand, for tests and tools. Its Changed channel never closes.

// newSnapshot indexes cat, which it takes ownership of.
func NewSnapshot(cat *metapb.Catalog) *Snapshot {
	s := &Snapshot{
		cat:          cat,
		spacesByName: make(map[string]*metapb.SpaceDesc, len(cat.GetSpaces())),
		spacesByID:   make(map[int32]*metapb.SpaceDesc, len(cat.GetSpaces())),
		tags:         map[int32]*schemaIndex[*metapb.TagDesc]{},
		edges:        map[int32]*schemaIndex[*metapb.EdgeDesc]{},
		indexes:      map[int32]*indexIndex{},
		parts:        make(map[int32]map[int32][]uint64, len(cat.GetParts())),
		learners:     map[int32]map[int32][]uint64{},
		initial:      map[int32]map[int32][]uint64{},
		storeParts:   map[uint64]map[int32][]int32{},
		hosts:        make(map[uint64]*metapb.HostInfo, len(cat.GetHosts())),
		hostAddrs:    make(map[uint64]string, len(cat.GetHosts())),
		leaders:      make(map[partKey]uint64, len(cat.GetLeaders())),
		users:        make(map[string]*metapb.UserInfo, len(cat.GetUsers())),
		next:         make(chan struct{}),
	}
	for _, u := range cat.GetUsers() {
		s.users[u.Name] = u
	}
	for _, sp := range cat.GetSpaces() {
		s.spacesByName[sp.Name] = sp
		s.spacesByID[sp.SpaceId] = sp
	}
	for _, t := range cat.GetTags() {
		x := s.tags[t.SpaceId]
		if x == nil {
			x = newSchemaIndex[*metapb.TagDesc]()
			s.tags[t.SpaceId] = x
		}
		x.add(t.TagId, t.Name, t)
	}
	for _, e := range cat.GetEdges() {
		x := s.edges[e.SpaceId]
		if x == nil {
			x = newSchemaIndex[*metapb.EdgeDesc]()
			s.edges[e.SpaceId] = x
		}
		x.add(e.EdgeType, e.Name, e)
	}
	for _, d := range cat.GetIndexes() {
		x := s.indexes[d.SpaceId]
		if x == nil {
			x = &indexIndex{byName: map[string]*metapb.IndexDesc{}, byID: map[int32]*metapb.IndexDesc{}, on: map[schemaKey][]*metapb.IndexDesc{}}
			s.indexes[d.SpaceId] = x
		}
		x.list = append(x.list, d)
		x.byName[d.Name] = d
		x.byID[d.IndexId] = d
	}
	for _, x := range s.indexes {
		// metad sends indexes sorted; sorting again keeps the promise of
		// the accessors independent of that.
		slices.SortFunc(x.list, func(a, b *metapb.IndexDesc) int { return cmp.Compare(a.IndexId, b.IndexId) })
		for _, d := range x.list {
			k := schemaKey{d.IsEdge, d.SchemaId}
			x.on[k] = append(x.on[k], d)
		}
	}
	for space, sp := range cat.GetParts() {
		m := make(map[int32][]uint64, len(sp.GetParts()))
		for _, p := range sp.GetParts() {
			m[p.PartId] = p.Replicas
			if len(p.InitialReplicas) > 0 {
				if s.initial[space] == nil {
					s.initial[space] = map[int32][]uint64{}
				}
				s.initial[space][p.PartId] = p.InitialReplicas
			}
			if len(p.Learners) > 0 {
				if s.learners[space] == nil {
					s.learners[space] = map[int32][]uint64{}
				}
				s.learners[space][p.PartId] = p.Learners
			}
			for _, store := range p.Replicas {
				bySpace := s.storeParts[store]
				if bySpace == nil {
					bySpace = map[int32][]int32{}
					s.storeParts[store] = bySpace
				}
				bySpace[space] = append(bySpace[space], p.PartId)
			}
		}
		s.parts[space] = m
	}
	for _, h := range cat.GetHosts() {
		s.hosts[h.StoreId] = h
		s.hostAddrs[h.StoreId] = net.JoinHostPort(h.GetAddr().GetHost(), strconv.Itoa(int(h.GetAddr().GetPort())))
	}
	for _, l := range cat.GetLeaders() {
		s.leaders[partKey{l.SpaceId, l.PartId}] = l.StoreId
	}
	return s
}

// Version is the catalog version (the etcd revision it was read at); 0
// before the first catalog arrived.
func (s *Snapshot) Version() int64 { return s.cat.GetVersion() }

// Changed is closed when a newer snapshot replaces this one, so a consumer
// can react to catalog changes: wait on it, then read Client.Catalog again.
func (s *Snapshot) Changed() <-chan struct{} { return s.next }

// Supersede closes Changed. The one owner of the current snapshot (the
// metad client's watch) calls it exactly once, after storing the newer one.
func (s *Snapshot) Supersede() { close(s.next) }

// Catalog is the raw catalog message.
func (s *Snapshot) Catalog() *metapb.Catalog { return s.cat }

// Spaces lists every space, by id.
func (s *Snapshot) Spaces() []*metapb.SpaceDesc { return s.cat.GetSpaces() }

func (s *Snapshot) SpaceByName(name string) (*metapb.SpaceDesc, bool) {
	sp, ok := s.spacesByName[name]
	return sp, ok
}

func (s *Snapshot) SpaceByID(id int32) (*metapb.SpaceDesc, bool) {
	sp, ok := s.spacesByID[id]
	return sp, ok
}

// Tags lists the space's tags, by id.
func (s *Snapshot) Tags(spaceID int32) []*metapb.TagDesc {
	if x := s.tags[spaceID]; x != nil {
		return x.list
	}
	return nil
}

func (s *Snapshot) TagByName(spaceID int32, name string) (*metapb.TagDesc, bool) {
	if x := s.tags[spaceID]; x != nil {
		t, ok := x.byName[name]
		return t, ok
	}
	return nil, false
}

func (s *Snapshot) TagByID(spaceID, tagID int32) (*metapb.TagDesc, bool) {
	if x := s.tags[spaceID]; x != nil {
		t, ok := x.byID[tagID]
		return t, ok
	}
	return nil, false
}

// Edges lists the space's edge types, by type.
func (s *Snapshot) Edges(spaceID int32) []*metapb.EdgeDesc {
	if x := s.edges[spaceID]; x != nil {
		return x.list
	}
	return nil
}

func (s *Snapshot) EdgeByName(spaceID int32, name string) (*metapb.EdgeDesc, bool) {
	if x := s.edges[spaceID]; x != nil {
		e, ok := x.byName[name]
		return e, ok
	}
	return nil, false
}

// EdgeByType finds an edge type by its id; a negative type (the in-edge copy
// as stored) finds the same edge type.
func (s *Snapshot) EdgeByType(spaceID, edgeType int32) (*metapb.EdgeDesc, bool) {
	if edgeType < 0 {
		edgeType = -edgeType
	}
	if x := s.edges[spaceID]; x != nil {
		e, ok := x.byID[edgeType]
		return e, ok
	}
	return nil, false
}

// Indexes lists the space's tag and edge indexes, by index id.
func (s *Snapshot) Indexes(spaceID int32) []*metapb.IndexDesc {
	if x := s.indexes[spaceID]; x != nil {
		return x.list
	}
	return nil
}

// IndexByName finds a tag or edge index by name (index names are unique in
// a space across both kinds).
func (s *Snapshot) IndexByName(spaceID int32, name string) (*metapb.IndexDesc, bool) {
	if x := s.indexes[spaceID]; x != nil {
		d, ok := x.byName[name]
		return d, ok
	}
	return nil, false
}

func (s *Snapshot) IndexByID(spaceID, indexID int32) (*metapb.IndexDesc, bool) {
	if x := s.indexes[spaceID]; x != nil {
		d, ok := x.byID[indexID]
		return d, ok
	}
	return nil, false
}

// IndexesOn lists, by index id, the indexes on a tag (isEdge false,
// schemaID a tag id) or an edge type (isEdge true, schemaID an edge type; a
// negative type, the in-edge copy as stored, finds the same indexes).
func (s *Snapshot) IndexesOn(spaceID int32, isEdge bool, schemaID int32) []*metapb.IndexDesc {
	if isEdge && schemaID < 0 {
		schemaID = -schemaID
	}
	if x := s.indexes[spaceID]; x != nil {
		return x.on[schemaKey{isEdge, schemaID}]
	}
	return nil
}

// Parts maps each partition of the space to its replicas' store ids (nil
// for an unknown space).
func (s *Snapshot) Parts(spaceID int32) map[int32][]uint64 { return s.parts[spaceID] }

// InitialReplicas maps each partition of the space to the replicas it was
// created with (see metapb.PartAlloc.initial_replicas).
func (s *Snapshot) InitialReplicas(spaceID int32) map[int32][]uint64 { return s.initial[spaceID] }

// Learners maps each partition of the space that has stores joining it to
// those stores (see metapb.PartAlloc.learners).
func (s *Snapshot) Learners(spaceID int32) map[int32][]uint64 { return s.learners[spaceID] }

// PartsOnStore maps each space to the partitions with a replica on the
// store, in partition order: what a storaged should be hosting.
func (s *Snapshot) PartsOnStore(storeID uint64) map[int32][]int32 { return s.storeParts[storeID] }

// Hosts lists every registered host, by store id.
func (s *Snapshot) Hosts() []*metapb.HostInfo { return s.cat.GetHosts() }

func (s *Snapshot) Host(storeID uint64) (*metapb.HostInfo, bool) {
	h, ok := s.hosts[storeID]
	return h, ok
}

// HostAddr is the store's "host:port".
func (s *Snapshot) HostAddr(storeID uint64) (string, bool) {
	a, ok := s.hostAddrs[storeID]
	return a, ok
}

// Leader is the store the partition's leader last reported from, if any
// live host has reported one.
func (s *Snapshot) Leader(spaceID, partID int32) (uint64, bool) {
	l, ok := s.leaders[partKey{spaceID, partID}]
	return l, ok
}

// RootUser is the user metad creates on the first start: the only GOD, with
// that role implicitly on every space.
const RootUser = "root"

// Users lists every user, by name.
func (s *Snapshot) Users() []*metapb.UserInfo { return s.cat.GetUsers() }

// User finds a user by name.
func (s *Snapshot) User(name string) (*metapb.UserInfo, bool) {
	u, ok := s.users[name]
	return u, ok
}

// RoleOf is the user's role on the space: GOD for root on every space,
// ROLE_TYPE_UNSPECIFIED for a user without a role there or an unknown user.
func (s *Snapshot) RoleOf(user string, spaceID int32) metapb.RoleType {
	u, ok := s.users[user]
	switch {
	case !ok:
		return metapb.RoleType_ROLE_TYPE_UNSPECIFIED
	case user == RootUser:
		return metapb.RoleType_GOD
	}
	return u.GetRoles()[spaceID]
}
