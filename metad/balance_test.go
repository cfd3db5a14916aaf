package metad

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/proto/metapb"
)

// hostsSpec builds hosts from "id[:zone][-]" items: "-" marks an inactive
// host (offline or being removed).
func hostsSpec(spec string) []balanceHost {
	var out []balanceHost
	for _, item := range strings.Fields(spec) {
		h := balanceHost{active: !strings.HasSuffix(item, "-")}
		item = strings.TrimSuffix(item, "-")
		id, zone, _ := strings.Cut(item, ":")
		fmt.Sscan(id, &h.store)
		h.zone = zone
		out = append(out, h)
	}
	return out
}

// partsSpec builds placement from "part=r1,r2,r3" items.
func partsSpec(spec string) map[int32][]uint64 {
	out := map[int32][]uint64{}
	for _, item := range strings.Fields(spec) {
		p, rs, _ := strings.Cut(item, "=")
		var part int32
		fmt.Sscan(p, &part)
		for _, r := range strings.Split(rs, ",") {
			var s uint64
			fmt.Sscan(r, &s)
			out[part] = append(out[part], s)
		}
	}
	return out
}

// applyMoves replays moves on a copy of parts, failing on a move whose
// source does not hold the partition or whose target already does.
func applyMoves(t *testing.T, parts map[int32][]uint64, moves []replicaMove) map[int32][]uint64 {
	t.Helper()
	out := map[int32][]uint64{}
	for p, rs := range parts {
		out[p] = slices.Clone(rs)
	}
	for _, m := range moves {
		rs := out[m.part]
		if !slices.Contains(rs, m.from) || slices.Contains(rs, m.to) {
			t.Fatalf("move %+v is invalid on %v", m, rs)
		}
		out[m.part] = replaced(rs, m.from, m.to)
	}
	return out
}

func replicaCounts(parts map[int32][]uint64) map[uint64]int {
	c := map[uint64]int{}
	for _, rs := range parts {
		for _, r := range rs {
			c[r]++
		}
	}
	return c
}

