package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/novagraph/novagraph/deploy/grafana"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// exported lists the series names the registries serve on /metrics: a
// histogram as its _bucket, _sum and _count series.
func exported(t *testing.T, regs ...*prometheus.Registry) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, reg := range regs {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			name := mf.GetName()
			out[name] = true
			if mf.GetType() == dto.MetricType_HISTOGRAM {
				out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
			}
		}
	}
	return out
}

// TestDashboardMetricsExist: every series the Grafana dashboard queries is
// exported by a running cluster (metad, storaged and graphd as their
// daemons register them) once it has served reads, writes and a failure,
// so that no panel stays empty because of a renamed or missing metric.
func TestDashboardMetricsExist(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	queries, err := grafana.Queries()
	if err != nil {
		t.Fatal(err)
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1, DiskReserve: 1 << 20, DiskPollInterval: 50 * time.Millisecond})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE dash(partition_num=2, replica_factor=1, vid_type=INT64)")
	exec(t, s, "USE dash")
	exec(t, s, "CREATE EDGE e(w int)")
	exec(t, s, "INSERT EDGE e(w) VALUES 1->2:(1), 2->3:(2)")
	exec(t, s, "GO 2 STEPS FROM 1 OVER e YIELD dst(edge)")
	if _, err := s.Execute(context.Background(), "GO FROM 1 OVER nosuch"); err == nil {
		t.Fatal("a GO over an unknown edge type succeeded")
	}
	// A request for a partition the space does not have: a failed part.
	_, _, snap := storageClients(t, c, "dash", "e")
	space, _ := snap.SpaceByName("dash")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := rawConn(t, c.Stores[0].Server.Addr())
	resp, err := storagepb.NewStorageServiceClient(conn).GetProps(ctx, &storagepb.GetPropsReq{SpaceId: space.GetSpaceId(),
		VertexParts: map[int32]*storagepb.VidList{99: {Vids: [][]byte{{0, 0, 0, 0, 0, 0, 0, 1}}}}})
	if err != nil || len(resp.GetFailedParts()) == 0 {
		t.Fatalf("GetProps of partition 99: %v, failed parts %v", err, resp.GetFailedParts())
	}
	// The disk guard measures once a poll interval.
	time.Sleep(200 * time.Millisecond)

	have := exported(t, c.Metas[0].Registry, c.Stores[0].Registry, c.GraphRegistry)
	var missing []string
	for _, q := range queries {
		for _, name := range grafana.MetricNames(q.Expr) {
			if !have[name] {
				missing = append(missing, fmt.Sprintf("%s (panel %q: %s)", name, q.Panel, q.Expr))
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("the dashboard queries series no daemon exports:\n%s", strings.Join(missing, "\n"))
	}
	t.Logf("%d dashboard queries checked against %d exported series", len(queries), len(have))
}
