package faultnet

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/raftgroup"
)

// recorder is a fake real transport: it records what reaches it and flags
// any delivery after the test declared the network closed.
type recorder struct {
	mu        sync.Mutex
	got       []raftgroup.Envelope
	afterStop *atomic.Bool // set by the test once Close returned
	late      atomic.Int64
}

func (r *recorder) Send(msgs []raftgroup.Envelope) {
	if r.afterStop != nil && r.afterStop.Load() {
		r.late.Add(int64(len(msgs)))
	}
	r.mu.Lock()
	r.got = append(r.got, msgs...)
	r.mu.Unlock()
}

func (r *recorder) messages() []raftgroup.Envelope {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]raftgroup.Envelope(nil), r.got...)
}

func msg(from, to, index uint64) raftgroup.Envelope {
	return raftgroup.Envelope{Group: raftgroup.GroupID{Space: 1, Part: 1}, Msg: &rpb.Message{
		Type: rpb.MessageType_MsgApp.Enum(), From: proto.Uint64(from), To: proto.Uint64(to), Index: proto.Uint64(index)}}
}

// cluster wraps stores 1..n with recorders.
func cluster(t *testing.T, seed int64, n int) (*Network, map[uint64]raftgroup.Transport, map[uint64]*recorder) {
	t.Helper()
	net := New(seed, t.Logf)
	t.Cleanup(net.Close)
	wrapped := map[uint64]raftgroup.Transport{}
	recs := map[uint64]*recorder{}
	for id := uint64(1); id <= uint64(n); id++ {
		recs[id] = &recorder{}
		wrapped[id] = net.Wrap(id, recs[id])
	}
	return net, wrapped, recs
}

func TestDropRateIsHonoured(t *testing.T) {
	for _, p := range []float64{0, 0.1, 0.3, 0.7} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			net, tr, recs := cluster(t, 42, 2)
			net.SetFaults(Faults{Drop: p})
			const n = 20000
			for i := 0; i < n; i++ {
				tr[1].Send([]raftgroup.Envelope{msg(1, 2, uint64(i))})
			}
			got := len(recs[1].messages())
			rate := 1 - float64(got)/n
			// 5 standard deviations of a binomial: a false alarm is
			// astronomically unlikely, a wrong rate is not missed.
			tol := 5 * math.Sqrt(p*(1-p)/n)
			if math.Abs(rate-p) > tol+1e-9 {
				t.Fatalf("drop rate %.4f, want %.2f ± %.4f", rate, p, tol)
			}
			if st := net.Stats(); st.DroppedRandom != uint64(n-got) || st.Sent != n {
				t.Fatalf("stats %+v disagree with %d delivered of %d", st, got, n)
			}
		})
	}
}

// TestSameSeedSameFate: a single-threaded send sequence gets the same fate
// message for message under the same seed, and a different one otherwise.
func TestSameSeedSameFate(t *testing.T) {
	fate := func(seed int64) []uint64 {
		net, tr, recs := cluster(t, seed, 2)
		net.SetFaults(Faults{Drop: 0.5})
		for i := 0; i < 200; i++ {
			tr[1].Send([]raftgroup.Envelope{msg(1, 2, uint64(i))})
		}
		var idx []uint64
		for _, e := range recs[1].messages() {
			idx = append(idx, e.Msg.GetIndex())
		}
		return idx
	}
	a, b, c := fate(7), fate(7), fate(8)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("same seed, different fates:\n%v\n%v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatalf("seeds 7 and 8 dropped exactly the same messages")
	}
}

// allPairs sends one message on every ordered pair and returns the pairs
// that were delivered.
func allPairs(tr map[uint64]raftgroup.Transport, recs map[uint64]*recorder) map[[2]uint64]bool {
	for _, r := range recs {
		r.mu.Lock()
		r.got = nil
		r.mu.Unlock()
	}
	for from := range tr {
		for to := range tr {
			if from != to {
				tr[from].Send([]raftgroup.Envelope{msg(from, to, 0)})
			}
		}
	}
	out := map[[2]uint64]bool{}
	for from, r := range recs {
		for _, e := range r.messages() {
			out[[2]uint64{from, e.Msg.GetTo()}] = true
		}
	}
	return out
}

