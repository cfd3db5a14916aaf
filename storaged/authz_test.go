package storaged

import (
	"slices"
	"testing"

	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// TestPolicy: every method of storaged's services has an entry, and the
// decisions docs/security.md states hold.
func TestPolicy(t *testing.T) {
	if err := policy.Covers(storagepb.StorageService_ServiceDesc, storagepb.StorageAdminService_ServiceDesc,
		raftmsgpb.RaftService_ServiceDesc, raftmsgpb.RaftSnapshotService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method string
		open   []nodetls.Role
	}{
		{"/novagraph.storage.StorageService/GetNeighbors", []nodetls.Role{nodetls.RoleGraphd, nodetls.RoleImporter, nodetls.RoleStoraged}},
		{"/novagraph.storage.StorageService/AddEdges", []nodetls.Role{nodetls.RoleGraphd, nodetls.RoleImporter, nodetls.RoleStoraged}},
		{"/novagraph.storage.StorageService/IngestSST", []nodetls.Role{nodetls.RoleImporter}},
		{"/novagraph.storage.StorageService/UploadSST", []nodetls.Role{nodetls.RoleImporter}},
		{"/novagraph.storage.StorageService/DownloadStagedSST", []nodetls.Role{nodetls.RoleStoraged}},
		{"/novagraph.storage.StorageAdminService/RemoveReplica", []nodetls.Role{nodetls.RoleMetad}},
		{"/novagraph.storage.StorageAdminService/TransferLeader", []nodetls.Role{nodetls.RoleMetad}},
		{"/novagraph.storage.StorageAdminService/Compact", []nodetls.Role{nodetls.RoleMetad}},
		{"/novagraph.storage.StorageAdminService/RebuildIndex", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleGraphd}},
		{"/novagraph.storage.StorageAdminService/ClearPart", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleGraphd}},
		{"/novagraph.storage.StorageAdminService/CreateCheckpoint", []nodetls.Role{nodetls.RoleMetad}},
		{"/novagraph.storage.StorageAdminService/ExportCheckpointPart", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleImporter}},
		{"/novagraph.raft.RaftService/Send", []nodetls.Role{nodetls.RoleStoraged}},
		{"/novagraph.raft.RaftSnapshotService/Snapshot", []nodetls.Role{nodetls.RoleStoraged}},
	}
	for _, tc := range tests {
		got, _ := policy.Allowed(tc.method)
		for _, r := range nodetls.Roles {
			if slices.Contains(got, r) != slices.Contains(tc.open, r) {
				t.Errorf("%s: open to %v, want %v", tc.method, got, tc.open)
				break
			}
		}
	}
}
