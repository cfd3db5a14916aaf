// Command nova-br copies a novagraph snapshot off the cluster and restores
// it into another cluster (guide: docs/backup.md).
//
//	nova-br backup  --meta H:9559 --graph H:9669 -p PW --to DIR [--space S]...
//	nova-br backup  --meta H:9559 --snapshot NAME --to DIR
//	nova-br restore --meta H:9559 -p PW --from DIR [--space S]...
//	nova-br verify  --from DIR
//
// With TLS it presents an importer certificate (--ca, --cert, --key): it
// reads every row of the cluster, as the importer writes them.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/br"
	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/internal/buildinfo"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/nodetls"
	metaclient "github.com/novagraph/novagraph/metad/client"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

func main() {
	root := &cobra.Command{
		Use:           "nova-br",
		Short:         "back a novagraph snapshot up off the cluster, and restore it",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String("nova-br"),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newBackupCmd(), newRestoreCmd(), newVerifyCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "nova-br:", err)
		os.Exit(1)
	}
}

// common are the connection flags of backup and restore.
type common struct {
	meta     string
	tls      nodetls.Files
	user     string
	password string
	spaces   []string
	timeout  time.Duration
}

func (c *common) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.meta, "meta", "127.0.0.1:9559", "comma-separated metad addresses")
	f.StringVar(&c.tls.CA, "ca", "", "with TLS: the cluster's CA certificate (PEM)")
	f.StringVar(&c.tls.Cert, "cert", "", "with --ca: an importer certificate (PEM) to present to metad and storaged")
	f.StringVar(&c.tls.Key, "key", "", "the private key (PEM) of --cert")
	f.StringVarP(&c.user, "user", "u", "root", "user to sign in as (root: restore recreates spaces, backup creates a snapshot)")
	f.StringVarP(&c.password, "password", "p", "", "the user's password; visible in the process list: prefer setting "+passwordEnv)
	f.StringSliceVar(&c.spaces, "space", nil, "only this space (repeat, or comma-separate, for several); default: every space")
	f.DurationVar(&c.timeout, "timeout", 6*time.Hour, "give up after this long")
}

// passwordEnv names the environment variable that holds the password when
// --password is not given.
const passwordEnv = "NOVA_PASSWORD"

func (c *common) connect() (*metaclient.Client, *storageclient.Client, *nodetls.Config, error) {
	if c.password == "" {
		c.password = os.Getenv(passwordEnv)
	}
	if c.tls.CA == "" && (c.tls.Cert != "" || c.tls.Key != "") {
		return nil, nil, nil, errors.New("--cert and --key need --ca")
	}
	tlsConfig, err := nodetls.LoadClient(c.tls)
	if err != nil {
		return nil, nil, nil, err
	}
	log := daemon.NewLogger(os.Stderr, "nova-br", slog.LevelInfo)
	mc := metaclient.New(daemon.SplitList(c.meta), log, metaclient.WithTLS(tlsConfig))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mc.WaitVersion(ctx, 1); err != nil {
		mc.Close()
		return nil, nil, nil, fmt.Errorf("reading the catalog from metad %s: %w", c.meta, err)
	}
	return mc, storageclient.New(mc, log), tlsConfig, nil
}

