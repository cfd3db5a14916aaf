package metad

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// TestJobStepsWaitForGossipSuspects: a step on a host whose lease lives but
// which gossip holds dead fails (retryably) instead of starting; once the
// host answers gossip again, the step may go on. Without gossip the lease
// alone decides.
func TestJobStepsWaitForGossipSuspects(t *testing.T) {
	host := &metapb.HostInfo{StoreId: 7, Online: true, Addr: &commonpb.HostAddr{Host: "127.0.0.1", Port: 9797}}
	v := &view{cat: &metapb.Catalog{Hosts: []*metapb.HostInfo{host}}}

	var s Server
	if err := s.checkOnline(v, 7); err != nil {
		t.Fatalf("without gossip, an online host passes: %v", err)
	}

	meta, err := gossip.Start(gossip.Config{Role: "metad", ServiceAddr: "127.0.0.1:9559"})
	if err != nil {
		t.Fatal(err)
	}
	defer meta.Kill()
	s.gossip = meta
	store, err := gossip.Start(gossip.Config{Role: "storaged", ServiceAddr: "127.0.0.1:9797", Seeds: []string{meta.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	waitGossip(t, func() bool { return len(meta.Members()) == 2 })
	if err := s.checkOnline(v, 7); err != nil {
		t.Fatalf("a live host in gossip passes: %v", err)
	}

	store.Kill() // crash: the lease (host.Online) still says online
	waitGossip(t, func() bool { return meta.Suspected("127.0.0.1:9797") })
	if err := s.checkOnline(v, 7); err == nil || !strings.Contains(err.Error(), "suspected down by gossip") {
		t.Fatalf("a host gossip holds dead must hold the step: %v", err)
	} else if errors.As(err, new(permanentError)) {
		t.Fatalf("the suspicion must be retryable: %v", err)
	}

	back, err := gossip.Start(gossip.Config{Role: "storaged", ServiceAddr: "127.0.0.1:9797", Seeds: []string{meta.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Kill()
	waitGossip(t, func() bool { return !meta.Suspected("127.0.0.1:9797") })
	if err := s.checkOnline(v, 7); err != nil {
		t.Fatalf("the host answers again: %v", err)
	}

	host.Online = false // the lease expired: offline whatever gossip says
	if err := s.checkOnline(v, 7); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("an expired lease makes the host offline: %v", err)
	}
}

func waitGossip(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("gossip did not converge within 20s")
}
