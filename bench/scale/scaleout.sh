#!/usr/bin/env bash
# Issue 23: scale out under load. LDBC SF100 (SCALEOUT_SF) on three storaged,
# replica_factor 3, 100 partitions, 3 metad and a graphd; while GO 1 (c=8)
# and FETCH (c=4) run without a pause, the phases a NebulaGraph operator
# goes through when a cluster grows and an old host retires:
#
#   baseline        the load alone
#   add-hosts       storaged4 and storaged5 start and register
#   balance-data    SUBMIT JOB BALANCE DATA (replicas onto the new hosts)
#   balance-leader  SUBMIT JOB BALANCE LEADER
#   data-remove     SUBMIT JOB BALANCE DATA REMOVE storaged1
#   drop-host       storaged1 stops; DROP HOSTS
#   leader-again    SUBMIT JOB BALANCE LEADER (the removal moved leaders)
#   tail            the load alone on the four hosts left
#
# Each load runs as 5 s periods (one nova-bench run with a concurrency list
# of one value repeated); every period's line is stamped with the time it
# ended, and the summary gives per phase its periods' QPS, worst and
# median p99 and errors. The leaders per host come from SHOW HOSTS after
# each balance job. Output: $OUT/summary.md and the logs beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."

SF=${SCALEOUT_SF:-100}
WORK=${SCALE_WORK:-/tmp/scale}
CLUSTER=${SCALEOUT_CLUSTER:-data/scaleout}
OUT=${SCALEOUT_OUT:-bench/scale/results/scaleout-sf$SF-$(date -u +%Y%m%d-%H%M%S)}
PARTS=${SCALEOUT_PARTS:-100}
PERIOD=5s
SPACE=so$SF
PASSWORD=${PASSWORD:-nova}
data="$WORK/sf$SF"

# summarize writes $OUT/summary.md from the logs in $OUT: each load
# period belongs to the phase it ended in. `scaleout.sh --summary DIR`
# runs it alone on an earlier run's folder.
summarize() {
	{
		echo "# Scale out under load: LDBC SF$SF, rf 3, $PARTS partitions"
		echo
		echo "run ended $(date -u -d "@$(awk '$2 == "end" { printf "%d", $1 }' "$OUT/phases.log")" +%Y-%m-%dT%H:%M:%SZ), commit $(cat "$OUT/commit"), $(nproc) cores; $(head -1 "$OUT/import.log")"
		echo
		echo "Per phase (5 s periods; QPS the mean of the periods', p99 the periods' median and worst, client side):"
		echo
		echo "| load | phase | seconds | periods | QPS | p99 median ms | p99 worst ms | errors |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|"
		for sc in go1 fetch_vertex; do
			awk -v sc="$sc" '
				BEGIN { n = 0 }
				FNR == NR { t[n] = $1; name[n] = $2; n++; next }
				/ conc / && / qps/ {
					ts = $1; p = -1
					for (i = 0; i < n - 1; i++) if (ts >= t[i] && ts < t[i + 1]) p = i
					if (p < 0) next
					q = $5 + 0; p99 = ""
					for (i = 1; i <= NF; i++) if ($i == "p99" && p99 == "") p99 = $(i + 1) + 0
					e = 0; if (match($0, /, [0-9]+ errors/)) { e = substr($0, RSTART + 2, RLENGTH - 9) + 0 }
					cnt[p]++; qsum[p] += q; err[p] += e; v[p, cnt[p]] = p99
				}
				END {
					for (i = 0; i < n - 1; i++) {
						m = cnt[i]; if (m == 0) { printf "| %s | %s | %.0f | 0 | | | | |\n", sc, name[i], t[i + 1] - t[i]; continue }
						for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[i, b] < v[i, a]) { x = v[i, a]; v[i, a] = v[i, b]; v[i, b] = x }
						printf "| %s | %s | %.0f | %d | %.0f | %s | %s | %d |\n", sc, name[i], t[i + 1] - t[i], m, qsum[i] / m, v[i, int((m + 1) / 2)], v[i, m], err[i]
					}
				}' "$OUT/phases.log" "$OUT/load-$sc.log"
		done
		echo
		echo "Jobs and leaders (SHOW HOSTS after each job, in $OUT/hosts.log): the last one"
		echo
		echo '```'
		awk 'BEGIN { RS = ""; } { last = $0 } END { print last }' "$OUT/hosts.log"
		echo '```'
		echo
		# The goal: every online host's leader count within ±1 of the even share.
		awk 'BEGIN { RS = "" } { last = $0 } END { print last }' "$OUT/hosts.log" | awk -F, '
			NR > 1 && $3 ~ /ONLINE/ { n++; c[n] = $4 + 0; s += $4 }
			END {
				even = s / n; ok = "yes"
				for (i = 1; i <= n; i++) if (c[i] < even - 1 || c[i] > even + 1) ok = "no"
				printf "Leaders at the end: %d on %d hosts (even share %.1f); every host within ±1 of it: %s\n", s, n, even, ok
			}'
	} >"$OUT/summary.md"
}

if [ "${1:-}" = --summary ]; then
	OUT=${2:?--summary DIR}
	summarize
	cat "$OUT/summary.md"
	exit 0
fi

