package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
)

// Report is what a run writes: the table as Markdown and everything as
// JSON.
type Report struct {
	Started    time.Time      `json:"started"`
	Finished   time.Time      `json:"finished"`
	Command    string         `json:"command"`
	Dataset    string         `json:"dataset"`
	Source     string         `json:"source"`
	Vertices   int            `json:"vertices"`
	Edges      int            `json:"edges"`
	SelfLoops  int            `json:"self_loops_dropped"`
	Space      string         `json:"space"`
	Partitions int            `json:"partitions"`
	Seed       int64          `json:"seed"`
	Starts     int            `json:"starts"`
	Starts3    int            `json:"starts_3step"`
	Config     map[string]any `json:"config"`
	Machine    map[string]any `json:"machine"`
	LoadBefore []float64      `json:"load_before"`
	LoadAfter  []float64      `json:"load_after"`
	Checks     CheckStats     `json:"checks"`
	Cells      []Cell         `json:"results"`
	Error      string         `json:"error,omitempty"`
}

// WriteFiles writes <base>.md and <base>.json.
func (r *Report) WriteFiles(base string) (md, js string, err error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", "", err
	}
	md, js = base+".md", base+".json"
	if err := os.WriteFile(md, []byte(r.Markdown()), 0o644); err != nil {
		return "", "", err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", "", err
	}
	return md, js, os.WriteFile(js, append(data, '\n'), 0o644)
}

func rate(x float64) string {
	switch {
	case x == 0:
		return "–"
	case x >= 1e6:
		return fmt.Sprintf("%.2f M", x/1e6)
	case x >= 100:
		return commas(int64(x + 0.5))
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func ratio(x float64, ok bool) string {
	if !ok || x == 0 {
		return "–"
	}
	s := fmt.Sprintf("%.2f", x)
	if x < 1 {
		s = "**" + s + "**"
	}
	return s
}

func loadText(l []float64) string {
	if len(l) < 3 {
		return "?"
	}
	return fmt.Sprintf("%.2f, %.2f, %.2f", l[0], l[1], l[2])
}

// Markdown renders the summary table (QPS and ratios, as issue 22's), the
// detail table (rows/s and latency per system) and how the run was made.
func (r *Report) Markdown() string {
	var b strings.Builder
	sysNames := []string{}
	seen := map[string]bool{}
	for _, c := range r.Cells {
		for _, m := range c.Systems {
			if !seen[m.System] {
				seen[m.System] = true
				sysNames = append(sysNames, m.System)
			}
		}
	}
	fmt.Fprintf(&b, "# k-hop: novagraph, DuckDB and the RocksDB floor on %s\n\n", r.Dataset)
	fmt.Fprintf(&b, "%s, %s vertices, %s directed edges", r.Source, commas(int64(r.Vertices)), commas(int64(r.Edges)))
	if r.SelfLoops > 0 {
		fmt.Fprintf(&b, " (%s self-loops dropped)", commas(int64(r.SelfLoops)))
	}
	fmt.Fprintf(&b, "; space `%s`, partition_num=%d. %d seeded start vertices (seed %d, out-degree ≥ 1), the 3-step forms on the first %d. Run %s.\n\n",
		r.Space, r.Partitions, r.Starts, r.Seed, r.Starts3, r.Started.UTC().Format("2006-01-02 15:04 UTC"))

	// Summary: QPS and ratios.
	b.WriteString("| QPS | rows/query |")
	for _, s := range sysNames {
		fmt.Fprintf(&b, " %s |", s)
	}
	for _, s := range sysNames[1:] {
		fmt.Fprintf(&b, " %s ÷ %s |", sysNames[0], s)
	}
	b.WriteString("\n|---|---:|")
	b.WriteString(strings.Repeat("---:|", len(sysNames)+len(sysNames)-1))
	b.WriteString("\n")
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "| %s, c=%d | %s |", c.Label, c.Concurrency, rate(c.RefRowsPerQ))
		for _, s := range sysNames {
			m, ok := c.get(s)
			if !ok {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %s |", rate(m.Result.QPS))
		}
		for _, s := range sysNames[1:] {
			x, ok := c.QPSRatio[s]
			fmt.Fprintf(&b, " %s |", ratio(x, ok))
		}
		b.WriteString("\n")
	}

	// Detail: rows/s and latency.
	b.WriteString("\n| rows/s; p50 / p99 ms |")
	for _, s := range sysNames {
		fmt.Fprintf(&b, " %s rows/s | %s p50 / p99 |", s, s)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---:|", 2*len(sysNames)))
	b.WriteString("\n")
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "| %s, c=%d |", c.Label, c.Concurrency)
		for _, s := range sysNames {
			m, ok := c.get(s)
			if !ok {
				b.WriteString(" – | – |")
				continue
			}
			fmt.Fprintf(&b, " %s | %s / %s |", rate(m.Result.RowsPerSec), driver.FormatMS(m.Result.Client.P50US), driver.FormatMS(m.Result.Client.P99US))
		}
		b.WriteString("\n")
	}

	b.WriteString("\n")
	ck := r.Checks
	status := "every answer matched"
	if r.Error != "" {
		status = "**FAILED**: " + r.Error
	} else if ck.Errors > 0 {
		status = fmt.Sprintf("every answer returned matched, but **%d executions failed** (see the JSON)", ck.Errors)
	}
	fmt.Fprintf(&b, "Checks: %s — %s answers compared row by row as sorted multisets (novagraph against DuckDB and both against an in-Go reference), %s answers of the timed runs and their warm-ups checked by multiset fingerprint against the reference, %s floor answers by row count; %d mismatches.\n\n",
		status, commas(ck.FullCompared), commas(ck.Fingerprinted), commas(ck.CountChecked), ck.Mismatches)
	fmt.Fprintf(&b, "QPS and rows/s are client-side (wall time of each call, answer read and checked), %s; ratios are of QPS (each system ran the same queries, so rows/s give the same ratios). Latency percentiles are client-side.\n\n", r.measureText())
	fmt.Fprintf(&b, "Machine: %v; load average before %s, after %s.", r.Machine["cpus"], loadText(r.LoadBefore), loadText(r.LoadAfter))
	if v, ok := r.Machine["duckdb"]; ok {
		fmt.Fprintf(&b, " DuckDB %v.", v)
	}
	if v, ok := r.Machine["commit"]; ok && v != "" {
		fmt.Fprintf(&b, " novagraph %v.", v)
	}
	fmt.Fprintf(&b, "\n\nCommand: `%s`\n", r.Command)
	return b.String()
}

func (r *Report) measureText() string {
	if d, ok := r.Config["duration"].(string); ok && d != "" && d != "0s" {
		return "each measurement " + d + " after a warm-up of " + fmt.Sprint(r.Config["warmup"])
	}
	if q, ok := r.Config["queries"].(int); ok && q > 0 {
		return fmt.Sprintf("each measurement %d queries after a warm-up of %v", q, r.Config["warmup"])
	}
	return fmt.Sprintf("each measurement runs every start vertex of the workload once, after a warm-up of %v (or, when that takes less than %v, as many whole passes as take about that long)", r.Config["warmup"], r.Config["min_time"])
}

func (c *Cell) get(system string) (Measurement, bool) {
	for _, m := range c.Systems {
		if m.System == system {
			return m, true
		}
	}
	return Measurement{}, false
}
