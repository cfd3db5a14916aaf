package client

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// TestLeaderGuessAvoidsSuspectedHosts: with gossip suspecting the leader's
// host, a partition goes to another replica that is not suspected; with
// every replica suspected, the usual guess stands.
func TestLeaderGuessAvoidsSuspectedHosts(t *testing.T) {
	cat := &metapb.Catalog{
		Parts:   map[int32]*metapb.SpaceParts{1: {Parts: []*metapb.PartAlloc{{PartId: 1, Replicas: []uint64{1, 2, 3}}}}},
		Leaders: []*metapb.LeaderInfo{{SpaceId: 1, PartId: 1, StoreId: 1, Term: 3}},
	}
	for id := uint64(1); id <= 3; id++ {
		cat.Hosts = append(cat.Hosts, &metapb.HostInfo{StoreId: id, Online: true, Addr: &commonpb.HostAddr{Host: "127.0.0.1", Port: int32(9000 + id)}})
	}
	snap := catalog.NewSnapshot(cat)
	c := New(nil, slog.New(slog.DiscardHandler))
	suspected := map[string]bool{}
	c.SetSuspicion(func(addr string) bool { return suspected[addr] })
	addr := func(id uint64) string { return fmt.Sprintf("127.0.0.1:%d", 9000+id) }

	for _, tc := range []struct {
		name     string
		suspects []uint64
		cached   uint64 // leader learned from a response; 0: none
		attempt  int
		want     uint64
		rerouted bool
	}{
		{"nothing suspected: the catalog's leader", nil, 0, 0, 1, false},
		{"leader suspected: the next replica", []uint64{1}, 0, 0, 2, true},
		{"leader and next suspected", []uint64{1, 2}, 0, 0, 3, true},
		{"learned leader suspected: the first other replica", []uint64{2}, 2, 0, 1, true},
		{"retry walks replicas, skipping the suspect", []uint64{2}, 0, 1, 3, true},
		{"all suspected: the guess stands", []uint64{1, 2, 3}, 0, 0, 1, false},
	} {
		clear(suspected)
		for _, id := range tc.suspects {
			suspected[addr(id)] = true
		}
		c.setLeader(1, 1, tc.cached)
		before := c.Rerouted()
		got, err := c.leaderGuess(snap, 1, 1, tc.attempt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want || (c.Rerouted() > before) != tc.rerouted {
			t.Errorf("%s: store %d (rerouted %v), want %d (%v)", tc.name, got, c.Rerouted() > before, tc.want, tc.rerouted)
		}
	}
}

// TestNoLiveReplica: a partition whose every replica is on a host metad
// reports offline fails at once, naming the hosts; one live replica is
// enough to keep retrying.
func TestNoLiveReplica(t *testing.T) {
	cat := &metapb.Catalog{Parts: map[int32]*metapb.SpaceParts{1: {Parts: []*metapb.PartAlloc{
		{PartId: 1, Replicas: []uint64{1}}, {PartId: 2, Replicas: []uint64{1, 2}},
	}}}}
	for id, online := range map[uint64]bool{1: false, 2: true} {
		cat.Hosts = append(cat.Hosts, &metapb.HostInfo{StoreId: id, Online: online, Addr: &commonpb.HostAddr{Host: "10.0.0.1", Port: int32(9000 + id)}})
	}
	snap := catalog.NewSnapshot(cat)
	if err := noLiveReplica(snap, 1, []int32{2}); err != nil {
		t.Errorf("partition 2 has a live replica: %v", err)
	}
	err := noLiveReplica(snap, 1, []int32{2, 1})
	if err == nil || !strings.Contains(err.Error(), "partition 1 has no leader: every replica is on a host metad reports offline (10.0.0.1:9001)") {
		t.Errorf("partition 1 on an offline host: %v", err)
	}
}
