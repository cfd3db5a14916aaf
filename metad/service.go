package metad

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// service implements MetaService on a Server.
type service struct {
	metapb.UnimplementedMetaServiceServer
	s *Server
}

func (svc *service) CreateSpace(ctx context.Context, req *metapb.CreateSpaceReq) (*metapb.CreateSpaceResp, error) {
	id, ver, err := svc.s.createSpace(ctx, req)
	return &metapb.CreateSpaceResp{Status: svc.s.toStatus("CreateSpace", err), SpaceId: id, Version: ver}, nil
}

func (svc *service) DropSpace(ctx context.Context, req *metapb.DropSpaceReq) (*metapb.DropSpaceResp, error) {
	ver, err := svc.s.dropSpace(ctx, req)
	return &metapb.DropSpaceResp{Status: svc.s.toStatus("DropSpace", err), Version: ver}, nil
}

func (svc *service) CreateSchema(ctx context.Context, req *metapb.CreateSchemaReq) (*metapb.CreateSchemaResp, error) {
	id, ver, err := svc.s.createSchema(ctx, req)
	return &metapb.CreateSchemaResp{Status: svc.s.toStatus("CreateSchema", err), Id: id, Version: ver}, nil
}

func (svc *service) AlterSchema(ctx context.Context, req *metapb.AlterSchemaReq) (*metapb.AlterSchemaResp, error) {
	ver, err := svc.s.alterSchema(ctx, req)
	return &metapb.AlterSchemaResp{Status: svc.s.toStatus("AlterSchema", err), Version: ver}, nil
}

func (svc *service) DropSchema(ctx context.Context, req *metapb.DropSchemaReq) (*metapb.DropSchemaResp, error) {
	ver, err := svc.s.dropSchema(ctx, req)
	return &metapb.DropSchemaResp{Status: svc.s.toStatus("DropSchema", err), Version: ver}, nil
}

func (svc *service) CreateIndex(ctx context.Context, req *metapb.CreateIndexReq) (*metapb.CreateIndexResp, error) {
	id, ver, err := svc.s.createIndex(ctx, req)
	return &metapb.CreateIndexResp{Status: svc.s.toStatus("CreateIndex", err), IndexId: id, Version: ver}, nil
}

func (svc *service) DropIndex(ctx context.Context, req *metapb.DropIndexReq) (*metapb.DropIndexResp, error) {
	ver, err := svc.s.dropIndex(ctx, req)
	return &metapb.DropIndexResp{Status: svc.s.toStatus("DropIndex", err), Version: ver}, nil
}

func (svc *service) RegisterHost(ctx context.Context, req *metapb.RegisterHostReq) (*metapb.RegisterHostResp, error) {
	if err := callerNamesHost(ctx, req.GetAddr().GetHost()); err != nil {
		return nil, err
	}
	id, ver, err := svc.s.registerHost(ctx, req)
	return &metapb.RegisterHostResp{Status: svc.s.toStatus("RegisterHost", err), StoreId: id, Version: ver}, nil
}

func (svc *service) Heartbeat(ctx context.Context, req *metapb.HeartbeatReq) (*metapb.HeartbeatResp, error) {
	if err := callerNamesHost(ctx, req.GetAddr().GetHost()); err != nil {
		return nil, err
	}
	ver, err := svc.s.heartbeat(ctx, req)
	return &metapb.HeartbeatResp{Status: svc.s.toStatus("Heartbeat", err), Version: ver}, nil
}

func (svc *service) GetCatalog(ctx context.Context, _ *metapb.GetCatalogReq) (*metapb.GetCatalogResp, error) {
	return &metapb.GetCatalogResp{Status: svc.s.toStatus("GetCatalog", nil), Catalog: svc.s.servedCatalog(svc.s.cat.current())}, nil
}

