package grafana

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestQueries(t *testing.T) {
	qs, err := Queries()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 10 {
		t.Fatalf("the dashboard has %d queries; it shows QPS, latency, storage, raft, RocksDB and memory", len(qs))
	}
	for _, q := range qs {
		if len(MetricNames(q.Expr)) == 0 {
			t.Errorf("panel %q queries no series of ours: %s", q.Panel, q.Expr)
		}
	}
}

func TestMetricNames(t *testing.T) {
	got := MetricNames(`histogram_quantile(0.99, sum by (le, kind) (rate(novagraph_graphd_query_duration_seconds_bucket{job=~"novagraph.*"}[5m]))) / go_memstats_heap_inuse_bytes`)
	if want := []string{"novagraph_graphd_query_duration_seconds_bucket", "go_memstats_heap_inuse_bytes"}; !slices.Equal(got, want) {
		t.Fatalf("MetricNames = %v, want %v", got, want)
	}
}

func TestBalanced(t *testing.T) {
	for expr, want := range map[string]bool{
		`sum(rate(a[5m]))`:         true,
		`sum(rate(a{x="(("}[5m]))`: true,
		`sum(rate(a[5m])`:          false,
		`sum(rate(a[5m)))`:         false,
		`a{x="open}`:               false,
		`(]`:                       false,
	} {
		if Balanced(expr) != want {
			t.Errorf("Balanced(%s) = %v", expr, !want)
		}
	}
}

// The scrape configuration names one job per daemon kind, as the
// dashboard's panels select them.
func TestScrapeConfig(t *testing.T) {
	data, err := os.ReadFile("prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{"novagraph-metad", "novagraph-storaged", "novagraph-graphd"} {
		if !strings.Contains(string(data), "job_name: "+job+"\n") {
			t.Errorf("prometheus.yml has no job %s", job)
		}
	}
}
