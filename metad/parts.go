package metad

import (
	"context"
	"fmt"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

func (svc *service) UpdatePartReplicas(ctx context.Context, req *metapb.UpdatePartReplicasReq) (*metapb.UpdatePartReplicasResp, error) {
	ver, err := svc.s.updatePartReplicas(ctx, req)
	return &metapb.UpdatePartReplicasResp{Status: svc.s.toStatus("UpdatePartReplicas", err), Version: ver}, nil
}

// updatePartReplicas replaces one partition's replica and learner lists if
// they still equal the expected ones. The storage leader calls it around
// each raft membership step, so the catalog (and with it routing and which
// stores open replicas) follows raft's configuration.
func (s *Server) updatePartReplicas(ctx context.Context, req *metapb.UpdatePartReplicasReq) (int64, error) {
	if len(req.Replicas) == 0 {
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %d part %d: a partition needs at least one replica", req.SpaceId, req.PartId)
	}
	for _, l := range req.Learners {
		if slices.Contains(req.Replicas, l) {
			return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "store %d cannot be both replica and learner", l)
		}
	}
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		kv, err := r.get(partsKey(req.SpaceId))
		if err != nil {
			return nil, err
		}
		if kv == nil {
			return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %d not found", req.SpaceId)
		}
		var parts metapb.SpaceParts
		if err := proto.Unmarshal(kv.Value, &parts); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
		}
		var alloc *metapb.PartAlloc
		for _, p := range parts.Parts {
			if p.PartId == req.PartId {
				alloc = p
			}
		}
		if alloc == nil {
			return nil, errorf(commonpb.ErrorCode_E_PART_NOT_FOUND, "space %d has no partition %d", req.SpaceId, req.PartId)
		}
		if !sameSet(alloc.Replicas, req.ExpectedReplicas) || !sameSet(alloc.Learners, req.ExpectedLearners) {
			return nil, errorf(commonpb.ErrorCode_E_EXISTED,
				"space %d part %d changed concurrently: replicas %v learners %v, expected %v and %v",
				req.SpaceId, req.PartId, alloc.Replicas, alloc.Learners, req.ExpectedReplicas, req.ExpectedLearners)
		}
		for _, store := range append(slices.Clone(req.Replicas), req.Learners...) {
			host, err := r.get(hostKey(store))
			if err != nil {
				return nil, err
			}
			if host == nil {
				return nil, errorf(commonpb.ErrorCode_E_NO_HOSTS, "store %d is not an added host (ADD HOSTS)", store)
			}
		}
		alloc.Replicas = slices.Clone(req.Replicas)
		alloc.Learners = slices.Clone(req.Learners)
		val, err := marshal(&parts)
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{clientv3.OpPut(partsKey(req.SpaceId), val)}, nil
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("partition replicas updated", "space_id", req.SpaceId, "part", req.PartId, "replicas", req.Replicas, "learners", req.Learners, "version", rev)
	return rev, nil
}

func sameSet(a, b []uint64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
