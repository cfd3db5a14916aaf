// Package client is the Go client of graphd's GraphService: the console, the
// importer and the benchmark driver are built on it.
//
// A Pool holds gRPC connections to one or more graphd addresses and opens
// sessions on them:
//
//	pool, err := client.NewPool(client.Config{Addresses: []string{"127.0.0.1:9669"}})
//	if err != nil { ... }
//	defer pool.Close()
//	sess, err := pool.Session(ctx, "root", "nova")
//	if err != nil { ... }
//	defer sess.Close()
//	rs, err := sess.Execute(ctx, `USE demo; GO FROM "player100" OVER follow YIELD $$.player.name AS name | LIMIT 3`)
//
// # Query parameters
//
// ExecuteWithParams sends values that the statement reads as $name, as in
// NebulaGraph 3, instead of splicing them into the text:
//
//	rs, err := sess.ExecuteWithParams(ctx,
//		"GO FROM $ids OVER follow WHERE follow.degree > $min YIELD dst(edge)",
//		map[string]any{"ids": []string{"player100", "player101"}, "min": 90})
//
// # Connections and failover
//
// gRPC multiplexes concurrent calls over one HTTP/2 connection, so the pool
// does not hand out a connection per session: it keeps Config.ConnsPerAddress
// connections per address (len(Addresses)*ConnsPerAddress in total), and
// sessions share them. Pool.Session picks addresses round-robin and, when an
// address is unreachable, fails over to the next one.
//
// A session lives on the graphd that authenticated it, so Execute never fails
// over: a statement on a dead graphd returns a *TransportError.
//
// # Errors
//
// A statement graphd rejected returns a *QueryError whose Code tells syntax
// (E_SYNTAX), semantic (E_SEMANTIC) and execution (E_EXECUTION) failures
// apart, and says when a query was stopped by its memory limit
// (E_MEMORY_EXCEEDED), its deadline (E_TIMEOUT) or KILL QUERY (E_KILLED);
// failed authentication is a *QueryError with Code E_AUTH. Failures
// to reach graphd are a *TransportError naming the address; it unwraps to
// the gRPC status error and, when the caller's context ended, to
// context.DeadlineExceeded or context.Canceled.
//
// # Expired sessions
//
// When graphd restarts or expires a session, Execute returns a *QueryError
// with Code E_SESSION (see IsSessionExpired). The client deliberately does
// not re-authenticate behind the caller's back: the new session would have
// lost the space chosen by USE, and the next statement would silently run
// against the wrong space or none. The caller opens a new Session and
// replays its USE.
package client
