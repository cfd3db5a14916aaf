package main

import (
	"strings"
	"testing"
)

// TestAdjacencyFlagsRefused: values the adjacency cache cannot use stop
// storaged before it opens anything, naming the flag.
func TestAdjacencyFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--adjacency-cache-size", "-1"}, `"-1" is not a size`},
		{[]string{"--raft-entry-cache-size", "-64MiB"}, `"-64MiB" is not a size`},
		{[]string{"--raft-entry-cache-size", "lots"}, `"lots" is not a size`},
		{[]string{"--adjacency-quiet", "0s"}, "--adjacency-quiet must be positive"},
		{[]string{"--adjacency-quiet", "-1s"}, "--adjacency-quiet must be positive"},
	} {
		err := run(append([]string{"--data-path", t.TempDir()}, tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("storaged %v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
