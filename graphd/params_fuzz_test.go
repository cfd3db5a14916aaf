package graphd

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// FuzzParams decodes whatever bytes a client sends as an ExecuteReq and
// converts its parameters as Execute does (issue 24): no input may panic,
// and a parameter accepted prints (the query list and EXPLAIN show them).
func FuzzParams(f *testing.F) {
	seed := func(params map[string]*commonpb.Value) []byte {
		b, err := proto.Marshal(&graphpb.ExecuteReq{Stmt: "YIELD $p", Params: params})
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	list := &commonpb.Value{V: &commonpb.Value_ListVal{ListVal: &commonpb.ValueList{Values: []*commonpb.Value{
		{V: &commonpb.Value_IntVal{IntVal: 1}}, {V: &commonpb.Value_StrVal{StrVal: []byte("x")}}, {V: &commonpb.Value_DatetimeVal{DatetimeVal: -1 << 62}},
	}}}}
	f.Add(seed(map[string]*commonpb.Value{"p": list}))
	f.Add(seed(map[string]*commonpb.Value{"p": {V: &commonpb.Value_DateVal{DateVal: 1 << 30}}, "q": {V: &commonpb.Value_FloatVal{FloatVal: 1.5}}}))
	f.Add([]byte{0x22, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		var req graphpb.ExecuteReq
		if proto.Unmarshal(data, &req) != nil {
			return
		}
		ps, err := params(req.GetParams())
		if err != nil {
			return
		}
		for _, v := range ps {
			_ = v.String()
		}
	})
}
