// Package metapb is meta.proto's generated code, MetaService: the catalog
// (spaces, schemas, partition placement, hosts and partition leaders,
// users) that metad keeps in etcd.
//
// The .pb.go files are generated from proto/novagraph/meta.proto by
// `make proto`.
package metapb
