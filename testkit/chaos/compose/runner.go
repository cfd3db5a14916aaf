package compose

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/testkit/chaos/register"
)

// Config is one chaos run.
type Config struct {
	ComposeDir string // deploy/compose
	Project    string // docker-compose project; its data volumes are deleted before and after
	Subnet     string // the private network's /24, as "172.29.90"
	GraphPorts [2]int // where the two graphd are published on 127.0.0.1
	Image      string

	Seed             int64
	Faults           int
	Kinds            []faultKind // empty: all
	MinHold, MaxHold time.Duration
	Quiet            time.Duration // after each recovery, before the next fault
	// ElectionTimeout is storaged's (10 raft ticks of 100 ms): every
	// partition must have a leader within three of them after each heal.
	ElectionTimeout time.Duration
	RecoveryTimeout time.Duration // a fault not recovered from by then fails the run
	Partitions      int32
	RegisterClients int
	OpTimeout       time.Duration

	ReportDir string
	// SecretsDir is compose.sh's NOVA_SECRETS for the run: root's password
	// and the cluster's certificates (default: a new folder under the
	// system's temporary folder, removed after the run unless Keep).
	SecretsDir string
	Keep       bool // leave the cluster running afterwards
	Logf       func(format string, args ...any)
}

// DefaultConfig is what `make chaos` runs, given a number of faults.
func DefaultConfig(faults int) Config {
	return Config{
		ComposeDir: "deploy/compose", Project: "novachaos", Subnet: "172.29.90", GraphPorts: [2]int{9769, 9770}, Image: "novagraph:dev",
		Seed: 1, Faults: faults, MinHold: 2 * time.Second, MaxHold: 6 * time.Second, Quiet: 2 * time.Second,
		ElectionTimeout: time.Second, RecoveryTimeout: 90 * time.Second, Partitions: 10, RegisterClients: 4, OpTimeout: 5 * time.Second,
		ReportDir: "chaos-report", Logf: func(string, ...any) {},
	}
}

// faultsDisk: the run fills storage5's disk, so its data volume must be
// the overlay's tmpfs.
func (c Config) faultsDisk() bool {
	if len(c.Kinds) == 0 {
		return true
	}
	for _, k := range c.Kinds {
		if k == diskFull {
			return true
		}
	}
	return false
}

// runner owns one run: the docker driver, the clients, the records.
type runner struct {
	cfg        Config
	dk         *docker
	hc         *http.Client
	pools      []*client.Pool
	admin      *session
	generation atomic.Int64
	start      time.Time
	// password is root's for the run's new catalog: random, given to
	// compose.sh as NOVA_ROOT_PASSWORD (metad refuses the default beyond
	// loopback).
	password string

	diskFullSeen []string // clear E_DISK_FULL refusals seen by the probe
}

func (r *runner) logf(format string, args ...any) { r.cfg.Logf(format, args...) }

func (r *runner) storageServices() []string {
	return []string{"storage1", "storage2", "storage3", "storage4", "storage5"}
}

// ip is a service's fixed address (deploy/compose/docker-compose.yml).
func (r *runner) ip(service string) string {
	offsets := map[string]int{"meta1": 11, "meta2": 12, "meta3": 13, "storage1": 21, "storage2": 22, "storage3": 23,
		"storage4": 24, "storage5": 25, "graph1": 31, "graph2": 32}
	return fmt.Sprintf("%s.%d", r.cfg.Subnet, offsets[service])
}

func (r *runner) statusAddrs() map[string]string {
	out := map[string]string{}
	for _, s := range r.storageServices() {
		out[s] = r.ip(s) + ":19779"
	}
	return out
}

