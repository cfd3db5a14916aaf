#!/usr/bin/env bash
# Local cluster on 127.0.0.1: $METAD metad (default 1; 3 for metad HA, one
# embedded etcd member each, joined by --meta-peers), $STORAGED storaged
# (default 1), one graphd, with data and logs under ./data. `up` returns
# once graphd answers and every storaged is online; `down` stops exactly
# the processes `up` started (by the pid files it wrote). The storaged share
# the adjacency cache one storaged would take (a quarter of the memory).
# STORAGED_FLAGS is added to every storaged's command line (e.g.
# "--rocksdb-write-buffer-mb 16"). TLS=1 runs every daemon with the
# certificates in $TLS_DIR (default certs/, made by nova-certs if missing):
# mutual TLS between them, TLS to graphd, gossip encrypted with the
# cluster's key ($TLS_DIR/gossip.key) (docs/security.md); connect with
# bin/nova-console -ca certs/ca.crt.
set -euo pipefail
cd "$(dirname "$0")/.."

STORAGED=${STORAGED:-1}
METAD=${METAD:-1}
DATA=${DATA:-data}
PIDS="$DATA/pids"
LOGS="$DATA/logs"
PASSWORD=${PASSWORD:-nova}
TLS=${TLS:-0}
TLS_DIR=${TLS_DIR:-certs}
# On loopback the debug pages (/debug/pprof/, /parts?checksum=1) are on:
# docs/benchmarks.md profiles the daemons of this cluster.
TLS_FLAGS="--enable-debug-pages"
CONSOLE_TLS=""
if [ "$TLS" = 1 ]; then
	TLS_FLAGS="$TLS_FLAGS --tls-dir $TLS_DIR --gossip-key-file $TLS_DIR/gossip.key"
	CONSOLE_TLS="-ca $TLS_DIR/ca.crt"
fi

start() { # name, command...
	local name=$1; shift
	if [ -f "$PIDS/$name.pid" ] && kill -0 "$(cat "$PIDS/$name.pid")" 2>/dev/null; then
		echo "$name already running (pid $(cat "$PIDS/$name.pid"))"
		return
	fi
	"$@" >"$LOGS/$name.log" 2>&1 &
	echo $! >"$PIDS/$name.pid"
	echo "started $name (pid $!), log $LOGS/$name.log"
}

