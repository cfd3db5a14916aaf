package nebulaapi

import (
	"fmt"
	"testing"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// The parts of an answer's way through NebulaGraph's protocol, apart:
// graphd's conversion to NebulaGraph's values, fbthrift's encoding of
// them, and nebula-go's decoding on the client's side, for the answer
// shapes of BenchmarkGoSteps (testkit/e2e): GO 3 STEPS' 65,638 rows of
// one int, GO 2 STEPS' 1,553 rows, and 1,553 rows of an int, a string and
// two more ints (go2props). The client's decoding is the floor of the
// protocol's cost over gRPC's: nebula-go makes a Value per cell.
//
//	go test ./graphd/nebulaapi -run '^$' -bench . -benchmem
func BenchmarkAnswer(b *testing.B) {
	for _, shape := range []struct {
		name      string
		rows      int
		withProps bool
	}{{"go3", 65638, false}, {"go2", 1553, false}, {"go2props", 1553, true}} {
		d := answerOf(shape.rows, shape.withProps)
		conv := func() *graph.ExecutionResponse {
			ds, err := newConverter(nil).dataSet(d)
			if err != nil {
				b.Fatal(err)
			}
			return &graph.ExecutionResponse{Data: ds}
		}
		encode := func(r *graph.ExecutionResponse) []byte {
			buf := thrift.NewMemoryBuffer()
			if err := r.Write(thrift.NewCompactProtocol(buf)); err != nil {
				b.Fatal(err)
			}
			return buf.Bytes()
		}
		b.Run(shape.name+"/convert", func(b *testing.B) {
			for b.Loop() {
				conv()
			}
		})
		// As a connection converts: chunks from the pools, given back once
		// the answer is written.
		var p pools
		b.Run(shape.name+"/convert-pooled", func(b *testing.B) {
			for b.Loop() {
				a := newArena(&p)
				c := newConverter(nil)
				c.arena = a
				if _, err := c.dataSet(d); err != nil {
					b.Fatal(err)
				}
				a.release()
			}
		})
		r := conv()
		b.Run(shape.name+"/encode", func(b *testing.B) {
			for b.Loop() {
				encode(r)
			}
		})
		// The same answer on gRPC's wire, graphd's columns: what the
		// protocol's encoding and decoding stand against.
		b.Run(shape.name+"/grpc-encode-decode", func(b *testing.B) {
			for b.Loop() {
				raw, err := proto.Marshal(&graphpb.ExecuteResp{Data: d})
				if err != nil {
					b.Fatal(err)
				}
				var back graphpb.ExecuteResp
				if err := proto.Unmarshal(raw, &back); err != nil {
					b.Fatal(err)
				}
			}
		})
		wire := encode(r)
		b.Run(shape.name+"/nebula-go-decode", func(b *testing.B) {
			for b.Loop() {
				var got graph.ExecutionResponse
				if err := got.Read(thrift.NewCompactProtocol(thrift.NewMemoryBufferWithData(wire))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// answerOf is graphd's columnar answer of n rows: dst, and with props a
// name, an age and a weight.
func answerOf(n int, withProps bool) *graphpb.DataSet {
	var dst, name, age, weight commonpb.ColumnBuilder
	for i := range n {
		dst.AddInt(int64(i * 7))
		if withProps {
			name.AddStr([]byte(fmt.Sprintf("v%d", i*7)))
			age.AddInt(int64(i % 100))
			weight.AddInt(int64(i % 97))
		}
	}
	d := &graphpb.DataSet{ColumnNames: []string{"dst"}, Columns: []*commonpb.Column{dst.Finish()}, NumRows: int64(n)}
	if withProps {
		d.ColumnNames = append(d.ColumnNames, "name", "age", "weight")
		d.Columns = append(d.Columns, name.Finish(), age.Finish(), weight.Finish())
	}
	return d
}
