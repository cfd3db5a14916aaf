package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"

	"github.com/novagraph/novagraph/internal/bytesize"
)

// GoMemoryFlag is a daemon's --go-memory-limit: unset (the daemon derives
// one from its budgets), off (0) or a size.
type GoMemoryFlag struct {
	set   bool
	bytes int64 // 0: off
}

func (f *GoMemoryFlag) String() string {
	switch {
	case !f.set:
		return ""
	case f.bytes == 0:
		return "off"
	}
	return bytesize.Format(f.bytes)
}

// Set implements flag.Value: a size, or off.
func (f *GoMemoryFlag) Set(s string) error {
	if t := strings.ToLower(strings.TrimSpace(s)); t == "off" || t == "false" {
		// "false": YAML 1.1 readers turn an unquoted off into it.
		*f = GoMemoryFlag{set: true}
		return nil
	}
	n, err := bytesize.Parse(s)
	if err != nil {
		return fmt.Errorf("%w, or off", err)
	}
	*f = GoMemoryFlag{set: true, bytes: n}
	return nil
}

// GoMemoryLimit is the Go soft memory limit a daemon sets, 0 for none: the
// flag's, else the one it derived from its budgets unless GOMEMLIMIT set
// the runtime's.
func GoMemoryLimit(f GoMemoryFlag, derived int64, gomemlimitSet bool) int64 {
	switch {
	case f.set:
		return f.bytes
	case gomemlimitSet:
		return 0
	}
	return derived
}

// SetGoMemoryLimit sets the process's Go soft memory limit (GoMemoryLimit)
// and logs it with derivedFrom, what the derived limit was computed from
// ("query_memory_limit_total"), and the budgets behind it as log
// attributes. The daemon libraries leave this process-wide setting to
// their programs.
func SetGoMemoryLimit(log *slog.Logger, f GoMemoryFlag, derived int64, derivedFrom string, budgets ...any) {
	gomemlimit := os.Getenv("GOMEMLIMIT")
	limit := GoMemoryLimit(f, derived, gomemlimit != "")
	if limit <= 0 {
		log.Info("Go memory limit not set by the daemon", "go_memory_limit", f.String(), "GOMEMLIMIT", gomemlimit)
		return
	}
	debug.SetMemoryLimit(limit)
	source := "derived from " + derivedFrom
	if f.set {
		source = "--go-memory-limit"
	}
	log.Info("Go memory limit set", append([]any{"limit", bytesize.Format(limit), "source", source}, budgets...)...)
}
