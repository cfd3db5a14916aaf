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
#   compose.sh metrics SERVICE
#                       SERVICE's /metrics (meta1..3, storage1..5, graph1..2),
#                       read inside its container
#   compose.sh backup NAME [nova-br flags]
#                       CREATE SNAPSHOT and copy it to $NOVA_BACKUPS/NAME with
#                       nova-br (from the image, on the cluster's network)
#   compose.sh restore NAME [nova-br flags]
#                       restore $NOVA_BACKUPS/NAME into this cluster (its spaces
#                       must not exist here; --space, --replica-factor)
#   compose.sh verify NAME
#                       check every file of $NOVA_BACKUPS/NAME against its manifest
#
# Environment: NOVA_IMAGE (novagraph:dev), NOVA_GRAPHD_PORT1/2 (9669/9670,
# published on 127.0.0.1), NOVA_NEBULA_PORT1/2 (9679/9680: NebulaGraph's
# protocol, for its clients), NOVA_SECRETS (deploy/compose/.secrets/<project>:
# root's password and the TLS certificates, made on the first `up`),
# NOVA_ROOT_PASSWORD (used on the first start only; default: a random one
# kept in $NOVA_SECRETS/root-password), NOVA_COMPOSE_PROJECT (novagraph),
# NOVA_SUBNET (172.29.89: the
# private network's /24), NOVA_COMPOSE_OVERLAY (extra compose files,
# space-separated, relative to this directory; the chaos runner uses
# docker-compose.chaos.yml), NOVA_MONITORING=1 (also Prometheus on
# 127.0.0.1:9090 and Grafana with the cluster dashboard on 127.0.0.1:3000:
# the compose profile "monitoring", deploy/grafana; images from Docker Hub),
# NOVA_BACKUPS (where backup and restore keep backups on this host;
# deploy/compose/backups/<project>).
set -euo pipefail
# Directories given relative are the caller's, not this script's.
for v in NOVA_SECRETS NOVA_BACKUPS; do
	if [ -n "${!v:-}" ] && [[ ${!v} != /* ]]; then
		export "$v=$PWD/${!v}"
	fi
done
cd "$(dirname "$0")"

export NOVA_IMAGE=${NOVA_IMAGE:-novagraph:dev}
export NOVA_GRAPHD_PORT1=${NOVA_GRAPHD_PORT1:-9669}
export NOVA_GRAPHD_PORT2=${NOVA_GRAPHD_PORT2:-9670}
export NOVA_NEBULA_PORT1=${NOVA_NEBULA_PORT1:-9679}
export NOVA_NEBULA_PORT2=${NOVA_NEBULA_PORT2:-9680}
PROJECT=${NOVA_COMPOSE_PROJECT:-novagraph}
# Compose names the network <project>_nova from the project's name as
# given only when it is already in compose's form.
[[ $PROJECT =~ ^[a-z0-9][a-z0-9_-]*$ ]] || { echo "NOVA_COMPOSE_PROJECT=$PROJECT: use lower-case letters, digits, - and _" >&2; exit 2; }
export NOVA_SECRETS=${NOVA_SECRETS:-$PWD/.secrets/$PROJECT}
TIMEOUT=${NOVA_UP_TIMEOUT:-180}
NOVA_BACKUPS=${NOVA_BACKUPS:-$PWD/backups/$PROJECT}
STORAGED=5

export NOVA_SUBNET=${NOVA_SUBNET:-172.29.89}
if [ "${NOVA_MONITORING:-0}" = 1 ]; then
  export COMPOSE_PROFILES=monitoring
fi
FILES=(-f docker-compose.yml)
for f in ${NOVA_COMPOSE_OVERLAY:-}; do FILES+=(-f "$f"); done

# docker-compose (v1), or the compose plugin of current Docker packages.
if command -v docker-compose >/dev/null 2>&1; then
	COMPOSE=(docker-compose)
else
	COMPOSE=(docker compose)
fi
# docker-compose reads the whole file for every command; only `up` (after
# secrets) creates containers, and the others need no password.
dc() { NOVA_ROOT_PASSWORD=${NOVA_ROOT_PASSWORD:-unused-by-this-command} "${COMPOSE[@]}" -p "$PROJECT" "${FILES[@]}" "$@"; }

need() {
	command -v docker >/dev/null 2>&1 || { echo "docker is not installed (or not on PATH)" >&2; exit 1; }
	"${COMPOSE[@]}" version >/dev/null 2>&1 || { echo "neither docker-compose (v1.27 or newer) nor the docker compose plugin is installed" >&2; exit 1; }
}

# console SERVICE ARGS...: nova-console inside SERVICE's container, against
# its own graphd.
console_in() {
	local svc=$1; shift
	dc exec -T "$svc" /bin/nova-console -addr 127.0.0.1 -port 9669 -ca /etc/novagraph/tls/ca.crt -u root -p "$NOVA_ROOT_PASSWORD" --history-file "" "$@"
}

# secrets: root's password and the cluster's certificates, made once per
# project in $NOVA_SECRETS and kept (a second `up` must find the catalog's
# password and the CA its daemons trust). The certificates are made by
# nova-certs in the image, as root, and given to the image's user 10001,
# which the daemons run as and which must read its key through the bind
# mount; ca.key stays root's. Every metad and graphd certificate also
# names 127.0.0.1 and localhost: metad reaches its own etcd there, and
# clients reach graphd through the published ports.
secrets() {
	mkdir -p "$NOVA_SECRETS/tls"
	chmod 700 "$NOVA_SECRETS"
	local pwfile=$NOVA_SECRETS/root-password
	if [ -n "${NOVA_ROOT_PASSWORD:-}" ]; then
		# Given: kept for the next commands unless one is kept already (the
		# catalog then has that one; the given one is what the caller uses).
		[ -s "$pwfile" ] || (umask 077 && printf '%s\n' "$NOVA_ROOT_PASSWORD" >"$pwfile")
	elif [ -s "$pwfile" ]; then
		NOVA_ROOT_PASSWORD=$(head -n1 "$pwfile")
	else
		NOVA_ROOT_PASSWORD=$(head -c 64 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24)
		(umask 077 && printf '%s\n' "$NOVA_ROOT_PASSWORD" >"$pwfile")
		echo "root's password for this cluster is in $pwfile"
	fi
	export NOVA_ROOT_PASSWORD
	[ -s "$NOVA_SECRETS/tls/ca.crt" ] && return 0
	local specs=() i
	for i in 1 2 3; do specs+=("meta$i:metad:meta$i,127.0.0.1,localhost"); done
	for i in 1 2 3 4 5; do specs+=("storage$i:storaged:storage$i"); done
	for i in 1 2; do specs+=("graph$i:graphd:graph$i,127.0.0.1,localhost"); done
	docker run --rm --user 0:0 --network none -v "$NOVA_SECRETS/tls:/certs" --entrypoint /bin/nova-certs "$NOVA_IMAGE" \
		-dir /certs -owner 10001:10001 "${specs[@]}" >/dev/null ||
		{ echo "making the cluster's certificates in $NOVA_SECRETS/tls failed" >&2; exit 1; }
	echo "made the cluster's CA and certificates in $NOVA_SECRETS/tls (clients: -ca $NOVA_SECRETS/tls/ca.crt)"
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
	secrets
	dc up -d --remove-orphans
	local deadline=$((SECONDS + TIMEOUT)) online=0 out
	while [ $SECONDS -lt $deadline ]; do
		if out=$(console_in graph1 --format csv -e "SHOW HOSTS" 2>/dev/null); then
			online=$(grep -c ',ONLINE,' <<<"$out" || true)
			if [ "$online" -ge "$STORAGED" ] && console_in graph2 -e "SHOW HOSTS" >/dev/null 2>&1 &&
				port_open "$NOVA_GRAPHD_PORT1" && port_open "$NOVA_GRAPHD_PORT2"; then
				echo "compose cluster is up: graphd on 127.0.0.1:$NOVA_GRAPHD_PORT1 and 127.0.0.1:$NOVA_GRAPHD_PORT2 (TLS: -ca $NOVA_SECRETS/tls/ca.crt), NebulaGraph clients on 127.0.0.1:$NOVA_NEBULA_PORT1 and 127.0.0.1:$NOVA_NEBULA_PORT2, $online storaged online"
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
	secrets # the console's password and CA
	local svc
	for svc in meta1 meta2 meta3 storage1 storage2 storage3 storage4 storage5 graph1 graph2; do
		echo "restarting $svc"
		dc restart -t 30 "$svc" >/dev/null
		wait_healthy "$svc"
		case $svc in storage*) wait_online ;; esac
	done
	echo "rolling restart done"
}

# metrics SERVICE: the daemon's /metrics, read inside its container (its
# HTTP port is not published).
metrics() {
	local port
	case "${1:-}" in
	meta[1-3]) port=19559 ;;
	storage[1-5]) port=19779 ;;
	graph[1-2]) port=19669 ;;
	*) echo "metrics: name a service: meta1..meta3, storage1..storage5, graph1..graph2" >&2; exit 2 ;;
	esac
	dc exec -T "$1" /bin/nova-healthcheck -timeout 10s -body "http://127.0.0.1:$port/metrics"
}

# br VERB NAME FLAGS...: nova-br from the image on the cluster's private
# network, where metad and storaged are, with $NOVA_BACKUPS mounted. It runs
# as the caller's user, so the backup's files are the caller's, with an
# importer certificate of the cluster's CA (br.crt, made on first use): the
# snapshot's rows are read, and restored ones written, as the importer's.
br() {
	local verb=$1 name=${2:-}; shift 2 || true
	[[ $name =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] || { echo "$verb: name the backup: a directory name under $NOVA_BACKUPS (letters, digits, . _ -)" >&2; exit 2; }
	need
	local uid gid
	uid=$(id -u) gid=$(id -g)
	if [ "$verb" = verify ]; then # the files only: no cluster, no secrets
		[ -d "$NOVA_BACKUPS/$name" ] || { echo "verify: no backup $NOVA_BACKUPS/$name" >&2; exit 1; }
		docker run --rm --user "$uid:$gid" --network none -v "$NOVA_BACKUPS:/backups:ro" --entrypoint /bin/nova-br "$NOVA_IMAGE" \
			verify --from "/backups/$name" "$@"
		return
	fi
	secrets
	mkdir -p "$NOVA_BACKUPS"
	if [ ! -s "$NOVA_SECRETS/tls/br.crt" ]; then
		docker run --rm --user 0:0 --network none -v "$NOVA_SECRETS/tls:/certs" --entrypoint /bin/nova-certs "$NOVA_IMAGE" \
			-dir /certs -owner "$uid:$gid" br:importer:br >/dev/null ||
			{ echo "making nova-br's certificate in $NOVA_SECRETS/tls failed" >&2; exit 1; }
	fi
	# root's password goes through the environment (docker copies a bare
	# -e NAME from its own), out of every process list.
	export NOVA_PASSWORD=$NOVA_ROOT_PASSWORD
	local run=(docker run --rm --user "$uid:$gid" --network "${PROJECT}_nova" -e NOVA_PASSWORD
		-v "$NOVA_SECRETS/tls:/tls:ro" -v "$NOVA_BACKUPS:/backups" --entrypoint /bin/nova-br "$NOVA_IMAGE")
	local tls=(--ca /tls/ca.crt --cert /tls/br.crt --key /tls/br.key)
	local metas=meta1:9559,meta2:9559,meta3:9559
	case $verb in
	backup) "${run[@]}" backup --meta "$metas" --graph graph1:9669 "${tls[@]}" --to "/backups/$name" "$@" ;;
	restore) "${run[@]}" restore --meta "$metas" "${tls[@]}" --from "/backups/$name" "$@" ;;
	esac
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
	secrets
	dc exec "${tty[@]}" graph1 /bin/nova-console -addr 127.0.0.1 -port 9669 -ca /etc/novagraph/tls/ca.crt -u root -p "$NOVA_ROOT_PASSWORD" --history-file "" "$@" ;;
rolling-restart) rolling_restart ;;
ps) need; dc ps ;;
logs) shift; need; dc logs "$@" ;;
metrics) need; metrics "${2:-}" ;;
backup | restore | verify) br "$@" ;;
*) echo "usage: $0 up|down|console|rolling-restart|ps|logs|metrics|backup|restore|verify" >&2; exit 2 ;;
esac
