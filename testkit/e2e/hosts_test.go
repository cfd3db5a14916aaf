package e2e

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// showHosts returns SHOW HOSTS as "host:port|status|leaders|leader dist|part dist"
// by "host:port".
func showHosts(t *testing.T, s *client.Session) map[string]string {
	t.Helper()
	rs := exec(t, s, "SHOW HOSTS")
	if got := strings.Join(rs.Columns(), ","); got != "Host,Port,Status,Leader count,Leader distribution,Partition distribution" {
		t.Fatalf("SHOW HOSTS columns: %s", got)
	}
	out := map[string]string{}
	for i := 0; i < rs.Len(); i++ {
		row := rs.Row(i)
		host, _ := row.String(0)
		port, _ := row.Int(1)
		status, _ := row.String(2)
		leaders, _ := row.Int(3)
		ld, _ := row.String(4)
		pd, _ := row.String(5)
		out[net.JoinHostPort(host, fmt.Sprint(port))] = fmt.Sprintf("%s|%d|%s|%s", status, leaders, ld, pd)
	}
	return out
}

// waitHosts polls SHOW HOSTS until ok accepts it.
func waitHosts(t *testing.T, s *client.Session, what string, ok func(map[string]string) bool) map[string]string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h := showHosts(t, s)
		if ok(h) {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("SHOW HOSTS never showed %s: %v", what, h)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestHostStatements: SHOW HOSTS, ADD HOSTS and DROP HOSTS through graphd
// (NebulaGraph 3.x semantics; hosts that register are added by
// themselves).
func TestHostStatements(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 2})
	s := c.Session()
	defer s.Close()
	a, b := c.Stores[0].Server.Addr(), c.Stores[1].Server.Addr()

	h := showHosts(t, s)
	if len(h) != 2 || h[a] != "ONLINE|0|No valid partition|No valid partition" || h[b] != h[a] {
		t.Fatalf("SHOW HOSTS of a new cluster: %v", h)
	}

	// One partition: one host holds it and, once it is elected, leads it.
	exec(t, s, "CREATE SPACE g(partition_num=1, replica_factor=1, vid_type=INT64)")
	exec(t, s, "USE g")
	exec(t, s, "CREATE EDGE e()")
	exec(t, s, "INSERT EDGE e() VALUES 1->2:()")
	h = waitHosts(t, s, "the leader of g", func(h map[string]string) bool {
		return h[a] == "ONLINE|1|g:1|g:1" || h[b] == "ONLINE|1|g:1|g:1"
	})
	holder, free, freeSlot := a, b, 1
	if h[b] == "ONLINE|1|g:1|g:1" {
		holder, free, freeSlot = b, a, 0
	}
	if h[free] != "ONLINE|0|No valid partition|No valid partition" {
		t.Fatalf("SHOW HOSTS: the host without g shows %q", h[free])
	}

	// A host added before its storaged runs is OFFLINE and holds nothing.
	phantom := freeAddr(t)
	phHost, phPort, _ := net.SplitHostPort(phantom)
	exec(t, s, fmt.Sprintf(`ADD HOSTS "%s":%s`, phHost, phPort))
	if got := showHosts(t, s)[phantom]; got != "OFFLINE|0|No valid partition|No valid partition" {
		t.Fatalf("SHOW HOSTS of an added host that never ran: %q", got)
	}
	expectError(t, s, fmt.Sprintf(`ADD HOSTS "%s":%s`, phHost, phPort), graphpb.QueryErrorCode_E_SEMANTIC,
		"ADD HOSTS", phantom+" is already added")

	// A host with a replica cannot be dropped.
	hh, hp, _ := net.SplitHostPort(holder)
	expectError(t, s, fmt.Sprintf(`DROP HOSTS "%s":%s`, hh, hp), graphpb.QueryErrorCode_E_SEMANTIC,
		"DROP HOSTS", holder+" still holds partition replicas (space g: part 1)")
	expectError(t, s, `DROP HOSTS "127.0.0.1":1`, graphpb.QueryErrorCode_E_SEMANTIC, "127.0.0.1:1 is not added")

	// The phantom and a stopped host without replicas can.
	exec(t, s, fmt.Sprintf(`DROP HOSTS "%s":%s`, phHost, phPort))
	if _, ok := showHosts(t, s)[phantom]; ok {
		t.Fatal("SHOW HOSTS lists a dropped host")
	}
	c.StopStore(freeSlot)
	waitHosts(t, s, free+" OFFLINE", func(h map[string]string) bool { return strings.HasPrefix(h[free], "OFFLINE|") })
	fh, fp, _ := net.SplitHostPort(free)
	exec(t, s, fmt.Sprintf(`DROP HOSTS "%s":%s`, fh, fp))
	h = showHosts(t, s)
	if _, ok := h[free]; ok || len(h) != 1 {
		t.Fatalf("SHOW HOSTS after dropping %s: %v", free, h)
	}
	expectRows(t, s, "GO FROM 1 OVER e YIELD dst(edge) AS d", "2")

	// Restarted, the storaged registers and is added again (metad runs
	// without --require-add-hosts here).
	c.RestartStore(freeSlot)
	waitHosts(t, s, free+" back", func(h map[string]string) bool {
		return h[free] == "ONLINE|0|No valid partition|No valid partition"
	})

	// Only GOD manages hosts.
	exec(t, s, `CREATE USER bob WITH PASSWORD "pw"`)
	bob, err := c.SessionAs("bob", "pw")
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	expectError(t, bob, fmt.Sprintf(`ADD HOSTS "%s":%s`, phHost, phPort), graphpb.QueryErrorCode_E_BAD_PERMISSION, "ADD HOSTS needs GOD")
	expectError(t, bob, fmt.Sprintf(`DROP HOSTS "%s":%s`, fh, fp), graphpb.QueryErrorCode_E_BAD_PERMISSION, "DROP HOSTS needs GOD")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := bob.Execute(ctx, "SHOW HOSTS"); err != nil {
		t.Fatalf("SHOW HOSTS as bob: %v", err)
	}

	// The only replica's host down and OFFLINE: a query says so at once
	// instead of retrying for the client's whole budget.
	holderSlot := 1 - freeSlot
	c.StopStore(holderSlot)
	waitHosts(t, s, holder+" OFFLINE", func(h map[string]string) bool { return strings.HasPrefix(h[holder], "OFFLINE|") })
	expectError(t, s, "GO FROM 1 OVER e YIELD dst(edge) AS d", graphpb.QueryErrorCode_E_EXECUTION,
		"partition 1 has no leader: every replica is on a host metad reports offline ("+holder+")")
	c.RestartStore(holderSlot)
	waitHosts(t, s, holder+" back", func(h map[string]string) bool { return strings.HasPrefix(h[holder], "ONLINE|") })
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
