package parser

import "fmt"

// SyntaxError is the error Parse returns for any malformed input, lexical or
// grammatical. Line and Col (1-based, columns in characters) locate the
// offending token; at the end of input they point just past the last
// character and Near is empty.
type SyntaxError struct {
	Line, Col int
	Near      string // the source text at the error, cut at a line end
	Msg       string // what was wrong, usually "expected ..."
}

func (e *SyntaxError) Error() string {
	if e.Near == "" {
		return fmt.Sprintf("syntax error at line %d, column %d at end of input: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("syntax error at line %d, column %d near '%s': %s", e.Line, e.Col, e.Near, e.Msg)
}
