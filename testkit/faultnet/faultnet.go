// Package faultnet is a seeded fault-injecting network for raft messages.
// It sits between each store's raft engine and its real transport
// (testcluster.Options.WrapTransport = net.Wrap) and, per message, loses,
// delays (and so reorders) or duplicates it, and cuts links: partitions,
// isolated stores and paused stores.
//
// # What a seed reproduces
//
// Every random choice comes from one math/rand source seeded with the
// seed, drawn under one lock. A single-threaded sequence of Sends therefore
// gets the same fate message for message. In a live cluster the order in
// which the stores' engines call Send depends on goroutine scheduling, so a
// seed reproduces the fault *rates and schedule*, not the exact interleaving;
// tests should derive their nemesis schedule from the seed, not from the
// network's own draws.
//
// # Delivery
//
// A message that is neither lost nor delayed is handed to the sender's real
// transport at once. A delayed message waits in a queue owned by one
// goroutine of the Network, and its link is checked again when it is due:
// a partition that started while the message was in flight loses it, as a
// real one would. Nothing reaches a real transport after Close returns.
//
// # Snapshots
//
// The engine streams snapshots through raftgroup.SnapshotTransport, not
// Send. A wrapped transport implements it too: a snapshot whose link is cut,
// or that the Drop probability loses, is released as failed (raft hears the
// failure and retries later, as after a broken stream); otherwise it goes to
// the real transport if that one streams snapshots. Snapshots are never
// delayed or duplicated. (Storaged must hand the wrapped transport to the
// engine as its SnapshotTransport for this to apply.)
//
// A MsgSnap that reaches Send anyway is never lost, delayed or duplicated at
// random (only cut links stop it): without a transport that reports its
// failure, a silent loss would leave the leader waiting for a snapshot
// status forever, a failure of the fault model and not of the system under
// test.
package faultnet

import (
	"container/heap"
	"fmt"
	"math/rand"
	"sync"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/raftgroup"
)

// Faults are the per-message random faults. The zero value is a perfect
// network.
type Faults struct {
	Drop      float64       // probability that a message is lost
	Duplicate float64       // probability that a message is delivered twice (the copy is delayed)
	Delay     float64       // probability that a message is held back
	MaxDelay  time.Duration // a held-back message waits uniformly in (0, MaxDelay]
}

func (f Faults) String() string {
	return fmt.Sprintf("drop=%.2f dup=%.2f delay=%.2f max=%v", f.Drop, f.Duplicate, f.Delay, f.MaxDelay)
}

// Stats count what the network did with the messages it was given.
type Stats struct {
	Sent             uint64 // messages handed to Send
	Delivered        uint64 // messages (copies included) handed to a real transport
	DroppedRandom    uint64 // lost by the Drop probability
	DroppedCut       uint64 // lost to a partition, isolation or pause (at send or when due)
	DroppedClosed    uint64 // lost because the network closed or the sender restarted
	Delayed          uint64 // copies that went through the delay queue
	Duplicated       uint64 // extra copies made
	SnapshotsExempt  uint64 // MsgSnap passed to Send without random faults
	Snapshots        uint64 // snapshots handed to SendSnapshot (counted in Delivered or a Dropped* when decided)
	InFlightAtClose  uint64 // delayed copies discarded by Close
	InFlightRestarts uint64 // delayed copies discarded because their sender restarted
}

// Network is the shared fault state of all stores of one test cluster. It
// is safe for concurrent use.
type Network struct {
	seed int64
	logf func(format string, args ...any)

	// gate orders deliveries against Close and the link changes: every
	// call into a real transport holds it shared. Close takes it
	// exclusively, so once Close returns no call is in progress and none
	// can start; Partition, Pause and Wrap pass through it (settle), so
	// once they return no message let through under the old links is
	// still being handed over.
	gate   sync.RWMutex
	closed bool // written under gate (exclusive) and mu

	mu        sync.Mutex
	rng       *rand.Rand
	faults    Faults
	side      map[uint64]int // store → partition side; absent: the implicit side 0
	paused    map[uint64]bool
	endpoints map[uint64]*endpoint // the live incarnation of each store
	queue     delayQueue
	seq       uint64 // tie-breaker so equal due times keep send order
	stats     Stats

	kick chan struct{} // wakes the delivery goroutine when the queue head changes
	stop chan struct{}
	done chan struct{}
}