// Run brings the compose cluster up, runs the workload under cfg.Faults
// faults, heals, checks, writes the report to cfg.ReportDir and returns
// it. The error is set when a check failed or the run could not be done;
// the report then says which.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	r := &runner{cfg: cfg, hc: &http.Client{}, start: time.Now(), password: rand.Text()}
	if cfg.SecretsDir == "" {
		dir, err := os.MkdirTemp("", "novachaos-secrets-")
		if err != nil {
			return nil, fmt.Errorf("a folder for the run's secrets: %w", err)
		}
		if !cfg.Keep {
			defer os.RemoveAll(dir)
		}
		r.cfg.SecretsDir = dir
	}
	r.dk = &docker{project: cfg.Project, dir: cfg.ComposeDir, env: []string{
		"NOVA_SECRETS=" + r.cfg.SecretsDir, "NOVA_ROOT_PASSWORD=" + r.password,
		"NOVA_COMPOSE_PROJECT=" + cfg.Project, "NOVA_SUBNET=" + cfg.Subnet, "NOVA_IMAGE=" + cfg.Image,
		fmt.Sprintf("NOVA_GRAPHD_PORT1=%d", cfg.GraphPorts[0]), fmt.Sprintf("NOVA_GRAPHD_PORT2=%d", cfg.GraphPorts[1]),
		// NebulaGraph's protocol: published too, so off the default ports
		// a make-run or compose cluster may hold.
		fmt.Sprintf("NOVA_NEBULA_PORT1=%d", cfg.GraphPorts[0]-4), fmt.Sprintf("NOVA_NEBULA_PORT2=%d", cfg.GraphPorts[1]-4),
		"NOVA_UP_TIMEOUT=240",
	}}
	if cfg.Keep {
		r.logf("the kept cluster's secrets (root's password, the CA) are in %s", r.cfg.SecretsDir)
	}
	if cfg.faultsDisk() {
		r.dk.env = append(r.dk.env, "NOVA_COMPOSE_OVERLAY=docker-compose.chaos.yml")
	}
	rep := &Report{Seed: cfg.Seed, Started: r.start}
	err := r.run(ctx, rep)
	rep.Duration = time.Since(r.start).Round(time.Second)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	if werr := rep.write(cfg.ReportDir); werr != nil && err == nil {
		err = werr
	}
	if err == nil && len(rep.Problems) > 0 {
		err = fmt.Errorf("%d problems: %s", len(rep.Problems), strings.Join(rep.Problems, "; "))
	}
	return rep, err
}

func (r *runner) run(ctx context.Context, rep *Report) error {
	if _, err := r.dk.run(ctx, 30*time.Second, "docker", "image", "inspect", r.cfg.Image); err != nil {
		return fmt.Errorf("image %s is missing (run make image): %w", r.cfg.Image, err)
	}
	r.logf("starting the compose cluster (project %s, subnet %s.0/24)", r.cfg.Project, r.cfg.Subnet)
	if _, err := r.dk.run(ctx, 5*time.Minute, "env", "VOLUMES=1", "./compose.sh", "down"); err != nil {
		return fmt.Errorf("removing an earlier chaos cluster: %w", err)
	}
	if out, err := r.dk.compose(ctx, 6*time.Minute, "up"); err != nil {
		return fmt.Errorf("compose up: %w\n%s", err, out)
	}
	if !r.cfg.Keep {
		defer func() {
			if _, err := r.dk.run(context.Background(), 5*time.Minute, "env", "VOLUMES=1", "./compose.sh", "down"); err != nil {
				r.logf("compose down: %v", err)
			}
		}()
	}
	// The cluster runs with TLS (compose.sh made its CA): the clients trust
	// that CA for graphd's certificate.
	caPEM, err := os.ReadFile(filepath.Join(r.cfg.SecretsDir, "tls", "ca.crt"))
	if err != nil {
		return fmt.Errorf("the compose cluster's CA: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("the compose cluster's CA %s holds no certificate", filepath.Join(r.cfg.SecretsDir, "tls", "ca.crt"))
	}
	for _, port := range r.cfg.GraphPorts {
		pool, err := client.NewPool(client.Config{Addresses: []string{fmt.Sprintf("127.0.0.1:%d", port)},
			TLS: &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}})
		if err != nil {
			return err
		}
		defer pool.Close()
		r.pools = append(r.pools, pool)
	}
	r.admin = &session{pool: r.pools[0], space: "chaos", password: r.password}
	defer r.admin.close()
	if err := r.createSpaces(ctx); err != nil {
		return err
	}
	parts := make([]int32, r.cfg.Partitions)
	for i := range parts {
		parts[i] = int32(i + 1)
	}
	space, err := r.spaceID(ctx, "chaos")
	if err != nil {
		return err
	}
	if err := r.waitRecovered(ctx, space, parts, 2*time.Minute, nil); err != nil {
		return fmt.Errorf("before any fault: %w", err)
	}

	w := startWorkload(r.pools, r.password, "chaos", r.cfg.Seed, r.cfg.RegisterClients, r.cfg.OpTimeout, r.generation.Load)
	steps := plan(r.cfg.Seed, r.cfg.Faults, r.cfg.Kinds, r.cfg.Partitions, r.cfg.MinHold, r.cfg.MaxHold)
	var runErr error
	for i, s := range steps {
		if ctx.Err() != nil {
			runErr = ctx.Err()
			break
		}
		r.generation.Store(int64(i + 1))
		fr := r.fault(ctx, i+1, s, space, parts)
		rep.Faults = append(rep.Faults, fr)
		if fr.Error != "" {
			runErr = fmt.Errorf("fault %d (%s): %s", fr.Index, fr.Kind, fr.Error)
			break
		}
		time.Sleep(r.cfg.Quiet)
	}
	r.generation.Store(int64(len(steps) + 1))
	time.Sleep(r.cfg.Quiet)
	history := w.finish()
	rep.Errors, rep.ErrorExamples = w.errors.snapshot()
	if runErr != nil {
		return runErr
	}
	r.logf("faults done; checking")
	return r.check(ctx, rep, w, history, space, parts)
}

