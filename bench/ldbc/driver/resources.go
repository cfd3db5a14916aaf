package driver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DaemonUse is one server process's resource use over a measured period,
// read from its /metrics (Prometheus' process collector, which every
// novagraph daemon registers).
type DaemonUse struct {
	Daemon string `json:"daemon"` // the name given to the meter
	// PeakRSSBytes is the largest resident set seen while sampling (every
	// interval, and at both ends of the period): a lower bound of the true
	// peak between samples.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// CPUSeconds is user + system CPU time spent in the period; CPUCores
	// is that divided by its length.
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUCores   float64 `json:"cpu_cores"`
	// SpaceBytes is, by graph space, what a storaged's SST files hold of
	// it at the end of the period (novagraph_storaged_space_bytes); other
	// daemons have none.
	SpaceBytes map[string]int64 `json:"space_bytes,omitempty"`
	// Error says why the daemon could not be read (then the figures are 0).
	Error string `json:"error,omitempty"`
}

// ResourceMeter samples the resident memory and CPU time of server
// processes through their /metrics endpoints, for Run to report beside
// its QPS. One goroutine samples every interval; Close stops it.
type ResourceMeter struct {
	daemons  []meteredDaemon
	client   *http.Client
	interval time.Duration

	mu     sync.Mutex
	window *meterWindow // the open period, nil between periods

	stop chan struct{}
	done chan struct{}
}

type meteredDaemon struct{ name, url string }

// meterWindow is one measured period's state.
type meterWindow struct {
	began    time.Time
	startCPU []float64
	startErr []error
	peak     []int64
}

// NewResourceMeter meters the daemons given as "name=host:port" or
// "host:port" (the HTTP address serving /metrics; the name defaults to
// the address), sampling every interval.
func NewResourceMeter(daemons []string, interval time.Duration) (*ResourceMeter, error) {
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	m := &ResourceMeter{client: &http.Client{Timeout: 2 * time.Second}, interval: interval, stop: make(chan struct{}), done: make(chan struct{})}
	for _, d := range daemons {
		name, addr, ok := strings.Cut(d, "=")
		if !ok {
			name, addr = d, d
		}
		if name == "" || addr == "" || strings.Contains(addr, "/") {
			return nil, fmt.Errorf("daemon %q: want name=host:port or host:port (its HTTP /metrics address)", d)
		}
		m.daemons = append(m.daemons, meteredDaemon{name: name, url: "http://" + addr + "/metrics"})
	}
	go m.sampleLoop()
	return m, nil
}

// Close stops sampling.
func (m *ResourceMeter) Close() {
	close(m.stop)
	<-m.done
}

func (m *ResourceMeter) sampleLoop() {
	defer close(m.done)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.mu.Lock()
			open := m.window != nil
			m.mu.Unlock()
			if open {
				m.sample()
			}
		}
	}
}

// sample reads every daemon once, raising the open window's peaks, and
// returns what it read (and why a daemon could not be read).
func (m *ResourceMeter) sample() ([]processSample, []error) {
	samples := make([]processSample, len(m.daemons))
	errs := make([]error, len(m.daemons))
	var wg sync.WaitGroup
	for i, d := range m.daemons {
		wg.Go(func() {
			samples[i], errs[i] = m.read(d.url)
		})
	}
	wg.Wait()
	m.mu.Lock()
	if w := m.window; w != nil {
		for i, s := range samples {
			w.peak[i] = max(w.peak[i], s.rss)
		}
	}
	m.mu.Unlock()
	return samples, errs
}

