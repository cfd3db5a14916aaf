package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/testkit/faultnet"
)

// Mutants are deliberate bugs, each of a kind the checks exist to catch.
// TestChecksCatchMutants runs the chaos harness against each and fails if
// the checks do NOT complain: a checker that cannot fail proves nothing,
// and a change to the harness that blinds it (recording the wrong times,
// reading the wrong key, a model that accepts anything) shows up here.
var mutants = []mutant{
	{
		// The write is acknowledged before it is replicated: a read that
		// starts after the acknowledgement may miss it.
		name: "ack-before-commit",
		wrapStore: func(t *testing.T, s store) store {
			a := &ackEarly{inner: s}
			t.Cleanup(a.wg.Wait) // runs before the cluster stops
			return a
		},
	},
	{
		// Each client serves reads from a cache of the last value it saw,
		// never invalidated by other clients' writes.
		name:      "stale-client-cache",
		wrapStore: func(t *testing.T, s store) store { return &staleCache{inner: s, seen: map[int64]int64{}} },
	},
	{
		// Followers answer heartbeats they never received (a leader that
		// counts a quorum it does not have): a deposed leader keeps
		// serving ReadIndex reads from its stale state.
		name:          "forged-read-quorum",
		kinds:         []faultKind{faultIsolateLeader},
		wrapTransport: forgeHeartbeatAcks,
	},
	{
		// Appends to one follower are corrupted in flight: its replica
		// silently diverges.
		name:          "diverging-follower",
		wrapTransport: corruptAppendsToFirstStore,
	},
}

// TestChecksCatchMutants is the harness's self-test. Each mutant runs on
// seeds 1, 2, … until a check catches it, at most NOVAGRAPH_CHAOS_MUTANT_SEEDS
// seeds (default 3).
func TestChecksCatchMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("mutation self-test runs without -short")
	}
	maxSeeds := 3
	if v := os.Getenv("NOVAGRAPH_CHAOS_MUTANT_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("NOVAGRAPH_CHAOS_MUTANT_SEEDS=%q: want a positive count", v)
		}
		maxSeeds = n
	}
	cfg := chaosConfig{stores: 3, replicas: 3, parts: 4, keys: 8, clients: 4,
		faultTime: 3500 * time.Millisecond, quietTime: 300 * time.Millisecond, opTimeout: time.Second, raftTick: 25 * time.Millisecond,
		replicaWait: 5 * time.Second}.withEnv(t)
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			cfg := cfg
			cfg.kinds = m.kinds
			for seed := int64(1); seed <= int64(maxSeeds); seed++ {
				var problems []string
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { problems = runChaos(t, seed, cfg, &m) })
				if len(problems) > 0 {
					t.Logf("caught on seed %d: %s", seed, problems[0])
					return
				}
				t.Logf("not caught on seed %d", seed)
			}
			t.Fatalf("the checks missed mutant %q on seeds 1..%d", m.name, maxSeeds)
		})
	}
}

// ackEarly acknowledges a put at once and performs it in the background.
type ackEarly struct {
	inner store
	wg    sync.WaitGroup
}

func (a *ackEarly) put(_ context.Context, key, value int64) error {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.inner.put(ctx, key, value)
	}()
	return nil
}

func (a *ackEarly) get(ctx context.Context, key int64) (int64, error) { return a.inner.get(ctx, key) }

// reconnect keeps the storage client: the background writes still use it.
func (a *ackEarly) reconnect() {}

// staleCache answers a read from the last value this client saw for the
// key, if any. One client runs one operation at a time, so no lock.
type staleCache struct {
	inner store
	seen  map[int64]int64
}

func (s *staleCache) put(ctx context.Context, key, value int64) error {
	err := s.inner.put(ctx, key, value)
	if err == nil {
		s.seen[key] = value
	}
	return err
}

func (s *staleCache) reconnect() { s.inner.reconnect() }

func (s *staleCache) get(ctx context.Context, key int64) (int64, error) {
	if v, ok := s.seen[key]; ok {
		return v, nil
	}
	v, err := s.inner.get(ctx, key)
	if err == nil {
		s.seen[key] = v
	}
	return v, err
}

// rawTransports remembers each store's real transport, so a mutant can
// deliver forged messages past the fault network.
type rawTransports struct {
	mu  sync.Mutex
	raw map[uint64]raftgroup.Transport
}

func (r *rawTransports) set(id uint64, t raftgroup.Transport) {
	r.mu.Lock()
	r.raw[id] = t
	r.mu.Unlock()
}

func (r *rawTransports) get(id uint64) raftgroup.Transport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.raw[id]
}

// mutantTransport runs each outbound batch through edit before the fault
// network sees it.
type mutantTransport struct {
	next raftgroup.Transport
	edit func(msgs []raftgroup.Envelope) []raftgroup.Envelope
}

func (m *mutantTransport) Send(msgs []raftgroup.Envelope) { m.next.Send(m.edit(msgs)) }

// forgeHeartbeatAcks: for every heartbeat a store sends, the receiver's
// real transport "answers" it at once, whatever the network did to the
// heartbeat.
func forgeHeartbeatAcks(net *faultnet.Network) func(uint64, raftgroup.Transport) raftgroup.Transport {
	raw := &rawTransports{raw: map[uint64]raftgroup.Transport{}}
	return func(id uint64, inner raftgroup.Transport) raftgroup.Transport {
		raw.set(id, inner)
		return &mutantTransport{next: net.Wrap(id, inner), edit: func(msgs []raftgroup.Envelope) []raftgroup.Envelope {
			for _, env := range msgs {
				m := env.Msg
				if m.GetType() != rpb.MessageType_MsgHeartbeat {
					continue
				}
				if peer := raw.get(m.GetTo()); peer != nil {
					peer.Send([]raftgroup.Envelope{{Group: env.Group, Msg: &rpb.Message{
						Type: rpb.MessageType_MsgHeartbeatResp.Enum(), From: proto.Uint64(m.GetTo()), To: proto.Uint64(m.GetFrom()),
						Term: proto.Uint64(m.GetTerm()), Context: m.GetContext(),
					}}})
				}
			}
			return msgs
		}}
	}
}

// corruptAppendsToFirstStore flips the last bit of every normal entry sent
// to the first store that was wrapped (the last byte of a write command is
// the last byte of the property row, so the entry still applies, with
// another value).
func corruptAppendsToFirstStore(net *faultnet.Network) func(uint64, raftgroup.Transport) raftgroup.Transport {
	var mu sync.Mutex
	var victim uint64
	return func(id uint64, inner raftgroup.Transport) raftgroup.Transport {
		mu.Lock()
		if victim == 0 {
			victim = id
		}
		target := victim
		mu.Unlock()
		return &mutantTransport{next: net.Wrap(id, inner), edit: func(msgs []raftgroup.Envelope) []raftgroup.Envelope {
			out := make([]raftgroup.Envelope, len(msgs))
			for i, env := range msgs {
				out[i] = env
				if env.Msg.GetTo() != target || env.Msg.GetType() != rpb.MessageType_MsgApp || len(env.Msg.GetEntries()) == 0 {
					continue
				}
				// A copy: the original entries are the leader's own log.
				c := proto.Clone(env.Msg).(*rpb.Message)
				for _, e := range c.Entries {
					if e.GetType() == rpb.EntryType_EntryNormal && len(e.Data) > 8 {
						e.Data[len(e.Data)-1] ^= 1
					}
				}
				out[i] = raftgroup.Envelope{Group: env.Group, Msg: c}
			}
			return out
		}}
	}
}
