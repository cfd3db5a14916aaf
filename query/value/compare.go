package value

import (
	"cmp"
	"fmt"
	"strings"
)

// Comparison and the other predicates (IN, CONTAINS, STARTS WITH, ENDS
// WITH) are three-valued: a NULL operand gives NULL. Operands of kinds that
// cannot be compared also give NULL rather than an error, except that ==
// and != between different kinds are simply false and true.

// Equal returns a == b as a BOOL, or NULL. Numbers compare by value across
// INT, FLOAT and TIMESTAMP. Lists are equal when every item is, maps when
// they have the same keys and every value is; if no item differs but some
// comparison is NULL, so is the result. Graph values are equal when they
// print alike.
func Equal(a, b Value) Value {
	if a.IsNull() || b.IsNull() {
		return Value{}
	}
	switch {
	case a.IsNumeric() && b.IsNumeric():
		return Bool(compareNumbers(a, b) == 0)
	case a.kind != b.kind:
		return Bool(false)
	case a.kind == KindBool:
		return Bool(a.i == b.i)
	case isTemporal(a.kind):
		return Bool(a.i == b.i && a.m == b.m)
	case a.kind == KindString || isGraph(a.kind):
		return Bool(a.s == b.s)
	case a.kind == KindMap:
		am, _ := a.MapVal()
		bm, _ := b.MapVal()
		return equalMaps(am, bm)
	case a.kind == KindList:
		if len(a.l) != len(b.l) {
			return Bool(false)
		}
		sawNull := false
		for i := range a.l {
			eq := Equal(a.l[i], b.l[i])
			if eq.IsNull() {
				sawNull = true
			} else if eq.i == 0 {
				return Bool(false)
			}
		}
		if sawNull {
			return Value{}
		}
		return Bool(true)
	}
	return Bool(false)
}

// NotEqual returns a != b as a BOOL, or NULL.
func NotEqual(a, b Value) Value {
	eq := Equal(a, b)
	if eq.IsNull() {
		return eq
	}
	return Bool(eq.i == 0)
}

// Less returns a < b as a BOOL, or NULL.
func Less(a, b Value) Value { return order(a, b, func(c int) bool { return c < 0 }) }

// LessEqual returns a <= b as a BOOL, or NULL.
func LessEqual(a, b Value) Value { return order(a, b, func(c int) bool { return c <= 0 }) }

// Greater returns a > b as a BOOL, or NULL.
func Greater(a, b Value) Value { return order(a, b, func(c int) bool { return c > 0 }) }

// GreaterEqual returns a >= b as a BOOL, or NULL.
func GreaterEqual(a, b Value) Value { return order(a, b, func(c int) bool { return c >= 0 }) }

func order(a, b Value, test func(int) bool) Value {
	c, ok := Compare(a, b)
	if !ok {
		return Value{}
	}
	return Bool(test(c))
}

// Compare orders a and b: numbers by value, strings bytewise, false before
// true, lists lexicographically, dates, times and datetimes chronologically
// (each only against its own kind; durations do not order), graph values by
// their printed form. Maps do not order. ok is false when either is NULL or
// their kinds cannot be ordered against each other.
func Compare(a, b Value) (c int, ok bool) {
	switch {
	case a.IsNull() || b.IsNull():
		return 0, false
	case a.IsNumeric() && b.IsNumeric():
		return compareNumbers(a, b), true
	case a.kind != b.kind:
		return 0, false
	case a.kind == KindBool:
		return cmp.Compare(a.i, b.i), true
	case a.kind == KindDuration:
		return 0, false // months and days have no fixed ratio
	case isTemporal(a.kind):
		return cmp.Compare(a.i, b.i), true
	case a.kind == KindString || isGraph(a.kind):
		return strings.Compare(a.s, b.s), true
	case a.kind == KindList:
		for i := 0; i < len(a.l) && i < len(b.l); i++ {
			c, ok := Compare(a.l[i], b.l[i])
			if !ok || c != 0 {
				return c, ok
			}
		}
		return cmp.Compare(len(a.l), len(b.l)), true
	}
	return 0, false
}

