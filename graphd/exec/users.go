package exec

import (
	"context"
	"fmt"
	"sort"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Users and roles (NebulaGraph's semantics). Every statement passes
// authorize before it runs: its kind (kinds.go) says what it needs of the
// session's user, and the user's roles come from the catalog snapshot
// current at that statement, so a GRANT, REVOKE or DROP USER takes effect
// on the next statement of every session once this graphd's catalog has
// caught up (the metad client waits for that before a GRANT returns).
//
//	GOD (root)        everything, on every space
//	ADMIN             DBA, plus GRANT / REVOKE of DBA, USER and GUEST on its space
//	DBA               USER, plus schema and index DDL of its space
//	USER              GUEST, plus INSERT, UPDATE, UPSERT, DELETE
//	GUEST             reads: GO, FETCH, LOOKUP, FIND PATH, GET SUBGRAPH, YIELD,
//	                  GROUP BY, ORDER BY, LIMIT, SHOW TAGS / EDGES / INDEXES / PARTS,
//	                  DESCRIBE; USE and DESCRIBE SPACE of a space it has a role on
//	GOD only          CREATE / DROP SPACE, CREATE / ALTER / DROP USER, SHOW USERS,
//	                  ADD / DROP HOSTS, SUBMIT JOB BALANCE DATA / BALANCE LEADER
//	ADMIN (its space) also SUBMIT JOB COMPACT, SHOW JOBS, SHOW JOB, STOP JOB, RECOVER JOB
//	itself or GOD     CHANGE PASSWORD, DESCRIBE USER
//	anyone            SET, SHOW HOSTS, SHOW SPACES (lists the spaces with a role),
//	                  SHOW QUERIES (a user's own queries), KILL QUERY (another
//	                  user's query: GOD only)
//
// A pipe, set operation, assignment or EXPLAIN / PROFILE needs what each of
// its parts needs. A rule on the current space passes when no space is
// selected (or the selected one was dropped): the statement then fails on
// its own, asking for USE.

// needKind is the kind of check a rule makes.
type needKind uint8

const (
	needAnyone    needKind = iota + 1
	needGod                // GOD only
	needSpaceRole          // at least role on a space
	needSelf               // GOD or the user the statement names
	needGrant              // GRANT / REVOKE: GOD, or ADMIN of the space for a role below ADMIN
	// needUnknown is the rule of a SHOW or DESCRIBE target the table does
	// not list yet: GOD only, until someone decides.
	needUnknown
)

// rule is what one statement (or one part of a composite statement) needs.
type rule struct {
	what  string // the statement, for messages: "INSERT EDGE"
	kind  needKind
	role  metapb.RoleType // needSpaceRole: the least role; needGrant: the role granted
	space string          // needSpaceRole, needGrant: the space named; "" for the current space
	user  string          // needSelf, needGrant: the user named
}

func anyone(what string) []rule  { return []rule{{what: what, kind: needAnyone}} }
func godOnly(what string) []rule { return []rule{{what: what, kind: needGod}} }
func onCurrent(what string, role metapb.RoleType) []rule {
	return []rule{{what: what, kind: needSpaceRole, role: role}}
}
func onSpace(what, space string, role metapb.RoleType) []rule {
	return []rule{{what: what, kind: needSpaceRole, role: role, space: space}}
}

// roleType converts a role as parsed.
func roleType(r ast.Role) metapb.RoleType {
	switch r {
	case ast.RoleGod:
		return metapb.RoleType_GOD
	case ast.RoleAdmin:
		return metapb.RoleType_ADMIN
	case ast.RoleDBA:
		return metapb.RoleType_DBA
	case ast.RoleUser:
		return metapb.RoleType_USER
	case ast.RoleGuest:
		return metapb.RoleType_GUEST
	}
	return metapb.RoleType_ROLE_TYPE_UNSPECIFIED
}

// errNoRule is a statement type the permission table does not know: it is
// refused, and TestPermissionTableCoversEveryStatement fails.
type errNoRule struct{ st ast.Statement }

func (e errNoRule) Error() string {
	return fmt.Sprintf("permission denied: %T has no permission rule", e.st)
}

func updateWord(upsert bool) string {
	if upsert {
		return "UPSERT"
	}
	return "UPDATE"
}

func deniedf(format string, args ...any) error {
	return &Error{Code: graphpb.QueryErrorCode_E_BAD_PERMISSION, Msg: "permission denied: " + fmt.Sprintf(format, args...)}
}

// hasRole describes a user's role on a space for a message.
func hasRole(role metapb.RoleType) string {
	if role == metapb.RoleType_ROLE_TYPE_UNSPECIFIED {
		return "has no role"
	}
	return "has role " + role.String()
}

// isGod reports whether the session's user is GOD.
func isGod(sess *SessionState) bool { return sess.User == catalog.RootUser }

// authorize checks that the session's user may run st, against snap.
func authorize(snap *catalog.Snapshot, sess *SessionState, st ast.Statement) error {
	rules, err := rulesOf(st)
	if err != nil {
		return &Error{Code: graphpb.QueryErrorCode_E_BAD_PERMISSION, Msg: err.Error()}
	}
	name := sess.User
	if name == "" {
		return deniedf("the session has no user")
	}
	if isGod(sess) {
		return nil // root cannot be dropped
	}
	u, ok := snap.User(name)
	if !ok || (sess.UserCreated != 0 && u.GetCreateVersion() != sess.UserCreated) {
		return deniedf("user %q no longer exists; sign in again as an existing user", name)
	}
	for _, r := range rules {
		if err := r.check(snap, sess, u); err != nil {
			return err
		}
	}
	return nil
}

// check applies one rule for user u, who is not GOD.
func (r rule) check(snap *catalog.Snapshot, sess *SessionState, u *metapb.UserInfo) error {
	switch r.kind {
	case needAnyone:
		return nil
	case needGod, needUnknown:
		return deniedf("user %q is not GOD; %s needs GOD (user root)", u.Name, r.what)
	case needSelf:
		if r.user == u.Name {
			return nil
		}
		return deniedf("user %q is not GOD; %s of user %q needs GOD or user %q itself", u.Name, r.what, r.user, r.user)
	case needSpaceRole:
		space := r.resolveSpace(snap, sess)
		if space == nil {
			return nil // the statement fails on its own: no such space, or none selected
		}
		have := u.GetRoles()[space.GetSpaceId()]
		if have == metapb.RoleType_ROLE_TYPE_UNSPECIFIED || have > r.role {
			return deniedf("user %q %s on space %q; %s needs %s or higher", u.Name, hasRole(have), space.GetName(), r.what, r.role)
		}
		return nil
	case needGrant:
		space, ok := snap.SpaceByName(r.space)
		if !ok {
			return nil // the statement reports the unknown space
		}
		have := u.GetRoles()[space.GetSpaceId()]
		switch {
		case have != metapb.RoleType_ADMIN:
			return deniedf("user %q %s on space %q; %s needs ADMIN or higher", u.Name, hasRole(have), space.GetName(), r.what)
		case r.role < metapb.RoleType_DBA:
			return deniedf("user %q has role ADMIN on space %q; %s of role %s needs GOD (an ADMIN grants and revokes only DBA, USER and GUEST)",
				u.Name, space.GetName(), r.what, r.role)
		case r.user == u.Name:
			return deniedf("user %q has role ADMIN on space %q; %s of its own role needs GOD", u.Name, space.GetName(), r.what)
		}
		if target := snap.RoleOf(r.user, space.GetSpaceId()); target == metapb.RoleType_GOD || target == metapb.RoleType_ADMIN {
			return deniedf("user %q has role ADMIN on space %q; %s for user %q, who has role %s there, needs GOD",
				u.Name, space.GetName(), r.what, r.user, target)
		}
		return nil
	}
	return deniedf("%s: unknown permission rule %d", r.what, r.kind)
}

// resolveSpace is the space a needSpaceRole rule is about, or nil when
// there is none to check: an unknown space named, no space selected, or the
// selected one dropped.
func (r rule) resolveSpace(snap *catalog.Snapshot, sess *SessionState) *metapb.SpaceDesc {
	if r.space != "" {
		sp, _ := snap.SpaceByName(r.space)
		return sp
	}
	if sess.SpaceName == "" {
		return nil
	}
	sp, ok := snap.SpaceByID(sess.SpaceID)
	if !ok || sp.GetName() != sess.SpaceName {
		return nil
	}
	return sp
}

// userError turns a metad failure of a user statement into its error.
func userError(st ast.Statement, err error) error {
	if err == nil {
		return nil
	}
	what := st.String()
	switch s := st.(type) {
	// Passwords stay out of error messages.
	case *ast.CreateUserStmt:
		what = "CREATE USER " + ast.QuoteName(s.Name)
	case *ast.AlterUserStmt:
		what = "ALTER USER " + ast.QuoteName(s.Name)
	case *ast.ChangePasswordStmt:
		what = "CHANGE PASSWORD " + ast.QuoteName(s.Name)
	}
	return metaError(what, err)
}

func (r *runState) changeRole(ctx context.Context, snap *catalog.Snapshot, st ast.Statement, role ast.Role, spaceName, user string, grant bool) error {
	space, ok := snap.SpaceByName(spaceName)
	if !ok {
		return at(st, "space %q not found", spaceName)
	}
	var err error
	if grant {
		_, err = r.x.meta.GrantRole(ctx, user, space.GetSpaceId(), roleType(role))
	} else {
		_, err = r.x.meta.RevokeRole(ctx, user, space.GetSpaceId(), roleType(role))
	}
	return userError(st, err)
}

// showRoles lists the roles on a space (columns Account, Role Type), by
// account: all of them for GOD and the space's ADMIN, the user's own for the
// others, as in NebulaGraph. Root's implicit GOD is not listed.
func (r *runState) showRoles(snap *catalog.Snapshot, s *ast.ShowRolesStmt) (*table, error) {
	space, ok := snap.SpaceByName(s.Space)
	if !ok {
		return nil, at(s, "space %q not found", s.Space)
	}
	me := r.sess.User
	all := isGod(r.sess) || snap.RoleOf(me, space.GetSpaceId()) == metapb.RoleType_ADMIN
	t := newTable("Account", "Role Type")
	for _, u := range snap.Users() {
		role := u.GetRoles()[space.GetSpaceId()]
		if role != metapb.RoleType_ROLE_TYPE_UNSPECIFIED && (all || u.GetName() == me) {
			t.add(value.Str(u.GetName()), value.Str(role.String()))
		}
	}
	return t, nil
}

// describeUser lists a user's roles (columns Role, Space), by space name.
// Root has one row: GOD on every space, written "*".
func describeUser(snap *catalog.Snapshot, s *ast.DescribeUserStmt) (*table, error) {
	u, ok := snap.User(s.Name)
	if !ok {
		return nil, at(s, "user %q not found", s.Name)
	}
	t := newTable("Role", "Space")
	if u.GetName() == catalog.RootUser {
		t.add(value.Str(metapb.RoleType_GOD.String()), value.Str("*"))
		return t, nil
	}
	type grant struct{ space, role string }
	var grants []grant
	for id, role := range u.GetRoles() {
		if sp, ok := snap.SpaceByID(id); ok {
			grants = append(grants, grant{sp.GetName(), role.String()})
		}
	}
	sort.Slice(grants, func(i, j int) bool { return grants[i].space < grants[j].space })
	for _, g := range grants {
		t.add(value.Str(g.role), value.Str(g.space))
	}
	return t, nil
}

// showOwnSpaces is SHOW SPACES for a user who is not GOD: the spaces it
// has a role on.
func (r *runState) showOwnSpaces(snap *catalog.Snapshot) *table {
	u, _ := snap.User(r.sess.User) // authorize found it
	var names []string
	for _, sp := range snap.Spaces() {
		if u.GetRoles()[sp.GetSpaceId()] != metapb.RoleType_ROLE_TYPE_UNSPECIFIED {
			names = append(names, sp.GetName())
		}
	}
	sort.Strings(names)
	t := newTable("Name")
	for _, n := range names {
		t.add(value.Str(n))
	}
	return t
}

// ownRows keeps the rows of SHOW QUERIES whose User is user.
func ownRows(t *table, user string) [][]value.Value {
	col := t.colIndex("User")
	var out [][]value.Value
	for _, row := range t.rows {
		if s, ok := row[col].StrVal(); ok && s == user {
			out = append(out, row)
		}
	}
	return out
}

// checkKill refuses KILL QUERY of another user's query to a user who is not
// GOD. Without session = the query is the session's own, which KillQuery
// checks.
func (r *runState) checkKill(ctx context.Context, s *ast.KillQueryStmt) error {
	if r.x.admin == nil || !s.HasSession {
		return nil
	}
	// This graphd's queries: another graphd checks its own when asked to
	// stop one (it knows the user by the session's credential).
	qs, err := r.x.admin.Queries(ctx, true)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if q.PlanID == s.Plan && q.SessionID == s.Session && q.User != r.sess.User {
			return deniedf("user %q is not GOD; KILL QUERY of a query of user %q needs GOD", r.sess.User, q.User)
		}
	}
	return nil
}
