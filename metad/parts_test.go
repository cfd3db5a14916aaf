package metad

import (
	"slices"
	"testing"
	"time"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// UpdatePartReplicas is a compare-and-set: it applies only over the lists
// the caller saw, names what changed when it refuses, and validates stores.
func TestUpdatePartReplicas(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	hosts := addHosts(t, rpc, 4)
	r := createSpace(t, rpc, "s", 1, 3)
	wantCode(t, "CreateSpace", r.Status, commonpb.ErrorCode_SUCCEEDED)
	cur := getCatalog(t, rpc).Parts[r.SpaceId].Parts[0].Replicas
	var spare uint64
	for _, h := range hosts {
		if !slices.Contains(cur, h) {
			spare = h
		}
	}
	update := func(expR, expL, newR, newL []uint64) *metapb.UpdatePartReplicasResp {
		resp, err := rpc.UpdatePartReplicas(ctxT(t), &metapb.UpdatePartReplicasReq{
			SpaceId: r.SpaceId, PartId: 1, ExpectedReplicas: expR, ExpectedLearners: expL, Replicas: newR, Learners: newL,
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// Add the spare as a learner.
	resp := update(cur, nil, cur, []uint64{spare})
	wantCode(t, "add learner", resp.Status, commonpb.ErrorCode_SUCCEEDED)
	p := getCatalog(t, rpc).Parts[r.SpaceId].Parts[0]
	if !slices.Equal(p.Learners, []uint64{spare}) || !slices.Equal(p.Replicas, cur) {
		t.Fatalf("after adding a learner: %+v", p)
	}
	if getCatalog(t, rpc).Version < resp.Version {
		t.Fatal("catalog version did not reach the update's version")
	}
	// A stale caller (still expecting no learners) is refused, naming the lists.
	resp = update(cur, nil, append(slices.Clone(cur), spare), nil)
	wantCode(t, "stale update", resp.Status, commonpb.ErrorCode_E_EXISTED, "changed concurrently")
	// Promote with the right expectation; order of lists does not matter.
	rev := slices.Clone(cur)
	slices.Reverse(rev)
	resp = update(rev, []uint64{spare}, append(slices.Clone(cur), spare), nil)
	wantCode(t, "promote", resp.Status, commonpb.ErrorCode_SUCCEEDED)
	// Bad requests.
	wantCode(t, "no replicas", update(nil, nil, nil, nil).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT)
	all := append(slices.Clone(cur), spare)
	wantCode(t, "both lists", update(all, nil, all, []uint64{spare}).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT)
	wantCode(t, "unknown store", update(all, nil, append(slices.Clone(all), 999), nil).Status, commonpb.ErrorCode_E_NO_HOSTS, "999")
	resp, err := rpc.UpdatePartReplicas(ctxT(t), &metapb.UpdatePartReplicasReq{SpaceId: r.SpaceId, PartId: 9, Replicas: all})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "unknown part", resp.Status, commonpb.ErrorCode_E_PART_NOT_FOUND)
}
