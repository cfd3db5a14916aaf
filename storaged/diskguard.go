package storaged

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/linxGnu/grocksdb"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/raftgroup"
)

// Full data disks (docs/architecture.md, "Full disk").
//
// A RocksDB write that fails halts the raft engine (its memory would
// otherwise be ahead of the disk), and storaged then exits (Fatal). To
// keep a filling disk from getting there, the disk guard watches the free
// space of every data path, as TiKV does:
//
//   - At start it reserves disk_reserve bytes in a ballast file,
//     <data path>/RESERVED.
//   - When less than disk_reserve is free (the ballast not counted as
//     free), the path is *full*: the guard deletes the ballast, so RocksDB
//     keeps room for what the store must still write as a follower (raft
//     appends, applies, flushes), and this store refuses client writes to
//     the partitions it leads on that path (E_DISK_FULL, before anything is
//     proposed) and hands their leadership to another voter, so that with
//     replicas elsewhere the writes go on there.
//   - Once 2×disk_reserve is free again it recreates the ballast (leaving
//     at least disk_reserve free: the gap is the hysteresis) and accepts
//     writes again.
//
// Each data path is judged on its own: a full disk refuses writes only to
// the partitions whose replica it holds.

const (
	// DefaultDiskReserve is storaged's --disk-reserve: the ballast size and
	// the free space below which a data path counts as full.
	DefaultDiskReserve = 64 << 20
	// DefaultDiskPollInterval is how often the guard measures free space.
	DefaultDiskPollInterval = 250 * time.Millisecond
	// BallastName is the ballast file in each data path.
	BallastName = "RESERVED"
	// spaceWaitLogEvery is how often a storaged waiting for space at start
	// says so.
	spaceWaitLogEvery = 10 * time.Second
	// shedMaxDelay bounds the pause between two attempts to move one
	// partition's leadership off a full disk.
	shedMaxDelay = 30 * time.Second
)

// DiskFreeFunc returns the bytes an unprivileged writer may still write
// on the filesystem holding path. Tests inject one to simulate a full disk.
type DiskFreeFunc func(path string) (uint64, error)

// StatfsFree is the DiskFreeFunc of a real disk: statfs's available blocks
// (Bavail, what is left for non-root writers) times the block size.
func StatfsFree(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// diskDir is the guard's state of one data path.
type diskDir struct {
	path string
	full atomic.Bool
	free atomic.Uint64 // bytes free at the last measurement
	// errLogged: the last measurement failed and that was logged (the
	// guard logs a failing statfs once, not every poll); ballastErrLogged
	// the same for making the ballast.
	errLogged, ballastErrLogged bool
}

// diskGuard is the full-disk state machine of a storaged's data paths.
// Its state changes only on its own goroutine (run) or before it starts
// (prepare); readers (the write RPCs) read the atomics.
type diskGuard struct {
	reserve  uint64
	interval time.Duration
	free     DiskFreeFunc
	log      *slog.Logger
	dirs     []*diskDir
	metrics  *metrics
	// whileFull runs after every poll that leaves some path full (the
	// server moves leaderships away); fullEnded when no path is full any
	// more.
	whileFull func(ctx context.Context)
	fullEnded func()
}

func newDiskGuard(paths []string, reserve uint64, interval time.Duration, free DiskFreeFunc, log *slog.Logger, m *metrics) *diskGuard {
	if free == nil {
		free = StatfsFree
	}
	g := &diskGuard{reserve: reserve, interval: interval, free: free, log: log, metrics: m}
	for _, p := range paths {
		g.dirs = append(g.dirs, &diskDir{path: p})
	}
	return g
}

// prepare runs at start, before RocksDB opens: it creates the ballast of
// each path and sets the initial state. A path without room for the
// ballast starts full; a ballast left by the previous run on a path that
// is short of space now is released at once (the previous run may have
// died of a full disk: its ballast is the room this run restarts in).
func (g *diskGuard) prepare() error {
	for _, d := range g.dirs {
		if err := os.MkdirAll(d.path, 0o755); err != nil {
			return fmt.Errorf("storaged: creating data path %s: %w", d.path, err)
		}
		// A ballast being made when the previous run died.
		_ = os.Remove(filepath.Join(d.path, BallastName+".tmp"))
		size, exists := ballastSize(d.path)
		if exists && size != int64(g.reserve) {
			// disk_reserve changed since the ballast was made.
			if err := removeBallast(d.path); err != nil {
				return err
			}
			exists = false
		}
		free, err := g.free(d.path)
		if err != nil {
			return fmt.Errorf("storaged: measuring free space of data path %s: %w", d.path, err)
		}
		g.observe(d, free)
		switch {
		case exists && free >= g.reserve:
		case exists:
			g.enterFull(d, free)
		case free >= 2*g.reserve:
			if err := createBallast(d.path, int64(g.reserve)); err != nil {
				if !isNoSpace(err) {
					return fmt.Errorf("storaged: reserving disk space: %w", err)
				}
				g.enterFull(d, free)
			}
		default:
			g.enterFull(d, free)
		}
		if f, err := g.free(d.path); err == nil {
			g.observe(d, f) // with the ballast made or released
		}
	}
	return nil
}

// run polls every path until ctx ends.
func (g *diskGuard) run(ctx context.Context) {
	t := time.NewTicker(g.interval)
	defer t.Stop()
	wasFull := g.anyFull()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, d := range g.dirs {
			g.check(d)
		}
		full := g.anyFull()
		switch {
		case full && g.whileFull != nil:
			g.whileFull(ctx)
		case !full && wasFull && g.fullEnded != nil:
			g.fullEnded()
		}
		wasFull = full
	}
}

