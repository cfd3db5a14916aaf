package grpcserve

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// panicky is a health service whose calls panic when asked for "boom".
type panicky struct {
	healthpb.UnimplementedHealthServer
}

func (panicky) Check(_ context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if req.Service == "boom" {
		var m map[string]int
		m["x"] = 1 // a nil map write: a real runtime panic
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

func (panicky) Watch(req *healthpb.HealthCheckRequest, stream grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	panic("watch " + req.Service)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPanicBecomesInternalError: a panicking unary or streaming handler
// answers its caller with Internal, naming the method, logs the stack, and
// the server goes on serving.
func TestPanicBecomesInternalError(t *testing.T) {
	var logs syncBuffer
	srv := grpc.NewServer(Options(slog.New(slog.NewTextHandler(&logs, nil)), 16)...)
	healthpb.RegisterHealthServer(srv, panicky{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err = client.Check(ctx, &healthpb.HealthCheckRequest{Service: "boom"})
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "/grpc.health.v1.Health/Check") ||
		!strings.Contains(err.Error(), "nil map") {
		t.Fatalf("panicking Check: %v, want Internal naming the method and the panic", err)
	}
	stream, err := client.Watch(ctx, &healthpb.HealthCheckRequest{Service: "s"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "watch s") {
		t.Fatalf("panicking Watch: %v, want Internal", err)
	}
	if resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || resp.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("after the panics: %v, %v", resp, err)
	}
	if l := logs.String(); !strings.Contains(l, "gRPC handler panicked") || !strings.Contains(l, "grpcserve_test.go") {
		t.Fatalf("the log lacks the panic and its stack:\n%s", l)
	}
}