// WatchCatalog sends the newest catalog whenever it passes the version the
// caller has. A slow receiver skips intermediate versions rather than
// queueing them: each message is the whole catalog, so only the last matters.
func (svc *service) WatchCatalog(req *metapb.WatchCatalogReq, stream grpc.ServerStreamingServer[metapb.Catalog]) error {
	s := svc.s
	known := req.GetKnownVersion()
	// A metad that cannot follow etcd (its member lost the quorum) would
	// stream a catalog that silently stops changing; it ends the stream
	// instead, so that the client moves to another metad.
	health := time.NewTicker(watchHealthInterval)
	defer health.Stop()
	failing := 0
	for {
		v := s.cat.current()
		if v.version() > known {
			if err := stream.Send(s.servedCatalog(v)); err != nil {
				return err
			}
			known = v.version()
		}
		select {
		case <-health.C:
			if err := s.cat.health(); err == nil {
				failing = 0
			} else if failing++; failing >= watchHealthFailures {
				return status.Errorf(codes.Unavailable, "metad %s cannot follow etcd (%v); its catalog may be stale", s.Addr(), err)
			}
		case <-v.next:
		case <-stream.Context().Done():
			return status.FromContextError(stream.Context().Err()).Err()
		case <-s.stopping:
			return status.Error(codes.Unavailable, "metad is shutting down")
		}
	}
}

// toStatus turns a handler's error into the response Status. Errors that are
// not the caller's (etcd unreachable, a timeout) are logged here, once.
func (s *Server) toStatus(method string, err error) *metapb.Status {
	if err == nil {
		return &metapb.Status{Code: commonpb.ErrorCode_SUCCEEDED}
	}
	var se *statusError
	if errors.As(err, &se) {
		return &metapb.Status{Code: se.Code, Message: se.Msg}
	}
	if errors.Is(err, rpctypes.ErrNoLeader) {
		// requireQuorum turns this into gRPC Unavailable: nothing was
		// written, and the client tries another metad.
		return &metapb.Status{Code: codeNoQuorum, Message: err.Error()}
	}
	s.log.Warn("meta request failed", "method", method, "err", err)
	code := commonpb.ErrorCode_E_UNKNOWN
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		code = commonpb.ErrorCode_E_TIMEOUT
	}
	return &metapb.Status{Code: code, Message: err.Error()}
}

// servedCatalog is v's catalog with each host's last heartbeat time, which
// lives in metad's memory and not in etcd. The result shares everything but
// the hosts with v, so it must not be modified either.
func (s *Server) servedCatalog(v *view) *metapb.Catalog {
	hosts := make([]*metapb.HostInfo, len(v.cat.Hosts))
	s.hbMu.Lock()
	for i, h := range v.cat.Hosts {
		hosts[i] = &metapb.HostInfo{StoreId: h.StoreId, Addr: h.Addr, Zone: h.Zone, Online: h.Online, LastHeartbeatMs: s.lastHeartbeat[h.StoreId]}
	}
	s.hbMu.Unlock()
	c := v.cat
	return &metapb.Catalog{
		Version: c.Version,
		Spaces:  c.Spaces,
		Tags:    c.Tags,
		Edges:   c.Edges,
		Parts:   c.Parts,
		Hosts:   hosts,
		Leaders: c.Leaders,
		Indexes: c.Indexes,
		Users:   c.Users,
	}
}

// commit runs a catalog change (DDL) through update and, once it has
// written, waits until this metad's own catalog has caught up with the
// write, so that GetCatalog and WatchCatalog on this metad reflect a change
// as soon as it is acknowledged.
//
// Changes made through one metad run one at a time. The transactions alone
// would be correct, but many concurrent changes to one space all bump the
// same id counter, and optimistic retries would make that quadratic; the
// transactions still guard against other metad processes.
func (s *Server) commit(ctx context.Context, fn func(r *txnReader) ([]clientv3.Op, error)) (int64, error) {
	select {
	case s.ddlSem <- struct{}{}:
	case <-ctx.Done():
		return 0, fmt.Errorf("waiting for earlier catalog changes: %w", ctx.Err())
	}
	if hook := s.beforeCommit.Load(); hook != nil {
		inner := fn
		fn = func(r *txnReader) ([]clientv3.Op, error) {
			ops, err := inner(r)
			if err == nil && len(ops) > 0 {
				(*hook)()
			}
			return ops, err
		}
	}
	rev, err := update(ctx, s.cli, s.metrics.txnConflicts.Inc, fn)
	<-s.ddlSem
	if err != nil || rev == 0 {
		return rev, err
	}
	s.settle(ctx, rev)
	return rev, nil
}

