package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/novagraph/novagraph/internal/schema"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/raftgroup"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/chaos/register"
	"github.com/novagraph/novagraph/testkit/faultnet"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// chaosConfig is the shape of one run.
type chaosConfig struct {
	stores    int
	replicas  int
	parts     int32
	keys      int64         // registers: vids 1..keys
	clients   int           // concurrent clients
	faultTime time.Duration // length of the nemesis schedule
	quietTime time.Duration // healthy workload after the faults
	opTimeout time.Duration // per operation: longer than a failover, shorter than a stuck partition
	raftTick  time.Duration // elections after 10–20 ticks
	kinds     []faultKind   // the faults the nemesis draws from; nil: all
	// replicaWait bounds the wait for replicas to agree after healing.
	// They normally do within a heartbeat or two; the bound is for slow
	// CI machines.
	replicaWait time.Duration
}

func (c chaosConfig) withEnv(t *testing.T) chaosConfig {
	if v := os.Getenv("NOVAGRAPH_CHAOS_FAULT_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("NOVAGRAPH_CHAOS_FAULT_TIME=%q: %v", v, err)
		}
		c.faultTime = d
	}
	return c
}

// seeds returns the seeds to run: NOVAGRAPH_CHAOS_SEED=S runs S alone,
// NOVAGRAPH_CHAOS_SEEDS=N runs 1..N, else 1..def (1..short under -short).
func seeds(t *testing.T, def, short int) []int64 {
	if v := os.Getenv("NOVAGRAPH_CHAOS_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("NOVAGRAPH_CHAOS_SEED=%q: %v", v, err)
		}
		return []int64{s}
	}
	n := def
	if testing.Short() {
		n = short
	}
	if v := os.Getenv("NOVAGRAPH_CHAOS_SEEDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("NOVAGRAPH_CHAOS_SEEDS=%q: want a positive count", v)
		}
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

// TestChaos3 runs the fault schedule of each seed against 3 stores, a
// space of 4 partitions with 3 replicas.
func TestChaos3(t *testing.T) {
	cfg := chaosConfig{stores: 3, replicas: 3, parts: 4, keys: 8, clients: 4,
		faultTime: 3500 * time.Millisecond, quietTime: 500 * time.Millisecond, opTimeout: time.Second, raftTick: 25 * time.Millisecond,
		replicaWait: 15 * time.Second}.withEnv(t)
	for _, seed := range seeds(t, 20, 3) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runChaos(t, seed, cfg, nil) })
	}
}

// TestChaosMembership interleaves replica moves and leader transfers with
// the network and crash faults: four stores, three replicas per partition,
// so every partition has a store to move to.
func TestChaosMembership(t *testing.T) {
	cfg := chaosConfig{stores: 4, replicas: 3, parts: 4, keys: 8, clients: 4,
		faultTime: 5 * time.Second, quietTime: 500 * time.Millisecond, opTimeout: time.Second, raftTick: 25 * time.Millisecond,
		replicaWait: 20 * time.Second,
		kinds:       []faultKind{faultMove, faultTransfer, faultMove, faultPartition, faultCrash, faultIsolateLeader}}.withEnv(t)
	for _, seed := range seeds(t, 5, 2) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runChaos(t, seed, cfg, nil) })
	}
}

// TestChaos5 is the five-replica variant: minorities of two, and a quorum
// of three that survives two faulty stores.
func TestChaos5(t *testing.T) {
	if testing.Short() {
		t.Skip("five-store chaos runs without -short")
	}
	cfg := chaosConfig{stores: 5, replicas: 5, parts: 4, keys: 8, clients: 4,
		faultTime: 4 * time.Second, quietTime: 500 * time.Millisecond, opTimeout: time.Second, raftTick: 25 * time.Millisecond,
		replicaWait: 15 * time.Second}.withEnv(t)
	for _, seed := range seeds(t, 2, 0) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runChaos(t, seed, cfg, nil) })
	}
}

