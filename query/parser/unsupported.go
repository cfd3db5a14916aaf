package parser

import (
	"strings"

	"github.com/novagraph/novagraph/query/lexer"
)

// NebulaGraph 3.x statements (and openCypher clauses) novagraph does not
// run are refused with an error that says so and names the statement,
// rather than a bare "expected a statement": a user trying something from
// NebulaGraph's manual learns that it is missing, not that they mistyped.
// README's "Differences from NebulaGraph" lists the same.

// unsupportedStatements are the statement openings, in words, and what
// to say after "... is not supported". The longest opening that matches
// wins.
var unsupportedStatements = []struct {
	words []string
	hint  string
}{
	{[]string{"MERGE"}, "write with INSERT VERTEX / INSERT EDGE (or UPSERT)"},
	{[]string{"DETACH", "DELETE"}, "delete with DELETE VERTEX ... WITH EDGE"},
	{[]string{"REMOVE"}, "remove a tag with DELETE TAG, a property with UPDATE"},
	{[]string{"CALL"}, ""},
	{[]string{"FOREACH"}, ""},
	{[]string{"LOAD"}, "load files with nova-importer"},
	{[]string{"SHOW", "SESSION"}, ""},
	{[]string{"SHOW", "CHARSET"}, ""},
	{[]string{"SHOW", "COLLATION"}, ""},
	{[]string{"SHOW", "ZONES"}, ""},
	{[]string{"SHOW", "ZONE"}, ""},
	{[]string{"SHOW", "CONFIGS"}, "daemons take their settings from flags (see docs/deploy.md)"},
	{[]string{"SHOW", "META", "LEADER"}, ""},
	{[]string{"SHOW", "LISTENER"}, ""},
	{[]string{"SHOW", "FULLTEXT"}, ""},
	{[]string{"SHOW", "TEXT"}, ""},
	{[]string{"SHOW", "DRAINERS"}, ""},
	{[]string{"SHOW", "FUNCTIONS"}, ""},
	{[]string{"SHOW", "TAG", "INDEX", "STATUS"}, "REBUILD ... INDEX runs as a job: SHOW JOBS"},
	{[]string{"SHOW", "EDGE", "INDEX", "STATUS"}, "REBUILD ... INDEX runs as a job: SHOW JOBS"},
	{[]string{"SUBMIT", "JOB", "FLUSH"}, ""},
	{[]string{"SUBMIT", "JOB", "DOWNLOAD"}, "load files with nova-importer"},
	{[]string{"SUBMIT", "JOB", "INGEST"}, "load files with nova-importer"},
	{[]string{"CREATE", "FULLTEXT"}, ""},
	{[]string{"SIGN"}, ""},
	{[]string{"ADD", "LISTENER"}, ""},
	{[]string{"REMOVE", "LISTENER"}, ""},
	{[]string{"UPDATE", "CONFIGS"}, "daemons take their settings from flags (see docs/deploy.md)"},
	{[]string{"GET", "CONFIGS"}, "daemons take their settings from flags (see docs/deploy.md)"},
	{[]string{"BALANCE"}, "SUBMIT JOB BALANCE DATA and SUBMIT JOB BALANCE LEADER do it"},
	{[]string{"MERGE", "ZONE"}, ""},
	{[]string{"ALTER", "SPACE"}, ""},
	{[]string{"CREATE", "SPACE", "AS"}, ""},
}

// rejectUnsupported fails, saying so, when the input at the current
// token opens a statement novagraph does not run. A Cypher CREATE with a
// pattern, as CREATE (v:t {...}), is one too.
func (p *parser) rejectUnsupported() {
	if p.is("CREATE") && p.peek(1).Kind == lexer.LParen {
		p.fail("CREATE with a pattern (openCypher) is not supported: insert with INSERT VERTEX and INSERT EDGE")
	}
	best := -1
	for i, u := range unsupportedStatements {
		match := true
		for j, w := range u.words {
			if !p.peek(j).Is(w) {
				match = false
				break
			}
		}
		if match && (best < 0 || len(u.words) > len(unsupportedStatements[best].words)) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	u := unsupportedStatements[best]
	msg := strings.Join(u.words, " ") + " is not supported by novagraph"
	if u.hint != "" {
		msg += ": " + u.hint
	}
	p.fail(msg)
}