// expectPairs checks that exactly the pairs allowed by connected flowed.
func expectPairs(t *testing.T, what string, net *Network, got map[[2]uint64]bool, n int, connected func(a, b uint64) bool) {
	t.Helper()
	for a := uint64(1); a <= uint64(n); a++ {
		for b := uint64(1); b <= uint64(n); b++ {
			if a == b {
				continue
			}
			want := connected(a, b)
			if got[[2]uint64{a, b}] != want {
				t.Errorf("%s: %d→%d delivered=%v, want %v", what, a, b, got[[2]uint64{a, b}], want)
			}
			if net.Connected(a, b) != want {
				t.Errorf("%s: Connected(%d,%d)=%v, want %v", what, a, b, !want, want)
			}
		}
	}
}

func TestPartitionsCutExactlyTheRightPairs(t *testing.T) {
	const n = 5
	net, tr, recs := cluster(t, 1, n)
	all := func(a, b uint64) bool { return true }
	expectPairs(t, "healthy", net, allPairs(tr, recs), n, all)

	// {1,2} | {3} | {4,5} (the unnamed rest).
	net.Partition([]uint64{1, 2}, []uint64{3})
	side := map[uint64]int{1: 1, 2: 1, 3: 2, 4: 0, 5: 0}
	expectPairs(t, "partition", net, allPairs(tr, recs), n, func(a, b uint64) bool { return side[a] == side[b] })

	net.Isolate(4) // replaces the partition
	expectPairs(t, "isolate 4", net, allPairs(tr, recs), n, func(a, b uint64) bool { return a != 4 && b != 4 })

	net.Pause(1) // layers on the isolation
	expectPairs(t, "isolate 4 + pause 1", net, allPairs(tr, recs), n, func(a, b uint64) bool {
		return a != 4 && b != 4 && a != 1 && b != 1
	})
	net.Resume(1)
	expectPairs(t, "resume 1", net, allPairs(tr, recs), n, func(a, b uint64) bool { return a != 4 && b != 4 })

	net.Pause(2)
	net.Heal()
	expectPairs(t, "healed", net, allPairs(tr, recs), n, all)
}

