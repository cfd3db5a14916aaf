package driver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/bench/ldbc/floor"
	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// dataDir is the shared real-graph folder, relative to this package.
const dataDir = "../../../../shared/data"

const (
	clusterPersons = 200 // the first persons of SF0.1, and the knows among them
	clusterParts   = 4
)

func exec(t *testing.T, s *client.Session, stmt string) *client.ResultSet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rs, err := s.Execute(ctx, stmt)
	if err != nil {
		if len(stmt) > 200 {
			stmt = stmt[:200] + "…"
		}
		t.Fatalf("%s\n-> %v", stmt, err)
	}
	return rs
}

// loadSlice inserts persons (every property) and their knows in both
// directions, as the importer does.
func loadSlice(t *testing.T, s *client.Session, persons []driver.Person, knows []driver.Knows) {
	t.Helper()
	q := strconv.Quote
	var b strings.Builder
	b.WriteString("INSERT VERTEX Person(firstName, lastName, gender, birthday, creationDate, locationIP, browserUsed, language, email) VALUES ")
	for i, p := range persons {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d:(%s, %s, %s, %d, %d, %s, %s, %s, %s)", p.ID, q(p.FirstName), q(p.LastName), q(p.Gender),
			p.Birthday, p.CreationDate, q(p.LocationIP), q(p.BrowserUsed), q(p.Language), q(p.Email))
	}
	exec(t, s, b.String())
	in := map[int64]bool{}
	for _, p := range persons {
		in[p.ID] = true
	}
	b.Reset()
	n := 0
	for _, k := range knows {
		if !in[k.Src] || !in[k.Dst] {
			continue
		}
		if n == 0 {
			b.WriteString("INSERT EDGE knows(creationDate) VALUES ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d->%d:(%d), %d->%d:(%d)", k.Src, k.Dst, k.CreationDate, k.Dst, k.Src, k.CreationDate)
		n++
	}
	if n > 0 {
		exec(t, s, b.String())
	}
}

// readClusterSlice reads the first clusterPersons persons of LDBC SF0.1
// and every knows row, skipping the test when the shared data is absent.
func readClusterSlice(t *testing.T) (dir string, persons []driver.Person, knows []driver.Knows) {
	t.Helper()
	dir = filepath.Join(dataDir, "ldbc-sf0.1")
	if _, err := os.Stat(filepath.Join(dir, driver.LDBCPersonFile)); err != nil {
		t.Skipf("LDBC SF0.1 not found at %s (the shared data folder is absent): %v", dir, err)
	}
	persons, err := driver.ReadLDBCPersons(dir, clusterPersons)
	if err != nil {
		t.Fatal(err)
	}
	if knows, err = driver.ReadLDBCKnows(dir); err != nil {
		t.Fatal(err)
	}
	return dir, persons, knows
}