// Begin opens a measured period; the function it returns closes it and
// gives each daemon's use over it.
func (m *ResourceMeter) Begin() func() []DaemonUse {
	w := &meterWindow{peak: make([]int64, len(m.daemons))}
	m.mu.Lock()
	m.window = w
	m.mu.Unlock()
	var start []processSample
	start, w.startErr = m.sample()
	w.startCPU = make([]float64, len(start))
	for i, s := range start {
		w.startCPU[i] = s.cpu
	}
	// The period runs from the first sample's answer to the last's request,
	// so that the scrapes' own latency does not dilute CPUCores.
	w.began = time.Now()
	return func() []DaemonUse {
		elapsed := time.Since(w.began).Seconds()
		// Close the window before the last sample: the loop then starts no
		// sample after it (one under way may still finish), so the end's
		// figures are the last read but for that one.
		m.mu.Lock()
		if m.window == w {
			m.window = nil
		}
		m.mu.Unlock()
		end, endErr := m.sample()
		m.mu.Lock()
		for i, s := range end {
			if endErr[i] == nil {
				w.peak[i] = max(w.peak[i], s.rss)
			}
		}
		m.mu.Unlock()
		out := make([]DaemonUse, len(m.daemons))
		for i, d := range m.daemons {
			out[i] = DaemonUse{Daemon: d.name}
			if err := firstError(w.startErr[i], endErr[i]); err != nil {
				out[i].Error = err.Error()
				continue
			}
			out[i].PeakRSSBytes = w.peak[i]
			out[i].CPUSeconds = end[i].cpu - w.startCPU[i]
			out[i].SpaceBytes = end[i].spaceBytes
			if elapsed > 0 {
				out[i].CPUCores = out[i].CPUSeconds / elapsed
			}
		}
		return out
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// processSample is what one scrape of a daemon's /metrics gives.
type processSample struct {
	rss        int64            // process_resident_memory_bytes
	cpu        float64          // process_cpu_seconds_total
	spaceBytes map[string]int64 // novagraph_storaged_space_bytes by space; nil when absent
}

// read fetches one /metrics page.
func (m *ResourceMeter) read(url string) (processSample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return processSample{}, err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return processSample{}, fmt.Errorf("reading %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return processSample{}, fmt.Errorf("reading %s: %s", url, resp.Status)
	}
	return parseProcessMetrics(resp.Body, url)
}

// spaceBytesMetric is storaged's gauge of each space's SST bytes.
const spaceBytesMetric = "novagraph_storaged_space_bytes"

// parseProcessMetrics picks the two process gauges, and a storaged's
// space bytes, out of Prometheus' text exposition format.
func parseProcessMetrics(r io.Reader, where string) (processSample, error) {
	var s processSample
	foundRSS, foundCPU := false, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// The value follows the last space: a label value may hold spaces.
		line := sc.Text()
		cut := strings.LastIndexByte(line, ' ')
		if cut < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		name, value := line[:cut], line[cut+1:]
		parse := func() (float64, error) {
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %s %q: %w", where, name, value, err)
			}
			return v, nil
		}
		switch {
		case name == "process_resident_memory_bytes":
			v, err := parse()
			if err != nil {
				return s, err
			}
			s.rss, foundRSS = int64(v), true
		case name == "process_cpu_seconds_total":
			v, err := parse()
			if err != nil {
				return s, err
			}
			s.cpu, foundCPU = v, true
		case strings.HasPrefix(name, spaceBytesMetric+`{space="`) && strings.HasSuffix(name, `"}`):
			v, err := parse()
			if err != nil {
				return s, err
			}
			if s.spaceBytes == nil {
				s.spaceBytes = map[string]int64{}
			}
			space := strings.TrimSuffix(strings.TrimPrefix(name, spaceBytesMetric+`{space="`), `"}`)
			if u, err := strconv.Unquote(`"` + space + `"`); err == nil {
				space = u // Prometheus escapes \, \" and \n in label values as Go does
			}
			s.spaceBytes[space] = int64(v)
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("%s: %w", where, err)
	}
	if !foundRSS || !foundCPU {
		return s, fmt.Errorf("%s: no process_resident_memory_bytes or process_cpu_seconds_total (not a novagraph daemon's /metrics?)", where)
	}
	return s, nil
}
