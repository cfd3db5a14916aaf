package metad

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Users and roles, as in NebulaGraph. A user is a UserRecord (name and
// bcrypt hash) under users/<name>; its role on a space is a roles/<space>/<name>
// key (keys.go). The catalog lists users with their roles but never a hash;
// only VerifyUser and ChangePassword read hashes, straight from etcd.
//
// The users and roles methods refuse a call that does not carry the
// credential of a signed-in user allowed to make it (credential.go):
// metad does not take graphd's word for the session's role.
//
// Root is created on the first start (bootstrapRoot) with Config.RootPassword.
// It is GOD, implicitly on every space; GOD is root's alone, so it can be
// neither granted nor revoked, root's roles never change and root cannot be
// dropped.

// RootUser is the user metad creates on the first start, the only GOD.
const RootUser = "root"

// DefaultRootPassword is root's password on a new catalog unless
// Config.RootPassword says otherwise.
const DefaultRootPassword = "nova"

// maxPasswordLen is bcrypt's limit: it ignores (and x/crypto refuses)
// anything past 72 bytes.
const maxPasswordLen = 72

func (svc *service) CreateUser(ctx context.Context, req *metapb.CreateUserReq) (*metapb.CreateUserResp, error) {
	if err := svc.s.checkCallerGod(ctx, "CreateUser"); err != nil {
		return nil, err
	}
	ver, err := svc.s.createUser(ctx, req)
	return &metapb.CreateUserResp{Status: svc.s.toStatus("CreateUser", err), Version: ver}, nil
}

func (svc *service) DropUser(ctx context.Context, req *metapb.DropUserReq) (*metapb.DropUserResp, error) {
	if err := svc.s.checkCallerGod(ctx, "DropUser"); err != nil {
		return nil, err
	}
	ver, err := svc.s.dropUser(ctx, req)
	return &metapb.DropUserResp{Status: svc.s.toStatus("DropUser", err), Version: ver}, nil
}

func (svc *service) AlterUser(ctx context.Context, req *metapb.AlterUserReq) (*metapb.AlterUserResp, error) {
	if err := svc.s.checkCallerGod(ctx, "AlterUser"); err != nil {
		return nil, err
	}
	ver, err := svc.s.setPassword(ctx, "AlterUser", req.GetName(), nil, req.GetPassword())
	return &metapb.AlterUserResp{Status: svc.s.toStatus("AlterUser", err), Version: ver}, nil
}

func (svc *service) ChangePassword(ctx context.Context, req *metapb.ChangePasswordReq) (*metapb.ChangePasswordResp, error) {
	old := req.GetOldPassword()
	ver, err := svc.s.setPassword(ctx, "ChangePassword", req.GetName(), &old, req.GetNewPassword())
	return &metapb.ChangePasswordResp{Status: svc.s.toStatus("ChangePassword", err), Version: ver}, nil
}

func (svc *service) GrantRole(ctx context.Context, req *metapb.GrantRoleReq) (*metapb.GrantRoleResp, error) {
	if err := svc.s.checkCallerGrants(ctx, "GrantRole", req.GetSpaceId(), req.GetRole(), req.GetUser()); err != nil {
		return nil, err
	}
	ver, err := svc.s.changeRole(ctx, req.GetUser(), req.GetSpaceId(), req.GetRole(), true)
	return &metapb.GrantRoleResp{Status: svc.s.toStatus("GrantRole", err), Version: ver}, nil
}

func (svc *service) RevokeRole(ctx context.Context, req *metapb.RevokeRoleReq) (*metapb.RevokeRoleResp, error) {
	if err := svc.s.checkCallerGrants(ctx, "RevokeRole", req.GetSpaceId(), req.GetRole(), req.GetUser()); err != nil {
		return nil, err
	}
	ver, err := svc.s.changeRole(ctx, req.GetUser(), req.GetSpaceId(), req.GetRole(), false)
	return &metapb.RevokeRoleResp{Status: svc.s.toStatus("RevokeRole", err), Version: ver}, nil
}

func (svc *service) VerifyUser(ctx context.Context, req *metapb.VerifyUserReq) (*metapb.VerifyUserResp, error) {
	ok, ver, created, err := svc.s.verifyUser(ctx, req.GetName(), req.GetPassword())
	resp := &metapb.VerifyUserResp{Status: svc.s.toStatus("VerifyUser", err), Ok: ok, Version: ver, CreateVersion: created}
	if ok {
		resp.Credential = svc.s.sealCredential(req.GetName(), created)
	}
	return resp, nil
}

// WhoAmI names the user behind the call's credential (callerUser): a
// dropped user's or a forged credential is refused as Unauthenticated.
func (svc *service) WhoAmI(ctx context.Context, _ *metapb.WhoAmIReq) (*metapb.WhoAmIResp, error) {
	name, err := svc.s.callerUser(ctx, "WhoAmI")
	if err != nil {
		return nil, err
	}
	return &metapb.WhoAmIResp{User: name}, nil
}

// parseRole decodes the value of a roles key. GOD is never stored.
func parseRole(v []byte) (metapb.RoleType, error) {
	r := metapb.RoleType(metapb.RoleType_value[string(v)])
	if r < metapb.RoleType_ADMIN || r > metapb.RoleType_GUEST {
		return 0, fmt.Errorf("malformed role %q", v)
	}
	return r, nil
}

// hashPassword returns the bcrypt hash of password at the configured cost.
func (s *Server) hashPassword(user, password string) ([]byte, error) {
	if len(password) > maxPasswordLen {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "the password of user %q is %d bytes, longer than %d", user, len(password), maxPasswordLen)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), s.cfg.BcryptCost)
	if err != nil {
		return nil, fmt.Errorf("hashing the password of user %q: %w", user, err)
	}
	return h, nil
}

