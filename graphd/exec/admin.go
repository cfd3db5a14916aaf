package exec

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// metaError turns a metad failure into a statement error: catalog conflicts
// and unknown names are the user's (semantic), the rest execution errors.
func metaError(what string, err error) error {
	switch codeOf(err) {
	case commonpb.ErrorCode_E_EXISTED, commonpb.ErrorCode_E_NOT_FOUND, commonpb.ErrorCode_E_SPACE_NOT_FOUND,
		commonpb.ErrorCode_E_INVALID_ARGUMENT, commonpb.ErrorCode_E_TAG_NOT_FOUND, commonpb.ErrorCode_E_EDGE_NOT_FOUND,
		commonpb.ErrorCode_E_PROP_NOT_FOUND:
		return semanticf("%s: %v", what, err)
	}
	return execErrorf("%s: %v", what, err)
}

func (r *runState) createSpace(ctx context.Context, s *ast.CreateSpaceStmt) error {
	desc := &metapb.SpaceDesc{Name: s.Name, PartitionNum: int32(s.PartitionNum), ReplicaFactor: int32(s.ReplicaFactor)}
	switch s.VIDType.Kind {
	case ast.VIDInt64:
		desc.VidType, desc.VidLen = metapb.VidType_VID_INT64, 8
	default:
		desc.VidType, desc.VidLen = metapb.VidType_VID_FIXED_STRING, int32(s.VIDType.Len)
	}
	if _, _, err := r.x.meta.CreateSpace(ctx, desc, s.IfNotExists); err != nil {
		return metaError(fmt.Sprintf("CREATE SPACE %s", s.Name), err)
	}
	return nil
}

func (r *runState) dropSpace(ctx context.Context, s *ast.DropSpaceStmt) error {
	if _, err := r.x.meta.DropSpace(ctx, s.Name, s.IfExists); err != nil {
		return metaError(fmt.Sprintf("DROP SPACE %s", s.Name), err)
	}
	if r.sess.SpaceName == s.Name {
		r.sess.SpaceName, r.sess.SpaceID = "", 0
	}
	return nil
}

// clearSpace runs CLEAR SPACE: every partition deletes its data through
// raft (storaged/clear.go); the schema, indexes and the space stay. It
// returns once every partition is empty.
func (r *runState) clearSpace(ctx context.Context, s *ast.ClearSpaceStmt) error {
	space, ok := r.x.meta.Catalog().SpaceByName(s.Name)
	if !ok {
		if s.IfExists {
			return nil
		}
		return at(s, "space %q not found", s.Name)
	}
	if err := r.x.storage.ClearSpace(ctx, space.GetSpaceId()); err != nil {
		return storageError(fmt.Sprintf("CLEAR SPACE %s", s.Name), err)
	}
	return nil
}

func (r *runState) use(s *ast.UseStmt) error {
	space, ok := r.x.meta.Catalog().SpaceByName(s.Space)
	if !ok {
		return at(s, "space %q not found", s.Space)
	}
	r.sess.SpaceName, r.sess.SpaceID = space.GetName(), space.GetSpaceId()
	return nil
}

// currentSpace resolves the session's space in snap; statements that need
// one fail clearly without it.
func (r *runState) currentSpace(snap *catalog.Snapshot, n ast.Node) (*metapb.SpaceDesc, error) {
	if r.sess.SpaceName == "" {
		return nil, at(n, "no space selected: run USE <space> first")
	}
	space, ok := snap.SpaceByID(r.sess.SpaceID)
	if !ok || space.GetName() != r.sess.SpaceName {
		return nil, at(n, "space %q was dropped", r.sess.SpaceName)
	}
	return space, nil
}

func (r *runState) show(s *ast.ShowStmt) (*table, error) {
	snap := r.x.meta.Catalog()
	switch s.Target {
	case ast.ShowSpaces:
		t := newTable("Name")
		names := make([]string, 0)
		for _, sp := range snap.Spaces() {
			names = append(names, sp.GetName())
		}
		sort.Strings(names)
		for _, n := range names {
			t.add(value.Str(n))
		}
		return t, nil
	case ast.ShowHosts:
		return showHosts(snap), nil
	case ast.ShowHostsMeta:
		t := newTable("Host", "Port")
		for _, addr := range r.x.meta.Addrs() {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, fmt.Errorf("metad address %q: %w", addr, err)
			}
			n, _ := strconv.Atoi(port)
			t.add(value.Str(host), value.Int(int64(n)))
		}
		return t, nil
	case ast.ShowParts:
		space, err := r.currentSpace(snap, s)
		if err != nil {
			return nil, err
		}
		return showParts(snap, space), nil
	case ast.ShowTags, ast.ShowEdges:
		space, err := r.currentSpace(snap, s)
		if err != nil {
			return nil, err
		}
		var names []string
		if s.Target == ast.ShowTags {
			for _, t := range snap.Tags(space.GetSpaceId()) {
				names = append(names, t.GetName())
			}
		} else {
			for _, e := range snap.Edges(space.GetSpaceId()) {
				names = append(names, e.GetName())
			}
		}
		sort.Strings(names)
		t := newTable("Name")
		for _, n := range names {
			t.add(value.Str(n))
		}
		return t, nil
	case ast.ShowTagIndexes, ast.ShowEdgeIndexes:
		space, err := r.currentSpace(snap, s)
		if err != nil {
			return nil, err
		}
		return showIndexes(snap, space, s.Target == ast.ShowEdgeIndexes), nil
	}
	return nil, at(s, "unsupported SHOW")
}

