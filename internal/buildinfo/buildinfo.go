// Package buildinfo says which novagraph a binary is: its version, the
// commit it was built from, and the Go that built it, for `--version` on
// every binary and the novagraph_build_info metric on every daemon.
//
// The version and commit are set at link time by the Makefile and the
// image build (git describe, git rev-parse):
//
//	go build -ldflags "-X github.com/novagraph/novagraph/internal/buildinfo.version=v1.2.3 \
//	    -X github.com/novagraph/novagraph/internal/buildinfo.commit=abc123…" ./cmd/...
//
// Without them the version is "dev" and the commit comes from the VCS
// stamp the Go toolchain embeds when it builds inside a git checkout
// (vcs.revision, vcs.modified), or is "unknown" when there was none (a
// build from a tarball, or GOFLAGS=-buildvcs=false).
package buildinfo

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// version and commit are set with -ldflags -X (see the package comment).
var (
	version = "dev"
	commit  = ""
)

// Info describes a build.
type Info struct {
	Version string // v1.2.3-4-gabcdef, or dev
	Commit  string // the full revision, with "-dirty" if the tree had changes; unknown without a VCS stamp
	Go      string // runtime.Version()
}

// Read returns this binary's build.
func Read() Info {
	info := Info{Version: version, Commit: "unknown", Go: runtime.Version()}
	if commit != "" {
		info.Commit = commit
		return info
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Commit != "unknown" {
		info.Commit += "-dirty"
	}
	return info
}

// String is the --version line of binary name.
func (i Info) String(name string) string {
	return fmt.Sprintf("%s %s (commit %s, %s %s/%s)", name, i.Version, i.Commit, i.Go, runtime.GOOS, runtime.GOARCH)
}

// Flag registers --version on fs; after parsing, if it is set the caller
// prints Read().String(name) and exits 0.
func Flag(fs *flag.FlagSet) *bool {
	return fs.Bool("version", false, "print the version, commit and Go version, and exit")
}

// Register adds the novagraph_build_info gauge to reg: always 1, its labels
// the build, so that a dashboard can show which version each instance
// runs (Prometheus adds the instance and job labels).
func Register(reg prometheus.Registerer) {
	i := Read()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "novagraph_build_info",
		Help:        "The build of this daemon: always 1, labelled with its version, commit and Go version.",
		ConstLabels: prometheus.Labels{"version": i.Version, "commit": i.Commit, "go": i.Go},
	})
	g.Set(1)
	reg.MustRegister(g)
}
