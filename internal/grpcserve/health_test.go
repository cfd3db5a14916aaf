package grpcserve

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
)

// TestHealthAndReflection: the health service answers from the daemon's
// check (SERVING, NOT_SERVING, NOT_FOUND for a service the server lacks),
// Watch reports each change and ends at shutdown, and reflection lists
// the services.
func TestHealthAndReflection(t *testing.T) {
	var sick atomic.Bool
	srv := grpc.NewServer()
	shutdown := RegisterStandard(srv, func() error {
		if sick.Load() {
			return errors.New("disk full")
		}
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hc := healthpb.NewHealthClient(conn)
	check := func(service string) (healthpb.HealthCheckResponse_ServingStatus, codes.Code) {
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		return resp.GetStatus(), status.Code(err)
	}
	if st, code := check(""); st != healthpb.HealthCheckResponse_SERVING || code != codes.OK {
		t.Fatalf("Check(\"\") = %v %v, want SERVING", st, code)
	}
	if _, code := check("novagraph.nothing.Here"); code != codes.NotFound {
		t.Fatalf("Check(unknown) code %v, want NotFound", code)
	}
	watch, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	next := func() healthpb.HealthCheckResponse_ServingStatus {
		resp, err := watch.Recv()
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		return resp.GetStatus()
	}
	if st := next(); st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("Watch first %v", st)
	}
	sick.Store(true)
	if st := next(); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("Watch after the daemon fell sick: %v", st)
	}
	if st, _ := check(""); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("Check of a sick daemon: %v", st)
	}
	sick.Store(false)
	if st := next(); st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("Watch after recovery: %v", st)
	}
	shutdown()
	if st := next(); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("Watch at shutdown: %v", st)
	}
	if _, err := watch.Recv(); status.Code(err) != codes.Unavailable {
		t.Fatalf("Watch after shutdown: %v, want the stream ended Unavailable", err)
	}

	// Reflection lists the health service (and itself).
	rc, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := rc.Recv()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range resp.GetListServicesResponse().GetService() {
		names[s.GetName()] = true
	}
	if !names["grpc.health.v1.Health"] {
		t.Fatalf("reflection lists %v, not the health service", names)
	}
}