func newBackupCmd() *cobra.Command {
	var (
		c        common
		to       string
		snapshot string
		graph    string
	)
	cmd := &cobra.Command{
		Use:   "backup --to DIR (--snapshot NAME | --graph HOST:PORT, with -p PASSWORD or NOVA_PASSWORD) [flags]",
		Short: "copy a snapshot's catalog and partitions to a directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return errors.New("--to is required")
			}
			if (snapshot == "") == (graph == "") {
				return errors.New("give --snapshot (an existing one) or --graph (to create one with CREATE SNAPSHOT), not both")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), c.timeout)
			defer cancel()
			mc, sc, tlsConfig, err := c.connect()
			if err != nil {
				return err
			}
			defer mc.Close()
			defer sc.Close()
			if graph != "" {
				if snapshot, err = createSnapshot(ctx, graph, tlsConfig, c.user, c.password); err != nil {
					return err
				}
				fmt.Fprintln(os.Stderr, "nova-br: created snapshot", snapshot)
			}
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			st := br.DirStore{Dir: to}
			if ok, _ := st.Exists(br.ManifestName); ok {
				return fmt.Errorf("%s holds a backup already: back up into an empty directory", to)
			}
			m, err := br.Backup(ctx, br.BackupOptions{Meta: mc, Storage: sc, Snapshot: snapshot, Spaces: c.spaces, Store: st,
				Log: daemon.NewLogger(os.Stderr, "nova-br", slog.LevelInfo)})
			if err != nil {
				return err
			}
			printSummary("backed up", m, to)
			return nil
		},
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&to, "to", "", "the directory to write the backup to (empty or new)")
	cmd.Flags().StringVar(&snapshot, "snapshot", "", "the snapshot to copy (SHOW SNAPSHOTS)")
	cmd.Flags().StringVar(&graph, "graph", "", "graphd address to run CREATE SNAPSHOT on first, as --user")
	return cmd
}

// createSnapshot runs CREATE SNAPSHOT on graphd and returns its name.
func createSnapshot(ctx context.Context, graph string, tlsConfig *nodetls.Config, user, password string) (string, error) {
	pool, err := client.NewPool(client.Config{Addresses: []string{graph}, TLS: tlsConfig.ClientTLS()})
	if err != nil {
		return "", err
	}
	defer pool.Close()
	s, err := pool.Session(ctx, user, password)
	if err != nil {
		return "", fmt.Errorf("signing in to graphd %s as %s: %w", graph, user, err)
	}
	defer s.Close()
	rs, err := s.Execute(ctx, "CREATE SNAPSHOT")
	if err != nil {
		return "", fmt.Errorf("CREATE SNAPSHOT: %w", err)
	}
	return rs.Row(0).String(0)
}

func newRestoreCmd() *cobra.Command {
	var (
		c    common
		from string
		rf   int32
	)
	cmd := &cobra.Command{
		Use:   "restore --from DIR (-p PASSWORD or NOVA_PASSWORD set) [flags]",
		Short: "recreate a backup's spaces in a cluster that has none of them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return errors.New("--from is required")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), c.timeout)
			defer cancel()
			mc, sc, _, err := c.connect()
			if err != nil {
				return err
			}
			defer mc.Close()
			defer sc.Close()
			m, err := br.Restore(ctx, br.RestoreOptions{Meta: mc, Storage: sc, Store: br.DirStore{Dir: from}, Spaces: c.spaces,
				User: c.user, Password: c.password, ReplicaFactor: rf, Log: daemon.NewLogger(os.Stderr, "nova-br", slog.LevelInfo)})
			if err != nil {
				return err
			}
			printSummary("restored", m, from)
			return nil
		},
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&from, "from", "", "the backup's directory")
	cmd.Flags().Int32Var(&rf, "replica-factor", 0, "restore the spaces with this replica factor instead of the backup's (a cluster with fewer storaged)")
	return cmd
}

func newVerifyCmd() *cobra.Command {
	var from string
	cmd := &cobra.Command{
		Use:   "verify --from DIR",
		Short: "check every file of a backup against its manifest (size and SHA-256)",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			st := br.DirStore{Dir: from}
			m, err := br.ReadManifest(st)
			if err != nil {
				return err
			}
			if err := m.Verify(st); err != nil {
				return err
			}
			printSummary("verified", m, from)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the backup's directory")
	return cmd
}

func printSummary(what string, m *br.Manifest, dir string) {
	var names []string
	parts := 0
	for _, sp := range m.Spaces {
		names = append(names, sp.Name)
		parts += len(sp.Parts)
	}
	fmt.Printf("%s snapshot %s (%s): spaces %s, %d partitions, %d files\n", what, m.Snapshot, dir, strings.Join(names, ", "), parts, len(m.Files()))
}
