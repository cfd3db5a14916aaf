// Command nova-healthcheck asks a daemon's /healthz and exits 0 if it
// answers 200. The container image has no shell, curl or wget; docker
// HEALTHCHECK and docker-compose healthcheck run this instead:
//
//	nova-healthcheck http://127.0.0.1:19779/healthz
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/novagraph/novagraph/internal/buildinfo"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nova-healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: nova-healthcheck [-timeout 3s] URL\n\nExits 0 if URL (a daemon's /healthz) answers 200, 1 otherwise.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	showVersion := buildinfo.Flag(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Read().String("nova-healthcheck"))
		return 0
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	url := fs.Arg(0)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintln(stderr, "nova-healthcheck:", err)
		return 2
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "nova-healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	msg := strings.TrimSpace(string(body))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "nova-healthcheck: %s: %s %s\n", url, resp.Status, msg)
		return 1
	}
	fmt.Fprintln(stdout, msg)
	return 0
}
