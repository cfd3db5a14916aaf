package nodetls

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Anyone in a Policy opens a method to every caller, with a certificate or
// without: graphd's client methods, where users prove who they are by
// password.
const Anyone Role = "*"

// Policy names, for each gRPC method a server offers, the roles whose
// certificates may call it. Keys are full method names
// ("/novagraph.storage.StorageService/GetNeighbors") or a whole service
// ("/novagraph.storage.StorageService/*"); a method's own entry wins over
// its service's. A method the policy does not name is refused: a new RPC
// stays closed until someone decides who may call it (each server's test
// checks that every method of its services is named).
type Policy map[string][]Role

// Allowed returns the roles that may call fullMethod and whether the
// policy names it at all.
func (p Policy) Allowed(fullMethod string) ([]Role, bool) {
	if roles, ok := p[fullMethod]; ok {
		return roles, true
	}
	if i := strings.LastIndexByte(fullMethod, '/'); i > 0 {
		roles, ok := p[fullMethod[:i+1]+"*"]
		return roles, ok
	}
	return nil, false
}

// Check decides one call: nil, or a status error naming the method and
// what it needs (Unauthenticated without a usable certificate,
// PermissionDenied for a role the method is not open to).
func (p Policy) Check(ctx context.Context, fullMethod string) error {
	roles, named := p.Allowed(fullMethod)
	if !named {
		return status.Errorf(codes.PermissionDenied, "%s is open to no caller (not in this server's policy)", fullMethod)
	}
	if slices.Contains(roles, Anyone) {
		return nil
	}
	id, ok, err := PeerIdentity(ctx)
	if err != nil {
		return status.Errorf(codes.Unauthenticated, "%s: %v", fullMethod, err)
	}
	if !ok {
		return status.Errorf(codes.Unauthenticated, "%s needs a client certificate of role %s", fullMethod, rolesText(roles))
	}
	if !slices.Contains(roles, id.Role) {
		return status.Errorf(codes.PermissionDenied, "%s may not call %s (open to %s)", id, fullMethod, rolesText(roles))
	}
	return nil
}

func rolesText(roles []Role) string {
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = string(r)
	}
	return strings.Join(parts, " or ")
}

// ServerOptions are the interceptors that enforce p on every unary and
// streaming call, and nothing when c is plaintext: without certificates
// there is no identity to check (docs/security.md says what that leaves
// open).
func (c *Config) ServerOptions(p Policy) []grpc.ServerOption {
	if c == nil {
		return nil
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if err := p.Check(ctx, info.FullMethod); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if err := p.Check(ss.Context(), info.FullMethod); err != nil {
				return err
			}
			return handler(srv, ss)
		}),
	}
}

// Covers fails unless p names every method of services (for the servers'
// tests: a method added to a .proto without a policy entry would be
// refused to every caller).
func (p Policy) Covers(services ...grpc.ServiceDesc) error {
	var missing []string
	for _, sd := range services {
		for _, m := range sd.Methods {
			if _, ok := p.Allowed("/" + sd.ServiceName + "/" + m.MethodName); !ok {
				missing = append(missing, sd.ServiceName+"/"+m.MethodName)
			}
		}
		for _, st := range sd.Streams {
			if _, ok := p.Allowed("/" + sd.ServiceName + "/" + st.StreamName); !ok {
				missing = append(missing, sd.ServiceName+"/"+st.StreamName)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the policy names no roles for %s", strings.Join(missing, ", "))
	}
	return nil
}