// settle waits for this metad's catalog to reach rev. The change is already
// committed, so failing to wait is logged, not returned.
func (s *Server) settle(ctx context.Context, rev int64) {
	if err := s.cat.waitVersion(ctx, rev); err != nil {
		s.log.Warn("catalog has not caught up with a committed change", "err", err)
	}
}

func marshal(m proto.Message) (string, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encoding %T: %w", m, err)
	}
	return string(b), nil
}

func value(kv *mvccpb.KeyValue) []byte {
	if kv == nil {
		return nil
	}
	return kv.Value
}

// nextID reads a counter and returns its next value, which must not exceed
// limit, with the op that stores it.
func nextID(r *txnReader, key string, limit int64, what string) (int64, clientv3.Op, error) {
	kv, err := r.get(key)
	if err != nil {
		return 0, clientv3.Op{}, err
	}
	last, err := parseCounter(value(kv))
	if err != nil {
		return 0, clientv3.Op{}, fmt.Errorf("%s: %w", key, err)
	}
	if last >= limit {
		return 0, clientv3.Op{}, errorf(commonpb.ErrorCode_E_UNKNOWN, "%s ids are exhausted (last %d)", what, last)
	}
	return last + 1, clientv3.OpPut(key, itoa(last+1)), nil
}

func (s *Server) createSpace(ctx context.Context, req *metapb.CreateSpaceReq) (int32, int64, error) {
	desc, err := ddlcheck.Space(req.GetSpace())
	if err != nil {
		return 0, 0, err
	}
	var id int32
	var existingRev int64
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		id, existingRev = 0, 0
		nameKV, err := r.get(spaceNameKey(desc.Name))
		if err != nil {
			return nil, err
		}
		if nameKV != nil {
			if !req.IfNotExists {
				return nil, errorf(commonpb.ErrorCode_E_EXISTED, "space %q already exists", desc.Name)
			}
			n, err := strconv.ParseInt(string(nameKV.Value), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: malformed space id %q", nameKV.Key, nameKV.Value)
			}
			id, existingRev = int32(n), nameKV.ModRevision
			return nil, nil
		}
		next, counterOp, err := nextID(r, keySpaceIDCounter, math.MaxInt32, "space")
		if err != nil {
			return nil, err
		}
		id = int32(next)
		d := proto.Clone(desc).(*metapb.SpaceDesc)
		d.SpaceId = id
		descVal, err := marshal(d)
		if err != nil {
			return nil, err
		}
		parts, err := placeOnline(r, d)
		if err != nil {
			return nil, err
		}
		partsVal, err := marshal(parts)
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{
			counterOp,
			clientv3.OpPut(spaceNameKey(d.Name), itoa(int64(id))),
			clientv3.OpPut(spaceKey(id), descVal),
			clientv3.OpPut(partsKey(id), partsVal),
		}, nil
	})
	if err != nil {
		return 0, 0, err
	}
	if rev == 0 {
		rev = existingRev
		s.settle(ctx, rev)
	} else {
		s.log.Info("space created", "space", desc.Name, "space_id", id, "partitions", desc.PartitionNum, "replica_factor", desc.ReplicaFactor, "version", rev)
	}
	return id, rev, nil
}

