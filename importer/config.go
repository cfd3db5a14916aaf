package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/internal/rocksopts"
)

// Config is an import, in the shape of nebula-importer v4's YAML (client,
// manager, log, sources with tags and edges), plus novagraph's own manager
// keys (mode, failedRowsDir, checkpoint). Field names are v4's, so a v4
// config that uses only what is described here loads unchanged.
type Config struct {
	Client  ClientConfig  `yaml:"client"`
	Manager ManagerConfig `yaml:"manager"`
	Log     LogConfig     `yaml:"log"`
	Sources []Source      `yaml:"sources"`
}

// ClientConfig says how to reach the cluster. The importer signs in to a
// graphd (to run DDL hooks and to learn where metad is: SHOW HOSTS META),
// then writes straight to the partition leaders through metad's catalog.
type ClientConfig struct {
	Version  string   `yaml:"version"` // accepted for v4 compatibility ("v3"); ignored
	Address  string   `yaml:"address"` // graphd address(es), comma-separated
	User     string   `yaml:"user"`
	Password string   `yaml:"password"`
	MetaAddr []string `yaml:"metaAddrs"` // optional: metad addresses, instead of asking graphd
	// TLS is the importer's certificate (role importer) and CAs, for
	// graphd, metad and storaged alike: nova-importer sets it from its
	// --tls-* flags; it is no YAML key. nil: plaintext.
	TLS *nodetls.Config `yaml:"-"`

	// v4's client keys. Writes go to storaged, not through a pool of graphd
	// sessions, so concurrencyPerAddress and reconnectInitialInterval mean
	// nothing here and are ignored; retry and retryInitialInterval become
	// manager.retry (unless that is set) and the first retry's backoff.
	ConcurrencyPerAddress    int           `yaml:"concurrencyPerAddress"`
	ReconnectInitialInterval time.Duration `yaml:"reconnectInitialInterval"`
	Retry                    int           `yaml:"retry"`
	RetryInitialInterval     time.Duration `yaml:"retryInitialInterval"`
	SSL                      *SSLConfig    `yaml:"ssl"`
}

// SSLConfig is v4's client.ssl. novagraph's servers speak plain gRPC, so
// only enable: false is accepted.
type SSLConfig struct {
	Enable             bool   `yaml:"enable"`
	CertPath           string `yaml:"certPath"`
	KeyPath            string `yaml:"keyPath"`
	CAPath             string `yaml:"caPath"`
	InsecureSkipVerify bool   `yaml:"insecureSkipVerify"`
}

// ManagerConfig controls the import as a whole.
type ManagerConfig struct {
	SpaceName string `yaml:"spaceName"`
	// Batch is how many source rows go into one write round; their
	// vertices and edges are grouped by partition, one request each.
	Batch int `yaml:"batch"`
	// ImporterConcurrency is how many write rounds are in flight at once.
	ImporterConcurrency int `yaml:"importerConcurrency"`
	// ReaderConcurrency is how many sources are read at once.
	ReaderConcurrency int           `yaml:"readerConcurrency"`
	StatsInterval     time.Duration `yaml:"statsInterval"`
	// Retry is how many times a partition request that failed after the
	// storage client's own leader-chasing is sent again, with backoff.
	Retry int   `yaml:"retry"`
	Hooks Hooks `yaml:"hooks"`
	// Mode is online (writes to partition leaders) or sst.
	Mode string `yaml:"mode"`
	// FailedRowsDir receives, per source, the rows that could not be
	// imported, in the source's own format, each after a comment line
	// with its file, line and reason; feed them back with --retry-failed.
	FailedRowsDir string `yaml:"failedRowsDir"`
	// Checkpoint is the file recording how far each source got, so an
	// interrupted import resumes; "" = <failedRowsDir>/checkpoint.json.
	// Online mode only: SST mode ingests at the end, and starts over.
	Checkpoint string `yaml:"checkpoint"`
	// SSTDir is SST mode's working folder (sort runs and SST files; about
	// the size of the data); "" = the system's temporary folder.
	SSTDir string `yaml:"sstDir"`
	// SSTMemoryMB bounds the memory SST mode's sort holds before spilling
	// sorted runs to SSTDir.
	SSTMemoryMB int `yaml:"sstMemoryMB"`
	// SSTCompression compresses the SST files: lz4 (default), zstd, no,
	// or another name storaged's compression_per_level takes. Ingested
	// files keep it until a compaction rewrites them, usually never for
	// bulk-loaded data at the bottom level. lz4 builds an import about a
	// fifth faster than storaged's bottom-level zstd and reads faster,
	// for files about a quarter larger (docs/benchmarks.md).
	SSTCompression string `yaml:"sstCompression"`
	// Shard "i/n" imports only the rows whose index in their source is i
	// modulo n: n importers, each given one i, import everything once.
	Shard string `yaml:"shard"`
}

