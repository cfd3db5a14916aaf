package source

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Formats accepted in Options.Format.
const (
	FormatCSV     = "csv"
	FormatTSV     = "tsv"
	FormatSNAP    = "snap"
	FormatParquet = "parquet"
)

// RowIndexColumnName is the name Columns gives the field that
// Options.RowIndexColumn appends (the name GraphAr uses for its vertex index).
const RowIndexColumnName = "_graphArVertexIndex"

// Options of one source, as configured in the importer's YAML. Zero values
// are the defaults.
type Options struct {
	// Format is "csv", "tsv", "snap" or "parquet". "" picks it per file by
	// extension, with or without a trailing .gz: .csv and .txt are csv (with
	// Delimiter), .tsv is tsv, .parquet is parquet; a file with another
	// extension (GraphAr's chunk0, …) is parquet if it starts with the parquet
	// magic "PAR1" and csv otherwise. .orc, .avro and .json are refused. SNAP
	// edge lists are never guessed: set "snap".
	Format string
	// Delimiter is one byte; "," for csv and "\t" for tsv by default. A
	// literal `\t` (backslash, t) is read as a tab. snap ignores it.
	Delimiter string
	// Header: the first record of each file (after comment and blank lines)
	// is a header: it is not delivered, and the first file's is what Columns
	// returns.
	Header bool
	// Comment: lines starting with it are skipped ("" = none). snap always
	// skips lines whose first non-blank byte is '#' or '%', and this too.
	// Only checked at the start of a record, not inside a quoted field.
	Comment string
	// LazyQuotes as in encoding/csv: a quote may appear in an unquoted field,
	// and a non-doubled quote in a quoted field.
	LazyQuotes bool
	// TrimSpace trims leading and trailing white space of unquoted csv/tsv
	// fields (text inside quotes is kept as is; blanks around a quoted field
	// are allowed) and skips lines that are only white space. It never
	// merges delimiters: for "any run of blanks separates" use snap.
	TrimSpace bool
	// FieldsPerRecord, when > 0, is the number of fields every record of a
	// text format must have (not counting the RowIndexColumn field); a record
	// with another count is delivered with Err wrapping csv.ErrFieldCount and
	// Fields as parsed. 0 = not checked.
	FieldsPerRecord int
	// Gzip: nil = decompress files whose name ends in .gz or that start with
	// the gzip magic bytes; true = always; false = never.
	Gzip *bool
	// RowIndexColumn appends one field to every record without Err: its
	// Index in decimal, i.e. the 0-based global row index within the source
	// (GraphAr vertex index for vertex chunks).
	RowIndexColumn bool
}

// Record is one record of a source.
//
// Read reuses records, their Fields and Nulls slices after fn returns: copy
// what you keep. The strings themselves are immutable and may be kept; those
// of one batch share one allocation, so keeping a single small field of a
// batch keeps the whole batch's text alive (strings.Clone it if that
// matters).
type Record struct {
	File  string // path of the file it came from
	Line  int64  // 1-based line of the record's first line in File; parquet: 1-based row number in File
	Index int64  // 0-based index of the record in the whole source (what skip counts)
	// Fields are the record's values. For a record with Err it is what could
	// be read: the parsed fields for a wrong field count, otherwise the raw
	// text of the record as one field (for a csv error the record's lines
	// joined by "\n"). RowIndexColumn's field is only appended to records
	// without Err.
	Fields []string
	// Nulls is nil when no field of the record is NULL (for text formats,
	// only a partition column can be: see partitionColumns). Otherwise len(Nulls) == len(Fields) and Nulls[i] reports that
	// Fields[i] is a parquet NULL (Fields[i] is then "").
	Nulls []bool
	// Err is a *ParseError for a malformed record; nil otherwise.
	Err error
}

// IsNull reports whether field i is NULL.
func (r *Record) IsNull(i int) bool { return r.Nulls != nil && r.Nulls[i] }

// ErrTooLong is wrapped by the ParseError of a line or a multi-line record
// longer than the limit (64 MiB).
var ErrTooLong = errors.New("record too long")