// check is one measurement of one path and the transition it causes.
func (g *diskGuard) check(d *diskDir) {
	free, err := g.free(d.path)
	if err != nil {
		if !d.errLogged {
			g.log.Warn("cannot measure free space of a data path; its full-disk state stays as it was", "path", d.path, "err", err)
			d.errLogged = true
		}
		return
	}
	d.errLogged = false
	g.observe(d, free)
	_, hasBallast := ballastSize(d.path)
	if !d.full.Load() {
		if free < g.reserve {
			g.enterFull(d, free)
			return
		}
		if !hasBallast && free >= 2*g.reserve {
			// Deleted by hand, or never made: make it again.
			g.noteBallastErr(d, "recreating the disk reserve file", createBallast(d.path, int64(g.reserve)))
		}
		return
	}
	if free < 2*g.reserve {
		return
	}
	if !hasBallast {
		err := createBallast(d.path, int64(g.reserve))
		// Another writer took the space first: still full.
		g.noteBallastErr(d, "data disk has space again but the reserve file could not be recreated; writes stay refused", err)
		if err != nil {
			return
		}
	}
	d.full.Store(false)
	g.setFullMetric(d, false)
	after, _ := g.free(d.path)
	g.log.Info("data disk has space again: reserve file recreated, writes accepted",
		"path", d.path, "free_bytes", after, "reserve_bytes", g.reserve)
}

// noteBallastErr logs a failure to make the ballast once until it works.
func (g *diskGuard) noteBallastErr(d *diskDir, msg string, err error) {
	switch {
	case err == nil:
		d.ballastErrLogged = false
	case !d.ballastErrLogged:
		g.log.Warn(msg, "path", d.path, "err", err)
		d.ballastErrLogged = true
	}
}

// enterFull releases the ballast of d and marks it full.
func (g *diskGuard) enterFull(d *diskDir, free uint64) {
	err := removeBallast(d.path)
	d.full.Store(true)
	g.setFullMetric(d, true)
	after := free
	if f, ferr := g.free(d.path); ferr == nil {
		after = f
		g.observe(d, f)
	}
	attrs := []any{"path", d.path, "free_bytes", free, "reserve_bytes", g.reserve, "free_after_releasing_reserve", after, "resumes_at_free_bytes", 2 * g.reserve}
	if err != nil {
		attrs = append(attrs, "release_err", err)
	}
	g.log.Error(fmt.Sprintf("data disk %s is full (%s free, %s reserve): writes to the partitions on it are refused and their leadership moves to other replicas until %s is free",
		d.path, bytesize.Format(int64(free)), bytesize.Format(int64(g.reserve)), bytesize.Format(int64(2*g.reserve))), attrs...)
}

