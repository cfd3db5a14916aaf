package console

import (
	"regexp"
	"strings"
)

// nGQL variables ($v = GO …; GO FROM $v.id …) live for one request: graphd
// runs the statements of one request together and forgets their variables
// after it. The console sends each statement as a request of its own (to
// print every result), so a statement assigning a variable is held and sent
// in one request with the statements after it, up to the first one that
// assigns nothing; that request prints the last statement's result, as
// NebulaGraph's console prints a line's.

// assignment matches a statement that assigns a variable: "$v = …" (not
// "$v == …", not "$-.x").
var assignment = regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*\s*=($|[^=])`)

func isAssignment(stmt string) bool { return assignment.MatchString(strings.TrimSpace(stmt)) }

// varGrouper holds assignments until the statement that uses them.
type varGrouper struct {
	held []Statement
}

// add takes the next statement and returns the ones to run now: nothing
// while it holds an assignment; the held ones before a console command
// (which graphd never sees); one request of the held ones and stmt after
// any other statement.
func (g *varGrouper) add(stmt Statement) []Statement {
	switch {
	case isCommand(stmt.Text):
		return append(g.flush(), stmt)
	case isAssignment(stmt.Text):
		g.held = append(g.held, stmt)
		return nil
	case len(g.held) == 0:
		return []Statement{stmt}
	}
	g.held = append(g.held, stmt)
	return g.flush()
}

// flush returns the held assignments as one request; nil if none.
func (g *varGrouper) flush() []Statement {
	if len(g.held) == 0 {
		return nil
	}
	texts := make([]string, len(g.held))
	for i, s := range g.held {
		texts[i] = s.Text
	}
	out := Statement{Text: strings.Join(texts, "; "), Line: g.held[0].Line}
	g.held = nil
	return []Statement{out}
}

// holding reports whether assignments wait for a statement.
func (g *varGrouper) holding() bool { return len(g.held) > 0 }
