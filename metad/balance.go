package metad

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The planners of BALANCE DATA and BALANCE LEADER. They are pure functions
// of a space's placement, so the job runner (jobs_run.go) persists their
// output as the job's tasks before the first task runs, and the tests
// drive them with tables (balance_test.go).
//
// "Balanced" means the same for both and for the runner's final check:
// every active host's count (replicas, or leaderships) is within one of
// every other's, which puts each within ±1 of the even share.

// balanceHost is a storage host as the planners see it.
type balanceHost struct {
	store uint64
	// zone is the host's zone label; hosts without one are each a zone of
	// their own.
	zone string
	// active: online (its lease is alive) and not being removed. Only
	// active hosts receive replicas or leaderships; inactive ones give
	// theirs away.
	active bool
}

// replicaMove moves one replica of a partition between hosts (a task of
// BALANCE DATA).
type replicaMove struct {
	part     int32
	from, to uint64
}

// leaderMove transfers a partition's leadership (a task of BALANCE LEADER).
type leaderMove struct {
	part     int32
	from, to uint64
}

// zoneKey is the zone a store counts in: its label, or itself alone.
func zoneKey(hosts map[uint64]balanceHost, store uint64) string {
	if h, ok := hosts[store]; ok && h.zone != "" {
		return "zone:" + h.zone
	}
	return fmt.Sprintf("store:%d", store)
}

func indexHosts(list []balanceHost) (map[uint64]balanceHost, []uint64) {
	hosts := make(map[uint64]balanceHost, len(list))
	var active []uint64
	for _, h := range list {
		hosts[h.store] = h
		if h.active {
			active = append(active, h.store)
		}
	}
	slices.Sort(active)
	return hosts, active
}

func isActive(hosts map[uint64]balanceHost, store uint64) bool {
	h, ok := hosts[store]
	return ok && h.active
}

// distinctZones counts the zones the replicas are in.
func distinctZones(hosts map[uint64]balanceHost, replicas []uint64) int {
	seen := map[string]bool{}
	for _, r := range replicas {
		seen[zoneKey(hosts, r)] = true
	}
	return len(seen)
}

func replaced(replicas []uint64, from, to uint64) []uint64 {
	out := make([]uint64, 0, len(replicas))
	for _, r := range replicas {
		if r == from {
			r = to
		}
		out = append(out, r)
	}
	return out
}

func sortedParts[V any](m map[int32]V) []int32 {
	return slices.Sorted(maps.Keys(m))
}

