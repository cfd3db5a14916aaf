package value

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/proto/commonpb"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Null(), "NULL"},
		{Bool(true), "true"},
		{Bool(false), "false"},
		{Int(-42), "-42"},
		{Float(1.5), "1.5"},
		{Float(2), "2.0"},
		{Float(1e21), "1e+21"},
		{Float(math.Inf(-1)), "-inf"},
		{Str("a\"b\\c\nd\x01"), `"a\"b\\c\nd\u0001"`},
		{Timestamp(1700000000), "1700000000"},
		{List(Int(1), Str("x"), Null()), `[1,"x",NULL]`},
		{List(), "[]"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
	}
}

func TestProtoRoundTrip(t *testing.T) {
	for _, v := range []Value{
		Null(), Bool(true), Bool(false), Int(math.MinInt64), Float(-0.25),
		Str(""), Str("héllo"), Timestamp(12), List(), List(Int(1), List(Str("a"), Null())),
	} {
		got := FromProto(v.ToProto())
		if !reflect.DeepEqual(got, v) {
			t.Errorf("FromProto(ToProto(%v)) = %v", v, got)
		}
	}
	if got := FromProto(nil); !got.IsNull() {
		t.Errorf("FromProto(nil) = %v, want NULL", got)
	}
	if got := FromProto(&commonpb.Value{}); !got.IsNull() {
		t.Errorf("FromProto(unset oneof) = %v, want NULL", got)
	}
	if _, ok := Null().ToProto().GetV().(*commonpb.Value_Null); !ok {
		t.Errorf("NULL must be sent as an explicit null")
	}
}

