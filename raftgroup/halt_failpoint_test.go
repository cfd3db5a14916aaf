//go:build failpoints

package raftgroup

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFailpointFailedWriteHaltsEngine: a failed log write (the append
// writer) and a failed apply write (a worker) each halt the engine: Halted
// closes, Failed says why, and the engine takes no proposal after it. The
// failed proposal is never acknowledged. storaged exits on this
// (storaged.Server.Fatal).
func TestFailpointFailedWriteHaltsEngine(t *testing.T) {
	for _, point := range []string{fpBeforeLogWrite, fpBeforeApply} {
		t.Run(point, func(t *testing.T) {
			net := newMemNetwork()
			g := GroupID{12, 1}
			s := &testStore{id: 1, dir: t.TempDir()}
			s.start(t, net, []GroupID{g}, []uint64{1})
			defer s.stop(net)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := propose(ctx, []*testStore{s}, g, 1, "before"); err != nil {
				t.Fatal(err)
			}
			off, err := enableFailpoint(point, `return("IO error: No space left on device")`)
			if err != nil {
				t.Fatal(err)
			}
			defer off()
			err = s.engine.Propose(ctx, g, append(binary.BigEndian.AppendUint64(nil, 2), "after"...))
			if !errors.Is(err, ErrStopped) {
				t.Fatalf("proposal across the failed write: %v, want ErrStopped", err)
			}
			select {
			case <-s.engine.Halted():
			case <-ctx.Done():
				t.Fatal("the engine did not halt")
			}
			if err := s.engine.Failed(); err == nil || !strings.Contains(err.Error(), "No space left on device") {
				t.Fatalf("Failed() = %v", err)
			}
			if err := s.engine.Propose(ctx, g, append(binary.BigEndian.AppendUint64(nil, 3), "later"...)); !errors.Is(err, ErrStopped) && !errors.Is(err, ErrGroupNotFound) {
				t.Fatalf("proposal after the halt: %v", err)
			}
		})
	}
}