// placeOnline places the partitions of a new space on the online hosts,
// spread over their zones (CREATE SPACE, and a restore of a backup's).
func placeOnline(r *txnReader, d *metapb.SpaceDesc) (*metapb.SpaceParts, error) {
	hostKVs, err := r.list(prefixHosts)
	if err != nil {
		return nil, err
	}
	aliveKVs, err := r.list(prefixAlive)
	if err != nil {
		return nil, err
	}
	online := onlineHosts(hostKVs, aliveKVs)
	if len(online) < int(d.ReplicaFactor) {
		return nil, errorf(commonpb.ErrorCode_E_NO_HOSTS,
			"space %q needs %d online hosts for replica_factor %d, but %d of %d added hosts are online",
			d.Name, d.ReplicaFactor, d.ReplicaFactor, len(online), len(hostKVs))
	}
	// DROP HOSTS deletes host keys, which the prefix comparison of list
	// cannot see: no partition may land on a host dropped meanwhile.
	for _, kv := range hostKVs {
		r.assertUnchanged(kv)
	}
	zoneOf := map[uint64]string{}
	for _, kv := range hostKVs {
		var h metapb.HostInfo
		if proto.Unmarshal(kv.Value, &h) == nil {
			zoneOf[h.StoreId] = h.Zone
		}
	}
	return &metapb.SpaceParts{Parts: ddlcheck.PlaceParts(d.PartitionNum, d.ReplicaFactor, zoneOrder(online, zoneOf))}, nil
}

// onlineHosts returns the sorted store ids of added hosts with a live
// lease.
func onlineHosts(hostKVs, aliveKVs []*mvccpb.KeyValue) []uint64 {
	registered := map[uint64]bool{}
	for _, kv := range hostKVs {
		if id, err := idFromKey(string(kv.Key), prefixHosts); err == nil {
			registered[id] = true
		}
	}
	var online []uint64
	for _, kv := range aliveKVs {
		if id, err := idFromKey(string(kv.Key), prefixAlive); err == nil && registered[id] {
			online = append(online, id)
		}
	}
	slices.Sort(online)
	return online
}

func (s *Server) dropSpace(ctx context.Context, req *metapb.DropSpaceReq) (int64, error) {
	if err := ddlcheck.Name("space", req.GetName()); err != nil {
		return 0, err
	}
	var id int32
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		nameKV, err := r.get(spaceNameKey(req.Name))
		if err != nil {
			return nil, err
		}
		if nameKV == nil {
			if req.IfExists {
				return nil, nil
			}
			return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %q not found", req.Name)
		}
		n, err := strconv.ParseInt(string(nameKV.Value), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: malformed space id %q", nameKV.Key, nameKV.Value)
		}
		id = int32(n)
		ops := []clientv3.Op{
			clientv3.OpDelete(spaceNameKey(req.Name)),
			clientv3.OpDelete(spaceKey(id)),
			clientv3.OpDelete(partsKey(id)),
			clientv3.OpDelete(tagsPrefix(id), clientv3.WithPrefix()),
			clientv3.OpDelete(edgesPrefix(id), clientv3.WithPrefix()),
			clientv3.OpDelete(schemaNamesPrefix(id), clientv3.WithPrefix()),
			clientv3.OpDelete(schemaIDCounterKey(id)),
			clientv3.OpDelete(indexesPrefix(id), clientv3.WithPrefix()),
			clientv3.OpDelete(indexNamesPrefix(id), clientv3.WithPrefix()),
			clientv3.OpDelete(indexIDCounterKey(id)),
			// Grants on the space go with it.
			clientv3.OpDelete(rolesPrefix(id), clientv3.WithPrefix()),
		}
		// Remove the space from every host's leader report. The rewrite
		// keeps each key's lease (WithIgnoreLease), so it still vanishes
		// with its host.
		leaderKVs, err := r.list(prefixLeaders)
		if err != nil {
			return nil, err
		}
		for _, kv := range leaderKVs {
			var rep metapb.HeartbeatReq
			if err := proto.Unmarshal(kv.Value, &rep); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
			}
			kept := slices.DeleteFunc(slices.Clone(rep.Leaders), func(l *metapb.LeaderInfo) bool { return l.SpaceId == id })
			if len(kept) == len(rep.Leaders) {
				continue
			}
			r.assertUnchanged(kv)
			if len(kept) == 0 {
				ops = append(ops, clientv3.OpDelete(string(kv.Key)))
				continue
			}
			val, err := marshal(&metapb.HeartbeatReq{StoreId: rep.StoreId, Leaders: kept})
			if err != nil {
				return nil, err
			}
			ops = append(ops, clientv3.OpPut(string(kv.Key), val, clientv3.WithIgnoreLease()))
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return s.cat.current().version(), nil
	}
	s.log.Info("space dropped", "space", req.Name, "space_id", id, "version", rev)
	return rev, nil
}

