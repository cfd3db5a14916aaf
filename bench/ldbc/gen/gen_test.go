package gen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		sf             float64
		persons, knows int64
	}{
		{0.1, 1_528, 14_073},
		{1, 9_892, 180_623},
		{3, 27_000, 704_246},
		{10, 73_000, 2_431_407},
		{30, 184_000, 7_514_541},
		{100, 499_000, 24_842_767},
		{300, 1_254_000, 73_448_777},
		{1000, 3_600_000, 245_296_255},
	} {
		p, k, err := Sizes(c.sf)
		if err != nil || p != c.persons || k != c.knows {
			t.Errorf("Sizes(%g) = %d, %d, %v; want %d, %d", c.sf, p, k, err, c.persons, c.knows)
		}
	}

	// Interpolation: monotone on a fine log grid, strictly between neighbours.
	var lastP, lastK int64
	for e := -1.0; e <= 3.0001; e += 0.01 {
		sf := math.Min(math.Pow(10, e), 1000)
		p, k, err := Sizes(sf)
		if err != nil {
			t.Fatalf("Sizes(%g): %v", sf, err)
		}
		if p < lastP || k < lastK {
			t.Fatalf("Sizes(%g) = %d, %d: not monotone after %d, %d", sf, p, k, lastP, lastK)
		}
		lastP, lastK = p, k
	}
	if p, k, _ := Sizes(5); p <= 27_000 || p >= 73_000 || k <= 704_246 || k >= 2_431_407 {
		t.Errorf("Sizes(5) = %d, %d: not between SF3 and SF10", p, k)
	}

	for _, sf := range []float64{0.09, 0, -1, 1000.5, 1e6, math.NaN(), math.Inf(1)} {
		if _, _, err := Sizes(sf); err == nil || !strings.Contains(err.Error(), "[0.1, 1000]") {
			t.Errorf("Sizes(%g) error = %v; want one naming the range [0.1, 1000]", sf, err)
		}
	}
}

func TestPersonID(t *testing.T) {
	last := int64(0)
	for i := int64(0); i < 20_000; i++ {
		id := PersonID(i)
		if id <= last {
			t.Fatalf("PersonID(%d) = %d, not > PersonID(%d) = %d", i, id, i-1, last)
		}
		if j, ok := PersonIndex(id); !ok || j != i {
			t.Fatalf("PersonIndex(PersonID(%d)) = %d, %v", i, j, ok)
		}
		if _, ok := PersonIndex(id + 1); ok && PersonID(i+1) != id+1 {
			t.Fatalf("PersonIndex(%d) accepted a non-id", id+1)
		}
		last = id
	}
	if PersonID(4096) <= math.MaxUint32 {
		t.Errorf("PersonID(4096) = %d, want > 2^32", PersonID(4096))
	}
}

