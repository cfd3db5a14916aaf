package nebulaapi

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
	"github.com/vesoft-inc/nebula-go/v3/nebula"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// stubGraphd answers every statement with one row of each scalar kind.
type stubGraphd struct{}

func (stubGraphd) Authenticate(context.Context, *graphpb.AuthReq) (*graphpb.AuthResp, error) {
	return &graphpb.AuthResp{SessionId: 1}, nil
}

func (stubGraphd) Execute(_ context.Context, req *graphpb.ExecuteReq) (*graphpb.ExecuteResp, error) {
	row := &graphpb.Row{Values: []*commonpb.Value{{V: &commonpb.Value_IntVal{IntVal: 1}}, {V: &commonpb.Value_StrVal{StrVal: []byte(req.Stmt)}}}}
	return &graphpb.ExecuteResp{Data: &graphpb.DataSet{ColumnNames: []string{"i", "s"}, Rows: []*graphpb.Row{row}}}, nil
}

func (stubGraphd) Signout(context.Context, *graphpb.SignoutReq) (*graphpb.SignoutResp, error) {
	return &graphpb.SignoutResp{}, nil
}

func (stubGraphd) EdgeTypeID(string, string) int32 { return 1 }

func frameOf(f *testing.F, name string, args thrift.Struct) []byte {
	buf := thrift.NewMemoryBuffer()
	proto := thrift.NewHeaderProtocol(thrift.NewHeaderTransport(buf))
	if err := proto.WriteMessageBegin(name, thrift.CALL, 1); err != nil {
		f.Fatal(err)
	}
	if err := args.Write(proto); err != nil {
		f.Fatal(err)
	}
	if err := proto.WriteMessageEnd(); err != nil {
		f.Fatal(err)
	}
	if err := proto.Flush(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzRequest feeds arbitrary frames to a request's parsing and answer:
// whatever a client sends, graphd neither crashes (a stack overflow or a
// huge allocation is not recovered) nor hangs.
//
//	go test ./graphd/nebulaapi -run '^$' -fuzz FuzzRequest -fuzztime 60s
func FuzzRequest(f *testing.F) {
	i := int64(7)
	f.Add(frameOf(f, "execute", &graph.GraphServiceExecuteArgs{SessionId: 1, Stmt: []byte("YIELD 1")}))
	f.Add(frameOf(f, "executeWithParameter", &graph.GraphServiceExecuteWithParameterArgs{SessionId: 1, Stmt: []byte("YIELD $p"),
		ParameterMap: map[string]*nebula.Value{"p": {LVal: &nebula.NList{Values: []*nebula.Value{{IVal: &i}, {SVal: []byte("x")}}}}}}))
	f.Add(frameOf(f, "executeJson", &graph.GraphServiceExecuteJsonArgs{SessionId: 1, Stmt: []byte("YIELD 1")}))
	f.Add(frameOf(f, "authenticate", &graph.GraphServiceAuthenticateArgs{Username: []byte("root"), Password: []byte("x")}))
	f.Add(frameOf(f, "verifyClientVersion", &graph.GraphServiceVerifyClientVersionArgs{Req: &graph.VerifyClientVersionReq{Version: []byte("3.0.0")}}))
	s := New(stubGraphd{}, Config{})
	f.Fuzz(func(t *testing.T, frame []byte) {
		if checkHeader(frame) != nil {
			return // refused before parsing, as readFrame does
		}
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		go io.Copy(io.Discard, b)
		// The client stays: the statement runs with a live context.
		c := &conn{s: s, nc: a, r: bufio.NewReader(a), w: bufio.NewWriter(a)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.answer(ctx, frame)
	})
}
