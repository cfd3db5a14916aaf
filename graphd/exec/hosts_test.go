package exec

import (
	"strings"
	"testing"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// TestShowHosts checks SHOW HOSTS against a catalog built by hand: hosts
// sorted by address, status from the lease, leaders and partitions per
// space, and "No valid partition" for none.
func TestShowHosts(t *testing.T) {
	addr := func(h string, p int32) *commonpb.HostAddr { return &commonpb.HostAddr{Host: h, Port: p} }
	parts := func(replicas ...[]uint64) *metapb.SpaceParts {
		sp := &metapb.SpaceParts{}
		for i, r := range replicas {
			sp.Parts = append(sp.Parts, &metapb.PartAlloc{PartId: int32(i + 1), Replicas: r})
		}
		return sp
	}
	snap := catalog.NewSnapshot(&metapb.Catalog{
		Version: 5,
		Spaces: []*metapb.SpaceDesc{
			{SpaceId: 1, Name: "g", PartitionNum: 3, ReplicaFactor: 2},
			{SpaceId: 2, Name: "a", PartitionNum: 1, ReplicaFactor: 1},
		},
		Parts: map[int32]*metapb.SpaceParts{
			1: parts([]uint64{1, 2}, []uint64{1, 2}, []uint64{2, 1}),
			2: parts([]uint64{2}),
		},
		Hosts: []*metapb.HostInfo{
			{StoreId: 2, Addr: addr("10.0.0.2", 9779), Online: true},
			{StoreId: 3, Addr: addr("10.0.0.1", 9780), Online: true},
			{StoreId: 1, Addr: addr("10.0.0.1", 9779)},
		},
		Leaders: []*metapb.LeaderInfo{
			{SpaceId: 1, PartId: 1, StoreId: 2, Term: 3},
			{SpaceId: 1, PartId: 2, StoreId: 2, Term: 3},
			{SpaceId: 1, PartId: 3, StoreId: 2, Term: 3},
			{SpaceId: 2, PartId: 1, StoreId: 2, Term: 1},
		},
	})
	tbl := showHosts(snap)
	if got := strings.Join(tbl.cols, ","); got != "Host,Port,Status,Leader count,Leader distribution,Partition distribution" {
		t.Fatalf("columns: %s", got)
	}
	var got []string
	for _, row := range tbl.rows {
		var cells []string
		for _, v := range row {
			cells = append(cells, v.String())
		}
		got = append(got, strings.Join(cells, "|"))
	}
	want := []string{
		`"10.0.0.1"|9779|"OFFLINE"|0|"No valid partition"|"g:3"`,
		`"10.0.0.1"|9780|"ONLINE"|0|"No valid partition"|"No valid partition"`,
		`"10.0.0.2"|9779|"ONLINE"|4|"a:1, g:3"|"a:1, g:3"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("SHOW HOSTS:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
