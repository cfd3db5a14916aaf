package console

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/graphpb"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newTestSession(t *testing.T, graphd *clienttest.Graphd) *client.Session {
	t.Helper()
	pool, err := client.NewPool(client.Config{Addresses: []string{graphd.Addr}})
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { _ = pool.Close() })
	sess, err := pool.Session(testContext(t), "root", "nova")
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	return sess
}

// resultOf returns what a session makes of resp.
func resultOf(t *testing.T, resp *graphpb.ExecuteResp) *client.ResultSet {
	t.Helper()
	graphd := clienttest.Start(t)
	graphd.Script("q", resp)
	rs, err := newTestSession(t, graphd).Execute(testContext(t), "q")
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return rs
}

// fakeClock advances by step on every reading, so that every statement
// appears to take step on the client side.
func fakeClock(step time.Duration) func() time.Time {
	now := time.Unix(0, 0)
	return func() time.Time {
		now = now.Add(step)
		return now
	}
}

// newTestConsole is a console on graphd whose statements each take 250us
// of client-side time.
func newTestConsole(t *testing.T, graphd *clienttest.Graphd, format outputFormat) (c *console, stdout, stderr *bytes.Buffer) {
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	c = newConsole(newTestSession(t, graphd), "root", format, stdout, stderr)
	c.now = fakeClock(250 * time.Microsecond)
	return c, stdout, stderr
}
