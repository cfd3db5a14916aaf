//go:build failpoints

package failpoint

import (
	"fmt"
	"sync"

	gofail "go.etcd.io/gofail/runtime"
)

// Enabled is true in builds with the failpoints tag.
const Enabled = true

var (
	mu     sync.Mutex
	points = map[string]*gofail.Failpoint{}
)

// Register declares a failpoint; call it from a package's init (gofail's
// registry is process-wide by design).
func Register(name string) {
	mu.Lock()
	defer mu.Unlock()
	if points[name] == nil {
		points[name] = gofail.NewFailpoint(name)
	}
}

// Eval returns nil when the named failpoint is off, and an error naming it
// when its term returns a value (sleep and panic terms act inside gofail).
func Eval(name string) error {
	mu.Lock()
	fp := points[name]
	mu.Unlock()
	if fp == nil {
		return nil
	}
	v, err := fp.Acquire()
	if err != nil {
		return nil // disabled
	}
	return fmt.Errorf("failpoint %s: %v", name, v)
}

// Enable turns a failpoint on with gofail terms, e.g. `return("x")` or
// `1*return("x")`; the returned func turns it off.
func Enable(name, terms string) (func(), error) {
	if err := gofail.Enable(name, terms); err != nil {
		return nil, err
	}
	return func() { _ = gofail.Disable(name) }, nil
}
