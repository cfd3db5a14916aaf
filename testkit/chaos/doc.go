// Package chaos holds novagraph's deterministic fault tests: an in-process
// cluster (testkit/testcluster) whose raft traffic goes through a seeded
// fault network (testkit/faultnet), a workload of concurrent clients doing
// register reads and writes through the storage client, and a seeded
// nemesis that drops, delays, duplicates, partitions a minority, isolates
// partition leaders, pauses stores, crashes and restarts them, transfers
// partition leadership and moves replicas between stores (add learner,
// catch up, promote, remove: TestChaosMembership, on four stores). The
// package has no code besides this documentation: everything is in _test.go
// files.
//
// # What is checked
//
// Each key (an INT64 vid) is a register: the property v of tag reg. Four
// clients read and write random keys, one operation at a time each, with
// their own storage clients; two of them read through a routing table of
// their own that keeps talking to the leader that last answered, as a
// graphd with a lagging catalog would, so that a deposed leader that still
// answers reads is noticed. Every operation is recorded with its call and
// return time. After the faults the network heals, the cluster runs quietly
// for a moment, the clients stop, and the test checks that
//
//   - the history is linearizable for a register per key
//     (github.com/anishathalye/porcupine). A write that returned an error
//     may or may not have happened: it is recorded with no return time, so
//     it may take effect at any point after its call, or never;
//   - no acknowledged write is lost: a final read of each key on the healed
//     cluster returns a value that no acknowledged write superseded;
//   - every replica of every partition holds the same data
//     (storaged.Server.PartChecksum), once replicas have caught up. Each
//     write also adds a write-once vertex, so a replica that applied an
//     entry wrongly stays different even after its register is overwritten.
//
// TestChecksCatchMutants is the harness's self-test: it runs the same
// checks against deliberately broken systems (a write acknowledged before
// it commits, a stale client cache, followers that answer heartbeats they
// never got, appends corrupted on their way to one follower) and fails if
// the checks do not notice.
//
// # Running
//
//	go test ./testkit/chaos                  # 20 seeds (3 stores), 2 (5 stores), the self-test
//	go test -short ./testkit/chaos           # 3 seeds, 3 stores
//	NOVAGRAPH_CHAOS_SEEDS=200 go test -timeout 0 -run TestChaos3 ./testkit/chaos   # seeds 1..200
//	NOVAGRAPH_CHAOS_SEED=17 go test -v -run TestChaos3 ./testkit/chaos            # seed 17 alone
//	NOVAGRAPH_CHAOS_FAULT_TIME=20s ...        # a longer fault phase per seed
//	NOVAGRAPH_CHAOS_MUTANT_SEEDS=5 ...        # seeds per mutant in the self-test (default 3)
//
// NOVAGRAPH_CHAOS_SEED runs exactly that seed (in TestChaos3 and TestChaos5);
// NOVAGRAPH_CHAOS_SEEDS=N runs seeds 1..N. NOVAGRAPH_TEST_LOG=1 turns on the
// daemons' debug logs. With -v every run logs its nemesis schedule, the
// network's counters, the raft terms the faults led to and the history's size.
//
// # Reproducing a failure
//
// A failure names its seed ("seed 17: ...") and, for a history that is not
// linearizable, the keys that fail, the path of porcupine's HTML
// visualisation and, beside it, key-N.txt: the failing key's operations in
// call order. The files go under the -artifacts directory when go test runs
// with -artifacts, else under os.TempDir().
//
// The seed fixes the nemesis schedule (which fault, when, for how long,
// which store, partition or minority), the fault network's random draws and
// each client's choice of keys, operations and deadlines. It cannot fix
// goroutine scheduling or raft's wall-clock timers, so a seed reproduces a
// run's faults but not its exact interleaving: a failure that depends on a
// narrow race may need -count=20 to show again, and the saved history is
// the evidence to read.
package chaos
