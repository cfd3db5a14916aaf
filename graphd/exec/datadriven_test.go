package exec_test

import (
	"testing"

	"github.com/novagraph/novagraph/testkit/ddexec"
	"github.com/novagraph/novagraph/testkit/memgraph"
)

// TestDataDriven runs the statements of testdata/*.txt against an
// in-memory graph (testkit/memgraph) and compares what they print with
// the files (format: testkit/ddexec). Each file gets an empty graph. To
// record new expectations, run with -rewrite and check every changed line
// by hand against the graph the file builds: the files state NebulaGraph's
// semantics, not whatever the executor prints. testkit/e2e runs the same
// files against a cluster (TestDataDrivenOnCluster).
func TestDataDriven(t *testing.T) {
	ddexec.Run(t, "testdata", ddexec.Options{}, func(t *testing.T, _ string) ddexec.Backends {
		g := memgraph.New(memgraph.Options{})
		return ddexec.Backends{Catalog: g.Meta(), Storage: g.Storage()}
	})
}
