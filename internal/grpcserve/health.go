package grpcserve

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/nodetls"
)

// PublicMethods are the methods RegisterStandard adds, which every caller
// that passes the transport (a client certificate of the cluster's CA,
// with TLS) may call: load balancers and grpcurl speak them. Each daemon's
// TLS policy opens them (nodetls.Anyone).
var PublicMethods = []string{
	"/grpc.health.v1.Health/*",
	"/grpc.reflection.v1.ServerReflection/*",
	"/grpc.reflection.v1alpha.ServerReflection/*",
}

// WithPublic adds PublicMethods, open to anyone, to a daemon's policy p
// and returns it.
func WithPublic(p nodetls.Policy) nodetls.Policy {
	for _, m := range PublicMethods {
		p[m] = []nodetls.Role{nodetls.Anyone}
	}
	return p
}

// healthPoll is how often Watch looks at the daemon's health.
const healthPoll = time.Second

// RegisterStandard adds the gRPC health service and server reflection to
// s, after the daemon's own services, so that `grpcurl host:port list`
// and a load balancer's gRPC health check work on every daemon. The
// health of the server (service "") and of each service registered so far
// is healthy's: SERVING when it returns nil (what /healthz answers 200
// for), NOT_SERVING otherwise; another service name is NOT_FOUND.
//
// The daemon calls the returned shutdown before it stops s: from then on
// the answer is NOT_SERVING, and Watch streams end, which GracefulStop
// would otherwise wait for.
func RegisterStandard(s *grpc.Server, healthy func() error) (shutdown func()) {
	known := map[string]bool{"": true}
	for name := range s.GetServiceInfo() {
		known[name] = true
	}
	h := &healthServer{healthy: healthy, known: known, down: make(chan struct{})}
	healthpb.RegisterHealthServer(s, h)
	reflection.Register(s)
	var once sync.Once
	return func() { once.Do(func() { close(h.down) }) }
}

// healthServer answers the health protocol from the daemon's own check.
type healthServer struct {
	healthpb.UnimplementedHealthServer
	healthy func() error
	known   map[string]bool // read-only after RegisterStandard
	down    chan struct{}   // closed by shutdown
}

func (h *healthServer) status(service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	if !h.known[service] {
		return 0, status.Errorf(codes.NotFound, "unknown service %q", service)
	}
	select {
	case <-h.down:
		return healthpb.HealthCheckResponse_NOT_SERVING, nil
	default:
	}
	if h.healthy() != nil {
		return healthpb.HealthCheckResponse_NOT_SERVING, nil
	}
	return healthpb.HealthCheckResponse_SERVING, nil
}

// Check implements Health.
func (h *healthServer) Check(_ context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	st, err := h.status(req.GetService())
	if err != nil {
		return nil, err
	}
	return &healthpb.HealthCheckResponse{Status: st}, nil
}

// Watch implements Health: the status now, then each change, looked at
// every healthPoll, until the caller leaves or the server stops. An
// unknown service is reported SERVICE_UNKNOWN, as the protocol asks.
func (h *healthServer) Watch(req *healthpb.HealthCheckRequest, stream grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	tick := time.NewTicker(healthPoll)
	defer tick.Stop()
	last := healthpb.HealthCheckResponse_ServingStatus(-1)
	for {
		st, err := h.status(req.GetService())
		if err != nil {
			st = healthpb.HealthCheckResponse_SERVICE_UNKNOWN
		}
		if st != last {
			if err := stream.Send(&healthpb.HealthCheckResponse{Status: st}); err != nil {
				return err
			}
			last = st
		}
		select {
		case <-stream.Context().Done():
			return stream.Context().Err()
		case <-h.down:
			if last != healthpb.HealthCheckResponse_NOT_SERVING && last != healthpb.HealthCheckResponse_SERVICE_UNKNOWN {
				_ = stream.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING})
			}
			return status.Error(codes.Unavailable, "the daemon is stopping")
		case <-tick.C:
		}
	}
}
