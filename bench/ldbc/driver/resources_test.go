package driver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDaemon serves a /metrics page whose CPU counter grows by 0.25 s and
// resident set by 1 MiB at every scrape, from 1 GiB, with the bytes of
// two spaces (one with a quote in its name), sf1's growing by one.
type fakeDaemon struct{ scrapes atomic.Int64 }

func (f *fakeDaemon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.NotFound(w, r)
		return
	}
	n := f.scrapes.Add(1)
	fmt.Fprintf(w, "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"+
		"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %g\n"+
		"process_resident_memory_bytes %v\ngo_goroutines 12\n", 0.25*float64(n), float64(1<<30+n<<20))
	fmt.Fprintf(w, "novagraph_storaged_space_bytes{space=\"sf1\"} %v\nnovagraph_storaged_space_bytes{space=\"a\\\"b\"} 7\n", float64(2e9+n))
}

// TestResourceMeter: a run with a meter reports, for each daemon, the CPU
// seconds and peak resident set of its measured period as the daemons'
// /metrics give them, and a daemon that cannot be read as an error, not
// as zeros that look measured.
func TestResourceMeter(t *testing.T) {
	fd := &fakeDaemon{}
	live := httptest.NewServer(fd)
	defer live.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	addr := strings.TrimPrefix(live.URL, "http://")
	m, err := NewResourceMeter([]string{"storaged=" + addr, strings.TrimPrefix(dead.URL, "http://")}, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := Run(context.Background(), "fake", &fakeTarget{}, RunConfig{Concurrency: 1, Duration: 100 * time.Millisecond, Warmup: 20 * time.Millisecond, Inputs: []Input{{ID: 1}}, Meter: m})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 2 {
		t.Fatalf("resources %+v, want two daemons", res.Resources)
	}
	got := res.Resources[0]
	scrapes := fd.scrapes.Load()
	// Begin and the end read once each; the loop samples in between.
	if got.Daemon != "storaged" || got.Error != "" || scrapes < 4 {
		t.Fatalf("storaged: %+v after %d scrapes", got, scrapes)
	}
	// CPU: every scrape after Begin's added 0.25 s. The resident set only
	// grows, so its peak is the end's scrape: the last one, or the one
	// before if a loop sample was under way as the period closed.
	if got.CPUSeconds < 0.5 || got.CPUSeconds > 0.25*float64(scrapes-1) || got.CPUCores <= 0 {
		t.Fatalf("storaged CPU %.2f s (%.2f cores) after %d scrapes", got.CPUSeconds, got.CPUCores, scrapes)
	}
	if got.PeakRSSBytes < 1<<30+(scrapes-1)<<20 || got.PeakRSSBytes > 1<<30+scrapes<<20 {
		t.Fatalf("storaged peak RSS %d, want the end's scrape: %d or %d", got.PeakRSSBytes, 1<<30+(scrapes-1)<<20, 1<<30+scrapes<<20)
	}
	if sf1 := got.SpaceBytes["sf1"]; len(got.SpaceBytes) != 2 || got.SpaceBytes[`a"b`] != 7 || sf1 != 2e9+scrapes-1 && sf1 != 2e9+scrapes {
		t.Fatalf("storaged space bytes %v, want the end's scrape: sf1 %d or %d, a\"b 7", got.SpaceBytes, int64(2e9)+scrapes-1, int64(2e9)+scrapes)
	}
	if bad := res.Resources[1]; bad.Error == "" || bad.CPUSeconds != 0 || bad.PeakRSSBytes != 0 {
		t.Fatalf("unreachable daemon: %+v, want an error and no figures", bad)
	}
	// Nothing is scraped between periods (once a sample that was under way
	// when the period closed has finished).
	time.Sleep(300 * time.Millisecond)
	before := fd.scrapes.Load()
	time.Sleep(50 * time.Millisecond)
	if after := fd.scrapes.Load(); after != before {
		t.Fatalf("%d scrapes outside a measured period", after-before)
	}
	rep := &Report{Tool: "run", Results: []Result{res}}
	md := rep.Markdown()
	if !strings.Contains(md, "| fake | 1 | storaged | ") || !strings.Contains(md, "connection refused") ||
		!strings.Contains(md, "| sf1 | all | 2.00 |") {
		t.Fatalf("report lacks the resources table or the unreachable daemon:\n%s", md)
	}
	if _, err := NewResourceMeter([]string{"graphd=http://x:1/metrics"}, 0); err == nil {
		t.Fatal("a URL instead of host:port was accepted")
	}
	if _, err := parseProcessMetrics(strings.NewReader("go_goroutines 3\n"), "x"); err == nil {
		t.Fatal("a page without the process gauges was accepted")
	}
}
