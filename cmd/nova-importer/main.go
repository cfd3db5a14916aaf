// Command nova-importer bulk-loads CSV, SNAP, Parquet, Spark and GraphAr
// files into novagraph; see package importer.
//
//	nova-importer --config import.yaml
//	nova-importer --ldbc ../shared/data/ldbc-sf0.1 --space ldbc --partitions 10 --replicas 3
//	nova-importer --snap soc-Slashdot0902.txt.gz --space slashdot --edge link
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/novagraph/novagraph/importer"
	"github.com/novagraph/novagraph/internal/buildinfo"
	"github.com/novagraph/novagraph/internal/nodetls"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "nova-importer:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	var (
		configPath, ldbcDir, snapFile, edge, metaAddrs, logLevel string
		preset                                                   importer.PresetOptions
		snapHeader, retryFailed, restart, noProgress             bool
		tlsFlags                                                 *nodetls.Flags
	)
	cmd := &cobra.Command{
		Use:           "nova-importer (--config FILE | --ldbc DIR | --snap FILE) [flags]",
		Short:         "bulk-load files into a novagraph space",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String("nova-importer"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var cfg *importer.Config
			var err error
			if metaAddrs != "" {
				preset.MetaAddrs = strings.Split(metaAddrs, ",")
			}
			given := 0
			for _, s := range []string{configPath, ldbcDir, snapFile} {
				if s != "" {
					given++
				}
			}
			if given != 1 {
				return errors.New("give exactly one of --config, --ldbc and --snap")
			}
			needSpace := func() error {
				if preset.Space == "" {
					return errors.New("--space is required with --ldbc and --snap")
				}
				return nil
			}
			switch {
			case configPath != "":
				if cfg, err = importer.LoadConfig(configPath); err != nil {
					return err
				}
				override(cmd, cfg, preset)
				if err := cfg.Validate(); err != nil {
					return err
				}
			case ldbcDir != "":
				if err := needSpace(); err != nil {
					return err
				}
				if cfg, err = importer.LDBCConfig(ldbcDir, preset); err != nil {
					return err
				}
			default:
				if err := needSpace(); err != nil {
					return err
				}
				if cfg, err = importer.SNAPConfig(snapFile, edge, snapHeader, preset); err != nil {
					return err
				}
			}
			if cfg.Client.TLS, err = tlsFlags.LoadDaemon(nodetls.RoleImporter); err != nil {
				return err
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level %q: %w", logLevel, err)
			}
			opts := importer.Options{
				Log:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
				RetryFailed: retryFailed,
				Restart:     restart,
			}
			if lim := importer.GoMemoryLimit(cfg); lim > 0 && os.Getenv("GOMEMLIMIT") == "" {
				// A process-wide setting: the command's, not the library's.
				debug.SetMemoryLimit(lim)
				opts.Log.Info("Go memory limit set", "limit_mib", lim>>20, "sst_memory_mb", cfg.Manager.SSTMemoryMB)
			}
			if !noProgress && term.IsTerminal(int(os.Stderr.Fd())) {
				opts.Progress = os.Stderr
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sum, err := importer.Run(ctx, cfg, opts)
			if sum != nil {
				fmt.Fprintln(cmd.OutOrStdout(), sum)
			}
			if err != nil && ctx.Err() != nil {
				return fmt.Errorf("interrupted; run the same command again to resume: %w", err)
			}
			return err
		},
	}
	f := cmd.Flags()
	goFlags := flag.NewFlagSet("tls", flag.ContinueOnError)
	tlsFlags = nodetls.RegisterFlags(goFlags, "importer")
	f.AddGoFlagSet(goFlags)
	f.StringVarP(&configPath, "config", "c", "", "YAML config (nebula-importer v4 format)")
	f.StringVar(&ldbcDir, "ldbc", "", "preset: an LDBC SNB CsvComposite folder (Person and knows)")
	f.StringVar(&snapFile, "snap", "", "preset: a SNAP edge list (plain or .gz)")
	f.StringVar(&edge, "edge", "link", "--snap: the edge type's name")
	f.BoolVar(&snapHeader, "header", false, "--snap: the first line is not an edge (e.g. email-Enron's counts line)")
	f.StringVar(&preset.Space, "space", "", "space to import into (created by the presets if missing)")
	f.IntVar(&preset.Partitions, "partitions", 10, "presets: partition_num of a new space")
	f.IntVar(&preset.Replicas, "replicas", 1, "presets: replica_factor of a new space")
	f.StringVar(&preset.Addr, "addr", "127.0.0.1:9669", "graphd address(es), comma-separated")
	f.StringVarP(&preset.User, "user", "u", "root", "user")
	f.StringVarP(&preset.Password, "password", "p", "nova", "password")
	f.StringVar(&metaAddrs, "meta", "", "metad addresses, comma-separated (default: asked from graphd)")
	f.StringVar(&preset.Mode, "mode", "online", "online (writes to partition leaders) or sst")
	f.IntVar(&preset.Batch, "batch", importer.DefaultBatch, "rows per write round")
	f.IntVar(&preset.Concurrency, "concurrency", importer.DefaultConcurrency, "write rounds in flight")
	f.StringVar(&preset.SSTDir, "sst-dir", "", "sst mode: working folder for sort runs and SST files (default: the temporary folder)")
	f.IntVar(&preset.SSTMemoryMB, "sst-memory", 1024, "sst mode: MB the sort holds before spilling to --sst-dir")
	f.StringVar(&preset.SSTCompression, "sst-compression", "lz4", "sst mode: compression of the SST files (lz4, zstd, no, ...); ingested files keep it until compacted")
	f.StringVar(&preset.Shard, "shard", "", "i/n: import only rows whose index is i modulo n (n machines each take one i)")
	f.StringVar(&preset.FailedDir, "failed-dir", "import-failed", "directory of the failed-rows files and the checkpoint (with --config: default manager.failedRowsDir, else the working directory)")
	f.BoolVar(&retryFailed, "retry-failed", false, "import the (mended) failed-rows files of an earlier run instead of the sources; rows that fail again replace them")
	f.BoolVar(&restart, "restart", false, "ignore the checkpoint: import everything again")
	f.BoolVar(&noProgress, "no-progress", false, "no progress bar")
	f.StringVar(&logLevel, "log-level", "warn", "debug, info, warn or error")
	cmd.SetVersionTemplate("{{.Version}}\n")
	return cmd
}

