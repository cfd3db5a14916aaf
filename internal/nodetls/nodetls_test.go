package nodetls

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

const validity = 24 * time.Hour

// writeIdentity issues name/role from ca into dir and loads it as a
// process would, with --tls-dir.
func writeIdentity(t *testing.T, ca *CA, dir, name string, role Role) *Config {
	t.Helper()
	if err := ca.WriteIssued(dir, name, name, role, []string{"127.0.0.1", "localhost"}, validity); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Files{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key"), CA: filepath.Join(dir, "ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newCA(t *testing.T, dir string) *CA {
	t.Helper()
	ca, err := NewCA("test CA", validity)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ca.WriteCA(dir); err != nil {
		t.Fatal(err)
	}
	return ca
}

type healthy struct {
	healthpb.UnimplementedHealthServer
}

func (healthy) Check(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// serve starts a health service with server's TLS and policy.
func serve(t *testing.T, server *Config, auth ClientAuth, p Policy) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(append([]grpc.ServerOption{grpc.Creds(server.ServerCredentials(auth))}, server.ServerOptions(p)...)...)
	healthpb.RegisterHealthServer(s, healthy{})
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

func check(t *testing.T, addr string, client *Config) error {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(client.ClientCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return err
}

// TestMutualTLSAndPolicy plays the callers a daemon's port meets: only a
// certificate from the cluster's CA with a role the method is open to
// gets through, and each refusal says why.
func TestMutualTLSAndPolicy(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, dir)
	server := writeIdentity(t, ca, dir, "storaged1", RoleStoraged)
	peer := writeIdentity(t, ca, dir, "storaged2", RoleStoraged)
	graphd := writeIdentity(t, ca, dir, "graphd", RoleGraphd)
	otherDir := filepath.Join(dir, "other")
	other := newCA(t, otherDir)
	foreign := writeIdentity(t, other, otherDir, "storaged9", RoleStoraged)
	// A client that trusts the cluster's CA but presents no certificate.
	anonymous, err := Load(Files{CA: filepath.Join(dir, "ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	policy := Policy{"/grpc.health.v1.Health/Check": {RoleStoraged}}
	addr := serve(t, server, RequireClientCert, policy)

	tests := []struct {
		name   string
		client *Config
		code   codes.Code
		says   string
	}{
		{"a storaged certificate", peer, codes.OK, ""},
		{"a graphd certificate", graphd, codes.PermissionDenied, `graphd "graphd" may not call /grpc.health.v1.Health/Check (open to storaged)`},
		{"no certificate", anonymous, codes.Unavailable, ""}, // refused in the handshake: what the client reads varies
		{"another CA's certificate", foreign, codes.Unavailable, ""},
		{"plaintext", nil, codes.Unavailable, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, addr, tc.client)
			if got := status.Code(err); got != tc.code {
				t.Fatalf("code %v (%v), want %v", got, err, tc.code)
			}
			if tc.says != "" && !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

// TestClientPortOptionalCertificate: graphd's client port takes callers
// without a certificate, and still refuses one from another CA.
func TestClientPortOptionalCertificate(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, dir)
	server := writeIdentity(t, ca, dir, "graphd", RoleGraphd)
	otherDir := filepath.Join(dir, "other")
	foreign := writeIdentity(t, newCA(t, otherDir), otherDir, "client", RoleClient)
	anonymous, err := Load(Files{CA: filepath.Join(dir, "ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, server, VerifyClientCertIfGiven, Policy{"/grpc.health.v1.Health/*": {Anyone}})
	if err := check(t, addr, anonymous); err != nil {
		t.Fatalf("a client without a certificate: %v", err)
	}
	if err := check(t, addr, foreign); status.Code(err) != codes.Unavailable {
		t.Fatalf("a certificate from another CA: %v, want refused in the handshake", err)
	}
	// A client that does not trust the server's CA refuses the server.
	if err := check(t, addr, foreign); err == nil {
		t.Fatal("a client trusting another CA connected")
	}
}

// TestUnnamedMethodRefused: a policy closes what it does not name, even to
// a valid certificate.
func TestUnnamedMethodRefused(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, dir)
	server := writeIdentity(t, ca, dir, "metad", RoleMetad)
	addr := serve(t, server, RequireClientCert, Policy{"/grpc.health.v1.Health/Watch": {RoleMetad}})
	err := check(t, addr, server)
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "not in this server's policy") {
		t.Fatalf("got %v", err)
	}
}

func TestPolicyCovers(t *testing.T) {
	p := Policy{"/grpc.health.v1.Health/Check": {RoleMetad}}
	if err := p.Covers(healthpb.Health_ServiceDesc); err == nil || !strings.Contains(err.Error(), "grpc.health.v1.Health/Watch") {
		t.Fatalf("Covers = %v, want Watch named as missing", err)
	}
	p["/grpc.health.v1.Health/*"] = []Role{RoleGraphd}
	if err := p.Covers(healthpb.Health_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	if roles, _ := p.Allowed("/grpc.health.v1.Health/Check"); len(roles) != 1 || roles[0] != RoleMetad {
		t.Fatalf("a method's own entry must win over its service's: %v", roles)
	}
}

// TestLoadErrors: each misconfiguration is named when the process starts.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, dir)
	writeIdentity(t, ca, dir, "storaged", RoleStoraged)
	otherDir := filepath.Join(dir, "other")
	writeIdentity(t, newCA(t, otherDir), otherDir, "storaged", RoleStoraged)
	writeWithoutRole(t, ca, dir, "norole")
	p := func(parts ...string) string { return filepath.Join(append([]string{dir}, parts...)...) }
	tests := []struct {
		name  string
		files Files
		says  string
	}{
		{"no CA", Files{Cert: p("storaged.crt"), Key: p("storaged.key")}, "--tls-ca is required"},
		{"cert without key", Files{Cert: p("storaged.crt"), CA: p("ca.crt")}, "a certificate needs its key"},
		{"missing CA file", Files{CA: p("nope.crt")}, "reading the CA bundle"},
		{"another CA's certificate", Files{Cert: p("other", "storaged.crt"), Key: p("other", "storaged.key"), CA: p("ca.crt")}, "is not signed by a CA in"},
		{"not PEM", Files{CA: p("storaged.key")}, "holds no PEM certificate"},
		{"no role", Files{Cert: p("norole.crt"), Key: p("norole.key"), CA: p("ca.crt")}, `certificate "norole" names no novagraph role`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.files)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Load = %v, want an error saying %q", err, tc.says)
			}
		})
	}
	if c, err := Load(Files{}); c != nil || err != nil {
		t.Fatalf("no files: %v, %v; want plaintext", c, err)
	}
	c, err := Load(Files{Cert: p("storaged.crt"), Key: p("storaged.key"), CA: p("ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RequireRole(RoleMetad); err == nil || !strings.Contains(err.Error(), `metad was given the certificate of storaged "storaged"`) {
		t.Fatalf("RequireRole = %v", err)
	}
	if err := c.RequireRole(RoleStoraged); err != nil {
		t.Fatal(err)
	}
}

// writeWithoutRole writes a certificate ca signed that names no role, as
// an operator's PKI might issue for another purpose.
func writeWithoutRole(t *testing.T, ca *CA, dir, name string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(validity),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestIdentityHosts(t *testing.T) {
	id := Identity{Role: RoleStoraged, Hosts: []string{"storaged1", "10.0.0.5", "::1", "*.storaged.svc"}}
	for host, want := range map[string]bool{"storaged1": true, "STORAGED1": true, "10.0.0.5": true, "0:0::1": true, "storaged2": false, "10.0.0.6": false,
		"s-0.storaged.svc": true, "storaged.svc": false, "a.b.storaged.svc": false, ".storaged.svc": false} {
		if got := id.HasHost(host); got != want {
			t.Errorf("HasHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// plaintext: a nil *Config is insecure everywhere and installs no policy.
func TestPlaintext(t *testing.T) {
	var c *Config
	if c.Enabled() || c.ServerOptions(Policy{}) != nil || c.ServerTLS(RequireClientCert) != nil || c.ClientTLS() != nil {
		t.Fatal("a nil config must be plaintext")
	}
	if c.ClientCredentials().Info().SecurityProtocol != insecure.NewCredentials().Info().SecurityProtocol {
		t.Fatal("a nil config must give insecure credentials")
	}
}

// TestFlags: --tls-dir names the three files; a file flag given as well
// wins.
func TestFlags(t *testing.T) {
	fs := flag.NewFlagSet("storaged", flag.ContinueOnError)
	f := RegisterFlags(fs, "storaged")
	if err := fs.Parse([]string{"-tls-dir", "/etc/nova", "-tls-ca", "/etc/pki/ca.pem"}); err != nil {
		t.Fatal(err)
	}
	want := Files{Cert: "/etc/nova/storaged.crt", Key: "/etc/nova/storaged.key", CA: "/etc/pki/ca.pem"}
	if got := f.Files(); got != want {
		t.Fatalf("Files() = %+v, want %+v", got, want)
	}
	empty := RegisterFlags(flag.NewFlagSet("x", flag.ContinueOnError), "graphd")
	if c, err := empty.LoadDaemon(RoleGraphd); c != nil || err != nil {
		t.Fatalf("no flags: %v, %v; want plaintext", c, err)
	}
}

// TestRoleClientCredentials: a client dialling by role accepts a server
// whose certificate names another host, as long as the cluster's CA signed
// it for that role; a certificate of another role or from another CA is
// refused in the handshake.
func TestRoleClientCredentials(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, dir)
	load := func(ca *CA, dir, name string, role Role) *Config {
		t.Helper()
		if err := ca.WriteIssued(dir, name, name, role, []string{"elsewhere.example"}, validity); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Files{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key"), CA: filepath.Join(dir, "ca.crt")})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	client := writeIdentity(t, ca, dir, "graphd1", RoleGraphd)
	otherDir := filepath.Join(dir, "other")
	other := newCA(t, otherDir)
	for _, tc := range []struct {
		name   string
		server *Config
		ok     bool
	}{
		{"a graphd naming another host", load(ca, dir, "graphd2", RoleGraphd), true},
		{"a storaged", load(ca, dir, "storaged1", RoleStoraged), false},
		{"another CA's graphd", load(other, otherDir, "graphd9", RoleGraphd), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := serve(t, tc.server, RequireClientCert, Policy{"/grpc.health.v1.Health/Check": {RoleGraphd}})
			conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(client.RoleClientCredentials(RoleGraphd)))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
			if (err == nil) != tc.ok {
				t.Fatalf("Check: %v, want ok=%v", err, tc.ok)
			}
			// By host name, the same server is refused: its certificate
			// does not name 127.0.0.1.
			if tc.ok {
				if err := check(t, addr, client); err == nil {
					t.Fatal("host-name verification accepted a certificate for elsewhere.example at 127.0.0.1")
				}
			}
		})
	}
}
