package importer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/novagraph/novagraph/client"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// dataDir is the shared real-graph folder, relative to this package.
const dataDir = "../../shared/data"

func needData(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(dataDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not found (the shared data folder is absent): %v", p, err)
	}
	return p
}

func execOK(t *testing.T, s *client.Session, stmt string) *client.ResultSet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, err := s.Execute(ctx, stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return rs
}

// sstWithoutRetries is the SST import of wiki-Vote (the file at wikiVote)
// into a new rf 1 space, kept in a folder of the test's, whose failed
// ships are not retried.
func sstWithoutRetries(t *testing.T, c *testcluster.Cluster, wikiVote, space string) (PresetOptions, *Config) {
	t.Helper()
	o := presetFor(c, space, 1, t.TempDir())
	o.Mode, o.SSTDir = "sst", t.TempDir()
	cfg, err := SNAPConfig(wikiVote, "vote", false, o)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Manager.Retry = 0
	return o, cfg
}

func presetFor(c *testcluster.Cluster, space string, replicas int, dir string) PresetOptions {
	return PresetOptions{Space: space, Partitions: 6, Replicas: replicas, Addr: c.Graph.Addr(), User: "root",
		Password: testcluster.Password, Mode: "online", Batch: 2000, Concurrency: 8, FailedDir: dir}
}

func mustRun(t *testing.T, cfg *Config, opts Options) *Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sum, err := Run(ctx, cfg, opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	t.Logf("import: %s", sum)
	return sum
}

// neighbours returns, for each vid, its neighbours over edge (out, or in
// when reversely), as graphd answers GO.
func neighbours(t *testing.T, s *client.Session, space, edge string, vids []int64, reversely bool) map[int64][]int64 {
	t.Helper()
	ids := make([]string, len(vids))
	for i, v := range vids {
		ids[i] = strconv.FormatInt(v, 10)
	}
	dir := ""
	if reversely {
		dir = " REVERSELY"
	}
	rs := execOK(t, s, fmt.Sprintf("USE %s; GO FROM %s OVER %s%s YIELD id($^) AS a, id($$) AS b", space, strings.Join(ids, ","), edge, dir))
	got := map[int64][]int64{}
	for i := range rs.Len() {
		a, _ := rs.Row(i).Value(0).(int64)
		b, _ := rs.Row(i).Value(1).(int64)
		got[a] = append(got[a], b)
	}
	for _, v := range got {
		slices.Sort(v)
	}
	return got
}

// sample is every step-th key of adjacency, sorted, for a GO FROM list.
func sample(adj map[int64][]int64, step int) []int64 {
	var keys []int64
	for k := range adj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []int64
	for i := 0; i < len(keys); i += step {
		out = append(out, keys[i])
	}
	return out
}

