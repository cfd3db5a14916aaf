package driver

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms: microseconds from 1 µs to 60 s with 3 significant
// figures (a recorded value is within 0.1 % of the true one). Values outside
// the range are clamped into it and counted in Clamped.
const (
	HistMinUS  = 1
	HistMaxUS  = 60_000_000
	HistSigFig = 3
)

// Hist is a latency histogram in microseconds. It is not safe for
// concurrent use: each worker records into its own, and the run merges them.
type Hist struct {
	h       *hdrhistogram.Histogram
	max     int64 // exact, the histogram's Max is its bucket's upper end
	clamped int64
}

// NewHist returns an empty histogram.
func NewHist() *Hist {
	return &Hist{h: hdrhistogram.New(HistMinUS, HistMaxUS, HistSigFig)}
}

// Record adds one latency in microseconds.
func (h *Hist) Record(us int64) {
	if us < HistMinUS {
		us = HistMinUS // sub-microsecond: the floor's cache hits
	}
	if us > HistMaxUS {
		us = HistMaxUS
		h.clamped++
	}
	if us > h.max {
		h.max = us
	}
	_ = h.h.RecordValue(us) // cannot fail: us is in range
}

// Merge adds every value of o to h.
func (h *Hist) Merge(o *Hist) {
	h.h.Merge(o.h)
	h.max = max(h.max, o.max)
	h.clamped += o.clamped
}

// Count is the number of values recorded.
func (h *Hist) Count() int64 { return h.h.TotalCount() }

// Quantile returns the value at quantile q in [0, 1], in microseconds.
func (h *Hist) Quantile(q float64) int64 { return h.h.ValueAtQuantile(q * 100) }

// Summary returns the usual percentiles.
func (h *Hist) Summary() Latency {
	if h.Count() == 0 {
		return Latency{}
	}
	return Latency{
		Count:   h.Count(),
		MeanUS:  h.h.Mean(),
		P50US:   h.Quantile(0.50),
		P90US:   h.Quantile(0.90),
		P95US:   h.Quantile(0.95),
		P99US:   h.Quantile(0.99),
		P999US:  h.Quantile(0.999),
		MaxUS:   h.max,
		Clamped: h.clamped,
	}
}

// Latency is a summary of a Hist, in microseconds.
type Latency struct {
	Count   int64   `json:"count"`
	MeanUS  float64 `json:"mean_us"`
	P50US   int64   `json:"p50_us"`
	P90US   int64   `json:"p90_us"`
	P95US   int64   `json:"p95_us"`
	P99US   int64   `json:"p99_us"`
	P999US  int64   `json:"p999_us"`
	MaxUS   int64   `json:"max_us"`
	Clamped int64   `json:"clamped,omitempty"` // values above 60 s
}
