#!/usr/bin/env bash
# Makes deploy/k8s/tls/ for a cluster in namespace NAMESPACE (default:
# default): a CA, one certificate per daemon role valid for that role's pod
# and Service DNS names, the importer's and a client's certificates, and
# the gossip key. kustomization.yaml turns them into the Secrets
# novagraph-tls-metad, -storaged and -graphd. Run it once, before the first
# `kubectl apply -k deploy/k8s`; running it again reuses the CA and the
# gossip key and renews the certificates. Keep tls/ca.key off the cluster.
#
#   deploy/k8s/certs.sh [NAMESPACE]
#
# NOVA_CERTS names the nova-certs binary (default bin/nova-certs, from
# make build).
set -euo pipefail
cd "$(dirname "$0")"
ns=${1:-default}
certs=${NOVA_CERTS:-../../bin/nova-certs}
[ -x "$certs" ] || { echo "$certs not found: run make build (or set NOVA_CERTS)" >&2; exit 1; }
# Each role's names: the short and the full DNS names of its pods (metad and
# storaged are StatefulSets behind headless Services and are dialled by pod
# name; metad also reaches its own etcd on loopback) and of graphd's
# Service (what clients dial; 127.0.0.1 for kubectl port-forward).
names() { # SERVICE: *.SERVICE, *.SERVICE.NS, *.SERVICE.NS.svc, *.SERVICE.NS.svc.cluster.local
	echo "*.$1,*.$1.$ns,*.$1.$ns.svc,*.$1.$ns.svc.cluster.local"
}
"$certs" -dir tls \
	"metad:metad:$(names metad),127.0.0.1,localhost" \
	"storaged:storaged:$(names storaged)" \
	"graphd:graphd:graphd,graphd.$ns,graphd.$ns.svc,graphd.$ns.svc.cluster.local,127.0.0.1,localhost" \
	importer:importer client:client
echo "deploy/k8s/tls/ is ready for namespace $ns: kubectl apply -k deploy/k8s"
