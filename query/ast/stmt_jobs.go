package ast

import (
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/query/value"
)

// JobKind is what SUBMIT JOB submits.
type JobKind uint8

// Job kinds.
const (
	JobBalanceData JobKind = iota + 1
	JobBalanceLeader
	JobCompact
	JobStats // count the space's vertices and edges (SHOW STATS prints them)
)

func (k JobKind) String() string {
	switch k {
	case JobBalanceData:
		return "BALANCE DATA"
	case JobBalanceLeader:
		return "BALANCE LEADER"
	case JobCompact:
		return "COMPACT"
	case JobStats:
		return "STATS"
	}
	return "?"
}

// HostPort is a storage host as a statement names it: "host":port.
type HostPort struct {
	Host string
	Port int
}

func (h HostPort) String() string { return value.Str(h.Host).String() + ":" + strconv.Itoa(h.Port) }

// SubmitJobStmt is SUBMIT JOB BALANCE DATA [REMOVE "host":port, ...],
// SUBMIT JOB BALANCE LEADER or SUBMIT JOB COMPACT, on the current space.
type SubmitJobStmt struct {
	Pos
	Kind   JobKind
	Remove []HostPort // BALANCE DATA REMOVE
}

// ShowJobsStmt is SHOW JOBS: the jobs of the current space.
type ShowJobsStmt struct {
	Pos
}

// ShowJobStmt is SHOW JOB id: a job and its tasks.
type ShowJobStmt struct {
	Pos
	ID int64
}

// StopJobStmt is STOP JOB id.
type StopJobStmt struct {
	Pos
	ID int64
}

// RecoverJobStmt is RECOVER JOB [id, ...]; no ids: every stopped or failed
// job of the current space.
type RecoverJobStmt struct {
	Pos
	IDs []int64
}

func (*SubmitJobStmt) stmtNode()  {}
func (*ShowJobsStmt) stmtNode()   {}
func (*ShowJobStmt) stmtNode()    {}
func (*StopJobStmt) stmtNode()    {}
func (*RecoverJobStmt) stmtNode() {}

func (s *SubmitJobStmt) String() string {
	out := "SUBMIT JOB " + s.Kind.String()
	if len(s.Remove) > 0 {
		hosts := make([]string, len(s.Remove))
		for i, h := range s.Remove {
			hosts[i] = h.String()
		}
		out += " REMOVE " + strings.Join(hosts, ", ")
	}
	return out
}

func (*ShowJobsStmt) String() string  { return "SHOW JOBS" }
func (s *ShowJobStmt) String() string { return "SHOW JOB " + strconv.FormatInt(s.ID, 10) }
func (s *StopJobStmt) String() string { return "STOP JOB " + strconv.FormatInt(s.ID, 10) }

func (s *RecoverJobStmt) String() string {
	ids := make([]string, len(s.IDs))
	for i, id := range s.IDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	if len(ids) == 0 {
		return "RECOVER JOB"
	}
	return "RECOVER JOB " + strings.Join(ids, ", ")
}
