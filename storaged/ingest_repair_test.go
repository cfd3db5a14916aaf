package storaged_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// ingestCluster is a 3-store cluster with a one-partition space of
// replica_factor 3, and clients to upload and ingest SST files into it.
type ingestCluster struct {
	c     *testcluster.Cluster
	sc    *storageclient.Client
	space int32
	g     raftgroup.GroupID
	ids   []uint64 // store id of slot i
}

const ingestTag = 77 // a tag id no schema uses: the test reads its keys raw

func startIngestCluster(t *testing.T, name string) *ingestCluster {
	t.Helper()
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	mustExec(t, s, fmt.Sprintf("CREATE SPACE %s(partition_num=1, replica_factor=3, vid_type=INT64)", name))
	quiet := slog.New(slog.DiscardHandler)
	meta := metaclient.New(c.MetaAddrs(), quiet)
	t.Cleanup(meta.Close)
	sc := storageclient.New(meta, quiet)
	t.Cleanup(sc.Close)
	ic := &ingestCluster{c: c, sc: sc}
	waitUntil(t, "the test's catalog has the space", func() bool {
		sp, ok := meta.Catalog().SpaceByName(name)
		ic.space = sp.GetSpaceId()
		return ok
	})
	ic.g = raftgroup.GroupID{Space: ic.space, Part: 1}
	for _, st := range c.Stores {
		ic.ids = append(ic.ids, st.Server.StoreID())
	}
	waitUntil(t, "every replica knows the partition's leader", func() bool { return ic.leaderSlot() >= 0 })
	return ic
}

// leaderSlot is the slot of the store every running replica agrees
// leads the partition, -1 if they do not agree yet.
func (ic *ingestCluster) leaderSlot() int {
	var lead uint64
	for _, st := range ic.c.Stores {
		if st.Server == nil {
			continue
		}
		l, _, ok := st.Server.Engine().Leader(ic.g)
		if !ok || l == 0 || (lead != 0 && l != lead) {
			return -1
		}
		lead = l
	}
	for i, id := range ic.ids {
		if id == lead {
			return i
		}
	}
	return -1
}

// stagedPath is where store slot i keeps the staged file name.
func (ic *ingestCluster) stagedPath(i int, name string) string {
	return filepath.Join(ic.c.DataDir(i), "sst-staging", strconv.Itoa(int(ic.space)), "1", name)
}

// writeSST writes n keys of the partition into an SST file and returns
// it with its description, checksum included as the importer sends it.
func (ic *ingestCluster) writeSST(t *testing.T, name string, n int) (string, *storagepb.SSTFile) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	keys := make([][]byte, n)
	for v := range n {
		keys[v] = ic.key(int64(v))
	}
	storaged.WriteSSTFile(t, path, keys, func(v int) []byte { return []byte(fmt.Sprintf("%s-%d", name, v)) })
	return path, &storagepb.SSTFile{Name: name, Smallest: keys[0], Largest: keys[n-1], Checksum: checksumOf(t, path)}
}

func checksumOf(t *testing.T, path string) []byte {
	t.Helper()
	sum, _, err := storaged.FileChecksum(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// key is the (vertex order, so sorted by v) key of vertex v's test row.
func (ic *ingestCluster) key(v int64) []byte {
	return partition.TagKey(ic.space, 1, partition.EncodeInt64Vid(v), ingestTag)
}

// staged writes an SST file of n keys named name, uploads it to every
// replica, and returns its description.
func (ic *ingestCluster) staged(t *testing.T, name string, n int) *storagepb.SSTFile {
	t.Helper()
	path, f := ic.writeSST(t, name, n)
	ic.upload(t, path, name)
	return f
}

func (ic *ingestCluster) upload(t *testing.T, path, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, id := range ic.ids {
		if _, err := ic.sc.UploadSST(ctx, id, ic.space, 1, name, path); err != nil {
			t.Fatalf("uploading %s to store %d: %v", name, id, err)
		}
	}
}

func (ic *ingestCluster) ingest(t *testing.T, f *storagepb.SSTFile) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ic.sc.IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: ic.space, PartId: 1, Files: []*storagepb.SSTFile{f}, Stores: ic.ids}); err != nil {
		t.Fatalf("ingesting %s: %v", f.Name, err)
	}
}

