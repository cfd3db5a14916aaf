#!/bin/bash
# Issue 23: SF100 rf 3 read test with one storaged killed (SIGKILL) and restarted: GO 1 and FETCH at c=8 in 5 s
# periods (a concurrency sweep of one value repeated: each period reports its own QPS, errors and p99).
set -u
cd "$(dirname "$0")/../.."
[ -f /tmp/scale/sf100/.generated ] || { bin/nova-bench gen --sf 100 --out /tmp/scale/sf100 >/dev/null && touch /tmp/scale/sf100/.generated; }
rm -rf data/fo; STORAGED=3 METAD=3 DATA=data/fo scripts/cluster.sh up >/dev/null 2>&1 || { echo "cluster up failed"; exit 1; }
/usr/bin/time -f "import %e s, peak RSS %M kB" bin/nova-importer --ldbc /tmp/scale/sf100 --space fo --partitions 100 --replicas 3 --mode sst --no-progress --failed-dir /tmp/fo-failed 2>&1 | tail -3
bin/nova-bench run --space fo --data /tmp/scale/sf100 --scenarios go1 --concurrency 8 --duration 40s --warmup 0s --out /tmp/fo-warm >/dev/null 2>&1
for sc in go1 fetch_vertex; do
  periods=$(printf '8,%.0s' $(seq 1 24)); periods=${periods%,}
  bin/nova-bench run --space fo --data /tmp/scale/sf100 --scenarios $sc --concurrency $periods --duration 5s --warmup 0s --timeout 10s --out /tmp/fo-$sc > /tmp/fo-$sc.log 2>&1 &
  bench=$!
  # The data load takes ~15 s; the periods start when "conc" lines appear.
  until grep -q "conc" /tmp/fo-$sc.log 2>/dev/null; do sleep 0.5; done
  sleep 25
  pid=$(cat data/fo/pids/storaged2.pid); kill -9 $pid; echo "$sc: killed storaged2 (pid $pid) at $(date -u +%H:%M:%S.%N | cut -c1-12)"
  sleep 30
  STORAGED=3 METAD=3 DATA=data/fo scripts/cluster.sh up >/dev/null 2>&1; echo "$sc: storaged2 restarted and online at $(date -u +%H:%M:%S.%N | cut -c1-12)"
  wait $bench
  grep -E "conc" /tmp/fo-$sc.log
  grep -A3 "errors (" /tmp/fo-$sc/report.md 2>/dev/null | head -20
done
STORAGED=3 METAD=3 DATA=data/fo scripts/cluster.sh down >/dev/null 2>&1
echo FO-DONE
