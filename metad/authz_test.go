package metad

import (
	"slices"
	"testing"

	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/metapb"
)

// TestPolicy: every method of MetaService has an entry, and the decisions
// docs/security.md states hold: users, hosts and jobs are graphd's (and
// metad's own) alone.
func TestPolicy(t *testing.T) {
	if err := policy.Covers(metapb.MetaService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	all := []nodetls.Role{nodetls.RoleMetad, nodetls.RoleStoraged, nodetls.RoleGraphd, nodetls.RoleImporter}
	graphdOnly := []nodetls.Role{nodetls.RoleMetad, nodetls.RoleGraphd}
	tests := []struct {
		method string
		open   []nodetls.Role
	}{
		{"GetCatalog", all},
		{"WatchCatalog", all},
		{"Heartbeat", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleStoraged}},
		{"RegisterHost", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleStoraged}},
		{"UpdatePartReplicas", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleStoraged}},
		{"CreateSpace", graphdOnly},
		{"DropSpace", graphdOnly},
		{"AlterUser", graphdOnly},
		{"CreateUser", graphdOnly},
		{"VerifyUser", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleGraphd, nodetls.RoleImporter}},
		{"RestoreCatalog", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleGraphd, nodetls.RoleImporter}},
		{"WhoAmI", graphdOnly},
		{"GrantRole", graphdOnly},
		{"CreateSnapshot", graphdOnly},
		{"GetSnapshot", []nodetls.Role{nodetls.RoleMetad, nodetls.RoleGraphd, nodetls.RoleImporter}},
		{"DropHosts", graphdOnly},
		{"SubmitJob", graphdOnly},
	}
	for _, tc := range tests {
		got, _ := policy.Allowed("/novagraph.meta.MetaService/" + tc.method)
		for _, r := range nodetls.Roles {
			if slices.Contains(got, r) != slices.Contains(tc.open, r) {
				t.Errorf("%s: open to %v, want %v", tc.method, got, tc.open)
				break
			}
		}
	}
}