// holds reports whether store slot i holds the value of the file's key v.
func (ic *ingestCluster) holds(t *testing.T, i int, name string, v int64) bool {
	t.Helper()
	db := ic.c.Stores[i].Server.PartitionDB(ic.space, 1)
	if db == nil {
		return false
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	got, err := db.GetBytes(ro, ic.key(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(got) == fmt.Sprintf("%s-%d", name, v)
}

// converged reports whether every replica holds the same data.
func (ic *ingestCluster) converged(t *testing.T) bool {
	t.Helper()
	var first uint64
	for i, st := range ic.c.Stores {
		sum, err := st.Server.PartChecksum(ic.space, 1)
		if err != nil {
			return false
		}
		if i == 0 {
			first = sum
		} else if sum != first {
			return false
		}
	}
	return true
}

func (ic *ingestCluster) status(t *testing.T, i int) raftgroup.Status {
	t.Helper()
	st, err := ic.tryStatus(i)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// tryStatus is status for polls: a restarted store opens the partition
// only once it has the catalog.
func (ic *ingestCluster) tryStatus(i int) (raftgroup.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return ic.c.Stores[i].Server.Engine().Status(ctx, ic.g)
}

// TestIngestFetchesMissingStagedFileFromPeer: replicas whose staged copy
// of an SST file is gone when the ingest applies fetch it from another
// replica, and every replica ends with the same data. Before the fix
// they skipped the ingest and kept a partition without the file's keys.
func TestIngestFetchesMissingStagedFileFromPeer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		missing  int  // how many followers lose their copy
		replaced bool // instead of losing it, its content is another file's
		// The entry names the file by SHA-256, as importers before
		// XXH64 did (such entries stay in raft logs).
		sha256 bool
	}{
		{"one follower", 1, false, false},
		{"both followers", 2, false, false},
		{"one follower's copy replaced", 1, true, false},
		{"SHA-256 entry, one follower", 1, false, true},
		{"SHA-256 entry, one follower's copy replaced", 1, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ic := startIngestCluster(t, "repair"+strconv.Itoa(tc.missing)+strconv.FormatBool(tc.replaced))
			name := "part1.sst"
			f := ic.staged(t, name, 500)
			if tc.sha256 {
				content, err := os.ReadFile(ic.stagedPath(ic.leaderSlot(), name))
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(content)
				f.Checksum = sum[:]
			}
			other, _ := ic.writeSST(t, "other.sst", 20)
			lead := ic.leaderSlot()
			var lost []int
			for i := range ic.c.Stores {
				if i != lead && len(lost) < tc.missing {
					var err error
					if tc.replaced {
						// A valid SST, intact, but not the entry's file:
						// ingesting it would make this replica differ.
						err = os.Rename(other, ic.stagedPath(i, name))
					} else {
						err = os.Remove(ic.stagedPath(i, name))
					}
					if err != nil {
						t.Fatal(err)
					}
					lost = append(lost, i)
				}
			}
			ic.ingest(t, f)
			waitUntil(t, "every replica holds the ingested keys", func() bool {
				for i := range ic.c.Stores {
					if !ic.holds(t, i, name, 0) || !ic.holds(t, i, name, 499) {
						return false
					}
				}
				return true
			})
			waitUntil(t, "the replicas converge", func() bool { return ic.converged(t) })
			for _, i := range lost {
				if _, err := os.Stat(ic.stagedPath(i, name)); err != nil {
					t.Errorf("store slot %d: the fetched file is not staged: %v", i, err)
				}
				if st := ic.status(t, i); st.Halt != nil {
					t.Errorf("store slot %d halted: %+v", i, *st.Halt)
				}
			}
		})
	}
}

// TestIngestHaltsWithoutAnyStagedCopy: a follower that misses an ingest
// entry while down and comes back when no replica has the file any more
// must not apply past the entry: it reports the partition halted (engine
// status, /parts, the halted-groups count) and retries; once the file is
// put back into its staging folder it applies the ingest and converges.
func TestIngestHaltsWithoutAnyStagedCopy(t *testing.T) {
	ic := startIngestCluster(t, "halt")
	name := "gone.sst"
	path, f := ic.writeSST(t, name, 300)
	ic.upload(t, path, name)
	lead := ic.leaderSlot()
	down := (lead + 1) % 3
	before := ic.status(t, lead).Applied
	ic.c.StopStore(down)
	ic.ingest(t, f)
	for i := range ic.c.Stores {
		if i != down {
			waitUntil(t, fmt.Sprintf("slot %d applies the ingest", i), func() bool { return ic.holds(t, i, name, 299) })
		}
	}
	for i := range ic.c.Stores {
		if err := os.Remove(ic.stagedPath(i, name)); err != nil {
			t.Fatal(err)
		}
	}
	ic.c.RestartStore(down)

	srv := ic.c.Stores[down].Server
	var st raftgroup.Status
	waitUntil(t, "the returning follower reports the partition halted and retried", func() bool {
		var err error
		st, err = ic.tryStatus(down)
		return err == nil && st.Halt != nil && st.Halt.Retries >= 1
	})
	if st.Halt.Index <= before || st.Applied != st.Halt.Index-1 {
		t.Fatalf("halted at %d with applied %d; want applied right before the ingest entry (after %d)", st.Halt.Index, st.Applied, before)
	}
	if !strings.Contains(st.Halt.Reason, name) || !strings.Contains(st.Halt.Reason, "no other replica supplied it") {
		t.Fatalf("halt reason %q does not name the file and the failed repair", st.Halt.Reason)
	}
	if ic.holds(t, down, name, 0) {
		t.Fatal("the halted replica holds keys of the ingest it could not apply")
	}
	if n := srv.Engine().Stats().HaltedGroups; n != 1 {
		t.Fatalf("HaltedGroups = %d, want 1", n)
	}
	rec := httptest.NewRecorder()
	srv.PartsHandler(true).ServeHTTP(rec, httptest.NewRequest("GET", fmt.Sprintf("/parts?space=%d", ic.space), nil))
	var parts []storaged.ReplicaStatus
	if err := json.Unmarshal(rec.Body.Bytes(), &parts); err != nil || len(parts) != 1 {
		t.Fatalf("/parts: %v %s", err, rec.Body.String())
	}
	if h := parts[0].Halted; h == nil || h.Index != st.Halt.Index || !strings.Contains(h.Reason, name) {
		t.Fatalf("/parts does not show the halt: %s", rec.Body.String())
	}

	// The operator restores the file where the replica stages it.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ic.stagedPath(down, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the halted replica applies the ingest", func() bool { return ic.holds(t, down, name, 299) })
	waitUntil(t, "the replicas converge", func() bool { return ic.converged(t) })
	waitUntil(t, "the halt clears", func() bool { return ic.status(t, down).Halt == nil && srv.Engine().Stats().HaltedGroups == 0 })
}

// TestIngestRefusedAlikeByEveryReplica: files every replica holds byte for
// byte (their checksum is the entry's) but RocksDB refuses (here, not an SST
// at all) are the entry's result: the ingest fails with RocksDB's reason,
// no replica halts, and the partition goes on applying.
func TestIngestRefusedAlikeByEveryReplica(t *testing.T) {
	ic := startIngestCluster(t, "refused")
	junk := filepath.Join(t.TempDir(), "bad.sst")
	if err := os.WriteFile(junk, []byte("not an SST file, but the same bytes on every replica"), 0o644); err != nil {
		t.Fatal(err)
	}
	ic.upload(t, junk, "bad.sst")
	_, f := ic.writeSST(t, "bad.sst", 10) // a valid description of the partition's keys
	f.Checksum = checksumOf(t, junk)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := ic.sc.IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: ic.space, PartId: 1, Files: []*storagepb.SSTFile{f}, Stores: ic.ids})
	cancel()
	if err == nil || !strings.Contains(err.Error(), "not a readable SST file") {
		t.Fatalf("ingesting a file RocksDB cannot read: %v, want it refused by the leader before it is proposed", err)
	}
	// Proposed all the same (a leader without that check), every replica
	// refuses the entry alike when it applies it.
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	err = ic.c.Stores[ic.leaderSlot()].Server.ProposeIngestUnchecked(ctx, ic.g, []*storagepb.SSTFile{f}, ic.ids)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "not a readable SST file") {
		t.Fatalf("applying an ingest of a file RocksDB cannot read: %v, want the entry refused with RocksDB's reason", err)
	}
	name := "good.sst"
	good := ic.staged(t, name, 50)
	ic.ingest(t, good)
	waitUntil(t, "every replica applies the ingest after the refused one", func() bool {
		for i := range ic.c.Stores {
			if !ic.holds(t, i, name, 49) {
				return false
			}
		}
		return true
	})
	for i := range ic.c.Stores {
		if st := ic.status(t, i); st.Halt != nil {
			t.Errorf("store slot %d halted on a refusal every replica shares: %+v", i, *st.Halt)
		}
	}
}

