package metad

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/grpcserve"
	"github.com/novagraph/novagraph/internal/nodetls"
)

// With TLS on (Config.TLS), each method of metad's port is open to the
// roles below and to no one else (nodetls.Policy; docs/security.md has
// the table). metad itself may call everything: its job runner reads the
// catalog from its own port. The policy test checks that every method is
// named.
//
//   - The catalog (GetCatalog, WatchCatalog): every daemon and the
//     importer, which route by it.
//   - Host registration and heartbeats: storaged, for the host its
//     certificate names (service.go, callerNamesHost).
//   - UpdatePartReplicas: storaged, which records a replica move it made.
//   - Everything else (schema, users, roles, hosts, jobs): graphd only. It
//     checks the session's role first; the schema, host and job methods
//     trust that check, so no other role may reach them (an importer's
//     certificate must not drop a space: the importer's DDL goes through a
//     graphd session). The users and roles methods also check the
//     session's credential themselves (credential.go).
//   - gRPC health and reflection: any certificate of the cluster's CA
//     (grpcserve.WithPublic).
var policy = func() nodetls.Policy {
	metad, storaged, graphd, importer := nodetls.RoleMetad, nodetls.RoleStoraged, nodetls.RoleGraphd, nodetls.RoleImporter
	const svc = "/novagraph.meta.MetaService/"
	return grpcserve.WithPublic(nodetls.Policy{
		svc + "*":                  {metad, graphd},
		svc + "GetCatalog":         {metad, storaged, graphd, importer},
		svc + "WatchCatalog":       {metad, storaged, graphd, importer},
		svc + "RegisterHost":       {metad, storaged},
		svc + "Heartbeat":          {metad, storaged},
		svc + "UpdatePartReplicas": {metad, storaged},
		// nova-br reads a snapshot's catalog and copies with the
		// importer's certificate (docs/backup.md).
		svc + "GetSnapshot": {metad, graphd, importer},
		// nova-br restore signs in as root and recreates the catalog of
		// a backup; RestoreCatalog also checks root's credential.
		svc + "VerifyUser":     {metad, graphd, importer},
		svc + "RestoreCatalog": {metad, graphd, importer},
	})
}()

// callerNamesHost refuses a storaged whose certificate does not name host,
// the address it registers or heartbeats for: otherwise one store's
// certificate could take another's store id and report its leaders. Only
// with TLS (without, there is no certificate to compare), and metad itself
// may.
func callerNamesHost(ctx context.Context, host string) error {
	id, ok, err := nodetls.PeerIdentity(ctx)
	if err != nil || !ok || id.Role != nodetls.RoleStoraged {
		return nil // plaintext, or a role the policy admitted for all hosts
	}
	if !id.HasHost(host) {
		return status.Errorf(codes.PermissionDenied, "the certificate of %s does not name host %s it registers for", id, host)
	}
	return nil
}
