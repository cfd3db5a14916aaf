package lexer

import "strings"

// RedactSecrets returns src with every string literal replaced by '***'
// when src mentions the keyword PASSWORD (CREATE USER … WITH PASSWORD,
// ALTER USER, CHANGE PASSWORD … FROM … TO …), and src unchanged otherwise.
// Whatever keeps statement text beyond its execution (graphd's query list
// and logs, the console's history file) stores it redacted. Text after a
// lexical error is redacted too, up to the end: an unterminated string may
// hold a password.
func RedactSecrets(src string) string {
	toks := Tokenize(src)
	secret := false
	for i, t := range toks {
		// e.password is a property, not the keyword.
		if t.Is("PASSWORD") && (i == 0 || toks[i-1].Kind != Dot) {
			secret = true
			break
		}
	}
	if !secret {
		return src
	}
	var b strings.Builder
	last := 0
	for _, t := range toks {
		switch t.Kind {
		case String:
			b.WriteString(src[last:t.Offset])
			b.WriteString("'***'")
			last = t.End
		case Illegal:
			b.WriteString(src[last:t.Offset])
			b.WriteString("'***'")
			return b.String()
		}
	}
	b.WriteString(src[last:])
	return b.String()
}
