// Package nodetls gives novagraph's daemons and tools their TLS: the
// certificates a process presents and trusts, the identity a peer's
// certificate proves, and the per-method table of which identities may
// call which gRPC method.
//
// One CA signs every certificate of a cluster. A certificate names its
// holder's role (metad, storaged, graphd, importer or client) in a URI
// subject alternative name, spiffe://novagraph/<role>, and the hosts it
// may serve as in its DNS and IP names. Between daemons TLS is mutual:
// each side proves its role, and a server refuses a call whose caller's
// role the method's policy does not list (see Policy). graphd's client
// port verifies a client certificate when one is given and does not
// require it: users prove who they are by password.
//
// A nil *Config is plaintext: every method is then a no-op that returns
// insecure credentials, so callers pass their *Config along without
// checking whether TLS is on.
package nodetls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/peer"
)

// Role is what a certificate's holder is allowed to be.
type Role string

// The roles of a novagraph cluster.
const (
	RoleMetad    Role = "metad"
	RoleStoraged Role = "storaged"
	RoleGraphd   Role = "graphd"
	// RoleImporter is nova-importer, which creates spaces through metad
	// and writes to storaged directly.
	RoleImporter Role = "importer"
	// RoleClient is a user's program (the console, the Go client): it
	// talks to graphd only.
	RoleClient Role = "client"
)

// Roles lists every role, in the order the docs give them.
var Roles = []Role{RoleMetad, RoleStoraged, RoleGraphd, RoleImporter, RoleClient}

// roleURIPrefix starts the URI subject alternative name that carries a
// certificate's role: spiffe://novagraph/storaged.
const roleURIPrefix = "spiffe://novagraph/"

// RoleURI is the URI subject alternative name of role.
func RoleURI(role Role) *url.URL {
	return &url.URL{Scheme: "spiffe", Host: "novagraph", Path: "/" + string(role)}
}

// Identity is what a verified certificate proves about its holder.
type Identity struct {
	Role Role
	// Name is the certificate's common name (storaged2, graphd, …): for
	// logs and errors; it proves nothing the role and hosts do not.
	Name string
	// Hosts are the certificate's DNS names and IP addresses.
	Hosts []string
}

func (id Identity) String() string {
	return fmt.Sprintf("%s %q", id.Role, id.Name)
}