// Hooks are nGQL statements run through graphd around the import.
type Hooks struct {
	Before []HookStatements `yaml:"before"`
	After  []HookStatements `yaml:"after"`
}

// HookStatements is one group of hook statements, then a wait.
type HookStatements struct {
	Statements []string      `yaml:"statements"`
	Wait       time.Duration `yaml:"wait"`
}

// LogConfig is accepted for v4 compatibility; the importer logs to stderr.
type LogConfig struct {
	Level   string   `yaml:"level"`
	Console bool     `yaml:"console"`
	Files   []string `yaml:"files"`
}

// Source is one input: a file, glob, Spark output directory or GraphAr
// chunk folder, and what each of its rows becomes.
type Source struct {
	Path   string      `yaml:"path"`
	CSV    *CSVOptions `yaml:"csv"`
	Format string      `yaml:"format"` // by extension, or csv, tsv, parquet, snap
	// RowIndexColumn appends the row's 0-based index in the source as one
	// more column (GraphAr vertex tables: the index is the vertex id).
	RowIndexColumn bool       `yaml:"rowIndexColumn"`
	Tags           []TagSpec  `yaml:"tags"`
	Edges          []EdgeSpec `yaml:"edges"`
	// Batch is v4's per-source batch: rows per write round for this
	// source; 0 = manager.batch.
	Batch int `yaml:"batch"`
	// v4's remote sources, refused by Validate with a clear error: the
	// importer reads local files (copy them, or mount the bucket).
	S3   any `yaml:"s3"`
	OSS  any `yaml:"oss"`
	FTP  any `yaml:"ftp"`
	SFTP any `yaml:"sftp"`
	HDFS any `yaml:"hdfs"`
	GCS  any `yaml:"gcs"`

	// dedupeVertices (presets only) writes each vertex of the source's
	// tags once: see tagMapper.seen.
	dedupeVertices bool
}

// CSVOptions are a text source's options (v4: csv:).
type CSVOptions struct {
	Delimiter  string `yaml:"delimiter"`
	WithHeader bool   `yaml:"withHeader"`
	LazyQuotes bool   `yaml:"lazyQuotes"`
	Comment    string `yaml:"comment"`
}

// TagSpec maps a row to a vertex with one tag.
type TagSpec struct {
	Name   string     `yaml:"name"`
	Mode   string     `yaml:"mode"` // INSERT (default) or DELETE
	Filter *Filter    `yaml:"filter"`
	ID     IDSpec     `yaml:"id"`
	Props  []PropSpec `yaml:"props"`
	// IgnoreExistedIndex is v4's; accepted, ignored (indexes are always
	// kept up to date).
	IgnoreExistedIndex bool `yaml:"ignoreExistedIndex"`
}

// EdgeSpec maps a row to an edge.
type EdgeSpec struct {
	Name   string     `yaml:"name"`
	Mode   string     `yaml:"mode"`
	Filter *Filter    `yaml:"filter"`
	Src    EndSpec    `yaml:"src"`
	Dst    EndSpec    `yaml:"dst"`
	Rank   *RankSpec  `yaml:"rank"`
	Props  []PropSpec `yaml:"props"`
	// IgnoreExistedIndex: see TagSpec.
	IgnoreExistedIndex bool `yaml:"ignoreExistedIndex"`
}

// EndSpec is an edge's src or dst (v4: src: {id: {...}}).
type EndSpec struct {
	ID IDSpec `yaml:"id"`
}

