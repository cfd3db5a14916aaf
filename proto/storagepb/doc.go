// Package storagepb is storage.proto's generated code, StorageService and
// StorageAdminService: the partition-addressed reads and writes storaged
// serves, and its admin calls.
//
// The .pb.go files are generated from proto/novagraph/storage.proto by
// `make proto`; neighbors.go holds hand-written helpers beside them.
package storagepb
