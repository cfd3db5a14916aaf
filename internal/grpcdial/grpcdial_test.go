package grpcdial

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

var testBackoff = backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, MaxDelay: 200 * time.Millisecond}

// serveHealth serves the gRPC health service on 127.0.0.1 and returns its
// port.
func serveHealth(t *testing.T) int {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().(*net.TCPAddr).Port
}

func check(t *testing.T, conn *grpc.ClientConn) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err == nil && resp.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health check: %v", resp.Status)
	}
	return err
}

// TestConnects: a connection made by NewClient reaches a server by
// address and by name, and the name reaches the dialer unresolved (the
// passthrough target): the dialer, not gRPC's DNS resolver, looks it up.
func TestConnects(t *testing.T) {
	port := strconv.Itoa(serveHealth(t))
	for _, addr := range []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("localhost", port)} {
		var mu sync.Mutex
		var dialed []string
		conn, err := NewClient(addr, nil, 5*time.Second, testBackoff,
			grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
				mu.Lock()
				dialed = append(dialed, a)
				mu.Unlock()
				return (&net.Dialer{}).DialContext(ctx, "tcp", a)
			}))
		if err != nil {
			t.Fatal(err)
		}
		if err := check(t, conn); err != nil {
			t.Fatalf("%s: health check: %v", addr, err)
		}
		_ = conn.Close()
		mu.Lock()
		if len(dialed) == 0 || dialed[0] != addr {
			t.Errorf("%s: the dialer got %q, want the address as given", addr, dialed)
		}
		mu.Unlock()
	}
	if got, want := Target("db1:9779"), "passthrough:///db1:9779"; got != want {
		t.Errorf("Target: %q, want %q", got, want)
	}
}

// TestConnectBounded: each connection attempt, where the name is looked
// up, gets the connect timeout as its deadline, and a call to a peer that
// does not answer fails instead of waiting.
func TestConnectBounded(t *testing.T) {
	const connectTimeout = 300 * time.Millisecond
	type attempt struct {
		deadline time.Duration // from the dial's start; 0: none
		waited   time.Duration // until the dial was given up
	}
	attempts := make(chan attempt, 100)
	// A dialer that never connects, like a lookup its DNS server never
	// answers: it returns when its context ends.
	hang := func(ctx context.Context, _ string) (net.Conn, error) {
		start := time.Now()
		var a attempt
		if d, ok := ctx.Deadline(); ok {
			a.deadline = d.Sub(start)
		}
		<-ctx.Done()
		a.waited = time.Since(start)
		select {
		case attempts <- a:
		default:
		}
		return nil, ctx.Err()
	}
	conn, err := NewClient("peer.invalid:9779", nil, connectTimeout, testBackoff, grpc.WithContextDialer(hang))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Connect()
	select {
	case a := <-attempts:
		// gRPC may stretch the deadline to the backoff delay (at most
		// 200 ms here); generous bounds, the point is seconds vs 20 s.
		if a.deadline <= 0 || a.deadline > connectTimeout+time.Second {
			t.Fatalf("connection attempt deadline %v, want about %v", a.deadline, connectTimeout)
		}
		if a.waited > 5*time.Second {
			t.Fatalf("connection attempt given up after %v, want about %v", a.waited, connectTimeout)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no connection attempt ended within 15 s")
	}

	// A closed port: the call fails (UNAVAILABLE), it does not hang.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := lis.Addr().String()
	_ = lis.Close()
	conn2, err := NewClient(closed, nil, connectTimeout, testBackoff)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	start := time.Now()
	if err := check(t, conn2); status.Code(err) != codes.Unavailable {
		t.Fatalf("health check of closed %s: %v, want UNAVAILABLE", closed, err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("health check of closed %s took %v", closed, d)
	}

	if _, err := NewClient("127.0.0.1:1", nil, 0, testBackoff); err == nil {
		t.Fatal("NewClient accepted a connect timeout of 0")
	}
}