// readUser reads a user's record in a transaction; nil if there is none.
func readUser(r *txnReader, name string) (*metapb.UserRecord, error) {
	kv, err := r.get(userKey(name))
	if err != nil || kv == nil {
		return nil, err
	}
	var u metapb.UserRecord
	if err := proto.Unmarshal(kv.Value, &u); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	return &u, nil
}

// bootstrapRoot creates user root with Config.RootPassword unless it exists.
// Several metad starting on one new etcd race here harmlessly: the
// transaction lets one create root and the others find it.
func (s *Server) bootstrapRoot(ctx context.Context) error {
	resp, err := s.cli.Get(ctx, userKey(RootUser))
	if err != nil {
		return fmt.Errorf("reading user root: %w", err)
	}
	if len(resp.Kvs) > 0 {
		return nil
	}
	hash, err := s.hashPassword(RootUser, s.cfg.RootPassword)
	if err != nil {
		return err
	}
	val, err := marshal(&metapb.UserRecord{Name: RootUser, PasswordHash: hash})
	if err != nil {
		return err
	}
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		if u, err := readUser(r, RootUser); err != nil || u != nil {
			return nil, err
		}
		return []clientv3.Op{clientv3.OpPut(userKey(RootUser), val)}, nil
	})
	if err != nil {
		return fmt.Errorf("creating user root: %w", err)
	}
	if rev != 0 {
		s.log.Info("user root created", "version", rev)
	}
	return nil
}

// refuseDefaultRootPassword refuses to serve beyond loopback while root's
// password is still DefaultRootPassword, unless
// Config.AllowDefaultRootPassword: whoever reaches a graphd of such a
// cluster signs in as root. It reads the stored hash, so a catalog whose
// root password was changed starts whatever Config.RootPassword says.
func (s *Server) refuseDefaultRootPassword(ctx context.Context) error {
	if s.cfg.AllowDefaultRootPassword || daemon.LoopbackOnly(s.cfg.ListenAddr) {
		return nil
	}
	isDefault, _, _, err := s.verifyUser(ctx, RootUser, DefaultRootPassword)
	if err != nil || !isDefault {
		return err
	}
	return fmt.Errorf("root's password is still the default and metad listens on %s, beyond loopback, "+
		"where anyone who reaches graphd could sign in as root: give a new catalog another password "+
		"(--root-password-file or NOVA_ROOT_PASSWORD), change an existing catalog's (CHANGE PASSWORD root, "+
		"with metad on loopback or started once with --allow-default-root-password), "+
		"or allow the default with --allow-default-root-password", s.cfg.ListenAddr)
}

func (s *Server) createUser(ctx context.Context, req *metapb.CreateUserReq) (int64, error) {
	name := req.GetName()
	if err := ddlcheck.Name("user", name); err != nil {
		return 0, err
	}
	hash, err := s.hashPassword(name, req.GetPassword())
	if err != nil {
		return 0, err
	}
	val, err := marshal(&metapb.UserRecord{Name: name, PasswordHash: hash})
	if err != nil {
		return 0, err
	}
	var existingRev int64
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		existingRev = 0
		kv, err := r.get(userKey(name))
		if err != nil {
			return nil, err
		}
		if kv != nil {
			if !req.IfNotExists {
				return nil, errorf(commonpb.ErrorCode_E_EXISTED, "user %q already exists", name)
			}
			existingRev = kv.ModRevision
			return nil, nil
		}
		return []clientv3.Op{clientv3.OpPut(userKey(name), val)}, nil
	})
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		s.settle(ctx, existingRev)
		return existingRev, nil
	}
	s.log.Info("user created", "user", name, "version", rev)
	return rev, nil
}

// dropUser removes a user and every role it has.
func (s *Server) dropUser(ctx context.Context, req *metapb.DropUserReq) (int64, error) {
	name := req.GetName()
	if err := ddlcheck.Name("user", name); err != nil {
		return 0, err
	}
	if name == RootUser {
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "user root cannot be dropped")
	}
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		u, err := readUser(r, name)
		if err != nil {
			return nil, err
		}
		if u == nil {
			if req.IfExists {
				return nil, nil
			}
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "user %q not found", name)
		}
		// A grant made meanwhile creates a key under the prefix, which
		// fails the commit, so no role of the user survives it.
		roleKVs, err := r.list(prefixRoles)
		if err != nil {
			return nil, err
		}
		ops := []clientv3.Op{clientv3.OpDelete(userKey(name))}
		for _, kv := range roleKVs {
			if _, user, err := parseRoleKey(string(kv.Key)); err == nil && user == name {
				ops = append(ops, clientv3.OpDelete(string(kv.Key)))
			}
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return s.cat.current().version(), nil
	}
	s.log.Info("user dropped", "user", name, "version", rev)
	return rev, nil
}

