package eval

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/value"
)

// Limits on what one call may build, so that a query such as
// lpad(”, 1e12, 'x') or range(1, 1e18) fails instead of exhausting memory.
const (
	maxStringResult = value.MaxStringBytes
	maxListResult   = value.MaxListItems
)

// ErrArgument is wrapped by errors about a function argument's value (as
// opposed to its type, value.ErrType): a negative length, a zero step, a
// result too long to build.
var ErrArgument = errors.New("invalid argument")

var errTooLong = fmt.Errorf("%w: result longer than %d bytes", ErrArgument, maxStringResult)

// argErrorf is an error about an argument's value rather than its type.
func argErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrArgument, fmt.Sprintf(format, args...))
}

func constFn(v value.Value) func([]value.Value) (value.Value, error) {
	return func([]value.Value) (value.Value, error) { return v, nil }
}

func intArg(v value.Value, what string) (int64, error) {
	i, ok := v.IntVal()
	if !ok {
		return 0, argError(what+" as an integer", v)
	}
	return i, nil
}

func strArg(v value.Value, what string) (string, error) {
	s, ok := v.StrVal()
	if !ok {
		return "", argError(what+" as a string", v)
	}
	return s, nil
}

func listArg(v value.Value) ([]value.Value, error) {
	l, ok := v.ListVal()
	if !ok {
		return nil, argError("a list", v)
	}
	return l, nil
}

// ---------------------------------------------------------------- math

// fnRound rounds half away from zero, to a number of decimal digits when a
// second argument gives one (negative: to tens, hundreds...). The result
// is FLOAT, as in NebulaGraph.
func fnRound(args []value.Value) (value.Value, error) {
	x, ok := toFloat(args[0])
	if !ok {
		return value.Value{}, argError("a number", args[0])
	}
	if len(args) == 1 {
		return value.Float(math.Round(x)), nil
	}
	digits, err := intArg(args[1], "the number of digits")
	if err != nil {
		return value.Value{}, err
	}
	switch {
	case digits > 308:
		return value.Float(x), nil
	case digits < -308:
		return value.Float(math.Copysign(0, x)), nil
	}
	p := math.Pow(10, float64(digits))
	r := math.Round(x*p) / p
	if math.IsInf(x*p, 0) || math.IsNaN(r) {
		return value.Float(x), nil // too many digits to matter
	}
	return value.Float(r), nil
}

func fnAtan2(args []value.Value) (value.Value, error) {
	y, ok1 := toFloat(args[0])
	x, ok2 := toFloat(args[1])
	if !ok1 || !ok2 {
		return value.Value{}, fmt.Errorf("%w: atan2() expects numbers, got %s and %s", value.ErrType, args[0].Kind(), args[1].Kind())
	}
	return value.Float(math.Atan2(y, x)), nil
}

// fnSign is -1, 0 or 1 as an INT (0 for NaN).
func fnSign(args []value.Value) (value.Value, error) {
	x, ok := toFloat(args[0])
	if !ok {
		return value.Value{}, argError("a number", args[0])
	}
	switch {
	case x > 0:
		return value.Int(1), nil
	case x < 0:
		return value.Int(-1), nil
	}
	return value.Int(0), nil
}

func fnRand([]value.Value) (value.Value, error) { return value.Float(rand.Float64()), nil }

// randIntFn is rand32 / rand64: no argument, any integer of the width;
// rand32(max), one in [0, max); rand32(min, max), one in [min, max).
func randIntFn(lo, hi int64) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		if len(args) == 0 {
			if lo == math.MinInt64 {
				return value.Int(int64(rand.Uint64())), nil
			}
			return value.Int(int64(int32(rand.Uint32()))), nil
		}
		min, max := int64(0), int64(0)
		var err error
		if len(args) == 1 {
			max, err = intArg(args[0], "the maximum")
		} else if min, err = intArg(args[0], "the minimum"); err == nil {
			max, err = intArg(args[1], "the maximum")
		}
		if err != nil {
			return value.Value{}, err
		}
		if min < lo || max > hi {
			return value.Value{}, argErrorf("bounds [%d, %d) exceed the range of the function's integer width", min, max)
		}
		if max <= min {
			return value.Value{}, argErrorf("the maximum %d must be greater than the minimum %d", max, min)
		}
		span := uint64(max) - uint64(min) // fits: max > min
		return value.Int(int64(uint64(min) + rand.Uint64N(span))), nil
	}
}