// TestIngestSlowFetchHaltsInsteadOfBlocking: a follower whose staged copy
// is gone fetches it from a peer that takes seconds (longer than the
// apply waits for it). The raft worker must not wait the download out
// (it drives other groups, whose leaderships would lapse): the follower
// halts the partition, saying the file is being fetched, and applies the
// ingest once the file has arrived.
func TestIngestSlowFetchHaltsInsteadOfBlocking(t *testing.T) {
	ic := startIngestCluster(t, "slowfetch")
	name := "slow.sst"
	f := ic.staged(t, name, 200)
	lead := ic.leaderSlot()
	slow := (lead + 1) % 3
	if err := os.Remove(ic.stagedPath(slow, name)); err != nil {
		t.Fatal(err)
	}
	ic.c.Stores[slow].Server.DelayFetches(3 * time.Second)
	ic.ingest(t, f)
	waitUntil(t, "the follower halts while its fetch runs", func() bool {
		st, err := ic.tryStatus(slow)
		return err == nil && st.Halt != nil && strings.Contains(st.Halt.Reason, "is being fetched from another replica")
	})
	waitUntil(t, "the follower applies the ingest once the file arrived", func() bool {
		return ic.holds(t, slow, name, 199)
	})
	waitUntil(t, "the replicas converge", func() bool { return ic.converged(t) })
	waitUntil(t, "the halt ends", func() bool {
		st, err := ic.tryStatus(slow)
		return err == nil && st.Halt == nil
	})
}

