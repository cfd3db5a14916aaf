// Package compose is the chaos runner against the five-host compose
// cluster (deploy/compose): real daemons in containers, faults injected
// with docker, clients going through both graphd as users do. The
// in-process harness (testkit/chaos) covers the same invariants with a
// seeded fault network and many seeds; this one proves them on the
// deployment users run, with the faults they meet: processes killed with
// SIGKILL, frozen, cut off the network, a full disk.
//
// # Running
//
//	make chaos                          # 100 faults (FAULTS=N, SEED=S, KINDS=a,b)
//	make image && go test -tags compose -run TestComposeChaos -timeout 0 -v ./testkit/chaos/compose
//
// `make test` (and so CI) runs it with seven faults, one of each kind. The run uses its own
// compose project (novachaos), subnet (172.29.90.0/24) and graphd ports
// (127.0.0.1:9769/9770), so it does not disturb a `make compose-up`
// cluster, and deletes its volumes before and after (NOVAGRAPH_CHAOS_KEEP=1
// leaves the cluster up for a look). It needs docker, docker-compose and
// the image novagraph:dev; the test skips, saying why, without docker.
// The host must reach the containers' addresses on the bridge network
// (true for a local Docker engine on Linux): the runner reads each
// storaged's /parts page there.
//
// # Faults
//
// The nemesis draws its plan from the seed (nemesis.go): every kind once
// per round, in shuffled order, each held 2–6 s, then healed, then the
// runner waits until the cluster recovered before the next:
//
//   - kill-storaged, kill-leader (the storaged leading a random partition),
//     kill-metad: docker kill --signal KILL, later docker start;
//   - pause-storaged: docker pause / unpause;
//   - disconnect-minority (two storaged), disconnect-leader: docker network
//     disconnect / connect with the same address (the compose file fixes
//     every daemon's address: gossip will not take a known member back
//     from a new one);
//   - disk-full: storage5's data volume is a 512 MiB tmpfs (overlay
//     docker-compose.chaos.yml) that nova-diskfill fills to the last byte
//     from a sidecar container that also keeps the tmpfs mounted across
//     storage5's restarts. During the fault, a write to the partition only
//     storage5 holds (space chaos_rf1, one replica per partition) must fail
//     with E_DISK_FULL; after the heal it must succeed and read back.
//
// # Workload and checks
//
// Register clients read, write and compare-and-set (UPDATE ... WHEN)
// registers through graphd; the keys move on at every fault so that each
// key's history stays small for porcupine. An insert client adds vertices
// and edges with unique ids; a GO client checks, while the faults go on,
// that every edge acknowledged before a GO began is in its answer. At the
// end, on the healed cluster:
//
//   - the register history, with a final read of every key, is
//     linearizable (testkit/chaos/register), and no acknowledged write
//     was lost;
//   - every acknowledged vertex is readable with its value, every
//     acknowledged edge is returned by GO from its hub and, once edge
//     intents resolved, by GO ... REVERSELY from its other end;
//   - every replica of every partition holds the same data (storaged's
//     /parts?checksum=1, compared once the replicas applied the same
//     index);
//   - after every heal, every partition had an established leader (a
//     majority of its replicas following it) within three election
//     timeouts.
//
// The run writes report.json and report.md (faults with their failover
// and recovery times, operations, errors by kind with an example of each,
// problems) to the report directory, and the porcupine visualisation of a
// history that is not linearizable beside them.
package compose
