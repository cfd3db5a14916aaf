package compose

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// faultKind is one of the faults the nemesis cycles through.
type faultKind int

const (
	killStorage        faultKind = iota // docker kill -9 a storaged, then start it
	killLeader                          // the same, for the leader of a random partition
	killMeta                            // docker kill -9 a metad, then start it
	pauseStorage                        // docker pause / unpause a storaged
	disconnectMinority                  // two storaged off the network, then back
	disconnectLeader                    // a partition leader's storaged off the network
	diskFull                            // fill storage5's data disk, then free it
	numFaultKinds
)

var faultNames = [...]string{"kill-storaged", "kill-leader", "kill-metad", "pause-storaged", "disconnect-minority", "disconnect-leader", "disk-full"}

func (k faultKind) String() string { return faultNames[k] }

func parseFaultKinds(list string) ([]faultKind, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []faultKind
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for k := faultKind(0); k < numFaultKinds; k++ {
			if k.String() == name {
				out, found = append(out, k), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s)", name, strings.Join(faultNames[:], ", "))
		}
	}
	return out, nil
}

// step is one planned fault. The target is drawn when the fault starts
// (the leader of part, a store chosen by pick), so the plan is a function
// of the seed alone.
type step struct {
	kind faultKind
	hold time.Duration // how long the fault lasts
	pick int           // which store, metad or pair of stores (modulo their number)
	part int32         // which partition's leader (kill-leader, disconnect-leader), 1-based
}

func (s step) String() string {
	return fmt.Sprintf("%s hold=%v pick=%d part=%d", s.kind, s.hold, s.pick, s.part)
}

// plan draws n faults from the seed: every kind once per round of len(kinds)
// in a shuffled order, so a short run still covers every kind, with holds
// between minHold and maxHold.
func plan(seed int64, n int, kinds []faultKind, parts int32, minHold, maxHold time.Duration) []step {
	if len(kinds) == 0 {
		for k := faultKind(0); k < numFaultKinds; k++ {
			kinds = append(kinds, k)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	var out []step
	for len(out) < n {
		order := append([]faultKind(nil), kinds...)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			if len(out) == n {
				break
			}
			hold := minHold
			if maxHold > minHold {
				hold += time.Duration(rng.Int63n(int64(maxHold - minHold)))
			}
			out = append(out, step{kind: k, hold: hold.Round(100 * time.Millisecond), pick: rng.Intn(1 << 20), part: 1 + rng.Int31n(parts)})
		}
	}
	return out
}

// faultRecord is what happened to one step, for the report.
type faultRecord struct {
	Index  int           `json:"index"`
	Kind   string        `json:"kind"`
	Target []string      `json:"target"`
	Start  time.Duration `json:"start"` // since the run began
	Hold   time.Duration `json:"hold"`
	// Failover: from the injection until every partition had an
	// established leader among the reachable stores; -1 when that did not
	// happen while the fault lasted.
	Failover time.Duration `json:"failover"`
	// Leader: from the heal until every partition had an established
	// leader again. Rejoin: until every replica followed it again.
	Leader time.Duration `json:"leader_recovery"`
	Rejoin time.Duration `json:"rejoin"`
	Notes  []string      `json:"notes,omitempty"`
	Error  string        `json:"error,omitempty"`
}

// injection is a started fault: heal undoes it.
type injection struct {
	targets []string
	heal    func(ctx context.Context) error
	notes   []string
}

// inject starts step s. Services: storage1..5, meta1..3, disk5.
func (r *runner) inject(ctx context.Context, s step) (*injection, error) {
	storages := r.storageServices()
	switch s.kind {
	case killStorage, killLeader, killMeta:
		svc := storages[s.pick%len(storages)]
		switch s.kind {
		case killLeader:
			var err error
			if svc, err = r.leaderService(ctx, s.part); err != nil {
				return nil, err
			}
		case killMeta:
			svc = fmt.Sprintf("meta%d", 1+s.pick%3)
		}
		if err := r.dk.kill(ctx, svc); err != nil {
			return nil, err
		}
		return &injection{targets: []string{svc}, heal: func(ctx context.Context) error { return r.dk.start(ctx, svc) }}, nil
	case pauseStorage:
		svc := storages[s.pick%len(storages)]
		if err := r.dk.pause(ctx, svc); err != nil {
			return nil, err
		}
		return &injection{targets: []string{svc}, heal: func(ctx context.Context) error { return r.dk.unpause(ctx, svc) }}, nil
	case disconnectMinority, disconnectLeader:
		var svcs []string
		if s.kind == disconnectLeader {
			svc, err := r.leaderService(ctx, s.part)
			if err != nil {
				return nil, err
			}
			svcs = []string{svc}
		} else {
			a := s.pick % len(storages)
			b := (a + 1 + (s.pick/len(storages))%(len(storages)-1)) % len(storages)
			svcs = []string{storages[a], storages[b]}
			sort.Strings(svcs)
		}
		for i, svc := range svcs {
			if err := r.dk.disconnect(ctx, svc); err != nil {
				for _, done := range svcs[:i] {
					_ = r.dk.connect(ctx, done, r.ip(done))
				}
				return nil, err
			}
		}
		return &injection{targets: svcs, heal: func(ctx context.Context) error {
			var first error
			for _, svc := range svcs {
				if err := r.dk.connect(ctx, svc, r.ip(svc)); err != nil && first == nil {
					first = err
				}
			}
			return first
		}}, nil
	case diskFull:
		out, err := r.dk.exec(ctx, "disk5", "/bin/nova-diskfill", "fill", "/data")
		if err != nil {
			return nil, fmt.Errorf("filling storage5's disk: %w", err)
		}
		inj := &injection{targets: []string{"storage5"}, notes: []string{strings.TrimSpace(out)}}
		inj.notes = append(inj.notes, r.probeDiskFull(ctx)...)
		inj.heal = func(ctx context.Context) error {
			_, err := r.dk.exec(ctx, "disk5", "/bin/nova-diskfill", "free", "/data")
			return err
		}
		return inj, nil
	}
	return nil, fmt.Errorf("unknown fault kind %d", s.kind)
}
