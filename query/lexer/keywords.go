package lexer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsReserved reports whether word (in any case) is a reserved keyword: one
// that starts or separates clauses or is an operator or literal, so that
// reading it as a name would make the grammar ambiguous or the errors
// misleading. Reserved words can still be names when back-quoted. Other
// keywords (SPACES, PARTS, BIDIRECT, CONTAINS, WITH, ADD, CHANGE, INDEXES,
// TTL_DURATION, TTL_COL, ...) are recognised only where the grammar expects
// them. INDEX is reserved because CREATE/DROP/DESCRIBE TAG INDEX would
// otherwise be ambiguous with a tag named "index".
func IsReserved(word string) bool {
	switch strings.ToUpper(word) {
	case "ALTER", "AND", "AS", "BY", "CREATE", "DELETE", "DESC", "DESCRIBE",
		"DISTINCT", "DROP", "EDGE", "EXISTS", "EXPLAIN", "FALSE", "FETCH", "FROM",
		"GO", "GRANT", "IF", "IN", "INDEX", "INSERT", "IS", "LIMIT", "LOOKUP", "NOT",
		"NULL", "ON", "OR", "ORDER", "OVER", "PROFILE", "PROP", "REBUILD",
		"REVERSELY", "REVOKE", "SET", "SHOW", "STEP", "STEPS", "TAG", "TO", "TRUE", "UNION",
		"UPDATE", "UPSERT", "USE", "VALUE", "VALUES", "VERTEX", "WHEN", "WHERE",
		"XOR", "YIELD":
		return true
	}
	return false
}

// IsIdentStart reports whether r may begin a bare identifier.
func IsIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }

// IsIdentPart reports whether r may continue a bare identifier.
func IsIdentPart(r rune) bool { return IsIdentStart(r) || unicode.IsDigit(r) }

// IsBareIdent reports whether s lexes as one unquoted, non-reserved
// identifier, i.e. whether it can be written without back quotes.
func IsBareIdent(s string) bool {
	if s == "" || IsReserved(s) {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError || (i == 0 && !IsIdentStart(r)) || !IsIdentPart(r) {
			return false
		}
	}
	return true
}
