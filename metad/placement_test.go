package metad

import (
	"slices"
	"testing"

	"github.com/novagraph/novagraph/metad/ddlcheck"
)

// TestPlacementSpreadsZones: a new space's replicas go to distinct zones
// wherever the zones allow, every host still carries its even share, and
// without zones the placement is the plain id-ordered rotation.
func TestPlacementSpreadsZones(t *testing.T) {
	for _, tc := range []struct {
		name        string
		hosts       []uint64
		zones       map[uint64]string
		rf          int32
		wantZonesOK int // partitions (of 12) whose replicas span min(rf, zones) zones
	}{
		{"three zones of two", []uint64{1, 2, 3, 4, 5, 6}, map[uint64]string{1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}, 3, 12},
		{"zones listed out of id order", []uint64{6, 2, 4, 1, 3, 5}, map[uint64]string{1: "a", 2: "b", 3: "c", 4: "a", 5: "b", 6: "c"}, 3, 12},
		{"two zones, rf 2", []uint64{1, 2, 3, 4}, map[uint64]string{1: "x", 2: "x", 3: "y", 4: "y"}, 2, 12},
		{"no zones: every host its own", []uint64{1, 2, 3}, nil, 3, 12},
	} {
		order := zoneOrder(tc.hosts, tc.zones)
		if !slices.Equal(slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(tc.hosts))) {
			t.Fatalf("%s: order %v is not a permutation of %v", tc.name, order, tc.hosts)
		}
		parts := ddlcheck.PlaceParts(12, tc.rf, order)
		zoneCount := map[string]bool{}
		for _, h := range tc.hosts {
			zoneCount[testZone(h, tc.zones)] = true
		}
		want := min(int(tc.rf), len(zoneCount))
		ok := 0
		perHost := map[uint64]int{}
		for _, p := range parts {
			zs := map[string]bool{}
			for _, r := range p.Replicas {
				zs[testZone(r, tc.zones)] = true
				perHost[r]++
			}
			if len(zs) >= want {
				ok++
			}
		}
		if ok != tc.wantZonesOK {
			t.Errorf("%s: %d of 12 partitions span %d zones, want %d: %v", tc.name, ok, want, tc.wantZonesOK, parts)
		}
		even := 12 * int(tc.rf) / len(tc.hosts)
		for h, n := range perHost {
			if n < even || n > even+1 {
				t.Errorf("%s: host %d carries %d replicas, want %d(+1)", tc.name, h, n, even)
			}
		}
	}
	// Without zones the order is by id, as before zones existed.
	if got := zoneOrder([]uint64{3, 1, 2}, nil); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Errorf("zoneOrder without zones = %v, want [1 2 3]", got)
	}
}

func testZone(h uint64, zones map[uint64]string) string {
	if z := zones[h]; z != "" {
		return z
	}
	return "own-" + string(rune('0'+h))
}