// fnHash is a 64-bit hash of any value, NebulaGraph's for the values
// whose hash users store (vids made with hash("name")): an INT hashes to
// itself, a STRING or FLOAT as std::hash does in libstdc++, a BOOL to 0 or
// 1. Other values hash to the FNV-1a hash of their identity encoding
// (value.AppendKey), which is stable across runs and hosts.
func fnHash(args []value.Value) (value.Value, error) {
	v := args[0]
	if i, ok := v.IntVal(); ok && v.Kind() == value.KindInt {
		return value.Int(i), nil
	}
	switch v.Kind() {
	case value.KindString:
		// NebulaGraph's hash of a string is std::hash<std::string>, which
		// libstdc++ computes as below: vids made with hash("…") there are
		// the same vids here.
		s, _ := v.StrVal()
		return value.Int(int64(hashBytes([]byte(s), nebulaHashSeed))), nil
	case value.KindBool:
		if b, _ := v.BoolVal(); b {
			return value.Int(1), nil // std::hash<bool>
		}
		return value.Int(0), nil
	case value.KindFloat:
		f, _ := v.FloatVal()
		if f == 0 {
			return value.Int(0), nil // std::hash<double>: 0.0 and -0.0 hash to 0
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return value.Int(int64(hashBytes(b[:], nebulaHashSeed))), nil
	}
	h := fnv.New64a()
	_, _ = h.Write(v.AppendKey(nil))
	return value.Int(int64(binary.BigEndian.Uint64(h.Sum(nil)))), nil
}

// nebulaHashSeed is libstdc++'s seed for std::hash of strings and doubles.
const nebulaHashSeed = 0xc70f6907

// hashBytes is libstdc++'s std::_Hash_bytes for a 64-bit size_t, a
// MurmurHash2 variant (its hash_bytes.cc): what NebulaGraph's hash() gives
// for a string.
func hashBytes(p []byte, seed uint64) uint64 {
	const mul = 0xc6a4a793<<32 | 0x5bd1e995
	shiftMix := func(v uint64) uint64 { return v ^ v>>47 }
	h := seed ^ uint64(len(p))*mul
	aligned := len(p) &^ 7
	for i := 0; i < aligned; i += 8 {
		h ^= shiftMix(binary.LittleEndian.Uint64(p[i:])*mul) * mul
		h *= mul
	}
	if rest := p[aligned:]; len(rest) > 0 {
		var data uint64
		for i := len(rest) - 1; i >= 0; i-- { // load_bytes: the last byte highest
			data = data<<8 | uint64(rest[i])
		}
		h ^= data
		h *= mul
	}
	h = shiftMix(h) * mul
	return shiftMix(h)
}

// ---------------------------------------------------------------- strings

// Character positions and counts are in characters (UTF-8 code points),
// as length() counts them, so results stay valid UTF-8.

func fnLeft(args []value.Value) (value.Value, error) {
	s, n, err := strAndCount(args)
	if err != nil {
		return value.Value{}, err
	}
	r := []rune(s)
	return value.Str(string(r[:min(int64(len(r)), n)])), nil
}

func fnRight(args []value.Value) (value.Value, error) {
	s, n, err := strAndCount(args)
	if err != nil {
		return value.Value{}, err
	}
	r := []rune(s)
	return value.Str(string(r[int64(len(r))-min(int64(len(r)), n):])), nil
}

func strAndCount(args []value.Value) (string, int64, error) {
	s, err := strArg(args[0], "the text")
	if err != nil {
		return "", 0, err
	}
	n, err := intArg(args[1], "the length")
	if err != nil {
		return "", 0, err
	}
	if n < 0 {
		return "", 0, argErrorf("the length %d is negative", n)
	}
	return s, n, nil
}

// padFn is lpad / rpad(text, size, pad): text cut to size characters, or
// filled up to size with pad repeated (on the left for lpad); an empty pad
// leaves a shorter text as it is.
func padFn(left bool) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		s, n, err := strAndCount(args[:2])
		if err != nil {
			return value.Value{}, err
		}
		pad, err := strArg(args[2], "the padding")
		if err != nil {
			return value.Value{}, err
		}
		r := []rune(s)
		if n <= int64(len(r)) {
			return value.Str(string(r[:n])), nil
		}
		p := []rune(pad)
		if len(p) == 0 {
			return value.Str(s), nil
		}
		need := n - int64(len(r))
		if need > maxStringResult/utf8.UTFMax {
			return value.Value{}, errTooLong
		}
		fill := make([]rune, need)
		for i := range fill {
			fill[i] = p[i%len(p)]
		}
		if left {
			return value.Str(string(fill) + s), nil
		}
		return value.Str(s + string(fill)), nil
	}
}

