package metad

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Credentials are metad's proof that a user signed in. The users and roles
// methods (CreateUser, DropUser, AlterUser, GrantRole, RevokeRole) used to
// trust their caller's check of the session's role, so whoever held a
// graphd certificate (or, without TLS, reached the port) could reset root's
// password. Now each call carries the credential VerifyUser issued to the
// session's user, and metad itself checks that this user may make it: GOD
// for the users methods; GOD, or ADMIN of the space for a role below ADMIN,
// for GrantRole and RevokeRole (the same rules graphd applies,
// graphd/exec/users.go). ChangePassword needs none: it needs the old
// password. A stolen graphd certificate then changes no user or role
// without a user's password.
//
// A credential is opaque to graphd, which keeps it with the session and
// sends it as the metadata metaclient.CredentialHeader:
//
//	byte 0          credentialVersion (1)
//	bytes 1–8       the user's create revision, big-endian: the etcd
//	                CreateRevision of users/<name> when it signed in, so a
//	                user dropped and created again does not inherit the old
//	                user's sessions
//	uvarint + bytes the user's name
//	last 32 bytes   HMAC-SHA256, under the catalog's credential key, of
//	                everything before it
//
// The credential key is 32 random bytes the first metad of a catalog
// writes to etcd (keyCredentialKey); every metad of the catalog reads the
// same one, so a credential from one metad holds at the others. It lives
// outside the watched catalog prefix: it is never sent to graphd or
// storaged. A credential is a bearer token that does not expire: it holds
// until its user is dropped (or the key replaced), whatever becomes of the
// session that got it, and a password change does not void it (nor end
// sessions, as in NebulaGraph). It travels only between graphd and metad,
// and from graphd to its peer graphds (SHOW QUERIES and KILL across the
// cluster, graphd/peers.go), which ask metad whose it is (WhoAmI):
// metaclient attaches it to those calls alone, never to storaged's. Deleting the
// key from etcd and restarting every metad voids every credential (every
// session must sign in again before its next users or roles statement).

const (
	// authRoot holds metad's own secrets, outside keyRoot (the catalog
	// watch) and jobsRoot.
	authRoot = "/novagraph-auth/"
	// keyCredentialKey is the HMAC key of credentials: 32 raw bytes.
	keyCredentialKey = authRoot + "credential-key"

	credentialVersion = 1
	credentialKeyLen  = 32
	credentialMACLen  = sha256.Size
)

// loadCredentialKey reads the catalog's credential key, creating it if this
// is the first metad of the catalog. Several metad starting together race
// harmlessly: the transaction lets one write it and the others read it.
func (s *Server) loadCredentialKey(ctx context.Context) error {
	fresh := make([]byte, credentialKeyLen)
	if _, err := rand.Read(fresh); err != nil {
		return fmt.Errorf("making the credential key: %w", err)
	}
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(keyCredentialKey), "=", 0)).
		Then(clientv3.OpPut(keyCredentialKey, string(fresh))).
		Else(clientv3.OpGet(keyCredentialKey)).
		Commit()
	if err != nil {
		return fmt.Errorf("reading the credential key %s: %w", keyCredentialKey, err)
	}
	key := fresh
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().GetKvs()
		if len(kvs) != 1 {
			return fmt.Errorf("reading the credential key %s: it vanished between the compare and the read", keyCredentialKey)
		}
		key = kvs[0].Value
	} else {
		s.log.Info("credential key created", "key", keyCredentialKey)
	}
	if len(key) != credentialKeyLen {
		return fmt.Errorf("the credential key %s has %d bytes, want %d: delete it and restart every metad to make a new one (every session then signs in again)",
			keyCredentialKey, len(key), credentialKeyLen)
	}
	s.credentialKey = key
	return nil
}

// sealCredential issues the credential of user name, created at etcd
// revision created.
func (s *Server) sealCredential(name string, created int64) []byte {
	b := make([]byte, 0, 1+8+binary.MaxVarintLen64+len(name)+credentialMACLen)
	b = append(b, credentialVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(created))
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	mac := hmac.New(sha256.New, s.credentialKey)
	mac.Write(b)
	return mac.Sum(b)
}

// errCredential is why a credential was not accepted; the message names no
// secret.
var errCredential = errors.New("not a credential this catalog's metad issued")