func TestPlanDataBalance(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts string
		parts string
		moves int    // expected number of moves (-1: do not check)
		err   string // expected planning error
		// counts is the expected replicas per store after the plan.
		counts map[uint64]int
		// minZones: every partition must span at least this many zones.
		minZones int
	}{
		{
			name: "already balanced", hosts: "1 2 3",
			parts: "1=1,2,3 2=1,2,3 3=1,2,3", moves: 0,
			counts: map[uint64]int{1: 3, 2: 3, 3: 3},
		},
		{
			name: "within one is balanced", hosts: "1 2 3 4",
			parts: "1=1,2 2=3,4 3=1,3", moves: 0,
		},
		{
			name: "two new hosts", hosts: "1 2 3 4 5",
			parts: "1=1,2,3 2=1,2,3 3=1,2,3 4=1,2,3 5=1,2,3 6=1,2,3", moves: 6,
		},
		{
			name: "remove one host", hosts: "1 2 3 4-",
			parts: "1=1,2,4 2=2,3,4 3=1,3,4 4=1,2,3", moves: 3,
			counts: map[uint64]int{1: 4, 2: 4, 3: 4},
		},
		{
			name: "offline host is emptied", hosts: "1 2 3- 4",
			parts: "1=1,3 2=2,3 3=3,4 4=1,2", moves: -1,
		},
		{
			name: "replica on an unregistered store", hosts: "1 2 3",
			parts: "1=1,2,9 2=1,2,3", moves: 1,
			counts: map[uint64]int{1: 2, 2: 2, 3: 2},
		},
		{
			name: "zones: replicas spread over the zones", hosts: "1:a 2:a 3:b 4:b 5:c 6:c",
			parts: "1=1,2,3 2=1,2,3", moves: 3, minZones: 3,
		},
		{
			name: "zones: an evacuated replica goes to the zone it leaves", hosts: "1:a 2:b 3:c- 4:a 5:c",
			parts: "1=1,2,3", moves: 1, minZones: 3,
		},
		{
			name: "zones: one zone holds all, another is new", hosts: "1:a 2:a 3:a 4:b 5:b 6:b",
			parts: "1=1,2,3 2=1,2,3", moves: 3, minZones: 2,
		},
		{
			name: "too few active hosts", hosts: "1 2 3-",
			parts: "1=1,2,3", err: "only 2 storage hosts are active",
		},
		{
			name: "no active host", hosts: "1- 2-",
			parts: "1=1", err: "no active storage host",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts, parts := hostsSpec(tc.hosts), partsSpec(tc.parts)
			moves, err := planDataBalance(parts, hosts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got moves %v, err %v; want error %q", moves, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.moves >= 0 && len(moves) != tc.moves {
				t.Errorf("%d moves %v, want %d", len(moves), moves, tc.moves)
			}
			after := applyMoves(t, parts, moves)
			if ok, why := dataBalanced(after, hosts); !ok {
				t.Fatalf("not balanced after %v: %s (%v)", moves, why, after)
			}
			if tc.counts != nil && !maps.Equal(replicaCounts(after), tc.counts) {
				t.Errorf("counts %v, want %v", replicaCounts(after), tc.counts)
			}
			idx, _ := indexHosts(hosts)
			for p, rs := range after {
				if len(rs) != len(parts[p]) {
					t.Errorf("partition %d: %d replicas, had %d", p, len(rs), len(parts[p]))
				}
				if z := distinctZones(idx, rs); z < tc.minZones {
					t.Errorf("partition %d on %v spans %d zones, want %d", p, rs, z, tc.minZones)
				}
			}
			// Planning again on the result has nothing to do.
			if again, err := planDataBalance(after, hosts); err != nil || len(again) != 0 {
				t.Errorf("replanning the result: %v, %v", again, err)
			}
		})
	}
}

// TestPlanDataBalanceRandom: on random placements the plan is valid (no
// two replicas of a partition on a host, replica counts kept) and
// balanced.
func TestPlanDataBalanceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		nHosts := 2 + rng.IntN(8)
		var hosts []balanceHost
		active := 0
		for i := range nHosts {
			h := balanceHost{store: uint64(i + 1), active: rng.IntN(5) > 0}
			if rng.IntN(2) == 0 {
				h.zone = string(rune('a' + rng.IntN(3)))
			}
			if h.active {
				active++
			}
			hosts = append(hosts, h)
		}
		rf := 1 + rng.IntN(3)
		parts := map[int32][]uint64{}
		for p := range 1 + rng.IntN(20) {
			perm := rng.Perm(nHosts)[:min(rf, nHosts)]
			for _, i := range perm {
				parts[int32(p+1)] = append(parts[int32(p+1)], uint64(i+1))
			}
		}
		moves, err := planDataBalance(parts, hosts)
		if err != nil {
			if active >= rf && active > 0 {
				t.Fatalf("iteration %d: %v with %d active hosts and rf %d", iter, err, active, rf)
			}
			continue
		}
		after := applyMoves(t, parts, moves)
		if ok, why := dataBalanced(after, hosts); !ok {
			t.Fatalf("iteration %d: %s; hosts %v parts %v moves %v", iter, why, hosts, parts, moves)
		}
	}
}

