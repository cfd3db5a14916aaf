package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/novagraph/novagraph/storaged"
)

// storeView is what one storaged's /parts page said, or why it did not.
type storeView struct {
	service  string
	replicas []storaged.ReplicaStatus
	err      error
}

// views maps a storaged service name to its view.
type views map[string]storeView

// fetchParts asks every storaged for its replicas of space (all spaces
// when space < 0), concurrently, each within a second: a paused or
// disconnected store simply has no view.
func fetchParts(ctx context.Context, hc *http.Client, addrs map[string]string, space int32, checksum bool) views {
	out := views{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for svc, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timeout := 500 * time.Millisecond
			if checksum {
				timeout = 20 * time.Second
			}
			v := storeView{service: svc}
			v.replicas, v.err = getParts(ctx, hc, addr, space, checksum, timeout)
			mu.Lock()
			out[svc] = v
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func getParts(ctx context.Context, hc *http.Client, addr string, space int32, checksum bool, timeout time.Duration) ([]storaged.ReplicaStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := fmt.Sprintf("http://%s/parts?space=%d", addr, space)
	if checksum {
		url += "&checksum=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var out []storaged.ReplicaStatus
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return out, nil
}

// storeIDs maps store ids to service names, from the replicas the stores
// reported.
func (vs views) storeIDs() map[uint64]string {
	out := map[uint64]string{}
	for svc, v := range vs {
		for _, r := range v.replicas {
			out[r.Store] = svc
		}
	}
	return out
}

// byPart groups the reachable replicas by partition.
func (vs views) byPart() map[int32][]storaged.ReplicaStatus {
	out := map[int32][]storaged.ReplicaStatus{}
	for _, v := range vs {
		if v.err != nil {
			continue
		}
		for _, r := range v.replicas {
			out[r.Part] = append(out[r.Part], r)
		}
	}
	return out
}

// leaderOf is a partition's established leader: a store that says it
// leads in term T, with a majority of the partition's voters (itself
// included) reporting the same leader and term. A leader that only
// believes it leads (a deposed one on the wrong side of a partition) is
// not established. 0 when there is none.
func leaderOf(replicas []storaged.ReplicaStatus) (leader, term uint64) {
	var voters []uint64
	var voterTerm uint64
	for _, r := range replicas {
		if r.Error == "" && r.Term >= voterTerm && len(r.Voters) > 0 {
			voters, voterTerm = r.Voters, r.Term
		}
	}
	if len(voters) == 0 {
		return 0, 0
	}
	for _, self := range replicas {
		if self.Error != "" || self.Leader == 0 || self.Leader != self.Store {
			continue
		}
		agree := 0
		for _, r := range replicas {
			if r.Error == "" && r.Leader == self.Store && r.Term == self.Term {
				agree++
			}
		}
		if agree >= len(voters)/2+1 {
			return self.Store, self.Term
		}
	}
	return 0, 0
}

// leaderless lists the partitions (of parts) without an established leader.
func (vs views) leaderless(parts []int32) []int32 {
	by := vs.byPart()
	var out []int32
	for _, p := range parts {
		if l, _ := leaderOf(by[p]); l == 0 {
			out = append(out, p)
		}
	}
	return out
}

// lagging lists the replicas that are not yet back in their group: on an
// unreachable store, or not following the established leader and term.
// Empty once every replica of every partition is in step again.
func (vs views) lagging(parts []int32) []string {
	by := vs.byPart()
	var out []string
	for _, v := range vs {
		if v.err != nil {
			out = append(out, fmt.Sprintf("%s: %v", v.service, v.err))
		}
	}
	for _, p := range parts {
		reps := by[p]
		l, term := leaderOf(reps)
		if l == 0 {
			out = append(out, fmt.Sprintf("part %d: no leader", p))
			continue
		}
		var voters []uint64
		for _, r := range reps {
			if r.Store == l {
				voters = r.Voters
			}
		}
		seen := map[uint64]bool{}
		for _, r := range reps {
			seen[r.Store] = true
			if r.Leader != l || r.Term != term {
				out = append(out, fmt.Sprintf("part %d: store %d follows %d in term %d, not %d in term %d", p, r.Store, r.Leader, r.Term, l, term))
			}
		}
		for _, id := range voters {
			if !seen[id] {
				out = append(out, fmt.Sprintf("part %d: voter %d did not answer", p, id))
			}
		}
	}
	sort.Strings(out)
	return out
}

// checksumsDiffer compares the replicas of every partition once they
// applied the same index; it returns the partitions whose replicas differ
// and those not yet comparable (applied indexes still apart).
func (vs views) checksumsDiffer(parts []int32) (differ []string, pending []string) {
	by := vs.byPart()
	for _, p := range parts {
		reps := by[p]
		if len(reps) == 0 {
			pending = append(pending, fmt.Sprintf("part %d: no replica answered", p))
			continue
		}
		same, applied := true, reps[0].Applied
		for _, r := range reps {
			if r.Checksum == nil {
				pending = append(pending, fmt.Sprintf("part %d store %d: no checksum (%s)", p, r.Store, r.Error))
				same = false
				break
			}
			if r.Applied != applied {
				pending = append(pending, fmt.Sprintf("part %d: applied %d on store %d, %d on store %d", p, applied, reps[0].Store, r.Applied, r.Store))
				same = false
				break
			}
		}
		if !same {
			continue
		}
		for _, r := range reps[1:] {
			if *r.Checksum != *reps[0].Checksum {
				differ = append(differ, fmt.Sprintf("part %d at applied index %d: store %d has checksum %x, store %d has %x",
					p, applied, reps[0].Store, *reps[0].Checksum, r.Store, *r.Checksum))
				break
			}
		}
	}
	return differ, pending
}
