package storaged

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// fakeDisk is a filesystem of capacity bytes whose other content takes
// used bytes; the ballast in dir (a real file) takes its size on top, so
// creating and deleting it moves the free space as it would on a disk.
type fakeDisk struct {
	mu             sync.Mutex
	dir            string
	capacity, used uint64
	err            error // returned by free when set
}

func (f *fakeDisk) free(path string) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	taken := f.used
	if size, ok := ballastSize(f.dir); ok {
		taken += uint64(size)
	}
	if taken >= f.capacity {
		return 0, nil
	}
	return f.capacity - taken, nil
}

// setFree makes the disk hold n free bytes while the ballast is absent.
func (f *fakeDisk) setFreeWithoutBallast(n uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.used = f.capacity - n
}

const testReserve = 64 << 10

func newTestGuard(t *testing.T, disk *fakeDisk) *diskGuard {
	t.Helper()
	return newDiskGuard([]string{disk.dir}, testReserve, time.Millisecond, disk.free, slog.New(slog.DiscardHandler), newMetrics())
}

func gaugeValue(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

func ballastOf(t *testing.T, dir string) (int64, bool) {
	t.Helper()
	return ballastSize(dir)
}

// TestDiskGuardStateMachine walks one data path through the guard's
// states: the ballast is made at start, released when less than the
// reserve is free, and made again only once twice the reserve is free.
func TestDiskGuardStateMachine(t *testing.T) {
	disk := &fakeDisk{dir: t.TempDir(), capacity: 100 * testReserve}
	g := newTestGuard(t, disk)
	d := g.dirs[0]
	if err := g.prepare(); err != nil {
		t.Fatal(err)
	}
	if size, ok := ballastOf(t, disk.dir); !ok || size != testReserve {
		t.Fatalf("after start: ballast %d bytes (exists %v), want %d", size, ok, testReserve)
	}
	if d.full.Load() {
		t.Fatal("a disk with plenty of space starts full")
	}
	if got := gaugeValue(t, g.metrics.diskFree.WithLabelValues(disk.dir)); got != float64(99*testReserve) {
		t.Fatalf("free gauge %v, want %d", got, 99*testReserve)
	}

	type step struct {
		name string
		// free is what the disk holds without the ballast; with it
		// present, reserve less.
		freeWithoutBallast uint64
		wantFull           bool
		wantBallast        bool
	}
	for _, s := range []step{
		{"exactly the reserve left beside the ballast", 2 * testReserve, false, true},
		{"one byte less: full, ballast released", 2*testReserve - 1, true, false},
		{"space back to just under twice the reserve: still full", 2*testReserve - 1, true, false},
		{"a little more, still under twice the reserve: still full", 2*testReserve - 100, true, false},
		{"more than the reserve but under twice: still full", testReserve + testReserve/2, true, false},
		{"twice the reserve free: ballast back, writes accepted", 2 * testReserve, false, true},
		{"the reserve is left beside the new ballast: stays normal", 2 * testReserve, false, true},
		{"filled again: full", testReserve, true, false},
		{"nearly nothing: full", 10, true, false},
		{"emptied: normal", 50 * testReserve, false, true},
	} {
		disk.setFreeWithoutBallast(s.freeWithoutBallast)
		g.check(d)
		_, ballast := ballastOf(t, disk.dir)
		if d.full.Load() != s.wantFull || ballast != s.wantBallast {
			t.Fatalf("%s: full %v ballast %v, want full %v ballast %v", s.name, d.full.Load(), ballast, s.wantFull, s.wantBallast)
		}
		wantGauge := 0.0
		if s.wantFull {
			wantGauge = 1
		}
		if got := gaugeValue(t, g.metrics.diskFull.WithLabelValues(disk.dir)); got != wantGauge {
			t.Fatalf("%s: full gauge %v, want %v", s.name, got, wantGauge)
		}
	}

	// A ballast deleted by hand is made again.
	if err := os.Remove(filepath.Join(disk.dir, BallastName)); err != nil {
		t.Fatal(err)
	}
	g.check(d)
	if size, ok := ballastOf(t, disk.dir); !ok || size != testReserve || d.full.Load() {
		t.Fatalf("after the ballast was deleted: ballast %d (%v), full %v", size, ok, d.full.Load())
	}

	// A failing measurement changes nothing.
	disk.mu.Lock()
	disk.err = errors.New("statfs: I/O error")
	disk.mu.Unlock()
	g.check(d)
	if d.full.Load() {
		t.Fatal("a failed measurement made the disk full")
	}
}

// TestDiskGuardStart: the state a guard starts in.
func TestDiskGuardStart(t *testing.T) {
	t.Run("no room for the ballast: starts full without one", func(t *testing.T) {
		disk := &fakeDisk{dir: t.TempDir(), capacity: 100 * testReserve}
		disk.setFreeWithoutBallast(2*testReserve - 1)
		g := newTestGuard(t, disk)
		if err := g.prepare(); err != nil {
			t.Fatal(err)
		}
		if _, ok := ballastOf(t, disk.dir); ok || !g.dirs[0].full.Load() {
			t.Fatalf("ballast %v full %v, want none and full", ok, g.dirs[0].full.Load())
		}
		disk.setFreeWithoutBallast(2 * testReserve)
		g.check(g.dirs[0])
		if _, ok := ballastOf(t, disk.dir); !ok || g.dirs[0].full.Load() {
			t.Fatalf("after space returned: ballast %v full %v", ok, g.dirs[0].full.Load())
		}
	})
	t.Run("a ballast left on a disk short of space is released: starts full", func(t *testing.T) {
		disk := &fakeDisk{dir: t.TempDir(), capacity: 100 * testReserve}
		if err := createBallast(disk.dir, testReserve); err != nil {
			t.Fatal(err)
		}
		disk.setFreeWithoutBallast(testReserve + 10) // 10 bytes free beside the ballast
		g := newTestGuard(t, disk)
		if err := g.prepare(); err != nil {
			t.Fatal(err)
		}
		if _, ok := ballastOf(t, disk.dir); ok || !g.dirs[0].full.Load() {
			t.Fatalf("ballast %v full %v, want released and full", ok, g.dirs[0].full.Load())
		}
	})
	t.Run("a ballast of another size is replaced", func(t *testing.T) {
		disk := &fakeDisk{dir: t.TempDir(), capacity: 100 * testReserve}
		if err := createBallast(disk.dir, 3*testReserve); err != nil {
			t.Fatal(err)
		}
		g := newTestGuard(t, disk)
		if err := g.prepare(); err != nil {
			t.Fatal(err)
		}
		if size, ok := ballastOf(t, disk.dir); !ok || size != testReserve || g.dirs[0].full.Load() {
			t.Fatalf("ballast %d (%v) full %v, want %d and not full", size, ok, g.dirs[0].full.Load(), testReserve)
		}
	})
	t.Run("a data path that does not exist yet is created", func(t *testing.T) {
		disk := &fakeDisk{dir: filepath.Join(t.TempDir(), "a", "b"), capacity: 100 * testReserve}
		g := newTestGuard(t, disk)
		if err := g.prepare(); err != nil {
			t.Fatal(err)
		}
		if _, ok := ballastOf(t, disk.dir); !ok {
			t.Fatal("no ballast")
		}
	})
}

// TestDiskGuardRun: the guard's goroutine notices a full disk, runs the
// while-full hook, notices the end, and returns when its context ends.
func TestDiskGuardRun(t *testing.T) {
	disk := &fakeDisk{dir: t.TempDir(), capacity: 100 * testReserve}
	g := newTestGuard(t, disk)
	var mu sync.Mutex
	whileFull, ended := 0, 0
	g.whileFull = func(context.Context) { mu.Lock(); whileFull++; mu.Unlock() }
	g.fullEnded = func() { mu.Lock(); ended++; mu.Unlock() }
	if err := g.prepare(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		g.run(ctx)
		close(done)
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("guard never got to: %s", what)
			}
		}
	}
	disk.setFreeWithoutBallast(testReserve)
	waitFor("full, hook run", func() bool { mu.Lock(); defer mu.Unlock(); return whileFull > 0 && g.dirs[0].full.Load() })
	disk.setFreeWithoutBallast(10 * testReserve)
	waitFor("not full, end hook run", func() bool { mu.Lock(); defer mu.Unlock(); return ended == 1 && !g.dirs[0].full.Load() })
	cancel()
	<-done // returns once cancelled: a hang fails the test by its timeout
}

