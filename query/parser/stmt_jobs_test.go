package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestJobStatements checks the canonical text of every job statement and
// that it parses back to the same tree.
func TestJobStatements(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"SUBMIT JOB BALANCE DATA", "SUBMIT JOB BALANCE DATA"},
		{"submit job balance data remove '127.0.0.1':9779", `SUBMIT JOB BALANCE DATA REMOVE "127.0.0.1":9779`},
		{`SUBMIT JOB BALANCE DATA REMOVE "a":1, "b" : 65535`, `SUBMIT JOB BALANCE DATA REMOVE "a":1, "b":65535`},
		{"SUBMIT JOB BALANCE LEADER", "SUBMIT JOB BALANCE LEADER"},
		{"submit job compact", "SUBMIT JOB COMPACT"},
		{"SHOW JOBS", "SHOW JOBS"},
		{"show job 12", "SHOW JOB 12"},
		{"STOP JOB 3", "STOP JOB 3"},
		{"RECOVER JOB", "RECOVER JOB"},
		{"recover job 1,2, 3", "RECOVER JOB 1, 2, 3"},
		{"EXPLAIN SHOW JOBS", "EXPLAIN SHOW JOBS"},
		// The words stay names elsewhere.
		{"CREATE TAG job(submit int, stop int, recover int, balance int, data int, leader int, compact int, jobs int, remove int)",
			"CREATE TAG job(submit int64, stop int64, recover int64, balance int64, data int64, leader int64, compact int64, jobs int64, remove int64)"},
		{"USE stop", "USE stop"},
	} {
		st := parseOne(t, tc.src)
		if got := st.String(); got != tc.want {
			t.Errorf("Parse(%q).String()\n got %s\nwant %s", tc.src, got, tc.want)
			continue
		}
		if again := parseOne(t, tc.want); !reflect.DeepEqual(stripPos(again), stripPos(st)) {
			t.Errorf("%q: the printed form parses to a different tree", tc.src)
		}
	}
	s := parseOne(t, `SUBMIT JOB BALANCE DATA REMOVE "h1":9779, "h2":9780`).(*ast.SubmitJobStmt)
	if want := []ast.HostPort{{Host: "h1", Port: 9779}, {Host: "h2", Port: 9780}}; s.Kind != ast.JobBalanceData || !reflect.DeepEqual(s.Remove, want) {
		t.Errorf("BALANCE DATA REMOVE: %+v", s)
	}
	if r := parseOne(t, "RECOVER JOB 4, 5").(*ast.RecoverJobStmt); !reflect.DeepEqual(r.IDs, []int64{4, 5}) {
		t.Errorf("RECOVER JOB: %+v", r)
	}
}

func TestJobStatementErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"SUBMIT JOB", "expected BALANCE DATA, BALANCE LEADER, COMPACT or STATS"},
		{"SUBMIT BALANCE DATA", "expected JOB"},
		{"SUBMIT JOB BALANCE", "expected DATA or LEADER after BALANCE"},
		{"SUBMIT JOB BALANCE DATA REMOVE", `expected a storage host as "host":port`},
		{"SUBMIT JOB BALANCE DATA REMOVE 127", `expected a storage host as "host":port`},
		{`SUBMIT JOB BALANCE DATA REMOVE "h"`, "expected ':'"},
		{`SUBMIT JOB BALANCE DATA REMOVE "h":0`, "port must be an integer from 1 to 65535"},
		{`SUBMIT JOB BALANCE DATA REMOVE "h":1,`, `expected a storage host`},
		{"SUBMIT JOB BALANCE LEADER REMOVE", "expected ';' or end of input"},
		{"SHOW JOB", "expected a job id"},
		{"SHOW JOB 0", "a job id must be an integer from 1"},
		{"STOP JOB", "expected a job id"},
		{"STOP JOB x", "expected a job id"},
		{"RECOVER JOB 1,", "expected a job id"},
	} {
		_, err := Parse(tc.src)
		if err == nil {
			t.Fatalf("%q parsed", tc.src)
		}
		checkSyntaxError(t, tc.src, err)
		if !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}
