package client_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/client"
	ct "github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/temporal"
)

func TestParamValue(t *testing.T) {
	date, _ := temporal.NewDate(2024, 1, 2)
	type myString string
	for _, tc := range []struct {
		in   any
		want *commonpb.Value
	}{
		{nil, ct.Null()},
		{true, ct.Bool(true)},
		{"player100", ct.Str("player100")},
		{[]byte("raw"), ct.Str("raw")},
		{myString("x"), ct.Str("x")},
		{int64(-3), ct.Int(-3)},
		{7, ct.Int(7)},
		{int8(-1), ct.Int(-1)},
		{uint32(9), ct.Int(9)},
		{1.5, ct.Float(1.5)},
		{float32(0.5), ct.Float(0.5)},
		{date, &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: int32(date)}}},
		{temporal.Duration{Months: 1, Micros: 2}, &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: 1, Micros: 2}}}},
		{[]string{"a", "b"}, ct.List(ct.Str("a"), ct.Str("b"))},
		{[]any{1, nil, []int{2}}, ct.List(ct.Int(1), ct.Null(), ct.List(ct.Int(2)))},
		{[2]bool{true, false}, ct.List(ct.Bool(true), ct.Bool(false))},
		{[]int{}, ct.List()},
		{ct.Int(5), ct.Int(5)},
	} {
		got, err := client.ParamValue(tc.in)
		if err != nil || !proto.Equal(got, tc.want) {
			t.Errorf("ParamValue(%#v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []any{struct{}{}, map[int]string{}, uint64(1) << 63, []any{1, make(chan int)}} {
		if _, err := client.ParamValue(in); !errors.Is(err, client.ErrType) {
			t.Errorf("ParamValue(%T): %v, want ErrType", in, err)
		}
	}
}

func TestExecuteWithParams(t *testing.T) {
	graphd := ct.Start(t)
	graphd.Script("GO FROM $p OVER e YIELD $n", ct.Result(5, []string{"$n"}, ct.Row(ct.Int(1))))
	sess := newSession(t, graphd)
	ctx := testContext(t)
	rs, err := sess.ExecuteWithParams(ctx, "GO FROM $p OVER e YIELD $n", map[string]any{"p": []string{"a"}, "n": 1})
	if err != nil || rs.Len() != 1 {
		t.Fatalf("ExecuteWithParams: %v, %v", rs, err)
	}
	if _, err := sess.Execute(ctx, "GO FROM $p OVER e YIELD $n"); err != nil {
		t.Fatal(err)
	}
	sent := graphd.ExecutedParams()
	if len(sent) != 2 || len(sent[0]) != 2 || !proto.Equal(sent[0]["p"], ct.List(ct.Str("a"))) || !proto.Equal(sent[0]["n"], ct.Int(1)) || sent[1] != nil {
		t.Errorf("graphd received parameters %v", sent)
	}

	// A parameter that does not convert fails before anything is sent.
	_, err = sess.ExecuteWithParams(ctx, "YIELD $b, $a", map[string]any{"b": struct{}{}, "a": func() {}})
	if !errors.Is(err, client.ErrType) || !strings.Contains(err.Error(), "query parameter $a") {
		t.Errorf("bad parameters: %v, want ErrType naming $a (the first by name)", err)
	}
	if n := len(graphd.Executed()); n != 2 {
		t.Errorf("graphd received %d statements, want 2", n)
	}
}