// generate runs Generate into a fresh temp dir and returns the dir and stats.
func generate(t testing.TB, cfg Config) (string, Stats) {
	t.Helper()
	cfg.OutDir = t.TempDir()
	st, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return cfg.OutDir, st
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterminism(t *testing.T) {
	cfg := Config{ScaleFactor: 0.1, Seed: 7}
	d1, st1 := generate(t, cfg)
	d2, st2 := generate(t, cfg)
	if st1 != st2 {
		t.Errorf("stats differ: %+v vs %+v", st1, st2)
	}
	for _, f := range []string{"person_0_0.csv", "person_knows_person_0_0.csv"} {
		if !bytes.Equal(readFile(t, filepath.Join(d1, f)), readFile(t, filepath.Join(d2, f))) {
			t.Errorf("%s differs between two runs with the same seed", f)
		}
	}
	d3, _ := generate(t, Config{ScaleFactor: 0.1, Seed: 8})
	if bytes.Equal(readFile(t, filepath.Join(d1, "person_knows_person_0_0.csv")),
		readFile(t, filepath.Join(d3, "person_knows_person_0_0.csv"))) {
		t.Error("seeds 7 and 8 gave the same knows file")
	}

	// Shards: the union of 3 shards is the unsharded output, as a multiset of
	// rows, and each shard file is in order.
	const shards = 3
	for _, base := range []string{"person", "person_knows_person"} {
		want := dataLines(readFile(t, filepath.Join(d1, base+"_0_0.csv")))
		var got []string
		for s := 0; s < shards; s++ {
			c := cfg
			c.Shard, c.Shards = s, shards
			d, _ := generate(t, c)
			got = append(got, dataLines(readFile(t, filepath.Join(d, fmt.Sprintf("%s_%d_0.csv", base, s))))...)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("%s: union of %d shards (%d rows) != unsharded output (%d rows)", base, shards, len(got), len(want))
		}
	}
}

// dataLines returns the lines of a CSV file after the header.
func dataLines(b []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return lines[1:]
}

func TestStreamsMatchFiles(t *testing.T) {
	cfg := Config{ScaleFactor: 0.1, Seed: 3, Shard: 1, Shards: 2}
	dir, st := generate(t, cfg)
	var persons []string
	err := Persons(cfg, func(p Person) error {
		persons = append(persons, fmt.Sprintf("%d|%s|%s|%s|%d|%d|%s|%s|%s|%s", p.ID, p.FirstName, p.LastName,
			p.Gender, p.Birthday, p.CreationDate, p.LocationIP, p.BrowserUsed, p.Language, p.Email))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := dataLines(readFile(t, filepath.Join(dir, "person_1_0.csv"))); !slices.Equal(persons, want) {
		t.Errorf("Persons stream (%d rows) != person_1_0.csv (%d rows)", len(persons), len(want))
	}
	var knows []string
	err = Knows(cfg, func(k KnowsRow) error {
		knows = append(knows, fmt.Sprintf("%d|%d|%d", k.Src, k.Dst, k.CreationDate))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := dataLines(readFile(t, filepath.Join(dir, "person_knows_person_1_0.csv"))); !slices.Equal(knows, want) {
		t.Errorf("Knows stream (%d rows) != person_knows_person_1_0.csv (%d rows)", len(knows), len(want))
	}
	if st.Persons != int64(len(persons)) || st.Knows != int64(len(knows)) {
		t.Errorf("stats %+v; files have %d persons, %d knows", st, len(persons), len(knows))
	}

	stop := errors.New("stop")
	n := 0
	if err := Knows(cfg, func(KnowsRow) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Knows with failing fn: err %v after %d rows; want stop after 1", err, n)
	}
}

// sharedData finds ../shared/data/ldbc-sf0.1 relative to the repository root
// (the directory with go.mod), walking up from the package directory.
func sharedData(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, "shared", "data", "ldbc-sf0.1")); err == nil && fi.IsDir() {
			return filepath.Join(dir, "shared", "data", "ldbc-sf0.1")
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "data", "ldbc-sf0.1")
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return p
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("../shared/data/ldbc-sf0.1 absent: no shared/data/ldbc-sf0.1 above the package or next to the repository root")
		}
		dir = parent
	}
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}

func TestHeadersMatchLDBC(t *testing.T) {
	real := sharedData(t)
	dir, _ := generate(t, Config{ScaleFactor: 0.1, Seed: 1})
	for _, f := range []string{"person_0_0.csv", "person_knows_person_0_0.csv"} {
		want := firstLine(t, filepath.Join(real, f))
		if got := firstLine(t, filepath.Join(dir, f)); got != want {
			t.Errorf("%s header = %q; LDBC's is %q", f, got, want)
		}
	}
	if PersonHeader != firstLine(t, filepath.Join(real, "person_0_0.csv")) ||
		KnowsHeader != firstLine(t, filepath.Join(real, "person_knows_person_0_0.csv")) {
		t.Error("PersonHeader/KnowsHeader differ from LDBC's headers")
	}

	// Every value of the real files matches the same per-column patterns as
	// ours, so the patterns describe LDBC's formats, not just our own.
	personRE := regexp.MustCompile(`^[1-9][0-9]*\|[^|;]+\|[^|;]+\|(male|female)\|[0-9]+\|[0-9]{13}\|` +
		`[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\|(Firefox|Chrome|Internet Explorer|Safari|Opera)\|` +
		`[a-z]{2}(;[a-z]{2})*\|[^|@;]+@[a-z0-9.-]+(;[^|@;]+@[a-z0-9.-]+)*$`)
	knowsRE := regexp.MustCompile(`^[1-9][0-9]*\|[1-9][0-9]*\|[0-9]{13}$`)
	for _, d := range []string{real, dir} {
		for _, l := range dataLines(readFile(t, filepath.Join(d, "person_0_0.csv"))) {
			if !personRE.MatchString(l) {
				t.Fatalf("%s: person row %q does not match the LDBC format", d, l)
			}
		}
		for _, l := range dataLines(readFile(t, filepath.Join(d, "person_knows_person_0_0.csv"))) {
			if !knowsRE.MatchString(l) {
				t.Fatalf("%s: knows row %q does not match the LDBC format", d, l)
			}
		}
	}
}

func TestGraph(t *testing.T) {
	for _, sf := range []float64{0.1, 1} {
		t.Run(fmt.Sprintf("sf%g", sf), func(t *testing.T) { checkGraph(t, sf, 42) })
	}
}

var emailRE = regexp.MustCompile(`^([^@]+)@[a-z0-9.-]+$`)

func checkGraph(t *testing.T, sf float64, seed int64) {
	wantPersons, wantKnows, err := Sizes(sf)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{ScaleFactor: sf, Seed: seed}
	created := make(map[int64]int64, wantPersons)
	firstNames := map[string]int{}
	lastID := int64(0)
	err = Persons(cfg, func(p Person) error {
		if p.ID <= lastID {
			return fmt.Errorf("person id %d after %d: not increasing", p.ID, lastID)
		}
		lastID = p.ID
		created[p.ID] = p.CreationDate
		firstNames[p.FirstName]++
		switch {
		case p.Gender != "male" && p.Gender != "female":
			return fmt.Errorf("person %d: gender %q", p.ID, p.Gender)
		case p.Birthday < birthStart || p.Birthday >= birthEnd || p.Birthday%msPerDay != 0:
			return fmt.Errorf("person %d: birthday %d not a day in 1980-1989", p.ID, p.Birthday)
		case p.CreationDate < simStart || p.CreationDate >= simEnd:
			return fmt.Errorf("person %d: creationDate %d outside 2010-2012", p.ID, p.CreationDate)
		}
		emails := strings.Split(p.Email, ";")
		if len(emails) < 1 || len(emails) > 3 {
			return fmt.Errorf("person %d: %d emails", p.ID, len(emails))
		}
		local := strings.ReplaceAll(p.FirstName, " ", ".") + strconv.FormatInt(p.ID, 10)
		for _, e := range emails {
			if m := emailRE.FindStringSubmatch(e); m == nil || m[1] != local {
				return fmt.Errorf("person %d: email %q, want %s@domain", p.ID, e, local)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(created)) != wantPersons {
		t.Fatalf("%d persons, want exactly %d", len(created), wantPersons)
	}

	// First names are skewed: the most frequent is far above the typical one.
	counts := make([]int, 0, len(firstNames))
	for _, c := range firstNames {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	if top, med, low := counts[len(counts)-1], counts[len(counts)/2], counts[0]; top < 4*med || top < 10*low || len(counts) < 40 {
		t.Errorf("first names: %d distinct, counts top %d, median %d, min %d; want ≥ 40 names, top ≥ 4× median and ≥ 10× min",
			len(counts), top, med, low)
	}

	type pair struct{ a, b int64 }
	seen := make(map[pair]struct{}, wantKnows)
	degree := make(map[int64]int, wantPersons)
	var rows, lastSrc int64
	err = Knows(cfg, func(k KnowsRow) error {
		rows++
		cs, okS := created[k.Src]
		cd, okD := created[k.Dst]
		switch {
		case !okS || !okD:
			return fmt.Errorf("row %+v: endpoint is not a generated person", k)
		case k.Src == k.Dst:
			return fmt.Errorf("row %+v: self-loop", k)
		case k.Src > k.Dst:
			return fmt.Errorf("row %+v: first id is not the smaller", k)
		case k.Src < lastSrc:
			return fmt.Errorf("row %+v after src %d: not in order of the first person", k, lastSrc)
		case k.CreationDate < cs || k.CreationDate < cd || k.CreationDate >= simEnd:
			return fmt.Errorf("row %+v: date not after both persons' (%d, %d) and before 2013", k, cs, cd)
		}
		lastSrc = k.Src
		p := pair{min(k.Src, k.Dst), max(k.Src, k.Dst)}
		if _, dup := seen[p]; dup {
			return fmt.Errorf("row %+v: duplicate pair", k)
		}
		seen[p] = struct{}{}
		degree[k.Src]++
		degree[k.Dst]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dev := float64(rows-wantKnows) / float64(wantKnows); math.Abs(dev) > 0.02 {
		t.Errorf("%d knows rows, want %d ± 2%% (off by %.2f%%)", rows, wantKnows, 100*dev)
	}
	maxDeg, sum := 0, 0
	for _, d := range degree {
		maxDeg = max(maxDeg, d)
		sum += d
	}
	mean := float64(sum) / float64(wantPersons)
	wantMean := 2 * float64(wantKnows) / float64(wantPersons)
	if math.Abs(mean-wantMean) > 0.05*wantMean {
		t.Errorf("mean degree %.2f, want %.2f ± 5%%", mean, wantMean)
	}
	if float64(maxDeg) <= 4*mean || float64(maxDeg) >= 100*mean {
		t.Errorf("max degree %d = %.1f× mean %.1f; want a heavy but bounded tail (4×–100×)", maxDeg, float64(maxDeg)/mean, mean)
	}
	t.Logf("sf %g: %d persons, %d knows (%+.2f%%), mean degree %.1f, max %d (%.1f×)",
		cfg.ScaleFactor, len(created), rows, 100*float64(rows-wantKnows)/float64(wantKnows), mean, maxDeg, float64(maxDeg)/mean)
}

func TestGzip(t *testing.T) {
	plain, _ := generate(t, Config{ScaleFactor: 0.1, Seed: 5})
	gz, st := generate(t, Config{ScaleFactor: 0.1, Seed: 5, Gzip: true})
	var size int64
	for _, base := range []string{"person_0_0", "person_knows_person_0_0"} {
		f, err := os.Open(filepath.Join(gz, base+".csv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		size += fi.Size()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, readFile(t, filepath.Join(plain, base+".csv"))) {
			t.Errorf("%s.csv.gz does not decompress to %s.csv", base, base)
		}
	}
	if st.Bytes != size {
		t.Errorf("Stats.Bytes %d, files have %d bytes", st.Bytes, size)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := Generate(ctx, Config{ScaleFactor: 0.1, OutDir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("Generate with a cancelled ctx: %v, want context.Canceled", err)
	}

	// Cancel while generating SF10 (seconds of work): prompt return, the ctx
	// error, and no files (final or temporary) left behind.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := Generate(ctx, Config{ScaleFactor: 10, OutDir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Generate cancelled midway: %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Generate took %v to notice the cancellation", el)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after cancellation: %v", left)
	}

	deadline, stop := context.WithTimeout(context.Background(), time.Nanosecond)
	defer stop()
	<-deadline.Done()
	if _, err := Generate(deadline, Config{ScaleFactor: 0.1, OutDir: dir}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Generate past its deadline: %v, want context.DeadlineExceeded", err)
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, cfg := range []Config{
		{ScaleFactor: 0.01, OutDir: dir},
		{ScaleFactor: 1, OutDir: ""},
		{ScaleFactor: 1, OutDir: dir, Shard: 3, Shards: 2},
		{ScaleFactor: 1, OutDir: dir, Shard: -1, Shards: 2},
		{ScaleFactor: 1, OutDir: dir, Shard: 1},
		{ScaleFactor: 1, OutDir: dir, Shards: -2},
	} {
		if _, err := Generate(context.Background(), cfg); err == nil {
			t.Errorf("Generate(%+v): no error", cfg)
		}
	}
	if err := Persons(Config{ScaleFactor: 2000}, func(Person) error { return nil }); err == nil {
		t.Error("Persons at SF2000: no error")
	}
}

// BenchmarkGenerate writes SF1 (9,892 persons, ~180K knows rows) to a temp
// dir per iteration.
func BenchmarkGenerate(b *testing.B) {
	dir := b.TempDir()
	var rows, bytes int64
	for b.Loop() {
		st, err := Generate(context.Background(), Config{ScaleFactor: 1, Seed: 42, OutDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		rows += st.Persons + st.Knows
		bytes += st.Bytes
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(bytes)/1e6/b.Elapsed().Seconds(), "MB/s")
}