mkdir -p "$OUT" "$WORK"
rm -f "$OUT/phases.log" "$OUT/hosts.log" "$OUT/console.log"
git rev-parse --short HEAD >"$OUT/commit"
if [ ! -f "$data/.generated" ]; then
	rm -rf "$data"
	bin/nova-bench gen --sf "$SF" --out "$data" >"$OUT/gen.log"
	touch "$data/.generated"
fi

# Every storaged, the two added later included, gets a fifth of the
# quarter of memory scripts/cluster.sh gives the adjacency caches of one
# host, so the five together stay within it.
mem=$(awk '/MemTotal/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
export STORAGED_FLAGS="--adjacency-cache-size $(awk -v m="$mem" 'BEGIN { printf "%dMiB", m / 1048576 / 4 / 5 }')"
cluster() { STORAGED=$1 METAD=3 DATA=$CLUSTER scripts/cluster.sh up; }
# console runs statements; the console's per-statement notes on stderr go
# to $OUT/console.log.
console() { bin/nova-console -addr 127.0.0.1 -port 9669 -u root -p "$PASSWORD" --format csv -e "$1" 2>>"$OUT/console.log"; }

rm -rf "$CLUSTER"
trap 'STORAGED=5 METAD=3 DATA=$CLUSTER scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
cluster 3 >"$OUT/cluster.log"
bin/nova-importer --ldbc "$data" --space "$SPACE" --partitions "$PARTS" --replicas 3 --mode sst --no-progress \
	--failed-dir "$WORK/scaleout-failed" >"$OUT/import.log" 2>&1 || { tail -5 "$OUT/import.log" >&2; exit 1; }
head -1 "$OUT/import.log"
bin/nova-bench run --space "$SPACE" --data "$data" --scenarios go1 --concurrency 8 --duration 40s --warmup 0s \
	--out "$OUT/warmup" >"$OUT/warmup.log" 2>&1

# stamp prefixes each line with the Unix time it was read.
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }
# 720 periods of 5 s: an hour, far more than the phases take; the loads
# are interrupted once the last phase ends.
periods() { local c=$1; printf "$c%.0s," $(seq 1 720) | sed 's/,$//'; }
load_pids=()
for load in go1:8 fetch_vertex:4; do
	sc=${load%%:*} conc=${load##*:}
	bin/nova-bench run --space "$SPACE" --data "$data" --scenarios "$sc" --concurrency "$(periods "$conc")" \
		--duration "$PERIOD" --warmup 0s --timeout 10s --out "$OUT/load-$sc" 2>&1 | stamp >"$OUT/load-$sc.log" &
	load_pids+=($!)
done
# The loads read the data files first; the phases start with their first periods.
for sc in go1 fetch_vertex; do
	until grep -q " conc " "$OUT/load-$sc.log" 2>/dev/null; do sleep 0.5; done
done

phase() { printf '%s %s\n' "$(date +%s.%N)" "$1" >>"$OUT/phases.log"; echo "== $1 ($(date -u +%T))"; }
# job runs one SUBMIT JOB and waits until SHOW JOB says FINISHED; FAILED or
# STOPPED ends the run.
job() {
	local id status
	id=$(console "USE $SPACE; $1" | tail -1)
	[[ "$id" =~ ^[0-9]+$ ]] || { echo "$1: no job id: $id" >&2; tail -3 "$OUT/console.log" >&2; exit 1; }
	while :; do
		status=$(console "USE $SPACE; SHOW JOB $id" | awk -F, 'NR == 2 { print $5 }')
		case "$status" in
		FINISHED) break ;;
		FAILED | STOPPED) console "USE $SPACE; SHOW JOB $id" >&2; exit 1 ;;
		"") echo "SHOW JOB $id failed" >&2; tail -3 "$OUT/console.log" >&2; exit 1 ;;
		esac
		sleep 1
	done
	console "USE $SPACE; SHOW JOB $id" | awk -F, -v id="$id" 'NR == 2 { print "job " id ": " $2 " " $5 ", " $8 }'
}
hosts() { console "SHOW HOSTS" | tee -a "$OUT/hosts.log"; echo >>"$OUT/hosts.log"; }

phase baseline
sleep 30
phase add-hosts
cluster 5 >>"$OUT/cluster.log"
sleep 10
phase balance-data
job "SUBMIT JOB BALANCE DATA"
hosts
phase balance-leader
job "SUBMIT JOB BALANCE LEADER"
hosts
phase data-remove
job 'SUBMIT JOB BALANCE DATA REMOVE "127.0.0.1":9779'
hosts
phase drop-host
pid=$(cat "$CLUSTER/pids/storaged1.pid")
kill -TERM "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
rm -f "$CLUSTER/pids/storaged1.pid"
console 'DROP HOSTS "127.0.0.1":9779' >/dev/null
sleep 10
phase leader-again
job "SUBMIT JOB BALANCE LEADER"
hosts
phase tail
sleep 30
phase end
# nova-bench's pid is not $! (that is the pipeline's last command, stamp):
# interrupt each run by its --out folder.
for sc in go1 fetch_vertex; do pkill -INT -f -- "--out $OUT/load-$sc" || true; done
for p in "${load_pids[@]}"; do wait "$p" || true; done
hosts >/dev/null

summarize
cat "$OUT/summary.md"
