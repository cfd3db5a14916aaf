package lexer

import (
	"strings"
	"testing"
)

// tok is the part of a token the table tests compare.
type tok struct {
	kind  Kind
	text  string
	value string
}

func lexAll(src string) []tok {
	var out []tok
	for _, t := range Tokenize(src) {
		out = append(out, tok{t.Kind, t.Text, t.Value})
	}
	return out
}

func TestTokens(t *testing.T) {
	eof := tok{EOF, "", ""}
	for _, tc := range []struct {
		src  string
		want []tok
	}{
		{"", []tok{eof}},
		{"GO from `my tag` _x1 名字", []tok{
			{Ident, "GO", "GO"}, {Ident, "from", "from"}, {Ident, "`my tag`", "my tag"},
			{Ident, "_x1", "_x1"}, {Ident, "名字", "名字"}, eof}},
		{"0 42 0x1F 0XaB 1.5 .5 1e3 2.5E-2 7e+1", []tok{
			{Int, "0", ""}, {Int, "42", ""}, {Int, "0x1F", ""}, {Int, "0XaB", ""},
			{Float, "1.5", ""}, {Float, ".5", ""}, {Float, "1e3", ""}, {Float, "2.5E-2", ""},
			{Float, "7e+1", ""}, eof}},
		{"1.x", []tok{{Int, "1", ""}, {Dot, ".", ""}, {Ident, "x", "x"}, eof}},
		{`'a\'b' "c\"d" "\n\t\r\b\f\0\\\/" "\u00e9" "多"`, []tok{
			{String, `'a\'b'`, "a'b"}, {String, `"c\"d"`, `c"d`},
			{String, `"\n\t\r\b\f\0\\\/"`, "\n\t\r\b\f\x00\\/"},
			{String, `"\u00e9"`, "é"}, {String, `"多"`, "多"}, eof}},
		{"\"line\nbreak\"", []tok{{String, "\"line\nbreak\"", "line\nbreak"}, eof}},
		{"$- $^ $$ $var1 $_", []tok{
			{InputRef, "$-", ""}, {SrcRef, "$^", ""}, {DstRef, "$$", ""},
			{Variable, "$var1", "var1"}, {Variable, "$_", "_"}, eof}},
		{"( ) [ ] { } , : ; . @ | + - * / % !", []tok{
			{LParen, "(", ""}, {RParen, ")", ""}, {LBracket, "[", ""}, {RBracket, "]", ""},
			{LBrace, "{", ""}, {RBrace, "}", ""}, {Comma, ",", ""}, {Colon, ":", ""},
			{Semicolon, ";", ""}, {Dot, ".", ""}, {At, "@", ""}, {Pipe, "|", ""},
			{Plus, "+", ""}, {Minus, "-", ""}, {Star, "*", ""}, {Slash, "/", ""},
			{Percent, "%", ""}, {Bang, "!", ""}, eof}},
		{"== != <> < <= > >= = ->", []tok{
			{Eq, "==", ""}, {Ne, "!=", ""}, {Ne, "<>", ""}, {Lt, "<", ""}, {Le, "<=", ""},
			{Gt, ">", ""}, {Ge, ">=", ""}, {Assign, "=", ""}, {Arrow, "->", ""}, eof}},
		{"1-1 a->b 1- -1", []tok{
			{Int, "1", ""}, {Minus, "-", ""}, {Int, "1", ""},
			{Ident, "a", "a"}, {Arrow, "->", ""}, {Ident, "b", "b"},
			{Int, "1", ""}, {Minus, "-", ""}, {Minus, "-", ""}, {Int, "1", ""}, eof}},
		{"a -- comment\nb // c\nc # d\nd /* e\n f */ e", []tok{
			{Ident, "a", "a"}, {Ident, "b", "b"}, {Ident, "c", "c"}, {Ident, "d", "d"},
			{Ident, "e", "e"}, eof}},
		{"x-- 1", []tok{{Ident, "x", "x"}, eof}},
		{"x--", []tok{{Ident, "x", "x"}, eof}},
		// "--" before anything but a blank is two operators: MATCH's
		// "-->" and "(a)--(b)", and 1 - -1.
		{"x--1", []tok{{Ident, "x", "x"}, {Minus, "-", ""}, {Minus, "-", ""}, {Int, "1", ""}, eof}},
		{"-->", []tok{{Minus, "-", ""}, {Arrow, "->", ""}, eof}},
		// Between two nodes, "-- (" is a relationship; elsewhere "-- " a comment.
		{"(a)-- (b)", []tok{{LParen, "(", ""}, {Ident, "a", "a"}, {RParen, ")", ""}, {Minus, "-", ""}, {Minus, "-", ""}, {LParen, "(", ""}, {Ident, "b", "b"}, {RParen, ")", ""}, eof}},
		{"(a) -- note", []tok{{LParen, "(", ""}, {Ident, "a", "a"}, {RParen, ")", ""}, eof}},
		{"f(1) -- (note)\n", []tok{{Ident, "f", "f"}, {LParen, "(", ""}, {Int, "1", ""}, {RParen, ")", ""}, {Minus, "-", ""}, {Minus, "-", ""}, {LParen, "(", ""}, {Ident, "note", "note"}, {RParen, ")", ""}, eof}},
		{"1..3 =~ ? & ^", []tok{{Int, "1", ""}, {DotDot, "..", ""}, {Int, "3", ""}, {Match, "=~", ""}, {Question, "?", ""}, {Amp, "&", ""}, {Caret, "^", ""}, eof}},
	} {
		got := lexAll(tc.src)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.src, got, tc.want)
			continue
		}
		for i := range got {
			w := tc.want[i]
			if got[i].kind != w.kind || got[i].text != w.text || (w.value != "" && got[i].value != w.value) {
				t.Errorf("%q: token %d = %+v, want %+v", tc.src, i, got[i], w)
			}
		}
	}
}

