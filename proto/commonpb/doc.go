// Package commonpb is common.proto's generated code, the wire types every
// service shares: property values, result codes, host addresses and
// columns of values (a query's result to its client, edge and vertex
// properties from storaged). columns.go, written by hand, reads a Column's
// cells and builds one a cell at a time (ColumnBuilder).
//
// It declares no service, so the language (query/value) uses it without
// linking gRPC; testkit/layout checks that it stays so. The .pb.go files
// are generated from proto/novagraph/common.proto by `make proto`.
package commonpb
