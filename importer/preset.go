package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// PresetOptions are the flags shared by the --ldbc and --snap presets.
type PresetOptions struct {
	Space          string
	Partitions     int
	Replicas       int
	Addr           string
	User           string
	Password       string
	MetaAddrs      []string
	Mode           string
	Batch          int
	Concurrency    int
	FailedDir      string
	SSTDir         string
	SSTMemoryMB    int
	SSTCompression string
	Shard          string
}

func (o PresetOptions) base(schema []string) *Config {
	cfg := &Config{
		Client: ClientConfig{Address: o.Addr, User: o.User, Password: o.Password, MetaAddr: o.MetaAddrs},
		Manager: ManagerConfig{
			SpaceName: o.Space, Batch: o.Batch, ImporterConcurrency: o.Concurrency, Mode: o.Mode,
			FailedRowsDir: o.FailedDir, ReaderConcurrency: 2,
			SSTDir: o.SSTDir, SSTMemoryMB: o.SSTMemoryMB, SSTCompression: o.SSTCompression, Shard: o.Shard,
		},
	}
	stmts := []string{
		fmt.Sprintf("CREATE SPACE IF NOT EXISTS `%s`(partition_num=%d, replica_factor=%d, vid_type=INT64)", o.Space, max(o.Partitions, 1), max(o.Replicas, 1)),
		fmt.Sprintf("USE `%s`", o.Space),
	}
	cfg.Manager.Hooks.Before = []HookStatements{{Statements: append(stmts, schema...)}}
	return cfg
}

// LDBCSchema is the schema the --ldbc preset creates: LDBC SNB's Person
// with every column of person_0_0.csv (dates as epoch milliseconds, as the
// CsvComposite export writes them), and knows with its creationDate.
var LDBCSchema = []string{
	"CREATE TAG IF NOT EXISTS Person(firstName string, lastName string, gender string, birthday int, creationDate int, " +
		"locationIP string, browserUsed string, language string, email string)",
	"CREATE EDGE IF NOT EXISTS knows(creationDate int)",
}

var (
	ldbcPersonFile = regexp.MustCompile(`^person_\d+_\d+\.csv(\.gz)?$`)
	ldbcKnowsFile  = regexp.MustCompile(`^person_knows_person_\d+_\d+\.csv(\.gz)?$`)
)

// LDBCConfig is the --ldbc preset: every person_<i>_<j>.csv of an LDBC SNB
// CsvComposite folder as Person vertices, and every
// person_knows_person_<i>_<j>.csv as knows edges in both directions (LDBC
// lists each friendship once; k-hop over knows treats it as undirected).
func LDBCConfig(dir string, o PresetOptions) (*Config, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--ldbc: %w", err)
	}
	var persons, knows []string
	for _, e := range entries {
		switch {
		case ldbcPersonFile.MatchString(e.Name()):
			persons = append(persons, filepath.Join(dir, e.Name()))
		case ldbcKnowsFile.MatchString(e.Name()):
			knows = append(knows, filepath.Join(dir, e.Name()))
		}
	}
	if len(persons) == 0 || len(knows) == 0 {
		return nil, fmt.Errorf("--ldbc %s: want person_<i>_<j>.csv and person_knows_person_<i>_<j>.csv files (LDBC CsvComposite), found %d and %d", dir, len(persons), len(knows))
	}
	sort.Strings(persons)
	sort.Strings(knows)
	cfg := o.base(LDBCSchema)
	csv := &CSVOptions{Delimiter: "|", WithHeader: true}
	props := []PropSpec{
		{Name: "firstName", Index: 1}, {Name: "lastName", Index: 2}, {Name: "gender", Index: 3},
		{Name: "birthday", Index: 4}, {Name: "creationDate", Index: 5}, {Name: "locationIP", Index: 6},
		{Name: "browserUsed", Index: 7}, {Name: "language", Index: 8}, {Name: "email", Index: 9},
	}
	for _, p := range persons {
		cfg.Sources = append(cfg.Sources, Source{Path: p, CSV: csv,
			Tags: []TagSpec{{Name: "Person", ID: IDSpec{Type: "INT", Index: intp(0)}, Props: props}}})
	}
	date := []PropSpec{{Name: "creationDate", Index: 2}}
	for _, k := range knows {
		cfg.Sources = append(cfg.Sources, Source{Path: k, CSV: csv, Edges: []EdgeSpec{
			{Name: "knows", Src: EndSpec{IDSpec{Type: "INT", Index: intp(0)}}, Dst: EndSpec{IDSpec{Type: "INT", Index: intp(1)}}, Props: date},
			{Name: "knows", Src: EndSpec{IDSpec{Type: "INT", Index: intp(1)}}, Dst: EndSpec{IDSpec{Type: "INT", Index: intp(0)}}, Props: date},
		}})
	}
	cfg.setDefaults()
	return cfg, cfg.Validate()
}

// SNAPConfig is the --snap preset: a SNAP edge list (plain or .gz; '#'
// comments; whitespace-separated src dst, or comma-separated in a .csv) as edges of type edge between
// vertices with tag node, each vertex written once. header skips a first
// line that is not an edge (email-Enron's "36692 367662" counts line).
func SNAPConfig(file, edge string, header bool, o PresetOptions) (*Config, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("--snap: %w", err)
	}
	if edge == "" {
		edge = "link"
	}
	if strings.ContainsAny(edge, "`") {
		return nil, fmt.Errorf("--edge %q: not a valid name", edge)
	}
	cfg := o.base([]string{
		"CREATE TAG IF NOT EXISTS node()",
		fmt.Sprintf("CREATE EDGE IF NOT EXISTS `%s`()", edge),
	})
	id := func(i int) IDSpec { return IDSpec{Type: "INT", Index: intp(i)} }
	format, delim := "snap", ""
	if name := strings.TrimSuffix(strings.ToLower(file), ".gz"); strings.HasSuffix(name, ".csv") {
		format, delim = "csv", "," // the kuzu copies of SNAP graphs: src,dst
	}
	cfg.Sources = []Source{{
		Path: file, Format: format, CSV: &CSVOptions{WithHeader: header, Delimiter: delim},
		Tags:           []TagSpec{{Name: "node", ID: id(0)}, {Name: "node", ID: id(1)}},
		Edges:          []EdgeSpec{{Name: edge, Src: EndSpec{id(0)}, Dst: EndSpec{id(1)}}},
		dedupeVertices: true,
	}}
	cfg.setDefaults()
	return cfg, cfg.Validate()
}

func intp(i int) *int { return &i }
