//go:build failpoints

package storaged_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/internal/failpoint"
)

// TestFailpointNoSpaceStopsTheStore: a raft log write that fails with "No
// space left on device" (a filler raced the guard's poll) halts the raft
// engine; the store reports it on Fatal, naming the full data disk, so
// that the daemon exits for its supervisor to restart it. The restart,
// on a disk still full except for the reserve file the previous run
// held, starts in the full state on the released reserve: it serves
// reads, refuses writes, and once space returns takes writes again, with
// everything acknowledged before the failure intact.
func TestFailpointNoSpaceStopsTheStore(t *testing.T) {
	c, disks := startDiskCluster(t, 1)
	dir := c.DataDir(0)
	s := c.Session()
	defer s.Close()
	mustExec(t, s, "CREATE SPACE nospace(partition_num=3, replica_factor=1, vid_type=INT64)")
	mustExec(t, s, "USE nospace")
	mustExec(t, s, "CREATE TAG t(x int)")
	mustExec(t, s, "INSERT VERTEX t(x) VALUES 1:(1), 2:(2), 3:(3)")
	want := []string{"1|1", "2|2", "3|3"}

	off, err := failpoint.Enable("raftgroup/beforeLogWrite", `return("IO error: No space left on device")`)
	if err != nil {
		t.Fatal(err)
	}
	srv := c.Stores[0].Server
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, _ = s.Execute(ctx, "INSERT VERTEX t(x) VALUES 4:(4)") // fails: never acknowledged
	}()
	select {
	case err := <-srv.Fatal():
		if !strings.Contains(err.Error(), "data disk "+dir+" is full") {
			t.Fatalf("Fatal: %v, want it to name data disk %s", err, dir)
		}
		t.Logf("store stopped: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the engine halted on no space but Fatal said nothing")
	}
	if err := srv.Healthy(); err == nil {
		t.Fatal("a halted store reports healthy")
	}
	off()

	// The supervisor restarts it on a disk whose free space the filler
	// took: only the reserve file is left.
	c.StopStore(0)
	disks.fill(0, 0)
	c.RestartStore(0)
	srv = c.Stores[0].Server
	if got := srv.FullDataPaths(); !slices.Equal(got, []string{dir}) {
		t.Fatalf("restarted on the reserve only: full paths %v, want [%s]", got, dir)
	}
	if ballastExists(dir) {
		t.Fatal("the restart kept the reserve file on a full disk")
	}
	var got []string
	waitUntil(t, "reads work after the restart", func() bool {
		got, err = exec(s, "FETCH PROP ON t 1, 2, 3 YIELD id(vertex), t.x")
		return err == nil
	})
	if !slices.Equal(got, want) {
		t.Fatalf("after the restart: %q, want %q", got, want)
	}
	if _, err := exec(s, "INSERT VERTEX t(x) VALUES 5:(5)"); err == nil || !strings.Contains(err.Error(), "E_DISK_FULL") {
		t.Fatalf("a write on the restarted full store: %v, want E_DISK_FULL", err)
	}

	disks.empty(0)
	waitUntil(t, "the store sees space again", func() bool { return len(srv.FullDataPaths()) == 0 })
	mustExec(t, s, "INSERT VERTEX t(x) VALUES 5:(5)")
	got = mustExec(t, s, "FETCH PROP ON t 1, 2, 3, 5 YIELD id(vertex), t.x")
	if want := append(want, "5|5"); !slices.Equal(got, want) {
		t.Fatalf("after recovery: %q, want %q", got, want)
	}
}