// ParseError is the Err of a malformed record.
type ParseError struct {
	File      string
	StartLine int64 // line the record starts on (= Record.Line)
	Line      int64 // line the fault was found on
	Column    int   // 1-based byte column of the fault in Line; 0 if none
	Err       error // csv.ErrBareQuote, csv.ErrQuote, csv.ErrFieldCount or ErrTooLong
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.StartLine != e.Line {
		fmt.Fprintf(&b, ": record starting on line %d", e.StartLine)
	}
	fmt.Fprintf(&b, ": line %d", e.Line)
	if e.Column > 0 {
		fmt.Fprintf(&b, ", column %d", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// Source is one configured input: its files and how to read them. Open it
// with Open. A Source may be read several times; Columns and Files may be
// called concurrently with each other and with Read.
type Source struct {
	path  string
	opts  Options
	delim byte // explicit delimiter or 0
	files []string
	// partNames are the partition columns every record gets after its
	// own fields; partValues their values by file.
	partNames  []string
	partValues map[string][]partValue

	colMu   sync.Mutex
	colDone bool
	cols    []string
	colErr  error

	// done counts the bytes of the source's files read so far (compressed
	// bytes for gzip; a Parquet file counts when it is finished), for
	// progress and ETA.
	done atomic.Int64
}

// Size is the total size of the source's files, in bytes.
func (s *Source) Size() int64 {
	var n int64
	for _, f := range s.files {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	return n
}

// BytesRead is how many bytes of the source's files Read went through so
// far (of Size).
func (s *Source) BytesRead() int64 { return s.done.Load() }

// countingReader adds what it reads to n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// Open expands path into the files of one source: a file; a glob; a
// directory (Spark part files, a GraphAr chunk folder, read recursively, see
// the package doc). A missing path, a glob or directory without any file,
// and invalid options are errors naming the path.
func Open(path string, opts Options) (*Source, error) {
	s := &Source{path: path, opts: opts}
	switch opts.Format {
	case "", FormatCSV, FormatTSV, FormatSNAP, FormatParquet:
	default:
		return nil, fmt.Errorf("source %s: unknown format %q (want csv, tsv, snap or parquet)", path, opts.Format)
	}
	if d := opts.Delimiter; d != "" {
		if d == `\t` {
			d = "\t"
		}
		if len(d) != 1 || d[0] == '"' || d[0] == '\r' || d[0] == '\n' {
			return nil, fmt.Errorf("source %s: delimiter %q: want one byte other than a quote or a line end", path, opts.Delimiter)
		}
		s.delim = d[0]
	}
	files, err := expand(path)
	if err != nil {
		return nil, err
	}
	if opts.Format == "" {
		for _, f := range files {
			if _, err := formatByName(f); err != nil {
				return nil, fmt.Errorf("source %s: %w", path, err)
			}
		}
	}
	s.files = files
	if s.partNames, s.partValues, err = partitionColumns(files); err != nil {
		return nil, fmt.Errorf("source %s: %w", path, err)
	}
	return s, nil
}

// partValue is one Hive-style partition directory's value; null for
// Spark's __HIVE_DEFAULT_PARTITION__.
type partValue struct {
	text string
	null bool
}

// partitionColumns finds the partition columns of a Spark or Hive table
// written with partitionBy: the key=value directories a data file sits
// in, nearest last (root/country=NL/year=2024/part-0.parquet gives country
// and year). Every file must sit in the same keys, in the same order.
// Spark leaves them out of the files; a reader appends them.
func partitionColumns(files []string) (names []string, values map[string][]partValue, err error) {
	for i, f := range files {
		var keys []string
		var vals []partValue
		for dir := filepath.Dir(f); ; dir = filepath.Dir(dir) {
			k, v, ok := strings.Cut(filepath.Base(dir), "=")
			if !ok || k == "" {
				break
			}
			pv := partValue{text: v}
			if v == "__HIVE_DEFAULT_PARTITION__" {
				pv = partValue{null: true}
			} else if u, err := url.PathUnescape(v); err == nil {
				pv.text = u
			}
			keys, vals = append([]string{k}, keys...), append([]partValue{pv}, vals...)
		}
		if i == 0 {
			names = keys
		} else if !slices.Equal(keys, names) {
			return nil, nil, fmt.Errorf("%s is in partition directories %v, %s in %v: a source's files must share their partition columns", f, keys, files[0], names)
		}
		if len(keys) > 0 {
			if values == nil {
				values = map[string][]partValue{}
			}
			values[f] = vals
		}
	}
	return names, values, nil
}

// Path is the path Open was given.
func (s *Source) Path() string { return s.path }

// Files are the files of the source, in the order they are read.
func (s *Source) Files() []string { return append([]string(nil), s.files...) }

// Columns returns the column names of the source: the header of the first
// file for text formats with Header, the leaf column names of the first
// file's schema for parquet (nested leaves as their dotted path), and nil
// when unknown (text without header). Then the partition columns of
// key=value directories (see partitionColumns), and with RowIndexColumn,
// RowIndexColumnName.
func (s *Source) Columns() ([]string, error) {
	s.colMu.Lock()
	defer s.colMu.Unlock()
	if !s.colDone {
		s.cols, s.colErr = s.columns()
		s.colDone = true
	}
	if s.cols == nil {
		return nil, s.colErr
	}
	return append([]string(nil), s.cols...), s.colErr
}

func (s *Source) columns() ([]string, error) {
	f := s.files[0]
	format, err := s.formatOf(f)
	if err != nil {
		return nil, err
	}
	var cols []string
	if format == FormatParquet {
		cols, err = parquetColumns(f)
	} else if s.opts.Header {
		cols, err = s.textHeader(f, format)
	}
	if err != nil || cols == nil {
		return nil, err
	}
	cols = append(cols, s.partNames...)
	if s.opts.RowIndexColumn {
		cols = append(cols, RowIndexColumnName)
	}
	return cols, nil
}

// formatByName is the format Options.Format "" gives a file by its name; ""
// when the content has to tell.
func formatByName(path string) (string, error) {
	name := strings.ToLower(filepath.Base(path))
	name = strings.TrimSuffix(name, ".gz")
	switch filepath.Ext(name) {
	case ".csv", ".txt":
		return FormatCSV, nil
	case ".tsv":
		return FormatTSV, nil
	case ".parquet", ".parq":
		return FormatParquet, nil
	case ".orc", ".avro", ".json", ".jsonl":
		return "", fmt.Errorf("%s: format %s is not supported", path, filepath.Ext(name)[1:])
	}
	return "", nil
}

// formatOf resolves the format of one file, sniffing its first bytes when
// neither the options nor its name tell.
func (s *Source) formatOf(path string) (string, error) {
	if s.opts.Format != "" {
		return s.opts.Format, nil
	}
	f, err := formatByName(path)
	if err != nil || f != "" {
		return f, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	defer fh.Close()
	var magic [4]byte
	n, _ := fh.ReadAt(magic[:], 0)
	if n == 4 && string(magic[:]) == "PAR1" {
		return FormatParquet, nil
	}
	return FormatCSV, nil
}

func (s *Source) delimiter(format string) byte {
	if s.delim != 0 {
		return s.delim
	}
	if format == FormatTSV {
		return '\t'
	}
	return ','
}

// expand lists the files of path.
func expand(path string) ([]string, error) {
	if path == "" {
		return nil, errors.New("source: empty path")
	}
	fi, err := os.Stat(path)
	if err != nil {
		if !os.IsNotExist(err) || !hasMeta(path) {
			return nil, fmt.Errorf("source %s: %w", path, err)
		}
		matches, err := filepath.Glob(path)
		if err != nil {
			return nil, fmt.Errorf("source %s: bad pattern: %w", path, err)
		}
		var files []string
		sortNatural(matches)
		for _, m := range matches {
			if ignored(filepath.Base(m)) {
				continue
			}
			fi, err := os.Stat(m)
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", path, err)
			}
			if fi.IsDir() {
				if files, err = walk(m, files); err != nil {
					return nil, fmt.Errorf("source %s: %w", path, err)
				}
			} else {
				files = append(files, m)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("source %s: no file matches", path)
		}
		return files, nil
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	files, err := walk(path, nil)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", path, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("source %s: directory holds no data file", path)
	}
	return files, nil
}

func hasMeta(path string) bool { return strings.ContainsAny(path, `*?[\`) }

// ignored reports whether a directory entry is not data: hidden files,
// Spark/Hadoop markers (_SUCCESS, _committed_…, _temporary) and checksums.
func ignored(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || strings.HasSuffix(name, ".crc")
}

// walk appends the data files under dir, in natural order, descending into
// sub-directories.
func walk(dir string, files []string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return files, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if !ignored(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sortNatural(names)
	for _, name := range names {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p) // follows symlinks
		if err != nil {
			return files, err
		}
		switch {
		case fi.IsDir():
			if files, err = walk(p, files); err != nil {
				return files, err
			}
		case fi.Mode().IsRegular():
			files = append(files, p)
		}
	}
	return files, nil
}

func sortNatural(s []string) {
	sort.SliceStable(s, func(i, j int) bool { return naturalLess(s[i], s[j]) })
}

// naturalLess orders strings with runs of ASCII digits compared as numbers:
// chunk2 < chunk10, part-9 < part-00010. Equal-valued runs with different
// zero padding and otherwise equal strings fall back to byte order.
func naturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			continue
		}
		if ca != cb {
			return ca < cb
		}
		i++
		j++
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