func TestGoRoundTrip(t *testing.T) {
	for _, x := range []any{nil, true, int64(-7), 3.25, "s", []any{int64(1), nil, "x"}} {
		v, err := FromGo(x)
		if err != nil {
			t.Fatalf("FromGo(%v): %v", x, err)
		}
		if got := v.ToGo(); !reflect.DeepEqual(got, x) {
			t.Errorf("ToGo(FromGo(%#v)) = %#v", x, got)
		}
	}
	for _, tc := range []struct {
		in   any
		want Value
	}{
		{int(3), Int(3)}, {int32(-3), Int(-3)}, {uint8(9), Int(9)},
		{float32(0.5), Float(0.5)}, {[]byte("b"), Str("b")}, {Bool(true), Bool(true)},
	} {
		got, err := FromGo(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FromGo(%#v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if got := Timestamp(5).ToGo(); got != int64(5) {
		t.Errorf("Timestamp.ToGo() = %#v, want int64(5)", got)
	}
	for _, bad := range []any{uint64(math.MaxUint64), struct{}{}, []any{struct{}{}}} {
		if _, err := FromGo(bad); err == nil {
			t.Errorf("FromGo(%#v) should fail", bad)
		}
	}
}

func TestArithmetic(t *testing.T) {
	type op func(a, b Value) (Value, error)
	half := Str(strings.Repeat("x", MaxStringBytes/2))
	longList := List(make([]Value, MaxListItems)...)
	for _, tc := range []struct {
		name    string
		op      op
		a, b    Value
		want    Value
		wantErr error
	}{
		{"int+int", Add, Int(2), Int(3), Int(5), nil},
		{"int+float", Add, Int(2), Float(0.5), Float(2.5), nil},
		{"null+int", Add, Null(), Int(1), Null(), nil},
		{"str+str", Add, Str("a"), Str("b"), Str("ab"), nil},
		{"str+int", Add, Str("a"), Int(1), Str("a1"), nil},
		{"float+str", Add, Float(1.5), Str("x"), Str("1.5x"), nil},
		{"list+list", Add, List(Int(1)), List(Int(2)), List(Int(1), Int(2)), nil},
		{"list+item", Add, List(Int(1)), Str("x"), List(Int(1), Str("x")), nil},
		{"item+list", Add, Int(0), List(Int(1)), List(Int(0), Int(1)), nil},
		{"timestamp+int", Add, Timestamp(10), Int(5), Int(15), nil},
		{"bool+int", Add, Bool(true), Int(1), Null(), ErrType},
		{"str at the limit", Add, half, half, Str(strings.Repeat("x", MaxStringBytes)), nil},
		{"str over the limit", Add, half, Str(half.s + "y"), Null(), ErrTooLarge},
		{"list over the limit", Add, longList, Int(1), Null(), ErrTooLarge},
		{"item+list over the limit", Add, Int(1), longList, Null(), ErrTooLarge},
		{"list+list over the limit", Add, longList, List(Null()), Null(), ErrTooLarge},
		{"overflow+", Add, Int(math.MaxInt64), Int(1), Null(), ErrOverflow},
		{"overflow-", Sub, Int(math.MinInt64), Int(1), Null(), ErrOverflow},
		{"sub", Sub, Int(1), Int(3), Int(-2), nil},
		{"str-int", Sub, Str("a"), Int(1), Null(), ErrType},
		{"mul", Mul, Int(-4), Int(3), Int(-12), nil},
		{"mul overflow", Mul, Int(math.MaxInt64), Int(2), Null(), ErrOverflow},
		{"mul minint", Mul, Int(math.MinInt64), Int(-1), Null(), ErrOverflow},
		{"mul float", Mul, Float(1.5), Int(2), Float(3), nil},
		{"div trunc", Div, Int(-7), Int(2), Int(-3), nil},
		{"div float", Div, Int(7), Float(2), Float(3.5), nil},
		{"div zero", Div, Int(1), Int(0), Null(), ErrDivisionByZero},
		{"div float zero", Div, Float(1), Float(0), Null(), ErrDivisionByZero},
		{"div null zero", Div, Null(), Int(0), Null(), nil},
		{"div minint", Div, Int(math.MinInt64), Int(-1), Null(), ErrOverflow},
		{"mod", Mod, Int(-7), Int(3), Int(-1), nil},
		{"mod float", Mod, Float(7.5), Int(2), Float(1.5), nil},
		{"mod zero", Mod, Int(7), Int(0), Null(), ErrDivisionByZero},
	} {
		got, err := tc.op(tc.a, tc.b)
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.wantErr)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v (%s), want %v (%s)", tc.name, got, got.Kind(), tc.want, tc.want.Kind())
		}
	}
	if v, err := Neg(Int(math.MinInt64)); !errors.Is(err, ErrOverflow) {
		t.Errorf("Neg(MinInt64) = %v, %v; want overflow", v, err)
	}
	if v, _ := Neg(Float(2)); !reflect.DeepEqual(v, Float(-2)) {
		t.Errorf("Neg(2.0) = %v", v)
	}
	if _, err := Neg(Str("x")); !errors.Is(err, ErrType) {
		t.Errorf("Neg(string) should be a type error")
	}
}