// override applies the flags given explicitly on the command line to a
// config file's settings.
func override(cmd *cobra.Command, cfg *importer.Config, o importer.PresetOptions) {
	set := cmd.Flags().Changed
	if set("space") {
		cfg.Manager.SpaceName = o.Space
	}
	if set("addr") {
		cfg.Client.Address = o.Addr
	}
	if set("user") {
		cfg.Client.User = o.User
	}
	if set("password") {
		cfg.Client.Password = o.Password
	}
	if len(o.MetaAddrs) > 0 {
		cfg.Client.MetaAddr = o.MetaAddrs
	}
	if set("mode") {
		cfg.Manager.Mode = o.Mode
	}
	if set("batch") {
		cfg.Manager.Batch = o.Batch
	}
	if set("concurrency") {
		cfg.Manager.ImporterConcurrency = o.Concurrency
	}
	if set("failed-dir") {
		cfg.Manager.FailedRowsDir = o.FailedDir
	}
	if set("sst-dir") {
		cfg.Manager.SSTDir = o.SSTDir
	}
	if set("sst-memory") {
		cfg.Manager.SSTMemoryMB = o.SSTMemoryMB
	}
	if set("sst-compression") {
		cfg.Manager.SSTCompression = o.SSTCompression
	}
	if set("shard") {
		cfg.Manager.Shard = o.Shard
	}
}
