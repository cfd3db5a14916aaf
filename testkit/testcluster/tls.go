package testcluster

import (
	"os"
	"path/filepath"
	"time"

	"github.com/novagraph/novagraph/internal/nodetls"
)

// TLSFiles are a test cluster's CA and one certificate per role, all for
// 127.0.0.1 and localhost, in Dir as nova-certs writes them (<role>.crt,
// <role>.key, ca.crt).
type TLSFiles struct {
	Dir string
	CA  *nodetls.CA
}

func makeCerts(dir string) (*TLSFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ca, err := nodetls.NewCA("test cluster CA", 24*time.Hour)
	if err != nil {
		return nil, err
	}
	if err := ca.WriteCA(dir); err != nil {
		return nil, err
	}
	for _, role := range nodetls.Roles {
		// metad's etcd accepts only its own certificate's common name.
		if err := ca.WriteIssued(dir, string(role), string(role), role, []string{"127.0.0.1", "localhost"}, 24*time.Hour); err != nil {
			return nil, err
		}
	}
	return &TLSFiles{Dir: dir, CA: ca}, nil
}

// Load loads the certificate of role, as the daemon of that role does.
func (f *TLSFiles) Load(role nodetls.Role) (*nodetls.Config, error) {
	return nodetls.Load(nodetls.Files{
		Cert: filepath.Join(f.Dir, string(role)+".crt"),
		Key:  filepath.Join(f.Dir, string(role)+".key"),
		CA:   filepath.Join(f.Dir, "ca.crt"),
	})
}

// tlsFor is the TLS of the cluster's daemon (or client) of role: nil
// without Options.TLS.
func (c *Cluster) tlsFor(role nodetls.Role) *nodetls.Config {
	if c.TLS == nil {
		return nil
	}
	cfg, err := c.TLS.Load(role)
	if err != nil {
		c.t.Fatalf("testcluster: loading the %s certificate: %v", role, err)
	}
	return cfg
}
