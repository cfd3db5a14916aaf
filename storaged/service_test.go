package storaged

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/raftgroup"
)

// TestFlushErrorIsRetried checks what a failed resolver pass tells
// FlushIntents' caller: a proposal whose outcome is unknown becomes
// E_TIMEOUT, which the storage client retries for a call that is not a
// write, not E_OUTCOME_UNKNOWN, which it gives up on; other failures keep
// their codes.
func TestFlushErrorIsRetried(t *testing.T) {
	s := &service{}
	ambiguous := fmt.Errorf("space 1 part 2: %w: %w", raftgroup.ErrAmbiguous, context.DeadlineExceeded)
	for _, c := range []struct {
		name string
		err  error
		want commonpb.ErrorCode
	}{
		{"proposal outcome unknown", ambiguous, commonpb.ErrorCode_E_TIMEOUT},
		{"wrapped again", fmt.Errorf("resolving: %w", ambiguous), commonpb.ErrorCode_E_TIMEOUT},
		{"caller's deadline", context.DeadlineExceeded, commonpb.ErrorCode_E_TIMEOUT},
		{"group gone", fmt.Errorf("x: %w", raftgroup.ErrGroupNotFound), commonpb.ErrorCode_E_PART_NOT_FOUND},
		{"other", errors.New("disk on fire"), commonpb.ErrorCode_E_STORAGE},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := s.partError(nil, 2, flushError(c.err)).Code; got != c.want {
				t.Errorf("code %v, want %v", got, c.want)
			}
		})
	}
	if ambiguousCode := s.partError(nil, 2, ambiguous).Code; ambiguousCode != commonpb.ErrorCode_E_OUTCOME_UNKNOWN {
		t.Fatalf("without flushError an ambiguous proposal is %v: the case this test is about is gone", ambiguousCode)
	}
	if flushError(nil) != nil {
		t.Fatal("a flush that succeeded reports an error")
	}
}

// TestForEachPartIsBounded: a request naming 10,000 partitions, each
// twice, runs each once, on no more than partWorkers goroutines at a
// time, and reports every failure.
func TestForEachPartIsBounded(t *testing.T) {
	var parts []int32
	for i := range int32(10000) {
		parts = append(parts, i, i)
	}
	var running, peak atomic.Int64
	var mu sync.Mutex
	calls := map[int32]int{}
	failed := (&service{}).forEachPart(nil, parts, func(part int32) error {
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if part%1000 == 0 {
			time.Sleep(time.Millisecond) // let the workers overlap
		}
		mu.Lock()
		calls[part]++
		mu.Unlock()
		if part%10 == 0 {
			return errors.New("boom")
		}
		return nil
	})
	if len(calls) != 10000 {
		t.Fatalf("%d partitions run, want 10000", len(calls))
	}
	for p, n := range calls {
		if n != 1 {
			t.Fatalf("partition %d run %d times", p, n)
		}
	}
	if peak.Load() > int64(DefaultRequestPartWorkers) {
		t.Fatalf("%d partitions ran at once, more than DefaultRequestPartWorkers = %d", peak.Load(), DefaultRequestPartWorkers)
	}
	if len(failed) != 1000 {
		t.Fatalf("%d failures reported, want 1000", len(failed))
	}
	for _, f := range failed {
		if f.PartId%10 != 0 || f.Code != commonpb.ErrorCode_E_STORAGE || f.Message != "boom" {
			t.Fatalf("failure %+v", f)
		}
	}
}
