package metad

import "github.com/novagraph/novagraph/internal/nodetls"

// With TLS on (Config.TLS), each method of metad's port is open to the
// roles below and to no one else (nodetls.Policy; docs/security.md has
// the table). metad itself may call everything: its job runner reads the
// catalog from its own port. The policy test checks that every method is
// named.
//
//   - The catalog (GetCatalog, WatchCatalog): every daemon and the
//     importer, which route by it.
//   - Host registration and heartbeats: storaged and graphd.
//   - UpdatePartReplicas: storaged, which records a replica move it made.
//   - Schema (spaces, tags and edges, indexes): graphd, which runs the
//     users' DDL after checking their roles, and the importer, which
//     creates the space it loads.
//   - Users, roles, hosts and jobs: graphd only. It checks the session's
//     role first; these methods trust that check, so no other role may
//     reach them (a storaged's certificate must not reset root's
//     password).
var policy = func() nodetls.Policy {
	metad, storaged, graphd, importer := nodetls.RoleMetad, nodetls.RoleStoraged, nodetls.RoleGraphd, nodetls.RoleImporter
	const svc = "/novagraph.meta.MetaService/"
	p := nodetls.Policy{
		svc + "*":                  {metad, graphd},
		svc + "GetCatalog":         {metad, storaged, graphd, importer},
		svc + "WatchCatalog":       {metad, storaged, graphd, importer},
		svc + "RegisterHost":       {metad, storaged, graphd},
		svc + "Heartbeat":          {metad, storaged, graphd},
		svc + "UpdatePartReplicas": {metad, storaged},
	}
	for _, m := range []string{"CreateSpace", "DropSpace", "CreateSchema", "AlterSchema", "DropSchema", "CreateIndex", "DropIndex"} {
		p[svc+m] = []nodetls.Role{metad, graphd, importer}
	}
	return p
}()
