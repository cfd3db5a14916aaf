package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novagraph/novagraph/br"
	metaclient "github.com/novagraph/novagraph/metad/client"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// brClients connects a backup tool to cluster c, as nova-br does.
func brClients(t *testing.T, c *testcluster.Cluster) (*metaclient.Client, *storageclient.Client) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	mc := metaclient.New(c.MetaAddrs(), log)
	t.Cleanup(mc.Close)
	sc := storageclient.New(mc, log)
	t.Cleanup(sc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mc.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return mc, sc
}

// restoredEdges is the "src->dst" of every e edge GO finds from the sources, and
// of every in-edge GO REVERSELY finds at the destinations.
func restoredEdges(t *testing.T, c *testcluster.Cluster, srcs, dsts []int64) (out, in map[string]bool) {
	t.Helper()
	s := c.Session()
	defer s.Close()
	exec(t, s, "USE bk")
	list := func(ids []int64) string {
		var b []string
		for _, id := range ids {
			b = append(b, fmt.Sprint(id))
		}
		return strings.Join(b, ", ")
	}
	out, in = map[string]bool{}, map[string]bool{}
	for _, r := range rows(t, s, "GO FROM "+list(srcs)+" OVER e YIELD src(edge), dst(edge)") {
		out[strings.ReplaceAll(r, "|", "->")] = true
	}
	for _, r := range rows(t, s, "GO FROM "+list(dsts)+" OVER e REVERSELY YIELD src(edge), dst(edge)") {
		in[strings.ReplaceAll(r, "|", "->")] = true
	}
	return out, in
}

