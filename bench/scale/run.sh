#!/usr/bin/env bash
# make bench-sf100 / bench-sf1000 (issue 23): one LDBC scale run end to
# end on this machine, every step timed and every daemon's memory recorded:
#
#   generate (bin/nova-bench gen, skipped if the files are there)
#   → a fresh local cluster (scripts/cluster.sh: SCALE_METAD metad,
#     SCALE_STORAGED storaged, one graphd)
#   → import (bin/nova-importer --ldbc, SCALE_MODE sst or online,
#     SCALE_PARTS partitions, SCALE_REPLICAS replicas), peak RSS by
#     /usr/bin/time -v
#   → verify (bin/nova-bench verify on a sample of persons)
#   → load test (bin/nova-bench run, metering every daemon: --metrics)
#   → a report folder with the logs, report.md/json and a summary.md
#
# It stops its cluster whatever happens. Variables (defaults for SF100):
#   SCALE_SF         100            LDBC scale factor for nova-bench gen
#   SCALE_WORK       /tmp/scale     where generated data and import temp files go
#   SCALE_CLUSTER    data/scale     the cluster's data folder (emptied first)
#   SCALE_OUT        bench/scale/results/sf$SF-<date>
#   SCALE_STORAGED   1, SCALE_METAD 1, SCALE_REPLICAS 1, SCALE_PARTS 100
#   SCALE_MODE       sst            import mode: sst or online
#   SCALE_VERIFY     500            persons nova-bench verify samples
#   SCALE_COUNTS     true           verify also counts every vertex and edge
#                                   through graphd (SF100: 3 minutes; SF1000:
#                                   about ten times that)
#   SCALE_WARMUP     60s            GO 1 at c=8 before the load test, then a
#                                   wait (up to 5 minutes) until no storaged's
#                                   adjacency cache grows for 10 s: the load
#                                   test measures a warm cache
#   SCALE_SCENARIOS  go1,go2,go3,go1_date,go2_props,fetch_vertex,insert_edge
#   SCALE_CONC       1,8,32,64
#   SCALE_DURATION   20s per scenario and concurrency
#   STORAGED_FLAGS   extra storaged flags (scripts/cluster.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."

SF=${SCALE_SF:-100}
WORK=${SCALE_WORK:-/tmp/scale}
CLUSTER=${SCALE_CLUSTER:-data/scale}
OUT=${SCALE_OUT:-bench/scale/results/sf$SF-$(date -u +%Y%m%d-%H%M%S)}
STORAGED=${SCALE_STORAGED:-1}
METAD=${SCALE_METAD:-1}
REPLICAS=${SCALE_REPLICAS:-1}
PARTS=${SCALE_PARTS:-100}
MODE=${SCALE_MODE:-sst}
VERIFY=${SCALE_VERIFY:-500}
COUNTS=${SCALE_COUNTS:-true}
WARMUP=${SCALE_WARMUP:-60s}
SCENARIOS=${SCALE_SCENARIOS:-go1,go2,go3,go1_date,go2_props,fetch_vertex,insert_edge}
CONC=${SCALE_CONC:-1,8,32,64}
DURATION=${SCALE_DURATION:-20s}
SPACE=sf${SF}_rf${REPLICAS}

ports="9669"
for i in $(seq 1 "$METAD"); do ports="$ports $((9559 + (i - 1) * 10)) $((2379 + (i - 1) * 10))"; done
for i in $(seq 1 "$STORAGED"); do ports="$ports $((9779 + (i - 1) * 10))"; done
for port in $ports; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		echo "port $port is in use: another local cluster is running (make cluster-down in its worktree)" >&2
		exit 1
	fi
done
if [ ! -x /usr/bin/time ]; then
	echo "/usr/bin/time is missing (Debian package: time): it measures the importer's peak RSS" >&2
	exit 1
fi

mkdir -p "$OUT" "$WORK"
summary="$OUT/summary.md"
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$OUT/steps.log"; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

data="$WORK/sf$SF"
# .generated is written only once gen succeeded: an interrupted generation
# is done again.
if [ ! -f "$data/.generated" ]; then
	step "generating LDBC SF$SF into $data"
	rm -rf "$data"
	t0=$(date +%s.%N)
	bin/nova-bench gen --sf "$SF" --out "$data" | tee "$OUT/gen.log"
	touch "$data/.generated"
	gen_s=$(seconds "$t0" "$(date +%s.%N)")
else
	gen_s="(files existed)"
fi

rm -rf "$CLUSTER"
step "cluster: $METAD metad, $STORAGED storaged, 1 graphd in $CLUSTER"
# The trap comes first: an `up` that fails its readiness wait leaves
# daemons running.
trap 'DATA=$CLUSTER scripts/cluster.sh down' EXIT
STORAGED=$STORAGED METAD=$METAD DATA=$CLUSTER scripts/cluster.sh up

metrics=graphd=127.0.0.1:19669
for i in $(seq 1 "$STORAGED"); do
	metrics="$metrics,storaged$i=127.0.0.1:$((19779 + (i - 1) * 10))"
done
metas=""
if [ "$METAD" -eq 1 ]; then metas=metad=127.0.0.1:19559; else
	for i in $(seq 1 "$METAD"); do metas="$metas${metas:+,}metad$i=127.0.0.1:$((19559 + (i - 1) * 10))"; done
fi

