package value

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Errors of arithmetic and logic. Evaluation wraps them with the
// expression that failed; match them with errors.Is.
var (
	ErrDivisionByZero = errors.New("division by zero")
	ErrOverflow       = errors.New("integer overflow")
	ErrType           = errors.New("type mismatch")
	// ErrTooLarge is a result over MaxStringBytes or MaxListItems.
	ErrTooLarge = errors.New("result too large")
)

// Limits on one value an expression builds, so that a statement cannot
// exhaust graphd's memory before its budget sees a row: `$a.s + $a.s`
// doubles a string per statement of a request, so forty statements would
// ask for a terabyte. The functions that build strings and lists (lpad,
// replace, range, ...) apply the same limits (package eval).
const (
	MaxStringBytes = 1 << 24 // 16 MiB
	MaxListItems   = 1 << 20
)

func typeError(op string, a, b Value) error {
	return fmt.Errorf("%w: cannot apply %s to %s and %s", ErrType, op, a.kind, b.kind)
}

// Arithmetic follows nGQL: NULL in, NULL out; INT op INT stays INT and fails
// on overflow rather than wrapping; a FLOAT operand makes the result FLOAT;
// TIMESTAMP behaves as INT. Operands of other kinds are a type error.

// Add returns a+b. Besides numbers it concatenates: a STRING plus a STRING,
// number, BOOL or calendar value (in its display form) is a STRING; a LIST plus a LIST is their concatenation and
// a LIST plus another value appends (or prepends) it.
func Add(a, b Value) (Value, error) {
	if a.IsNull() || b.IsNull() {
		return Value{}, nil
	}
	switch {
	case a.kind == KindList || b.kind == KindList:
		if n := listLen(a) + listLen(b); n > MaxListItems {
			return Value{}, fmt.Errorf("%w: + would make a list of %d items; the limit is %d", ErrTooLarge, n, MaxListItems)
		}
	case a.kind == KindString || b.kind == KindString:
		if n := len(a.s) + len(b.s); n > MaxStringBytes {
			return Value{}, fmt.Errorf("%w: + would make a string of %d bytes; the limit is %d", ErrTooLarge, n, MaxStringBytes)
		}
	}
	switch {
	case a.kind == KindList && b.kind == KindList:
		return List(append(append(make([]Value, 0, len(a.l)+len(b.l)), a.l...), b.l...)...), nil
	case a.kind == KindList:
		return List(append(append(make([]Value, 0, len(a.l)+1), a.l...), b)...), nil
	case b.kind == KindList:
		return List(append([]Value{a}, b.l...)...), nil
	case a.kind == KindString || b.kind == KindString:
		if !concatenable(a) || !concatenable(b) {
			return Value{}, typeError("+", a, b)
		}
		return Str(concatText(a) + concatText(b)), nil
	}
	if v, ok, err := addTemporal(a, b); ok {
		return v, err
	}
	return numeric("+", a, b,
		func(x, y int64) (int64, error) {
			s := x + y
			if (s > x) != (y > 0) {
				return 0, ErrOverflow
			}
			return s, nil
		},
		func(x, y float64) (float64, error) { return x + y, nil })
}

// listLen is the number of items a + operand adds to a list: a list's
// length, 1 for another value.
func listLen(v Value) int {
	if v.kind == KindList {
		return len(v.l)
	}
	return 1
}

// Sub returns a-b.
func Sub(a, b Value) (Value, error) {
	if isTemporal(a.kind) || isTemporal(b.kind) {
		return subTemporal(a, b)
	}
	return numeric("-", a, b,
		func(x, y int64) (int64, error) {
			d := x - y
			if (d < x) != (y > 0) {
				return 0, ErrOverflow
			}
			return d, nil
		},
		func(x, y float64) (float64, error) { return x - y, nil })
}

// Mul returns a*b.
func Mul(a, b Value) (Value, error) {
	return numeric("*", a, b,
		func(x, y int64) (int64, error) {
			if x == 0 || y == 0 {
				return 0, nil
			}
			p := x * y
			if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return 0, ErrOverflow
			}
			return p, nil
		},
		func(x, y float64) (float64, error) { return x * y, nil })
}

// Div returns a/b; INT/INT truncates toward zero. Dividing by zero is an
// error for floats too, as in NebulaGraph, rather than an infinity.
func Div(a, b Value) (Value, error) {
	return numeric("/", a, b,
		func(x, y int64) (int64, error) {
			if y == 0 {
				return 0, ErrDivisionByZero
			}
			if x == math.MinInt64 && y == -1 {
				return 0, ErrOverflow
			}
			return x / y, nil
		},
		func(x, y float64) (float64, error) {
			if y == 0 {
				return 0, ErrDivisionByZero
			}
			return x / y, nil
		})
}

// Mod returns the remainder of a/b, with the sign of a.
func Mod(a, b Value) (Value, error) {
	return numeric("%", a, b,
		func(x, y int64) (int64, error) {
			if y == 0 {
				return 0, ErrDivisionByZero
			}
			return x % y, nil // MinInt64 % -1 is 0 in Go, no overflow
		},
		func(x, y float64) (float64, error) {
			if y == 0 {
				return 0, ErrDivisionByZero
			}
			return math.Mod(x, y), nil
		})
}

// Neg returns -a.
func Neg(a Value) (Value, error) {
	switch a.kind {
	case KindNull:
		return Value{}, nil
	case KindInt, KindTimestamp:
		if a.i == math.MinInt64 {
			return Value{}, ErrOverflow
		}
		return Int(-a.i), nil
	case KindFloat:
		return Float(-a.f), nil
	case KindDuration:
		du, _ := a.DurationVal()
		neg, err := du.Neg()
		if err != nil {
			return Value{}, fmt.Errorf("%w: %w", ErrOverflow, err)
		}
		return Duration(neg), nil
	}
	return Value{}, fmt.Errorf("%w: cannot negate %s", ErrType, a.kind)
}

// numeric applies an arithmetic operator with NULL propagation and INT to
// FLOAT promotion.
func numeric(op string, a, b Value,
	onInt func(x, y int64) (int64, error),
	onFloat func(x, y float64) (float64, error),
) (Value, error) {
	if a.IsNull() || b.IsNull() {
		return Value{}, nil
	}
	if !a.IsNumeric() || !b.IsNumeric() {
		return Value{}, typeError(op, a, b)
	}
	if a.kind != KindFloat && b.kind != KindFloat {
		r, err := onInt(a.i, b.i)
		if err != nil {
			return Value{}, err
		}
		return Int(r), nil
	}
	r, err := onFloat(a.number(), b.number())
	if err != nil {
		return Value{}, err
	}
	return Float(r), nil
}

func concatenable(v Value) bool {
	return v.kind == KindString || v.kind == KindBool || v.IsNumeric() || isTemporal(v.kind)
}

// concatText is v as string concatenation embeds it: strings without
// quotes, everything else as it prints.
func concatText(v Value) string {
	if v.kind == KindString {
		return v.s
	}
	if isTemporal(v.kind) {
		return v.temporalText()
	}
	var b strings.Builder
	v.format(&b)
	return b.String()
}
