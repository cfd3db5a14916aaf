//go:build compose

package compose

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	nebulago "github.com/vesoft-inc/nebula-go/v3"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/deploy/grafana"
)

// cluster is the compose cluster of one test, driven by compose.sh as an
// operator drives it.
type cluster struct {
	t       *testing.T
	env     []string
	secrets string // NOVA_SECRETS
	backups string // NOVA_BACKUPS
	pool    *client.Pool
	tls     *tls.Config // the cluster's CA, as clients verify graphd
}

// Ports and subnet of the test's own project, apart from the default
// cluster's (9669/9670, 172.29.89) and the chaos runner's (9769/9770,
// 172.29.90), so that neither is disturbed.
const (
	project     = "novaops"
	subnet      = "172.29.91"
	graphPort   = 9869
	graphPort2  = 9870
	nebulaPort  = 9875 // NebulaGraph's protocol, graph1's and graph2's
	nebulaPort2 = 9876
	password    = "ops-test-root"
	imageUser   = 10001 // the daemons' user in the image (deploy/image)
)

// sh runs compose.sh with the test's environment; the error carries what
// the command printed.
func (c *cluster) sh(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./compose.sh", args...)
	cmd.Env = append(os.Environ(), c.env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("compose.sh %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

func startCluster(t *testing.T) *cluster {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("the compose test needs docker: not on PATH")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skipf("the compose test needs a running docker daemon: docker info: %v", err)
	}
	if _, err := exec.LookPath("docker-compose"); err != nil {
		if exec.Command("docker", "compose", "version").Run() != nil {
			t.Skip("the compose test needs docker-compose or the docker compose plugin")
		}
	}
	c := &cluster{t: t, secrets: t.TempDir(), backups: t.TempDir()}
	c.env = []string{
		"NOVA_COMPOSE_PROJECT=" + project, "NOVA_SUBNET=" + subnet,
		fmt.Sprintf("NOVA_GRAPHD_PORT1=%d", graphPort), fmt.Sprintf("NOVA_GRAPHD_PORT2=%d", graphPort2),
		fmt.Sprintf("NOVA_NEBULA_PORT1=%d", nebulaPort), fmt.Sprintf("NOVA_NEBULA_PORT2=%d", nebulaPort2),
		"NOVA_SECRETS=" + c.secrets, "NOVA_BACKUPS=" + c.backups, "NOVA_ROOT_PASSWORD=" + password,
		"VOLUMES=1", // every down removes the data volumes too
	}
	// A cluster left by an earlier run that was killed goes first, with
	// its data.
	if _, err := c.sh(3*time.Minute, "down"); err != nil {
		t.Logf("removing an earlier cluster: %v", err)
	}
	t.Cleanup(func() {
		if os.Getenv("NOVA_COMPOSE_KEEP") == "1" {
			t.Logf("the cluster stays up (project %s, secrets in %s)", project, c.secrets)
			return
		}
		if t.Failed() {
			out, _ := c.sh(time.Minute, "logs", "--no-color", "--tail", "20")
			t.Logf("last log lines:\n%s", out)
		}
		if _, err := c.sh(3*time.Minute, "down"); err != nil {
			t.Errorf("taking the cluster down: %v", err)
		}
	})
	if out, err := c.sh(6*time.Minute, "up"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	caPEM, err := os.ReadFile(filepath.Join(c.secrets, "tls", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("the cluster's CA file holds no certificate")
	}
	c.tls = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
	c.pool, err = client.NewPool(client.Config{Addresses: []string{fmt.Sprintf("127.0.0.1:%d", graphPort)}, TLS: c.tls})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.pool.Close() })
	return c
}

// session signs in as root.
func (c *cluster) session() *client.Session {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.pool.Session(ctx, "root", password)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { s.Close() })
	return s
}

// rows runs a statement and returns its rows as "a|b|c", sorted.
func (c *cluster) rows(t *testing.T, s *client.Session, stmt string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, err := s.Execute(ctx, stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	var out []string
	for i := 0; i < rs.Len(); i++ {
		row := rs.Row(i)
		cells := make([]string, row.Len())
		for j := range cells {
			if row.IsNull(j) {
				cells[j] = "NULL"
			} else {
				cells[j] = fmt.Sprint(row.Value(j))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	sort.Strings(out)
	return out
}

// eventOnly are the series the dashboard queries that exist only once
// their event has happened, which the test cannot cause from the host;
// testkit/e2e's TestDashboardMetricsExist causes each and checks it.
var eventOnly = map[string]string{
	"novagraph_storaged_failed_parts_total": "the first partition a storaged fails in a request",
}

// TestComposeOperations: on the compose cluster, from the host, with the
// commands docs/backup.md and docs/operate.md give, a space backed up with
// `compose.sh backup`, dropped and restored with `compose.sh restore`
// answers as before from both ends of its edges and through its index, a
// damaged backup is refused naming the file, and every series the Grafana
// dashboard queries is exported by some daemon.
func TestComposeOperations(t *testing.T) {
	c := startCluster(t)
	s := c.session()
	c.rows(t, s, "CREATE SPACE ops(partition_num=6, replica_factor=3, vid_type=INT64)")
	c.rows(t, s, "USE ops")
	c.rows(t, s, "CREATE TAG p(name string)")
	c.rows(t, s, "CREATE EDGE e(w int)")
	c.rows(t, s, "CREATE TAG INDEX p_name ON p(name(16))")
	var vertices, edges, ids []string
	for i := 1; i <= 60; i++ {
		vertices = append(vertices, fmt.Sprintf(`%d:("n%d")`, i, i))
		edges = append(edges, fmt.Sprintf("%d->%d:(%d)", i, i%60+1, i), fmt.Sprintf("%d->%d:(%d)", i, (i*7)%60+1, -i))
		ids = append(ids, fmt.Sprint(i))
	}
	c.rows(t, s, "INSERT VERTEX p(name) VALUES "+strings.Join(vertices, ", "))
	c.rows(t, s, "INSERT EDGE e(w) VALUES "+strings.Join(edges, ", "))
	from := strings.Join(ids, ",")
	queries := []string{
		"GO FROM " + from + " OVER e YIELD src(edge), dst(edge), e.w",
		"GO FROM " + from + " OVER e REVERSELY YIELD src(edge), dst(edge), e.w",
		"GO 2 STEPS FROM 1, 2, 3 OVER e YIELD DISTINCT dst(edge)",
		`LOOKUP ON p WHERE p.name == "n17" YIELD id(vertex)`,
		"FETCH PROP ON p " + from + " YIELD p.name",
	}
	want := map[string][]string{}
	for _, q := range queries {
		want[q] = c.rows(t, s, q)
		if len(want[q]) == 0 {
			t.Fatalf("%s: no rows before the backup", q)
		}
	}

	t.Run("nebula clients", func(t *testing.T) {
		// Both graphds publish NebulaGraph's protocol, TLS with the
		// cluster's CA; nebula-go reads the same answer as novagraph's
		// client.
		q := queries[0]
		for _, port := range []int{nebulaPort, nebulaPort2} {
			conf := nebulago.GetDefaultConf()
			conf.TimeOut = time.Minute
			pool, err := nebulago.NewSslConnectionPool([]nebulago.HostAddress{{Host: "127.0.0.1", Port: port}}, conf, c.tls, nebulago.DefaultLogger{})
			if err != nil {
				t.Fatalf("nebula-go on 127.0.0.1:%d: %v", port, err)
			}
			defer pool.Close()
			ns, err := pool.GetSession("root", password)
			if err != nil {
				t.Fatalf("nebula-go sign-in on 127.0.0.1:%d: %v", port, err)
			}
			defer ns.Release()
			if rs, err := ns.Execute("USE ops"); err != nil || !rs.IsSucceed() {
				t.Fatalf("USE ops through nebula-go: %v %v", err, rs)
			}
			rs, err := ns.Execute(q)
			if err != nil || !rs.IsSucceed() {
				t.Fatalf("%s through nebula-go: %v %v", q, err, rs)
			}
			var got []string
			for _, row := range rs.AsStringTable()[1:] {
				got = append(got, strings.Join(row, ","))
			}
			if len(got) != len(want[q]) {
				t.Fatalf("%s: %d rows through nebula-go on 127.0.0.1:%d, %d through novagraph's client", q, len(got), port, len(want[q]))
			}
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		// A statement that fails, so that the error series exist too.
		if _, err := s.Execute(context.Background(), "GO FROM 1 OVER nosuch"); err == nil {
			t.Fatal("a GO over an unknown edge type succeeded")
		}
		have := map[string]bool{}
		for _, svc := range []string{"meta1", "meta2", "meta3", "storage1", "storage2", "storage3", "storage4", "storage5", "graph1", "graph2"} {
			out, err := c.sh(time.Minute, "metrics", svc)
			if err != nil {
				t.Fatal(err)
			}
			parser := expfmt.NewTextParser(model.UTF8Validation)
			families, err := parser.TextToMetricFamilies(strings.NewReader(out))
			if err != nil {
				t.Fatalf("%s's /metrics: %v", svc, err)
			}
			for name, mf := range families {
				have[name] = true
				if mf.GetType() == dto.MetricType_HISTOGRAM {
					have[name+"_bucket"], have[name+"_sum"], have[name+"_count"] = true, true, true
				}
			}
		}
		dash, err := grafana.Queries()
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for _, q := range dash {
			for _, name := range grafana.MetricNames(q.Expr) {
				if _, ok := eventOnly[name]; !have[name] && !ok {
					missing = append(missing, fmt.Sprintf("%s (panel %q)", name, q.Panel))
				}
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			t.Fatalf("the dashboard queries series no daemon of the compose cluster exports:\n%s", strings.Join(slices.Compact(missing), "\n"))
		}
		t.Logf("%d dashboard queries checked against %d series of ten daemons", len(dash), len(have))
	})

	t.Run("backup and restore", func(t *testing.T) {
		if out, err := c.sh(10*time.Minute, "backup", "b1", "--space", "ops"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if out, err := c.sh(2*time.Minute, "verify", "b1"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// nova-br's certificate, made for the caller, left the files the
		// daemons read at their next start to the image's user.
		for _, f := range []string{"ca.crt", "gossip.key", "storage1.key"} {
			st, err := os.Stat(filepath.Join(c.secrets, "tls", f))
			if err != nil {
				t.Fatal(err)
			}
			if uid := st.Sys().(*syscall.Stat_t).Uid; uid != imageUser {
				t.Fatalf("after the backup, %s belongs to uid %d, not the daemons' %d: they could not start again", f, uid, imageUser)
			}
		}
		c.rows(t, s, "DROP SPACE ops")
		if out, err := c.sh(10*time.Minute, "restore", "b1"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		c.rows(t, s, "USE ops")
		for _, q := range queries {
			// In-edges the snapshot caught as intents are completed by the
			// restored cluster shortly after the restore.
			var got []string
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
				if got = c.rows(t, s, q); slices.Equal(got, want[q]) || time.Now().After(deadline) {
					break
				}
			}
			if !slices.Equal(got, want[q]) {
				t.Fatalf("%s after the restore: %d rows, %d before\nnow:    %v\nbefore: %v", q, len(got), len(want[q]), got, want[q])
			}
		}

		// A damaged backup is refused, naming the file, before anything
		// changes (the space exists now, which the restore would refuse
		// only after its checks).
		var victim string
		err := filepath.WalkDir(filepath.Join(c.backups, "b1", "data"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && victim == "" && strings.HasSuffix(path, ".sst") {
				victim = path
			}
			return err
		})
		if err != nil || victim == "" {
			t.Fatalf("no partition file in the backup: %v", err)
		}
		b, err := os.ReadFile(victim)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(victim, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join(c.backups, "b1"), victim)
		for _, verb := range []string{"verify", "restore"} {
			_, err := c.sh(2*time.Minute, verb, "b1")
			if err == nil || !strings.Contains(err.Error(), filepath.ToSlash(rel)+" is damaged") {
				t.Fatalf("%s of a damaged backup: %v", verb, err)
			}
		}
	})
}
