package storaged_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/storaged"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestPartsPage: /parts on each store lists its replicas with the leader
// they follow, and ?checksum=1 gives equal checksums on every replica of a
// partition once they applied the same index. The compose chaos runner
// judges leaders and replica agreement from exactly these pages.
func TestPartsPage(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	mustExec(t, s, "CREATE SPACE pages(partition_num=4, replica_factor=3, vid_type=INT64)")
	mustExec(t, s, "USE pages")
	mustExec(t, s, "CREATE TAG t(x int)")
	waitUntil(t, "the tag is usable", func() bool {
		_, err := exec(s, "INSERT VERTEX t(x) VALUES 1:(1), 2:(2), 3:(3), 4:(4), 5:(5)")
		return err == nil
	})
	get := func(i int, query string) []storaged.ReplicaStatus {
		t.Helper()
		rec := httptest.NewRecorder()
		c.Stores[i].Server.PartsHandler(true).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/parts"+query, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("store %d /parts%s: %d %s", i, query, rec.Code, rec.Body)
		}
		var out []storaged.ReplicaStatus
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("store %d /parts%s: %v", i, query, err)
		}
		return out
	}
	space := get(0, "")[0].Space
	var sums map[int32][]uint64
	waitUntil(t, "every partition has one leader all replicas follow, at one applied index", func() bool {
		leaders := map[int32]map[uint64]bool{}
		applied := map[int32]map[uint64]bool{}
		sums = map[int32][]uint64{}
		for i := range c.Stores {
			reps := get(i, "?checksum=1&space="+itoa(space))
			if len(reps) != 4 {
				t.Fatalf("store %d lists %d replicas of a 4-partition rf 3 space on 3 stores", i, len(reps))
			}
			for _, r := range reps {
				if r.Store != c.Stores[i].Server.StoreID() || len(r.Voters) != 3 || r.Checksum == nil || r.Error != "" {
					t.Fatalf("store %d: %+v", i, r)
				}
				if leaders[r.Part] == nil {
					leaders[r.Part], applied[r.Part] = map[uint64]bool{}, map[uint64]bool{}
				}
				leaders[r.Part][r.Leader] = true
				applied[r.Part][r.Applied] = true
				sums[r.Part] = append(sums[r.Part], *r.Checksum)
			}
		}
		for p := range leaders {
			if len(leaders[p]) != 1 || leaders[p][0] || len(applied[p]) != 1 {
				return false
			}
		}
		return true
	})
	for p, s := range sums {
		if s[0] != s[1] || s[1] != s[2] {
			t.Fatalf("partition %d: replicas at one applied index have checksums %x", p, s)
		}
	}
	if got := get(0, "?space=999"); len(got) != 0 {
		t.Fatalf("another space's filter lists %v", got)
	}
	rec := httptest.NewRecorder()
	c.Stores[0].Server.PartsHandler(true).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/parts?space=x", nil))
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("?space=x: %d", rec.Code)
	}
	// Without --enable-debug-pages the checksums are refused; the raft
	// status is not.
	rec = httptest.NewRecorder()
	c.Stores[0].Server.PartsHandler(false).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/parts?checksum=1", nil))
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "--enable-debug-pages") {
		t.Fatalf("?checksum=1 with debug pages off: %d %q", rec.Code, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	c.Stores[0].Server.PartsHandler(false).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/parts", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/parts with debug pages off: %d", rec.Code)
	}
	// A client that left stops the scan: the checksum of a cancelled
	// context is an error, not a sum.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Stores[0].Server.PartChecksumContext(ctx, space, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("checksum after the client left: %v, want context.Canceled", err)
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

// TestSpaceBytes: novagraph_storaged_space_bytes gives, by space name, the
// SST bytes of a space once its writes are in SST files (COMPACT flushes
// the memtables), about the size of what was written, and nothing for a
// space with no data. Then novagraph_storaged_rocksdb_memory_bytes shows
// the block cache's use.
func TestSpaceBytes(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	mustExec(t, s, "CREATE SPACE empty(partition_num=2, replica_factor=1, vid_type=INT64)")
	mustExec(t, s, "CREATE SPACE filled(partition_num=3, replica_factor=1, vid_type=INT64)")
	mustExec(t, s, "USE filled")
	mustExec(t, s, "CREATE TAG t(x string)")
	waitUntil(t, "the tag is usable", func() bool {
		_, err := exec(s, `INSERT VERTEX t(x) VALUES 0:("")`)
		return err == nil
	})
	const vertices, payload = 3000, 400
	r := rand.New(rand.NewPCG(1, 2)) // random payloads, in hex: compression halves them at most
	for lo := 0; lo < vertices; lo += 300 {
		var b strings.Builder
		b.WriteString("INSERT VERTEX t(x) VALUES ")
		for v := lo; v < lo+300; v++ {
			if v > lo {
				b.WriteString(", ")
			}
			x := make([]byte, payload/2)
			for i := range x {
				x[i] = byte(r.Uint32())
			}
			fmt.Fprintf(&b, `%d:("%x")`, v, x)
		}
		mustExec(t, s, b.String())
	}
	mustExec(t, s, "SUBMIT JOB COMPACT")
	gauge := func() map[string]float64 {
		mfs, err := c.Stores[0].Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, mf := range mfs {
			if mf.GetName() != "novagraph_storaged_space_bytes" {
				continue
			}
			for _, m := range mf.GetMetric() {
				out[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
		return out
	}
	var got map[string]float64
	waitUntil(t, "the filled space's bytes are in SST files", func() bool {
		got = gauge()
		return got["filled"] > 0
	})
	t.Logf("space_bytes %v", got)
	if got["filled"] < vertices*payload/2 || got["filled"] > 4*vertices*payload {
		t.Fatalf("space_bytes %v: %d vertices of %d bytes were written to filled", got, vertices, payload)
	}
	if n, ok := got["empty"]; !ok || n != 0 {
		t.Fatalf("space_bytes %v: want the empty space listed with 0 bytes", got)
	}

	// novagraph_storaged_rocksdb_memory_bytes: after reads of the
	// compacted rows, the block cache holds blocks, among them the pinned
	// top levels of the files' partitioned index and filters, and never
	// more than its capacity (the default 1 GiB).
	for v := 0; v < vertices; v += 7 {
		mustExec(t, s, fmt.Sprintf("FETCH PROP ON t %d YIELD t.x", v))
	}
	mfs, err := c.Stores[0].Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	rocks := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() == "novagraph_storaged_rocksdb_memory_bytes" {
			for _, m := range mf.GetMetric() {
				rocks[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	t.Logf("rocksdb_memory_bytes %v", rocks)
	if len(rocks) != 5 || rocks["block_cache_capacity"] != 1<<30 ||
		rocks["block_cache"] <= 0 || rocks["block_cache"] > rocks["block_cache_capacity"] ||
		rocks["block_cache_pinned"] <= 0 || rocks["block_cache_pinned"] > rocks["block_cache"] {
		t.Fatalf("rocksdb_memory_bytes %v", rocks)
	}
}