func (g *diskGuard) observe(d *diskDir, free uint64) {
	d.free.Store(free)
	if g.metrics != nil {
		g.metrics.diskFree.WithLabelValues(d.path).Set(float64(free))
		if !d.full.Load() {
			g.metrics.diskFull.WithLabelValues(d.path).Set(0)
		}
	}
}

func (g *diskGuard) setFullMetric(d *diskDir, full bool) {
	if g.metrics == nil {
		return
	}
	v := 0.0
	if full {
		v = 1
	}
	g.metrics.diskFull.WithLabelValues(d.path).Set(v)
}

func (g *diskGuard) anyFull() bool {
	return slices.ContainsFunc(g.dirs, func(d *diskDir) bool { return d.full.Load() })
}

// ballastSize reports the size of path's ballast and whether it exists.
func ballastSize(dir string) (int64, bool) {
	fi, err := os.Stat(filepath.Join(dir, BallastName))
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}

func removeBallast(dir string) error {
	err := os.Remove(filepath.Join(dir, BallastName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing disk reserve file: %w", err)
	}
	return nil
}

// createBallast writes dir/RESERVED of size bytes, allocated (fallocate,
// or zeros where the filesystem cannot), synced, and renamed into place
// whole, so a crash never leaves a short ballast under the name.
func createBallast(dir string, size int64) error {
	final := filepath.Join(dir, BallastName)
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", tmp, err)
	}
	err = allocate(f, size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("reserving %d bytes in %s: %w", size, final, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// allocate gives f size bytes of real blocks: fallocate, or writing zeros
// where the filesystem does not support it.
func allocate(f *os.File, size int64) error {
	err := fallocate(f, size)
	if err == nil || isNoSpace(err) {
		return err
	}
	zeros := make([]byte, 1<<20)
	for left := size; left > 0; {
		n := min(left, int64(len(zeros)))
		if _, err := f.Write(zeros[:n]); err != nil {
			return err
		}
		left -= n
	}
	return nil
}

// isNoSpace reports whether err is a full disk: ENOSPC from Go, or
// RocksDB's "No space left on device" (grocksdb's errors are text).
func isNoSpace(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "No space left on device") ||
		strings.Contains(err.Error(), "no space left on device")
}

// --- the server's side ---

// diskDirOf returns the guard's state of the data path holding db, nil
// without a guard.
func (s *Server) diskDirOf(db *grocksdb.DB) *diskDir {
	if s.guard == nil || db == nil {
		return nil
	}
	for i, d := range s.dbs {
		if d == db && i < len(s.guard.dirs) {
			return s.guard.dirs[i]
		}
	}
	return nil
}

// FullDataPaths lists the data paths the disk guard holds full now
// (writes to their partitions are refused); nil without a guard.
func (s *Server) FullDataPaths() []string {
	if s.guard == nil {
		return nil
	}
	var out []string
	for _, d := range s.guard.dirs {
		if d.full.Load() {
			out = append(out, d.path)
		}
	}
	return out
}

// diskFullMessage is what a refused write says.
func (s *Server) diskFullMessage(d *diskDir) string {
	r := s.guard.reserve
	return fmt.Sprintf("storaged %s: data disk %s is full (%s free; writes resume at %s free, twice the %s reserve): writes are refused until space is freed",
		s.addr, d.path, bytesize.Format(int64(d.free.Load())), bytesize.Format(int64(2*r)), bytesize.Format(int64(r)))
}

// refuseWrite fails a client write to g with E_DISK_FULL, before anything
// is proposed, when this store leads g and g's replica is on a full disk.
// A follower lets the write through to Propose, which refuses it with the
// leader's address, so that the client goes there.
func (s *Server) refuseWrite(g raftgroup.GroupID) error {
	d := s.diskDirOf(s.dbOf(g))
	if d == nil || !d.full.Load() {
		return nil
	}
	if leader, _, ok := s.engine.Leader(g); ok && leader != s.storeID {
		return nil
	}
	return &partitionError{Code: commonpb.ErrorCode_E_DISK_FULL, Msg: s.diskFullMessage(d)}
}

// refuseUpload fails an SST upload for a replica on a full disk, whether
// or not this store leads (every replica stages the file).
func (s *Server) refuseUpload(db *grocksdb.DB) error {
	d := s.diskDirOf(db)
	if d == nil || !d.full.Load() {
		return nil
	}
	return status.Error(codes.ResourceExhausted, s.diskFullMessage(d))
}

// shedState is the leadership shedding of one partition in the current
// full episode.
type shedState struct {
	next     time.Time     // no attempt before
	delay    time.Duration // pause after the next attempt
	attempts int
	alone    bool // no other voter (logged once)
}

// maxLoggedGroups bounds the partitions one log line lists.
const maxLoggedGroups = 20

// shedLeaders, run by the guard after every poll that found a full path,
// asks each partition this store leads on a full path to hand leadership
// to another voter: the up-to-date one first, then the others in turn.
// Attempts on one partition back off (an election timeout doubling up to
// shedMaxDelay), so that two full stores do not toss a partition between
// them at the poll rate; leadership that comes back by election is
// handed on again. A partition with no other voter keeps its leader and
// refuses writes.
func (s *Server) shedLeaders(ctx context.Context) {
	now := time.Now()
	var alone, moving []raftgroup.GroupID
	defer func() {
		if len(moving) > 0 {
			s.log.Info(fmt.Sprintf("moving the leadership of %d partitions off a full data disk", len(moving)),
				"groups", moving[:min(len(moving), maxLoggedGroups)])
		}
		if len(alone) > 0 {
			s.log.Warn(fmt.Sprintf("%d partitions on a full data disk have no other replica to lead them: their writes are refused until space is freed", len(alone)),
				"groups", alone[:min(len(alone), maxLoggedGroups)])
		}
	}()
	for _, l := range s.engine.Leading() {
		g := l.Group
		d := s.diskDirOf(s.dbOf(g))
		if d == nil || !d.full.Load() {
			continue
		}
		st := s.shed[g]
		if st == nil {
			st = &shedState{delay: 10 * s.cfg.RaftTick}
			s.shed[g] = st
		}
		if now.Before(st.next) {
			continue
		}
		if m, ok := s.engine.Members(g); !ok || m.Joint {
			st.next = now.Add(st.delay) // a membership change is under way: later
			continue
		}
		targets := s.shedTargets(ctx, g)
		if len(targets) == 0 {
			if !st.alone {
				alone = append(alone, g)
				st.alone = true
			}
			st.next = now.Add(shedMaxDelay)
			continue
		}
		to := targets[st.attempts%len(targets)]
		st.attempts++
		if err := s.engine.TransferLeader(g, to); err != nil {
			s.log.Debug("moving leadership off a full data disk", "group", g, "to", to, "err", err)
		} else {
			moving = append(moving, g)
		}
		st.next = now.Add(st.delay)
		st.delay = min(2*st.delay, shedMaxDelay)
	}
}

// shedTargets lists the other voters of g, most up to date first, those
// gossip suspects last.
func (s *Server) shedTargets(ctx context.Context, g raftgroup.GroupID) []uint64 {
	m, ok := s.engine.Members(g)
	if !ok {
		return nil
	}
	voters := slices.DeleteFunc(slices.Clone(m.Voters), func(id uint64) bool { return id == s.storeID })
	if len(voters) == 0 {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	st, err := s.engine.Status(sctx, g)
	suspect := func(id uint64) bool {
		if s.gossip == nil {
			return false
		}
		addr, ok := s.meta.Catalog().HostAddr(id)
		return ok && s.gossip.Suspected(addr)
	}
	slices.SortStableFunc(voters, func(a, b uint64) int {
		if sa, sb := suspect(a), suspect(b); sa != sb {
			if sa {
				return 1
			}
			return -1
		}
		if err == nil && st.Match[a] != st.Match[b] {
			if st.Match[a] > st.Match[b] {
				return -1
			}
			return 1
		}
		return 0
	})
	return voters
}

// WaitForDiskSpace returns once every data path has at least the disk
// reserve free, counting as free a ballast left by the previous run (the
// guard releases it at start), or with ctx's error. While it waits,
// Healthy reports why and it logs every 10 s. It runs before RocksDB
// opens: a storaged that exited on a full disk and was restarted by its
// supervisor waits here for space instead of crash-looping. Start calls
// it too; the daemon calls it first, without Start's deadline.
func (s *Server) WaitForDiskSpace(ctx context.Context) error {
	if s.cfg.DiskReserve <= 0 {
		return nil
	}
	reserve := uint64(s.cfg.DiskReserve)
	free := s.cfg.DiskFree
	if free == nil {
		free = StatfsFree
	}
	var lastLog time.Time
	waited := false
	for {
		short := ""
		for _, p := range s.cfg.DataPaths {
			f, err := free(existingAncestor(p))
			if err != nil {
				return fmt.Errorf("storaged: measuring free space of data path %s: %w", p, err)
			}
			if size, ok := ballastSize(p); ok {
				f += uint64(size)
			}
			if f < reserve {
				short = fmt.Sprintf("waiting for free space: data disk %s has %s free, storaged needs at least %s (disk reserve) to start", p, bytesize.Format(int64(f)), bytesize.Format(int64(reserve)))
				break
			}
		}
		if short == "" {
			if waited {
				s.log.Info("data disks have space: starting")
				s.mu.Lock()
				s.healthy = errors.New("starting")
				s.mu.Unlock()
			}
			return nil
		}
		waited = true
		s.mu.Lock()
		s.healthy = errors.New(short)
		s.mu.Unlock()
		if time.Since(lastLog) >= spaceWaitLogEvery {
			s.log.Error("storaged is " + short + "; free space on it")
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("storaged: %s: %w", short, ctx.Err())
		case <-time.After(s.cfg.DiskPollInterval):
		}
	}
}

// existingAncestor is path or its nearest existing parent (a data path is
// created at start; its disk can be measured before).
func existingAncestor(path string) string {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
	}
}

// haltError says why the raft engine halted, naming the data disk when it
// is full.
func (s *Server) haltError(err error) error {
	if !isNoSpace(err) {
		return fmt.Errorf("raft engine halted on a failed disk write: %w", err)
	}
	return fmt.Errorf("data disk %s is full: raft engine halted on a failed write: %w", s.fullPathOf(err), err)
}

// fullPathOf guesses which data path a no-space error is about: the one
// its text names, else the one with the least free space.
func (s *Server) fullPathOf(err error) string {
	msg := err.Error()
	best := ""
	for _, p := range s.cfg.DataPaths {
		if strings.Contains(msg, filepath.Clean(p)+string(filepath.Separator)) && len(p) > len(best) {
			best = p
		}
	}
	if best != "" || len(s.cfg.DataPaths) == 1 {
		if best == "" {
			best = s.cfg.DataPaths[0]
		}
		return best
	}
	free := s.cfg.DiskFree
	if free == nil {
		free = StatfsFree
	}
	least := uint64(1<<64 - 1)
	for _, p := range s.cfg.DataPaths {
		if f, ferr := free(p); ferr == nil && f < least {
			least, best = f, p
		}
	}
	if best == "" {
		return strings.Join(s.cfg.DataPaths, ",")
	}
	return best
}

// watchEngine reports, on Fatal, an engine that halted on its own (a
// failed disk write). It returns when the engine stops either way.
func (s *Server) watchEngine(e *raftgroup.Engine) {
	<-e.Halted()
	if err := e.Failed(); err != nil {
		select {
		case s.fatal <- s.haltError(err):
		default:
		}
	}
}
