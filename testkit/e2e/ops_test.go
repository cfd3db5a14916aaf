package e2e

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"

	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestDaemonsServeHealthAndReflection: with TLS on, a client certificate of
// the cluster's CA (no daemon role) gets SERVING from the gRPC health
// service of every daemon, and reflection names each daemon's own
// services, as grpcurl and a load balancer would ask.
func TestDaemonsServeHealthAndReflection(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1, TLS: true})
	clientTLS, err := c.TLS.Load(nodetls.RoleClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, d := range []struct{ name, addr, service string }{
		{"metad", c.MetaAddr(), "novagraph.meta.MetaService"},
		{"storaged", c.Stores[0].Server.Addr(), "novagraph.storage.StorageService"},
		{"graphd", c.Graph.Addr(), "novagraph.graph.GraphService"},
	} {
		conn, err := grpc.NewClient(d.addr, grpc.WithTransportCredentials(clientTLS.ClientCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, svc := range []string{"", d.service} {
			resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
			if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("%s health of %q: %v %v", d.name, svc, resp.GetStatus(), err)
			}
		}
		rc, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
			t.Fatal(err)
		}
		resp, err := rc.Recv()
		if err != nil {
			t.Fatalf("%s reflection: %v", d.name, err)
		}
		found := false
		for _, s := range resp.GetListServicesResponse().GetService() {
			found = found || s.GetName() == d.service
		}
		if !found {
			t.Fatalf("%s reflection lists %v, not %s", d.name, resp.GetListServicesResponse().GetService(), d.service)
		}
	}
}
