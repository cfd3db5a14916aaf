package metad

import (
	"context"
	"fmt"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// restoreCatalog recreates spaces of a backup's catalog (nova-br restore,
// docs/backup.md) with the ids they had: the keys in a backup's SST files
// carry space, tag, edge type and index ids, and its rows name schema
// versions, so the space must come back as it was, every schema version
// included, not be created anew. Its partitions are placed on the online
// hosts as CREATE SPACE places them, so a backup of three stores restores
// onto five, or onto one. Each space goes in one transaction, refused if
// its id or its name is taken (restore into a cluster without them); the
// id counters move past the restored ids, so later DDL does not reuse them.
// A replica factor given replaces the backup's, for a smaller cluster.
func (s *Server) restoreCatalog(ctx context.Context, cat *metapb.Catalog, spaceIDs []int32, replicaFactor int32) (int64, error) {
	if cat == nil || len(spaceIDs) == 0 {
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "restore: no catalog or no space to restore")
	}
	var rev int64
	for _, id := range spaceIDs {
		idx := slices.IndexFunc(cat.Spaces, func(sp *metapb.SpaceDesc) bool { return sp.GetSpaceId() == id })
		if idx < 0 {
			return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "restore: space %d is not in the backup's catalog", id)
		}
		sp := cat.Spaces[idx]
		if replicaFactor > 0 {
			sp = proto.Clone(sp).(*metapb.SpaceDesc)
			sp.ReplicaFactor = replicaFactor
		}
		r, err := s.restoreSpace(ctx, cat, sp)
		if err != nil {
			return 0, err
		}
		rev = r
	}
	return rev, nil
}

func (s *Server) restoreSpace(ctx context.Context, cat *metapb.Catalog, space *metapb.SpaceDesc) (int64, error) {
	desc, err := ddlcheck.Space(space)
	if err != nil {
		return 0, err
	}
	id := space.GetSpaceId()
	desc.SpaceId = id
	var tags []*metapb.TagDesc
	var edges []*metapb.EdgeDesc
	var indexes []*metapb.IndexDesc
	for _, t := range cat.Tags {
		if t.GetSpaceId() == id {
			tags = append(tags, t)
		}
	}
	for _, e := range cat.Edges {
		if e.GetSpaceId() == id {
			edges = append(edges, e)
		}
	}
	for _, x := range cat.Indexes {
		if x.GetSpaceId() == id {
			indexes = append(indexes, x)
		}
	}
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		if kv, err := r.get(spaceKey(id)); err != nil {
			return nil, err
		} else if kv != nil {
			var have metapb.SpaceDesc
			_ = proto.Unmarshal(kv.Value, &have)
			return nil, errorf(commonpb.ErrorCode_E_EXISTED, "restore: space id %d is taken by space %q here; restore into a cluster without it", id, have.GetName())
		}
		if kv, err := r.get(spaceNameKey(desc.Name)); err != nil {
			return nil, err
		} else if kv != nil {
			return nil, errorf(commonpb.ErrorCode_E_EXISTED, "restore: space %q exists here; drop it first or restore into a cluster without it", desc.Name)
		}
		parts, err := placeOnline(r, desc)
		if err != nil {
			return nil, err
		}
		ops := []clientv3.Op{}
		put := func(key string, m proto.Message) error {
			v, err := marshal(m)
			if err == nil {
				ops = append(ops, clientv3.OpPut(key, v))
			}
			return err
		}
		if err := put(spaceKey(id), desc); err != nil {
			return nil, err
		}
		ops = append(ops, clientv3.OpPut(spaceNameKey(desc.Name), itoa(int64(id))))
		if err := put(partsKey(id), parts); err != nil {
			return nil, err
		}
		var maxSchema, maxIndex int64
		for _, t := range tags {
			if err := put(tagKey(id, t.GetTagId()), t); err != nil {
				return nil, err
			}
			ops = append(ops, clientv3.OpPut(schemaNameKey(id, t.GetName()), schemaRef{id: t.GetTagId()}.String()))
			maxSchema = max(maxSchema, int64(t.GetTagId()))
		}
		for _, e := range edges {
			if err := put(edgeKey(id, e.GetEdgeType()), e); err != nil {
				return nil, err
			}
			ops = append(ops, clientv3.OpPut(schemaNameKey(id, e.GetName()), schemaRef{isEdge: true, id: e.GetEdgeType()}.String()))
			maxSchema = max(maxSchema, int64(e.GetEdgeType()))
		}
		for _, x := range indexes {
			if err := put(indexKey(id, x.GetIndexId()), x); err != nil {
				return nil, err
			}
			ops = append(ops, clientv3.OpPut(indexNameKey(id, x.GetName()), itoa(int64(x.GetIndexId()))))
			maxIndex = max(maxIndex, int64(x.GetIndexId()))
		}
		// The counters: never below what exists, past every restored id.
		for _, c := range []struct {
			key string
			at  int64
		}{{keySpaceIDCounter, int64(id)}, {schemaIDCounterKey(id), maxSchema}, {indexIDCounterKey(id), maxIndex}} {
			kv, err := r.get(c.key)
			if err != nil {
				return nil, err
			}
			var cur int64
			if kv != nil {
				if cur, err = parseCounter(kv.Value); err != nil {
					return nil, fmt.Errorf("%s: %w", c.key, err)
				}
			}
			if c.at > cur {
				ops = append(ops, clientv3.OpPut(c.key, itoa(c.at)))
			}
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("space restored from a backup's catalog", "space", desc.Name, "space_id", id, "tags", len(tags), "edges", len(edges), "indexes", len(indexes), "version", rev)
	return rev, nil
}

// RestoreCatalog implements MetaService; root's credential only.
func (svc *service) RestoreCatalog(ctx context.Context, req *metapb.RestoreCatalogReq) (*metapb.RestoreCatalogResp, error) {
	if err := svc.s.checkCallerGod(ctx, "RestoreCatalog"); err != nil {
		return nil, err
	}
	rev, err := svc.s.restoreCatalog(ctx, req.GetCatalog(), req.GetSpaceIds(), req.GetReplicaFactor())
	return &metapb.RestoreCatalogResp{Status: svc.s.toStatus("RestoreCatalog", err), Version: rev}, nil
}
