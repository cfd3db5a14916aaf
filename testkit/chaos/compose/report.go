package compose

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/novagraph/novagraph/testkit/chaos/register"
)

// Report is what a run did and found; report.json and report.md in the
// report directory.
type Report struct {
	Seed     int64         `json:"seed"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	Faults   []faultRecord `json:"faults"`

	Ops           register.Counts   `json:"register_ops"`
	Keys          int               `json:"register_keys"`
	GoReads       int               `json:"go_reads"`
	AckedVertices int               `json:"acked_vertices"`
	AckedEdges    int               `json:"acked_edges"`
	Errors        map[string]int    `json:"errors_by_kind"`
	ErrorExamples map[string]string `json:"error_examples"`

	Linearizable  string   `json:"linearizable"`
	ReplicasEqual bool     `json:"replicas_equal"`
	Problems      []string `json:"problems"`
}

func (rep *Report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report directory: %w", err)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), js, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(rep.Markdown()), 0o644)
}

// recoveryStats summarises one fault kind's times.
type recoveryStats struct {
	n                        int
	failoverP50, failoverMax time.Duration
	noFailover               int // faults during which some partition stayed without a leader
	leaderP50, leaderMax     time.Duration
	rejoinP50, rejoinMax     time.Duration
}

func (rep *Report) recoveryByKind() (kinds []string, stats map[string]recoveryStats) {
	failovers, leaders, rejoins := map[string][]time.Duration{}, map[string][]time.Duration{}, map[string][]time.Duration{}
	for _, f := range rep.Faults {
		leaders[f.Kind] = append(leaders[f.Kind], f.Leader)
		rejoins[f.Kind] = append(rejoins[f.Kind], f.Rejoin)
		failovers[f.Kind] = append(failovers[f.Kind], f.Failover)
	}
	p50max := func(d []time.Duration) (time.Duration, time.Duration) {
		if len(d) == 0 {
			return 0, 0
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2], d[len(d)-1]
	}
	stats = map[string]recoveryStats{}
	for k := range leaders {
		kinds = append(kinds, k)
		var st recoveryStats
		st.n = len(leaders[k])
		var done []time.Duration
		for _, d := range failovers[k] {
			if d < 0 {
				st.noFailover++
			} else {
				done = append(done, d)
			}
		}
		st.failoverP50, st.failoverMax = p50max(done)
		st.leaderP50, st.leaderMax = p50max(leaders[k])
		st.rejoinP50, st.rejoinMax = p50max(rejoins[k])
		stats[k] = st
	}
	sort.Strings(kinds)
	return kinds, stats
}

// Markdown is the report as docs/reliability.md quotes it.
func (rep *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Chaos run, seed %d\n\n", rep.Seed)
	fmt.Fprintf(&b, "Started %s, took %v, %d faults.\n\n", rep.Started.UTC().Format(time.RFC3339), rep.Duration, len(rep.Faults))
	verdict := "passed"
	if len(rep.Problems) > 0 {
		verdict = fmt.Sprintf("FAILED (%d problems)", len(rep.Problems))
	}
	fmt.Fprintf(&b, "**Result: %s.** Linearizable: %s. Replica checksums equal after healing: %v.\n\n", verdict, rep.Linearizable, rep.ReplicasEqual)
	o := rep.Ops
	fmt.Fprintf(&b, "## Operations\n\n| what | count |\n|---|---:|\n")
	fmt.Fprintf(&b, "| register reads | %d |\n| register writes (ambiguous) | %d (%d) |\n| register CAS: applied / failed / ambiguous | %d / %d / %d |\n",
		o.Reads, o.Writes, o.AmbiguousWrites, o.CASApplied, o.CASes-o.CASApplied-o.AmbiguousCASes, o.AmbiguousCASes)
	fmt.Fprintf(&b, "| register keys | %d |\n| acknowledged vertex inserts | %d |\n| acknowledged edge inserts | %d |\n| GO reads checked | %d |\n\n",
		rep.Keys, rep.AckedVertices, rep.AckedEdges, rep.GoReads)

	kinds, stats := rep.recoveryByKind()
	fmt.Fprintf(&b, "## Failover and recovery\n\nFailover: from the injection until every partition had an established leader (a majority following it) among the stores still reachable; \"none\" counts faults during which some partition stayed leaderless. ")
	fmt.Fprintf(&b, "Leader: from the heal until every partition had an established leader. Rejoin: from the heal until every replica followed it again.\n\n")
	fmt.Fprintf(&b, "| fault | count | failover p50 | failover max | none | leader p50 | leader max | rejoin p50 | rejoin max |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range kinds {
		s := stats[k]
		fmt.Fprintf(&b, "| %s | %d | %v | %v | %d | %v | %v | %v | %v |\n", k, s.n, s.failoverP50, s.failoverMax, s.noFailover, s.leaderP50, s.leaderMax, s.rejoinP50, s.rejoinMax)
	}
	var errKinds []string
	for k := range rep.Errors {
		errKinds = append(errKinds, k)
	}
	sort.Strings(errKinds)
	fmt.Fprintf(&b, "\n## Errors seen by clients, by kind\n\n| operation: kind | count | example |\n|---|---:|---|\n")
	for _, k := range errKinds {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", k, rep.Errors[k], strings.ReplaceAll(rep.ErrorExamples[k], "|", "\\|"))
	}
	fmt.Fprintf(&b, "\n## Faults\n\n| # | kind | target | at | hold | failover | leader | rejoin | notes |\n|---:|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, f := range rep.Faults {
		notes := strings.Join(f.Notes, "; ")
		if f.Error != "" {
			notes = "ERROR: " + f.Error + "; " + notes
		}
		notes = strings.ReplaceAll(strings.ReplaceAll(notes, "\n", " "), "|", "\\|")
		if len(notes) > 400 {
			notes = notes[:400] + "…"
		}
		failover := "none"
		if f.Failover >= 0 {
			failover = f.Failover.String()
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %v | %v | %s | %v | %v | %s |\n", f.Index, f.Kind, strings.Join(f.Target, ","), f.Start.Round(time.Second), f.Hold, failover, f.Leader, f.Rejoin, notes)
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(&b, "\n## Problems\n\n")
		for _, p := range rep.Problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	}
	return b.String()
}
