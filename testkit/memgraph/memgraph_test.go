package memgraph_test

import (
	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/testkit/memgraph"
)

// memgraph is the executor's catalog and storage.
var (
	_ exec.Catalog = (*memgraph.Meta)(nil)
	_ exec.Storage = (*memgraph.Storage)(nil)
)