func TestDelayReordersAndDuplicates(t *testing.T) {
	net, tr, recs := cluster(t, 3, 2)
	net.SetFaults(Faults{Delay: 0.5, Duplicate: 0.2, MaxDelay: 20 * time.Millisecond})
	const n = 500
	for i := 0; i < n; i++ {
		tr[1].Send([]raftgroup.Envelope{msg(1, 2, uint64(i))})
	}
	deadline := time.Now().Add(5 * time.Second)
	st := net.Stats()
	for len(recs[1].messages()) < n+int(st.Duplicated) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := recs[1].messages()
	if want := n + int(st.Duplicated); len(got) != want || st.Duplicated == 0 {
		t.Fatalf("delivered %d, want %d (%d duplicates)", len(got), want, st.Duplicated)
	}
	seen := map[uint64]int{}
	inversions := 0
	for i, e := range got {
		seen[e.Msg.GetIndex()]++
		if i > 0 && e.Msg.GetIndex() < got[i-1].Msg.GetIndex() {
			inversions++
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct messages arrived, want %d", len(seen), n)
	}
	if inversions == 0 {
		t.Fatalf("delay did not reorder anything")
	}
	if st.Delayed == 0 {
		t.Fatal("nothing was delayed")
	}
}

// TestDelayedMessageIsACopy: what sits in the delay queue does not change
// if the sender reuses the message it sent.
func TestDelayedMessageIsACopy(t *testing.T) {
	net, tr, recs := cluster(t, 4, 2)
	net.SetFaults(Faults{Delay: 1, MaxDelay: 10 * time.Millisecond})
	m := msg(1, 2, 7)
	tr[1].Send([]raftgroup.Envelope{m})
	m.Msg.Index = proto.Uint64(8)
	deadline := time.Now().Add(5 * time.Second)
	for len(recs[1].messages()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := recs[1].messages(); len(got) != 1 || got[0].Msg.GetIndex() != 7 {
		t.Fatalf("delivered %v, want the message as sent (index 7)", got)
	}
}

// TestDelayedMessageCutByLaterPartition: a message in flight when a
// partition starts is lost. Those whose short delay ran out before the
// partition (a loaded machine is slow to send fifty) arrived before it.
func TestDelayedMessageCutByLaterPartition(t *testing.T) {
	net, tr, recs := cluster(t, 5, 2)
	net.SetFaults(Faults{Delay: 1, MaxDelay: 50 * time.Millisecond})
	for i := 0; i < 50; i++ {
		tr[1].Send([]raftgroup.Envelope{msg(1, 2, uint64(i))})
	}
	net.Isolate(2)
	before := len(recs[1].messages()) // exact: Isolate settles deliveries
	time.Sleep(150 * time.Millisecond)
	if got := len(recs[1].messages()); got != before {
		t.Fatalf("%d delayed messages crossed a partition that began while they were in flight", got-before)
	}
	if st := net.Stats(); st.DroppedCut != uint64(50-before) || before == 50 {
		t.Fatalf("DroppedCut=%d with %d delivered before the partition, want %d and some of the 50 in flight", st.DroppedCut, before, 50-before)
	}
}

// TestRestartRetiresDelayedMessages: the delayed messages of a previous
// incarnation of a store are discarded, new ones flow.
func TestRestartRetiresDelayedMessages(t *testing.T) {
	net, tr, recs := cluster(t, 6, 2)
	net.SetFaults(Faults{Delay: 1, MaxDelay: 30 * time.Millisecond})
	for i := 0; i < 20; i++ {
		tr[1].Send([]raftgroup.Envelope{msg(1, 2, uint64(i))})
	}
	again := &recorder{}
	tr1 := net.Wrap(1, again)
	// Those whose short delay ran out before the restart arrived before
	// it; exact, as Wrap settles deliveries.
	before := len(recs[1].messages())
	net.SetFaults(Faults{})
	tr1.Send([]raftgroup.Envelope{msg(1, 2, 99)})
	tr[1].Send([]raftgroup.Envelope{msg(1, 2, 100)}) // the dead incarnation
	time.Sleep(100 * time.Millisecond)
	if got := len(recs[1].messages()); got != before || before == 20 {
		t.Fatalf("retired incarnation delivered %d messages after the restart (%d before it, of 20: some must have been in flight)", got-before, before)
	}
	if got := again.messages(); len(got) != 1 || got[0].Msg.GetIndex() != 99 {
		t.Fatalf("new incarnation delivered %v", got)
	}
}

func TestSnapshotsAreExemptFromRandomFaults(t *testing.T) {
	net, tr, recs := cluster(t, 9, 2)
	net.SetFaults(Faults{Drop: 1})
	snap := msg(1, 2, 1)
	snap.Msg.Type = rpb.MessageType_MsgSnap.Enum()
	tr[1].Send([]raftgroup.Envelope{snap, msg(1, 2, 2)})
	if got := recs[1].messages(); len(got) != 1 || got[0].Msg.GetType() != rpb.MessageType_MsgSnap {
		t.Fatalf("delivered %v, want only the snapshot", got)
	}
	net.Isolate(2)
	tr[1].Send([]raftgroup.Envelope{snap})
	if got := recs[1].messages(); len(got) != 1 {
		t.Fatalf("a snapshot crossed a partition")
	}
}

// TestNothingAfterClose: with many messages in flight and senders still
// sending, nothing reaches a real transport once Close has returned.
func TestNothingAfterClose(t *testing.T) {
	var stopped atomic.Bool
	net := New(11, t.Logf)
	recs := map[uint64]*recorder{}
	tr := map[uint64]raftgroup.Transport{}
	for id := uint64(1); id <= 3; id++ {
		recs[id] = &recorder{afterStop: &stopped}
		tr[id] = net.Wrap(id, recs[id])
	}
	net.SetFaults(Faults{Delay: 0.9, Duplicate: 0.3, Drop: 0.1, MaxDelay: 30 * time.Millisecond})
	var wg sync.WaitGroup
	quit := make(chan struct{})
	for id := uint64(1); id <= 3; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				tr[id].Send([]raftgroup.Envelope{msg(id, id%3+1, i)})
				if i%64 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	// Knobs turn concurrently with sends (the race detector watches).
	for i := 0; i < 20; i++ {
		net.Pause(uint64(i%3 + 1))
		net.Partition([]uint64{uint64(i%3 + 1)})
		net.Heal()
		net.SetFaults(Faults{Delay: 0.9, MaxDelay: 30 * time.Millisecond})
		time.Sleep(2 * time.Millisecond)
	}
	net.Close()
	stopped.Store(true)
	time.Sleep(80 * time.Millisecond) // longer than MaxDelay: late timers would fire now
	close(quit)
	wg.Wait()
	late := int64(0)
	for _, r := range recs {
		late += r.late.Load()
	}
	st := net.Stats()
	if late != 0 {
		t.Fatalf("%d messages delivered after Close (stats %+v)", late, st)
	}
	if st.InFlightAtClose == 0 || st.DroppedClosed == 0 {
		t.Fatalf("the test did not exercise Close with traffic in flight: %+v", st)
	}
	net.Close() // idempotent
}

// snapRecorder is a real transport that also streams snapshots.
type snapRecorder struct {
	recorder
	snaps []*raftgroup.SnapshotData
}

func (r *snapRecorder) SendSnapshot(d *raftgroup.SnapshotData) {
	r.mu.Lock()
	r.snaps = append(r.snaps, d)
	r.mu.Unlock()
}

// TestSnapshotsFollowTheLinks: a wrapped transport streams snapshots only
// over links that are up. (A refused snapshot is released as failed, which
// needs a real engine; here only the decision is checked.)
func TestSnapshotsFollowTheLinks(t *testing.T) {
	net := New(12, t.Logf)
	t.Cleanup(net.Close)
	inner := &snapRecorder{}
	tr := net.Wrap(1, inner)
	st, ok := tr.(raftgroup.SnapshotTransport)
	if !ok {
		t.Fatal("a wrapped transport does not implement raftgroup.SnapshotTransport")
	}
	snap := &raftgroup.SnapshotData{Msg: &rpb.Message{Type: rpb.MessageType_MsgSnap.Enum(), From: proto.Uint64(1), To: proto.Uint64(2)}}
	st.SendSnapshot(snap)
	if len(inner.snaps) != 1 {
		t.Fatalf("a snapshot on a healthy link was not forwarded")
	}
	ep := tr.(*endpoint)
	net.Isolate(2)
	if net.admitSnapshot(ep, 2) || !net.admitSnapshot(ep, 3) {
		t.Fatal("isolating store 2 should cut snapshots to 2 only")
	}
	net.Heal()
	net.SetFaults(Faults{Drop: 1})
	if net.admitSnapshot(ep, 2) {
		t.Fatal("Drop=1 let a snapshot through")
	}
	if st := net.Stats(); st.Snapshots != 4 || st.DroppedCut != 1 || st.DroppedRandom != 1 || st.Delivered != 2 {
		t.Fatalf("stats %+v", st)
	}
}
