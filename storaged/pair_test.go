package storaged

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// TestPassCursorLeavesTheLowestKey: the resume hint may not pass any
// intent a pass left, whatever order the batch recorded them in (skipped
// ones first, then those whose target failed in the batch, which can lie
// below them).
func TestPassCursorLeavesTheLowestKey(t *testing.T) {
	k := func(index uint64) []byte { return partition.IntentKey(1, 1, index, 0) }
	for _, tc := range []struct {
		name  string
		order []uint64
		want  uint64
	}{
		{"in key order", []uint64{5, 7, 9}, 5},
		{"a skipped intent recorded before a lower failed one", []uint64{7, 5}, 5},
		{"lowest in the middle", []uint64{9, 3, 6}, 3},
		{"one", []uint64{4}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &passCursor{failed: map[int32]error{}}
			for _, i := range tc.order {
				c.leave(k(i))
			}
			if !bytes.Equal(c.firstLeft, k(tc.want)) {
				idx, _, _ := partition.ParseIntentKey(c.firstLeft)
				t.Fatalf("firstLeft is intent %d, want %d", idx, tc.want)
			}
		})
	}
}

// TestTargetBackoff follows one target partition through failures and a
// success: skipped until its retry time, the delay doubling per failure up
// to the cap but not for failures of batches already under way, and
// cleared by a success.
func TestTargetBackoff(t *testing.T) {
	r := &resolver{backoff: map[raftgroup.GroupID]*targetBackoff{}}
	target := raftgroup.GroupID{Space: 1, Part: 7}
	intents := []*storagepb.Intent{{TargetPart: 7}, {TargetPart: 8}}
	boom := errors.New("no leader")
	fail := func() { r.noteTargets(1, intents, map[int32]error{7: boom}) }
	delay := func() time.Duration { return r.backoff[target].delay }

	fail()
	if err := r.backingOff(target, time.Now()); err == nil || !errors.Is(err, boom) {
		t.Fatalf("right after a failure: %v, want a wait wrapping %v", err, boom)
	}
	if r.backingOff(raftgroup.GroupID{Space: 1, Part: 8}, time.Now()) != nil {
		t.Fatal("the target that applied backs off")
	}
	if delay() != targetBackoffMin {
		t.Fatalf("first delay %v, want %v", delay(), targetBackoffMin)
	}
	fail() // another batch under way when the first failed
	if delay() != targetBackoffMin {
		t.Fatalf("a concurrent failure doubled the delay to %v", delay())
	}
	for range 10 {
		r.backoff[target].retryAt = time.Now().Add(-time.Millisecond) // its wait is over
		if r.backingOff(target, time.Now()) != nil {
			t.Fatal("still backing off after its retry time")
		}
		fail()
	}
	if delay() != targetBackoffMax {
		t.Fatalf("after many failures the delay is %v, want the cap %v", delay(), targetBackoffMax)
	}
	r.noteTargets(1, intents, nil)
	if r.backingOff(target, time.Now()) != nil || r.backoff[target] != nil {
		t.Fatal("a success did not clear the backoff")
	}
	if r.stats.failedTargets.Load() != 12 {
		t.Fatalf("failed targets counted %d, want 12", r.stats.failedTargets.Load())
	}
}