// openCredential checks a credential's MAC and returns the user and create
// revision it names.
func (s *Server) openCredential(c []byte) (name string, created int64, err error) {
	if len(c) < 1+8+1+credentialMACLen || c[0] != credentialVersion {
		return "", 0, errCredential
	}
	body, sum := c[:len(c)-credentialMACLen], c[len(c)-credentialMACLen:]
	mac := hmac.New(sha256.New, s.credentialKey)
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), sum) {
		return "", 0, errCredential
	}
	created = int64(binary.BigEndian.Uint64(body[1:9]))
	n, k := binary.Uvarint(body[9:])
	if k <= 0 || uint64(len(body)-9-k) != n {
		return "", 0, errCredential // cannot happen under a valid MAC, short of a bug in sealCredential
	}
	return string(body[9+k:]), created, nil
}

// callerUser returns the signed-in user behind a call: the one its
// credential names, if that user still exists as it was when it signed in.
// The error is a gRPC Unauthenticated status naming method.
func (s *Server) callerUser(ctx context.Context, method string) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(metaclient.CredentialHeader)
	switch len(vals) {
	case 0:
		return "", status.Errorf(codes.Unauthenticated,
			"metad %s: the call carries no credential: only a signed-in user's session may change users and roles (graphd sends its session's)", method)
	case 1:
	default:
		return "", status.Errorf(codes.Unauthenticated, "metad %s: the call carries %d credentials, not one", method, len(vals))
	}
	name, created, err := s.openCredential([]byte(vals[0]))
	if err != nil {
		return "", status.Errorf(codes.Unauthenticated, "metad %s: the call's credential is %v", method, err)
	}
	resp, err := s.cli.Get(ctx, userKey(name))
	if err != nil {
		return "", fmt.Errorf("metad %s: reading user %q of the credential: %w", method, name, err)
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != created {
		return "", status.Errorf(codes.Unauthenticated,
			"metad %s: user %q of the session was dropped since it signed in: sign in again", method, name)
	}
	return name, nil
}

// checkCallerGod refuses a call whose signed-in user is not GOD (root).
func (s *Server) checkCallerGod(ctx context.Context, method string) error {
	name, err := s.callerUser(ctx, method)
	if err != nil {
		return err
	}
	if name != RootUser {
		return status.Errorf(codes.PermissionDenied, "metad %s: user %q is not GOD: only root may make this call", method, name)
	}
	return nil
}

// checkCallerGrants refuses a GrantRole or RevokeRole of role to user on
// space unless the signed-in user is GOD, or is ADMIN of that space and
// the change is one graphd lets an ADMIN make: a role below ADMIN, for
// another user, who is not ADMIN there (an ADMIN must not demote or remove
// a fellow ADMIN, or itself).
func (s *Server) checkCallerGrants(ctx context.Context, method string, space int32, role metapb.RoleType, user string) error {
	name, err := s.callerUser(ctx, method)
	if err != nil || name == RootUser {
		return err
	}
	roleOn := func(who string) (metapb.RoleType, error) {
		key := roleKey(space, who)
		resp, err := s.cli.Get(ctx, key)
		if err != nil {
			return 0, fmt.Errorf("metad %s: reading the role of user %q: %w", method, who, err)
		}
		if len(resp.Kvs) == 0 {
			return 0, nil
		}
		r, err := parseRole(resp.Kvs[0].Value)
		if err != nil {
			return 0, fmt.Errorf("metad %s: %s: %w", method, key, err)
		}
		return r, nil
	}
	have, err := roleOn(name)
	if err != nil {
		return err
	}
	switch {
	case have != metapb.RoleType_ADMIN:
		return status.Errorf(codes.PermissionDenied, "metad %s: user %q is neither GOD nor ADMIN of space %d", method, name, space)
	case role <= metapb.RoleType_ADMIN:
		return status.Errorf(codes.PermissionDenied, "metad %s: user %q is ADMIN of space %d, which may grant and revoke only DBA, USER and GUEST, not %s", method, name, space, role)
	case user == name:
		return status.Errorf(codes.PermissionDenied, "metad %s: user %q is ADMIN of space %d and may not change its own role there", method, name, space)
	case user == RootUser:
		return nil // changeRole refuses any change of root's role
	}
	target, err := roleOn(user)
	if err != nil {
		return err
	}
	if target == metapb.RoleType_ADMIN {
		return status.Errorf(codes.PermissionDenied, "metad %s: user %q is ADMIN of space %d and may not change the role of user %q, ADMIN there too", method, name, space, user)
	}
	return nil
}
