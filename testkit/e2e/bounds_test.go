package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestHostileClientBounds plays a client that tries to hold graphd (issue
// 24, "Bounds"): statements too long to parse, limits lifted by a user who
// is not GOD, step counts meant to spin, strings doubled until memory runs
// out, a password-guessing flood and a session flood. Each is refused with
// an error that says what was wrong and what the limit is.
func TestHostileClientBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	const sessionCap = 3
	c := testcluster.Start(t, testcluster.Options{Stores: 1, Graph: func(cfg *graphd.Config) {
		cfg.MaxSessionsPerUser = sessionCap
		cfg.QueryMemoryLimit = 256 << 20
		cfg.QueryTimeout = 30 * time.Second
	}})
	root := c.Session()
	defer root.Close()
	exec(t, root, `CREATE SPACE bounds(partition_num=2, replica_factor=1, vid_type=FIXED_STRING(16))`)
	exec(t, root, `CREATE USER mallory WITH PASSWORD 'mallory-pw'`)
	exec(t, root, `GRANT ROLE USER ON bounds TO mallory`)
	exec(t, root, `CREATE USER sybil WITH PASSWORD 'sybil-pw'`)
	exec(t, root, `USE bounds`)
	exec(t, root, `CREATE EDGE e()`)

	t.Run("statement size", func(t *testing.T) {
		long := "YIELD 1" + strings.Repeat(" ", graphd.DefaultMaxStatementBytes)
		expectError(t, root, long, graphpb.QueryErrorCode_E_SYNTAX, "4.0 MiB", "at most 4 MiB", "--max-statement-bytes")
		exec(t, root, "YIELD 1"+strings.Repeat(" ", graphd.DefaultMaxStatementBytes-len("YIELD 1")))

		// Beyond gRPC's message limit the request is refused before graphd
		// reads it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := root.Execute(ctx, "YIELD 1"+strings.Repeat(" ", 100<<20))
		var te *client.TransportError
		if !errors.As(err, &te) || status.Code(te.Err) != codes.ResourceExhausted {
			t.Fatalf("100 MiB statement: %v, want gRPC ResourceExhausted", err)
		}
		exec(t, root, "YIELD 1") // the session still works
	})

	t.Run("limits only GOD may raise", func(t *testing.T) {
		m := signIn(t, c, "mallory", "mallory-pw")
		expectDenied(t, m, `SET QUERY_MEMORY_LIMIT = 0`, "not GOD", "no limit", "256 MiB")
		expectDenied(t, m, `SET QUERY_MEMORY_LIMIT = 1GiB`, "not GOD", "above graphd's 256 MiB")
		expectDenied(t, m, `SET QUERY_TIMEOUT = 0`, "not GOD", "no timeout", "30s")
		expectDenied(t, m, `SET QUERY_TIMEOUT = 1m`, "not GOD", "above graphd's 30s")
		exec(t, m, `SET QUERY_MEMORY_LIMIT = 16MiB`) // lowering is anyone's right
		exec(t, m, `SET QUERY_TIMEOUT = 5s`)
		exec(t, m, `SET QUERY_MEMORY_LIMIT = DEFAULT`)
		exec(t, root, `SET QUERY_MEMORY_LIMIT = 0`)
		exec(t, root, `SET QUERY_TIMEOUT = 0`)
		exec(t, root, `SET QUERY_MEMORY_LIMIT = DEFAULT`)
		exec(t, root, `SET QUERY_TIMEOUT = DEFAULT`)
	})

	t.Run("growth", func(t *testing.T) {
		expectError(t, root, `GO 2147483647 STEPS FROM "a" OVER e`, graphpb.QueryErrorCode_E_SYNTAX, "step count must be an integer from 0 to 1000")
		// Each statement doubles the string: 1 MiB, then 2, 4, 8, 16 and
		// 32, which is over the 16 MiB a value may have.
		stmt := `$a = YIELD lpad("", 1048576, "x") AS s`
		for i, prev := 0, "$a"; i < 5; i++ {
			next := fmt.Sprintf("$b%d", i)
			stmt += fmt.Sprintf("; %s = YIELD %s.s + %s.s AS s", next, prev, prev)
			prev = next
		}
		expectError(t, root, stmt, graphpb.QueryErrorCode_E_EXECUTION, "string of 33554432 bytes", "limit is 16777216")
	})

	t.Run("sign-in flood", func(t *testing.T) {
		// The first failures are answered as wrong passwords; then graphd
		// stops asking metad, even for the right password.
		limited := 0
		for i := 0; i < 30; i++ {
			_, err := c.SessionAs("mallory", fmt.Sprintf("guess-%d", i))
			var qe *client.QueryError
			if !errors.As(err, &qe) || qe.Code != graphpb.QueryErrorCode_E_AUTH {
				t.Fatalf("guess %d: %v, want E_AUTH", i, err)
			}
			if strings.Contains(qe.Msg, "too many failed sign-ins") {
				limited++
			} else if qe.Msg != "bad username or password" {
				t.Fatalf("guess %d: %q", i, qe.Msg)
			}
		}
		if limited < 15 {
			t.Fatalf("%d of 30 rapid wrong guesses were rate limited, want most of those after the first 10", limited)
		}
		if _, err := c.SessionAs("mallory", "mallory-pw"); err == nil || !strings.Contains(err.Error(), "too many failed sign-ins") {
			t.Fatalf("right password during the flood: %v, want the rate limit", err)
		}
		// Another user from the same host is not locked out by mallory's
		// failures (30 are below the per-host burst).
		signIn(t, c, "root", testcluster.Password)
	})

	t.Run("sessions per user", func(t *testing.T) {
		var open []*client.Session
		for i := 0; i < sessionCap; i++ {
			open = append(open, signIn(t, c, "sybil", "sybil-pw"))
		}
		_, err := c.SessionAs("sybil", "sybil-pw")
		if err == nil || !strings.Contains(err.Error(), "already has") || !strings.Contains(err.Error(), "--max-sessions-per-user") {
			t.Fatalf("session over the cap: %v", err)
		}
		// Signing out frees a place; ids are random, not a counter.
		if open[0].ID()+1 == open[1].ID() && open[1].ID()+1 == open[2].ID() {
			t.Fatalf("session ids %d, %d, %d look like a counter", open[0].ID(), open[1].ID(), open[2].ID())
		}
		open[0].Close()
		signIn(t, c, "sybil", "sybil-pw")
	})
}
