package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/graphpb"
)

func newPool(t *testing.T, addrs ...string) *client.Pool {
	t.Helper()
	pool, err := client.NewPool(client.Config{Addresses: addrs, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { _ = pool.Close() })
	return pool
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestSessionAuthenticatesAndSignsOut(t *testing.T) {
	graphd := clienttest.Start(t)
	pool := newPool(t, graphd.Addr)

	sess, err := pool.Session(testContext(t), "root", "nova")
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	if sess.ID() == 0 || sess.Addr() != graphd.Addr {
		t.Errorf("session id %d on %s, want a nonzero id on %s", sess.ID(), sess.Addr(), graphd.Addr)
	}
	if got := graphd.OpenSessions(); got != 1 {
		t.Fatalf("graphd has %d open sessions, want 1", got)
	}
	if err := sess.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := graphd.OpenSessions(); got != 0 {
		t.Errorf("graphd has %d open sessions after Close, want 0", got)
	}
	if err := sess.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSessionRejectsBadPassword(t *testing.T) {
	graphd := clienttest.Start(t)
	pool := newPool(t, graphd.Addr)

	_, err := pool.Session(testContext(t), "root", "wrong")
	var qe *client.QueryError
	if !errors.As(err, &qe) || qe.Code != graphpb.QueryErrorCode_E_AUTH {
		t.Fatalf("Session with a bad password = %v, want a QueryError E_AUTH", err)
	}
	if !strings.Contains(qe.Msg, "bad username or password") {
		t.Errorf("message %q does not carry graphd's reason", qe.Msg)
	}
}

func TestSessionFailsOverFromDeadAddress(t *testing.T) {
	dead := clienttest.DeadAddr(t)
	graphd := clienttest.Start(t)
	pool := newPool(t, dead, graphd.Addr)

	// Round-robin starts on each address in turn; every session must still
	// land on the live one.
	for range 3 {
		sess, err := pool.Session(testContext(t), "root", "nova")
		if err != nil {
			t.Fatalf("Session: %v", err)
		}
		if sess.Addr() != graphd.Addr {
			t.Errorf("session on %s, want the live %s", sess.Addr(), graphd.Addr)
		}
	}
}

func TestSessionRoundRobinsOverAddresses(t *testing.T) {
	first, second := clienttest.Start(t), clienttest.Start(t)
	pool := newPool(t, first.Addr, second.Addr)

	var got []string
	for range 4 {
		sess, err := pool.Session(testContext(t), "root", "nova")
		if err != nil {
			t.Fatalf("Session: %v", err)
		}
		got = append(got, sess.Addr())
	}
	want := []string{first.Addr, second.Addr, first.Addr, second.Addr}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("sessions on %v, want %v", got, want)
	}
}

func TestSessionReportsEveryUnreachableAddress(t *testing.T) {
	deadA, deadB := clienttest.DeadAddr(t), clienttest.DeadAddr(t)
	pool := newPool(t, deadA, deadB)

	_, err := pool.Session(testContext(t), "root", "nova")
	if err == nil {
		t.Fatal("Session with no live graphd succeeded")
	}
	for _, addr := range []string{deadA, deadB} {
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("error %q does not name %s", err, addr)
		}
	}
	var te *client.TransportError
	if !errors.As(err, &te) || status.Code(te.Err) != codes.Unavailable {
		t.Errorf("error %v is not an Unavailable TransportError", err)
	}
}

func TestPoolCloseSignsOutSessions(t *testing.T) {
	graphd := clienttest.Start(t)
	pool := newPool(t, graphd.Addr)
	ctx := testContext(t)
	sess, err := pool.Session(ctx, "root", "nova")
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	if _, err := pool.Session(ctx, "root", "nova"); err != nil {
		t.Fatalf("Session: %v", err)
	}

	if err := pool.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := graphd.OpenSessions(); got != 0 {
		t.Errorf("graphd has %d open sessions after pool.Close, want 0", got)
	}
	if _, err := sess.Execute(ctx, "USE demo"); !errors.Is(err, client.ErrPoolClosed) {
		t.Errorf("Execute after pool.Close = %v, want ErrPoolClosed", err)
	}
	if _, err := pool.Session(ctx, "root", "nova"); !errors.Is(err, client.ErrPoolClosed) {
		t.Errorf("Session after pool.Close = %v, want ErrPoolClosed", err)
	}
}

func TestNewPoolRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]client.Config{
		"no addresses":  {},
		"missing port":  {Addresses: []string{"127.0.0.1"}},
		"negative size": {Addresses: []string{"127.0.0.1:9669"}, ConnsPerAddress: -1},
	} {
		if _, err := client.NewPool(cfg); err == nil {
			t.Errorf("%s: NewPool succeeded", name)
		}
	}
}