// TestIngestAppliedAgain: an ingest entry that applies a second time, as
// when the importer retries an IngestSST whose outcome it did not learn,
// ingests its files again on every replica instead of halting the
// partition. RocksDB writes an ingest's global sequence number into the
// file in place when its keys overlap data already there; through the
// hard link that changed every staged copy, so the second apply found none
// matching the entry's checksum and halted for good. It must not change
// the first ingest's file under the database either (a second hard link
// would).
func TestIngestAppliedAgain(t *testing.T) {
	ic := startIngestCluster(t, "again")
	first := ic.staged(t, "first.sst", 200)
	ic.ingest(t, first)
	second := ic.staged(t, "second.sst", 200) // the same keys: it overlaps
	ic.ingest(t, second)
	waitUntil(t, "every replica holds the second file's values", func() bool {
		for i := range ic.c.Stores {
			if !ic.holds(t, i, "second.sst", 0) || !ic.holds(t, i, "second.sst", 199) {
				return false
			}
		}
		return true
	})
	for i := range ic.c.Stores {
		path := ic.stagedPath(i, "second.sst")
		content, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		h := storageclient.NewSSTHash(nil)
		h.Write(content)
		if raw := h.Sum(nil); string(raw) == string(second.Checksum) {
			t.Fatalf("store slot %d: the staged copy of an overlapping ingest is byte for byte the upload: RocksDB no longer writes the global sequence number in place, and this test no longer covers that case", i)
		}
		if sum := checksumOf(t, path); string(sum) != string(second.Checksum) {
			t.Fatalf("store slot %d: staged copy's checksum %x after its ingest, the upload's %x", i, sum, second.Checksum)
		}
	}
	// One follower loses its staged copy of the second file: at the retry
	// it fetches a peer's, which carries that peer's sequence number.
	lost := (ic.leaderSlot() + 1) % len(ic.c.Stores)
	if err := os.Remove(ic.stagedPath(lost, "second.sst")); err != nil {
		t.Fatal(err)
	}
	// The retries: the first file again (its values come back), then the
	// second (its values again).
	for _, f := range []*storagepb.SSTFile{first, second} {
		ic.ingest(t, f)
		waitUntil(t, "every replica holds the values of "+f.Name+" again", func() bool {
			for i := range ic.c.Stores {
				if !ic.holds(t, i, f.Name, 0) || !ic.holds(t, i, f.Name, 199) {
					return false
				}
			}
			return true
		})
	}
	waitUntil(t, "the replicas converge", func() bool { return ic.converged(t) })
	for i := range ic.c.Stores {
		if st := ic.status(t, i); st.Halt != nil {
			t.Errorf("store slot %d halted: %+v", i, *st.Halt)
		}
		for _, name := range []string{"first.sst", "second.sst"} {
			fi, err := os.Stat(ic.stagedPath(i, name))
			if err != nil {
				t.Fatal(err)
			}
			// The staged name and at most the first ingest's file: the
			// second ingest took a copy.
			if n := fi.Sys().(*syscall.Stat_t).Nlink; n > 2 {
				t.Errorf("store slot %d: staged %s has %d links: a second ingest linked it into the database again", i, name, n)
			}
		}
	}
}

