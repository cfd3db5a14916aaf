package e2e

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestClearSpace: CLEAR SPACE on three replicas empties every copy of
// every partition (their data checksums agree with an empty range's),
// keeps the schema and the indexes, needs GOD, and the space takes writes
// again; a STATS job after it counts nothing.
func TestClearSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE cs(partition_num=4, replica_factor=3, vid_type=INT64)")
	exec(t, s, "USE cs")
	exec(t, s, "CREATE TAG p(name string)")
	exec(t, s, "CREATE EDGE e(w int)")
	exec(t, s, "CREATE TAG INDEX p_name ON p(name(8))")
	var vs, es []string
	for i := 0; i < 40; i++ {
		vs = append(vs, fmt.Sprintf("%d:(\"n%d\")", i, i))
		es = append(es, fmt.Sprintf("%d->%d:(%d)", i, (i*7+3)%40, i))
	}
	exec(t, s, "INSERT VERTEX p(name) VALUES "+strings.Join(vs, ", "))
	exec(t, s, "INSERT EDGE e(w) VALUES "+strings.Join(es, ", "))

	exec(t, s, `CREATE USER IF NOT EXISTS dana WITH PASSWORD "pw"`)
	exec(t, s, "GRANT ROLE ADMIN ON cs TO dana")
	dana, err := c.SessionAs("dana", "pw")
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	expectError(t, dana, "CLEAR SPACE cs", graphpb.QueryErrorCode_E_BAD_PERMISSION, "CLEAR SPACE needs GOD")

	exec(t, s, "CLEAR SPACE cs")
	for _, stmt := range []string{
		"GO FROM 1, 2, 3 OVER e BIDIRECT YIELD dst(edge)",
		"FETCH PROP ON p 1, 2, 3 YIELD p.name",
		`LOOKUP ON p WHERE p.name == "n1" YIELD id(vertex)`,
	} {
		if rs := exec(t, s, stmt); rs.Len() != 0 {
			t.Errorf("%s after CLEAR SPACE: %d rows", stmt, rs.Len())
		}
	}
	// Every replica of every partition holds no data: its data range has
	// only the replica's data format version left, so its checksum is
	// that of this one key (storaged.PartChecksum hashes each key and
	// value with its uvarint length in front).
	meta := metaclient.New([]string{c.MetaAddr()}, slog.New(slog.DiscardHandler))
	defer meta.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	snap := meta.Catalog()
	space, _ := snap.SpaceByName("cs")
	sid := space.GetSpaceId()
	for part, replicas := range snap.Parts(sid) {
		h := xxhash.New()
		for _, b := range [][]byte{partition.DataVersionKey(sid, part), binary.BigEndian.AppendUint32(nil, partition.DataFormatVersion)} {
			_, _ = h.Write(binary.AppendUvarint(nil, uint64(len(b))))
			_, _ = h.Write(b)
		}
		empty := h.Sum64()
		for i, st := range c.Stores {
			if !slices.Contains(replicas, st.Server.StoreID()) {
				continue
			}
			// A follower may apply the clear a moment after the leader
			// answered.
			var sum uint64
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if sum, err = st.Server.PartChecksum(sid, part); err != nil {
					t.Fatalf("store slot %d part %d: %v", i, part, err)
				}
				if sum == empty || time.Now().After(deadline) {
					break
				}
			}
			if sum != empty {
				t.Errorf("store slot %d part %d: data checksum %x after CLEAR SPACE, an empty partition's is %x", i, part, sum, empty)
			}
		}
	}

	// The schema and the index stay; writes go on.
	exec(t, s, `INSERT VERTEX p(name) VALUES 5:("again")`)
	exec(t, s, "INSERT EDGE e(w) VALUES 5->6:(9)")
	if got := rows(t, s, `LOOKUP ON p WHERE p.name == "again" YIELD id(vertex)`); fmt.Sprint(got) != "[5]" {
		t.Errorf("LOOKUP after CLEAR SPACE and an insert: %v", got)
	}
	submitAndWait(t, s, "SUBMIT JOB STATS")
	got := fmt.Sprint(resultRows(exec(t, s, "SHOW STATS")))
	for _, want := range []string{`"Tag"|"p"|1`, `"Edge"|"e"|1`, `"Space"|"vertices"|1`, `"Space"|"edges"|1`} {
		if !strings.Contains(got, want) {
			t.Errorf("SHOW STATS after CLEAR SPACE and one vertex and edge: %s, want %s", got, want)
		}
	}
}
