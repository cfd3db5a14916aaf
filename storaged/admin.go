package storaged

import (
	"context"
	"fmt"
	"slices"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// adminService implements StorageAdminService: membership changes run on
// the partition's leader, and the catalog follows raft, never leads it:
//
//   - add: catalog learner (the store opens an empty replica), raft learner,
//     catch up, raft voter, then catalog replica;
//   - remove: raft removal, then catalog removal (the store then drops its
//     replica).
//
// Each step is idempotent, so a caller that failed midway repeats the call.
type adminService struct {
	storagepb.UnimplementedStorageAdminServiceServer
	srv *Server
}

func (a *adminService) fail(g raftgroup.GroupID, err error) *storagepb.AdminResp {
	snap := a.srv.meta.Catalog()
	return &storagepb.AdminResp{FailedParts: []*storagepb.PartResult{(&service{srv: a.srv}).partError(snap, g.Part, err)}}
}

// requireLeader returns a NotLeaderError unless this store leads g.
func (a *adminService) requireLeader(g raftgroup.GroupID) error {
	leader, _, ok := a.srv.engine.Leader(g)
	if !ok {
		return fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
	}
	if leader != a.srv.storeID {
		return &raftgroup.NotLeaderError{Group: g, Leader: leader}
	}
	return nil
}

// updateCatalog compare-and-sets the partition's lists from what this
// store's catalog shows now.
func (a *adminService) updateCatalog(ctx context.Context, g raftgroup.GroupID, edit func(replicas, learners []uint64) ([]uint64, []uint64)) error {
	snap := a.srv.meta.Catalog()
	replicas := slices.Clone(snap.Parts(g.Space)[g.Part])
	learners := slices.Clone(snap.Learners(g.Space)[g.Part])
	if replicas == nil {
		return &partitionError{Code: commonpb.ErrorCode_E_PART_NOT_FOUND, Msg: fmt.Sprintf("%s is not in the catalog", g)}
	}
	newReplicas, newLearners := edit(slices.Clone(replicas), slices.Clone(learners))
	if sameMembers(replicas, newReplicas) && sameMembers(learners, newLearners) {
		return nil
	}
	_, err := a.srv.meta.UpdatePartReplicas(ctx, &metapb.UpdatePartReplicasReq{
		SpaceId: g.Space, PartId: g.Part,
		ExpectedReplicas: replicas, ExpectedLearners: learners,
		Replicas: newReplicas, Learners: newLearners,
	})
	if err != nil {
		return fmt.Errorf("%s: updating catalog: %w", g, err)
	}
	return nil
}

func sameMembers(a, b []uint64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func without(list []uint64, x uint64) []uint64 {
	return slices.DeleteFunc(list, func(y uint64) bool { return y == x })
}

// AddReplica implements StorageAdminService.
func (a *adminService) AddReplica(ctx context.Context, req *storagepb.PartPeerReq) (*storagepb.AdminResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	if err := a.addReplica(ctx, g, req.StoreId); err != nil {
		return a.fail(g, err), nil
	}
	return &storagepb.AdminResp{}, nil
}

func (a *adminService) addReplica(ctx context.Context, g raftgroup.GroupID, store uint64) error {
	if err := a.requireLeader(g); err != nil {
		return err
	}
	if _, ok := a.srv.meta.Catalog().HostAddr(store); !ok {
		return &partitionError{Code: commonpb.ErrorCode_E_NO_HOSTS, Msg: fmt.Sprintf("store %d is not registered", store)}
	}
	if m, ok := a.srv.engine.Members(g); ok && !slices.Contains(m.Voters, store) {
		err := a.updateCatalog(ctx, g, func(replicas, learners []uint64) ([]uint64, []uint64) {
			if slices.Contains(replicas, store) || slices.Contains(learners, store) {
				return replicas, learners
			}
			return replicas, append(learners, store)
		})
		if err != nil {
			return err
		}
		if err := a.srv.engine.AddReplica(ctx, g, store); err != nil {
			return err
		}
	}
	return a.updateCatalog(ctx, g, func(replicas, learners []uint64) ([]uint64, []uint64) {
		if !slices.Contains(replicas, store) {
			replicas = append(replicas, store)
		}
		return replicas, without(learners, store)
	})
}

// RemoveReplica implements StorageAdminService.
func (a *adminService) RemoveReplica(ctx context.Context, req *storagepb.PartPeerReq) (*storagepb.AdminResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	err := a.requireLeader(g)
	if err == nil {
		err = a.srv.engine.RemoveReplica(ctx, g, req.StoreId)
	}
	if err == nil {
		err = a.updateCatalog(ctx, g, func(replicas, learners []uint64) ([]uint64, []uint64) {
			return without(replicas, req.StoreId), without(learners, req.StoreId)
		})
	}
	if err != nil {
		return a.fail(g, err), nil
	}
	return &storagepb.AdminResp{}, nil
}

// TransferLeader implements StorageAdminService.
func (a *adminService) TransferLeader(ctx context.Context, req *storagepb.PartPeerReq) (*storagepb.AdminResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	err := a.requireLeader(g)
	if err == nil && req.StoreId != a.srv.storeID {
		err = a.srv.engine.TransferLeadership(ctx, g, req.StoreId)
	}
	if err != nil {
		return a.fail(g, err), nil
	}
	return &storagepb.AdminResp{}, nil
}

// ReplaceReplica implements StorageAdminService.
func (a *adminService) ReplaceReplica(ctx context.Context, req *storagepb.PartMoveReq) (*storagepb.AdminResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	if err := a.replaceReplica(ctx, g, req.FromStore, req.ToStore); err != nil {
		return a.fail(g, err), nil
	}
	return &storagepb.AdminResp{}, nil
}

func (a *adminService) replaceReplica(ctx context.Context, g raftgroup.GroupID, from, to uint64) error {
	if err := a.requireLeader(g); err != nil {
		return err
	}
	if _, ok := a.srv.meta.Catalog().HostAddr(to); !ok {
		return &partitionError{Code: commonpb.ErrorCode_E_NO_HOSTS, Msg: fmt.Sprintf("store %d is not registered", to)}
	}
	// The new store opens an empty replica once the catalog lists it.
	err := a.updateCatalog(ctx, g, func(replicas, learners []uint64) ([]uint64, []uint64) {
		if slices.Contains(replicas, to) || slices.Contains(learners, to) {
			return replicas, learners
		}
		return replicas, append(learners, to)
	})
	if err != nil {
		return err
	}
	if err := a.srv.engine.ReplaceReplica(ctx, g, from, to); err != nil {
		return err
	}
	return a.updateCatalog(ctx, g, func(replicas, learners []uint64) ([]uint64, []uint64) {
		replicas = without(replicas, from)
		if !slices.Contains(replicas, to) {
			replicas = append(replicas, to)
		}
		return replicas, without(learners, to)
	})
}
