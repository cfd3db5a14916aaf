package ast

import (
	"strconv"
	"time"
)

// Session settings that SET changes.
const (
	SetQueryMemoryLimit = "QUERY_MEMORY_LIMIT"
	SetQueryTimeout     = "QUERY_TIMEOUT"
)

// SetSessionStmt is a session's override of one of graphd's per-query limits:
//
//	SET QUERY_MEMORY_LIMIT = size | DEFAULT
//	SET QUERY_TIMEOUT = duration | DEFAULT
//
// A size is bytes, optionally with a unit (100MB, 2 GiB, "512KiB"; units
// are powers of 1024); a duration has a unit (500ms, 10s, 2m, "1h30m").
// 0 means no limit, DEFAULT graphd's default again.
type SetSessionStmt struct {
	Pos
	Name    string // SetQueryMemoryLimit or SetQueryTimeout
	Default bool
	Bytes   int64         // QUERY_MEMORY_LIMIT
	Timeout time.Duration // QUERY_TIMEOUT
}

// KillQueryStmt is KILL QUERY (session = id, plan = id), as in NebulaGraph:
// it stops the running query plan of session. Without session = it is the
// current session's.
type KillQueryStmt struct {
	Pos
	Session    int64
	HasSession bool
	Plan       int64
}

// KillSessionStmt is KILL SESSION id: the session is signed out and its
// running queries stopped.
type KillSessionStmt struct {
	Pos
	Session int64
}

func (*KillSessionStmt) stmtNode() {}

func (s *KillSessionStmt) String() string { return "KILL SESSION " + strconv.FormatInt(s.Session, 10) }

func (*SetSessionStmt) stmtNode() {}
func (*KillQueryStmt) stmtNode()  {}

func (s *SetSessionStmt) String() string {
	var v string
	switch {
	case s.Default:
		v = "DEFAULT"
	case s.Name == SetQueryTimeout && s.Timeout == 0:
		v = "0"
	case s.Name == SetQueryTimeout:
		v = strconv.Quote(s.Timeout.String())
	default:
		v = strconv.FormatInt(s.Bytes, 10)
	}
	return "SET " + s.Name + " = " + v
}

func (s *KillQueryStmt) String() string {
	plan := "plan = " + strconv.FormatInt(s.Plan, 10)
	if !s.HasSession {
		return "KILL QUERY (" + plan + ")"
	}
	return "KILL QUERY (session = " + strconv.FormatInt(s.Session, 10) + ", " + plan + ")"
}