// fnSubstr is substr(text, start[, count]): count characters (all, without
// count) from the 0-based start; a start past the end gives "".
func fnSubstr(args []value.Value) (value.Value, error) {
	s, err := strArg(args[0], "the text")
	if err != nil {
		return value.Value{}, err
	}
	start, err := intArg(args[1], "the start")
	if err != nil {
		return value.Value{}, err
	}
	if start < 0 {
		return value.Value{}, argErrorf("the start %d is negative", start)
	}
	r := []rune(s)
	if start >= int64(len(r)) {
		return value.Str(""), nil
	}
	end := int64(len(r))
	if len(args) == 3 {
		n, err := intArg(args[2], "the count")
		if err != nil {
			return value.Value{}, err
		}
		if n < 0 {
			return value.Value{}, argErrorf("the count %d is negative", n)
		}
		end = start + min(n, end-start)
	}
	return value.Str(string(r[start:end])), nil
}

// fnReverse reverses a string (by character) or a list.
func fnReverse(args []value.Value) (value.Value, error) {
	if s, ok := args[0].StrVal(); ok {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return value.Str(string(r)), nil
	}
	if l, ok := args[0].ListVal(); ok {
		out := make([]value.Value, len(l))
		for i, x := range l {
			out[len(l)-1-i] = x
		}
		return value.List(out...), nil
	}
	return value.Value{}, argError("a string or list", args[0])
}

// fnReplace replaces every occurrence of search in text by replacement.
func fnReplace(args []value.Value) (value.Value, error) {
	s, err := strArg(args[0], "the text")
	if err != nil {
		return value.Value{}, err
	}
	search, err := strArg(args[1], "the search string")
	if err != nil {
		return value.Value{}, err
	}
	repl, err := strArg(args[2], "the replacement")
	if err != nil {
		return value.Value{}, err
	}
	n := int64(strings.Count(s, search))
	if r := int64(len(repl)); r > 0 && (n > maxStringResult/r || int64(len(s))+n*r > maxStringResult) {
		return value.Value{}, errTooLong
	}
	return value.Str(strings.ReplaceAll(s, search, repl)), nil
}

// fnSplit splits text at every separator into a list of strings; an empty
// separator splits it into characters.
func fnSplit(args []value.Value) (value.Value, error) {
	s, err := strArg(args[0], "the text")
	if err != nil {
		return value.Value{}, err
	}
	sep, err := strArg(args[1], "the separator")
	if err != nil {
		return value.Value{}, err
	}
	parts := strings.Split(s, sep)
	out := make([]value.Value, len(parts))
	for i, p := range parts {
		out[i] = value.Str(p)
	}
	return value.List(out...), nil
}

// textOf is a value as concat() takes it: strings, numbers, booleans and
// calendar values as toString() renders them.
func textOf(v value.Value) (string, error) {
	switch {
	case v.Kind() == value.KindString, v.Kind() == value.KindBool, v.IsNumeric(), v.IsTemporal():
		return v.Text(), nil
	}
	return "", argError("a string, number, boolean or date/time", v)
}

// fnConcat joins its arguments' text; any NULL makes it NULL.
func fnConcat(args []value.Value) (value.Value, error) {
	return joinText("", args)
}