// runChaos is one seed: cluster, workload, nemesis, then the checks. A
// non-nil mutant deliberately breaks the system (mutants_test.go); the
// run then returns what the checks found instead of failing on it.
func runChaos(t *testing.T, seed int64, cfg chaosConfig, m *mutant) (problems []string) {
	if m == nil {
		t.Logf("seed %d (rerun: NOVAGRAPH_CHAOS_SEED=%d go test -run '%s' ./testkit/chaos)", seed, seed, t.Name())
		// All the checks run, and one failure reports everything they
		// found: a lost write and diverging replicas tell more together.
		defer func() {
			if len(problems) > 0 {
				t.Fatalf("seed %d: %s", seed, strings.Join(problems, "\n"))
			}
		}()
	}

	net := faultnet.New(seed, t.Logf)
	t.Cleanup(net.Close) // registered first, so it runs after the cluster stopped
	wrap := net.Wrap
	if m != nil && m.wrapTransport != nil {
		wrap = m.wrapTransport(net)
	}
	c := testcluster.Start(t, testcluster.Options{Stores: cfg.stores, RaftTick: cfg.raftTick, WrapTransport: wrap})
	ids := make([]uint64, cfg.stores)
	for i, s := range c.Stores {
		ids[i] = s.Server.StoreID()
	}
	regs := setupSpace(t, c, cfg)

	// Each workload client has a storage client of its own, as separate
	// graphd processes would, and two of them read with a routing table of
	// their own (stickyReader), so that during a failover some clients
	// reach the new leader while others still talk to the old one.
	stores := make([]store, cfg.clients)
	for i := range stores {
		stores[i] = newRegisters(t, c)
		if i < 2 { // clients 0 and 1 read through a routing table of their own
			sticky := newStickyReader(stores[i].(*registers))
			t.Cleanup(sticky.close)
			stores[i] = sticky
		}
		if m != nil && m.wrapStore != nil {
			stores[i] = m.wrapStore(t, stores[i])
		}
	}
	final := newRegisters(t, c) // the checker's own client: never mutated
	base := time.Now()
	steps := schedule(seed, cfg.faultTime, cfg.kinds)
	w := startWorkload(stores, seed, cfg.keys, cfg.opTimeout, base)
	defer w.finish()
	nem := startNemesis(t, c, net, ids, regs.space, cfg.parts, steps, base)
	defer nem.halt()

	<-nem.done
	if nem.err != nil {
		w.finish()
		t.Fatalf("seed %d: nemesis: %v", seed, nem.err)
	}
	t.Logf("raft terms after the faults (leader churn): %s", terms(c, regs.space, cfg.parts))
	time.Sleep(cfg.quietTime)
	history := w.finish()

	// Final reads, on the healed cluster, are part of the history: they
	// are what shows a lost acknowledged write.
	finalValues := map[int64]int64{}
	rec := register.NewRecorder(cfg.clients, base)
	for key := int64(1); key <= cfg.keys; key++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		call := rec.Now()
		v, err := final.get(ctx, key)
		cancel()
		if err != nil {
			t.Fatalf("seed %d: final read of key %d on the healed cluster: %v", seed, key, err)
		}
		rec.Read(key, v, call)
		finalValues[key] = v
	}
	history = append(history, rec.Ops()...)
	summarize(t, history, net.Stats(), len(steps))

	if err := checkLinearizable(t, history, 60*time.Second, m == nil); err != nil {
		problems = append(problems, err.Error())
	}
	problems = append(problems, register.NoLostWrites(history, finalValues)...)
	if m != nil && len(problems) > 0 {
		return problems // caught; no need to wait for the replicas too
	}
	if msg := waitReplicasEqual(t, c, ids, regs.space, cfg.replicaWait); msg != "" {
		problems = append(problems, msg)
	}
	return problems
}

