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
	if !mayMentionPassword(src) {
		return src // most statements: no tokenizing (graphd redacts every one)
	}
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

// mayMentionPassword reports whether src could hold the keyword PASSWORD:
// it has the word in some ASCII case, or a byte beyond ASCII (keywords
// match under Unicode case folding, where ſ is an s).
func mayMentionPassword(src string) bool {
	const word = "password"
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c >= 0x80 {
			return true
		}
		if c|0x20 != word[0] || i+len(word) > len(src) {
			continue
		}
		j := 1
		for j < len(word) && src[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}
