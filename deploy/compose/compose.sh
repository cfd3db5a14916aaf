#!/usr/bin/env bash
# The five-host compose cluster (docker-compose.yml next to this script).
#
#   compose.sh up       start it; return once both graphd answer and all five
#                       storaged are ONLINE (exit 1 with `ps` and logs if not
#                       within $NOVA_UP_TIMEOUT seconds, default 180)
#   compose.sh down     stop and remove the containers and the network;
#                       VOLUMES=1 also removes the data volumes
#   compose.sh console  nova-console on graph1 (extra arguments go to it)
#   compose.sh rolling-restart
#                       restart one daemon at a time (metad, storaged, graphd),
#                       each once the previous one is healthy again
#   compose.sh ps|logs  docker-compose ps / logs
#
# Environment: NOVA_IMAGE (novagraph:dev), NOVA_GRAPHD_PORT1/2 (9669/9670,
# published on 127.0.0.1), NOVA_ROOT_PASSWORD (nova, used on the first start
# only), NOVA_COMPOSE_PROJECT (novagraph), NOVA_SUBNET (172.29.89: the
# private network's /24), NOVA_COMPOSE_OVERLAY (extra compose files,
# space-separated, relative to this directory; the chaos runner uses
# docker-compose.chaos.yml).
set -euo pipefail
cd "$(dirname "$0")"

export NOVA_IMAGE=${NOVA_IMAGE:-novagraph:dev}
export NOVA_GRAPHD_PORT1=${NOVA_GRAPHD_PORT1:-9669}
export NOVA_GRAPHD_PORT2=${NOVA_GRAPHD_PORT2:-9670}
export NOVA_ROOT_PASSWORD=${NOVA_ROOT_PASSWORD:-nova}
PROJECT=${NOVA_COMPOSE_PROJECT:-novagraph}
TIMEOUT=${NOVA_UP_TIMEOUT:-180}
STORAGED=5

export NOVA_SUBNET=${NOVA_SUBNET:-172.29.89}
FILES=(-f docker-compose.yml)
for f in ${NOVA_COMPOSE_OVERLAY:-}; do FILES+=(-f "$f"); done

# docker-compose (v1), or the compose plugin of current Docker packages.
if command -v docker-compose >/dev/null 2>&1; then
	COMPOSE=(docker-compose)
else
	COMPOSE=(docker compose)
fi
dc() { "${COMPOSE[@]}" -p "$PROJECT" "${FILES[@]}" "$@"; }

need() {
	command -v docker >/dev/null 2>&1 || { echo "docker is not installed (or not on PATH)" >&2; exit 1; }
	"${COMPOSE[@]}" version >/dev/null 2>&1 || { echo "neither docker-compose (v1.27 or newer) nor the docker compose plugin is installed" >&2; exit 1; }
}

# console SERVICE ARGS...: nova-console inside SERVICE's container, against
# its own graphd.
console_in() {
	local svc=$1; shift
	dc exec -T "$svc" /bin/nova-console -addr 127.0.0.1 -port 9669 -u root -p "$NOVA_ROOT_PASSWORD" --history-file "" "$@"
}

fail() {
	echo "compose cluster is not ready: $*" >&2
	echo "--- docker-compose ps" >&2
	dc ps >&2 || true
	echo "--- last log lines of each daemon" >&2
	dc logs --no-color --tail 15 >&2 || true
	exit 1
}

up() {
	need
	docker image inspect "$NOVA_IMAGE" >/dev/null 2>&1 || { echo "image $NOVA_IMAGE not found: run make image" >&2; exit 1; }
	dc up -d --remove-orphans
	local deadline=$((SECONDS + TIMEOUT)) online=0 out
	while [ $SECONDS -lt $deadline ]; do
		if out=$(console_in graph1 --format csv -e "SHOW HOSTS" 2>/dev/null); then
			online=$(grep -c ',ONLINE,' <<<"$out" || true)
			if [ "$online" -ge "$STORAGED" ] && console_in graph2 -e "SHOW HOSTS" >/dev/null 2>&1 &&
				port_open "$NOVA_GRAPHD_PORT1" && port_open "$NOVA_GRAPHD_PORT2"; then
				echo "compose cluster is up: graphd on 127.0.0.1:$NOVA_GRAPHD_PORT1 and 127.0.0.1:$NOVA_GRAPHD_PORT2, $online storaged online"
				return 0
			fi
		fi
		# A daemon that keeps exiting will not come up by waiting.
		local exited
		exited=$(dc ps --services --filter status=exited 2>/dev/null || true)
		[ -z "$exited" ] || fail "exited: $exited"
		sleep 2
	done
	fail "after ${TIMEOUT}s: $online of $STORAGED storaged ONLINE"
}

# wait_healthy SERVICE: until docker's health check of SERVICE passes again.
wait_healthy() {
	local id deadline=$((SECONDS + TIMEOUT))
	id=$(dc ps -q "$1")
	while [ $SECONDS -lt $deadline ]; do
		[ "$(docker inspect -f '{{.State.Health.Status}}' "$id" 2>/dev/null)" = healthy ] && return 0
		sleep 1
	done
	fail "$1 not healthy ${TIMEOUT}s after its restart"
}

# wait_online: until graph1 sees all storaged ONLINE.
wait_online() {
	local deadline=$((SECONDS + TIMEOUT)) out
	while [ $SECONDS -lt $deadline ]; do
		out=$(console_in graph1 --format csv -e "SHOW HOSTS" 2>/dev/null) &&
			[ "$(grep -c ',ONLINE,' <<<"$out" || true)" -ge "$STORAGED" ] && return 0
		sleep 1
	done
	fail "not all storaged ONLINE within ${TIMEOUT}s"
}

rolling_restart() {
	need
	local svc
	for svc in meta1 meta2 meta3 storage1 storage2 storage3 storage4 storage5 graph1 graph2; do
		echo "restarting $svc"
		dc restart -t 30 "$svc" >/dev/null
		wait_healthy "$svc"
		case $svc in storage*) wait_online ;; esac
	done
	echo "rolling restart done"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

down() {
	need
	if [ "${VOLUMES:-0}" = 1 ]; then
		dc down --remove-orphans --volumes
	else
		dc down --remove-orphans
		echo "data volumes kept (${PROJECT}_meta1 ... ${PROJECT}_storage5); VOLUMES=1 removes them"
	fi
}

case "${1:-}" in
up) up ;;
down) down ;;
console)
	shift; need
	tty=(); [ -t 0 ] || tty=(-T)
	dc exec "${tty[@]}" graph1 /bin/nova-console -addr 127.0.0.1 -port 9669 -u root -p "$NOVA_ROOT_PASSWORD" --history-file "" "$@" ;;
rolling-restart) rolling_restart ;;
ps) need; dc ps ;;
logs) shift; need; dc logs "$@" ;;
*) echo "usage: $0 up|down|console|rolling-restart|ps|logs" >&2; exit 2 ;;
esac
