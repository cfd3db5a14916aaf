package storaged

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