func (s *Server) createSchema(ctx context.Context, req *metapb.CreateSchemaReq) (int32, int64, error) {
	ref := schemaRef{isEdge: req.GetIsEdge()}
	if err := ddlcheck.Name(ref.kind(), req.GetName()); err != nil {
		return 0, 0, err
	}
	where := fmt.Sprintf("%s %q", ref.kind(), req.Name)
	cols, err := ddlcheck.Columns(where, req.Columns)
	if err != nil {
		return 0, 0, err
	}
	if err := ddlcheck.TTL(where, cols, req.TtlCol, req.TtlDuration); err != nil {
		return 0, 0, err
	}
	var existingRev int64
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		ref.id, existingRev = 0, 0
		spaceKV, err := r.get(spaceKey(req.SpaceId))
		if err != nil {
			return nil, err
		}
		if spaceKV == nil {
			return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %d not found", req.SpaceId)
		}
		var space metapb.SpaceDesc
		if err := proto.Unmarshal(spaceKV.Value, &space); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", spaceKV.Key, err)
		}
		nameKV, err := r.get(schemaNameKey(req.SpaceId, req.Name))
		if err != nil {
			return nil, err
		}
		if nameKV != nil {
			owner, err := parseSchemaRef(nameKV.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", nameKV.Key, err)
			}
			if owner.isEdge != ref.isEdge {
				return nil, errorf(commonpb.ErrorCode_E_EXISTED,
					"cannot create %s %q in space %q: the name is already used by %s %d, and a tag and an edge type may not share a name",
					ref.kind(), req.Name, space.Name, owner.kind(), owner.id)
			}
			if !req.IfNotExists {
				return nil, errorf(commonpb.ErrorCode_E_EXISTED, "%s %q already exists in space %q", ref.kind(), req.Name, space.Name)
			}
			ref.id, existingRev = owner.id, nameKV.ModRevision
			return nil, nil
		}
		// Tags and edge types draw from one counter per space, so an id
		// names one schema of either kind.
		next, counterOp, err := nextID(r, schemaIDCounterKey(req.SpaceId), math.MaxInt32, "tag and edge")
		if err != nil {
			return nil, err
		}
		ref.id = int32(next)
		versions := []*metapb.Schema{{Version: 0, Columns: cols, TtlCol: req.TtlCol, TtlDuration: req.TtlDuration, Comment: req.Comment}}
		var descKey, descVal string
		if ref.isEdge {
			descKey = edgeKey(req.SpaceId, ref.id)
			descVal, err = marshal(&metapb.EdgeDesc{SpaceId: req.SpaceId, EdgeType: ref.id, Name: req.Name, Versions: versions})
		} else {
			descKey = tagKey(req.SpaceId, ref.id)
			descVal, err = marshal(&metapb.TagDesc{SpaceId: req.SpaceId, TagId: ref.id, Name: req.Name, Versions: versions})
		}
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{
			counterOp,
			clientv3.OpPut(schemaNameKey(req.SpaceId, req.Name), ref.String()),
			clientv3.OpPut(descKey, descVal),
		}, nil
	})
	if err != nil {
		return 0, 0, err
	}
	if rev == 0 {
		rev = existingRev
		s.settle(ctx, rev)
	} else {
		s.log.Info("schema created", "kind", ref.kind(), "name", req.Name, "space_id", req.SpaceId, "id", ref.id, "version", rev)
	}
	return ref.id, rev, nil
}

