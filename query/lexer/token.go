// Package lexer splits nGQL text into tokens.
//
// Keywords are not token kinds of their own: every word is an Ident, and the
// parser asks Token.Is("FROM"). That keeps the many context-only keywords of
// nGQL (SPACES, HOSTS, BIDIRECT, ...) usable as names, while IsReserved lists
// the words that may only be used as names when back-quoted.
package lexer

import "strings"

// Kind classifies a token.
type Kind uint8

// Token kinds.
const (
	EOF      Kind = iota
	Illegal       // malformed input; Token.Err says why
	Ident         // a bare word (possibly a keyword) or a `back-quoted` name
	Int           // unsigned decimal or 0x-prefixed hex digits; a minus sign is a separate token
	Float         // digits with a fraction and/or exponent
	String        // a single- or double-quoted string; Token.Value holds it decoded
	Variable      // $name; Token.Value holds the name
	InputRef      // $-
	SrcRef        // $^
	DstRef        // $$

	LParen    // (
	RParen    // )
	LBracket  // [
	RBracket  // ]
	LBrace    // {
	RBrace    // }
	Comma     // ,
	Colon     // :
	Semicolon // ;
	Dot       // .
	At        // @
	Pipe      // |
	Plus      // +
	Minus     // -
	Star      // *
	Slash     // /
	Percent   // %
	Bang      // !
	Eq        // ==
	Ne        // != or <>
	Lt        // <
	Le        // <=
	Gt        // >
	Ge        // >=
	Assign    // =
	Arrow     // ->
	DotDot    // .., the range of a variable-length pattern or a list slice
	Match     // =~, a regular-expression match
	Question  // ?, of the conditional cond ? a : b
	Amp       // &, bitwise and
	Caret     // ^, bitwise exclusive or
)

// String describes the kind for error messages.
func (k Kind) String() string {
	switch k {
	case EOF:
		return "end of input"
	case Illegal:
		return "illegal token"
	case Ident:
		return "identifier"
	case Int:
		return "integer"
	case Float:
		return "float"
	case String:
		return "string"
	case Variable:
		return "variable"
	case InputRef:
		return "'$-'"
	case SrcRef:
		return "'$^'"
	case DstRef:
		return "'$$'"
	}
	if s := punctuation(k); s != "" {
		return "'" + s + "'"
	}
	return "unknown token"
}

// punctuation is the canonical spelling of an operator or delimiter kind.
func punctuation(k Kind) string {
	switch k {
	case LParen:
		return "("
	case RParen:
		return ")"
	case LBracket:
		return "["
	case RBracket:
		return "]"
	case LBrace:
		return "{"
	case RBrace:
		return "}"
	case Comma:
		return ","
	case Colon:
		return ":"
	case Semicolon:
		return ";"
	case Dot:
		return "."
	case At:
		return "@"
	case Pipe:
		return "|"
	case Plus:
		return "+"
	case Minus:
		return "-"
	case Star:
		return "*"
	case Slash:
		return "/"
	case Percent:
		return "%"
	case Bang:
		return "!"
	case Eq:
		return "=="
	case Ne:
		return "!="
	case Lt:
		return "<"
	case Le:
		return "<="
	case Gt:
		return ">"
	case Ge:
		return ">="
	case Assign:
		return "="
	case DotDot:
		return ".."
	case Match:
		return "=~"
	case Question:
		return "?"
	case Amp:
		return "&"
	case Caret:
		return "^"
	case Arrow:
		return "->"
	}
	return ""
}

// Token is one lexeme with its position.
type Token struct {
	Kind Kind
	// Line and Col locate the first character, both 1-based; columns count
	// characters (runes), not bytes.
	Line, Col int
	// Offset and End are the byte offsets of the token in the source, so
	// that Text == src[Offset:End].
	Offset, End int
	Text        string
	// Value is the decoded content: the name of an Ident (without back
	// quotes) or Variable, the contents of a String.
	Value string
	// Quoted is set for back-quoted identifiers, which are never keywords.
	Quoted bool
	// Err describes what is wrong with an Illegal token.
	Err string
}

// Is reports whether t is the keyword kw (given in upper case), in any case.
func (t Token) Is(kw string) bool {
	return t.Kind == Ident && !t.Quoted && strings.EqualFold(t.Value, kw)
}

// IsName reports whether t can be used as a name: a back-quoted identifier
// or a bare one that is not reserved.
func (t Token) IsName() bool {
	return t.Kind == Ident && (t.Quoted || !IsReserved(t.Value))
}