// fault runs one step: inject, hold, heal, and wait until the cluster
// recovered.
func (r *runner) fault(ctx context.Context, index int, s step, space int32, parts []int32) faultRecord {
	fr := faultRecord{Index: index, Kind: s.kind.String(), Start: time.Since(r.start).Round(time.Millisecond), Hold: s.hold}
	inj, err := r.inject(ctx, s)
	if err != nil {
		fr.Error = "inject: " + err.Error()
		return fr
	}
	injected := time.Now()
	fr.Target, fr.Notes = inj.targets, inj.notes
	r.logf("fault %d: %s on %v for %v", index, s.kind, inj.targets, s.hold)
	// While the fault lasts: how long until every partition has an
	// established leader again among the stores still reachable (the
	// failover, for faults that take a leader away).
	fr.Failover = -1
	for time.Since(injected) < s.hold {
		vs := fetchParts(ctx, r.hc, r.statusAddrs(), space, false)
		if fr.Failover < 0 && len(vs.leaderless(parts)) == 0 {
			fr.Failover = time.Since(injected).Round(time.Millisecond)
		}
		time.Sleep(min(100*time.Millisecond, max(0, s.hold-time.Since(injected))))
	}
	if err := inj.heal(ctx); err != nil {
		fr.Error = "heal: " + err.Error()
		return fr
	}
	healed := time.Now()
	var leader time.Duration
	err = r.waitRecovered(ctx, space, parts, r.cfg.RecoveryTimeout, func() { leader = time.Since(healed) })
	fr.Leader, fr.Rejoin = leader.Round(time.Millisecond), time.Since(healed).Round(time.Millisecond)
	if err != nil {
		fr.Error = err.Error()
		for _, svc := range inj.targets {
			fr.Notes = append(fr.Notes, svc+" log tail:\n"+r.dk.logs(ctx, svc, 20))
		}
		return fr
	}
	if s.kind == diskFull {
		fr.Notes = append(fr.Notes, r.probeAfterDiskFull(ctx)...)
	}
	r.logf("fault %d healed: leaders after %v, all replicas after %v", index, fr.Leader, fr.Rejoin)
	return fr
}