// setupSpace creates the space and the tag through graphd and returns
// registers whose storage client's catalog already has them.
func setupSpace(t *testing.T, c *testcluster.Cluster, cfg chaosConfig) *registers {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sess := c.Session()
	defer sess.Close()
	for _, stmt := range []string{
		fmt.Sprintf("CREATE SPACE chaos(partition_num=%d, replica_factor=%d, vid_type=INT64)", cfg.parts, cfg.replicas),
		"USE chaos",
		"CREATE TAG reg(v int)",
	} {
		if _, err := sess.Execute(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	regs := newRegisters(t, c)
	// Every partition answers before the clock starts, so the faults, not
	// the first elections, decide what the history looks like.
	for key := int64(1); key <= cfg.keys; key++ {
		if _, err := regs.get(ctx, key); err != nil {
			t.Fatalf("warm-up read of key %d: %v", key, err)
		}
	}
	return regs
}

// newRegisters returns registers on a storage client (and catalog cache)
// of their own, closed when the test ends. It waits until the catalog
// shows the space and tag, which setupSpace created.
func newRegisters(t *testing.T, c *testcluster.Cluster) *registers {
	t.Helper()
	level := slog.LevelError
	if os.Getenv("NOVAGRAPH_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("component", "chaos-client")
	meta := metaclient.New([]string{c.MetaAddr()}, log)
	t.Cleanup(meta.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		snap := meta.Catalog()
		if space, ok := snap.SpaceByName("chaos"); ok {
			if tag, ok := snap.TagByName(space.GetSpaceId(), "reg"); ok {
				regs := &registers{meta: meta, log: log, sc: storageclient.New(meta, log),
					space: space.GetSpaceId(), parts: space.GetPartitionNum(), tag: tag.GetTagId(),
					schema: schema.NewVersions(tag.GetVersions()).Latest(), catVersion: snap.Version()}
				t.Cleanup(func() { regs.sc.Close() }) // the client of the moment (reconnect replaces it)
				return regs
			}
		}
		if err := meta.WaitVersion(ctx, snap.Version()+1); err != nil {
			t.Fatalf("the catalog never showed space chaos and tag reg: %v", err)
		}
	}
}

// waitReplicasEqual polls the checksums of every replica of every
// partition until they agree (replicas apply asynchronously) and returns
// a description of the disagreement if they still differ at the deadline.
func waitReplicasEqual(t *testing.T, c *testcluster.Cluster, ids []uint64, space int32, timeout time.Duration) string {
	t.Helper()
	slotOf := map[uint64]int{}
	for i, id := range ids {
		slotOf[id] = i
	}
	meta := metaclient.New([]string{c.MetaAddr()}, slog.New(slog.DiscardHandler))
	defer meta.Close()
	deadline := time.Now().Add(timeout)
	start := time.Now()
	var last []string
	for {
		last = last[:0]
		parts := meta.Catalog().Parts(space)
		if len(parts) == 0 {
			last = append(last, "the catalog lists no partitions yet")
		}
		for part, replicas := range parts {
			sums := map[uint64]string{}
			distinct := map[string]bool{}
			for _, id := range replicas {
				slot, ok := slotOf[id]
				if !ok {
					sums[id] = "unknown store"
					distinct[sums[id]] = true
					continue
				}
				srv := c.Stores[slot].Server
				sum, err := srv.PartChecksum(space, part)
				if err != nil {
					sums[id] = err.Error()
				} else {
					sums[id] = fmt.Sprintf("%016x", sum)
				}
				distinct[sums[id]] = true
			}
			if len(distinct) != 1 {
				last = append(last, fmt.Sprintf("partition %d: %v", part, sums))
			}
		}
		if len(last) == 0 {
			t.Logf("replicas agree after %v", time.Since(start).Round(time.Millisecond))
			return ""
		}
		if time.Now().After(deadline) {
			sort.Strings(last)
			return fmt.Sprintf("replicas still differ %v after healing: %s", timeout, strings.Join(last, "; "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// terms reports, per partition, the highest term any replica knows and
// its leader: terms above 2 show that the faults forced elections.
func terms(c *testcluster.Cluster, space, parts int32) string {
	var out []string
	for part := int32(1); part <= parts; part++ {
		var leader, term uint64
		for _, s := range c.Stores {
			if l, tm, ok := s.Server.Engine().Leader(raftgroup.GroupID{Space: space, Part: part}); ok && tm >= term {
				leader, term = l, tm
			}
		}
		out = append(out, fmt.Sprintf("p%d: term %d leader %d", part, term, leader))
	}
	return strings.Join(out, ", ")
}

// summarize logs what the run did, so a passing run shows it tested
// something and a failing one has context.
func summarize(t *testing.T, history []porcupine.Operation, st faultnet.Stats, steps int) {
	t.Helper()
	n := register.Count(history)
	acked, unknown, reads := n.Writes-n.AmbiguousWrites, n.AmbiguousWrites, n.Reads
	t.Logf("history: %d ops (%d acknowledged writes, %d ambiguous writes, %d reads); %d nemesis steps; network: %+v",
		len(history), acked, unknown, reads, steps, st)
	if acked == 0 || reads == 0 {
		t.Fatalf("the workload made no progress (%d acknowledged writes, %d reads): the run tested nothing", acked, reads)
	}
}

// mutant breaks the system on purpose, to show that the checks catch it.
type mutant struct {
	name          string
	kinds         []faultKind // restricts the nemesis to the faults that expose the bug
	wrapStore     func(t *testing.T, s store) store
	wrapTransport func(net *faultnet.Network) func(storeID uint64, inner raftgroup.Transport) raftgroup.Transport
}
