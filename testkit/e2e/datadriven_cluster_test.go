package e2e

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	metaclient "github.com/novagraph/novagraph/metad/client"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/ddexec"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestDataDrivenOnCluster runs graphd/exec's data-driven files, which
// graphd/exec runs against the in-memory testkit/memgraph, against a real
// cluster (metad, storaged on RocksDB and raft) through the executor with
// the real metad and storaged clients, and requires the same output: a
// difference is memgraph drifting from storaged (or metad), or a bug of
// theirs that memgraph, written to the contract, does not share.
//
// The files share one cluster: each starts with no space (the spaces a
// file created are dropped after it), so space ids, unlike everything
// else, differ from memgraph's, and the files print none.
func TestDataDrivenOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	meta, storage := clusterClients(t)
	ddexec.Run(t, "../../graphd/exec/testdata", ddexec.Options{Cluster: true}, func(t *testing.T, _ string) ddexec.Backends {
		return ddexec.Backends{Catalog: meta, Storage: storage, Close: func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, sp := range meta.Catalog().Spaces() {
				if _, err := meta.DropSpace(ctx, sp.GetName(), true); err != nil {
					t.Errorf("dropping space %s after the file: %v", sp.GetName(), err)
				}
			}
		}}
	})
}

// clusterClients starts a one-store cluster and returns metad and storaged
// clients of it (closed when the test ends) once the catalog has arrived:
// what the executor is wired to in graphd.
func clusterClients(t *testing.T) (*metaclient.Client, *storageclient.Client) {
	t.Helper()
	c := testcluster.Start(t, testcluster.Options{Stores: 1, NoGossip: true})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	meta := metaclient.New(c.MetaAddrs(), log)
	t.Cleanup(meta.Close)
	storage := storageclient.New(meta, log)
	t.Cleanup(storage.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return meta, storage
}
