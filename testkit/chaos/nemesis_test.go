package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/raftgroup"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/faultnet"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// faultKind is one kind of fault the nemesis injects.
type faultKind int

const (
	faultFlaky         faultKind = iota // random loss, delay, duplication only
	faultPartition                      // a random minority of stores cut off
	faultIsolateLeader                  // the leader of a random partition cut off
	faultPause                          // a store stops talking raft
	faultCrash                          // a store stopped, then restarted on its data
	faultTransfer                       // leadership of a partition moved to another replica
	faultMove                           // a replica moved to a store without one (add learner, catch up, promote, remove)
	numFaultKinds
)

func (k faultKind) String() string {
	return [...]string{"flaky", "partition", "isolate-leader", "pause", "crash", "transfer-leader", "move-replica"}[k]
}

// step is one entry of the nemesis schedule: a fault held for a while,
// then a healthy gap.
type step struct {
	kind  faultKind
	flaky faultnet.Faults // random faults during the step; zero: none
	hold  time.Duration
	gap   time.Duration
	pick  int64 // chooses the store, partition or minority
}

func (s step) String() string {
	return fmt.Sprintf("%v hold=%v gap=%v pick=%d [%v]", s.kind, s.hold, s.gap, s.pick, s.flaky)
}

// schedule derives the nemesis's steps from the seed alone, before the
// cluster runs, so that a seed names one schedule. Kinds come in seeded
// permutations of kinds (all kinds if nil), so any run of len(kinds)
// steps sees each.
func schedule(seed int64, total time.Duration, kinds []faultKind) []step {
	if len(kinds) == 0 {
		for k := faultKind(0); k < numFaultKinds; k++ {
			kinds = append(kinds, k)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	var steps []step
	var perm []int
	for elapsed := time.Duration(0); elapsed < total; {
		if len(perm) == 0 {
			perm = rng.Perm(len(kinds))
		}
		s := step{
			kind: kinds[perm[0]],
			hold: time.Duration(300+rng.Intn(600)) * time.Millisecond,
			gap:  time.Duration(100+rng.Intn(250)) * time.Millisecond,
			pick: rng.Int63(),
		}
		switch s.kind {
		case faultPartition, faultIsolateLeader, faultPause:
			// Long enough, mostly, for the cut-off side to lose its
			// leadership (elections take 10–20 ticks) and for clients to
			// find the new leader while the old one still runs.
			s.hold += 400 * time.Millisecond
		}
		perm = perm[1:]
		// Random faults during a flaky step, and during half the others,
		// so that elections and catch-up also run on a lossy network.
		if s.kind == faultFlaky || rng.Intn(2) == 0 {
			s.flaky = faultnet.Faults{
				Drop:      rng.Float64() * 0.15,
				Duplicate: rng.Float64() * 0.05,
				Delay:     rng.Float64() * 0.5,
				MaxDelay:  time.Duration(5+rng.Intn(55)) * time.Millisecond,
			}
		}
		steps = append(steps, s)
		elapsed += s.hold + s.gap
	}
	return steps
}

// nemesis runs a schedule against a cluster. Its goroutine is the only
// one that touches c.Stores while it runs (StopStore/RestartStore replace
// the servers), so the test must not look at them until done is closed.
type nemesis struct {
	t        *testing.T
	c        *testcluster.Cluster
	net      *faultnet.Network
	ids      []uint64 // slot → store id (ids survive restarts)
	space    int32
	parts    int32
	steps    []step
	base     time.Time
	stop     chan struct{}
	done     chan struct{}
	haltOnce sync.Once

	err error // written by the nemesis goroutine, read after done

	meta  *metaclient.Client    // for the membership faults
	admin *storageclient.Client // runs them on partition leaders
}

func startNemesis(t *testing.T, c *testcluster.Cluster, net *faultnet.Network, ids []uint64, space, parts int32, steps []step, base time.Time) *nemesis {
	n := &nemesis{t: t, c: c, net: net, ids: ids, space: space, parts: parts, steps: steps, base: base,
		stop: make(chan struct{}), done: make(chan struct{})}
	log := slog.New(slog.DiscardHandler)
	n.meta = metaclient.New([]string{c.MetaAddr()}, log)
	n.admin = storageclient.New(n.meta, log)
	go n.run()
	return n
}

// halt stops the schedule early (the test is failing) and waits until the
// cluster is whole again. It may be called more than once.
func (n *nemesis) halt() {
	n.haltOnce.Do(func() { close(n.stop) })
	<-n.done
}

func (n *nemesis) logf(format string, args ...any) {
	n.t.Logf("%8v nemesis: %s", time.Since(n.base).Round(time.Millisecond), fmt.Sprintf(format, args...))
}

// sleep waits d unless the nemesis is stopped; false means stopped.
func (n *nemesis) sleep(d time.Duration) bool {
	select {
	case <-n.stop:
		return false
	case <-time.After(d):
		return true
	}
}

func (n *nemesis) run() {
	defer close(n.done)
	defer n.meta.Close()
	defer n.admin.Close()
	// Whatever happens, leave a healed network and every store running:
	// the checks after the faults need the whole cluster.
	defer func() {
		n.net.Heal()
		for slot, s := range n.c.Stores {
			if s.Server == nil {
				if err := n.c.TryRestartStore(slot); err != nil && n.err == nil {
					n.err = fmt.Errorf("restarting store %d after the faults: %w", n.ids[slot], err)
				}
			}
		}
		n.logf("healed; all stores running")
	}()
	for _, s := range n.steps {
		if !n.inject(s) {
			return
		}
		n.net.Heal()
		if !n.sleep(s.gap) {
			return
		}
	}
}

// inject applies one step's fault, holds it and undoes it (except the
// network-wide Heal, which run does). It returns false if stopped.
func (n *nemesis) inject(s step) bool {
	if s.flaky != (faultnet.Faults{}) {
		n.net.SetFaults(s.flaky)
	}
	pick := rand.New(rand.NewSource(s.pick))
	stores := len(n.ids)
	switch s.kind {
	case faultFlaky:
		n.logf("flaky network %v for %v", s.flaky, s.hold)
		return n.sleep(s.hold)
	case faultPartition:
		size := 1 + pick.Intn((stores-1)/2) // a strict minority
		var minority []uint64
		for _, slot := range pick.Perm(stores)[:size] {
			minority = append(minority, n.ids[slot])
		}
		sort.Slice(minority, func(i, j int) bool { return minority[i] < minority[j] })
		n.logf("partition %v | rest for %v", minority, s.hold)
		n.net.Partition(minority)
		return n.sleep(s.hold)
	case faultIsolateLeader:
		part := int32(pick.Intn(int(n.parts))) + 1
		leader := n.leaderOf(part)
		if leader == 0 {
			leader = n.ids[pick.Intn(stores)]
			n.logf("partition %d has no known leader; isolating store %d for %v", part, leader, s.hold)
		} else {
			n.logf("isolating store %d, leader of partition %d, for %v", leader, part, s.hold)
		}
		n.net.Isolate(leader)
		return n.sleep(s.hold)
	case faultPause:
		id := n.ids[pick.Intn(stores)]
		n.logf("pausing store %d for %v", id, s.hold)
		n.net.Pause(id)
		ok := n.sleep(s.hold)
		n.net.Resume(id)
		return ok
	case faultCrash:
		slot := pick.Intn(stores)
		n.logf("crashing store %d for %v", n.ids[slot], s.hold)
		n.c.StopStore(slot)
		ok := n.sleep(s.hold)
		start := time.Now()
		if err := n.c.TryRestartStore(slot); err != nil {
			n.err = fmt.Errorf("restarting store %d: %w", n.ids[slot], err)
			return false
		}
		n.logf("store %d restarted in %v", n.ids[slot], time.Since(start).Round(time.Millisecond))
		return ok
	case faultTransfer:
		part := int32(pick.Intn(int(n.parts))) + 1
		replicas := n.meta.Catalog().Parts(n.space)[part]
		if len(replicas) == 0 {
			return n.sleep(s.hold)
		}
		to := replicas[pick.Intn(len(replicas))]
		n.logf("transferring leadership of partition %d to store %d", part, to)
		n.membership(s.hold, func(ctx context.Context) error { return n.admin.TransferLeader(ctx, n.space, part, to) })
		return n.sleep(s.hold)
	case faultMove:
		part := int32(pick.Intn(int(n.parts))) + 1
		replicas := n.meta.Catalog().Parts(n.space)[part]
		var spare []uint64
		for _, id := range n.ids {
			if !slices.Contains(replicas, id) {
				spare = append(spare, id)
			}
		}
		if len(spare) == 0 || len(replicas) == 0 {
			n.logf("partition %d: no catalog yet, or a replica on every store: no move", part)
			return n.sleep(s.hold)
		}
		to := spare[pick.Intn(len(spare))]
		from := replicas[pick.Intn(len(replicas))]
		joint := pick.Intn(2) == 0
		n.logf("moving partition %d's replica from store %d to store %d (one joint change: %v)", part, from, to, joint)
		n.membership(2*s.hold+5*time.Second, func(ctx context.Context) error {
			if joint {
				// One joint-consensus change, after moving leadership off
				// the source (a leader cannot replace itself).
				if leader := n.leaderOf(part); leader == from {
					if err := n.admin.TransferLeader(ctx, n.space, part, replicas[(slices.Index(replicas, from)+1)%len(replicas)]); err != nil {
						return fmt.Errorf("moving leadership off the source: %w", err)
					}
				}
				return n.admin.ReplaceReplica(ctx, n.space, part, from, to)
			}
			if err := n.admin.AddReplica(ctx, n.space, part, to); err != nil {
				return fmt.Errorf("adding: %w", err)
			}
			if leader := n.leaderOf(part); leader == from {
				if err := n.admin.TransferLeader(ctx, n.space, part, to); err != nil {
					return fmt.Errorf("moving leadership off the source: %w", err)
				}
			}
			if err := n.admin.RemoveReplica(ctx, n.space, part, from); err != nil {
				return fmt.Errorf("removing: %w", err)
			}
			return nil
		})
		return n.sleep(s.hold)
	}
	panic(fmt.Sprintf("unknown fault kind %d", s.kind))
}

// membership runs one admin operation within budget. It may fail under
// the other faults (a leader moved, a quorum was cut off): that is
// logged, not a test failure; what matters is that the checks still hold
// afterwards, whatever state the change was left in.
func (n *nemesis) membership(budget time.Duration, op func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	start := time.Now()
	if err := op(ctx); err != nil {
		n.logf("membership change failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
		return
	}
	n.logf("membership change done in %v", time.Since(start).Round(time.Millisecond))
}

// leaderOf asks the running stores who leads the partition and believes
// the one with the highest term; 0 if nobody knows.
func (n *nemesis) leaderOf(part int32) uint64 {
	var leader, term uint64
	for _, s := range n.c.Stores {
		if s.Server == nil {
			continue
		}
		l, tm, ok := s.Server.Engine().Leader(raftgroup.GroupID{Space: n.space, Part: part})
		if ok && l != 0 && tm >= term {
			leader, term = l, tm
		}
	}
	return leader
}
