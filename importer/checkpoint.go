package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/novagraph/novagraph/importer/source"
)

// checkpoint records, per source, how many of its rows are done: every row
// before that index was applied or written to the failed-rows file. It is
// rewritten (atomically: temp file + rename) every few seconds and at the
// end, so an interrupted import started again with the same config skips
// what was done and sends the rest; the rows of rounds in flight at the
// interruption are sent again, which is harmless (writes are idempotent:
// the same key gets the same row).
type checkpoint struct {
	path string

	mu   sync.Mutex
	data checkpointData
}

type checkpointData struct {
	// ConfigHash ties the checkpoint to the sources and mappings it
	// counted rows of; a different config starts from the beginning.
	ConfigHash string                 `json:"configHash"`
	Sources    map[string]*sourceMark `json:"sources"`
}

type sourceMark struct {
	Done     int64 `json:"done"`
	Finished bool  `json:"finished"`
}

func configHash(cfg *Config) string {
	b, _ := json.Marshal(struct {
		Space   string
		Sources []Source
	}{cfg.Manager.SpaceName, cfg.Sources})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// rowCheckpointHash ties a row checkpoint to what its counts are counts
// of: the config (base), the space as created (a space dropped and made
// again has a new id, and nothing of it is imported), the shard, and the
// size and modification time of every input file (a regenerated file, or
// a failed-rows file mended for another --retry-failed, is read anew).
// Run again over the same files into the same space, a finished import
// finds nothing to do.
func rowCheckpointHash(cfg *Config, base string, spaceID int32, failedDir string, retryFailed bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|space %d|shard %q|retry %v\n", base, spaceID, cfg.Manager.Shard, retryFailed)
	for i := range cfg.Sources {
		path := cfg.Sources[i].Path
		if retryFailed {
			path = failedRowsPath(failedDir, i, path, cfg.Manager.Shard)
		}
		s, err := source.Open(path, sourceOptions(&cfg.Sources[i]))
		if err != nil {
			// The run reports it when it opens the source.
			fmt.Fprintf(h, "%d %s: %v\n", i, path, err)
			continue
		}
		for _, f := range s.Files() {
			if st, err := os.Stat(f); err == nil {
				fmt.Fprintf(h, "%d %s %d %d\n", i, f, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// loadCheckpoint reads the checkpoint at path; a missing file, or one of
// another config, is a fresh start.
func loadCheckpoint(path, hash string, restart bool) (*checkpoint, error) {
	cp := &checkpoint{path: path, data: checkpointData{ConfigHash: hash, Sources: map[string]*sourceMark{}}}
	if restart {
		return cp, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cp, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint: %w", err)
	}
	var d checkpointData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("checkpoint %s is corrupt (%v): remove it or run with --restart", path, err)
	}
	if d.ConfigHash == hash && d.Sources != nil {
		cp.data = d
	}
	return cp, nil
}

// mark returns the source's entry.
func (cp *checkpoint) mark(key string) sourceMark {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return *cp.markLocked(key)
}

// markLocked returns the source's entry, creating it.
func (cp *checkpoint) markLocked(key string) *sourceMark {
	m := cp.data.Sources[key]
	if m == nil {
		m = &sourceMark{}
		cp.data.Sources[key] = m
	}
	return m
}

// set records that the first done rows of a source are done. Rounds
// finishing concurrently may report out of order: the mark only grows.
func (cp *checkpoint) set(key string, done int64, finished bool) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	m := cp.markLocked(key)
	m.Done = max(m.Done, done)
	m.Finished = m.Finished || finished
}

func (cp *checkpoint) save() error {
	if cp.path == "" {
		return nil
	}
	cp.mu.Lock()
	b, err := json.MarshalIndent(cp.data, "", "  ")
	cp.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cp.path), 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := cp.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, cp.path); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// progress tracks which rows of one source are done when rounds finish
// out of order: done is the end of the longest finished prefix.
type progress struct {
	mu       sync.Mutex
	done     int64
	finished map[int64]int64 // start → end of rounds finished beyond done
}

func newProgress(done int64) *progress {
	return &progress{done: done, finished: map[int64]int64{}}
}

// finish records rows [start, end) as done and returns the new prefix end.
func (p *progress) finish(start, end int64) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished[start] = end
	for {
		e, ok := p.finished[p.done]
		if !ok {
			return p.done
		}
		delete(p.finished, p.done)
		p.done = e
	}
}