// TestIngestRefusesForeignKeys: an uploaded SST file whose keys reach
// past the partition's data (a raft log key, another partition's key) is
// refused by the leader before it is proposed, whatever key range the
// request claims; a key of the partition's bookkeeping between its data
// keys, when the entry applies; proposed all the same, every replica
// refuses such a file when it applies it, none writes its keys, and none
// halts.
func TestIngestRefusesForeignKeys(t *testing.T) {
	ic := startIngestCluster(t, "foreign")
	for i, tc := range []struct {
		name  string
		extra []byte // sorts after the partition's data keys
		want  string
	}{
		{"a raft log key", partition.RaftLogKey(ic.space, 1, 1<<60), "a raft key"},
		{"another partition's key", partition.TagKey(ic.space, 2, partition.EncodeInt64Vid(1), ingestTag), "another partition's or space's key"},
		// Between two of the partition's keys: the leader reads only the
		// ends, every replica the whole file at apply.
		{"a tombstone key between data keys", append(partition.TombstonePrefix(ic.space, 1), 1), "bookkeeping, kind 0x4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("foreign%d.sst", i)
			keys := [][]byte{ic.key(1), ic.key(2), tc.extra}
			if tc.extra[partition.PartPrefixLen] == partition.KindSystem {
				keys = append(keys, partition.KindPrefix(ic.space, 1, partition.KindDegree))
			}
			path := filepath.Join(t.TempDir(), name)
			storaged.WriteSSTFile(t, path, keys, func(int) []byte { return []byte("forged") })
			ic.upload(t, path, name)
			// The request claims the partition's keys only.
			f := &storagepb.SSTFile{Name: name, Smallest: keys[0], Largest: keys[1], Checksum: checksumOf(t, path)}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := ic.sc.IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: ic.space, PartId: 1, Files: []*storagepb.SSTFile{f}, Stores: ic.ids})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("IngestSST: %v, want it refused before it is proposed, naming %q", err, tc.want)
			}
			err = ic.c.Stores[ic.leaderSlot()].Server.ProposeIngestUnchecked(ctx, ic.g, []*storagepb.SSTFile{f}, ic.ids)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("the ingest proposed unchecked: %v, want the entry refused at apply, naming %q", err, tc.want)
			}
			// The entry applied (as a refusal) everywhere, or a replica
			// that halted shows it here.
			waitUntil(t, "every replica applies the refused entry", func() bool {
				var applied uint64
				for i := range ic.c.Stores {
					st := ic.status(t, i)
					if st.Halt != nil {
						t.Fatalf("store slot %d halted: %+v", i, *st.Halt)
					}
					if i > 0 && st.Applied != applied {
						return false
					}
					applied = st.Applied
				}
				return true
			})
			ro := grocksdb.NewDefaultReadOptions()
			defer ro.Destroy()
			for i := range ic.c.Stores {
				for _, k := range keys {
					got, err := ic.c.Stores[i].Server.PartitionDB(ic.space, 1).GetBytes(ro, k)
					if err != nil {
						t.Fatal(err)
					}
					if string(got) == "forged" {
						t.Fatalf("store slot %d holds key %x of the refused file", i, k)
					}
				}
			}
		})
	}
}
