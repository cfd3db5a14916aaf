package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is everything one `nova-bench` command measured.
type Report struct {
	Tool    string    `json:"tool"` // "run", "floor" or "seed"
	Started time.Time `json:"started"`
	// Config is the command's configuration (flags, data set, schema).
	Config map[string]any `json:"config"`
	// Scenarios documents the statements that ran, by scenario name.
	Scenarios map[string]string `json:"scenarios,omitempty"`
	Results   []Result          `json:"results"`
	// Floor holds the storage floor's runs of the same scenarios, when
	// measured; Markdown then adds an "of floor" column.
	Floor []Result `json:"floor,omitempty"`
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// FloorOf returns the floor's result for the same scenario and
// concurrency as res.
func (r *Report) FloorOf(res Result) (Result, bool) {
	for _, f := range r.Floor {
		if f.Scenario == res.Scenario && f.Concurrency == res.Concurrency {
			return f, true
		}
	}
	return Result{}, false
}

// FormatMS renders microseconds as milliseconds with 3 significant
// figures or more ("0.123", "1.23", "12.3", "123", "1234").
func FormatMS(us int64) string {
	ms := float64(us) / 1000
	switch {
	case ms < 1:
		return strconv.FormatFloat(ms, 'f', 3, 64)
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	case ms < 100:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 0, 64)
}

// FormatRate renders a rate: no decimals from 100 up, one below.
func FormatRate(x float64) string {
	if x >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// FormatRatio renders a ratio with 3 significant figures.
func FormatRatio(x float64) string {
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// Markdown renders the report as tables: one row per scenario and
// concurrency, latencies in milliseconds, then the floor's own runs and
// the first error messages, if any.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# nova-bench %s, %s\n\n", r.Tool, r.Started.UTC().Format(time.RFC3339))
	if len(r.Config) > 0 {
		keys := make([]string, 0, len(r.Config))
		for k := range r.Config {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "- %s: `%v`\n", k, r.Config[k])
		}
		b.WriteString("\n")
	}
	if len(r.Scenarios) > 0 {
		names := make([]string, 0, len(r.Scenarios))
		for k := range r.Scenarios {
			names = append(names, k)
		}
		slices.Sort(names)
		b.WriteString("Statements:\n\n")
		for _, k := range names {
			fmt.Fprintf(&b, "- %s: `%s`\n", k, r.Scenarios[k])
		}
		b.WriteString("\n")
	}
	floor := len(r.Floor) > 0
	if len(r.Results) > 0 {
		b.WriteString("Latency in ms; client = wall time of the call in the driver, server = graphd's own latency.\n\n")
		b.WriteString("| scenario | conc | QPS | client p50 | client p99 | server p50 | server p99 | errors |")
		if floor {
			b.WriteString(" of floor |")
		}
		b.WriteString("\n|---|---:|---:|---:|---:|---:|---:|---:|")
		if floor {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for _, res := range r.Results {
			b.WriteString(MarkdownRow(res))
			if floor {
				if f, ok := r.FloorOf(res); ok && f.QPS > 0 {
					fmt.Fprintf(&b, " %s |", FormatRatio(res.QPS/f.QPS))
				} else {
					b.WriteString(" - |")
				}
			}
			b.WriteString("\n")
		}
	}
	if floor {
		b.WriteString("\nStorage floor (in-process RocksDB prefix scans of the same keys):\n\n")
		b.WriteString("| scenario | conc | QPS | p50 | p99 | rows/s | errors |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Floor {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %d |\n", f.Scenario, f.Concurrency, FormatRate(f.QPS),
				FormatMS(f.Client.P50US), FormatMS(f.Client.P99US), FormatRate(f.RowsPerSec), f.Errors)
		}
	}
	if metered := slices.ContainsFunc(r.Results, func(res Result) bool { return len(res.Resources) > 0 }); metered {
		b.WriteString("\nServer resources over each measured period (from each daemon's /metrics; peak RSS is the largest of the samples taken):\n\n")
		b.WriteString("| scenario | conc | daemon | CPU cores | CPU ms per query | peak RSS MB |\n|---|---:|---|---:|---:|---:|\n")
		for _, res := range r.Results {
			for _, d := range res.Resources {
				if d.Error != "" {
					fmt.Fprintf(&b, "| %s | %d | %s | - | - | - (%s) |\n", res.Scenario, res.Concurrency, d.Daemon, strings.ReplaceAll(d.Error, "|", "/"))
					continue
				}
				perQuery := "-"
				if res.Count > 0 {
					perQuery = FormatMS(int64(d.CPUSeconds * 1e6 / float64(res.Count)))
				}
				fmt.Fprintf(&b, "| %s | %d | %s | %.2f | %s | %.0f |\n", res.Scenario, res.Concurrency, d.Daemon, d.CPUCores, perQuery, float64(d.PeakRSSBytes)/(1<<20))
			}
		}
		for i := len(r.Results) - 1; i >= 0; i-- { // the last period a storaged answered in
			if t := spaceBytesTable(r.Results[i].Resources); t != "" {
				b.WriteString(t)
				break
			}
		}
	}
	var errs strings.Builder
	for _, res := range append(append([]Result(nil), r.Results...), r.Floor...) {
		if res.Errors == 0 {
			continue
		}
		fmt.Fprintf(&errs, "- %s at %d: %d errors (%s)", res.Scenario, res.Concurrency, res.Errors, ErrorKindsText(res.ErrorKinds))
		for _, m := range res.ErrorSample {
			fmt.Fprintf(&errs, "\n  - `%s`", strings.ReplaceAll(m, "`", "'"))
		}
		errs.WriteString("\n")
	}
	if errs.Len() > 0 {
		b.WriteString("\nErrors:\n\n")
		b.WriteString(errs.String())
	}
	return b.String()
}

// MarkdownRow is one result as a table row (without the "of floor" cell):
// | scenario | conc | QPS | client p50 | client p99 | server p50 | server p99 | errors |
func MarkdownRow(res Result) string {
	sp50, sp99 := "-", "-"
	if res.Server != nil {
		sp50, sp99 = FormatMS(res.Server.P50US), FormatMS(res.Server.P99US)
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s | %d |", res.Scenario, res.Concurrency, FormatRate(res.QPS),
		FormatMS(res.Client.P50US), FormatMS(res.Client.P99US), sp50, sp99, res.Errors)
}

// WriteFiles writes report.json, report.md and the plots (PlotFiles) into
// dir, creating it. plotExt is "svg" (the default when empty) or "png".
func (r *Report) WriteFiles(dir, plotExt string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	jp := filepath.Join(dir, "report.json")
	f, err := os.Create(jp)
	if err != nil {
		return nil, err
	}
	if err := r.WriteJSON(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	files = append(files, jp)
	mp := filepath.Join(dir, "report.md")
	if err := os.WriteFile(mp, []byte(r.Markdown()), 0o644); err != nil {
		return files, err
	}
	files = append(files, mp)
	plots, err := r.WritePlots(dir, plotExt)
	files = append(files, plots...)
	return files, err
}

// spaceBytesTable is the disk each graph space takes, as the metered
// storaged gave it at the end of the last measured period: per storaged
// and summed (all replicas); "" when no daemon reported any.
func spaceBytesTable(use []DaemonUse) string {
	total := map[string]int64{}
	for _, d := range use {
		for space, n := range d.SpaceBytes {
			total[space] += n
		}
	}
	if len(total) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nDisk per graph space at the end of the run (SST bytes, novagraph_storaged_space_bytes):\n\n")
	b.WriteString("| space | daemon | GB |\n|---|---|---:|\n")
	for _, space := range slices.Sorted(maps.Keys(total)) {
		for _, d := range use {
			if n, ok := d.SpaceBytes[space]; ok {
				fmt.Fprintf(&b, "| %s | %s | %.2f |\n", space, d.Daemon, float64(n)/1e9)
			}
		}
		fmt.Fprintf(&b, "| %s | all | %.2f |\n", space, float64(total[space])/1e9)
	}
	return b.String()
}
