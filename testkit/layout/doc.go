// Package layout keeps novagraph's package layout what docs/architecture.md
// says it is: its tests check the import rules between the rooms of the
// module (the language, the daemons, the tools, the shared libraries and
// the test kit) and regenerate the package table of docs/architecture.md.
//
// The package has no code besides this documentation; the tests run
// `go list -deps -json ./...` on the module and look at the import graph it
// reports, so they see exactly what the go tool builds (build tags, cgo
// and all) and need no parser of their own. They skip when the go tool is
// not on PATH.
//
// It lives in testkit because it exists only for tests, like testkit/e2e
// and testkit/chaos, and nothing may import it; internal/ is for the small
// libraries the programs share, which this is not.
//
// # The rules (rules_test.go)
//
//   - The language is I/O-free: nothing under query/ depends, directly or
//     not, on gRPC, RocksDB, etcd, the network, the daemons (metad,
//     storaged, graphd, raftgroup, gossip) or the other rooms of the module.
//   - The tools (importer, importer/source, bench/..., client/..., console
//     and cmd/...) do not link graphd/exec or query/parser, except for the
//     pairs listed in an allow-list, each with its reason; an entry that is
//     no longer needed fails the test too.
//   - Only test kit packages and tests import testkit/...
//   - The daemons' I/O-free halves (metad/catalog, metad/ddlcheck,
//     storaged/rowread) depend on no RocksDB, etcd, raft, gossip or
//     daemon: graphd, the importer and testkit/memgraph share them.
//   - internal/... holds small shared libraries: none of them depends on
//     a daemon, a tool or the test kit.
//
// A violation names the rule, the importing package, the imported package
// and the chain of imports between them.
//
// # The package table (table_test.go)
//
// TestPackageTable builds the table at the top of docs/architecture.md
// ("Packages and the direction of imports") from `go list`: each package,
// the summary clause of its doc comment and the packages of ours it imports
// directly, and fails when the file differs or a package has no doc
// comment. To rewrite the table after a change:
//
//	go test ./testkit/layout -run TestPackageTable -update
package layout
