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
// returns the CPU seconds read (and why a daemon could not be read).
func (m *ResourceMeter) sample() ([]float64, []error) {
	cpu := make([]float64, len(m.daemons))
	errs := make([]error, len(m.daemons))
	rss := make([]int64, len(m.daemons))
	var wg sync.WaitGroup
	for i, d := range m.daemons {
		wg.Go(func() {
			rss[i], cpu[i], errs[i] = m.read(d.url)
		})
	}
	wg.Wait()
	m.mu.Lock()
	if w := m.window; w != nil {
		for i := range rss {
			w.peak[i] = max(w.peak[i], rss[i])
		}
	}
	m.mu.Unlock()
	return cpu, errs
}

// Begin opens a measured period; the function it returns closes it and
// gives each daemon's use over it.
func (m *ResourceMeter) Begin() func() []DaemonUse {
	w := &meterWindow{peak: make([]int64, len(m.daemons))}
	m.mu.Lock()
	m.window = w
	m.mu.Unlock()
	w.startCPU, w.startErr = m.sample()
	// The period runs from the first sample's answer to the last's request,
	// so that the scrapes' own latency does not dilute CPUCores.
	w.began = time.Now()
	return func() []DaemonUse {
		elapsed := time.Since(w.began).Seconds()
		endCPU, endErr := m.sample()
		m.mu.Lock()
		if m.window == w {
			m.window = nil
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
			out[i].CPUSeconds = endCPU[i] - w.startCPU[i]
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

// read fetches one /metrics page and returns process_resident_memory_bytes
// and process_cpu_seconds_total.
func (m *ResourceMeter) read(url string) (rss int64, cpu float64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("reading %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("reading %s: %s", url, resp.Status)
	}
	return parseProcessMetrics(resp.Body, url)
}

// parseProcessMetrics picks the two process gauges out of Prometheus' text
// exposition format.
func parseProcessMetrics(r io.Reader, where string) (rss int64, cpu float64, err error) {
	foundRSS, foundCPU := false, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "process_resident_memory_bytes":
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: process_resident_memory_bytes %q: %w", where, value, err)
			}
			rss, foundRSS = int64(v), true
		case "process_cpu_seconds_total":
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: process_cpu_seconds_total %q: %w", where, value, err)
			}
			cpu, foundCPU = v, true
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", where, err)
	}
	if !foundRSS || !foundCPU {
		return 0, 0, fmt.Errorf("%s: no process_resident_memory_bytes or process_cpu_seconds_total (not a novagraph daemon's /metrics?)", where)
	}
	return rss, cpu, nil
}