// waitRecovered polls the stores until every partition has an
// established leader (then calls onLeader) and every replica follows it.
func (r *runner) waitRecovered(ctx context.Context, space int32, parts []int32, timeout time.Duration, onLeader func()) error {
	deadline := time.Now().Add(timeout)
	leaderSeen := false
	var last []string
	for time.Now().Before(deadline) {
		vs := fetchParts(ctx, r.hc, r.statusAddrs(), space, false)
		if !leaderSeen && len(vs.leaderless(parts)) == 0 {
			leaderSeen = true
			if onLeader != nil {
				onLeader()
			}
		}
		if last = vs.lagging(parts); leaderSeen && len(last) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("not recovered within %v: %s", timeout, strings.Join(last, "; "))
}

// leaderService is the storaged service leading partition part of space
// chaos now.
func (r *runner) leaderService(ctx context.Context, part int32) (string, error) {
	space, err := r.spaceID(ctx, "chaos")
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		vs := fetchParts(ctx, r.hc, r.statusAddrs(), space, false)
		if l, _ := leaderOf(vs.byPart()[part]); l != 0 {
			if svc, ok := vs.storeIDs()[l]; ok {
				return svc, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return "", fmt.Errorf("partition %d has no leader to target", part)
}

// execRetry runs an administrative statement until it succeeds.
func (r *runner) execRetry(ctx context.Context, s *session, stmt string, timeout time.Duration) (*client.ResultSet, error) {
	deadline := time.Now().Add(timeout)
	for {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		rs, err := s.exec(cctx, stmt)
		cancel()
		if err == nil || errorKind(err) == "E_SYNTAX" || time.Now().After(deadline) {
			if err != nil {
				err = fmt.Errorf("%s: %w", stmt, err)
			}
			return rs, err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (r *runner) createSpaces(ctx context.Context) error {
	plain := &session{pool: r.pools[0], password: r.password}
	defer plain.close()
	for _, stmt := range []string{
		fmt.Sprintf("CREATE SPACE IF NOT EXISTS chaos(partition_num=%d, replica_factor=3, vid_type=INT64)", r.cfg.Partitions),
		// One partition per store and one replica each: a write to the
		// full disk's partition cannot go anywhere else, so its error
		// is what a user of a full node sees.
		"CREATE SPACE IF NOT EXISTS chaos_rf1(partition_num=5, replica_factor=1, vid_type=INT64)",
	} {
		if _, err := r.execRetry(ctx, plain, stmt, time.Minute); err != nil {
			return err
		}
	}
	for space, stmts := range map[string][]string{
		"chaos":     {"CREATE TAG IF NOT EXISTS reg(v int)", "CREATE TAG IF NOT EXISTS item(v int)", "CREATE EDGE IF NOT EXISTS link()"},
		"chaos_rf1": {"CREATE TAG IF NOT EXISTS probe(v int)"},
	} {
		s := &session{pool: r.pools[0], space: space, password: r.password}
		for _, stmt := range stmts {
			if _, err := r.execRetry(ctx, s, stmt, time.Minute); err != nil {
				s.close()
				return err
			}
		}
		s.close()
	}
	// The schema reaches every graphd and storaged through the catalog:
	// wait until a write through each graphd works.
	for i, pool := range r.pools {
		s := &session{pool: pool, space: "chaos", password: r.password}
		_, err := r.execRetry(ctx, s, fmt.Sprintf("INSERT VERTEX item(v) VALUES %d:(0)", itemBase-int64(i)-1), time.Minute)
		s.close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) spaceID(ctx context.Context, name string) (int32, error) {
	rs, err := r.execRetry(ctx, r.admin, "DESCRIBE SPACE "+name, 30*time.Second)
	if err != nil {
		return 0, err
	}
	i, ok := rs.ColumnIndex("ID")
	if !ok || rs.Len() != 1 {
		return 0, fmt.Errorf("DESCRIBE SPACE %s: no ID column in %v", name, rs.Columns())
	}
	id, err := rs.Row(0).Int(i)
	return int32(id), err
}

// probeDiskFull, right after storage5's disk was filled: writes to the
// partition of chaos_rf1 that only storage5 holds must fail, with an error
// that says the disk is full. The guard notices within its poll interval,
// so the probe tries for a while.
func (r *runner) probeDiskFull(ctx context.Context) []string {
	s := &session{pool: r.pools[0], space: "chaos_rf1", password: r.password}
	defer s.close()
	deadline := time.Now().Add(15 * time.Second)
	var last error
	for n := int64(1); time.Now().Before(deadline); n++ {
		for vid := int64(1); vid <= 20; vid++ {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := s.exec(cctx, fmt.Sprintf("INSERT VERTEX probe(v) VALUES %d:(%d)", vid, n))
			cancel()
			if err != nil && errorKind(err) == "E_DISK_FULL" {
				r.diskFullSeen = append(r.diskFullSeen, err.Error())
				return []string{"write to storage5's partition refused: " + err.Error()}
			}
			if err != nil {
				last = err
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return []string{fmt.Sprintf("no write was refused as E_DISK_FULL within 15s (last error: %v)", last)}
}

// probeAfterDiskFull, after space returned: every probe vertex is
// writable again and holds the last value written.
func (r *runner) probeAfterDiskFull(ctx context.Context) []string {
	s := &session{pool: r.pools[0], space: "chaos_rf1", password: r.password}
	defer s.close()
	var ids []string
	for vid := 1; vid <= 20; vid++ {
		ids = append(ids, fmt.Sprint(vid))
	}
	stmt := "INSERT VERTEX probe(v) VALUES " + strings.Join(func() []string {
		var out []string
		for _, id := range ids {
			out = append(out, id+":(-1)")
		}
		return out
	}(), ", ")
	if _, err := r.execRetry(ctx, s, stmt, 60*time.Second); err != nil {
		return []string{"after space returned, writes to chaos_rf1 still fail: " + err.Error()}
	}
	rs, err := r.execRetry(ctx, s, "FETCH PROP ON probe "+strings.Join(ids, ", ")+" YIELD probe.v AS v", 30*time.Second)
	if err != nil {
		return []string{"after space returned: " + err.Error()}
	}
	if rs.Len() != len(ids) {
		return []string{fmt.Sprintf("after space returned: %d of %d probe vertices readable", rs.Len(), len(ids))}
	}
	return []string{"after space returned: writes to storage5's partition succeed again"}
}

// check runs the end-of-run checks into rep.
func (r *runner) check(ctx context.Context, rep *Report, w *workload, history []porcupine.Operation, space int32, parts []int32) error {
	rec := register.NewRecorder(len(w.recs), w.base)
	final := map[int64]int64{}
	keys := map[int64]bool{}
	for _, op := range history {
		keys[op.Input.(register.Input).Key] = true
	}
	sorted := make([]int64, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for _, key := range sorted {
		call := rec.Now()
		rs, err := r.execRetry(ctx, r.admin, fmt.Sprintf("FETCH PROP ON reg %d YIELD reg.v AS v", key), time.Minute)
		if err != nil {
			return fmt.Errorf("final read of register %d on the healed cluster: %w", key, err)
		}
		v, err := readValue(rs)
		if err != nil {
			return fmt.Errorf("final read of register %d: %w", key, err)
		}
		rec.Read(key, v, call)
		final[key] = v
	}
	history = append(history, rec.Ops()...)
	rep.Ops = register.Count(history)
	rep.Keys = len(sorted)
	rep.GoReads = w.goReads

	htmlPath, _ := filepath.Abs(filepath.Join(r.cfg.ReportDir, "history.html"))
	start := time.Now()
	res, err := register.Check(history, 10*time.Minute, htmlPath)
	rep.Linearizable = string(res)
	r.logf("porcupine: %s for %d operations on %d keys in %v", res, len(history), len(sorted), time.Since(start).Round(time.Millisecond))
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	rep.Problems = append(rep.Problems, register.NoLostWrites(history, final)...)
	rep.Problems = append(rep.Problems, w.goIssues...)

	rep.Problems = append(rep.Problems, r.checkInserts(ctx, rep, w.inserts)...)
	rep.Problems = append(rep.Problems, r.checkReplicas(ctx, rep, space, parts)...)

	bound := 3 * r.cfg.ElectionTimeout
	for _, f := range rep.Faults {
		if f.Leader > bound {
			rep.Problems = append(rep.Problems, fmt.Sprintf("fault %d (%s on %v): a partition had no leader %v after the heal (bound %v)", f.Index, f.Kind, f.Target, f.Leader, bound))
		}
		if f.Kind == diskFull.String() {
			for _, n := range f.Notes {
				if strings.HasPrefix(n, "no write was refused") || strings.HasPrefix(n, "after space returned, writes") || strings.Contains(n, "probe vertices readable") {
					rep.Problems = append(rep.Problems, fmt.Sprintf("fault %d (disk-full): %s", f.Index, n))
				}
			}
		}
	}
	return nil
}

// checkInserts: every acknowledged vertex is readable with its value, and
// every acknowledged edge is there from both ends once intents resolved.
func (r *runner) checkInserts(ctx context.Context, rep *Report, l *insertLog) []string {
	var problems []string
	var vertices []int64
	for id := range l.vertices {
		vertices = append(vertices, id)
	}
	sort.Slice(vertices, func(i, j int) bool { return vertices[i] < vertices[j] })
	rep.AckedVertices, rep.AckedEdges = len(vertices), len(l.ackedAt)
	for i := 0; i < len(vertices); i += 200 {
		batch := vertices[i:min(i+200, len(vertices))]
		rs, err := r.execRetry(ctx, r.admin, "FETCH PROP ON item "+joinIDs(batch)+" YIELD id(vertex) AS id, item.v AS v", time.Minute)
		if err != nil {
			return append(problems, "reading acknowledged vertices: "+err.Error())
		}
		got := map[int64]int64{}
		for j := 0; j < rs.Len(); j++ {
			id, _ := rs.Row(j).Int(0)
			v, _ := rs.Row(j).Int(1)
			got[id] = v
		}
		for _, id := range batch {
			if v, ok := got[id]; !ok || v != id {
				problems = append(problems, fmt.Sprintf("acknowledged vertex %d is lost (read %v, %v)", id, v, ok))
			}
		}
	}
	// Out-edges from each hub; then in-edges, which the mirror writes
	// after the acknowledgement: give the resolver time.
	for h := int64(0); h < hubs; h++ {
		hub := hubBase + h
		rs, err := r.execRetry(ctx, r.admin, fmt.Sprintf("GO FROM %d OVER link YIELD dst(edge) AS d", hub), time.Minute)
		if err != nil {
			return append(problems, "final GO: "+err.Error())
		}
		problems = append(problems, l.checkGo(hub, rs, time.Now())...)
	}
	var acked []int64
	for id := range l.ackedAt {
		acked = append(acked, id)
	}
	sort.Slice(acked, func(i, j int) bool { return acked[i] < acked[j] })
	deadline := time.Now().Add(2 * time.Minute)
	var missing []int64
	for {
		missing = missing[:0]
		for i := 0; i < len(acked); i += 200 {
			batch := acked[i:min(i+200, len(acked))]
			rs, err := r.execRetry(ctx, r.admin, "GO FROM "+joinIDs(batch)+" OVER link REVERSELY YIELD id($^) AS me, src(edge) AS s, dst(edge) AS d", time.Minute)
			if err != nil {
				return append(problems, "final reverse GO: "+err.Error())
			}
			seen := map[int64]bool{}
			for j := 0; j < rs.Len(); j++ {
				me, _ := rs.Row(j).Int(0)
				s, _ := rs.Row(j).Int(1)
				d, _ := rs.Row(j).Int(2)
				if s == hubOf(me) || d == hubOf(me) {
					seen[me] = true
				}
			}
			for _, id := range batch {
				if !seen[id] {
					missing = append(missing, id)
				}
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("%d acknowledged edges have no in-edge 2 minutes after the run, e.g. %d->%d", len(missing), hubOf(missing[0]), missing[0]))
	}
	return problems
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// checkReplicas: once the writes stopped and the replicas applied the same
// index, every replica of a partition holds the same data.
func (r *runner) checkReplicas(ctx context.Context, rep *Report, space int32, parts []int32) []string {
	deadline := time.Now().Add(3 * time.Minute)
	var pending []string
	stable := 0
	for time.Now().Before(deadline) {
		vs := fetchParts(ctx, r.hc, r.statusAddrs(), space, true)
		var differ []string
		differ, pending = vs.checksumsDiffer(parts)
		if len(pending) == 0 {
			if len(differ) > 0 {
				// Two agreeing reads in a row: a write still being
				// applied between the status and the scan could
				// otherwise look like a difference.
				if stable++; stable >= 2 {
					return differ
				}
			} else {
				rep.ReplicasEqual = true
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return []string{"replicas did not reach the same applied index within 3 minutes: " + strings.Join(pending, "; ")}
}

var errNoDocker = errors.New("docker is not available")

// DockerAvailable reports whether docker and docker-compose can be used.
func DockerAvailable(ctx context.Context) error {
	d := &docker{dir: "."}
	if _, err := d.run(ctx, 30*time.Second, "docker", "info", "--format", "{{.ServerVersion}}"); err != nil {
		return fmt.Errorf("%w: %v", errNoDocker, err)
	}
	if _, err := d.run(ctx, 30*time.Second, "docker-compose", "version"); err != nil {
		return fmt.Errorf("%w: docker-compose: %v", errNoDocker, err)
	}
	return nil
}
