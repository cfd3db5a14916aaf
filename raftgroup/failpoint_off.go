//go:build !failpoints

package raftgroup

// failpoint is a no-op outside `failpoints` builds.
func failpoint(string) error { return nil }
