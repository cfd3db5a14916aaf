// Package commonpb is common.proto's generated code, the wire types every
// service shares: property values, result codes and host addresses.
//
// It declares no service, so the language (query/value) uses it without
// linking gRPC; testkit/layout checks that it stays so. The .pb.go files
// are generated from proto/novagraph/common.proto by `make proto`.
package commonpb
