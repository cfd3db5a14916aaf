// Command nova-diskfill fills and frees a disk on purpose, for full-disk
// tests of storaged (docs/deploy.md, "Full data disk"). It is a static
// binary with no dependencies, so it runs in the FROM scratch image:
//
//	nova-diskfill hold DIR   keep running until SIGTERM or SIGINT (a sidecar
//	                         that keeps a tmpfs volume mounted)
//	nova-diskfill fill DIR   write DIR/.diskfill in 1 MiB chunks until the
//	                         disk is full (ENOSPC), sync it, print the bytes
//	                         written; exit 0 when it stopped on a full disk
//	nova-diskfill free DIR   remove DIR/.diskfill (exit 0 if it was absent)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/novagraph/novagraph/internal/buildinfo"
)

// fillName is the file fill writes and free removes.
const fillName = ".diskfill"

// chunk is the size of one write.
const chunk = 1 << 20

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `Usage: nova-diskfill hold|fill|free DIR

  hold DIR   keep running until SIGTERM or SIGINT (keeps a volume in use)
  fill DIR   write DIR/.diskfill in 1 MiB chunks until the disk is full
             (ENOSPC), sync it and print the bytes written; exit 0 when it
             stopped on a full disk, 1 on any other error
  free DIR   remove DIR/.diskfill; exit 0 also when it was absent
`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nova-diskfill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	showVersion := buildinfo.Flag(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Read().String("nova-diskfill"))
		return 0
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	cmd, dir := fs.Arg(0), fs.Arg(1)
	var err error
	switch cmd {
	case "hold":
		err = hold(ctx, dir, stdout)
	case "fill":
		var n int64
		n, err = fillDir(dir, openFill)
		if err == nil {
			fmt.Fprintf(stdout, "wrote %d bytes to %s: the disk is full\n", n, filepath.Join(dir, fillName))
		} else {
			fmt.Fprintf(stderr, "nova-diskfill: wrote %d bytes, then: %v\n", n, err)
			return 1
		}
	case "free":
		err = free(dir)
		if err == nil {
			fmt.Fprintf(stdout, "removed %s\n", filepath.Join(dir, fillName))
		}
	default:
		fmt.Fprintf(stderr, "nova-diskfill: unknown command %q\n", cmd)
		fs.Usage()
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "nova-diskfill:", err)
		return 1
	}
	return 0
}

// hold waits until ctx ends (the signal).
func hold(ctx context.Context, dir string, out io.Writer) error {
	if fi, err := os.Stat(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	fmt.Fprintf(out, "holding %s until SIGTERM or SIGINT\n", dir)
	<-ctx.Done()
	return nil
}

// fillFile is the file fill writes: *os.File, or a fake in tests.
type fillFile interface {
	io.Writer
	Sync() error
	Close() error
}

// openFill opens the fill file for appending (a variable: tests fake it).
var openFill = func(path string) (fillFile, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// fillDir appends to dir/.diskfill until the disk is full and syncs it.
// It returns the bytes written, and nil only when it stopped on ENOSPC.
func fillDir(dir string, open func(string) (fillFile, error)) (int64, error) {
	f, err := open(filepath.Join(dir, fillName))
	if err != nil {
		return 0, err
	}
	n, err := fill(f)
	if err != nil {
		f.Close()
		return n, err
	}
	// A filesystem that allocates late (ext4's delayed allocation) may
	// report the full disk only here: that is the same success.
	if err := f.Sync(); err != nil && !isNoSpace(err) {
		f.Close()
		return n, fmt.Errorf("syncing: %w", err)
	}
	if err := f.Close(); err != nil && !isNoSpace(err) {
		return n, err
	}
	return n, nil
}

// fill writes 1 MiB chunks of zeros to w until a write fails. It returns
// the bytes written (a partial last write included) and nil when the
// failure was ENOSPC, the error otherwise.
func fill(w io.Writer) (int64, error) {
	buf := make([]byte, chunk)
	var total int64
	for {
		n, err := w.Write(buf)
		total += int64(n)
		if err != nil {
			if isNoSpace(err) {
				return total, nil
			}
			return total, err
		}
	}
}

func isNoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// free removes dir/.diskfill.
func free(dir string) error {
	err := os.Remove(filepath.Join(dir, fillName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
