package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// TestNoMetadReachable: a call that no metad can serve fails at the
// caller's deadline with an UnavailableError naming every address tried
// and why, and the cache keeps what it had.
func TestNoMetadReachable(t *testing.T) {
	dead := []string{freeAddr(t), freeAddr(t)}
	c := client.New(dead, testLogger())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, _, err := c.CreateSpace(ctx, &metapb.SpaceDesc{Name: "g", PartitionNum: 1, ReplicaFactor: 1}, false)
	var ue *client.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("CreateSpace with no metad: %v, want an UnavailableError", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("CreateSpace with no metad took %s despite a 1s deadline", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || client.CodeOf(err) != commonpb.ErrorCode_E_TIMEOUT {
		t.Fatalf("%v: not the deadline (code %s)", err, client.CodeOf(err))
	}
	for _, addr := range dead {
		if !strings.Contains(err.Error(), addr+": ") {
			t.Fatalf("%q does not name %s with its error", err, addr)
		}
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("%q does not say why", err)
	}
	if c.Catalog().Version() != 0 {
		t.Fatal("the cache changed")
	}
}
