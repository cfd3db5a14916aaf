package buildinfo

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestLinkTimeValues: what the Makefile sets with -X is what --version and
// the metric report.
func TestLinkTimeValues(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v9.8.7", "0123abcd-dirty"
	i := Read()
	if i.Version != "v9.8.7" || i.Commit != "0123abcd-dirty" || i.Go != runtime.Version() {
		t.Fatalf("Read() = %+v", i)
	}
	if got := i.String("graphd"); !strings.HasPrefix(got, "graphd v9.8.7 (commit 0123abcd-dirty, go") {
		t.Fatalf("String = %q", got)
	}
	reg := prometheus.NewRegistry()
	Register(reg)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 1 || mfs[0].GetName() != "novagraph_build_info" || len(mfs[0].GetMetric()) != 1 {
		t.Fatalf("gathered %v", mfs)
	}
	m := mfs[0].GetMetric()[0]
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if m.GetGauge().GetValue() != 1 || labels["version"] != "v9.8.7" || labels["commit"] != "0123abcd-dirty" || labels["go"] != runtime.Version() {
		t.Fatalf("novagraph_build_info = %v %v", m.GetGauge().GetValue(), labels)
	}
}
