package e2e

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// BenchmarkTransportFloor is the floor under a GO 1 STEP: the two gRPC
// hops of a statement (client → graphd, graphd → storaged) on loopback,
// with the daemons' server options and payloads of a GO 1's size, and no
// work at either end. What BenchmarkGoSteps/go1 spends beyond it is
// novagraph's own (docs/benchmarks.md, issue 22): at c1 the hops run one
// after the other, at c8 eight statements share the two cores.
func BenchmarkTransportFloor(b *testing.B) {
	store := floorServer(b, func(context.Context, []byte) []byte { return make([]byte, 400) })
	storeConn := floorDial(b, store)
	graph := floorServer(b, func(ctx context.Context, _ []byte) []byte {
		req, resp := make([]byte, 120), []byte(nil)
		if err := storeConn.Invoke(ctx, "/floor.Floor/Call", &req, &resp); err != nil {
			panic(err)
		}
		return make([]byte, 300)
	})
	graphConn := floorDial(b, graph)
	for _, workers := range []int{1, 8} {
		b.Run(map[int]string{1: "c1", 8: "c8"}[workers], func(b *testing.B) {
			per := max(1, b.N/workers)
			cpu0 := processCPU(b)
			b.ResetTimer()
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, resp := make([]byte, 80), []byte(nil)
					for range per {
						if err := graphConn.Invoke(context.Background(), "/floor.Floor/Call", &req, &resp); err != nil {
							panic(err)
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(time.Millisecond)/float64(per*workers), "cpu-ms/query")
		})
	}
}

// floorCodec sends a *[]byte as it is: the floor marshals nothing.
type floorCodec struct{}

func (floorCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (floorCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append((*(v.(*[]byte)))[:0], data...)
	return nil
}
func (floorCodec) Name() string { return "floor" }

// floorServer serves one unary method answering with handle, with the
// stream workers graphd and storaged use (the codec is chosen by the
// client's content subtype); it stops with the benchmark.
func floorServer(b *testing.B, handle func(context.Context, []byte) []byte) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := grpc.NewServer(grpc.NumStreamWorkers(uint32(4 * runtime.GOMAXPROCS(0))))
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "floor.Floor",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Call", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var in []byte
			if err := dec(&in); err != nil {
				return nil, err
			}
			out := handle(ctx, in)
			return &out, nil
		}}},
	}, struct{}{})
	go s.Serve(lis)
	b.Cleanup(s.Stop)
	return lis.Addr().String()
}

func floorDial(b *testing.B, addr string) *grpc.ClientConn {
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.CallContentSubtype(floorCodec{}.Name())))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cc.Close() })
	return cc
}

func init() { encoding.RegisterCodec(floorCodec{}) }
