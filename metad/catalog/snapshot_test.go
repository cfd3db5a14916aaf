package catalog

import (
	"testing"

	"github.com/novagraph/novagraph/proto/metapb"
)

// TestSnapshotIndexOrder: the index accessors are ordered by index id even
// if the catalog lists indexes out of order.
func TestSnapshotIndexOrder(t *testing.T) {
	s := NewSnapshot(&metapb.Catalog{Version: 7, Indexes: []*metapb.IndexDesc{
		{SpaceId: 1, IndexId: 5, Name: "e5", IsEdge: true, SchemaId: 2},
		{SpaceId: 1, IndexId: 3, Name: "t3", SchemaId: 2},
		{SpaceId: 2, IndexId: 1, Name: "t3", SchemaId: 2},
		{SpaceId: 1, IndexId: 1, Name: "t1", SchemaId: 2},
		{SpaceId: 1, IndexId: 2, Name: "e2", IsEdge: true, SchemaId: 2},
	}})
	ids := func(ds []*metapb.IndexDesc) []int32 {
		var out []int32
		for _, d := range ds {
			out = append(out, d.IndexId)
		}
		return out
	}
	for _, tc := range []struct {
		what string
		got  []int32
		want []int32
	}{
		{"Indexes(1)", ids(s.Indexes(1)), []int32{1, 2, 3, 5}},
		{"Indexes(2)", ids(s.Indexes(2)), []int32{1}},
		{"Indexes(3)", ids(s.Indexes(3)), nil},
		{"IndexesOn(1, tag 2)", ids(s.IndexesOn(1, false, 2)), []int32{1, 3}},
		{"IndexesOn(1, edge 2)", ids(s.IndexesOn(1, true, 2)), []int32{2, 5}},
		{"IndexesOn(1, edge -2)", ids(s.IndexesOn(1, true, -2)), []int32{2, 5}},
		{"IndexesOn(1, tag -2)", ids(s.IndexesOn(1, false, -2)), nil},
		{"IndexesOn(2, tag 2)", ids(s.IndexesOn(2, false, 2)), []int32{1}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Fatalf("%s = %v, want %v", tc.what, tc.got, tc.want)
		}
		for i := range tc.got {
			if tc.got[i] != tc.want[i] {
				t.Fatalf("%s = %v, want %v", tc.what, tc.got, tc.want)
			}
		}
	}
	if d, ok := s.IndexByName(2, "t3"); !ok || d.SpaceId != 2 || d.IndexId != 1 {
		t.Fatalf("IndexByName(2, t3) = %v, %v", d, ok)
	}
	if d, ok := s.IndexByID(1, 5); !ok || d.Name != "e5" {
		t.Fatalf("IndexByID(1, 5) = %v, %v", d, ok)
	}
}

func TestSnapshotUsers(t *testing.T) {
	s := NewSnapshot(&metapb.Catalog{Version: 3, Users: []*metapb.UserInfo{
		{Name: "bob", Roles: map[int32]metapb.RoleType{1: metapb.RoleType_DBA}},
		{Name: "root"},
	}})
	if u, ok := s.User("bob"); !ok || u.Roles[1] != metapb.RoleType_DBA {
		t.Fatalf("User(bob) = %v, %v", u, ok)
	}
	if _, ok := s.User("ann"); ok {
		t.Fatal("User(ann) found")
	}
	if n := len(s.Users()); n != 2 {
		t.Fatalf("%d users", n)
	}
	for _, tc := range []struct {
		user  string
		space int32
		want  metapb.RoleType
	}{
		{"bob", 1, metapb.RoleType_DBA},
		{"bob", 2, metapb.RoleType_ROLE_TYPE_UNSPECIFIED},
		{"root", 2, metapb.RoleType_GOD},
		{"ann", 1, metapb.RoleType_ROLE_TYPE_UNSPECIFIED},
	} {
		if got := s.RoleOf(tc.user, tc.space); got != tc.want {
			t.Errorf("RoleOf(%s, %d) = %s, want %s", tc.user, tc.space, got, tc.want)
		}
	}
	// Root is GOD only while the catalog has it (never before the first
	// catalog arrives).
	if got := NewSnapshot(&metapb.Catalog{}).RoleOf(RootUser, 1); got != metapb.RoleType_ROLE_TYPE_UNSPECIFIED {
		t.Errorf("RoleOf(root) in an empty catalog = %s", got)
	}
}