// registerHost returns the store id of the host at an address, reserving
// one the first time (the same address always gets the same id), and adds
// the host unless metad requires ADD HOSTS (hosts.go).
func (s *Server) registerHost(ctx context.Context, req *metapb.RegisterHostReq) (uint64, int64, error) {
	addr := req.GetAddr()
	hostPort, err := hostPort(addr)
	if err != nil {
		return 0, 0, err
	}
	var id uint64
	var existingRev int64
	var added, wasAdded bool
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		id, existingRev, added, wasAdded = 0, 0, false, false
		var addrKV *mvccpb.KeyValue
		var ops []clientv3.Op
		var err error
		id, addrKV, ops, err = reserveStoreID(r, hostPort)
		if err != nil {
			return nil, err
		}
		if addrKV != nil {
			existingRev = addrKV.ModRevision
		}
		hostKV, err := r.get(hostKey(id))
		if err != nil {
			return nil, err
		}
		if hostKV != nil {
			existingRev, wasAdded = max(existingRev, hostKV.ModRevision), true
			rezone, err := reZone(r, id, req.GetZone())
			return append(ops, rezone...), err
		}
		if s.cfg.RequireAddHosts {
			return ops, nil // ADD HOSTS adds it
		}
		add, err := addHostOp(id, addr, req.GetZone())
		if err != nil {
			return nil, err
		}
		added = true
		return append(ops, add), nil
	})
	if err != nil {
		return 0, 0, err
	}
	switch {
	case rev == 0:
		rev = existingRev
		s.settle(ctx, rev)
	case added:
		s.log.Info("host registered and added", "addr", hostPort, "store_id", id, "version", rev)
	case wasAdded:
		s.log.Info("host registered again", "addr", hostPort, "store_id", id, "zone", req.GetZone(), "version", rev)
	default:
		s.log.Info("host registered; it serves once ADD HOSTS adds it", "addr", hostPort, "store_id", id, "version", rev)
	}
	return id, rev, nil
}