// New returns a perfect network driven by seed. logf, if not nil, receives
// a line for every knob change (t.Logf fits).
func New(seed int64, logf func(format string, args ...any)) *Network {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	n := &Network{
		seed:      seed,
		logf:      logf,
		rng:       rand.New(rand.NewSource(seed)),
		side:      map[uint64]int{},
		paused:    map[uint64]bool{},
		endpoints: map[uint64]*endpoint{},
		kick:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	n.logf("faultnet: seed %d", seed)
	go n.deliverLoop()
	return n
}

// Seed is the seed the network was created with.
func (n *Network) Seed() int64 { return n.seed }

// Wrap returns the transport that store storeID's engine should use; it
// has the signature of testcluster.Options.WrapTransport. Wrapping a store
// again (a restart) retires the previous incarnation: its delayed messages
// are discarded, as a crashed process's socket buffers would be.
func (n *Network) Wrap(storeID uint64, inner raftgroup.Transport) raftgroup.Transport {
	ep := &endpoint{net: n, store: storeID, inner: inner}
	n.mu.Lock()
	if old := n.endpoints[storeID]; old != nil {
		old.retired = true
	}
	n.endpoints[storeID] = ep
	n.mu.Unlock()
	n.settle()
	return ep
}

// settle waits for the deliveries in progress, which decided under the
// links as they were: the real transports do not block, so it is brief.
func (n *Network) settle() {
	n.gate.Lock()
	n.gate.Unlock() //nolint:staticcheck // a barrier, nothing to guard
}

// SetFaults sets the random per-message faults.
func (n *Network) SetFaults(f Faults) {
	n.mu.Lock()
	n.faults = f
	n.mu.Unlock()
	n.logf("faultnet: faults %v", f)
}

// Partition splits the stores into sides; messages flow only between
// stores of the same side. Stores named in no side form one more side
// together, so Partition([]uint64{a}) cuts a off from everyone else. It
// replaces any previous partition or isolation; pauses stay.
func (n *Network) Partition(sides ...[]uint64) {
	n.mu.Lock()
	n.side = map[uint64]int{}
	for i, s := range sides {
		for _, store := range s {
			n.side[store] = i + 1
		}
	}
	n.mu.Unlock()
	n.settle()
	n.logf("faultnet: partition %v | rest", sides)
}

// Isolate cuts store off from every other store: Partition([]uint64{store}).
func (n *Network) Isolate(store uint64) {
	n.Partition([]uint64{store})
}

// Pause drops every message to and from store, as a stalled process looks
// from the outside, on top of whatever partition is in effect. Only raft
// traffic is affected: client RPCs still reach the store.
func (n *Network) Pause(store uint64) {
	n.mu.Lock()
	n.paused[store] = true
	n.mu.Unlock()
	n.settle()
	n.logf("faultnet: pause store %d", store)
}

// Resume undoes Pause.
func (n *Network) Resume(store uint64) {
	n.mu.Lock()
	delete(n.paused, store)
	n.mu.Unlock()
	n.logf("faultnet: resume store %d", store)
}

// Heal makes the network perfect again: no partition, no pause, no random
// faults. Messages already delayed are still delivered when due.
func (n *Network) Heal() {
	n.mu.Lock()
	n.side = map[uint64]int{}
	n.paused = map[uint64]bool{}
	n.faults = Faults{}
	n.mu.Unlock()
	n.logf("faultnet: heal")
}

// Connected reports whether a message from one store to another would pass
// the current partition and pauses (random faults aside).
func (n *Network) Connected(from, to uint64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.linkUp(from, to)
}

// Stats returns the counters so far.
func (n *Network) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// Close stops the delivery goroutine and discards every delayed message.
// After Close returns, nothing is handed to a real transport (a snapshot
// stream a real transport started earlier is that transport's to end);
// Sends are dropped and snapshots released as failed. It is idempotent.
func (n *Network) Close() {
	n.gate.Lock()
	if n.closed {
		n.gate.Unlock()
		return
	}
	n.mu.Lock()
	n.closed = true
	n.stats.InFlightAtClose += uint64(len(n.queue))
	n.queue = nil
	n.mu.Unlock()
	n.gate.Unlock()
	close(n.stop)
	<-n.done
}

// linkUp: mu held.
func (n *Network) linkUp(from, to uint64) bool {
	return !n.paused[from] && !n.paused[to] && n.side[from] == n.side[to]
}

// endpoint is one incarnation of one store's transport.
type endpoint struct {
	net     *Network
	store   uint64
	inner   raftgroup.Transport
	retired bool // under net.mu
}

// Send implements raftgroup.Transport. It never blocks on the network: the
// decisions are made under a mutex and the immediate messages go to the
// real transport, which is itself non-blocking.
func (e *endpoint) Send(msgs []raftgroup.Envelope) {
	n := e.net
	n.gate.RLock()
	defer n.gate.RUnlock()
	now := make([]raftgroup.Envelope, 0, len(msgs))
	queued := false
	n.mu.Lock()
	for _, env := range msgs {
		n.stats.Sent++
		to := env.Msg.GetTo()
		switch {
		case n.closed || e.retired:
			n.stats.DroppedClosed++
			continue
		case !n.linkUp(e.store, to):
			n.stats.DroppedCut++
			continue
		case env.Msg.GetType() == rpb.MessageType_MsgSnap:
			n.stats.SnapshotsExempt++
			now = append(now, env)
			continue
		}
		f := n.faults
		if n.rng.Float64() < f.Drop {
			n.stats.DroppedRandom++
			continue
		}
		copies := 1
		if n.rng.Float64() < f.Duplicate {
			copies = 2
			n.stats.Duplicated++
		}
		for c := 0; c < copies; c++ {
			// The duplicate is always held back, so it arrives after the
			// original, the way a retransmitted packet does.
			if (c == 1 || n.rng.Float64() < f.Delay) && f.MaxDelay > 0 {
				d := time.Duration(n.rng.Int63n(int64(f.MaxDelay))) + 1
				n.seq++
				// The engine may reuse nothing of a sent message, but a
				// clone makes the queue independent of that promise.
				heap.Push(&n.queue, &delayed{due: time.Now().Add(d), seq: n.seq, from: e, env: raftgroup.Envelope{
					Group: env.Group, Msg: proto.Clone(env.Msg).(*rpb.Message)}})
				n.stats.Delayed++
				queued = true
				continue
			}
			now = append(now, env)
		}
	}
	n.stats.Delivered += uint64(len(now))
	n.mu.Unlock()
	if queued {
		select {
		case n.kick <- struct{}{}:
		default:
		}
	}
	if len(now) > 0 {
		e.inner.Send(now)
	}
}

// SendSnapshot implements raftgroup.SnapshotTransport (see Snapshots in the
// package documentation). It does not block.
func (e *endpoint) SendSnapshot(d *raftgroup.SnapshotData) {
	inner, streams := e.inner.(raftgroup.SnapshotTransport)
	e.net.gate.RLock()
	defer e.net.gate.RUnlock()
	if !streams || !e.net.admitSnapshot(e, d.Msg.GetTo()) {
		d.Release(false)
		return
	}
	inner.SendSnapshot(d)
}

// admitSnapshot decides the fate of one snapshot from e to store to.
func (n *Network) admitSnapshot(e *endpoint, to uint64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stats.Snapshots++
	switch {
	case n.closed || e.retired:
		n.stats.DroppedClosed++
	case !n.linkUp(e.store, to):
		n.stats.DroppedCut++
	case n.rng.Float64() < n.faults.Drop:
		n.stats.DroppedRandom++
	default:
		n.stats.Delivered++
		return true
	}
	return false
}

// deliverLoop owns the delay queue's timer: it hands each delayed message
// to its sender's real transport when it is due, if its link is still up.
func (n *Network) deliverLoop() {
	defer close(n.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wait := n.deliverDue()
		timer.Reset(wait)
		select {
		case <-n.stop:
			return
		case <-n.kick:
		case <-timer.C:
		}
	}
}

// deliverDue delivers every due message and returns how long to wait for
// the next one.
func (n *Network) deliverDue() time.Duration {
	n.gate.RLock()
	defer n.gate.RUnlock()
	batches := map[*endpoint][]raftgroup.Envelope{}
	var order []*endpoint // deterministic delivery order per wake-up
	wait := time.Hour
	n.mu.Lock()
	now := time.Now()
	for len(n.queue) > 0 {
		head := n.queue[0]
		if d := head.due.Sub(now); d > 0 {
			wait = d
			break
		}
		heap.Pop(&n.queue)
		switch {
		case n.closed:
			n.stats.InFlightAtClose++
			continue
		case head.from.retired:
			n.stats.InFlightRestarts++
			continue
		case !n.linkUp(head.from.store, head.env.Msg.GetTo()):
			n.stats.DroppedCut++
			continue
		}
		if _, ok := batches[head.from]; !ok {
			order = append(order, head.from)
		}
		batches[head.from] = append(batches[head.from], head.env)
		n.stats.Delivered++
	}
	n.mu.Unlock()
	for _, ep := range order {
		ep.inner.Send(batches[ep])
	}
	return wait
}

// delayed is one message copy waiting in the delay queue.
type delayed struct {
	due  time.Time
	seq  uint64
	from *endpoint
	env  raftgroup.Envelope
}

// delayQueue is a min-heap on (due, seq).
type delayQueue []*delayed

func (q delayQueue) Len() int { return len(q) }
func (q delayQueue) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].seq < q[j].seq
}
func (q delayQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *delayQueue) Push(x any)   { *q = append(*q, x.(*delayed)) }
func (q *delayQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return x
}
