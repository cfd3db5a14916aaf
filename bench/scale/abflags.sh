#!/usr/bin/env bash
# A/B of two storaged flag sets on the same data: the cluster a
# `make bench-sf100` / `make bench-sf1000` run left in SCALE_CLUSTER (one
# storaged, space sf<SF>_rf1). Each side restarts the cluster with its flags,
# records storaged's RSS and RocksDB memory once the cluster is up, runs the
# scenarios, records them again and stops the cluster. Sides run A B B A
# per pair of rounds, so a drift of the machine (page cache filling, noisy
# neighbours) falls on both. Output: $OUT/summary.md (one row per side,
# round and scenario: QPS, p99, storaged CPU ms per query and peak RSS) and
# each run's report folder.
#
# Variables:
#   SCALE_SF       1000                 the scale factor of the run whose data is used
#   SCALE_WORK     /tmp/scale           where its generated data is
#   SCALE_CLUSTER  data/scale           its cluster folder
#   AB_A, AB_B     storaged flags of each side (added after cluster.sh's own)
#   AB_ROUNDS      2                    rounds per side
#   AB_SCENARIOS   go1,go2,fetch_vertex
#   AB_CONC        8
#   AB_DURATION    30s
#   AB_OUT         bench/scale/results/ab-sf<SF>-<date>
#
# Example (issue 23, partitioned index and filters against whole ones,
# RocksDB alone: no adjacency cache):
#   AB_A="--adjacency-cache-size 0 --rocksdb-partitioned-index-filter=true" \
#   AB_B="--adjacency-cache-size 0 --rocksdb-partitioned-index-filter=false" \
#   bash bench/scale/abflags.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

SF=${SCALE_SF:-1000}
WORK=${SCALE_WORK:-/tmp/scale}
CLUSTER=${SCALE_CLUSTER:-data/scale}
ROUNDS=${AB_ROUNDS:-2}
SCENARIOS=${AB_SCENARIOS:-go1,go2,fetch_vertex}
CONC=${AB_CONC:-8}
DURATION=${AB_DURATION:-30s}
OUT=${AB_OUT:-bench/scale/results/ab-sf$SF-$(date -u +%Y%m%d-%H%M%S)}
SPACE=sf${SF}_rf1
data="$WORK/sf$SF"
: "${AB_A:?AB_A: storaged flags of side A}" "${AB_B:?AB_B: storaged flags of side B}"

[ -f "$data/.generated" ] || { echo "no generated data in $data: run make bench-sf$SF first" >&2; exit 1; }
[ -d "$CLUSTER/storage1" ] || { echo "no cluster in $CLUSTER: run make bench-sf$SF first" >&2; exit 1; }
mkdir -p "$OUT"
trap 'DATA=$CLUSTER scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT

# memory prints storaged1's RSS and RocksDB memory in MiB.
memory() {
	local pid
	pid=$(cat "$CLUSTER/pids/storaged1.pid")
	awk '/VmRSS/ { printf "RSS %.0f", $2 / 1024 }' "/proc/$pid/status"
	curl -s http://127.0.0.1:19779/metrics | awk '/^novagraph_storaged_rocksdb_memory_bytes/ {
		split($1, a, "\""); printf ", %s %.0f", a[2], $2 / 1048576 }'
	echo
}

# one side round: run side (A or B) with its flags.
one() {
	local side=$1 round=$2 flags=$3 dir="$OUT/$1$2"
	STORAGED_FLAGS="$flags" DATA=$CLUSTER scripts/cluster.sh up >"$OUT/cluster-$side$round.log"
	echo "$side$round up: $(memory)" | tee -a "$OUT/memory.log"
	bin/nova-bench run --addr 127.0.0.1:9669 --space "$SPACE" --data "$data" --scenarios "$SCENARIOS" \
		--concurrency "$CONC" --duration "$DURATION" --metrics graphd=127.0.0.1:19669,storaged1=127.0.0.1:19779 \
		--out "$dir" >"$dir.log" 2>&1 || { tail -5 "$dir.log" >&2; exit 1; }
	echo "$side$round after: $(memory)" | tee -a "$OUT/memory.log"
	DATA=$CLUSTER scripts/cluster.sh down >/dev/null
	jq -r --arg side "$side" --arg round "$round" '.results[] | . as $r
		| ($r.resources[] | select(.daemon == "storaged1")) as $s
		| "| \($side) | \($round) | \($r.scenario) | \($r.qps | floor) | \($r.client.p99_us / 1000) | \($s.cpu_seconds * 1000 / ($r.count + 0.001) * 100 | floor / 100) | \($s.peak_rss_bytes / 1048576 | floor) |"' \
		"$dir/report.json" >>"$OUT/rows.md"
}

rm -f "$OUT/rows.md" "$OUT/memory.log"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then one A "$r" "$AB_A"; one B "$r" "$AB_B"
	else one B "$r" "$AB_B"; one A "$r" "$AB_A"; fi
done

{
	echo "# A/B of storaged flags on SF$SF ($SPACE), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(git rev-parse --short HEAD)"
	echo
	echo "- A: \`$AB_A\`"
	echo "- B: \`$AB_B\`"
	echo "- $SCENARIOS at c=$CONC, $DURATION each; sides in the order A B B A …"
	echo
	echo "| side | round | scenario | QPS | client p99 ms | storaged CPU ms/query | storaged peak RSS MiB |"
	echo "|---|---:|---|---:|---:|---:|---:|"
	sort -t'|' -k4,4 -k2,2 -k3,3n "$OUT/rows.md"
	echo
	echo "storaged memory (MiB) once up and after the scenarios:"
	echo
	sed 's/^/    /' "$OUT/memory.log"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