# peak_rss prints each daemon's VmHWM (peak RSS since start) in MB.
peak_rss() {
	for f in "$CLUSTER"/pids/*.pid; do
		local pid name
		pid=$(cat "$f"); name=$(basename "$f" .pid)
		awk -v n="$name" '/VmHWM/ { printf "| %s | %.0f |\n", n, $2 / 1024 }' "/proc/$pid/status" 2>/dev/null || true
	done
}

step "import: $MODE, $PARTS partitions, $REPLICAS replicas"
mkdir -p "$WORK/import-$SPACE"
t0=$(date +%s.%N)
/usr/bin/time -v bin/nova-importer --ldbc "$data" --space "$SPACE" --partitions "$PARTS" --replicas "$REPLICAS" \
	--mode "$MODE" --no-progress --failed-dir "$WORK/import-$SPACE/failed" >"$OUT/import.log" 2>&1 || {
	tail -20 "$OUT/import.log" >&2
	exit 1
}
import_s=$(seconds "$t0" "$(date +%s.%N)")
importer_rss=$(awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$OUT/import.log")
head -3 "$OUT/import.log"
peak_rss >"$OUT/rss-after-import.md"
disk=$(du -sb "$CLUSTER"/storage* | awk '{ s += $1 } END { printf "%.2f", s / 1e9 }')
# space_bytes sums every storaged's SST bytes of the space
# (novagraph_storaged_space_bytes: all replicas, RocksDB's estimate).
space_bytes() {
	local total=0 i b
	for i in $(seq 1 "$STORAGED"); do
		b=$(curl -s "http://127.0.0.1:$((19779 + (i - 1) * 10))/metrics" |
			awk -v s="$SPACE" '$1 == "novagraph_storaged_space_bytes{space=\""s"\"}" { printf "%.0f", $2 }')
		total=$((total + ${b:-0}))
	done
	echo "$total"
}
space=$(space_bytes)
edges=$(sed -n 's/.* edges \([0-9]*\) .*/\1/p' "$OUT/import.log" | head -1)

step "verify: $VERIFY persons"
/usr/bin/time -v bin/nova-bench verify --addr 127.0.0.1:9669 --space "$SPACE" --data "$data" --sample "$VERIFY" \
	--counts="$COUNTS" 2>&1 | tee "$OUT/verify.log"
verify_rss=$(awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$OUT/verify.log")

# adjacency_bytes sums every storaged's adjacency cache.
adjacency_bytes() {
	local total=0 i b
	for i in $(seq 1 "$STORAGED"); do
		b=$(curl -s "http://127.0.0.1:$((19779 + (i - 1) * 10))/metrics" |
			awk '/^novagraph_storaged_adjacency_bytes / { printf "%.0f", $2 }')
		total=$((total + ${b:-0}))
	done
	echo "$total"
}
step "warm-up: go1 at c=8 for $WARMUP, then until the adjacency caches stop growing"
bin/nova-bench run --addr 127.0.0.1:9669 --space "$SPACE" --data "$data" --scenarios go1 \
	--concurrency 8 --duration "$WARMUP" --warmup 0s --out "$OUT/warmup" >"$OUT/warmup.log" 2>&1
prev=-1
for _ in $(seq 1 30); do
	cur=$(adjacency_bytes)
	[ "$cur" = "$prev" ] && break
	prev=$cur
	sleep 10
done
echo "adjacency caches hold $(adjacency_bytes) bytes" | tee -a "$OUT/steps.log"

step "load test: $SCENARIOS at $CONC, $DURATION each"
/usr/bin/time -v bin/nova-bench run --addr 127.0.0.1:9669 --space "$SPACE" --data "$data" --scenarios "$SCENARIOS" \
	--concurrency "$CONC" --duration "$DURATION" --metrics "$metrics,$metas" --out "$OUT" 2>&1 | tee "$OUT/run.log"
driver_rss=$(awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$OUT/run.log")
peak_rss >"$OUT/rss-after-run.md"

{
	echo "# LDBC SF$SF: $STORAGED storaged, rf $REPLICAS, $PARTS partitions, $MODE import"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(git rev-parse --short HEAD), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo
	echo "| step | figure |"
	echo "|---|---|"
	echo "| generate | $gen_s s |"
	echo "| import | $import_s s: $(head -1 "$OUT/import.log") |"
	echo "| importer peak RSS | $importer_rss MiB |"
	echo "| data on disk, all replicas | $disk GB (du of the data paths) |"
	echo "| space $SPACE in SST files | $(awk -v b="$space" -v r="$REPLICAS" -v e="${edges:-0}" 'BEGIN { printf "%.2f GB, %.2f GB per replica, %.1f bytes per directed edge and replica", b / 1e9, b / r / 1e9, (e > 0 ? b / r / e : 0) }') |"
	echo "| verify | $(grep '^verify ' "$OUT/verify.log" | tail -1) |"
	echo "| verify peak RSS | $verify_rss MiB |"
	echo "| load driver (nova-bench run) peak RSS | $driver_rss MiB |"
	echo "| adjacency caches after warm-up | $(awk '/adjacency caches hold/ { printf "%.2f GB", $4 / 1e9 }' "$OUT/steps.log") |"
	echo
	echo "Peak RSS per daemon (VmHWM, MiB) after the import, then after the load test:"
	echo
	echo "| daemon | after import |"
	echo "|---|---:|"
	cat "$OUT/rss-after-import.md"
	echo
	echo "| daemon | after load test |"
	echo "|---|---:|"
	cat "$OUT/rss-after-run.md"
	echo
	echo "Load test: report.md (QPS, latency, each daemon's CPU and peak RSS per scenario)."
} >"$summary"
cat "$summary"