// IDSpec picks a vid from a row: one column, or several concatenated.
type IDSpec struct {
	Type        string `yaml:"type"` // INT or STRING; must match the space's vid type
	Index       *int   `yaml:"index"`
	ConcatItems []any  `yaml:"concatItems"` // column indexes (int) and literal strings
	Prefix      string `yaml:"prefix"`
	Function    string `yaml:"function"` // not supported: an error says so
}

// RankSpec takes an edge's rank from a column.
type RankSpec struct {
	Index int `yaml:"index"`
}

// PropSpec maps a column to a property.
type PropSpec struct {
	Name         string  `yaml:"name"`
	Type         string  `yaml:"type"` // optional: checked against the schema when given
	Index        int     `yaml:"index"`
	Nullable     bool    `yaml:"nullable"`
	NullValue    string  `yaml:"nullValue"`
	DefaultValue *string `yaml:"defaultValue"`
	// AlternativeIndices are tried in order when the column is NULL.
	AlternativeIndices []int `yaml:"alternativeIndices"`
}

// Filter keeps a row only when its expression is true. The expression is
// nGQL over Record, the row's fields as a list of strings (v4's syntax:
// `Record[1] == "Mahinda" and Record[3] != "male"`).
type Filter struct {
	Expr string `yaml:"expr"`
}

// Defaults of the manager settings.
const (
	DefaultBatch       = 4096
	DefaultConcurrency = 16
	DefaultRetry       = 3
)

// LoadConfig reads a YAML config. Unknown keys are errors (a typo would
// otherwise silently drop a mapping), reported with their line. As in
// nebula-importer v4, a relative source path is relative to the config
// file's folder, so a config and its data move together.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	for i := range cfg.Sources {
		if p := cfg.Sources[i].Path; !filepath.IsAbs(p) {
			cfg.Sources[i].Path = filepath.Join(filepath.Dir(path), p)
		}
	}
	return cfg, nil
}

// ParseConfig parses and checks a YAML config.
func ParseConfig(data []byte) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

func (c *Config) setDefaults() {
	m := &c.Manager
	if m.Batch <= 0 {
		m.Batch = DefaultBatch
	}
	if m.ImporterConcurrency <= 0 {
		m.ImporterConcurrency = DefaultConcurrency
	}
	if m.ReaderConcurrency <= 0 {
		m.ReaderConcurrency = 2
	}
	if m.Retry <= 0 {
		m.Retry = c.Client.Retry
	}
	if m.Retry <= 0 {
		m.Retry = DefaultRetry
	}
	if m.StatsInterval <= 0 {
		m.StatsInterval = 10 * time.Second
	}
	if m.Mode == "" {
		m.Mode = "online"
	}
	m.Mode = strings.ToLower(m.Mode)
	if m.SSTMemoryMB <= 0 {
		m.SSTMemoryMB = 1024
	}
	if m.SSTCompression == "" {
		m.SSTCompression = "lz4"
	}
	m.SSTCompression = strings.ToLower(m.SSTCompression)
	if c.Client.Address == "" {
		c.Client.Address = "127.0.0.1:9669"
	}
	if c.Client.User == "" {
		c.Client.User = "root"
	}
}

