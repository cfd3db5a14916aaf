package graphd

import (
	"crypto/rand"
	"encoding/binary"
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Sign-in guards: how fast failed sign-ins may come and how many sessions
// one user may hold from one client host (issue 24, "Bounds").
//
// Only failed sign-ins are rate limited: a tool that opens a session per
// worker (nova-bench at c=64) is never slowed, while a password guesser
// gets failedSignInBurst tries and then one per second per user, and
// failedSignInHostBurst tries across all user names from one host. An
// attempt over the rate is refused before metad is asked, so it costs
// graphd almost nothing and tells the guesser nothing.
const (
	failedSignInRate      = rate.Limit(1) // per second, per user and host
	failedSignInBurst     = 10
	failedSignInHostRate  = rate.Limit(10) // per second, per host, all users
	failedSignInHostBurst = 100

	// DefaultMaxSessionsPerUser is the default of Config.MaxSessionsPerUser,
	// NebulaGraph's max_sessions_per_ip_per_user.
	DefaultMaxSessionsPerUser = 300
)

// signInGuard counts failed sign-ins per (user, host) and per host. Its
// limiters are dropped by sweep once they are full again, so the maps hold
// only the pairs that failed within the last few seconds.
type signInGuard struct {
	mu     sync.Mutex
	byUser map[[2]string]*rate.Limiter
	byHost map[string]*rate.Limiter
}

func newSignInGuard() *signInGuard {
	return &signInGuard{byUser: map[[2]string]*rate.Limiter{}, byHost: map[string]*rate.Limiter{}}
}

// blocked reports whether user's sign-in from host must wait, and how long,
// without using up a try: only a failure does (failed).
func (g *signInGuard) blocked(user, host string, now time.Time) (time.Duration, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	wait := time.Duration(0)
	if l := g.byUser[[2]string{user, host}]; l != nil && l.TokensAt(now) < 1 {
		wait = max(wait, waitFor(l, now))
	}
	if l := g.byHost[host]; l != nil && l.TokensAt(now) < 1 {
		wait = max(wait, waitFor(l, now))
	}
	return wait, wait > 0
}

// failed uses up a try of user from host.
func (g *signInGuard) failed(user, host string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := [2]string{user, host}
	if g.byUser[key] == nil {
		g.byUser[key] = rate.NewLimiter(failedSignInRate, failedSignInBurst)
	}
	if g.byHost[host] == nil {
		g.byHost[host] = rate.NewLimiter(failedSignInHostRate, failedSignInHostBurst)
	}
	g.byUser[key].AllowN(now, 1)
	g.byHost[host].AllowN(now, 1)
}

// sweep drops the limiters that have refilled: they would allow a full
// burst again, as a missing one does.
func (g *signInGuard) sweep(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, l := range g.byUser {
		if l.TokensAt(now) >= float64(l.Burst()) {
			delete(g.byUser, k)
		}
	}
	for k, l := range g.byHost {
		if l.TokensAt(now) >= float64(l.Burst()) {
			delete(g.byHost, k)
		}
	}
}

// waitFor is how long until l has a whole token.
func waitFor(l *rate.Limiter, now time.Time) time.Duration {
	missing := 1 - l.TokensAt(now)
	return time.Duration(missing / float64(l.Limit()) * float64(time.Second))
}

// hostOf is the host part of a client address ("" stays "").
func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// newSessionID draws a session id: 63 random bits, never 0. The id is the
// session's bearer token (Execute and Signout take nothing else), so it
// must not be guessable from another session's id; a counter was. It
// stays an int64, the session id of NebulaGraph's protocol too.
func newSessionID() int64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("graphd: crypto/rand failed: " + err.Error()) // never on Linux ≥ 3.17
		}
		if id := int64(binary.LittleEndian.Uint64(b[:]) >> 1); id != 0 {
			return id
		}
	}
}