// planDataBalance returns the replica moves that leave no replica on an
// inactive host and every active host within one replica of every other,
// never placing two replicas of a partition on one host. Among equally
// good moves it prefers those that spread a partition over more zones,
// then the least loaded target, then the lowest partition and store ids,
// so the plan is deterministic. Each partition keeps its replica count.
func planDataBalance(parts map[int32][]uint64, hostList []balanceHost) ([]replicaMove, error) {
	hosts, active := indexHosts(hostList)
	if len(active) == 0 {
		return nil, fmt.Errorf("no active storage host to place replicas on")
	}
	cur := make(map[int32][]uint64, len(parts))
	load := make(map[uint64]int, len(active))
	for _, s := range active {
		load[s] = 0
	}
	for _, p := range sortedParts(parts) {
		replicas := parts[p]
		if len(replicas) > len(active) {
			return nil, fmt.Errorf("partition %d has %d replicas but only %d storage hosts are active, and a host holds at most one replica of a partition",
				p, len(replicas), len(active))
		}
		cur[p] = slices.Clone(replicas)
		for _, r := range replicas {
			if isActive(hosts, r) {
				load[r]++
			}
		}
	}
	var moves []replicaMove
	apply := func(p int32, from, to uint64) {
		moves = append(moves, replicaMove{part: p, from: from, to: to})
		cur[p] = replaced(cur[p], from, to)
		if isActive(hosts, from) {
			load[from]--
		}
		load[to]++
	}

	// First, every replica on an inactive host moves to an active one.
	for _, p := range sortedParts(cur) {
		for _, r := range slices.Sorted(slices.Values(cur[p])) {
			if isActive(hosts, r) {
				continue
			}
			var others []uint64
			for _, o := range cur[p] {
				if o != r {
					others = append(others, o)
				}
			}
			used := map[string]bool{}
			for _, o := range others {
				used[zoneKey(hosts, o)] = true
			}
			best, found := uint64(0), false
			for _, s := range active {
				if slices.Contains(cur[p], s) {
					continue
				}
				if !found || cmp.Or(
					cmpBool(!used[zoneKey(hosts, s)], !used[zoneKey(hosts, best)]),
					cmp.Compare(load[best], load[s]),
				) > 0 {
					best, found = s, true
				}
			}
			if !found {
				return nil, fmt.Errorf("partition %d: no active host without a replica of it to move the replica on store %d to", p, r)
			}
			apply(p, r, best)
		}
	}

	// Then replicas move from the most to the least loaded hosts until all
	// are within one of each other. Each move lowers the sum of squared
	// loads, so this ends; a host with two more replicas than another
	// always has a partition the other lacks, so it ends balanced.
	for {
		byLoad := slices.Clone(active)
		slices.SortStableFunc(byLoad, func(a, b uint64) int { return cmp.Compare(load[b], load[a]) })
		type cand struct {
			part      int32
			to        uint64
			zoneDelta int
		}
		var best *cand
		var from uint64
		for _, h := range byLoad {
			for _, p := range sortedParts(cur) {
				if !slices.Contains(cur[p], h) {
					continue
				}
				before := distinctZones(hosts, cur[p])
				for _, l := range active {
					if load[l] > load[h]-2 || slices.Contains(cur[p], l) {
						continue
					}
					c := cand{part: p, to: l, zoneDelta: distinctZones(hosts, replaced(cur[p], h, l)) - before}
					if best == nil || cmp.Or(
						cmp.Compare(c.zoneDelta, best.zoneDelta),
						cmp.Compare(load[best.to], load[c.to]),
					) > 0 {
						best = &c
					}
				}
			}
			if best != nil {
				from = h
				break
			}
		}
		if best == nil {
			break
		}
		apply(best.part, from, best.to)
	}
	return moves, nil
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// dataBalanced reports whether the placement needs no BALANCE DATA: no
// replica on an inactive host and every active host within one replica of
// every other. If not, why says what is off.
func dataBalanced(parts map[int32][]uint64, hostList []balanceHost) (ok bool, why string) {
	hosts, active := indexHosts(hostList)
	load := make(map[uint64]int, len(active))
	for _, s := range active {
		load[s] = 0
	}
	for _, p := range sortedParts(parts) {
		for _, r := range parts[p] {
			if !isActive(hosts, r) {
				return false, fmt.Sprintf("partition %d still has a replica on inactive store %d", p, r)
			}
			load[r]++
		}
	}
	if len(active) == 0 {
		return true, ""
	}
	lo, hi := minMax(load)
	if hi-lo > 1 {
		return false, "replicas per host " + formatCounts(load) + " differ by more than one"
	}
	return true, ""
}

func minMax(counts map[uint64]int) (lo, hi int) {
	first := true
	for _, n := range counts {
		if first {
			lo, hi, first = n, n, false
			continue
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	return lo, hi
}

// formatCounts prints counts per store, by store id: "{1:4 2:4 3:2}".
func formatCounts(counts map[uint64]int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range slices.Sorted(maps.Keys(counts)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", s, counts[s])
	}
	b.WriteByte('}')
	return b.String()
}

// leaderCandidates are the hosts BALANCE LEADER shares leaderships among:
// the active hosts that hold a replica of the space (a host can only lead
// a partition it holds).
func leaderCandidates(parts map[int32][]uint64, hosts map[uint64]balanceHost) map[uint64]int {
	counts := map[uint64]int{}
	for _, replicas := range parts {
		for _, r := range replicas {
			if isActive(hosts, r) {
				counts[r] = 0
			}
		}
	}
	return counts
}

// planLeaderBalance returns the leadership transfers that leave every
// partition led by an active host and every active host holding replicas
// within one leadership of every other, where placement allows; each
// partition moves at most once, to a host holding one of its replicas.
// Partitions without a known leader are left alone. When placement makes
// balance impossible the plan gets as close as it can; leadersBalanced
// tells.
func planLeaderBalance(parts map[int32][]uint64, leaders map[int32]uint64, hostList []balanceHost) ([]leaderMove, error) {
	hosts, _ := indexHosts(hostList)
	count := leaderCandidates(parts, hosts)
	if len(count) == 0 {
		return nil, fmt.Errorf("no active storage host holds a replica of the space")
	}
	lead := map[int32]uint64{}
	for p, l := range leaders {
		if _, ok := parts[p]; ok && l != 0 {
			lead[p] = l
		}
	}
	for _, l := range lead {
		if _, ok := count[l]; ok {
			count[l]++
		}
	}
	// Leaders on inactive hosts go to the least loaded active replica.
	for _, p := range sortedParts(lead) {
		if _, ok := count[lead[p]]; ok {
			continue
		}
		best, found := uint64(0), false
		for _, r := range slices.Sorted(slices.Values(parts[p])) {
			if _, ok := count[r]; ok && (!found || count[r] < count[best]) {
				best, found = r, true
			}
		}
		if found {
			lead[p] = best
			count[best]++
		}
	}
	// Then improving paths: from the host leading most, follow "X leads p,
	// Y holds p" edges to the least loaded reachable host; if that one has
	// at least two fewer, shift one leadership along the path (the hosts in
	// between keep their count). No such path from any host means no
	// single change can even out further.
	stores := slices.Sorted(maps.Keys(count))
	for {
		byCount := slices.Clone(stores)
		slices.SortStableFunc(byCount, func(a, b uint64) int { return cmp.Compare(count[b], count[a]) })
		moved := false
		for _, h := range byCount {
			type hop struct {
				prev uint64
				part int32
			}
			parent := map[uint64]hop{h: {}}
			queue := []uint64{h}
			var target uint64
			for len(queue) > 0 {
				x := queue[0]
				queue = queue[1:]
				for _, p := range sortedParts(lead) {
					if lead[p] != x {
						continue
					}
					for _, y := range slices.Sorted(slices.Values(parts[p])) {
						if _, ok := count[y]; !ok {
							continue
						}
						if _, seen := parent[y]; seen {
							continue
						}
						parent[y] = hop{prev: x, part: p}
						queue = append(queue, y)
						if count[y] <= count[h]-2 && (target == 0 || count[y] < count[target]) {
							target = y
						}
					}
				}
			}
			if target == 0 {
				continue
			}
			for y := target; y != h; {
				hp := parent[y]
				lead[hp.part] = y
				y = hp.prev
			}
			count[target]++
			count[h]--
			moved = true
			break
		}
		if !moved {
			break
		}
	}
	var moves []leaderMove
	for _, p := range sortedParts(lead) {
		if from := leaders[p]; lead[p] != from {
			moves = append(moves, leaderMove{part: p, from: from, to: lead[p]})
		}
	}
	return moves, nil
}

// leadersBalanced reports whether every partition is led by an active host
// and the active hosts holding replicas lead within one of each other.
func leadersBalanced(parts map[int32][]uint64, leaders map[int32]uint64, hostList []balanceHost) (ok bool, why string) {
	hosts, _ := indexHosts(hostList)
	count := leaderCandidates(parts, hosts)
	for _, p := range sortedParts(parts) {
		l, known := leaders[p]
		if !known || l == 0 {
			return false, fmt.Sprintf("partition %d has no leader", p)
		}
		if _, ok := count[l]; !ok {
			return false, fmt.Sprintf("partition %d is led by store %d, which is not an active host holding replicas", p, l)
		}
		count[l]++
	}
	if len(count) == 0 {
		return true, ""
	}
	lo, hi := minMax(count)
	if hi-lo > 1 {
		return false, "leaders per host " + formatCounts(count) + " differ by more than one"
	}
	return true, ""
}
