#!/bin/bash
# Samples each storaged of a scripts/cluster.sh cluster every INTERVAL seconds (default 10) into
# one line per store: time, store, RSS, raft log on disk, raft entry cache, entries applied, intents
# resolved and the partitions it leads whose last resolver pass left intents (in-edges pending). Used
# beside the long scale runs (failover.sh, scaleout.sh) to see where memory and the log go over
# time; stops when no storaged of the cluster is running (or on SIGTERM).
#   DATA=data/fo2 bash bench/scale/sampler.sh > /tmp/samples.tsv &
set -u
DATA=${DATA:-data/cluster}
INTERVAL=${INTERVAL:-10}
metric() { awk -v m="$1" '$1 == m { printf "%.0f", $2; found = 1 } END { if (!found) printf "-" }' <<<"$2"; }
printf "time\tstore\trss_mib\traft_log_mib\tentry_cache_mib\tapplied\tintents_resolved\tparts_pending_intents\n"
until [ -d "$DATA/pids" ]; do sleep 1; done
while :; do
  alive=0
  for f in "$DATA"/pids/storaged*.pid; do
    [ -f "$f" ] || continue
    kill -0 "$(cat "$f")" 2>/dev/null && alive=1
    n=$(basename "$f" .pid); i=${n#storaged}; port=$((19779 + 10 * (i - 1)))
    rss=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$(cat "$f")/status" 2>/dev/null || echo -)
    m=$(curl -s --max-time 2 "http://127.0.0.1:$port/metrics" || true)
    log=$(metric novagraph_storaged_raft_log_bytes "$m"); cache=$(metric novagraph_storaged_raft_entry_cache_bytes "$m")
    [ "$log" != - ] && log=$((log >> 20)); [ "$cache" != - ] && cache=$((cache >> 20))
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$(date -u +%T)" "$n" "${rss:--}" "$log" "$cache" "$(metric novagraph_storaged_raft_entries_applied_total "$m")" \
      "$(metric novagraph_storaged_intents_resolved_total "$m")" "$(metric novagraph_storaged_partitions_with_pending_intents "$m")"
  done
  [ "$alive" = 1 ] || break
  sleep "$INTERVAL"
done
