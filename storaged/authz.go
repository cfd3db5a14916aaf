package storaged

import (
	"context"
	"fmt"
	"net"

	"github.com/novagraph/novagraph/internal/grpcserve"
	"github.com/novagraph/novagraph/internal/nodetls"
)

// With TLS on (Config.TLS), each method of storaged's port is open to the
// roles below and to no one else (nodetls.Policy; docs/security.md has
// the table). The policy test checks that every method is named.
//
//   - Reads and writes of graph data: graphd, which runs the users'
//     statements; the importer, which loads; storaged, whose edge writes
//     reach the partitions of the edges' other ends.
//   - Bulk load (UploadSST, IngestSST): the importer.
//   - DownloadStagedSST: storaged, a follower fetching a staged file from
//     the replica that received it.
//   - Admin (moving replicas and leaders, compaction, index rebuilds):
//     metad, which runs balance and jobs; RebuildIndex and ClearPart also
//     graphd (REBUILD INDEX, CLEAR SPACE), which calls no other admin
//     method.
//   - Raft messages and snapshots: storaged, and a batch only from the
//     store its certificate names (peerCheck).
//   - gRPC health and reflection: any certificate of the cluster's CA
//     (grpcserve.WithPublic).
var policy = func() nodetls.Policy {
	data := []nodetls.Role{nodetls.RoleGraphd, nodetls.RoleImporter, nodetls.RoleStoraged}
	return grpcserve.WithPublic(nodetls.Policy{
		"/novagraph.storage.StorageService/*":                 data,
		"/novagraph.storage.StorageService/UploadSST":         {nodetls.RoleImporter},
		"/novagraph.storage.StorageService/IngestSST":         {nodetls.RoleImporter},
		"/novagraph.storage.StorageService/DownloadStagedSST": {nodetls.RoleStoraged},
		"/novagraph.storage.StorageAdminService/*":            {nodetls.RoleMetad},
		"/novagraph.storage.StorageAdminService/RebuildIndex": {nodetls.RoleMetad, nodetls.RoleGraphd},
		"/novagraph.storage.StorageAdminService/ClearPart":    {nodetls.RoleMetad, nodetls.RoleGraphd},
		// nova-br backs up with the importer's certificate: it reads
		// every row as the importer writes them (docs/backup.md).
		"/novagraph.storage.StorageAdminService/ExportCheckpointPart": {nodetls.RoleMetad, nodetls.RoleImporter},
		"/novagraph.storage.StorageService/FinishRestore":             {nodetls.RoleImporter},
		"/novagraph.raft.RaftService/*":                               {nodetls.RoleStoraged},
		"/novagraph.raft.RaftSnapshotService/*":                       {nodetls.RoleStoraged},
	})
}()

// peerCheck approves the caller of a raft or snapshot stream for the store
// it claims to send from: its certificate must be a storaged's (the
// policy made sure already) and name the host that store registered in
// metad. Without it any storaged certificate could speak for every store,
// and vote or append in groups it holds no replica of.
//
// Stores on one host share its name, so a certificate for that host can
// speak for each of them: the host is the unit of trust.
func (s *Server) peerCheck(ctx context.Context, fromStore uint64) error {
	id, ok, err := nodetls.PeerIdentity(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the caller presented no certificate")
	}
	if id.Role != nodetls.RoleStoraged {
		return fmt.Errorf("%s is not a storaged", id)
	}
	addr, known := s.meta.Catalog().HostAddr(fromStore)
	if !known {
		return fmt.Errorf("store %d is not in the catalog", fromStore)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("store %d's address %q: %w", fromStore, addr, err)
	}
	if !id.HasHost(host) {
		return fmt.Errorf("the certificate of %s does not name host %s of store %d", id, host, fromStore)
	}
	return nil
}
