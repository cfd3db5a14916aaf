package importer

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
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
}

func failedRowsPath(dir string, i int, src string) string {
	base := filepath.Base(strings.TrimRight(src, "/"))
	base = strings.NewReplacer("*", "_", "?", "_", "[", "_", "]", "_").Replace(base)
	return filepath.Join(dir, fmt.Sprintf("source%d-%s.failed", i, base))
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
	f.n++
	reason = strings.ReplaceAll(reason, "\n", " ")
	if _, err := fmt.Fprintf(f.w, "# %s:%d: %s\n", row.file, row.line, reason); err != nil {
		return fmt.Errorf("failed-rows file %s: %w", f.path, err)
	}
	if err := f.csv.Write(row.fields); err != nil {
		return fmt.Errorf("failed-rows file %s: %w", f.path, err)
	}
	f.csv.Flush()
	return f.csv.Error()
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