// Validate checks what can be checked without the cluster; every error
// names the key it is about, e.g. sources[1].edges[0].src.id.index.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if c.Manager.SpaceName == "" {
		bad("manager.spaceName", "missing")
	}
	switch strings.ToLower(c.Manager.Mode) {
	case "online":
	case "sst":
		for i, src := range c.Sources {
			for j, t := range src.Tags {
				if strings.EqualFold(t.Mode, "DELETE") {
					bad(fmt.Sprintf("sources[%d].tags[%d].mode", i, j), "DELETE needs manager.mode online")
				}
			}
			for j, e := range src.Edges {
				if strings.EqualFold(e.Mode, "DELETE") {
					bad(fmt.Sprintf("sources[%d].edges[%d].mode", i, j), "DELETE needs manager.mode online")
				}
			}
		}
	default:
		bad("manager.mode", "%q is not online or sst", c.Manager.Mode)
	}
	if _, _, err := ParseShard(c.Manager.Shard); err != nil {
		bad("manager.shard", "%v", err)
	}
	if _, err := rocksopts.ParseCompressionPerLevel(c.Manager.SSTCompression); err != nil || strings.ContainsAny(c.Manager.SSTCompression, ":, ") {
		bad("manager.sstCompression", "%q is not one compression (no, snappy, lz4, lz4hc, zstd, zlib or bzip2)", c.Manager.SSTCompression)
	}
	if c.Client.SSL != nil && c.Client.SSL.Enable {
		bad("client.ssl.enable", "TLS is not supported: novagraph's graphd and storaged speak plain gRPC")
	}
	if len(c.Sources) == 0 {
		bad("sources", "no sources")
	}
	for i, s := range c.Sources {
		key := fmt.Sprintf("sources[%d]", i)
		for _, remote := range []struct {
			name string
			v    any
		}{{"s3", s.S3}, {"oss", s.OSS}, {"ftp", s.FTP}, {"sftp", s.SFTP}, {"hdfs", s.HDFS}, {"gcs", s.GCS}} {
			if remote.v != nil {
				bad(key+"."+remote.name, "remote sources are not supported: copy the files to a local path (or mount them) and give it as path")
			}
		}
		if s.Batch < 0 {
			bad(key+".batch", "negative")
		}
		if s.Path == "" {
			bad(key+".path", "missing")
		}
		if len(s.Tags)+len(s.Edges) == 0 {
			bad(key, "maps to no tags and no edges")
		}
		if s.CSV != nil && len([]rune(s.CSV.Delimiter)) > 1 {
			bad(key+".csv.delimiter", "%q is more than one character", s.CSV.Delimiter)
		}
		for j, t := range s.Tags {
			k := fmt.Sprintf("%s.tags[%d]", key, j)
			if t.Name == "" {
				bad(k+".name", "missing")
			}
			checkMode(bad, k, t.Mode)
			checkID(bad, k+".id", t.ID)
			checkProps(bad, k, t.Props)
		}
		for j, e := range s.Edges {
			k := fmt.Sprintf("%s.edges[%d]", key, j)
			if e.Name == "" {
				bad(k+".name", "missing")
			}
			checkMode(bad, k, e.Mode)
			checkID(bad, k+".src.id", e.Src.ID)
			checkID(bad, k+".dst.id", e.Dst.ID)
			if e.Rank != nil && e.Rank.Index < 0 {
				bad(k+".rank.index", "negative")
			}
			checkProps(bad, k, e.Props)
		}
	}
	return errors.Join(errs...)
}

// ParseShard parses "i/n" (0 <= i < n); "" is the whole input (0, 1).
func ParseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q is not i/n with 0 <= i < n", s)
	}
	return i, n, nil
}

func checkMode(bad func(string, string, ...any), key, mode string) {
	switch strings.ToUpper(mode) {
	case "", "INSERT", "DELETE":
	default:
		bad(key+".mode", "%q is not INSERT or DELETE", mode)
	}
}

func checkID(bad func(string, string, ...any), key string, id IDSpec) {
	switch {
	case id.Function != "":
		bad(key+".function", "%q: id functions are not supported; give the id column as it is stored", id.Function)
	case id.Index == nil && len(id.ConcatItems) == 0:
		bad(key+".index", "missing (or give concatItems)")
	case id.Index != nil && *id.Index < 0:
		bad(key+".index", "negative")
	}
	for i, it := range id.ConcatItems {
		switch v := it.(type) {
		case int:
			if v < 0 {
				bad(fmt.Sprintf("%s.concatItems[%d]", key, i), "negative column index")
			}
		case string:
		default:
			bad(fmt.Sprintf("%s.concatItems[%d]", key, i), "%v is neither a column index nor a string", it)
		}
	}
	switch strings.ToUpper(id.Type) {
	case "", "INT", "INT64", "STRING":
	default:
		bad(key+".type", "%q is not INT or STRING", id.Type)
	}
}

func checkProps(bad func(string, string, ...any), key string, props []PropSpec) {
	seen := map[string]bool{}
	for i, p := range props {
		k := fmt.Sprintf("%s.props[%d]", key, i)
		if p.Name == "" {
			bad(k+".name", "missing")
		}
		if seen[p.Name] {
			bad(k+".name", "property %q is mapped twice", p.Name)
		}
		seen[p.Name] = true
		if p.Index < 0 {
			bad(k+".index", "negative")
		}
	}
}
