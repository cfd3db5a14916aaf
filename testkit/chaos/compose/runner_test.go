package compose

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/storaged"
)

// The runner's pure parts, without docker: the plan, the leader and
// replica judgements made from /parts pages, error classification, the GO
// check and the report. TestComposeChaos (build tag compose) runs the whole.

func TestPlanIsAFunctionOfTheSeedAndCoversEveryKind(t *testing.T) {
	a := plan(7, 20, nil, 10, time.Second, 5*time.Second)
	b := plan(7, 20, nil, 10, time.Second, 5*time.Second)
	c := plan(8, 20, nil, 10, time.Second, 5*time.Second)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("same seed, different plans:\n%v\n%v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("seeds 7 and 8 plan the same faults")
	}
	seen := map[faultKind]bool{}
	for _, s := range a[:numFaultKinds] {
		seen[s.kind] = true
		if s.hold < time.Second || s.hold > 5*time.Second || s.part < 1 || s.part > 10 {
			t.Fatalf("step out of range: %v", s)
		}
	}
	if len(seen) != int(numFaultKinds) {
		t.Fatalf("the first %d faults do not cover every kind: %v", numFaultKinds, a[:numFaultKinds])
	}
	for _, s := range plan(7, 5, []faultKind{pauseStorage}, 10, time.Second, time.Second) {
		if s.kind != pauseStorage || s.hold != time.Second {
			t.Fatalf("a plan of pauses has %v", s)
		}
	}
}

func TestParseFaultKinds(t *testing.T) {
	k, err := parseFaultKinds("disk-full, kill-leader")
	if err != nil || len(k) != 2 || k[0] != diskFull || k[1] != killLeader {
		t.Fatalf("%v %v", k, err)
	}
	if _, err := parseFaultKinds("kill-everything"); err == nil || !strings.Contains(err.Error(), `"kill-everything"`) {
		t.Fatalf("unknown kind: %v", err)
	}
	if !(Config{Kinds: k}).faultsDisk() || (Config{Kinds: []faultKind{killMeta}}).faultsDisk() || !(Config{}).faultsDisk() {
		t.Fatal("faultsDisk")
	}
}

func rep(store, part int32, leader, term uint64, voters ...uint64) storaged.ReplicaStatus {
	return storaged.ReplicaStatus{Space: 1, Part: part, Store: uint64(store), Leader: leader, Term: term, Voters: voters, Applied: 10}
}

func TestLeaderJudgement(t *testing.T) {
	cases := []struct {
		name   string
		reps   []storaged.ReplicaStatus
		leader uint64
	}{
		{"all agree", []storaged.ReplicaStatus{rep(1, 1, 1, 5, 1, 2, 3), rep(2, 1, 1, 5, 1, 2, 3), rep(3, 1, 1, 5, 1, 2, 3)}, 1},
		{"leader and one follower", []storaged.ReplicaStatus{rep(1, 1, 1, 5, 1, 2, 3), rep(2, 1, 1, 5, 1, 2, 3)}, 1},
		{"followers of an unreachable leader", []storaged.ReplicaStatus{rep(2, 1, 1, 5, 1, 2, 3), rep(3, 1, 1, 5, 1, 2, 3)}, 0},
		{"deposed leader alone", []storaged.ReplicaStatus{rep(1, 1, 1, 5, 1, 2, 3), rep(2, 1, 0, 6, 1, 2, 3), rep(3, 1, 0, 6, 1, 2, 3)}, 0},
		{"new leader, old one still believes", []storaged.ReplicaStatus{rep(1, 1, 1, 5, 1, 2, 3), rep(2, 1, 2, 6, 1, 2, 3), rep(3, 1, 2, 6, 1, 2, 3)}, 2},
		{"terms disagree", []storaged.ReplicaStatus{rep(1, 1, 1, 5, 1, 2, 3), rep(2, 1, 1, 4, 1, 2, 3)}, 0},
		{"single replica", []storaged.ReplicaStatus{rep(4, 1, 4, 2, 4)}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if l, _ := leaderOf(tc.reps); l != tc.leader {
				t.Fatalf("leader %d, want %d", l, tc.leader)
			}
		})
	}
}