func hostName(snap *catalog.Snapshot, store uint64) string {
	if addr, ok := snap.HostAddr(store); ok {
		return addr
	}
	return fmt.Sprintf("store#%d", store)
}

func showHosts(snap *catalog.Snapshot) *table {
	t := newTable("Host", "Port", "Status", "Leader count", "Leader distribution", "Partition distribution")
	hosts := append([]*metapb.HostInfo(nil), snap.Hosts()...)
	sort.Slice(hosts, func(i, j int) bool {
		a, b := hosts[i].GetAddr(), hosts[j].GetAddr()
		return a.GetHost() < b.GetHost() || (a.GetHost() == b.GetHost() && a.GetPort() < b.GetPort())
	})
	spaceName := map[int32]string{}
	for _, sp := range snap.Spaces() {
		spaceName[sp.GetSpaceId()] = sp.GetName()
	}
	for _, h := range hosts {
		leaders := map[string]int{}
		total := 0
		for _, sp := range snap.Spaces() {
			for part := range snap.Parts(sp.GetSpaceId()) {
				if l, ok := snap.Leader(sp.GetSpaceId(), part); ok && l == h.GetStoreId() {
					leaders[sp.GetName()]++
					total++
				}
			}
		}
		parts := map[string]int{}
		for space, ps := range snap.PartsOnStore(h.GetStoreId()) {
			if n, ok := spaceName[space]; ok {
				parts[n] += len(ps)
			}
		}
		status := "OFFLINE"
		if h.GetOnline() {
			status = "ONLINE"
		}
		t.add(value.Str(h.GetAddr().GetHost()), value.Int(int64(h.GetAddr().GetPort())), value.Str(status),
			value.Int(int64(total)), value.Str(distribution(leaders)), value.Str(distribution(parts)))
	}
	return t
}

// distribution prints "space:n, space:n" as NebulaGraph's SHOW HOSTS does.
func distribution(m map[string]int) string {
	if len(m) == 0 {
		return "No valid partition"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s:%d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

func showParts(snap *catalog.Snapshot, space *metapb.SpaceDesc) *table {
	t := newTable("Partition ID", "Leader", "Peers", "Losts")
	parts := snap.Parts(space.GetSpaceId())
	ids := make([]int32, 0, len(parts))
	for id := range parts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		leader := value.Null()
		if l, ok := snap.Leader(space.GetSpaceId(), id); ok {
			leader = value.Str(hostName(snap, l))
		}
		var peers, losts []string
		for _, store := range parts[id] {
			peers = append(peers, hostName(snap, store))
			if h, ok := snap.Host(store); !ok || !h.GetOnline() {
				losts = append(losts, hostName(snap, store))
			}
		}
		t.add(value.Int(int64(id)), leader, value.Str(strings.Join(peers, ", ")), value.Str(strings.Join(losts, ", ")))
	}
	return t
}

func vidTypeString(space *metapb.SpaceDesc) string {
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		return "INT64"
	}
	return fmt.Sprintf("FIXED_STRING(%d)", space.GetVidLen())
}

