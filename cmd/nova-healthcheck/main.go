// Command nova-healthcheck asks a daemon's /healthz and exits 0 if it
// answers 200. The container image has no shell, curl or wget; docker
// HEALTHCHECK and docker-compose healthcheck run this instead:
//
//	nova-healthcheck http://127.0.0.1:19779/healthz
//
// With -body it prints the whole answer, so that an operator (and
// deploy/compose's `compose.sh metrics`) can read a daemon's /metrics from
// inside its container:
//
//	nova-healthcheck -body http://127.0.0.1:19779/metrics
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

// maxBody bounds what -body prints: a storaged's /metrics is some hundreds
// of KiB.
const maxBody = 64 << 20

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nova-healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	wholeBody := fs.Bool("body", false, "print the whole answer as it came (a daemon's /metrics, say), not the first 4 KiB trimmed")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: nova-healthcheck [-timeout 3s] [-body] URL\n\nExits 0 if URL (a daemon's /healthz) answers 200, 1 otherwise.\n\nFlags:\n")
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
	limit := int64(4096)
	if *wholeBody {
		limit = maxBody + 1 // one byte more tells an answer that is too long
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		fmt.Fprintf(stderr, "nova-healthcheck: %s: reading the answer: %v\n", url, err)
		return 1
	}
	msg := strings.TrimSpace(string(body))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "nova-healthcheck: %s: %s %s\n", url, resp.Status, msg)
		return 1
	}
	if *wholeBody {
		if int64(len(body)) > maxBody {
			fmt.Fprintf(stderr, "nova-healthcheck: %s: the answer is longer than %d bytes\n", url, maxBody)
			return 1
		}
		stdout.Write(body)
		return 0
	}
	fmt.Fprintln(stdout, msg)
	return 0
}