// TestBackupRestoreAcrossClusterSizes: a backup taken while a writer
// inserts and updates edges, restored from five storaged (three replicas
// each, so the copies come from stores checkpointed at different moments)
// into a fresh cluster of three, has every edge acknowledged before its
// snapshot and none acknowledged after, from both ends, and its tag index
// answers LOOKUP; changes after the restore win from both ends; a backup
// of that cluster restores into five. A backup with a damaged file, or without its
// manifest, is refused naming what is wrong, before anything changes.
func TestBackupRestoreAcrossClusterSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	src := testcluster.Start(t, testcluster.Options{Stores: 5})
	s := src.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE bk(partition_num=6, replica_factor=3, vid_type=INT64)")
	exec(t, s, "USE bk")
	exec(t, s, "CREATE TAG p(name string)")
	exec(t, s, "CREATE EDGE e(w int)")
	exec(t, s, "CREATE TAG INDEX p_name ON p(name(16))")
	exec(t, s, `INSERT VERTEX p(name) VALUES 1:("one"), 2:("two"), 3:("three")`)

	type acked struct {
		src, dst int64
		at       time.Time
	}
	var (
		mu   sync.Mutex
		done []acked
		wg   sync.WaitGroup
		stop = make(chan struct{})
	)
	ws := src.Session()
	defer ws.Close()
	exec(t, ws, "USE bk")
	wg.Go(func() {
		for i := int64(100); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := ws.Execute(context.Background(), fmt.Sprintf("INSERT EDGE e(w) VALUES %d->%d:(1)", i, i+1000)); err != nil {
				t.Errorf("writer: %v", err)
				return
			}
			if i%3 == 0 { // and an update of an edge written before
				if _, err := ws.Execute(context.Background(), fmt.Sprintf("UPDATE EDGE ON e %d->%d SET w = %d", i-2, i-2+1000, i)); err != nil {
					t.Errorf("writer: %v", err)
					return
				}
			}
			mu.Lock()
			done = append(done, acked{i, i + 1000, time.Now()})
			mu.Unlock()
		}
	})
	// waitAcked waits until the writer has acknowledged n edges after since
	// (a loaded machine may take a while for a few).
	waitAcked := func(n int, since time.Time) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			k := 0
			for _, a := range done {
				if a.at.After(since) {
					k++
				}
			}
			mu.Unlock()
			if k >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the writer acknowledged %d edges in two minutes; the test needs %d", k, n)
			}
		}
	}
	// Enough edges before the snapshot for the checks after the restore,
	// which change two of them.
	waitAcked(5, time.Time{})
	began := time.Now()
	snapshot, err := exec(t, s, "CREATE SNAPSHOT").Row(0).String(0)
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Now()
	waitAcked(2, ended)
	close(stop)
	wg.Wait()

	mc, sc := brClients(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // three clusters under -race and parallel packages
	defer cancel()
	dir := t.TempDir()
	m, err := br.Backup(ctx, br.BackupOptions{Meta: mc, Storage: sc, Snapshot: snapshot, Store: br.DirStore{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Spaces) != 1 || len(m.Spaces[0].Parts) != 6 {
		t.Fatalf("manifest: %+v", m)
	}
	// Each cluster stops once the test is done with it: under -race beside
	// other packages, three clusters at once starved each other's raft
	// elections and heartbeats.
	s.Close()
	ws.Close()
	src.Close()

	// Damaged and unfinished backups are refused before anything changes.
	first := testcluster.Start(t, testcluster.Options{Stores: 3})
	mcFirst, scFirst := brClients(t, first)
	restore := func(dir string) error {
		_, err := br.Restore(ctx, br.RestoreOptions{Meta: mcFirst, Storage: scFirst, Store: br.DirStore{Dir: dir}, User: "root", Password: testcluster.Password})
		return err
	}
	damaged := t.TempDir()
	if err := os.CopyFS(damaged, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(damaged, filepath.FromSlash(m.Spaces[0].Parts[2].File.Path))
	b, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(victim, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := restore(damaged); err == nil || !strings.Contains(err.Error(), m.Spaces[0].Parts[2].File.Path+" is damaged") {
		t.Fatalf("restoring a damaged backup: %v", err)
	}
	if err := os.Remove(filepath.Join(damaged, br.ManifestName)); err != nil {
		t.Fatal(err)
	}
	if err := restore(damaged); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Fatalf("restoring a backup without its manifest: %v", err)
	}
	sFirst := first.Session()
	defer sFirst.Close()
	if got := rows(t, sFirst, "SHOW SPACES"); len(got) != 0 {
		t.Fatalf("a refused restore created spaces: %v", got)
	}

	// Five storaged into three.
	if err := restore(dir); err != nil {
		t.Fatal(err)
	}
	var before, after []acked
	for _, a := range done {
		switch {
		case a.at.Before(began):
			before = append(before, a)
		case a.at.After(ended):
			after = append(after, a)
		}
	}
	if len(before) == 0 || len(after) == 0 {
		t.Fatalf("the writer acknowledged %d edges before the snapshot and %d after: the test needs both", len(before), len(after))
	}
	check := func(c *testcluster.Cluster, what string) {
		t.Helper()
		var srcs, dsts []int64
		for _, a := range done {
			srcs, dsts = append(srcs, a.src), append(dsts, a.dst)
		}
		// In-edges travel as intents where the snapshot caught them on
		// their way: give the resolver a moment.
		var out, in map[string]bool
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			out, in = restoredEdges(t, c, srcs, dsts)
			if len(in) == len(out) || time.Now().After(deadline) {
				break
			}
		}
		for _, a := range before {
			k := fmt.Sprintf("%d->%d", a.src, a.dst)
			if !out[k] || !in[k] {
				t.Fatalf("%s: edge %s acknowledged before the snapshot is missing (out %v, in %v)", what, k, out[k], in[k])
			}
		}
		for _, a := range after {
			k := fmt.Sprintf("%d->%d", a.src, a.dst)
			if out[k] || in[k] {
				t.Fatalf("%s: edge %s acknowledged after the snapshot is there", what, k)
			}
		}
		if len(in) != len(out) {
			t.Fatalf("%s: %d out-edges but %d in-edges", what, len(out), len(in))
		}
		cs := c.Session()
		defer cs.Close()
		exec(t, cs, "USE bk")
		if got := rows(t, cs, `LOOKUP ON p WHERE p.name == "two" YIELD id(vertex)`); !slices.Equal(got, []string{"2"}) {
			t.Fatalf("%s: LOOKUP through the restored index: %v", what, got)
		}
		t.Logf("%s: %d edges, all %d acknowledged before the snapshot, none of the %d after", what, len(out), len(before), len(after))
	}
	check(first, "five into three")

	// Changes after the restore win over the restored state from both
	// ends: the restored partitions' versions go on past the backup's.
	// The last edges written before the snapshot carry the highest
	// versions of their partitions, above the raft index the new
	// partitions start from.
	exec(t, sFirst, "USE bk")
	changed, gone := before[len(before)-1], before[len(before)-2]
	exec(t, sFirst, fmt.Sprintf("UPDATE EDGE ON e %d->%d SET w = 42", changed.src, changed.dst))
	exec(t, sFirst, fmt.Sprintf("DELETE EDGE e %d->%d", gone.src, gone.dst))
	if got := rows(t, sFirst, fmt.Sprintf("GO FROM %d OVER e REVERSELY YIELD src(edge), e.w", changed.dst)); !slices.Equal(got, []string{fmt.Sprintf("%d|42", changed.src)}) {
		t.Fatalf("an update after the restore, seen from its destination: %v", got)
	}
	if got := rows(t, sFirst, fmt.Sprintf("GO FROM %d OVER e REVERSELY YIELD src(edge)", gone.dst)); len(got) != 0 {
		t.Fatalf("a delete after the restore, seen from its destination: %v", got)
	}
	before = before[:len(before)-2]
	before = append(before, changed) // gone is gone from here on

	// And three into five: a snapshot of the restored cluster.
	snapFirst, err := exec(t, sFirst, "CREATE SNAPSHOT").Row(0).String(0)
	if err != nil {
		t.Fatal(err)
	}
	dirFirst := t.TempDir()
	if _, err := br.Backup(ctx, br.BackupOptions{Meta: mcFirst, Storage: scFirst, Snapshot: snapFirst, Store: br.DirStore{Dir: dirFirst}, Spaces: []string{"bk"}}); err != nil {
		t.Fatal(err)
	}
	sFirst.Close()
	first.Close()
	second := testcluster.Start(t, testcluster.Options{Stores: 5})
	mcSecond, scSecond := brClients(t, second)
	if _, err := br.Restore(ctx, br.RestoreOptions{Meta: mcSecond, Storage: scSecond, Store: br.DirStore{Dir: dirFirst}, User: "root", Password: testcluster.Password}); err != nil {
		t.Fatal(err)
	}
	check(second, "three into five")
	sSecond := second.Session()
	defer sSecond.Close()
	exec(t, sSecond, "USE bk")
	if got := rows(t, sSecond, fmt.Sprintf("GO FROM %d OVER e REVERSELY YIELD src(edge), e.w", changed.dst)); !slices.Equal(got, []string{fmt.Sprintf("%d|42", changed.src)}) {
		t.Fatalf("three into five: the update made after the first restore: %v", got)
	}
	// A second restore of the same space is refused: it exists now.
	if _, err := br.Restore(ctx, br.RestoreOptions{Meta: mcSecond, Storage: scSecond, Store: br.DirStore{Dir: dirFirst}, User: "root", Password: testcluster.Password}); err == nil ||
		!strings.Contains(err.Error(), `is taken by space "bk" here`) {
		t.Fatalf("restoring over an existing space: %v", err)
	}
}
