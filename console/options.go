package console

import (
	"github.com/novagraph/novagraph/internal/buildinfo"

	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/novagraph/novagraph/internal/nodetls"
)

// options are the console's command-line flags.
type options struct {
	host        string
	port        int
	user        string
	password    string
	exec        string // -e: statements to run instead of a prompt
	file        string // -f: a file of statements to run instead of a prompt
	format      outputFormat
	historyFile string // empty disables history
	// tls names the CA that signed graphd's certificate and, optionally,
	// this client's own certificate: TLS is on when any is given.
	tls nodetls.Files
}

// parseOptions parses args (without the program name). It returns
// flag.ErrHelp after printing the usage for -h.
func parseOptions(args []string, stderr io.Writer) (options, error) {
	var opts options
	fs := flag.NewFlagSet("nova-console", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: nova-console [flags]\n\nThe interactive nGQL console of novagraph. Besides nGQL it runs console\ncommands such as :param, :csv, :json, :repeat, :sleep and :play, at the\nprompt and in -e and -f scripts; :help lists them.\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&opts.host, "addr", "127.0.0.1", "graphd host")
	fs.IntVar(&opts.port, "port", 9669, "graphd port")
	fs.StringVar(&opts.user, "u", "root", "user name")
	fs.StringVar(&opts.password, "p", "nova", "password")
	fs.StringVar(&opts.exec, "e", "", "run these statements (separated by ';') and exit, non-zero at the first failure")
	fs.StringVar(&opts.file, "f", "", "run the statements in this file (each ended by ';') and exit, non-zero at the first failure")
	format := fs.String("format", string(formatTable), "result format: table, csv or json (one JSON object per statement); :format changes it at the prompt")
	fs.StringVar(&opts.historyFile, "history-file", defaultHistoryFile(), "interactive history file; empty disables history")
	fs.StringVar(&opts.tls.CA, "ca", "", "connect over TLS, trusting graphd's certificate if this PEM CA bundle signed it (docs/security.md)")
	fs.StringVar(&opts.tls.Cert, "cert", "", "with -ca: a client certificate (PEM) to present, for a graphd that checks them")
	fs.StringVar(&opts.tls.Key, "key", "", "the private key (PEM) of -cert")

	showVersion := buildinfo.Flag(fs)
	err := fs.Parse(args)
	if err != nil {
		return opts, err
	}
	if *showVersion {
		return opts, errShowVersion
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("unexpected arguments %q (statements go in -e)", fs.Args())
	}
	if opts.format, err = parseFormat(*format); err != nil {
		return opts, fmt.Errorf("-format %w", err)
	}
	if !opts.tls.Empty() && opts.tls.CA == "" {
		return opts, errors.New("-cert and -key need -ca, the CA that signed graphd's certificate")
	}
	if opts.exec != "" && opts.file != "" {
		return opts, errors.New("-e and -f are exclusive")
	}
	return opts, nil
}

// defaultHistoryFile is ~/.nova_history, or no history when there is no
// home directory.
func defaultHistoryFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".nova_history")
}
