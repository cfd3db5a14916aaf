// Package raftmsgpb is raftmsg.proto's generated code, RaftService and
// RaftSnapshotService: the raft transport between storaged hosts.
//
// The .pb.go files are generated from proto/novagraph/raftmsg.proto by
// `make proto`.
package raftmsgpb