func TestPlanLeaderBalance(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hosts   string
		parts   string
		leaders map[int32]uint64
		moves   int // -1: do not check
		// balanced: whether the result must be balanced (false: placement
		// makes it impossible, and leadersBalanced must say so).
		balanced bool
		counts   map[uint64]int
	}{
		{
			name: "already balanced", hosts: "1 2 3",
			parts:   "1=1,2,3 2=1,2,3 3=1,2,3",
			leaders: map[int32]uint64{1: 1, 2: 2, 3: 3}, moves: 0, balanced: true,
		},
		{
			name: "all on one host", hosts: "1 2 3",
			parts:   "1=1,2,3 2=1,2,3 3=1,2,3 4=1,2,3 5=1,2,3 6=1,2,3",
			leaders: map[int32]uint64{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}, moves: 4, balanced: true,
			counts: map[uint64]int{1: 2, 2: 2, 3: 2},
		},
		{
			name: "leader on an inactive host", hosts: "1 2 3-",
			parts:   "1=1,2,3 2=1,2,3",
			leaders: map[int32]uint64{1: 3, 2: 1}, moves: 1, balanced: true,
			counts: map[uint64]int{1: 1, 2: 1},
		},
		{
			name: "needs a chain of transfers", hosts: "1 2 3",
			// Host 3 only holds partition 3, led by host 2; host 1 leads
			// three, which host 3 cannot take directly.
			parts:   "1=1,2 2=1,2 3=2,3 4=1,2",
			leaders: map[int32]uint64{1: 1, 2: 1, 3: 2, 4: 1}, moves: 2, balanced: true,
		},
		{
			name: "impossible: two hosts share one partition", hosts: "1 2 3 4",
			parts:   "1=1,2 2=1,2 3=1,2 4=3,4",
			leaders: map[int32]uint64{1: 1, 2: 1, 3: 1, 4: 3}, moves: -1, balanced: false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts, parts := hostsSpec(tc.hosts), partsSpec(tc.parts)
			moves, err := planLeaderBalance(parts, tc.leaders, hosts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.moves >= 0 && len(moves) != tc.moves {
				t.Errorf("%d moves %v, want %d", len(moves), moves, tc.moves)
			}
			after := maps.Clone(tc.leaders)
			seen := map[int32]bool{}
			for _, m := range moves {
				if seen[m.part] {
					t.Errorf("partition %d moves twice: %v", m.part, moves)
				}
				seen[m.part] = true
				if after[m.part] != m.from || !slices.Contains(parts[m.part], m.to) {
					t.Fatalf("move %+v invalid: leader %d, replicas %v", m, after[m.part], parts[m.part])
				}
				after[m.part] = m.to
			}
			ok, why := leadersBalanced(parts, after, hosts)
			if ok != tc.balanced {
				t.Fatalf("balanced=%v (%s) after %v, want %v", ok, why, after, tc.balanced)
			}
			if !ok && !strings.Contains(why, "differ by more than one") {
				t.Errorf("unhelpful reason %q", why)
			}
			if tc.counts != nil {
				got := map[uint64]int{}
				for _, l := range after {
					got[l]++
				}
				if !maps.Equal(got, tc.counts) {
					t.Errorf("leaders per host %v, want %v", got, tc.counts)
				}
			}
		})
	}
}

func TestNextJobs(t *testing.T) {
	q, r, f, s := jobStatusQueue, jobStatusRunning, jobStatusFinished, jobStatusStopped
	got := nextJobs(jobsOf(
		job(1, 1, f), job(2, 1, q), job(3, 1, r), // space 1: the running one
		job(4, 2, s), job(5, 2, q), job(6, 2, q), // space 2: the oldest queued
		job(7, 3, f), // space 3: nothing
	))
	want := map[int32]int64{1: 3, 2: 5}
	if !maps.Equal(got, want) {
		t.Fatalf("nextJobs = %v, want %v", got, want)
	}
}

const (
	jobStatusQueue    = metapb.JobStatus_JOB_QUEUE
	jobStatusRunning  = metapb.JobStatus_JOB_RUNNING
	jobStatusFinished = metapb.JobStatus_JOB_FINISHED
	jobStatusStopped  = metapb.JobStatus_JOB_STOPPED
)

func job(id int64, space int32, st metapb.JobStatus) *metapb.JobDesc {
	return &metapb.JobDesc{JobId: id, SpaceId: space, Status: st}
}

func jobsOf(js ...*metapb.JobDesc) []*metapb.JobDesc { return js }
