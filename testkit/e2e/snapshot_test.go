package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestSnapshotWhileWriting: CREATE SNAPSHOT while writers run records every
// partition at one applied index, on three replicas each; the copy of each
// partition it names holds every edge acknowledged before the snapshot
// began (read back from the partition's exported SST files), SHOW
// SNAPSHOTS lists it, and DROP SNAPSHOT removes the checkpoints from
// every store. A second snapshot gets a name of its own; dropping an
// unknown one fails unless IF EXISTS.
func TestSnapshotWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE snap(partition_num=4, replica_factor=3, vid_type=INT64)")
	exec(t, s, "USE snap")
	exec(t, s, "CREATE EDGE e(w int)")

	// Writers: each INSERT's edges, with the time it was acknowledged.
	type acked struct {
		src, dst int64
		at       time.Time
	}
	var (
		mu    sync.Mutex
		done  []acked
		wg    sync.WaitGroup
		stop  = make(chan struct{})
		werrs = make(chan error, 2)
	)
	for w := range 2 {
		ws := c.Session()
		defer ws.Close()
		exec(t, ws, "USE snap")
		wg.Go(func() {
			for i := int64(0); ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				src := int64(w*1_000_000) + i
				if _, err := ws.Execute(context.Background(), fmt.Sprintf("INSERT EDGE e(w) VALUES %d->%d:(%d)", src, src+7, i)); err != nil {
					werrs <- err
					return
				}
				mu.Lock()
				done = append(done, acked{src, src + 7, time.Now()})
				mu.Unlock()
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	began := time.Now()
	name, err := exec(t, s, "CREATE SNAPSHOT").Row(0).String(0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // writes go on after it
	close(stop)
	wg.Wait()
	select {
	case err := <-werrs:
		t.Fatalf("a writer failed: %v", err)
	default:
	}

	rows := fmt.Sprint(resultRows(exec(t, s, "SHOW SNAPSHOTS")))
	if !strings.Contains(rows, `"`+name+`"|"VALID"`) {
		t.Fatalf("SHOW SNAPSHOTS: %s, want %s VALID", rows, name)
	}
	mc, sc, _ := storageClients(t, c, "snap", "e")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := mc.GetSnapshot(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.GetHosts()) != 3 || len(d.GetParts()) != 4 || d.GetCatalog() == nil {
		t.Fatalf("snapshot %s: hosts %v, %d partitions, catalog %v", name, d.GetHosts(), len(d.GetParts()), d.GetCatalog() != nil)
	}
	space, _ := mc.Catalog().SpaceByName("snap")
	edge, _ := mc.Catalog().EdgeByName(space.GetSpaceId(), "e")

	// Every partition's chosen copy, exported and ingested into one
	// RocksDB, holds every edge acknowledged before CREATE SNAPSHOT.
	dir := t.TempDir()
	var files []string
	for _, p := range d.GetParts() {
		if p.GetAppliedIndex() == 0 {
			t.Fatalf("partition %d at applied index 0", p.GetPartId())
		}
		path := filepath.Join(dir, fmt.Sprintf("%d.sst", p.GetPartId()))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := sc.ExportCheckpointPart(ctx, p.GetHost(), name, p.GetSpaceId(), p.GetPartId(), f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if exp.Applied != p.GetAppliedIndex() || exp.Keys == 0 {
			t.Fatalf("partition %d exported at applied %d with %d keys; the snapshot says %d", p.GetPartId(), exp.Applied, exp.Keys, p.GetAppliedIndex())
		}
		files = append(files, path)
	}
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	defer opts.Destroy()
	db, err := grocksdb.OpenDb(opts, filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	io := grocksdb.NewDefaultIngestExternalFileOptions()
	defer io.Destroy()
	if err := db.IngestExternalFile(files, io); err != nil {
		t.Fatal(err)
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	before, missing := 0, 0
	for _, a := range done {
		if !a.at.Before(began) {
			continue
		}
		before++
		src := partition.EncodeInt64Vid(a.src)
		key := partition.EdgeKey(space.GetSpaceId(), partition.PartOfInt64(a.src, space.GetPartitionNum()), src, edge.GetEdgeType(), 0, partition.EncodeInt64Vid(a.dst))
		if v, err := db.GetBytes(ro, key); err != nil || v == nil {
			missing++
		}
	}
	if before == 0 || missing > 0 {
		t.Fatalf("%d of %d edges acknowledged before the snapshot are not in it (%d written in all)", missing, before, len(done))
	}
	t.Logf("snapshot %s holds all %d edges acknowledged before it (of %d written)", name, before, len(done))

	// A second snapshot, then both dropped: the checkpoints leave every store.
	second, err := exec(t, s, "CREATE SNAPSHOT").Row(0).String(0)
	if err != nil || second == name {
		t.Fatalf("second snapshot %q (%v), first %q", second, err, name)
	}
	for _, n := range []string{name, second} {
		exec(t, s, "DROP SNAPSHOT "+n)
		for i := range c.Stores {
			if _, err := os.Stat(filepath.Join(c.DataDir(i), "checkpoints", n)); !os.IsNotExist(err) {
				t.Fatalf("store slot %d keeps the checkpoint of dropped snapshot %s: %v", i, n, err)
			}
		}
	}
	if rows := resultRows(exec(t, s, "SHOW SNAPSHOTS")); len(rows) != 0 {
		t.Fatalf("SHOW SNAPSHOTS after dropping both: %v", rows)
	}
	expectError(t, s, "DROP SNAPSHOT nosuch", graphpb.QueryErrorCode_E_SEMANTIC, `snapshot "nosuch" not found`)
	exec(t, s, "DROP SNAPSHOT IF EXISTS nosuch")
}
