package metad

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// startServerAt runs a metad on data in dir (kept across restarts) with
// the given root password for a new catalog.
func startServerAt(t *testing.T, dir, rootPassword string) (*Server, metapb.MetaServiceClient) {
	t.Helper()
	srv := New(Config{
		ListenAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataPath: dir,
		EtcdClientAddr: "127.0.0.1:0", EtcdPeerAddr: "127.0.0.1:0", EtcdTickMs: 10,
		RootPassword: rootPassword, BcryptCost: bcrypt.MinCost,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("starting metad: %v", err)
	}
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return srv, metapb.NewMetaServiceClient(conn)
}

// userEnv calls the user RPCs of one metad and checks their answers.
type userEnv struct {
	t       *testing.T
	rpc     metapb.MetaServiceClient
	version int64  // the last version a change returned
	cred    []byte // the credential the users and roles calls carry (signIn)
}

// signIn makes the following calls carry name's credential.
func (e *userEnv) signIn(name, password string) {
	e.t.Helper()
	r := e.verify(name, password)
	if !r.Ok || len(r.Credential) == 0 {
		e.t.Fatalf("%s cannot sign in with %q: %v", name, password, r)
	}
	e.cred = r.Credential
}

// ctx is a call's context, carrying the signed-in user's credential.
func (e *userEnv) ctx() context.Context {
	return withCredential(ctxT(e.t), e.cred)
}

func withCredential(ctx context.Context, cred []byte) context.Context {
	if cred == nil {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, metaclient.CredentialHeader, string(cred))
}

// changed checks a change's status and that it moved the catalog version.
func (e *userEnv) changed(what string, st *metapb.Status, version int64, code commonpb.ErrorCode, msg ...string) {
	e.t.Helper()
	wantCode(e.t, what, st, code, msg...)
	if code != commonpb.ErrorCode_SUCCEEDED {
		return
	}
	if version <= e.version {
		e.t.Fatalf("%s: version %d, not after %d", what, version, e.version)
	}
	if got := getCatalog(e.t, e.rpc).Version; got < version {
		e.t.Fatalf("%s: catalog at %d after the change at %d", what, got, version)
	}
	e.version = version
}

func (e *userEnv) create(name, password string, ifNotExists bool) *metapb.CreateUserResp {
	e.t.Helper()
	r, err := e.rpc.CreateUser(e.ctx(), &metapb.CreateUserReq{Name: name, Password: password, IfNotExists: ifNotExists})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *userEnv) drop(name string, ifExists bool) *metapb.DropUserResp {
	e.t.Helper()
	r, err := e.rpc.DropUser(e.ctx(), &metapb.DropUserReq{Name: name, IfExists: ifExists})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *userEnv) grant(user string, space int32, role metapb.RoleType) *metapb.GrantRoleResp {
	e.t.Helper()
	r, err := e.rpc.GrantRole(e.ctx(), &metapb.GrantRoleReq{User: user, SpaceId: space, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *userEnv) revoke(user string, space int32, role metapb.RoleType) *metapb.RevokeRoleResp {
	e.t.Helper()
	r, err := e.rpc.RevokeRole(e.ctx(), &metapb.RevokeRoleReq{User: user, SpaceId: space, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *userEnv) verify(name, password string) *metapb.VerifyUserResp {
	e.t.Helper()
	r, err := e.rpc.VerifyUser(ctxT(e.t), &metapb.VerifyUserReq{Name: name, Password: password})
	if err != nil {
		e.t.Fatal(err)
	}
	wantCode(e.t, "VerifyUser", r.Status, commonpb.ErrorCode_SUCCEEDED)
	return r
}

// login checks that name logs in with password and only with it.
func (e *userEnv) login(name, password string) {
	e.t.Helper()
	if r := e.verify(name, password); !r.Ok || r.Version == 0 || r.CreateVersion == 0 {
		e.t.Fatalf("%s cannot log in with %q: %v", name, password, r)
	}
	if r := e.verify(name, password+"x"); r.Ok || r.Version != 0 {
		e.t.Fatalf("%s logs in with a wrong password: %v", name, r)
	}
}

// roles renders the catalog's users as "name:space=ROLE,...", by name.
func roles(cat *metapb.Catalog) string {
	var out []string
	for _, u := range cat.Users {
		s := u.Name + ":"
		for _, sp := range cat.Spaces {
			if r, ok := u.Roles[sp.SpaceId]; ok {
				s += sp.Name + "=" + r.String() + ","
			}
		}
		if len(u.Roles) != strings.Count(s, "=") {
			s += "stray roles " + strings.Repeat("?", len(u.Roles))
		}
		out = append(out, strings.TrimSuffix(s, ","))
	}
	return strings.Join(out, " ")
}

func TestUsersAndRoles(t *testing.T) {
	srv, rpc := startServerAt(t, t.TempDir(), "rootpw")
	addHosts(t, rpc, 1)
	nba := createSpace(t, rpc, "nba", 1, 1)
	wantCode(t, "CreateSpace nba", nba.Status, commonpb.ErrorCode_SUCCEEDED)
	e := &userEnv{t: t, rpc: rpc, version: nba.Version}

	// Bootstrap: root exists with the configured password and no stored role.
	if got := roles(getCatalog(t, rpc)); got != "root:" {
		t.Fatalf("new catalog users: %s", got)
	}
	e.login("root", "rootpw")
	e.signIn("root", "rootpw")

	r := e.create("bob", "secret", false)
	e.changed("CreateUser bob", r.Status, r.Version, commonpb.ErrorCode_SUCCEEDED)
	e.login("bob", "secret")
	r = e.create("bob", "other", false)
	wantCode(t, "CreateUser bob again", r.Status, commonpb.ErrorCode_E_EXISTED, `"bob"`)
	r = e.create("bob", "other", true)
	wantCode(t, "CreateUser IF NOT EXISTS bob", r.Status, commonpb.ErrorCode_SUCCEEDED)
	e.login("bob", "secret") // IF NOT EXISTS kept the password
	r = e.create("", "x", false)
	wantCode(t, "CreateUser without a name", r.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT)
	r = e.create("long", strings.Repeat("p", 73), false)
	wantCode(t, "a password past bcrypt's limit", r.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "72")
	r = e.create("nopw", "", false)
	e.changed("CreateUser without a password", r.Status, r.Version, commonpb.ErrorCode_SUCCEEDED)
	e.login("nopw", "")

	// An unknown user and a wrong password look alike.
	if v := e.verify("nobody", "secret"); v.Ok || v.Version != 0 || v.CreateVersion != 0 || v.Status.Message != "" {
		t.Fatalf("unknown user: %v", v)
	}

	// What etcd holds is a bcrypt hash at the configured cost, never the
	// password; the catalog holds no hash at all.
	kv, err := srv.cli.Get(ctxT(t), userKey("bob"))
	if err != nil || len(kv.Kvs) != 1 {
		t.Fatalf("reading bob's key: %v %v", kv, err)
	}
	var rec metapb.UserRecord
	if err := proto.Unmarshal(kv.Kvs[0].Value, &rec); err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost(rec.PasswordHash); err != nil || cost != bcrypt.MinCost {
		t.Fatalf("stored hash %q: cost %d, %v", rec.PasswordHash, cost, err)
	}
	if bytes.Contains(kv.Kvs[0].Value, []byte("secret")) || bcrypt.CompareHashAndPassword(rec.PasswordHash, []byte("secret")) != nil {
		t.Fatalf("stored value %q is not a bcrypt hash of the password", kv.Kvs[0].Value)
	}
	catBytes, err := proto.Marshal(getCatalog(t, rpc))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(catBytes, rec.PasswordHash) || bytes.Contains(catBytes, []byte("$2a$")) {
		t.Fatal("the catalog carries a password hash")
	}

	// Roles.
	g := e.grant("bob", nba.SpaceId, metapb.RoleType_DBA)
	e.changed("GrantRole DBA", g.Status, g.Version, commonpb.ErrorCode_SUCCEEDED)
	if got := roles(getCatalog(t, rpc)); got != "bob:nba=DBA nopw: root:" {
		t.Fatalf("after GRANT DBA: %s", got)
	}
	g = e.grant("bob", nba.SpaceId, metapb.RoleType_USER)
	e.changed("GrantRole USER replaces DBA", g.Status, g.Version, commonpb.ErrorCode_SUCCEEDED)
	if got := roles(getCatalog(t, rpc)); got != "bob:nba=USER nopw: root:" {
		t.Fatalf("after GRANT USER: %s", got)
	}
	wantCode(t, "GrantRole GOD", e.grant("bob", nba.SpaceId, metapb.RoleType_GOD).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "GOD", "root")
	wantCode(t, "RevokeRole GOD", e.revoke("bob", nba.SpaceId, metapb.RoleType_GOD).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "GOD")
	wantCode(t, "GrantRole to root", e.grant("root", nba.SpaceId, metapb.RoleType_GUEST).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "root")
	wantCode(t, "GrantRole without a role", e.grant("bob", nba.SpaceId, 0).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT)
	wantCode(t, "GrantRole to nobody", e.grant("nobody", nba.SpaceId, metapb.RoleType_GUEST).Status, commonpb.ErrorCode_E_NOT_FOUND, `"nobody"`)
	wantCode(t, "GrantRole on no space", e.grant("bob", 99, metapb.RoleType_GUEST).Status, commonpb.ErrorCode_E_SPACE_NOT_FOUND)
	wantCode(t, "RevokeRole of another role", e.revoke("bob", nba.SpaceId, metapb.RoleType_GUEST).Status,
		commonpb.ErrorCode_E_INVALID_ARGUMENT, "has role USER", "not GUEST")
	v := e.revoke("bob", nba.SpaceId, metapb.RoleType_USER)
	e.changed("RevokeRole USER", v.Status, v.Version, commonpb.ErrorCode_SUCCEEDED)
	if got := roles(getCatalog(t, rpc)); got != "bob: nopw: root:" {
		t.Fatalf("after REVOKE: %s", got)
	}
	wantCode(t, "RevokeRole again", e.revoke("bob", nba.SpaceId, metapb.RoleType_USER).Status, commonpb.ErrorCode_E_NOT_FOUND, "no role")

	// Passwords.
	a, err := rpc.AlterUser(e.ctx(), &metapb.AlterUserReq{Name: "bob", Password: "new"})
	if err != nil {
		t.Fatal(err)
	}
	e.changed("AlterUser", a.Status, a.Version, commonpb.ErrorCode_SUCCEEDED)
	e.login("bob", "new")
	if e.verify("bob", "secret").Ok {
		t.Fatal("the old password still works after ALTER USER")
	}
	a, _ = rpc.AlterUser(e.ctx(), &metapb.AlterUserReq{Name: "nobody", Password: "x"})
	wantCode(t, "AlterUser nobody", a.Status, commonpb.ErrorCode_E_NOT_FOUND)
	c, err := rpc.ChangePassword(ctxT(t), &metapb.ChangePasswordReq{Name: "bob", OldPassword: "wrong", NewPassword: "newer"})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "ChangePassword with a wrong old password", c.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "old password")
	e.login("bob", "new")
	c, _ = rpc.ChangePassword(ctxT(t), &metapb.ChangePasswordReq{Name: "bob", OldPassword: "new", NewPassword: "newer"})
	e.changed("ChangePassword", c.Status, c.Version, commonpb.ErrorCode_SUCCEEDED)
	e.login("bob", "newer")
	if e.verify("bob", "new").Ok {
		t.Fatal("the old password still works after CHANGE PASSWORD")
	}

	// Dropping a space drops the grants on it, and only those.
	other := createSpace(t, rpc, "other", 1, 1)
	wantCode(t, "CreateSpace other", other.Status, commonpb.ErrorCode_SUCCEEDED)
	e.version = other.Version
	g = e.grant("bob", other.SpaceId, metapb.RoleType_ADMIN)
	e.changed("GrantRole ADMIN on other", g.Status, g.Version, commonpb.ErrorCode_SUCCEEDED)
	g = e.grant("bob", nba.SpaceId, metapb.RoleType_GUEST)
	e.changed("GrantRole GUEST on nba", g.Status, g.Version, commonpb.ErrorCode_SUCCEEDED)
	g = e.grant("nopw", other.SpaceId, metapb.RoleType_GUEST)
	e.changed("GrantRole GUEST on other", g.Status, g.Version, commonpb.ErrorCode_SUCCEEDED)
	if got := roles(getCatalog(t, rpc)); got != "bob:nba=GUEST,other=ADMIN nopw:other=GUEST root:" {
		t.Fatalf("before DROP SPACE: %s", got)
	}
	d, err := rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	e.changed("DropSpace other", d.Status, d.Version, commonpb.ErrorCode_SUCCEEDED)
	cat := getCatalog(t, rpc)
	if got := roles(cat); got != "bob:nba=GUEST nopw: root:" {
		t.Fatalf("after DROP SPACE: %s", got)
	}
	if left, err := srv.cli.Get(ctxT(t), rolesPrefix(other.SpaceId), clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || left.Count != 0 {
		t.Fatalf("roles of the dropped space left in etcd: %v %v", left, err)
	}

	// Dropping users.
	wantCode(t, "DropUser root", e.drop("root", true).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "root")
	created := e.verify("bob", "newer").CreateVersion
	dr := e.drop("bob", false)
	e.changed("DropUser bob", dr.Status, dr.Version, commonpb.ErrorCode_SUCCEEDED)
	if got := roles(getCatalog(t, rpc)); got != "nopw: root:" {
		t.Fatalf("after DROP USER: %s", got)
	}
	if left, err := srv.cli.Get(ctxT(t), prefixRoles, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || left.Count != 0 {
		t.Fatalf("roles of the dropped user left in etcd: %v %v", left, err)
	}
	if e.verify("bob", "newer").Ok {
		t.Fatal("a dropped user logs in")
	}
	wantCode(t, "DropUser bob again", e.drop("bob", false).Status, commonpb.ErrorCode_E_NOT_FOUND, `"bob"`)
	wantCode(t, "DropUser IF EXISTS bob", e.drop("bob", true).Status, commonpb.ErrorCode_SUCCEEDED)
	// The same name again is a new user.
	r = e.create("bob", "again", false)
	e.changed("CreateUser bob again", r.Status, r.Version, commonpb.ErrorCode_SUCCEEDED)
	if again := e.verify("bob", "again").CreateVersion; again <= created {
		t.Fatalf("re-created bob has create version %d, the dropped one had %d", again, created)
	}
}

func TestUsersSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	srv, rpc := startServerAt(t, dir, "first")
	addHosts(t, rpc, 1)
	sp := createSpace(t, rpc, "s", 1, 1)
	wantCode(t, "CreateSpace", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	e := &userEnv{t: t, rpc: rpc, version: sp.Version}
	e.signIn("root", "first")
	r := e.create("ann", "pw", false)
	e.changed("CreateUser", r.Status, r.Version, commonpb.ErrorCode_SUCCEEDED)
	g := e.grant("ann", sp.SpaceId, metapb.RoleType_ADMIN)
	e.changed("GrantRole", g.Status, g.Version, commonpb.ErrorCode_SUCCEEDED)
	c, err := rpc.ChangePassword(ctxT(t), &metapb.ChangePasswordReq{Name: "root", OldPassword: "first", NewPassword: "changed"})
	if err != nil {
		t.Fatal(err)
	}
	e.changed("ChangePassword root", c.Status, c.Version, commonpb.ErrorCode_SUCCEEDED)
	srv.Stop()

	// The root password of the configuration counts on the first start only.
	_, rpc = startServerAt(t, dir, "second")
	e.rpc = rpc
	if got := roles(getCatalog(t, rpc)); got != "ann:s=ADMIN root:" {
		t.Fatalf("after the restart: %s", got)
	}
	e.login("ann", "pw")
	e.login("root", "changed")
	if e.verify("root", "second").Ok || e.verify("root", "first").Ok {
		t.Fatal("root's password reverted at the restart")
	}
	// The credential key is the catalog's: a session's credential (here,
	// root's from before its password changed) holds after the restart.
	r = e.create("bo", "pw", false)
	e.changed("CreateUser after the restart", r.Status, r.Version, commonpb.ErrorCode_SUCCEEDED)
}

// A sign-in's version is one the catalog reaches: writes outside the
// catalog (jobs) move etcd's revision but not the catalog, and a version
// beyond the catalog's made graphd wait out its authWait on every sign-in.
func TestVerifyUserVersionIsTheCatalogs(t *testing.T) {
	srv, rpc := startServerAt(t, t.TempDir(), "rootpw")
	for i := range 3 {
		if _, err := srv.cli.Put(ctxT(t), fmt.Sprintf("/novagraph-jobs/test/%d", i), "x"); err != nil {
			t.Fatal(err)
		}
	}
	e := &userEnv{t: t, rpc: rpc}
	r := e.verify("root", "rootpw")
	if cat := getCatalog(t, rpc); !r.Ok || r.Version == 0 || r.Version > cat.GetVersion() {
		t.Fatalf("VerifyUser version %d, catalog version %d: a graphd would wait for a catalog that never comes", r.Version, cat.GetVersion())
	}
}

// The users and roles methods check the caller's credential themselves: a
// call without one, with a forged one, with another catalog's, or with a
// user's that may not make it is refused, whoever sends it.
func TestUsersMethodsNeedACredential(t *testing.T) {
	_, rpc := startServerAt(t, t.TempDir(), "rootpw")
	addHosts(t, rpc, 1)
	nba := createSpace(t, rpc, "nba", 1, 1)
	other := createSpace(t, rpc, "other", 1, 1)
	root := &userEnv{t: t, rpc: rpc}
	root.signIn("root", "rootpw")
	for _, u := range []string{"bob", "carol"} {
		wantCode(t, "CreateUser "+u, root.create(u, "pw", false).Status, commonpb.ErrorCode_SUCCEEDED)
	}
	wantCode(t, "GrantRole ADMIN", root.grant("bob", nba.SpaceId, metapb.RoleType_ADMIN).Status, commonpb.ErrorCode_SUCCEEDED)

	forged := bytes.Clone(root.cred)
	forged[len(forged)-1] ^= 1
	renamed := bytes.Clone(root.cred) // the same MAC over another name
	renamed[len(renamed)-credentialMACLen-1] = 'x'
	_, elsewhere := startServerAt(t, t.TempDir(), "rootpw")
	foreign := (&userEnv{t: t, rpc: elsewhere}).verify("root", "rootpw").Credential
	bob := &userEnv{t: t, rpc: rpc}
	bob.signIn("bob", "pw")

	alterRoot := func(cred []byte) error {
		_, err := rpc.AlterUser(withCredential(ctxT(t), cred), &metapb.AlterUserReq{Name: "root", Password: "owned"})
		return err
	}
	for _, c := range []struct {
		name string
		cred []byte
		code codes.Code
		msg  string
	}{
		{"no credential", nil, codes.Unauthenticated, "carries no credential"},
		{"a flipped MAC", forged, codes.Unauthenticated, "not a credential"},
		{"another name under root's MAC", renamed, codes.Unauthenticated, "not a credential"},
		{"another catalog's", foreign, codes.Unauthenticated, "not a credential"},
		{"a truncated one", root.cred[:10], codes.Unauthenticated, "not a credential"},
		{"a user's who is not GOD", bob.cred, codes.PermissionDenied, `"bob" is not GOD`},
	} {
		err := alterRoot(c.cred)
		if status.Code(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("AlterUser root with %s: %v, want %s %q", c.name, err, c.code, c.msg)
		}
	}
	if !root.verify("root", "rootpw").Ok {
		t.Fatal("a refused AlterUser changed root's password")
	}
	for name, call := range map[string]func(context.Context) error{
		"CreateUser": func(ctx context.Context) error {
			_, err := rpc.CreateUser(ctx, &metapb.CreateUserReq{Name: "mallory", Password: "x"})
			return err
		},
		"DropUser": func(ctx context.Context) error {
			_, err := rpc.DropUser(ctx, &metapb.DropUserReq{Name: "carol"})
			return err
		},
		"GrantRole": func(ctx context.Context) error {
			_, err := rpc.GrantRole(ctx, &metapb.GrantRoleReq{User: "carol", SpaceId: nba.SpaceId, Role: metapb.RoleType_GUEST})
			return err
		},
		"RevokeRole": func(ctx context.Context) error {
			_, err := rpc.RevokeRole(ctx, &metapb.RevokeRoleReq{User: "bob", SpaceId: nba.SpaceId, Role: metapb.RoleType_ADMIN})
			return err
		},
	} {
		if err := call(ctxT(t)); status.Code(err) != codes.Unauthenticated {
			t.Errorf("%s without a credential: %v, want Unauthenticated", name, err)
		}
	}

	// An ADMIN grants and revokes roles below ADMIN on its own space only.
	wantCode(t, "ADMIN grants DBA on its space", bob.grant("carol", nba.SpaceId, metapb.RoleType_DBA).Status, commonpb.ErrorCode_SUCCEEDED)
	wantCode(t, "ADMIN revokes DBA on its space", bob.revoke("carol", nba.SpaceId, metapb.RoleType_DBA).Status, commonpb.ErrorCode_SUCCEEDED)
	for _, c := range []struct {
		name  string
		space int32
		role  metapb.RoleType
		msg   string
	}{
		{"ADMIN on its space", nba.SpaceId, metapb.RoleType_ADMIN, "only DBA, USER and GUEST"},
		{"GUEST on another space", other.SpaceId, metapb.RoleType_GUEST, "neither GOD nor ADMIN"},
	} {
		_, err := rpc.GrantRole(bob.ctx(), &metapb.GrantRoleReq{User: "carol", SpaceId: c.space, Role: c.role})
		if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("bob grants %s: %v, want PermissionDenied %q", c.name, err, c.msg)
		}
	}

	// Nor may it change its own role, or a fellow ADMIN's (graphd's rule).
	wantCode(t, "GrantRole ADMIN to carol", root.grant("carol", nba.SpaceId, metapb.RoleType_ADMIN).Status, commonpb.ErrorCode_SUCCEEDED)
	for _, c := range []struct {
		name, user string
		revoke     bool
		msg        string
	}{
		{"demotes a fellow ADMIN", "carol", false, `"carol", ADMIN there too`},
		{"revokes a fellow ADMIN's role", "carol", true, `"carol", ADMIN there too`},
		{"changes its own role", "bob", false, "its own role"},
	} {
		var err error
		if c.revoke {
			_, err = rpc.RevokeRole(bob.ctx(), &metapb.RevokeRoleReq{User: c.user, SpaceId: nba.SpaceId, Role: metapb.RoleType_GUEST})
		} else {
			_, err = rpc.GrantRole(bob.ctx(), &metapb.GrantRoleReq{User: c.user, SpaceId: nba.SpaceId, Role: metapb.RoleType_GUEST})
		}
		if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ADMIN bob %s: %v, want PermissionDenied %q", c.name, err, c.msg)
		}
	}
	if got := roles(getCatalog(t, rpc)); !strings.Contains(got, "carol:nba=ADMIN") || !strings.Contains(got, "bob:nba=ADMIN") {
		t.Fatalf("refused role changes changed the roles: %s", got)
	}

	// A user dropped and created again does not inherit the old sessions.
	wantCode(t, "DropUser bob", root.drop("bob", false).Status, commonpb.ErrorCode_SUCCEEDED)
	wantCode(t, "CreateUser bob again", root.create("bob", "pw", false).Status, commonpb.ErrorCode_SUCCEEDED)
	wantCode(t, "GrantRole ADMIN again", root.grant("bob", nba.SpaceId, metapb.RoleType_ADMIN).Status, commonpb.ErrorCode_SUCCEEDED)
	_, err := rpc.GrantRole(bob.ctx(), &metapb.GrantRoleReq{User: "carol", SpaceId: nba.SpaceId, Role: metapb.RoleType_GUEST})
	if status.Code(err) != codes.Unauthenticated || !strings.Contains(err.Error(), "dropped since") {
		t.Errorf("the dropped bob's credential: %v, want Unauthenticated, dropped since", err)
	}
}

// metad refuses to serve beyond loopback while root's password is the
// default, unless told to allow it; a catalog whose root has another
// password starts anywhere.
func TestDefaultRootPasswordBeyondLoopback(t *testing.T) {
	start := func(dir, password string, allow bool) error {
		srv := New(Config{
			ListenAddr: "0.0.0.0:0", HTTPAddr: "127.0.0.1:0", DataPath: dir,
			EtcdClientAddr: "127.0.0.1:0", EtcdPeerAddr: "127.0.0.1:0", EtcdTickMs: 10,
			RootPassword: password, AllowDefaultRootPassword: allow, BcryptCost: bcrypt.MinCost,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Start(ctx)
		srv.Stop()
		return err
	}
	dir := t.TempDir()
	if err := start(dir, DefaultRootPassword, false); err == nil || !strings.Contains(err.Error(), "--allow-default-root-password") {
		t.Fatalf("default root password on 0.0.0.0: %v, want a refusal naming --allow-default-root-password", err)
	}
	if err := start(dir, DefaultRootPassword, true); err != nil {
		t.Fatalf("default root password on 0.0.0.0, allowed: %v", err)
	}
	if err := start(t.TempDir(), "not-the-default", false); err != nil {
		t.Fatalf("another root password on 0.0.0.0: %v", err)
	}
}