func (r *runState) describe(s *ast.DescribeStmt) (*table, error) {
	snap := r.x.meta.Catalog()
	switch s.Target {
	case ast.DescribeSpace:
		space, ok := snap.SpaceByName(s.Name)
		if !ok {
			return nil, at(s, "space %q not found", s.Name)
		}
		t := newTable("ID", "Name", "Partition Number", "Replica Factor", "Vid Type")
		t.add(value.Int(int64(space.GetSpaceId())), value.Str(space.GetName()), value.Int(int64(space.GetPartitionNum())),
			value.Int(int64(space.GetReplicaFactor())), value.Str(vidTypeString(space)))
		return t, nil
	case ast.DescribeTag, ast.DescribeEdge:
		space, err := r.currentSpace(snap, s)
		if err != nil {
			return nil, err
		}
		versions, err := describedSchema(snap, space, s)
		if err != nil {
			return nil, err
		}
		t := newTable("Field", "Type", "Null", "Default", "Comment")
		latest := versions[len(versions)-1]
		for _, c := range latest.GetColumns() {
			null := "NO"
			if c.GetNullable() {
				null = "YES"
			}
			def := value.Null()
			if c.GetDefaultExpr() != "" {
				def = value.Str(c.GetDefaultExpr()) // evaluated at each write
			} else if c.GetDefaultValue() != nil {
				def = value.FromProto(c.GetDefaultValue())
			}
			comment := value.Null()
			if c.GetComment() != "" {
				comment = value.Str(c.GetComment())
			}
			t.add(value.Str(c.GetName()), value.Str(schema.TypeName(c)), value.Str(null), def, comment)
		}
		return t, nil
	case ast.DescribeTagIndex, ast.DescribeEdgeIndex:
		space, err := r.currentSpace(snap, s)
		if err != nil {
			return nil, err
		}
		return describeIndex(snap, space, s, s.Target == ast.DescribeEdgeIndex)
	}
	return nil, at(s, "unsupported DESCRIBE")
}

// describedSchema are the versions of the tag or edge a DESCRIBE or SHOW
// CREATE names (its Target is DescribeTag or DescribeEdge).
func describedSchema(snap *catalog.Snapshot, space *metapb.SpaceDesc, s *ast.DescribeStmt) ([]*metapb.Schema, error) {
	kind := ast.TagSchema
	if s.Target == ast.DescribeEdge {
		kind = ast.EdgeSchema
	}
	versions, _, ok := schemaVersions(snap, space, kind, s.Name)
	if !ok {
		return nil, at(s, "%s %q not found in space %q", kindWord(kind), s.Name, space.GetName())
	}
	return versions, nil
}

func (r *runState) createSchema(ctx context.Context, s *ast.CreateSchemaStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	req := &metapb.CreateSchemaReq{SpaceId: space.GetSpaceId(), Name: s.Name, IfNotExists: s.IfNotExists, IsEdge: s.Kind == ast.EdgeSchema}
	for _, p := range s.Props {
		col, err := columnDef(p)
		if err != nil {
			return err
		}
		req.Columns = append(req.Columns, col)
	}
	if s.TTL != nil {
		req.TtlCol, req.TtlDuration, req.Comment = s.TTL.Col, s.TTL.Duration, s.TTL.Comment
	}
	if _, _, err := r.x.meta.CreateSchema(ctx, req); err != nil {
		return metaError(fmt.Sprintf("CREATE %s %s", s.Kind, s.Name), err)
	}
	return nil
}

// columnDef converts a property definition of CREATE or ALTER.
func columnDef(p *ast.PropDef) (*metapb.ColumnDef, error) {
	col := &metapb.ColumnDef{Name: p.Name, Nullable: p.Nullable, Comment: p.Comment}
	switch p.Type.Kind {
	case ast.PropInt64:
		col.Type, col.IntBits = metapb.PropType_INT64, int32(p.Type.Bits)
	case ast.PropDouble:
		col.Type, col.Float32 = metapb.PropType_DOUBLE, p.Type.Float32
	case ast.PropBool:
		col.Type = metapb.PropType_BOOL
	case ast.PropString:
		col.Type = metapb.PropType_STRING
	case ast.PropFixedString:
		col.Type, col.FixedLen = metapb.PropType_FIXED_STRING, int32(p.Type.Len)
	case ast.PropTimestamp:
		col.Type = metapb.PropType_TIMESTAMP
	case ast.PropDate:
		col.Type = metapb.PropType_DATE
	case ast.PropTime:
		col.Type = metapb.PropType_TIME
	case ast.PropDateTime:
		col.Type = metapb.PropType_DATETIME
	case ast.PropDuration:
		col.Type = metapb.PropType_DURATION
	default:
		return nil, at(p, "property %q: unsupported type %s", p.Name, p.Type)
	}
	if p.Default != nil {
		v, err := constant(p.Default)
		if err != nil {
			return nil, at(p.Default, "default of %q: %v", p.Name, err)
		}
		conv, err := schema.Coerce(v, col)
		if err != nil {
			return nil, at(p.Default, "default of %q: %v", p.Name, err)
		}
		col.DefaultValue = conv.ToProto()
		// DEFAULT now() is the time of each write, not of the CREATE: the
		// text goes along, and writes evaluate it (rowEncoder, the
		// importer, storaged's UPSERT with its command's time).
		// DefaultValue keeps the CREATE-time value for rows written before
		// an ALTER ADD. A random default stays the one value drawn here:
		// replicas could not agree on a draw of their own.
		if !eval.IsDeterministic(p.Default) && eval.IsClockOnly(p.Default) {
			col.DefaultExpr = p.Default.String()
		}
	}
	return col, nil
}
