//go:build compose

package compose

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestComposeChaos runs the chaos runner against the compose cluster
// built from the image novagraph:dev (make image first; `make chaos` and
// `make test` do). It needs docker and docker-compose and the build tag
// compose:
//
//	go test -tags compose -run TestComposeChaos -timeout 0 -v ./testkit/chaos/compose
//
// Environment: NOVAGRAPH_CHAOS_FAULTS (default 4), NOVAGRAPH_CHAOS_SEED
// (default 1), NOVAGRAPH_CHAOS_KINDS (comma-separated fault kinds, default
// all), NOVAGRAPH_CHAOS_REPORT (report directory, default a temporary
// one), NOVAGRAPH_CHAOS_KEEP=1 (leave the cluster up).
func TestComposeChaos(t *testing.T) {
	ctx := context.Background()
	if err := DockerAvailable(ctx); err != nil {
		t.Skipf("the compose chaos run needs docker and docker-compose: %v", err)
	}
	cfg := DefaultConfig(envInt(t, "NOVAGRAPH_CHAOS_FAULTS", 4))
	cfg.Seed = int64(envInt(t, "NOVAGRAPH_CHAOS_SEED", 1))
	kinds, err := parseFaultKinds(os.Getenv("NOVAGRAPH_CHAOS_KINDS"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kinds = kinds
	cfg.ComposeDir, _ = filepath.Abs("../../../deploy/compose")
	cfg.ReportDir = os.Getenv("NOVAGRAPH_CHAOS_REPORT")
	if cfg.ReportDir == "" {
		dir, err := os.MkdirTemp("", "novagraph-chaos-report-")
		if err != nil {
			t.Fatal(err)
		}
		cfg.ReportDir = dir
	}
	cfg.Keep = os.Getenv("NOVAGRAPH_CHAOS_KEEP") == "1"
	cfg.Logf = func(format string, args ...any) {
		t.Logf("%s "+format, append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	rep, err := Run(ctx, cfg)
	t.Logf("report: %s", filepath.Join(cfg.ReportDir, "report.md"))
	if rep != nil {
		t.Logf("\n%s", rep.Markdown())
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != cfg.Faults || rep.AckedEdges == 0 || rep.Ops.Reads == 0 || rep.Ops.Writes == 0 {
		t.Fatalf("the run did too little to prove anything: %d faults of %d, %d acknowledged edges, %+v", len(rep.Faults), cfg.Faults, rep.AckedEdges, rep.Ops)
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: not an integer", name, v)
	}
	return n
}
