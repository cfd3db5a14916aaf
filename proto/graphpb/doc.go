// Package graphpb is graph.proto's generated code, GraphService: the nGQL
// sessions graphd serves to clients (package client).
//
// The .pb.go files are generated from proto/novagraph/graph.proto by
// `make proto`.
package graphpb