// fnConcatWS joins its arguments after the first with the first as the
// separator, skipping NULLs; a NULL separator gives NULL.
func fnConcatWS(args []value.Value) (value.Value, error) {
	if args[0].IsNull() {
		return value.Value{}, nil
	}
	sep, err := strArg(args[0], "the separator")
	if err != nil {
		return value.Value{}, err
	}
	rest := make([]value.Value, 0, len(args)-1)
	for _, a := range args[1:] {
		if !a.IsNull() {
			rest = append(rest, a)
		}
	}
	return joinText(sep, rest)
}

func joinText(sep string, args []value.Value) (value.Value, error) {
	var b strings.Builder
	for i, a := range args {
		t, err := textOf(a)
		if err != nil {
			return value.Value{}, err
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(t)
		if b.Len() > maxStringResult {
			return value.Value{}, errTooLong
		}
	}
	return value.Str(b.String()), nil
}

// fnStrcasecmp compares two strings ignoring case: -1, 0 or 1.
func fnStrcasecmp(args []value.Value) (value.Value, error) {
	a, err := strArg(args[0], "the first string")
	if err != nil {
		return value.Value{}, err
	}
	b, err := strArg(args[1], "the second string")
	if err != nil {
		return value.Value{}, err
	}
	return value.Int(int64(strings.Compare(strings.ToLower(a), strings.ToLower(b)))), nil
}

// ---------------------------------------------------------------- lists

// fnRange is range(start, end[, step]): the integers from start to end
// inclusive, step apart (1 by default; 0 is an error).
func fnRange(args []value.Value) (value.Value, error) {
	start, err := intArg(args[0], "the start")
	if err != nil {
		return value.Value{}, err
	}
	end, err := intArg(args[1], "the end")
	if err != nil {
		return value.Value{}, err
	}
	step := int64(1)
	if len(args) == 3 {
		if step, err = intArg(args[2], "the step"); err != nil {
			return value.Value{}, err
		}
	}
	if step == 0 {
		return value.Value{}, argErrorf("range() step is 0")
	}
	if (step > 0 && end < start) || (step < 0 && end > start) {
		return value.List(), nil
	}
	// |end - start| as uint64 cannot overflow; the count is it / |step| + 1.
	var span, stride uint64
	if step > 0 {
		span, stride = uint64(end)-uint64(start), uint64(step)
	} else {
		span, stride = uint64(start)-uint64(end), -uint64(step)
	}
	n := span/stride + 1
	if span/stride >= maxListResult {
		return value.Value{}, argErrorf("range() would have more than %d items", maxListResult)
	}
	out := make([]value.Value, n)
	for i := range out {
		out[i] = value.Int(start + int64(i)*step) // within [start, end]: no overflow
	}
	return value.List(out...), nil
}

func fnHead(args []value.Value) (value.Value, error) {
	l, err := listArg(args[0])
	if err != nil || len(l) == 0 {
		return value.Value{}, err
	}
	return l[0], nil
}

func fnLast(args []value.Value) (value.Value, error) {
	l, err := listArg(args[0])
	if err != nil || len(l) == 0 {
		return value.Value{}, err
	}
	return l[len(l)-1], nil
}

// fnTail is the list without its first item ([] for []).
func fnTail(args []value.Value) (value.Value, error) {
	l, err := listArg(args[0])
	if err != nil {
		return value.Value{}, err
	}
	if len(l) == 0 {
		return value.List(), nil
	}
	return value.List(append([]value.Value(nil), l[1:]...)...), nil
}

// ---------------------------------------------------------------- conversion

// fnToBoolean converts a BOOL, a string "true" or "false" (any case, other
// strings give NULL) or an INT (non-zero is true).
func fnToBoolean(args []value.Value) (value.Value, error) {
	a := args[0]
	if _, ok := a.BoolVal(); ok {
		return a, nil
	}
	if s, ok := a.StrVal(); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return value.Bool(true), nil
		case "false":
			return value.Bool(false), nil
		}
		return value.Value{}, nil
	}
	if i, ok := a.IntVal(); ok && a.Kind() == value.KindInt {
		return value.Bool(i != 0), nil
	}
	return value.Value{}, argError("a boolean, string or integer", a)
}
