// Command nova-certs makes the TLS certificates of a novagraph cluster: a
// CA, and for each daemon or tool a certificate naming its role and the
// hosts it serves as, as --tls-dir expects them (docs/security.md).
//
//	nova-certs -dir certs                      # a local cluster on 127.0.0.1
//	nova-certs -dir certs metad1:metad:metad1 storaged1:storaged:storaged1 graphd:graphd:graphd,localhost
//
// An existing CA in -dir is reused, so certificates added later join the
// same cluster; existing certificates are replaced. It also makes the
// cluster's gossip key, gossip.key (kept if there), for --gossip-key-file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/buildinfo"
	"github.com/novagraph/novagraph/internal/nodetls"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "nova-certs:", err)
			os.Exit(2)
		}
	}
}

// localSet is what nova-certs makes without arguments: one certificate per
// role, each for 127.0.0.1 and localhost, named as --tls-dir looks for
// them (storaged.crt for every storaged on the host).
var localSet = []string{
	"metad:metad:127.0.0.1,localhost",
	"storaged:storaged:127.0.0.1,localhost",
	"graphd:graphd:127.0.0.1,localhost",
	"importer:importer:127.0.0.1,localhost",
	"client:client:127.0.0.1,localhost",
}

// metadCommonName is the common name of every metad certificate nova-certs
// makes: the embedded etcd accepts only its own certificate's common name
// on its ports (metad --etcd-allowed-cns), so all metad of a cluster share
// one.
const metadCommonName = "metad"

type spec struct {
	file  string
	role  nodetls.Role
	hosts []string
}

func parseSpec(s string) (spec, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return spec{}, fmt.Errorf("%q: want NAME:ROLE or NAME:ROLE:HOST,HOST", s)
	}
	if strings.ContainsAny(parts[0], `/\`) || parts[0] == "ca" {
		return spec{}, fmt.Errorf("%q: NAME is a file name (not ca, no slashes)", s)
	}
	role := nodetls.Role(parts[1])
	if !slices.Contains(nodetls.Roles, role) {
		return spec{}, fmt.Errorf("%q: unknown role %q (one of %v)", s, parts[1], nodetls.Roles)
	}
	sp := spec{file: parts[0], role: role}
	if len(parts) == 3 {
		for _, h := range strings.Split(parts[2], ",") {
			if h = strings.TrimSpace(h); h != "" {
				sp.hosts = append(sp.hosts, h)
			}
		}
	}
	if len(sp.hosts) == 0 && role != nodetls.RoleClient && role != nodetls.RoleImporter {
		return spec{}, fmt.Errorf("%q: a %s serves, so its certificate needs the hosts it is reached at (NAME:ROLE:HOST,HOST)", s, role)
	}
	return sp, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nova-certs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "certs", "folder of the CA and the certificates")
	validity := fs.Duration("validity", 365*24*time.Hour, "how long the certificates (and a new CA: ten times this) are valid")
	owner := fs.String("owner", "", "UID:GID to give the files this run makes that daemons read (each NAME.crt and NAME.key, and ca.crt and gossip.key when it makes them; never ca.key), e.g. the container user of a bind mount; needs the right to chown")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: nova-certs [flags] [NAME:ROLE:HOST,HOST ...]\n\n"+
			"Makes a CA in -dir (or reuses the one there: ca.crt, ca.key), a gossip key\n"+
			"(gossip.key, kept if there) and, for each\n"+
			"argument, NAME.crt and NAME.key: a certificate of ROLE (%v)\n"+
			"valid as a server for the HOSTs (DNS names or IP addresses). Without\n"+
			"arguments it makes a local cluster's set: %s.\n\nFlags:\n", nodetls.Roles, strings.Join(localSet, " "))
		fs.PrintDefaults()
	}
	showVersion := buildinfo.Flag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Read().String("nova-certs"))
		return nil
	}
	entries := fs.Args()
	if len(entries) == 0 {
		entries = localSet
	}
	var specs []spec
	for _, e := range entries {
		sp, err := parseSpec(e)
		if err != nil {
			return err
		}
		specs = append(specs, sp)
	}
	if *validity <= 0 {
		return fmt.Errorf("-validity must be positive")
	}
	uid, gid := -1, -1
	if *owner != "" {
		var err error
		if uid, gid, err = parseOwner(*owner); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	caCert, caKey := filepath.Join(*dir, "ca.crt"), filepath.Join(*dir, "ca.key")
	// -owner leaves the CA certificate and the gossip key alone when they
	// exist: a certificate added later for another user (nova-br's, say)
	// must not take the daemons' gossip key away from them.
	var owned []string
	ca, err := nodetls.LoadCA(caCert, caKey)
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "using the CA in %s\n", caCert)
	case errors.Is(err, os.ErrNotExist):
		if ca, err = nodetls.NewCA("novagraph CA", 10**validity); err != nil {
			return err
		}
		if err := ca.WriteCA(*dir); err != nil {
			return err
		}
		owned = append(owned, caCert)
		fmt.Fprintf(stdout, "made a CA: %s (keep %s secret: it signs the cluster's certificates)\n", caCert, caKey)
	default:
		return fmt.Errorf("reading the CA: %w", err)
	}
	keyFile := filepath.Join(*dir, "gossip.key")
	switch _, err := os.Stat(keyFile); {
	case err == nil:
		fmt.Fprintf(stdout, "using the gossip key in %s\n", keyFile)
	case errors.Is(err, os.ErrNotExist):
		key, err := gossip.NewKey()
		if err != nil {
			return err
		}
		if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
			return err
		}
		owned = append(owned, keyFile)
		fmt.Fprintf(stdout, "made a gossip key: %s (every daemon's --gossip-key-file; keep it secret)\n", keyFile)
	default:
		return err
	}
	for _, sp := range specs {
		name := sp.file
		if sp.role == nodetls.RoleMetad {
			name = metadCommonName
		}
		if err := ca.WriteIssued(*dir, sp.file, name, sp.role, sp.hosts, *validity); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s.crt: %s %q for %s\n", filepath.Join(*dir, sp.file), sp.role, name, strings.Join(sp.hosts, ", "))
	}
	if uid >= 0 {
		for _, sp := range specs {
			owned = append(owned, filepath.Join(*dir, sp.file+".crt"), filepath.Join(*dir, sp.file+".key"))
		}
		for _, f := range owned {
			if err := os.Chown(f, uid, gid); err != nil {
				return fmt.Errorf("-owner: %w", err)
			}
		}
	}
	return nil
}

// parseOwner parses -owner's UID:GID.
func parseOwner(s string) (uid, gid int, err error) {
	u, g, ok := strings.Cut(s, ":")
	if ok {
		uid, err = strconv.Atoi(u)
		if err == nil {
			gid, err = strconv.Atoi(g)
		}
	}
	if !ok || err != nil || uid < 0 || gid < 0 {
		return -1, -1, fmt.Errorf("-owner %q: want UID:GID, two numbers", s)
	}
	return uid, gid, nil
}
