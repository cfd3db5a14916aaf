#!/usr/bin/env bash
# make bench-khop: build the harness, start a fresh local cluster (one
# metad, one storaged, one graphd: scripts/cluster.sh), load the data set
# with nova-importer (online), run bench/khop against it, DuckDB and the
# RocksDB floor, and stop the cluster, whatever happens.
#
#   KHOP_DATASET  slashdot (default), sf1, sf10, sf<N>: LDBC knows graphs
#                 generated with bin/nova-bench gen into $KHOP_WORK/sf<N>
#   KHOP_ARGS     more flags for the harness (e.g. "--duration 20s",
#                 "--workloads go1,go2" or "--concurrency 1,8,16")
#   KHOP_WORK     where generated data and the CSV files go (default /tmp/khop)
#   KHOP_CLUSTER  the cluster's data folder (default data/bench-khop; emptied first)
#   KHOP_OUT      the report folder (default bench/khop/results)
set -euo pipefail
cd "$(dirname "$0")/../.."

GO=${GO:-go}
DATASET=${KHOP_DATASET:-slashdot}
WORK=${KHOP_WORK:-/tmp/khop}
CLUSTER=${KHOP_CLUSTER:-data/bench-khop}
OUT=${KHOP_OUT:-bench/khop/results}

(cd bench/khop && "$GO" build -o ../../bin/khop .)

case "$DATASET" in
slashdot)
	args=(--dataset slashdot --work "$WORK/slashdot")
	;;
sf*)
	sf=${DATASET#sf}
	if [ ! -f "$WORK/$DATASET/person_knows_person_0_0.csv" ]; then
		echo "generating LDBC SF$sf into $WORK/$DATASET"
		bin/nova-bench gen --sf "$sf" --out "$WORK/$DATASET"
	fi
	args=(--dataset ldbc --data "$WORK/$DATASET" --work "$WORK/$DATASET-csv")
	;;
*)
	echo "KHOP_DATASET=$DATASET: want slashdot, sf1, sf10 or sf<N>" >&2
	exit 2
	;;
esac

# scripts/cluster.sh uses fixed ports: refuse to start beside another cluster.
for port in 9559 9669 9779 2379; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		echo "port $port is in use: another local cluster is running (make cluster-down in its worktree)" >&2
		exit 1
	fi
done

rm -rf "$CLUSTER"
DATA=$CLUSTER scripts/cluster.sh up
trap 'DATA=$CLUSTER scripts/cluster.sh down' EXIT

echo "load before: $(uptime)"
status=0
bin/khop "${args[@]}" --load always --out "$OUT" ${KHOP_ARGS:-} || status=$?
echo "load after: $(uptime)"
exit $status