// TestScenariosOnCluster loads a slice of LDBC SF0.1 into a 1-store
// cluster, runs every scenario of the run and seed workloads at
// concurrency 1 and 4 with no error, and checks that the GO k-hop row
// count of every start vertex equals the storage floor's for the same
// vertex: the floor reads the keys novagraph stores, so both must count
// the same edges.
func TestScenariosOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	dir, persons, knows := readClusterSlice(t)
	g := driver.LDBCGraph(dir, persons, knows)
	t.Logf("slice: %d persons, %d directed knows edges", len(g.Vertices), len(g.Edges))

	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, fmt.Sprintf("CREATE SPACE ldbc(partition_num=%d, replica_factor=1, vid_type=INT64)", clusterParts))
	exec(t, s, "USE ldbc")
	exec(t, s, "CREATE TAG Person(firstName string, lastName string, gender string, birthday int, creationDate int, locationIP string, browserUsed string, language string, email string)")
	exec(t, s, "CREATE EDGE knows(creationDate int)")
	loadSlice(t, s, persons, knows)

	fl, err := floor.Open(floor.Options{Partitions: clusterParts, RocksDB: rocksopts.Options{BlockCacheMB: 8, WriteBufferMB: 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	if err := fl.Load(g); err != nil {
		t.Fatal(err)
	}

	pool, err := client.NewPool(client.Config{Addresses: []string{c.Graph.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sampler, err := driver.NewSampler(g, driver.SizeBiased)
	if err != nil {
		t.Fatal(err)
	}
	schema := driver.LDBCSchema()
	ctx := context.Background()

	// The count queries (Q7, Q8) after their setup, against the slice.
	for _, name := range []string{"q7", "q8"} {
		sc, _ := driver.FindScenarios(driver.SeedQueries, []string{name})
		if err := sc[0].Setup(ctx, s, schema); err != nil {
			t.Fatalf("%s setup: %v", name, err)
		}
		if err := sc[0].Setup(ctx, s, schema); err != nil { // idempotent
			t.Fatalf("%s setup again: %v", name, err)
		}
		p, _ := driver.Prepare(sc[0], schema, false)
		n, err := exec(t, s, p.Stmt).Row(0).Int(0)
		want := int64(len(g.Vertices))
		if name == "q8" {
			want = int64(len(g.Edges))
		}
		if err != nil || n != want {
			t.Fatalf("%s: %s = %d (%v), want %d", name, p.Stmt, n, err, want)
		}
	}

	// Expected GO row counts per start vertex, from the floor.
	inputs, _ := driver.MakeInputs(driver.InputVertex, g, sampler, 1, 50)
	want := map[int]map[int64]int64{}
	r := fl.NewReader()
	for steps := 1; steps <= 3; steps++ {
		want[steps] = map[int64]int64{}
		for _, in := range inputs {
			n, err := r.Go(steps, in.ID)
			if err != nil {
				t.Fatal(err)
			}
			want[steps][in.ID] = n
		}
	}
	r.Close()

	ids := driver.NewFreshIDs()
	run := func(sc driver.Scenario, literal bool) {
		t.Helper()
		p, err := driver.Prepare(sc, schema, literal)
		if err != nil {
			t.Fatal(err)
		}
		in, err := driver.MakeInputs(sc.Input, g, sampler, 1, 50)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var mismatches []string
		var checked int
		cfg := driver.RunConfig{Count: 30, Timeout: time.Minute, Inputs: in}
		if sc.Steps > 0 {
			cfg.Observe = func(in driver.Input, out driver.Outcome) {
				mu.Lock()
				defer mu.Unlock()
				checked++
				if w := want[sc.Steps][in.ID]; out.Err == nil && out.Rows != w {
					mismatches = append(mismatches, fmt.Sprintf("from %d: %d rows, floor %d", in.ID, out.Rows, w))
				}
			}
		}
		target := &driver.NovaTarget{Pool: pool, User: "root", Password: testcluster.Password, Space: "ldbc", Prepared: p, IDs: ids}
		res, err := driver.Sweep(ctx, sc.Name, target, []int{1, 4}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Errors != 0 || r.Count != 30 {
				t.Fatalf("%s (%s) at %d: %d ok, %d errors %v: %v", sc.Name, p.Stmt, r.Concurrency, r.Count, r.Errors, r.ErrorKinds, r.ErrorSample)
			}
			if r.Server == nil || r.Server.P50US <= 0 || r.Client.P50US < r.Server.P50US {
				t.Fatalf("%s at %d: client %+v server %+v", sc.Name, r.Concurrency, r.Client, r.Server)
			}
			t.Logf("%-14s conc %d: %6.0f qps, %5d rows, client p50 %s ms, server p50 %s ms", sc.Name, r.Concurrency, r.QPS, r.Rows,
				driver.FormatMS(r.Client.P50US), driver.FormatMS(r.Server.P50US))
		}
		if sc.Steps > 0 {
			if len(mismatches) > 0 || checked != 60 {
				t.Fatalf("%s: %d of %d executions differ from the floor: %v", sc.Name, len(mismatches), checked, mismatches[:min(len(mismatches), 5)])
			}
			if sc.Steps >= 2 && res[0].Rows == 0 {
				t.Fatalf("%s: no rows at all: the cross-check checked nothing", sc.Name)
			}
		}
	}
	for _, sc := range driver.SeedQueries {
		run(sc, false)
	}
	for _, sc := range driver.Scenarios {
		run(sc, false)
	}
	// The same k-hops with the ids spliced into the text.
	for _, sc := range floor.Scenarios() {
		run(sc, true)
	}
}
