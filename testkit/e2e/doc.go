// Package e2e holds the in-process cluster tests: metad, three storaged and
// graphd on loopback with real RocksDB (testkit/testcluster), driven
// through the Go client. The package has no code besides this
// documentation: everything is in _test.go files.
package e2e
