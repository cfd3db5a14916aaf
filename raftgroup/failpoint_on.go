//go:build failpoints

package raftgroup

import (
	"fmt"

	gofail "go.etcd.io/gofail/runtime"
)

// failpoints are registered with gofail's runtime once, at init: its
// registry is process-wide by design.
var failpoints = func() map[string]*gofail.Failpoint {
	m := make(map[string]*gofail.Failpoint, len(allFailpoints))
	for _, name := range allFailpoints {
		m[name] = gofail.NewFailpoint(name)
	}
	return m
}()

// failpoint evaluates the named failpoint: nil when it is off; an error
// naming it when its term returns a value (sleep and panic terms act inside
// gofail).
func failpoint(name string) error {
	fp := failpoints[name]
	if fp == nil {
		return nil
	}
	v, err := fp.Acquire()
	if err != nil {
		return nil // disabled
	}
	return fmt.Errorf("failpoint %s: %v", name, v)
}

// enableFailpoint turns a failpoint on with gofail terms, e.g. `return("x")`
// or `1*return("x")`; the returned func turns it off.
func enableFailpoint(name, terms string) (func(), error) {
	if err := gofail.Enable(name, terms); err != nil {
		return nil, err
	}
	return func() { _ = gofail.Disable(name) }, nil
}
