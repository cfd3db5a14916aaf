package importer

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// failedRows is one source's failed-rows file. Each refused row is written
// in the source's text format (its delimiter; Parquet rows as CSV), after
// a comment line with where it came from and why:
//
//	# person_0_0.csv:17: property birthday: column 4: "19x0" is not an INT64
//	17|Jan|Smith|male|19x0|...
//
// The file is a valid source itself (comment "#", same header), so a run
// with --retry-failed imports exactly these rows again once fixed.
type failedRows struct {
	path     string
	csvComma rune
	appendTo bool // resuming: keep the rows an earlier run wrote

	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	csv    *csv.Writer
	header []string
	n      int64
	// earlier holds the file:line of the rows an interrupted run already
	// wrote. The checkpoint lags the file by up to a second and by the
	// rounds that finished out of order, so a resumed run fails some of
	// those rows again; they are not written twice.
	earlier map[string]bool
}

// failedRowsPath names the failed-rows file of source i; the shards of one
// import, run side by side in one folder, each have their own.
func failedRowsPath(dir string, i int, src, shard string) string {
	base := filepath.Base(strings.TrimRight(src, "/"))
	base = strings.NewReplacer("*", "_", "?", "_", "[", "_", "]", "_").Replace(base)
	return filepath.Join(dir, fmt.Sprintf("source%d-%s%s.failed", i, base, shardSuffix(shard)))
}

// shardSuffix is ".shard1of4" for --shard 1/4, "" for an import not sharded.
func shardSuffix(shard string) string {
	if shard == "" {
		return ""
	}
	return ".shard" + strings.Replace(shard, "/", "of", 1)
}

// newFailedRows prepares the file; it is created when the first row fails.
func newFailedRows(path string, delimiter rune, header []string, appendTo bool) *failedRows {
	return &failedRows{path: path, header: header, csvComma: delimiter, appendTo: appendTo}
}

// add writes one row.
func (f *failedRows) add(row keptRow, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		if err := f.open(); err != nil {
			return err
		}
	}
	if f.earlier[rowKey(row.file, row.line)] {
		return nil
	}
	f.n++
	reason = strings.ReplaceAll(reason, "\n", " ")
	if _, err := fmt.Fprintf(f.w, "# %s:%d: %s\n", row.file, row.line, reason); err != nil {
		return fmt.Errorf("failed-rows file %s: %w", f.path, err)
	}
	if err := f.writeRow(row); err != nil {
		return fmt.Errorf("failed-rows file %s: %w", f.path, err)
	}
	return nil
}

// writeRow writes a row in the source's format. A record that did not
// parse goes back as its text, for the user to mend; csv.Writer would
// quote it into one valid field that no longer says what was wrong. A
// row whose first field begins with the comment character is quoted by
// hand (csv.Writer does not), or the retry would skip it as a comment.
func (f *failedRows) writeRow(row keptRow) error {
	switch {
	case row.raw:
		text := strings.Join(row.fields, "")
		if _, err := f.w.WriteString(text); err != nil {
			return err
		}
		if !strings.HasSuffix(text, "\n") {
			return f.w.WriteByte('\n')
		}
		return nil
	case len(row.fields) > 0 && strings.HasPrefix(row.fields[0], failedComment):
		for i, field := range row.fields {
			if i > 0 {
				if _, err := f.w.WriteRune(f.csvComma); err != nil {
					return err
				}
			}
			if _, err := f.w.WriteString(`"` + strings.ReplaceAll(field, `"`, `""`) + `"`); err != nil {
				return err
			}
		}
		return f.w.WriteByte('\n')
	}
	if err := f.csv.Write(row.fields); err != nil {
		return err
	}
	f.csv.Flush()
	return f.csv.Error()
}

// failedComment starts the comment lines of a failed-rows file.
const failedComment = "#"

// sync hands what add buffered to the operating system, so that a
// checkpoint counting these rows done never outlives them when the
// process is killed.
func (f *failedRows) sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("failed-rows file %s: %w", f.path, err)
	}
	return nil
}

func (f *failedRows) open() error {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("failed-rows directory: %w", err)
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if f.appendTo {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	file, err := os.OpenFile(f.path, flags, 0o644)
	if err != nil {
		return fmt.Errorf("failed-rows file: %w", err)
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return fmt.Errorf("failed-rows file: %w", err)
	}
	if f.appendTo && st.Size() > 0 {
		if f.earlier, err = readFailedRowKeys(f.path); err != nil {
			file.Close()
			return err
		}
		f.n += int64(len(f.earlier))
	}
	f.f, f.w = file, bufio.NewWriter(file)
	f.csv = csv.NewWriter(f.w)
	f.csv.Comma = f.csvComma
	if len(f.header) > 0 && st.Size() == 0 {
		if err := f.csv.Write(f.header); err != nil {
			return fmt.Errorf("failed-rows file %s: %w", f.path, err)
		}
	}
	return nil
}

func rowKey(file string, line int64) string { return file + ":" + strconv.FormatInt(line, 10) }

// failedRowComment matches the comment before each row of a failed-rows
// file and captures its file:line.
var failedRowComment = regexp.MustCompile(`^# (.*?:\d+): `)

// readFailedRowKeys reads the file:line of every row a failed-rows file
// holds.
func readFailedRowKeys(path string) (map[string]bool, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("failed-rows file: %w", err)
	}
	defer file.Close()
	keys := map[string]bool{}
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 128<<20)
	for sc.Scan() {
		if m := failedRowComment.FindSubmatch(sc.Bytes()); m != nil {
			keys[string(m[1])] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("failed-rows file %s: reading the rows of the earlier run: %w", path, err)
	}
	return keys, nil
}

// close flushes the file and reports how many rows it holds.
func (f *failedRows) close() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return 0, nil
	}
	f.csv.Flush()
	err := f.w.Flush()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	f.f = nil
	if err != nil {
		return f.n, fmt.Errorf("failed-rows file %s: %w", f.path, err)
	}
	return f.n, nil
}