// heartbeat keeps the host's lease alive (granting a new one if it has
// expired, which brings the host back online) and, if the host's leaders
// differ from what etcd has, replaces them. A heartbeat that changes nothing
// writes nothing: a lease keep-alive does not move the etcd revision.
func (s *Server) heartbeat(ctx context.Context, req *metapb.HeartbeatReq) (int64, error) {
	store := req.GetStoreId()
	if store == 0 {
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "heartbeat without a store id; call RegisterHost first")
	}
	leaders := normalizeLeaders(req.Leaders, store, s.cat.current())
	ttl := int64(math.Ceil(s.cfg.HostTTL.Seconds()))

	// granted is a lease this heartbeat created; unless a commit attached it
	// to the host's keys, it must be revoked, or it would linger until its
	// TTL runs out for nothing.
	var granted clientv3.LeaseID
	revoke := func() {
		if granted == 0 {
			return
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if _, err := s.cli.Revoke(rctx, granted); err != nil {
			s.log.Warn("revoking unused host lease", "store_id", store, "lease", granted, "err", err)
		}
		granted = 0
	}
	defer revoke()

	rev, err := update(ctx, s.cli, s.metrics.txnConflicts.Inc, func(r *txnReader) ([]clientv3.Op, error) {
		revoke() // left over from an attempt whose commit failed
		kvs, err := r.getAll(hostKey(store), aliveKey(store), leadersKey(store))
		if err != nil {
			return nil, err
		}
		hostKV, aliveKV, leadersKV := kvs[0], kvs[1], kvs[2]
		if hostKV == nil {
			return nil, s.notAdded(r, store, req.GetAddr())
		}
		if a := req.GetAddr(); a != nil {
			var host metapb.HostInfo
			if err := proto.Unmarshal(hostKV.Value, &host); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", hostKV.Key, err)
			}
			if a.Host != host.Addr.GetHost() || a.Port != host.Addr.GetPort() {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "store %d is registered as %s:%d, not %s:%d",
					store, host.Addr.GetHost(), host.Addr.GetPort(), a.Host, a.Port)
			}
		}

		var lease clientv3.LeaseID
		if aliveKV != nil && aliveKV.Lease != 0 {
			// The lease id lives on the key itself, so a restarted metad
			// keeps refreshing the same lease and the host never flaps.
			_, err := s.cli.KeepAliveOnce(ctx, clientv3.LeaseID(aliveKV.Lease))
			switch {
			case err == nil:
				lease = clientv3.LeaseID(aliveKV.Lease)
			case errors.Is(err, rpctypes.ErrLeaseNotFound):
				// Expired just now; etcd is deleting its keys. Start afresh.
			default:
				return nil, fmt.Errorf("refreshing lease of store %d: %w", store, err)
			}
		}
		var ops []clientv3.Op
		if lease == 0 {
			g, err := s.cli.Grant(ctx, ttl)
			if err != nil {
				return nil, fmt.Errorf("granting lease for store %d: %w", store, err)
			}
			granted, lease = g.ID, g.ID
			ops = append(ops, clientv3.OpPut(aliveKey(store), "", clientv3.WithLease(lease)))
		}

		var cur metapb.HeartbeatReq
		if leadersKV != nil {
			if err := proto.Unmarshal(leadersKV.Value, &cur); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", leadersKV.Key, err)
			}
		}
		// A new lease must carry the leader key too, or the key would die
		// with the old lease while the host stays online.
		if granted != 0 || !slices.EqualFunc(cur.Leaders, leaders, leaderEqual) {
			switch {
			case len(leaders) > 0:
				val, err := marshal(&metapb.HeartbeatReq{StoreId: store, Leaders: leaders})
				if err != nil {
					return nil, err
				}
				ops = append(ops, clientv3.OpPut(leadersKey(store), val, clientv3.WithLease(lease)))
			case leadersKV != nil:
				ops = append(ops, clientv3.OpDelete(leadersKey(store)))
			}
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	granted = 0 // committed (or nothing to commit): the lease is the host's

	s.hbMu.Lock()
	s.lastHeartbeat[store] = time.Now().UnixMilli()
	s.hbMu.Unlock()

	if rev == 0 {
		return s.cat.current().version(), nil
	}
	s.settle(ctx, rev)
	return rev, nil
}

// normalizeLeaders returns the leaders a host reported, attributed to the
// host, one per partition (the highest term), sorted, and without partitions
// the catalog does not have: a host that has not yet heard of a dropped space
// must not write the space's leaders back.
func normalizeLeaders(in []*metapb.LeaderInfo, store uint64, v *view) []*metapb.LeaderInfo {
	type partKey struct{ space, part int32 }
	best := map[partKey]*metapb.LeaderInfo{}
	for _, l := range in {
		sp, ok := v.spaces[l.GetSpaceId()]
		if !ok || l.PartId < 1 || l.PartId > sp.PartitionNum {
			continue
		}
		k := partKey{l.SpaceId, l.PartId}
		if cur, ok := best[k]; !ok || l.Term > cur.Term {
			best[k] = &metapb.LeaderInfo{SpaceId: l.SpaceId, PartId: l.PartId, StoreId: store, Term: l.Term}
		}
	}
	out := make([]*metapb.LeaderInfo, 0, len(best))
	for _, l := range best {
		out = append(out, l)
	}
	slices.SortFunc(out, compareLeaders)
	return out
}

func leaderEqual(a, b *metapb.LeaderInfo) bool {
	return a.SpaceId == b.SpaceId && a.PartId == b.PartId && a.StoreId == b.StoreId && a.Term == b.Term
}