func compareAdjacency(t *testing.T, what string, want, got map[int64][]int64, vids []int64) {
	t.Helper()
	bad := 0
	for _, v := range vids {
		w := slices.Clone(want[v])
		slices.Sort(w)
		if !slices.Equal(w, got[v]) {
			if bad < 5 {
				t.Errorf("%s of %d: got %d neighbours, want %d", what, v, len(got[v]), len(w))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d sampled vertices differ from the file", what, bad, len(vids))
	}
}

// TestImportIntoCluster imports real graphs with the presets and a YAML
// config into one 3-storaged cluster and checks every answer against the
// files: wiki-Vote with replica_factor 3, LDBC SF0.1 with 1, a file with
// injected bad rows (every good row in, every bad one listed with its
// line, then fed back), and an import interrupted and resumed.
func TestImportIntoCluster(t *testing.T) {
	wikiVote := needData(t, "snap/kuzu-wiki-Vote/edges.csv")
	ldbcDir := needData(t, "ldbc-sf0.1")
	c := testcluster.Start(t, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()

	t.Run("snap rf3", func(t *testing.T) {
		cfg, err := SNAPConfig(wikiVote, "vote", false, presetFor(c, "wiki", 3, t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		sum := mustRun(t, cfg, Options{})
		out, in, n := wikiAdjacency(t, wikiVote)
		if sum.Edges != int64(n) || sum.Failed != 0 || sum.Rows != int64(n) {
			t.Fatalf("summary %+v, want %d edges and rows, no failures", sum, n)
		}
		vertices := vertexSet(out)
		if sum.Vertices != int64(len(vertices)) {
			t.Errorf("vertices written %d, want %d (each once)", sum.Vertices, len(vertices))
		}
		outs := sample(out, 20)
		compareAdjacency(t, "out-neighbours", out, neighbours(t, s, "wiki", "vote", outs, false), outs)
		ins := sample(in, 20)
		compareAdjacency(t, "in-neighbours", in, neighbours(t, s, "wiki", "vote", ins, true), ins)
	})

	t.Run("ldbc rf1", func(t *testing.T) {
		cfg, err := LDBCConfig(ldbcDir, presetFor(c, "ldbc", 1, t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		var bar syncBuffer
		sum := mustRun(t, cfg, Options{Progress: &bar})
		if out := bar.String(); !strings.Contains(out, "15601 rows") || !strings.Contains(out, "100%") || strings.Contains(out, "200%") {
			t.Errorf("progress bar output does not end at 100%% with every row: %q", out)
		}
		if sum.Vertices != 1528 || sum.Edges != 2*14073 || sum.Failed != 0 {
			t.Fatalf("summary %+v, want 1528 vertices, %d edges", sum, 2*14073)
		}
		friends, dates := ldbcFriends(t, ldbcDir)
		vids := sample(friends, 15)
		compareAdjacency(t, "knows", friends, neighbours(t, s, "ldbc", "knows", vids, false), vids)
		// Properties: the first person's row and a friendship's date.
		rs := execOK(t, s, "USE ldbc; FETCH PROP ON Person 933 YIELD Person.firstName, Person.lastName, Person.birthday, Person.email")
		if rs.Len() != 1 || rs.Row(0).Value(0) != "Mahinda" || rs.Row(0).Value(1) != "Perera" || rs.Row(0).Value(2) != int64(628646400000) ||
			!strings.HasPrefix(rs.Row(0).Value(3).(string), "Mahinda933@boarderzone.com;") {
			t.Fatalf("Person 933 = %v", rs.Row(0))
		}
		rs = execOK(t, s, fmt.Sprintf("USE ldbc; GO FROM %d OVER knows YIELD dst(edge), knows.creationDate", vids[0]))
		for i := range rs.Len() {
			b := rs.Row(i).Value(0).(int64)
			if got, want := rs.Row(i).Value(1).(int64), dates[[2]int64{vids[0], b}]; got != want {
				t.Errorf("knows %d->%d creationDate %d, want %d", vids[0], b, got, want)
			}
		}
	})

	for _, mode := range []string{"online", "sst"} {
		t.Run("bad rows "+mode, func(t *testing.T) {
			// In SST mode too, where several goroutines map the rows: every
			// good row is in, every bad one is in the failed-rows file.
			dir := t.TempDir()
			space := "rows_" + mode
			execOK(t, s, "CREATE SPACE IF NOT EXISTS "+space+"(partition_num=4, replica_factor=1, vid_type=INT64)")
			execOK(t, s, "USE "+space+"; CREATE TAG IF NOT EXISTS item(name string, qty int, price double NULL)")
			var good []int64
			var b strings.Builder
			b.WriteString("id,name,qty,price\n") // line 1
			bad := map[int]string{               // line → what is wrong
				5:  `qty: column 2: "many" is not an INT64`,
				9:  `vid column 0: "x9" is not an INT64`,
				14: `column 3 missing`,
				20: `property price: column 3: "1.2.3" is not a DOUBLE`,
				25: `vid column 0: "#250" is not an INT64`,          // written back quoted: not a comment
				30: `line 30, column 6: bare " in non-quoted-field`, // written back as it was
			}
			for line := 2; line <= 301; line++ {
				id := int64(line * 10)
				switch line {
				case 5:
					fmt.Fprintf(&b, "%d,n%d,many,1.5\n", id, id)
				case 9:
					fmt.Fprintf(&b, "x9,n%d,1,1.5\n", id)
				case 14:
					fmt.Fprintf(&b, "%d,n%d,1\n", id, id)
				case 20:
					fmt.Fprintf(&b, "%d,n%d,1,1.2.3\n", id, id)
				case 25:
					fmt.Fprintf(&b, "#%d,n%d,1,1.5\n", id, id)
				case 30:
					fmt.Fprintf(&b, "%d,n\"%d,1,1.5\n", id, id)
				default:
					fmt.Fprintf(&b, "%d,n%d,%d,\n", id, id, line)
					good = append(good, id)
				}
			}
			file := filepath.Join(dir, "items.csv")
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			// A second source with no bad row: --retry-failed has no file
			// of it to read, and goes on.
			more := filepath.Join(dir, "more.csv")
			if err := os.WriteFile(more, []byte("5000,m,1,\n5010,m,2,\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			yaml := fmt.Sprintf(`
client: {address: %q, user: root, password: %s}
manager: {spaceName: %s, mode: %s, sstDir: %q, batch: 64, importerConcurrency: 4, failedRowsDir: %q}
sources:
  - path: %q
    csv: {withHeader: true}
    tags:
      - name: item
        id: {type: INT, index: 0}
        props:
          - {name: name, index: 1}
          - {name: qty, index: 2}
          - {name: price, index: 3, nullable: true, nullValue: ""}
  - path: %q
    tags:
      - name: item
        id: {type: INT, index: 0}
        props: [{name: name, index: 1}, {name: qty, index: 2}, {name: price, index: 3, nullable: true, nullValue: ""}]
`, c.Graph.Addr(), testcluster.Password, space, mode, filepath.Join(dir, "sst"), filepath.Join(dir, "failed"), file, more)
			cfg, err := ParseConfig([]byte(yaml))
			if err != nil {
				t.Fatal(err)
			}
			sum := mustRun(t, cfg, Options{})
			if sum.Rows != 302 || sum.Vertices != int64(len(good)+2) || sum.Failed != int64(len(bad)) || len(sum.FailedFiles) != 1 {
				t.Fatalf("summary %+v, want 302 rows, %d vertices, %d failed in one file", sum, len(good)+2, len(bad))
			}
			ids := make([]string, len(good))
			for i, id := range good {
				ids[i] = strconv.FormatInt(id, 10)
			}
			rs := execOK(t, s, "USE "+space+"; FETCH PROP ON item "+strings.Join(ids, ",")+" YIELD item.qty")
			if rs.Len() != len(good) {
				t.Fatalf("FETCH found %d of the %d good rows", rs.Len(), len(good))
			}
			failed, err := os.ReadFile(sum.FailedFiles[0])
			if err != nil {
				t.Fatal(err)
			}
			text := string(failed)
			if !strings.HasPrefix(text, "id,name,qty,price\n") {
				t.Errorf("failed-rows file does not start with the header:\n%s", text)
			}
			for line, why := range bad {
				want := fmt.Sprintf("# %s:%d: ", file, line)
				i := strings.Index(text, want)
				if i < 0 || !strings.Contains(text[i:min(len(text), i+300)], why) {
					t.Errorf("failed-rows file lacks line %d with %q:\n%s", line, why, text)
				}
			}
			// Mend all rows in the failed file but line 20's, and feed it
			// back: line 20 fails again and becomes the failed-rows file.
			failedPath := sum.FailedFiles[0]
			fixed := strings.NewReplacer("many", "7", "x9,", "90,", `"#250"`, "250", `n"300`, "n300").Replace(text)
			fixed = strings.Replace(fixed, ",1\n", ",1,2.5\n", 1)
			if err := os.WriteFile(failedPath, []byte(fixed), 0o644); err != nil {
				t.Fatal(err)
			}
			again := mustRun(t, cfg, Options{RetryFailed: true})
			if again.Rows != 6 || again.Vertices != 5 || again.Failed != 1 || len(again.FailedFiles) != 1 || again.FailedFiles[0] != failedPath {
				t.Fatalf("retry summary %+v, want the 5 mended rows imported and line 20 failed again in %s", again, failedPath)
			}
			rs = execOK(t, s, "USE "+space+"; FETCH PROP ON item 50, 90, 140, 250, 300 YIELD item.qty, item.price")
			if rs.Len() != 5 {
				t.Fatalf("mended rows: FETCH found %d of 5", rs.Len())
			}
			left, err := os.ReadFile(failedPath)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(left), "\n# "); n != 1 || !strings.Contains(string(left), "1.2.3") {
				t.Fatalf("after the retry the failed-rows file holds %d rows, want line 20's alone:\n%s", n, left)
			}
			if _, err := os.Stat(failedPath + ".retried"); err != nil {
				t.Fatalf("the retried file was not kept: %v", err)
			}
			// Mend line 20 too: a second retry reads the file anew.
			if err := os.WriteFile(failedPath, []byte(strings.Replace(string(left), ",1.2.3\n", ",1.5\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			second := mustRun(t, cfg, Options{RetryFailed: true})
			if second.Rows != 1 || second.Vertices != 1 || second.Failed != 0 || len(second.FailedFiles) != 0 {
				t.Fatalf("second retry summary %+v, want line 20 imported", second)
			}
			rs = execOK(t, s, "USE "+space+"; FETCH PROP ON item 200 YIELD item.price")
			if rs.Len() != 1 || rs.Row(0).Value(0) != 1.5 {
				t.Fatalf("line 20 after the second retry: %v", rs)
			}
			if _, err := os.Stat(failedPath); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("every failed row is imported, but %s is still there (%v)", failedPath, err)
			}
			if third := mustRun(t, cfg, Options{RetryFailed: true}); third.Rows != 0 {
				t.Fatalf("a retry with no failed rows left imported %d rows", third.Rows)
			}
		})
	}

	t.Run("sst", func(t *testing.T) {
		// wiki-Vote in SST mode into a replica_factor 3 space: same answers
		// as the file, in- and out-edges, and stored degrees.
		o := presetFor(c, "wikisst", 3, t.TempDir())
		o.Mode, o.SSTDir, o.SSTMemoryMB = "sst", t.TempDir(), 1 // 1 MB: the sort spills runs
		cfg, err := SNAPConfig(wikiVote, "vote", false, o)
		if err != nil {
			t.Fatal(err)
		}
		sum := mustRun(t, cfg, Options{})
		out, in, _ := wikiAdjacency(t, wikiVote)
		if sum.Edges != 103689 || sum.Failed != 0 || sum.Phases == "" {
			t.Fatalf("summary %+v", sum)
		}
		// Each vertex once, although several goroutines map the rows.
		vertices := vertexSet(out)
		if sum.Vertices != int64(len(vertices)) {
			t.Errorf("vertices written %d, want %d (each once)", sum.Vertices, len(vertices))
		}
		outs := sample(out, 20)
		compareAdjacency(t, "sst out-neighbours", out, neighbours(t, s, "wikisst", "vote", outs, false), outs)
		ins := sample(in, 20)
		compareAdjacency(t, "sst in-neighbours", in, neighbours(t, s, "wikisst", "vote", ins, true), ins)
		checkDegrees(t, c, "wikisst", "vote", out, in, append(outs, ins...))

		// A second shard-split SST import into the same space (the space
		// now holds edges, so storaged recounts degrees): importing the
		// same file again as two shards changes nothing.
		for i := range 2 {
			o.Shard = fmt.Sprintf("%d/2", i)
			cfg, err := SNAPConfig(wikiVote, "vote", false, o)
			if err != nil {
				t.Fatal(err)
			}
			sum := mustRun(t, cfg, Options{})
			if sum.OtherShards == 0 || sum.Rows+sum.OtherShards != 103689 {
				t.Fatalf("shard %d: %+v", i, sum)
			}
		}
		compareAdjacency(t, "out-neighbours after shards", out, neighbours(t, s, "wikisst", "vote", outs, false), outs)
		checkDegrees(t, c, "wikisst", "vote", out, in, append(outs, ins...))

		// IngestSST refuses files that are not staged, or whose keys are
		// not all the partition's data, before anything is in the log.
		withStorage(t, c, func(sc *storageclient.Client, meta *metaclient.Client) {
			sp, _ := meta.Catalog().SpaceByName("wikisst")
			start, end := partition.DataRange(sp.GetSpaceId(), 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for _, tc := range []struct {
				f    *storagepb.SSTFile
				want string
			}{
				{&storagepb.SSTFile{Name: "absent.sst", Smallest: start, Largest: start}, "is not staged on this store"},
				{&storagepb.SSTFile{Name: "x.sst", Smallest: start, Largest: end}, "is not within"},
				{&storagepb.SSTFile{Name: "../x.sst", Smallest: start, Largest: start}, "want [A-Za-z0-9._-]"},
			} {
				err := sc.IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: sp.GetSpaceId(), PartId: 1, Files: []*storagepb.SSTFile{tc.f}})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("IngestSST %s: %v, want %q", tc.f.Name, err, tc.want)
				}
			}
		})
	})

	t.Run("sst resumes shipping", func(t *testing.T) {
		// Two partitions fail to ship (a store down past the retries,
		// here a hook): the import fails naming them, keeps its built
		// files, and a rerun of the same import only ships those two.
		o, cfg := sstWithoutRetries(t, c, wikiVote, "wikiresume")
		failing := func(part int32) error {
			if part == 2 || part == 4 {
				return errors.New("injected ship failure")
			}
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err := Run(ctx, cfg, Options{afterUpload: failing})
		if err == nil || !strings.Contains(err.Error(), "2 partition(s) not ingested") || !strings.Contains(err.Error(), "run the same import again") {
			t.Fatalf("first run: %v, want the two failed partitions named with how to finish", err)
		}
		kept, _ := filepath.Glob(filepath.Join(o.SSTDir, "nova-sst-*", manifestName))
		if len(kept) != 1 {
			t.Fatalf("working folders with a manifest after the failed ship: %v", kept)
		}

		var again []int32
		var mu sync.Mutex
		sum := mustRun(t, cfg, Options{afterUpload: func(part int32) error {
			mu.Lock()
			again = append(again, part)
			mu.Unlock()
			return nil
		}})
		slices.Sort(again)
		if !slices.Equal(again, []int32{2, 4}) || !strings.Contains(sum.Phases, "resumed: 2 partition(s)") {
			t.Fatalf("rerun shipped partitions %v (%s), want only 2 and 4", again, sum.Phases)
		}
		if sum.Skipped != 103689 || sum.Rows != 0 || !strings.Contains(sum.Phases, "103689 edges") {
			t.Fatalf("resumed summary %+v, want the first run's rows as done before", sum)
		}
		if left, _ := filepath.Glob(filepath.Join(o.SSTDir, "nova-sst-*")); len(left) != 0 {
			t.Fatalf("working folder left after the import finished: %v", left)
		}
		out, in, _ := wikiAdjacency(t, wikiVote)
		outs := sample(out, 30)
		compareAdjacency(t, "resumed out-neighbours", out, neighbours(t, s, "wikiresume", "vote", outs, false), outs)
		ins := sample(in, 30)
		compareAdjacency(t, "resumed in-neighbours", in, neighbours(t, s, "wikiresume", "vote", ins, true), ins)
		checkDegrees(t, c, "wikiresume", "vote", out, in, append(outs, ins...))
	})

	t.Run("sst resume refuses a damaged file", func(t *testing.T) {
		// The first upload of each file takes its checksum into the
		// manifest; a kept file that reads otherwise on the rerun is
		// refused, named, instead of being ingested under either sum.
		o, cfg := sstWithoutRetries(t, c, wikiVote, "wikidamaged")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err := Run(ctx, cfg, Options{afterUpload: func(part int32) error {
			if part == 2 {
				return errors.New("injected ship failure")
			}
			return nil
		}})
		if err == nil || !strings.Contains(err.Error(), "1 partition(s) not ingested") {
			t.Fatalf("first run: %v, want partition 2 not ingested", err)
		}
		files, _ := filepath.Glob(filepath.Join(o.SSTDir, "nova-sst-*", "*-p2-data.sst"))
		if len(files) != 1 {
			t.Fatalf("partition 2's kept data file: %v", files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0xff
		if err := os.WriteFile(files[0], data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Run(ctx, cfg, Options{})
		if err == nil || !strings.Contains(err.Error(), "changed on disk between uploads") || !strings.Contains(err.Error(), "--restart") {
			t.Fatalf("rerun with a damaged file: %v, want it refused, named, with --restart", err)
		}
	})

	t.Run("sst then a new replica", func(t *testing.T) {
		// A replica added after an SST ingest never had the files: it
		// must catch up by snapshot, not by replaying the ingest entry
		// from the log (which would halt its store), and hold the same
		// data as the replica that ingested.
		o := presetFor(c, "wikisst1", 1, t.TempDir())
		o.Mode, o.SSTDir = "sst", t.TempDir()
		cfg, err := SNAPConfig(wikiVote, "vote", false, o)
		if err != nil {
			t.Fatal(err)
		}
		mustRun(t, cfg, Options{})
		withStorage(t, c, func(sc *storageclient.Client, meta *metaclient.Client) {
			sp, _ := meta.Catalog().SpaceByName("wikisst1")
			sid := sp.GetSpaceId()
			byID := map[uint64]*storaged.Server{}
			for _, st := range c.Stores {
				byID[st.Server.StoreID()] = st.Server
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for part := int32(1); part <= 2; part++ {
				replicas := meta.Catalog().Parts(sid)[part]
				if len(replicas) != 1 {
					t.Fatalf("part %d: replicas %v, want one", part, replicas)
				}
				from := replicas[0]
				var to uint64
				for id := range byID {
					if id != from {
						to = id
						break
					}
				}
				if err := sc.AddReplica(ctx, sid, part, to); err != nil {
					t.Fatalf("part %d: adding store %d: %v", part, to, err)
				}
				deadline := time.Now().Add(30 * time.Second)
				for {
					if err := byID[to].Healthy(); err != nil {
						t.Fatalf("part %d: store %d, the new replica's, stopped: %v", part, to, err)
					}
					want, err1 := byID[from].PartChecksum(sid, part)
					got, err2 := byID[to].PartChecksum(sid, part)
					if err1 == nil && err2 == nil && got == want {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("part %d: the new replica on store %d holds checksum %x (%v), the ingesting one %x (%v)", part, to, got, err2, want, err1)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	})

	t.Run("sst with a replica joining before the ingest", func(t *testing.T) {
		// A store added to a partition between the upload and the ingest
		// lacks the files: every replica must refuse that ingest alike,
		// and the importer upload again and ingest on the new set, so
		// that both replicas hold the data. Without the check, the new
		// replica skipped the ingest the old one applied.
		o := presetFor(c, "wikisst2", 1, t.TempDir())
		o.Mode, o.SSTDir = "sst", t.TempDir()
		cfg, err := SNAPConfig(wikiVote, "vote", false, o)
		if err != nil {
			t.Fatal(err)
		}
		withStorage(t, c, func(sc *storageclient.Client, meta *metaclient.Client) {
			byID := map[uint64]*storaged.Server{}
			for _, st := range c.Stores {
				byID[st.Server.StoreID()] = st.Server
			}
			var once sync.Once
			var sid int32
			var from, to uint64
			joined := false
			hook := func(part int32) error {
				if part != 1 {
					return nil
				}
				once.Do(func() {
					deadline := time.Now().Add(10 * time.Second)
					for {
						if sp, ok := meta.Catalog().SpaceByName("wikisst2"); ok && len(meta.Catalog().Parts(sp.GetSpaceId())[1]) == 1 {
							sid, from = sp.GetSpaceId(), meta.Catalog().Parts(sp.GetSpaceId())[1][0]
							break
						}
						if time.Now().After(deadline) {
							t.Errorf("the space's partition 1 is not in the catalog")
							return
						}
						time.Sleep(20 * time.Millisecond)
					}
					for id := range byID {
						if id != from {
							to = id
							break
						}
					}
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					if err := sc.AddReplica(ctx, sid, 1, to); err != nil {
						t.Errorf("adding store %d to partition 1: %v", to, err)
						return
					}
					joined = true
				})
				return nil
			}
			sum := mustRun(t, cfg, Options{afterUpload: hook})
			if !joined || sum.Failed != 0 {
				t.Fatalf("joined %v, summary %+v", joined, sum)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				want, err1 := byID[from].PartChecksum(sid, 1)
				got, err2 := byID[to].PartChecksum(sid, 1)
				empty, _ := byID[from].PartChecksum(sid, 999)
				if err1 == nil && err2 == nil && got == want && want != empty {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("partition 1: the replica that joined before the ingest (store %d) holds checksum %x (%v), the original (store %d) %x (%v)", to, got, err2, from, want, err1)
				}
				time.Sleep(50 * time.Millisecond)
			}
			for id, srv := range byID {
				if err := srv.Healthy(); err != nil {
					t.Fatalf("store %d: %v", id, err)
				}
			}
		})
	})

	t.Run("sst ldbc index", func(t *testing.T) {
		o := presetFor(c, "ldbcsst", 1, t.TempDir())
		o.Mode, o.SSTDir = "sst", t.TempDir()
		cfg, err := LDBCConfig(ldbcDir, o)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Manager.Hooks.Before[0].Statements = append(cfg.Manager.Hooks.Before[0].Statements,
			"CREATE TAG INDEX IF NOT EXISTS person_first ON Person(firstName(16))")
		sum := mustRun(t, cfg, Options{})
		if sum.Vertices != 1528 || sum.Edges != 2*14073 {
			t.Fatalf("summary %+v", sum)
		}
		want := 0
		readLines(t, filepath.Join(ldbcDir, "person_0_0.csv"), func(line string) {
			if strings.HasPrefix(line, "933|") || strings.Split(line, "|")[1] == "Mahinda" {
				want++
			}
		})
		rs := execOK(t, s, `USE ldbcsst; LOOKUP ON Person WHERE Person.firstName == "Mahinda" YIELD id(vertex) AS v`)
		if rs.Len() != want || want == 0 {
			t.Fatalf("LOOKUP by the index found %d persons named Mahinda, the file has %d", rs.Len(), want)
		}
		// The same import again is refused: the indexed tag holds data.
		_, err = Run(context.Background(), cfg, Options{})
		if err == nil || !strings.Contains(err.Error(), "already holds data of an indexed tag") {
			t.Fatalf("SST import over indexed data: %v", err)
		}
	})

	t.Run("spark and graphar", func(t *testing.T) {
		// What a Spark job writes: a directory of part files (Parquet,
		// with NULLs, and the _SUCCESS marker), and GraphAr chunk folders
		// (vertex chunks whose row index is the vid; an adjacency list).
		dir := t.TempDir()
		spark := filepath.Join(dir, "spark")
		chunks := filepath.Join(dir, "graphar", "vertex", "item", "name")
		adj := filepath.Join(dir, "graphar", "edge", "item_rel_item", "adj_list")
		for _, d := range []string{spark, chunks, adj} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		type sparkRow struct {
			ID    int64    `parquet:"id"`
			Name  string   `parquet:"name"`
			Qty   int64    `parquet:"qty"`
			Price *float64 `parquet:"price,optional"`
		}
		writePQ := func(path string, rows any) {
			t.Helper()
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			switch rs := rows.(type) {
			case []sparkRow:
				w := parquet.NewGenericWriter[sparkRow](f, parquet.Compression(&parquet.Snappy))
				_, err = w.Write(rs)
				if err == nil {
					err = w.Close()
				}
			case []struct {
				Name string `parquet:"name"`
			}:
				w := parquet.NewGenericWriter[struct {
					Name string `parquet:"name"`
				}](f, parquet.Compression(&parquet.Zstd))
				_, err = w.Write(rs)
				if err == nil {
					err = w.Close()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		price := 2.5
		for p := range 3 {
			var rows []sparkRow
			for i := range 50 {
				id := int64(1000 + p*50 + i)
				r := sparkRow{ID: id, Name: fmt.Sprintf("s%d", id), Qty: id % 7}
				if i%2 == 0 {
					r.Price = &price
				}
				rows = append(rows, r)
			}
			writePQ(filepath.Join(spark, fmt.Sprintf("part-%05d-4f1c.snappy.parquet", p)), rows)
		}
		os.WriteFile(filepath.Join(spark, "_SUCCESS"), nil, 0o644)
		// GraphAr: 12 vertex chunks of 10 (chunk10 after chunk9), vids 0..119.
		for c := range 12 {
			var rows []struct {
				Name string `parquet:"name"`
			}
			for i := range 10 {
				rows = append(rows, struct {
					Name string `parquet:"name"`
				}{fmt.Sprintf("g%d", c*10+i)})
			}
			writePQ(filepath.Join(chunks, fmt.Sprintf("chunk%d", c)), rows)
		}
		var edges strings.Builder
		edges.WriteString("_graphar_src_index,_graphar_dst_index\n")
		for i := range 119 {
			fmt.Fprintf(&edges, "%d,%d\n", i, i+1)
		}
		if err := os.MkdirAll(filepath.Join(adj, "part0"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(adj, "part0", "chunk0"), []byte(edges.String()), 0o644)

		execOK(t, s, "CREATE SPACE IF NOT EXISTS lake(partition_num=4, replica_factor=1, vid_type=INT64)")
		execOK(t, s, "USE lake; CREATE TAG IF NOT EXISTS item(name string, qty int NULL, price double NULL); CREATE EDGE IF NOT EXISTS rel()")
		yaml := fmt.Sprintf(`
client: {address: %q, user: root, password: %s}
manager: {spaceName: lake, batch: 32, failedRowsDir: %q}
sources:
  - path: %q
    tags:
      - name: item
        id: {type: INT, index: 0}
        props: [{name: name, index: 1}, {name: qty, index: 2}, {name: price, index: 3, nullable: true}]
  - path: %q
    rowIndexColumn: true
    tags:
      - name: item
        id: {type: INT, index: 1}
        props: [{name: name, index: 0}]
  - path: %q
    csv: {withHeader: true}
    edges:
      - name: rel
        src: {id: {type: INT, index: 0}}
        dst: {id: {type: INT, index: 1}}
`, c.Graph.Addr(), testcluster.Password, filepath.Join(dir, "failed"), spark, chunks, adj)
		cfg, err := ParseConfig([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		sum := mustRun(t, cfg, Options{})
		if sum.Vertices != 150+120 || sum.Edges != 119 || sum.Failed != 0 {
			t.Fatalf("summary %+v, want 270 vertices, 119 edges", sum)
		}
		rs := execOK(t, s, "USE lake; FETCH PROP ON item 1000, 1001, 105, 119 YIELD id(vertex) AS v, item.name AS n, item.price AS p | ORDER BY $-.v")
		want := []string{"105 g105 __NULL__", "119 g119 __NULL__", "1000 s1000 2.5", "1001 s1001 __NULL__"}
		for i := range rs.Len() {
			got := fmt.Sprintf("%v %v %v", rs.Row(i).Value(0), rs.Row(i).Value(1), rs.Row(i).Value(2))
			got = strings.ReplaceAll(got, "<nil>", "__NULL__")
			if i >= len(want) || got != want[i] {
				t.Errorf("row %d = %s, want %v", i, got, want)
			}
		}
		if rs.Len() != len(want) {
			t.Fatalf("FETCH returned %d rows, want %d", rs.Len(), len(want))
		}
		rs = execOK(t, s, "USE lake; GO 3 STEPS FROM 9 OVER rel YIELD dst(edge) AS d")
		if rs.Len() != 1 || rs.Row(0).Value(0) != int64(12) {
			t.Fatalf("GO 3 STEPS FROM chunk0's 9 over the adjacency list: %v", rs.Row(0))
		}
	})

	t.Run("sharded retry", func(t *testing.T) {
		// Each shard's failed-rows file holds that shard's rows; its retry
		// takes all of them, not every other one again.
		dir := t.TempDir()
		execOK(t, s, "CREATE SPACE IF NOT EXISTS shretry(partition_num=2, replica_factor=1, vid_type=INT64)")
		execOK(t, s, "USE shretry; CREATE TAG IF NOT EXISTS p(name string, age int)")
		file := filepath.Join(dir, "p.csv")
		if err := os.WriteFile(file, []byte("11,a,1\n12,b,x1\n13,c,x2\n14,d,4\n15,e,x3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig([]byte(fmt.Sprintf(`
client: {address: %q, user: root, password: %s}
manager: {spaceName: shretry, failedRowsDir: %q}
sources:
  - path: %q
    tags: [{name: p, id: {type: INT, index: 0}, props: [{name: name, index: 1}, {name: age, index: 2}]}]
`, c.Graph.Addr(), testcluster.Password, filepath.Join(dir, "failed"), file)))
		if err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, shard := range []string{"0/2", "1/2"} {
			cfg.Manager.Shard = shard
			sum := mustRun(t, cfg, Options{})
			failed = append(failed, sum.FailedFiles...)
		}
		if len(failed) != 2 {
			t.Fatalf("failed-rows files %v, want one per shard", failed)
		}
		for _, f := range failed {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(strings.NewReplacer(",x1\n", ",2\n", ",x2\n", ",3\n", ",x3\n", ",5\n").Replace(string(b))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, shard := range []string{"0/2", "1/2"} {
			cfg.Manager.Shard = shard
			if sum := mustRun(t, cfg, Options{RetryFailed: true}); sum.Failed != 0 || sum.OtherShards != 0 {
				t.Fatalf("retry of shard %s: %+v", shard, sum)
			}
		}
		rs := execOK(t, s, "USE shretry; FETCH PROP ON p 11, 12, 13, 14, 15 YIELD p.age")
		if rs.Len() != 5 {
			t.Fatalf("after both shards' retries FETCH finds %d of 5 rows", rs.Len())
		}
	})

	t.Run("misspelled tag", func(t *testing.T) {
		// Without before-hooks nothing is about to create the schema: a
		// name not in the catalog is an error after a short wait.
		execOK(t, s, "CREATE SPACE IF NOT EXISTS typo(partition_num=2, replica_factor=1, vid_type=INT64)")
		execOK(t, s, "USE typo; CREATE TAG IF NOT EXISTS item(name string)")
		file := filepath.Join(t.TempDir(), "x.csv")
		if err := os.WriteFile(file, []byte("1,a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig([]byte(fmt.Sprintf(`
client: {address: %q, user: root, password: %s}
manager: {spaceName: typo, failedRowsDir: %q}
sources:
  - path: %q
    tags: [{name: itme, id: {index: 0}, props: [{name: name, index: 1}]}]
`, c.Graph.Addr(), testcluster.Password, t.TempDir(), file)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), cfg, Options{})
		if err == nil || !strings.Contains(err.Error(), `tag "itme" in space "typo" does not exist (waited 3s for the catalog)`) {
			t.Fatalf("import with a misspelled tag: %v", err)
		}
	})

	t.Run("resume", func(t *testing.T) {
		dir := t.TempDir()
		cfg, err := LDBCConfig(ldbcDir, presetFor(c, "ldbc2", 1, dir))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Manager.Batch, cfg.Manager.ImporterConcurrency, cfg.Manager.ReaderConcurrency = 500, 2, 1
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var rounds atomic.Int64
		_, err = Run(ctx, cfg, Options{afterRound: func() {
			if rounds.Add(1) == 8 {
				cancel()
			}
		}})
		if err == nil {
			t.Fatal("the interrupted import reported success")
		}
		sum := mustRun(t, cfg, Options{})
		if sum.Skipped < 500 {
			t.Fatalf("resumed run skipped %d rows, want at least a round's", sum.Skipped)
		}
		if sum.Rows+sum.Skipped < 1528+14073 {
			t.Fatalf("resumed run: %d rows + %d skipped, want all %d", sum.Rows, sum.Skipped, 1528+14073)
		}
		friends, _ := ldbcFriends(t, ldbcDir)
		vids := sample(friends, 7)
		compareAdjacency(t, "knows after resume", friends, neighbours(t, s, "ldbc2", "knows", vids, false), vids)
		// A third run finds everything done.
		third := mustRun(t, cfg, Options{})
		if third.Rows != 0 {
			t.Fatalf("a run after completion imported %d rows again", third.Rows)
		}
		// The checkpoint is of that space as it was created: into the
		// space dropped and made again, the same import reads everything.
		execOK(t, s, "DROP SPACE ldbc2")
		fourth := mustRun(t, cfg, Options{})
		if fourth.Rows != 1528+14073 || fourth.Skipped != 0 {
			t.Fatalf("the import into the recreated space: %d rows, %d skipped; want all %d and none", fourth.Rows, fourth.Skipped, 1528+14073)
		}
		compareAdjacency(t, "knows in the recreated space", friends, neighbours(t, s, "ldbc2", "knows", vids, false), vids)
	})
}

// withStorage runs fn with a storage client of c.
func withStorage(t *testing.T, c *testcluster.Cluster, fn func(*storageclient.Client, *metaclient.Client)) {
	t.Helper()
	meta := metaclient.New(c.MetaAddrs(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer meta.Close()
	sc := storageclient.New(meta, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer sc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(meta.Catalog().Spaces()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	fn(sc, meta)
}

// checkDegrees compares storaged's stored out- and in-degrees of vids
// with the file's.
func checkDegrees(t *testing.T, c *testcluster.Cluster, space, edge string, out, in map[int64][]int64, vids []int64) {
	t.Helper()
	withStorage(t, c, func(sc *storageclient.Client, meta *metaclient.Client) {
		checkDegreesWith(t, sc, meta, space, edge, out, in, vids)
	})
}

func checkDegreesWith(t *testing.T, sc *storageclient.Client, meta *metaclient.Client, space, edge string, out, in map[int64][]int64, vids []int64) {
	t.Helper()
	var sp *metapb.SpaceDesc
	var et int32
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap := meta.Catalog()
		if d, ok := snap.SpaceByName(space); ok {
			if e, ok := snap.EdgeByName(d.GetSpaceId(), edge); ok {
				sp, et = d, e.GetEdgeType()
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("space %s not in the catalog", space)
		}
		time.Sleep(50 * time.Millisecond)
	}
	parts := map[int32]*storagepb.VidList{}
	for _, v := range vids {
		vid := partition.EncodeInt64Vid(v)
		p := partition.PartOf(vid, partition.VidType(sp.GetVidType()), sp.GetPartitionNum())
		if parts[p] == nil {
			parts[p] = &storagepb.VidList{}
		}
		parts[p].Vids = append(parts[p].Vids, vid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := sc.GetNeighborsStream(ctx, &storagepb.GetNeighborsReq{SpaceId: sp.GetSpaceId(), EdgeTypes: []int32{et, -et},
		WithDegree: true, CountOnly: true}, parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(vids) {
		t.Fatalf("degrees of %d vertices, asked %d", len(got), len(vids))
	}
	for _, vn := range got {
		v, _ := partition.DecodeInt64Vid(vn.Vid)
		if len(vn.Degrees) != 2 || vn.Degrees[0] != int64(len(out[v])) || vn.Degrees[1] != int64(len(in[v])) {
			t.Fatalf("vertex %d: stored degrees %v, the file has out %d, in %d", v, vn.Degrees, len(out[v]), len(in[v]))
		}
	}
}

// ldbcFriends reads knows as undirected: each person's friends, and each
// directed pair's creationDate.
func ldbcFriends(t *testing.T, dir string) (map[int64][]int64, map[[2]int64]int64) {
	t.Helper()
	friends := map[int64][]int64{}
	dates := map[[2]int64]int64{}
	readLines(t, filepath.Join(dir, "person_knows_person_0_0.csv"), func(line string) {
		f := strings.Split(line, "|")
		if f[0] == "Person.id" {
			return
		}
		a, _ := strconv.ParseInt(f[0], 10, 64)
		b, _ := strconv.ParseInt(f[1], 10, 64)
		d, _ := strconv.ParseInt(f[2], 10, 64)
		friends[a] = append(friends[a], b)
		friends[b] = append(friends[b], a)
		dates[[2]int64{a, b}], dates[[2]int64{b, a}] = d, d
	})
	return friends, dates
}

// syncBuffer is a bytes.Buffer safe for the progress bar's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func readLines(t *testing.T, path string, fn func(string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := strings.TrimRight(sc.Text(), "\r"); line != "" {
			fn(line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// vertexSet is every vertex an adjacency list names, as a source or a
// destination.
func vertexSet(out map[int64][]int64) map[int64]bool {
	vertices := map[int64]bool{}
	for k, vs := range out {
		vertices[k] = true
		for _, v := range vs {
			vertices[v] = true
		}
	}
	return vertices
}

// wikiAdjacency reads an edge list such as wiki-Vote's (src,dst lines):
// the out- and in-neighbours of every vertex, and the number of edges.
func wikiAdjacency(t *testing.T, path string) (out, in map[int64][]int64, n int) {
	t.Helper()
	out, in = map[int64][]int64{}, map[int64][]int64{}
	readLines(t, path, func(line string) {
		a, b, _ := strings.Cut(line, ",")
		x, _ := strconv.ParseInt(a, 10, 64)
		y, _ := strconv.ParseInt(b, 10, 64)
		out[x] = append(out[x], y)
		in[y] = append(in[y], x)
		n++
	})
	return out, in, n
}
