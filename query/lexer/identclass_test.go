package lexer

import (
	"testing"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/value"
)

// value.KeyIsBare repeats the identifier classes so that query/value need
// not import the lexer; every rune must be classed alike by both.
func TestKeyIsBareAgreesWithLexer(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if got, want := value.KeyIsBare(string(r)), IsIdentStart(r); got != want {
			t.Fatalf("rune %U as a whole key: value.KeyIsBare = %v, lexer.IsIdentStart = %v", r, got, want)
		}
		if got, want := value.KeyIsBare("a"+string(r)), IsIdentPart(r); got != want {
			t.Fatalf("rune %U after a letter: value.KeyIsBare = %v, lexer.IsIdentPart = %v", r, got, want)
		}
	}
}