// compareNumbers compares two numeric values; two integers compare exactly,
// anything with a float compares as float64.
func compareNumbers(a, b Value) int {
	if a.kind != KindFloat && b.kind != KindFloat {
		return cmp.Compare(a.i, b.i)
	}
	return cmp.Compare(a.number(), b.number())
}

// In returns x IN list: true if some item equals x, else NULL if x or some
// item is NULL (the missing value might have matched), else false. A list
// operand that is not a LIST gives NULL.
func In(x, list Value) Value {
	if list.kind != KindList {
		return Value{}
	}
	if len(list.l) == 0 {
		return Bool(false)
	}
	if x.IsNull() {
		return Value{}
	}
	sawNull := false
	for _, item := range list.l {
		eq := Equal(x, item)
		if eq.IsNull() {
			sawNull = true
		} else if eq.i != 0 {
			return Bool(true)
		}
	}
	if sawNull {
		return Value{}
	}
	return Bool(false)
}

// Contains returns whether the string a contains b, or NULL.
func Contains(a, b Value) Value { return stringTest(a, b, strings.Contains) }

// StartsWith returns whether the string a starts with b, or NULL.
func StartsWith(a, b Value) Value { return stringTest(a, b, strings.HasPrefix) }

// EndsWith returns whether the string a ends with b, or NULL.
func EndsWith(a, b Value) Value { return stringTest(a, b, strings.HasSuffix) }

func stringTest(a, b Value, test func(s, part string) bool) Value {
	if a.kind != KindString || b.kind != KindString {
		return Value{}
	}
	return Bool(test(a.s, b.s))
}

// Logic is Kleene's three-valued logic, as in SQL and Cypher: NULL means
// "unknown", so NULL AND false is false and NULL OR true is true. Operands
// must be BOOL or NULL; anything else is a type error.

// And returns a AND b.
func And(a, b Value) (Value, error) {
	if err := checkLogical("AND", a, b); err != nil {
		return Value{}, err
	}
	switch {
	case isFalse(a) || isFalse(b):
		return Bool(false), nil
	case a.IsNull() || b.IsNull():
		return Value{}, nil
	}
	return Bool(true), nil
}

// Or returns a OR b.
func Or(a, b Value) (Value, error) {
	if err := checkLogical("OR", a, b); err != nil {
		return Value{}, err
	}
	switch {
	case isTrue(a) || isTrue(b):
		return Bool(true), nil
	case a.IsNull() || b.IsNull():
		return Value{}, nil
	}
	return Bool(false), nil
}

// Xor returns a XOR b; it is NULL if either is.
func Xor(a, b Value) (Value, error) {
	if err := checkLogical("XOR", a, b); err != nil {
		return Value{}, err
	}
	if a.IsNull() || b.IsNull() {
		return Value{}, nil
	}
	return Bool(a.i != b.i), nil
}

// Not returns NOT a.
func Not(a Value) (Value, error) {
	switch a.kind {
	case KindNull:
		return Value{}, nil
	case KindBool:
		return Bool(a.i == 0), nil
	}
	return Value{}, fmt.Errorf("%w: NOT expects BOOL, got %s", ErrType, a.kind)
}

// IsTrue reports whether v is the BOOL true. WHERE keeps a row only then:
// NULL and false both drop it.
func IsTrue(v Value) bool { return isTrue(v) }

func isTrue(v Value) bool  { return v.kind == KindBool && v.i != 0 }
func isFalse(v Value) bool { return v.kind == KindBool && v.i == 0 }

func checkLogical(op string, a, b Value) error {
	for _, v := range [...]Value{a, b} {
		if v.kind != KindBool && v.kind != KindNull {
			return fmt.Errorf("%w: %s expects BOOL operands, got %s and %s", ErrType, op, a.kind, b.kind)
		}
	}
	return nil
}