// TestWaitForDiskSpace: a store whose disk has less than the reserve free
// waits before opening anything, says so on Healthy, and goes on once
// space is back; a ballast left by the previous run counts as free.
func TestWaitForDiskSpace(t *testing.T) {
	disk := &fakeDisk{dir: t.TempDir(), capacity: 100 * testReserve}
	disk.setFreeWithoutBallast(testReserve - 1)
	s := New(Config{DataPaths: []string{disk.dir}, DiskReserve: testReserve, DiskPollInterval: time.Millisecond, DiskFree: disk.free})
	done := make(chan error, 1)
	go func() { done <- s.WaitForDiskSpace(context.Background()) }()
	for {
		err := s.Healthy()
		if err != nil && strings.Contains(err.Error(), "waiting for free space") && strings.Contains(err.Error(), disk.dir) {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("WaitForDiskSpace returned %v with %d bytes free and a %d reserve", err, testReserve-1, testReserve)
		case <-time.After(time.Millisecond):
		}
	}
	disk.setFreeWithoutBallast(testReserve)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Healthy(); err == nil || err.Error() != "starting" {
		t.Fatalf("Healthy after the wait: %v, want starting", err)
	}

	// A ballast counts as free: no wait.
	if err := createBallast(disk.dir, testReserve); err != nil {
		t.Fatal(err)
	}
	disk.setFreeWithoutBallast(testReserve) // 0 beside the ballast
	if err := s.WaitForDiskSpace(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Cancelled while waiting: the error says why it waited.
	if err := os.Remove(filepath.Join(disk.dir, BallastName)); err != nil {
		t.Fatal(err)
	}
	disk.setFreeWithoutBallast(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.WaitForDiskSpace(ctx); err == nil || !strings.Contains(err.Error(), disk.dir) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

// TestHaltErrorNamesTheFullDisk: a RocksDB write failing for want of
// space stops storaged with a message naming the data disk.
func TestHaltErrorNamesTheFullDisk(t *testing.T) {
	s := New(Config{DataPaths: []string{"/data1", "/data2"}, DiskFree: func(p string) (uint64, error) {
		if p == "/data2" {
			return 10, nil
		}
		return 1 << 30, nil
	}})
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("writing raft log batch: IO error: No space left on device: While appending to file: /data1/rocksdb/000012.log: No space left on device"),
			"data disk /data1 is full: raft engine halted"},
		{fmt.Errorf("installing snapshot: %w", &os.PathError{Op: "write", Path: "/tmp/x", Err: syscall.ENOSPC}),
			"data disk /data2 is full: raft engine halted"}, // the path with least space
		{errors.New("writing raft log batch: IO error: checksum mismatch"), "raft engine halted on a failed disk write: writing raft log batch: IO error: checksum mismatch"},
	} {
		got := s.haltError(c.err).Error()
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("haltError(%v) = %q, want it to start with %q", c.err, got, c.want)
		}
	}
}