func TestViewsLaggingAndChecksums(t *testing.T) {
	sum := func(r storaged.ReplicaStatus, s uint64) storaged.ReplicaStatus { r.Checksum = &s; return r }
	vs := views{
		"storage1": {service: "storage1", replicas: []storaged.ReplicaStatus{sum(rep(1, 1, 1, 5, 1, 2), 7), sum(rep(1, 2, 2, 3, 1, 2), 9)}},
		"storage2": {service: "storage2", replicas: []storaged.ReplicaStatus{sum(rep(2, 1, 1, 5, 1, 2), 7), sum(rep(2, 2, 2, 3, 1, 2), 8)}},
	}
	if got := vs.leaderless([]int32{1, 2}); len(got) != 0 {
		t.Fatalf("leaderless %v", got)
	}
	if got := vs.lagging([]int32{1, 2}); len(got) != 0 {
		t.Fatalf("lagging %v", got)
	}
	if ids := vs.storeIDs(); ids[1] != "storage1" || ids[2] != "storage2" {
		t.Fatalf("store ids %v", ids)
	}
	differ, pending := vs.checksumsDiffer([]int32{1, 2})
	if len(pending) != 0 || len(differ) != 1 || !strings.Contains(differ[0], "part 2") {
		t.Fatalf("differ %v pending %v", differ, pending)
	}
	// A store that does not answer lags, and its partitions' replicas
	// cannot be compared.
	vs["storage3"] = storeView{service: "storage3", err: errors.New("timeout")}
	vs["storage2"] = storeView{service: "storage2", replicas: []storaged.ReplicaStatus{rep(2, 1, 1, 4, 1, 2), sum(rep(2, 2, 2, 3, 1, 2), 9)}}
	lag := strings.Join(vs.lagging([]int32{1, 2}), "; ")
	if !strings.Contains(lag, "storage3: timeout") || !strings.Contains(lag, "part 1: no leader") {
		t.Fatalf("lagging: %s", lag)
	}
	if differ, pending := vs.checksumsDiffer([]int32{1, 2}); len(differ) != 0 || len(pending) != 1 {
		t.Fatalf("differ %v pending %v", differ, pending)
	}
}

func TestErrorKinds(t *testing.T) {
	qe := func(msg string) error { return &client.QueryError{Code: graphpb.QueryErrorCode_E_EXECUTION, Msg: msg} }
	cases := []struct {
		err      error
		kind     string
		definite bool
	}{
		{qe("INSERT VERTEX failed on partition 4: E_OUTCOME_UNKNOWN: connection to storaged storage4:9779 failed"), "E_OUTCOME_UNKNOWN", false},
		{qe("INSERT VERTEX failed on partition 2: storaged storage5:9779: data disk /data is full (E_DISK_FULL)"), "E_DISK_FULL", true},
		{qe("UPDATE VERTEX failed: vertex 2 has no tag \"reg\" (E_NOT_FOUND)"), "E_NOT_FOUND", true},
		{qe("something broke"), "E_EXECUTION", false},
		{&client.QueryError{Code: graphpb.QueryErrorCode_E_SYNTAX, Msg: "syntax error"}, "E_SYNTAX", true},
		{&client.TransportError{Addr: "127.0.0.1:9669", Op: "execute", Err: errors.New("unavailable")}, "graphd unreachable", false},
	}
	for _, tc := range cases {
		if k, d := errorKind(tc.err), definiteFailure(tc.err); k != tc.kind || d != tc.definite {
			t.Errorf("%v: kind %q definite %v, want %q %v", tc.err, k, d, tc.kind, tc.definite)
		}
	}
	var ec errorCounts
	ec.add("write", cases[0].err)
	ec.add("write", cases[0].err)
	ec.add("read", nil)
	n, ex := ec.snapshot()
	if n["write: E_OUTCOME_UNKNOWN"] != 2 || len(n) != 1 || !strings.Contains(ex["write: E_OUTCOME_UNKNOWN"], "storage4") {
		t.Fatalf("counts %v examples %v", n, ex)
	}
}

func TestReportMarkdown(t *testing.T) {
	r := &Report{Seed: 3, Faults: []faultRecord{
		{Index: 1, Kind: "kill-leader", Target: []string{"storage2"}, Failover: 1500 * time.Millisecond, Leader: time.Millisecond, Rejoin: time.Second},
		{Index: 2, Kind: "kill-leader", Target: []string{"storage4"}, Failover: -1, Leader: 2 * time.Millisecond, Rejoin: 3 * time.Second, Notes: []string{"a|b"}},
	}, Errors: map[string]int{"write: E_OUTCOME_UNKNOWN": 4}, ErrorExamples: map[string]string{"write: E_OUTCOME_UNKNOWN": "x"},
		Linearizable: "Ok", ReplicasEqual: true}
	md := r.Markdown()
	for _, want := range []string{"**Result: passed.**", "| kill-leader | 2 | 1.5s | 1.5s | 1 |", "| write: E_OUTCOME_UNKNOWN | 4 | x |", "| 2 | kill-leader | storage4 |", "none", `a\|b`} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	r.Problems = []string{"lost"}
	if !strings.Contains(r.Markdown(), "FAILED (1 problems)") {
		t.Error("a failed run does not say so")
	}
}
