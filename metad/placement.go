package metad

import (
	"fmt"
	"maps"
	"slices"
)

// zoneOrder orders hosts for ddlcheck.PlaceParts: one host of each zone in turn
// (zones by name, hosts in a zone by id), so that any replicaFactor
// consecutive hosts span as many zones as the hosts allow. A host without
// a zone is a zone of its own.
func zoneOrder(hosts []uint64, zoneOf map[uint64]string) []uint64 {
	byZone := map[string][]uint64{}
	for _, h := range slices.Sorted(slices.Values(hosts)) {
		z := zoneOf[h]
		if z == "" {
			z = fmt.Sprintf("\x00host-%020d", h) // its own zone, sorted among the unlabelled
		}
		byZone[z] = append(byZone[z], h)
	}
	zones := slices.Sorted(maps.Keys(byZone))
	out := make([]uint64, 0, len(hosts))
	for len(out) < len(hosts) {
		for _, z := range zones {
			if list := byZone[z]; len(list) > 0 {
				out = append(out, list[0])
				byZone[z] = list[1:]
			}
		}
	}
	return out
}