func TestComparison(t *testing.T) {
	T, F, N := Bool(true), Bool(false), Null()
	for _, tc := range []struct {
		name string
		got  Value
		want Value
	}{
		{"1==1.0", Equal(Int(1), Float(1)), T},
		{"1==ts1", Equal(Int(1), Timestamp(1)), T},
		{"'1'==1", Equal(Str("1"), Int(1)), F},
		{"'1'!=1", NotEqual(Str("1"), Int(1)), T},
		{"null==null", Equal(N, N), N},
		{"null!=1", NotEqual(N, Int(1)), N},
		{"lists", Equal(List(Int(1), Str("a")), List(Float(1), Str("a"))), T},
		{"lists differ", Equal(List(Int(1), N), List(Int(2), N)), F},
		{"lists null", Equal(List(Int(1), N), List(Int(1), N)), N},
		{"lists len", Equal(List(Int(1)), List(Int(1), Int(2))), F},
		{"1<2", Less(Int(1), Int(2)), T},
		{"1.5<1", Less(Float(1.5), Int(1)), F},
		{"a<b", Less(Str("a"), Str("b")), T},
		{"false<true", Less(F, T), T},
		{"1<'a'", Less(Int(1), Str("a")), N},
		{"null<1", Less(N, Int(1)), N},
		{"2<=2", LessEqual(Int(2), Int(2)), T},
		{"3>2", Greater(Int(3), Int(2)), T},
		{"2>=3", GreaterEqual(Int(2), Int(3)), F},
		{"[1]<[1,0]", Less(List(Int(1)), List(Int(1), Int(0))), T},
		{"in", In(Int(2), List(Int(1), Int(2))), T},
		{"not in", In(Int(3), List(Int(1), Int(2))), F},
		{"in with null item", In(Int(3), List(Int(1), N)), N},
		{"found despite null", In(Int(1), List(N, Int(1))), T},
		{"null in []", In(N, List()), F},
		{"null in [1]", In(N, List(Int(1))), N},
		{"in non-list", In(Int(1), Int(1)), N},
		{"contains", Contains(Str("abc"), Str("b")), T},
		{"starts", StartsWith(Str("abc"), Str("ab")), T},
		{"ends", EndsWith(Str("abc"), Str("ab")), F},
		{"contains null", Contains(N, Str("b")), N},
		{"contains int", Contains(Int(1), Str("b")), N},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestThreeValuedLogic checks the full truth tables of Kleene logic.
func TestThreeValuedLogic(t *testing.T) {
	T, F, N := Bool(true), Bool(false), Null()
	vals := []Value{T, F, N}
	// Indexed [a][b] in the order T, F, N.
	and := [3][3]Value{{T, F, N}, {F, F, F}, {N, F, N}}
	or := [3][3]Value{{T, T, T}, {T, F, N}, {T, N, N}}
	xor := [3][3]Value{{F, T, N}, {T, F, N}, {N, N, N}}
	for i, a := range vals {
		for j, b := range vals {
			for _, tc := range []struct {
				op   string
				f    func(a, b Value) (Value, error)
				want Value
			}{{"AND", And, and[i][j]}, {"OR", Or, or[i][j]}, {"XOR", Xor, xor[i][j]}} {
				got, err := tc.f(a, b)
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%v %s %v = %v, %v; want %v", a, tc.op, b, got, err, tc.want)
				}
			}
		}
	}
	for in, want := range map[int]Value{0: F, 1: T, 2: N} {
		if got, _ := Not(vals[in]); !reflect.DeepEqual(got, want) {
			t.Errorf("NOT %v = %v, want %v", vals[in], got, want)
		}
	}
	if _, err := And(Int(1), T); !errors.Is(err, ErrType) {
		t.Errorf("1 AND true should be a type error, got %v", err)
	}
	if _, err := Not(Str("x")); !errors.Is(err, ErrType) {
		t.Errorf("NOT 'x' should be a type error, got %v", err)
	}
	if IsTrue(N) || IsTrue(F) || !IsTrue(T) || IsTrue(Int(1)) {
		t.Errorf("IsTrue must accept only true")
	}
}

func TestAppendKey(t *testing.T) {
	key := func(v Value) []byte { return v.AppendKey(nil) }
	same := [][2]Value{
		{Float(0), Float(math.Copysign(0, -1))},
		{Float(math.NaN()), Float(-math.NaN())},
		{List(Str("a"), Int(1)), List(Str("a"), Int(1))},
	}
	for _, p := range same {
		if !bytes.Equal(key(p[0]), key(p[1])) {
			t.Errorf("keys of %v and %v differ", p[0], p[1])
		}
	}
	distinct := []Value{
		Null(), Bool(false), Bool(true), Int(0), Int(1), Float(1), Timestamp(1), Str(""), Str("1"),
		List(), List(Str("ab")), List(Str("a"), Str("b")), List(Null()),
	}
	seen := map[string]Value{}
	for _, v := range distinct {
		k := string(key(v))
		if prev, dup := seen[k]; dup {
			t.Errorf("%v and %v share a key", prev, v)
		}
		seen[k] = v
	}
	// Concatenated row keys must not collide across column boundaries.
	if bytes.Equal(append(key(Str("a")), key(Str("bc"))...), append(key(Str("ab")), key(Str("c"))...)) {
		t.Errorf("row keys collide across columns")
	}
}