// HasHost reports whether the certificate names host (a DNS name or an
// IP address, as it is written in a "host:port" address). A wildcard name
// ("*.storaged.svc") covers one leftmost label, as in TLS.
func (id Identity) HasHost(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		for _, h := range id.Hosts {
			if other := net.ParseIP(h); other != nil && other.Equal(ip) {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(id.Hosts, func(h string) bool {
		if strings.EqualFold(h, host) {
			return true
		}
		suffix, wild := strings.CutPrefix(h, "*.")
		label, rest, found := strings.Cut(host, ".")
		return wild && found && label != "" && strings.EqualFold(rest, suffix)
	})
}

// IdentityOf reads the identity a certificate names. A certificate without
// exactly one known role has none: it is refused, whoever signed it.
func IdentityOf(cert *x509.Certificate) (Identity, error) {
	var roles []Role
	for _, u := range cert.URIs {
		s := u.String()
		if !strings.HasPrefix(s, roleURIPrefix) {
			continue
		}
		r := Role(strings.TrimPrefix(s, roleURIPrefix))
		if !slices.Contains(Roles, r) {
			return Identity{}, fmt.Errorf("certificate %q names an unknown role %q (known: %v)", cert.Subject.CommonName, r, Roles)
		}
		roles = append(roles, r)
	}
	switch len(roles) {
	case 0:
		return Identity{}, fmt.Errorf("certificate %q names no novagraph role (a URI name %s<role>)", cert.Subject.CommonName, roleURIPrefix)
	case 1:
	default:
		return Identity{}, fmt.Errorf("certificate %q names several roles %v", cert.Subject.CommonName, roles)
	}
	id := Identity{Role: roles[0], Name: cert.Subject.CommonName}
	id.Hosts = append(id.Hosts, cert.DNSNames...)
	for _, ip := range cert.IPAddresses {
		id.Hosts = append(id.Hosts, ip.String())
	}
	return id, nil
}

// PeerIdentity is the identity of the caller of a gRPC call, from the
// certificate it presented in the TLS handshake (verified against the
// cluster's CA by then). ok is false when the connection is not TLS or
// the caller presented no certificate.
func PeerIdentity(ctx context.Context) (id Identity, ok bool, err error) {
	p, found := peer.FromContext(ctx)
	if !found {
		return Identity{}, false, nil
	}
	info, isTLS := p.AuthInfo.(credentials.TLSInfo)
	if !isTLS || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return Identity{}, false, nil
	}
	id, err = IdentityOf(info.State.VerifiedChains[0][0])
	if err != nil {
		return Identity{}, false, err
	}
	return id, true, nil
}

// Files names the PEM files of one process's TLS material.
type Files struct {
	// Cert and Key are this process's certificate (chain) and private key.
	// Both or neither: a client without them connects with server
	// authentication only (the console to graphd).
	Cert, Key string
	// CA is the bundle of CA certificates this process trusts.
	CA string
}

// Empty reports whether no file is named: TLS is off.
func (f Files) Empty() bool { return f.Cert == "" && f.Key == "" && f.CA == "" }

// Flags are the command-line flags that name the TLS files, the same in
// every daemon and tool.
type Flags struct {
	name               string
	cert, key, ca, dir *string
}

// RegisterFlags adds --tls-cert, --tls-key, --tls-ca and --tls-dir to fs.
// name is the file name --tls-dir looks for (<dir>/<name>.crt and .key,
// beside <dir>/ca.crt): the process's own name, such as "storaged".
func RegisterFlags(fs *flag.FlagSet, name string) *Flags {
	f := &Flags{name: name}
	f.cert = fs.String("tls-cert", "", "PEM certificate (chain) this process presents; turns TLS on with --tls-key and --tls-ca (docs/security.md)")
	f.key = fs.String("tls-key", "", "PEM private key of --tls-cert")
	f.ca = fs.String("tls-ca", "", "PEM bundle of the CA certificates this process trusts (peers' and servers' certificates must chain to one)")
	f.dir = fs.String("tls-dir", "", fmt.Sprintf("directory with ca.crt, %[1]s.crt and %[1]s.key (as nova-certs writes them): short for the three --tls-* files; a file flag given as well wins", name))
	return f
}

// Files resolves the flags: --tls-dir fills in whichever file flag was
// not given.
func (f *Flags) Files() Files {
	files := Files{Cert: *f.cert, Key: *f.key, CA: *f.ca}
	if *f.dir != "" {
		if files.Cert == "" {
			files.Cert = filepath.Join(*f.dir, f.name+".crt")
		}
		if files.Key == "" {
			files.Key = filepath.Join(*f.dir, f.name+".key")
		}
		if files.CA == "" {
			files.CA = filepath.Join(*f.dir, "ca.crt")
		}
	}
	return files
}

// Load reads the files the flags name: nil (plaintext) when none is.
func (f *Flags) Load() (*Config, error) { return Load(f.Files()) }

// LoadDaemon loads the files of a daemon of role: its own certificate is
// required and must be of that role (RequireRole).
func (f *Flags) LoadDaemon(role Role) (*Config, error) {
	c, err := f.Load()
	if err != nil {
		return nil, err
	}
	if err := c.RequireRole(role); err != nil {
		return nil, err
	}
	return c, nil
}

// Config is one process's TLS material: the certificate it presents, if
// any, and the CAs it trusts. nil is plaintext.
type Config struct {
	files Files
	roots *x509.CertPool
	cert  *tls.Certificate // nil: a client that presents none
	// serverName, if set, is the name a client expects in the server's
	// certificate instead of the host it dialled (WithServerName).
	serverName string
	// Identity is what this process's own certificate proves (zero when it
	// has none).
	Identity Identity
}

// Load reads files: nil, nil when they name nothing. A CA is required; a
// certificate and key are optional (daemons require theirs with
// RequireRole) and, when given, must chain to the CA and name a role.
func Load(files Files) (*Config, error) { return load(files, true) }

// LoadClient is Load for a user's client of graphd (the console): its
// certificate, if any, need not name a novagraph role, as graphd's port
// is open to anyone the CA signed.
func LoadClient(files Files) (*Config, error) { return load(files, false) }

func load(files Files, needRole bool) (*Config, error) {
	if files.Empty() {
		return nil, nil
	}
	if files.CA == "" {
		return nil, errors.New("TLS: --tls-ca is required with --tls-cert/--tls-key: the CA whose certificates this process trusts")
	}
	if (files.Cert == "") != (files.Key == "") {
		return nil, fmt.Errorf("TLS: a certificate needs its key and a key its certificate (got --tls-cert %q, --tls-key %q)", files.Cert, files.Key)
	}
	pem, err := os.ReadFile(files.CA)
	if err != nil {
		return nil, fmt.Errorf("TLS: reading the CA bundle: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("TLS: %s holds no PEM certificate", files.CA)
	}
	c := &Config{files: files, roots: roots}
	if files.Cert != "" {
		cert, err := tls.LoadX509KeyPair(files.Cert, files.Key)
		if err != nil {
			return nil, fmt.Errorf("TLS: loading %s and %s: %w", files.Cert, files.Key, err)
		}
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			return nil, fmt.Errorf("TLS: parsing %s: %w", files.Cert, err)
		}
		// The process's own certificate must chain to the CA it trusts:
		// otherwise every peer would refuse it, and the operator learns it
		// here rather than from handshake failures in other daemons' logs.
		intermediates := x509.NewCertPool()
		for _, der := range cert.Certificate[1:] {
			if ic, err := x509.ParseCertificate(der); err == nil {
				intermediates.AddCert(ic)
			}
		}
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
			return nil, fmt.Errorf("TLS: %s is not signed by a CA in %s: %w", files.Cert, files.CA, err)
		}
		if c.Identity, err = IdentityOf(leaf); err != nil {
			if needRole {
				return nil, fmt.Errorf("TLS: %s: %w", files.Cert, err)
			}
			c.Identity = Identity{Name: leaf.Subject.CommonName}
		}
		c.cert = &cert
	}
	return c, nil
}