func TestQuotedIdentIsNotKeyword(t *testing.T) {
	toks := Tokenize("from `from` FROM")
	if !toks[0].Is("FROM") || toks[1].Is("FROM") || !toks[2].Is("FROM") {
		t.Errorf("keyword matching must be case-insensitive and skip quoted names")
	}
	if toks[0].IsName() || !toks[1].IsName() {
		t.Errorf("a reserved word is a name only when quoted")
	}
	if !Tokenize("spaces")[0].IsName() {
		t.Errorf("unreserved keywords are names")
	}
}

func TestPositions(t *testing.T) {
	src := "GO\n  FROM \"é\" é\r\n\tx"
	want := [][2]int{{1, 1}, {2, 3}, {2, 8}, {2, 12}, {3, 2}, {3, 3}}
	toks := Tokenize(src)
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens, want %d", len(toks), len(want))
	}
	for i, tk := range toks {
		if tk.Line != want[i][0] || tk.Col != want[i][1] {
			t.Errorf("token %d %q at %d:%d, want %d:%d", i, tk.Text, tk.Line, tk.Col, want[i][0], want[i][1])
		}
		if src[tk.Offset:tk.End] != tk.Text {
			t.Errorf("token %d: offsets do not match text", i)
		}
	}
}

func TestIllegal(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		err       string
	}{
		{`"abc`, 1, 1, "unterminated string"},
		{"'abc\\", 1, 1, "unterminated string"},
		{`x "a\qb"`, 1, 5, `invalid escape \q`},
		{`"\u12"`, 1, 2, `\u needs four hex digits`},
		{"`abc", 1, 1, "unterminated quoted name"},
		{"``", 1, 1, "empty quoted name"},
		{"a /* b", 1, 3, "unterminated comment"},
		{"12ab", 1, 1, "malformed number"},
		{"0x", 1, 1, "malformed hex literal"},
		{"0xZ", 1, 1, "malformed hex literal"},
		{"$ x", 1, 1, "after '$'"},
		{"a\n  ~", 2, 3, "unexpected character '~'"},
		{"\xff", 1, 1, "invalid UTF-8"},
	} {
		toks := Tokenize(tc.src)
		last := toks[len(toks)-1]
		if last.Kind != Illegal {
			t.Errorf("%q: last token %v, want Illegal", tc.src, last.Kind)
			continue
		}
		if last.Line != tc.line || last.Col != tc.col || !strings.Contains(last.Err, tc.err) {
			t.Errorf("%q: Illegal at %d:%d %q, want %d:%d %q", tc.src, last.Line, last.Col, last.Err, tc.line, tc.col, tc.err)
		}
	}
}

func TestIsBareIdent(t *testing.T) {
	for s, want := range map[string]bool{
		"name": true, "_a1": true, "名字": true, "spaces": true,
		"with": true, "add": true, "change": true, "indexes": true, "ttl_duration": true, "TTL_COL": true,
		"": false, "1a": false, "a b": false, "from": false, "Where": false, "a-b": false, "\xff": false,
		"index": false, "Delete": false, "update": false, "UPSERT": false, "alter": false, "lookup": false,
		"rebuild": false, "set": false, "when": false,
	} {
		if got := IsBareIdent(s); got != want {
			t.Errorf("IsBareIdent(%q) = %v, want %v", s, got, want)
		}
	}
}