up() {
	mkdir -p "$PIDS" "$LOGS"
	if [ "$TLS" = 1 ] && { [ ! -f "$TLS_DIR/ca.crt" ] || [ ! -f "$TLS_DIR/gossip.key" ]; }; then
		bin/nova-certs -dir "$TLS_DIR"
	fi
	local metas="127.0.0.1:9559"
	if [ "$METAD" -eq 1 ]; then
		start metad env NOVA_ROOT_PASSWORD="$PASSWORD" bin/metad --addr 127.0.0.1:9559 --http-addr 127.0.0.1:19559 --data-path "$DATA/meta" \
			--etcd-client-addr 127.0.0.1:2379 --etcd-peer-addr 127.0.0.1:2380 \
			--gossip-addr 127.0.0.1:9561 --gossip-seeds 127.0.0.1:9671 $TLS_FLAGS
	else
		# metad i listens on 9559+10(i-1), its etcd on 2379+10(i-1) (client)
		# and 2380+10(i-1) (peer); every metad gets the same --meta-peers.
		local peers="" i
		metas=""
		for i in $(seq 1 "$METAD"); do
			local off=$(( (i - 1) * 10 ))
			peers="$peers${peers:+,}127.0.0.1:$((2380 + off))"
			metas="$metas${metas:+,}127.0.0.1:$((9559 + off))"
		done
		for i in $(seq 1 "$METAD"); do
			local off=$(( (i - 1) * 10 ))
			start "metad$i" env NOVA_ROOT_PASSWORD="$PASSWORD" bin/metad --addr "127.0.0.1:$((9559 + off))" --http-addr "127.0.0.1:$((19559 + off))" \
				--data-path "$DATA/meta$i" --etcd-client-addr "127.0.0.1:$((2379 + off))" \
				--etcd-peer-addr "127.0.0.1:$((2380 + off))" --meta-peers "$peers" \
				--gossip-addr "127.0.0.1:$((9561 + off))" --gossip-seeds 127.0.0.1:9671 $TLS_FLAGS
		done
	fi
	# Gossip (memberlist): every daemon joins graphd's gossip port.
	local seeds=127.0.0.1:9671
	# storaged's adjacency cache defaults to a quarter of the host's memory;
	# storaged on one host share that quarter (STORAGED_FLAGS may override).
	# The memory is the machine's, or this cgroup's limit if it has one.
	local adjacency mem limit
	mem=$(awk '/MemTotal/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
	limit=$(cat /sys/fs/cgroup/memory.max 2>/dev/null || echo max)
	if [ "$limit" != max ] && [ "$limit" -lt "$mem" ]; then mem=$limit; fi
	adjacency="$(awk -v m="$mem" -v n="$STORAGED" 'BEGIN { printf "%dMiB", m / 1048576 / 4 / n }')"
	for i in $(seq 1 "$STORAGED"); do
		local off=$(( (i - 1) * 10 ))
		start "storaged$i" bin/storaged --addr "127.0.0.1:$((9779 + off))" --http-addr "127.0.0.1:$((19779 + off))" \
			--data-path "$DATA/storage$i" --meta-addrs "$metas" \
			--gossip-addr "127.0.0.1:$((9781 + off))" --gossip-seeds "$seeds" --adjacency-cache-size "$adjacency" $TLS_FLAGS ${STORAGED_FLAGS:-}
	done
	start graphd bin/graphd --addr 127.0.0.1:9669 --http-addr 127.0.0.1:19669 --web-addr 127.0.0.1:7001 --nebula-addr 127.0.0.1:9679 --meta-addrs "$metas" \
		--gossip-addr "$seeds" --gossip-seeds "127.0.0.1:9781" $TLS_FLAGS

	# Ready when graphd answers and all storaged hosts are online.
	for _ in $(seq 1 120); do
		if out=$(bin/nova-console -addr 127.0.0.1 -port 9669 -u root -p "$PASSWORD" $CONSOLE_TLS --format csv -e "SHOW HOSTS" 2>/dev/null); then
			online=$(grep -c 'ONLINE' <<<"$out" || true)
			if [ "$online" -ge "$STORAGED" ]; then
				local scheme=http
				[ "$TLS" != 1 ] || scheme=https
				echo "cluster is up: graphd 127.0.0.1:9669, $online storaged online; studio: $scheme://127.0.0.1:7001/ (docs/studio.md), HTTP/JSON API: $scheme://127.0.0.1:7001/api/v1 (docs/http-api.md); NebulaGraph clients (nebula-go, nebula-console, ...): 127.0.0.1:9679 (docs/nebula-clients.md)"
				return 0
			fi
		fi
		for pidfile in "$PIDS"/*.pid; do
			if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
				name=$(basename "$pidfile" .pid)
				echo "$name exited; last lines of $LOGS/$name.log:" >&2
				tail -20 "$LOGS/$name.log" >&2
				exit 1
			fi
		done
		sleep 0.5
	done
	echo "cluster did not become ready within 60s; see $LOGS/" >&2
	exit 1
}

down() {
	[ -d "$PIDS" ] || { echo "no cluster pid files under $PIDS"; return 0; }
	# graphd first, metad last, so nothing logs a flood of errors on the way down.
	for name in graphd $(cd "$PIDS" && ls storaged*.pid 2>/dev/null | sed 's/\.pid$//') \
		$(cd "$PIDS" && ls metad*.pid 2>/dev/null | sed 's/\.pid$//'); do
		pidfile="$PIDS/$name.pid"
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid"
			for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
			if kill -0 "$pid" 2>/dev/null; then
				echo "$name (pid $pid) ignored SIGTERM for 10s; killing" >&2
				kill -KILL "$pid"
			fi
			echo "stopped $name (pid $pid)"
		fi
		rm -f "$pidfile"
	done
}

case "${1:-}" in
up) up ;;
down) down ;;
*) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
