package br

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Store is where a backup's files live. The local directory (DirStore) is
// the one this version has; an object store (S3, GCS) would implement the
// same five calls. Names are slash-separated paths relative to the
// backup's root.
type Store interface {
	// Create returns a writer for name; the file is in place, whole, only
	// once Close returns nil (a crash leaves no half file under name), and
	// never after Abort.
	Create(name string) (Writer, error)
	// Open reads name.
	Open(name string) (io.ReadCloser, error)
	// Exists reports whether name is in the store.
	Exists(name string) (bool, error)
	// LocalPath returns a path on this machine holding name's content
	// (the file itself for a directory, a downloaded copy for a remote
	// store) and a function that releases it.
	LocalPath(name string) (string, func(), error)
	// String names the store in messages.
	String() string
}

// Writer is a file being written to a Store.
type Writer interface {
	io.WriteCloser
	// Abort drops what was written; name stays as it was.
	Abort() error
}

// DirStore is a backup in a local directory.
type DirStore struct{ Dir string }

func (d DirStore) path(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return "", fmt.Errorf("backup file name %q is not a relative path inside the backup", name)
	}
	return filepath.Join(d.Dir, filepath.FromSlash(name)), nil
}

// Create implements Store: it writes name.tmp and renames it at Close.
func (d DirStore) Create(name string) (Writer, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(p + ".tmp")
	if err != nil {
		return nil, err
	}
	return &renameOnClose{f: f, to: p}, nil
}

type renameOnClose struct {
	f  *os.File
	to string
}

func (r *renameOnClose) Write(b []byte) (int, error) { return r.f.Write(b) }

func (r *renameOnClose) Abort() error {
	r.f.Close()
	return os.Remove(r.f.Name())
}

func (r *renameOnClose) Close() error {
	if err := r.f.Sync(); err != nil {
		r.f.Close()
		return err
	}
	if err := r.f.Close(); err != nil {
		return err
	}
	return os.Rename(r.f.Name(), r.to)
}

// Open implements Store.
func (d DirStore) Open(name string) (io.ReadCloser, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// Exists implements Store.
func (d DirStore) Exists(name string) (bool, error) {
	p, err := d.path(name)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if os.IsNotExist(err) {
		return false, nil
	}
	return err == nil, err
}

// LocalPath implements Store: the file itself.
func (d DirStore) LocalPath(name string) (string, func(), error) {
	p, err := d.path(name)
	return p, func() {}, err
}

func (d DirStore) String() string { return d.Dir }
