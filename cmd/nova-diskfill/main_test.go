package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeFile accepts room bytes, then fails writes with err (after a
// partial write, as a real disk does); Sync fails with syncErr.
type fakeFile struct {
	room, written int64
	err, syncErr  error
	synced        bool
}

func (f *fakeFile) Write(p []byte) (int, error) {
	if left := f.room - f.written; int64(len(p)) > left {
		f.written += left
		return int(left), &os.PathError{Op: "write", Path: "fake/.diskfill", Err: f.err}
	}
	f.written += int64(len(p))
	return len(p), nil
}

func (f *fakeFile) Sync() error  { f.synced = true; return f.syncErr }
func (f *fakeFile) Close() error { return nil }

// fill stops on ENOSPC with every byte counted, a partial last chunk
// included, and syncs; other errors fail it.
func TestFillStopsOnNoSpace(t *testing.T) {
	const room = 3*chunk + 12345
	f := &fakeFile{room: room, err: syscall.ENOSPC}
	n, err := fillDir("dir", func(string) (fillFile, error) { return f, nil })
	if err != nil || n != room || !f.synced {
		t.Fatalf("fill: %d bytes, err %v, synced %v; want %d, nil, true", n, err, f.synced, room)
	}

	// Delayed allocation: the write went through, the sync says ENOSPC.
	f = &fakeFile{room: chunk, err: syscall.ENOSPC, syncErr: &os.PathError{Op: "sync", Path: "x", Err: syscall.ENOSPC}}
	if n, err := fillDir("dir", func(string) (fillFile, error) { return f, nil }); err != nil || n != chunk {
		t.Fatalf("ENOSPC at sync: %d, %v", n, err)
	}

	f = &fakeFile{room: 2 * chunk, err: syscall.EIO}
	if n, err := fillDir("dir", func(string) (fillFile, error) { return f, nil }); !errors.Is(err, syscall.EIO) || n != 2*chunk {
		t.Fatalf("EIO: %d bytes, err %v; want %d, EIO", n, err, 2*chunk)
	}
	f = &fakeFile{room: chunk, err: syscall.ENOSPC, syncErr: syscall.EIO}
	if _, err := fillDir("dir", func(string) (fillFile, error) { return f, nil }); !errors.Is(err, syscall.EIO) {
		t.Fatalf("EIO at sync: %v", err)
	}
}

// The fill command's exit code and output, with the file faked (a real
// fill would fill the test machine's disk).
func TestFillCommand(t *testing.T) {
	dir := t.TempDir()
	defer func(open func(string) (fillFile, error)) { openFill = open }(openFill)
	var opened string
	openFill = func(p string) (fillFile, error) {
		opened = p
		return &fakeFile{room: 5*chunk + 1, err: syscall.ENOSPC}, nil
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"fill", dir}, &out, &errOut); code != 0 {
		t.Fatalf("fill exited %d: %s", code, errOut.String())
	}
	if opened != filepath.Join(dir, ".diskfill") || !strings.Contains(out.String(), "wrote 5242881 bytes") {
		t.Fatalf("fill opened %s and said %q", opened, out.String())
	}
	openFill = func(string) (fillFile, error) { return &fakeFile{room: chunk, err: syscall.EIO}, nil }
	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"fill", dir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "input/output error") {
		t.Fatalf("fill on EIO exited %d: %q", code, errOut.String())
	}
}

func TestFree(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".diskfill")
	if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // present, then absent
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"free", dir}, &out, &errOut); code != 0 {
			t.Fatalf("free #%d exited %d: %s", i, code, errOut.String())
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("after free: %v", err)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"fill"}, {"grow", "/tmp"}, {"fill", "a", "b"}} {
		if code := run(context.Background(), args, io.Discard, io.Discard); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if code := run(context.Background(), []string{"hold", filepath.Join(t.TempDir(), "missing")}, io.Discard, io.Discard); code != 1 {
		t.Errorf("hold on a missing dir: exit %d, want 1", code)
	}
}

// hold returns once its context ends.
func TestHoldEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- run(ctx, []string{"hold", t.TempDir()}, io.Discard, io.Discard) }()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("hold exited %d", code)
	}
}

// The real process: hold exits 0 on SIGTERM and on SIGINT.
func TestHoldExitsOnSignal(t *testing.T) {
	if os.Getenv("NOVA_DISKFILL_MAIN") != "" {
		os.Args = append([]string{"nova-diskfill"}, strings.Fields(os.Getenv("NOVA_DISKFILL_MAIN"))...)
		main()
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHoldExitsOnSignal$")
		cmd.Env = append(os.Environ(), "NOVA_DISKFILL_MAIN=hold "+t.TempDir())
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "holding ") {
			t.Fatalf("hold said %q, %v", line, err)
		}
		// It printed after installing its signal handler: signalling
		// now ends it cleanly.
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("hold after %v: %v, want exit 0", sig, err)
		}
	}
}