// setPassword replaces a user's password hash: ALTER USER (old nil) or
// CHANGE PASSWORD (old must match the current password).
func (s *Server) setPassword(ctx context.Context, method, name string, old *string, password string) (int64, error) {
	if err := ddlcheck.Name("user", name); err != nil {
		return 0, err
	}
	hash, err := s.hashPassword(name, password)
	if err != nil {
		return 0, err
	}
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		u, err := readUser(r, name)
		if err != nil {
			return nil, err
		}
		if u == nil {
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "user %q not found", name)
		}
		if old != nil && bcrypt.CompareHashAndPassword(u.PasswordHash, []byte(*old)) != nil {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "the old password of user %q is wrong", name)
		}
		val, err := marshal(&metapb.UserRecord{Name: name, PasswordHash: hash})
		if err != nil {
			return nil, err
		}
		return []clientv3.Op{clientv3.OpPut(userKey(name), val)}, nil
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("password changed", "user", name, "by", method, "version", rev)
	return rev, nil
}

// changeRole grants (grant) or revokes a user's role on a space. A user has
// at most one role per space; a grant replaces it, and a revoke must name
// it.
func (s *Server) changeRole(ctx context.Context, name string, spaceID int32, role metapb.RoleType, grant bool) (int64, error) {
	verb := "revoked"
	if grant {
		verb = "granted"
	}
	if err := ddlcheck.Name("user", name); err != nil {
		return 0, err
	}
	switch {
	case role == metapb.RoleType_GOD:
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "role GOD belongs to user root alone and cannot be %s", verb)
	case role < metapb.RoleType_GOD || role > metapb.RoleType_GUEST:
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "role %d is not ADMIN, DBA, USER or GUEST", role)
	case name == RootUser:
		return 0, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "user root has role GOD on every space; its role cannot be %s", verb)
	}
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		space, err := readSpace(r, spaceID)
		if err != nil {
			return nil, err
		}
		u, err := readUser(r, name)
		if err != nil {
			return nil, err
		}
		if u == nil {
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "user %q not found", name)
		}
		key := roleKey(spaceID, name)
		kv, err := r.get(key)
		if err != nil {
			return nil, err
		}
		var cur metapb.RoleType
		if kv != nil {
			if cur, err = parseRole(kv.Value); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
		}
		if grant {
			if cur == role {
				return nil, nil
			}
			return []clientv3.Op{clientv3.OpPut(key, role.String())}, nil
		}
		switch {
		case kv == nil:
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "user %q has no role on space %q", name, space.Name)
		case cur != role:
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "user %q has role %s on space %q, not %s", name, cur, space.Name, role)
		}
		return []clientv3.Op{clientv3.OpDelete(key)}, nil
	})
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return s.cat.current().version(), nil
	}
	s.log.Info("role "+verb, "user", name, "space_id", spaceID, "role", role.String(), "version", rev)
	return rev, nil
}

// verifyUser checks a login against the stored hash, read from etcd
// directly (linearizably, so a password changed through another metad
// counts at once). An unknown user costs the same bcrypt comparison as a
// wrong password, and both answer only ok = false.
func (s *Server) verifyUser(ctx context.Context, name, password string) (ok bool, version, created int64, err error) {
	s.dummyHashOnce.Do(func() {
		s.dummyHash, _ = bcrypt.GenerateFromPassword([]byte("no such user"), s.cfg.BcryptCost)
	})
	hash := s.dummyHash
	var kvCreated int64
	var rev int64
	if name != "" {
		resp, err := s.cli.Get(ctx, userKey(name))
		if err != nil {
			return false, 0, 0, fmt.Errorf("reading user %q: %w", name, err)
		}
		if len(resp.Kvs) > 0 {
			var u metapb.UserRecord
			if err := proto.Unmarshal(resp.Kvs[0].Value, &u); err != nil {
				return false, 0, 0, fmt.Errorf("decoding %s: %w", resp.Kvs[0].Key, err)
			}
			// The version to wait for is the user record's own last
			// change, not the store's revision: keys outside the catalog
			// (jobs) move the revision without moving the catalog, and a
			// graphd waiting for the catalog to reach it stalled every
			// sign-in for its whole authWait after any job.
			hash, kvCreated, rev = u.PasswordHash, resp.Kvs[0].CreateRevision, resp.Kvs[0].ModRevision
		}
	}
	match := len(password) <= maxPasswordLen && bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
	if !match || rev == 0 {
		return false, 0, 0, nil
	}
	return true, rev, kvCreated, nil
}
