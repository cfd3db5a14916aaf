package graphd

import (
	"strings"

	"github.com/novagraph/novagraph/query/lexer"
)

// statementKinds maps a statement's first keyword (lower case) to the kind
// label of graphd's query metrics. The set is fixed so that the label has
// few values whatever clients send; a keyword not listed is "other".
var statementKinds = map[string]string{
	"go": "go", "match": "match", "optional": "match", "unwind": "match", "with": "match",
	"fetch": "fetch", "lookup": "lookup", "find": "path", "get": "subgraph", "yield": "yield",
	"insert": "insert", "update": "update", "upsert": "update", "delete": "delete",
	"create": "ddl", "alter": "ddl", "drop": "ddl", "rebuild": "ddl", "clear": "ddl",
	"show": "show", "describe": "show", "desc": "show", "use": "use",
	"submit": "job", "stop": "job", "recover": "job",
	"grant": "admin", "revoke": "admin", "change": "admin", "kill": "admin", "set": "admin", "add": "admin",
}

// statementKind labels a request for the query metrics: the kind of its
// first statement, or of the one after a leading USE ("USE s; GO …" is a
// GO), past EXPLAIN / PROFILE [FORMAT = "…"], a `$v =` assignment and
// opening parentheses. It reads a few tokens, not the whole request (a
// bulk INSERT may be megabytes). "none" for an empty request.
func statementKind(text string) string {
	l := lexer.New(text)
	t := l.Next()
	for {
		switch {
		case t.Kind == lexer.EOF:
			return "none"
		case t.Kind == lexer.LParen:
			t = l.Next()
			continue
		case t.Kind == lexer.Variable:
			if t = l.Next(); t.Kind == lexer.Assign {
				t = l.Next()
				continue
			}
			return "other"
		case t.Is("EXPLAIN") || t.Is("PROFILE"):
			t = l.Next()
			if t.Is("FORMAT") {
				l.Next() // =
				l.Next() // "row" | "dot"
				t = l.Next()
			}
			continue
		case t.Kind != lexer.Ident || t.Quoted:
			return "other"
		}
		kind, ok := statementKinds[strings.ToLower(t.Value)]
		if !ok {
			return "other"
		}
		if kind != "use" {
			return kind
		}
		// USE name ; <statement>
		for t = l.Next(); t.Kind != lexer.Semicolon; t = l.Next() {
			if t.Kind == lexer.EOF || t.Kind == lexer.Illegal {
				return "use"
			}
		}
		if t = l.Next(); t.Kind == lexer.EOF {
			return "use"
		}
	}
}