// Files are the files c was loaded from (for libraries that read them
// themselves, as etcd does).
func (c *Config) Files() Files {
	if c == nil {
		return Files{}
	}
	return c.files
}

// WithServerName returns a copy of c whose client connections expect name
// in the server's certificate, whatever host they dial: for a process
// that dials its own wildcard listen address ("[::]:9559").
func (c *Config) WithServerName(name string) *Config {
	if c == nil {
		return nil
	}
	cp := *c
	cp.serverName = name
	return &cp
}

// OwnHost is the first host this process's certificate names ("" when it
// has none): what it dials itself as (WithServerName).
func (c *Config) OwnHost() string {
	if c == nil || len(c.Identity.Hosts) == 0 {
		return ""
	}
	return c.Identity.Hosts[0]
}

// RequireRole fails unless c is plaintext or carries a certificate of
// role: a daemon started with another role's certificate would be refused
// by every peer.
func (c *Config) RequireRole(role Role) error {
	if c == nil {
		return nil
	}
	if c.cert == nil {
		return fmt.Errorf("TLS: %s needs its own certificate (--tls-cert and --tls-key)", role)
	}
	if c.Identity.Role != role {
		return fmt.Errorf("TLS: %s was given the certificate of %s", role, c.Identity)
	}
	return nil
}

// ClientAuth says what a server asks of its callers' certificates.
type ClientAuth int

const (
	// RequireClientCert: every caller presents a certificate the CA signed
	// (the ports between daemons).
	RequireClientCert ClientAuth = iota
	// VerifyClientCertIfGiven: a caller may present none (graphd's client
	// port); one it presents must verify.
	VerifyClientCertIfGiven
)

// ServerTLS is the tls.Config of a server. nil when c is.
func (c *Config) ServerTLS(auth ClientAuth) *tls.Config {
	if c == nil {
		return nil
	}
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		ClientCAs:  c.roots,
		ClientAuth: tls.RequireAndVerifyClientCert,
	}
	if c.cert != nil { // RequireRole makes sure a daemon has one
		cfg.Certificates = []tls.Certificate{*c.cert}
	}
	if auth == VerifyClientCertIfGiven {
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	return cfg
}

// ClientTLS is the tls.Config of a client. The server's certificate must
// name the host dialled. nil when c is.
func (c *Config) ClientTLS() *tls.Config {
	if c == nil {
		return nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: c.roots, ServerName: c.serverName}
	if c.cert != nil {
		cfg.Certificates = []tls.Certificate{*c.cert}
	}
	return cfg
}

// ServerCredentials are the gRPC server credentials: insecure when c is
// nil.
func (c *Config) ServerCredentials(auth ClientAuth) credentials.TransportCredentials {
	if c == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(c.ServerTLS(auth))
}

// ClientCredentials are the gRPC client credentials: insecure when c is
// nil.
func (c *Config) ClientCredentials() credentials.TransportCredentials {
	if c == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(c.ClientTLS())
}

// RoleClientCredentials are client credentials that accept a server by
// its certificate's role rather than by the host dialled: the chain must
// lead to the CA and the certificate must be role's. graphd dials its
// peers this way at the addresses gossip advertises, which no certificate
// need name (a pod's IP, behind the one certificate all graphd pods
// share); what the caller must know is that it speaks to a graphd of this
// cluster. Insecure when c is nil.
func (c *Config) RoleClientCredentials(role Role) credentials.TransportCredentials {
	if c == nil {
		return insecure.NewCredentials()
	}
	cfg := c.ClientTLS()
	// The standard check would compare the host name; VerifyConnection
	// below does the rest of it (chain, usage) and the role instead.
	cfg.InsecureSkipVerify = true
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server presented no certificate")
		}
		opts := x509.VerifyOptions{Roots: c.roots, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		for _, ic := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(ic)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return fmt.Errorf("the server's certificate: %w", err)
		}
		id, err := IdentityOf(cs.PeerCertificates[0])
		if err != nil {
			return fmt.Errorf("the server's certificate: %w", err)
		}
		if id.Role != role {
			return fmt.Errorf("the server is %s, not a %s", id, role)
		}
		return nil
	}
	return credentials.NewTLS(cfg)
}

// Enabled reports whether TLS is on.
func (c *Config) Enabled() bool { return c != nil }
