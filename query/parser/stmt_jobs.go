package parser

import (
	"math"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// Jobs, as in NebulaGraph 3.x, all on the current space:
//
//	SUBMIT JOB BALANCE DATA [REMOVE "host":port [, "host":port ...]]
//	SUBMIT JOB BALANCE LEADER
//	SUBMIT JOB COMPACT
//	SHOW JOBS
//	SHOW JOB id
//	STOP JOB id
//	RECOVER JOB [id [, id ...]]
//
// None of the words is reserved: SUBMIT starts a statement, STOP and
// RECOVER only when JOB follows, and the rest only where they stand here.

// isJobStmt reports whether the current token starts a job statement.
func (p *parser) isJobStmt() bool {
	return p.is("SUBMIT") || (p.is("STOP") || p.is("RECOVER")) && p.peek(1).Is("JOB")
}

// parseJobStmt parses SUBMIT JOB, STOP JOB and RECOVER JOB.
func (p *parser) parseJobStmt() ast.Statement {
	pos := p.pos()
	switch {
	case p.acceptKeyword("SUBMIT"):
		p.expectKeyword("JOB")
		s := &ast.SubmitJobStmt{Pos: pos}
		switch {
		case p.acceptKeyword("COMPACT"):
			s.Kind = ast.JobCompact
		case p.acceptKeyword("STATS"):
			s.Kind = ast.JobStats
		case p.acceptKeyword("BALANCE"):
			switch {
			case p.acceptKeyword("LEADER"):
				s.Kind = ast.JobBalanceLeader
			case p.acceptKeyword("DATA"):
				s.Kind = ast.JobBalanceData
				if p.acceptKeyword("REMOVE") {
					for {
						s.Remove = append(s.Remove, p.parseJobHost())
						if !p.accept(lexer.Comma) {
							break
						}
					}
				}
			default:
				p.expected("DATA or LEADER after BALANCE")
			}
		default:
			p.expected("BALANCE DATA, BALANCE LEADER, COMPACT or STATS")
		}
		return s
	case p.acceptKeyword("STOP"):
		p.expectKeyword("JOB")
		return &ast.StopJobStmt{Pos: pos, ID: p.jobID()}
	}
	p.expectKeyword("RECOVER")
	p.expectKeyword("JOB")
	s := &ast.RecoverJobStmt{Pos: pos}
	if p.at(lexer.Int) {
		for {
			s.IDs = append(s.IDs, p.jobID())
			if !p.accept(lexer.Comma) {
				break
			}
		}
	}
	return s
}

// parseShowJobs parses SHOW JOBS and SHOW JOB id, the current token being
// JOBS or JOB.
func (p *parser) parseShowJobs(pos ast.Pos) ast.Statement {
	if p.acceptKeyword("JOBS") {
		return &ast.ShowJobsStmt{Pos: pos}
	}
	p.expectKeyword("JOB")
	return &ast.ShowJobStmt{Pos: pos, ID: p.jobID()}
}

func (p *parser) jobID() int64 { return p.int64InRange("a job id", 1, math.MaxInt64) }

// parseJobHost parses "host":port.
func (p *parser) parseJobHost() ast.HostPort {
	if !p.at(lexer.String) {
		p.expected(`a storage host as "host":port`)
	}
	h := ast.HostPort{Host: p.tok().Value}
	p.next()
	p.expect(lexer.Colon)
	h.Port = p.intInRange("port", 1, 65535)
	return h
}
