package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/gen"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// BenchmarkImport imports each dataset in online and in SST mode into a
// 3-storaged in-process cluster, with replica_factor 1 and 3, and reports
// edges/s end to end (reading, mapping, writing, and for online mode the
// wait for every in-edge; for SST mode sorting, writing the files, upload
// and ingest). Everything runs on this machine's cores, the cluster too,
// so compare the cases of one run as ratios:
//
//	go test ./importer -run '^$' -bench BenchmarkImport -benchtime 1x -timeout 60m
//
// NOVAGRAPH_IMPORT_BENCH=slashdot,sf1 picks datasets (default: all of
// slashdot, sf1, sf10), NOVAGRAPH_IMPORT_MODES=sst the modes (default
// online,sst).
func BenchmarkImport(b *testing.B) {
	slashdot := filepath.Join(dataDir, "snap/soc-Slashdot0902/soc-Slashdot0902.txt.gz")
	type dataset struct {
		name string
		cfg  func(o PresetOptions) (*Config, error)
	}
	var sets []dataset
	want := map[string]bool{"slashdot": true, "sf1": true, "sf10": true}
	if env := os.Getenv("NOVAGRAPH_IMPORT_BENCH"); env != "" {
		want = map[string]bool{}
		for _, n := range splitComma(env) {
			want[n] = true
		}
	}
	if want["slashdot"] {
		if _, err := os.Stat(slashdot); err != nil {
			b.Logf("soc-Slashdot0902 not found at %s (the shared data folder is absent): skipping it", slashdot)
		} else {
			sets = append(sets, dataset{"slashdot", func(o PresetOptions) (*Config, error) { return SNAPConfig(slashdot, "link", false, o) }})
		}
	}
	for _, sf := range []float64{1, 10} {
		name := fmt.Sprintf("sf%g", sf)
		if !want[name] {
			continue
		}
		dir := filepath.Join(b.TempDir(), name)
		if _, err := gen.Generate(context.Background(), gen.Config{ScaleFactor: sf, Seed: 1, OutDir: dir}); err != nil {
			b.Fatal(err)
		}
		sets = append(sets, dataset{name, func(o PresetOptions) (*Config, error) { return LDBCConfig(dir, o) }})
	}
	c := testcluster.Start(b, testcluster.Options{Stores: 3, RaftTick: 100 * time.Millisecond})
	n := 0
	for _, ds := range sets {
		modes := []string{"online", "sst"}
		if env := os.Getenv("NOVAGRAPH_IMPORT_MODES"); env != "" {
			modes = splitComma(env)
		}
		for _, mode := range modes {
			for _, rf := range []int{1, 3} {
				b.Run(fmt.Sprintf("%s/%s/rf%d", ds.name, mode, rf), func(b *testing.B) {
					var edges int64
					var elapsed time.Duration
					for b.Loop() {
						n++
						o := PresetOptions{Space: fmt.Sprintf("bench%d", n), Partitions: 10, Replicas: rf, Addr: c.Graph.Addr(),
							User: "root", Password: testcluster.Password, Mode: mode, Batch: DefaultBatch, Concurrency: 32,
							FailedDir: b.TempDir(), SSTDir: b.TempDir(), SSTMemoryMB: benchSSTMemoryMB()}
						cfg, err := ds.cfg(o)
						if err != nil {
							b.Fatal(err)
						}
						sum, err := Run(context.Background(), cfg, Options{})
						if err != nil {
							b.Fatal(err)
						}
						if sum.Failed != 0 {
							b.Fatalf("%d rows failed", sum.Failed)
						}
						b.Logf("%s", sum)
						edges += sum.Edges
						elapsed += sum.Elapsed
					}
					b.ReportMetric(float64(edges)/elapsed.Seconds(), "edges/s")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

func splitComma(s string) []string { // strings.Split without empty items
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// benchSSTMemoryMB is SST mode's sort budget in BenchmarkImport:
// NOVAGRAPH_IMPORT_SST_MB, default the importer's.
func benchSSTMemoryMB() int {
	if n, err := strconv.Atoi(os.Getenv("NOVAGRAPH_IMPORT_SST_MB")); err == nil && n > 0 {
		return n
	}
	return 1024
}
