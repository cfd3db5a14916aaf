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
// Only failed sign-ins count: a tool that opens a session per worker
// (nova-bench at c=64) is never slowed, while a password guesser gets
// failedSignInBurst tries and then one per second per user, and
// failedSignInHostBurst tries across all user names from one host. A try
// is taken before metad is asked and given back if the sign-in succeeds,
// so guesses sent at once are counted too; an attempt over the rate is
// refused before metad is asked, so it costs graphd almost nothing and
// tells the guesser nothing.
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
// only the pairs that signed in within the last few seconds.
type signInGuard struct {
	mu     sync.Mutex
	byUser map[[2]string]*rate.Limiter
	byHost map[string]*rate.Limiter
}

func newSignInGuard() *signInGuard {
	return &signInGuard{byUser: map[[2]string]*rate.Limiter{}, byHost: map[string]*rate.Limiter{}}
}

// attempt takes a try of user from host before metad is asked, so that
// guesses sent at once count as well as guesses sent one after another.
// When there is none left it reports how long to wait. Otherwise the
// caller must call done with the outcome: a successful sign-in gives its
// try back.
func (g *signInGuard) attempt(user, host string, now time.Time) (done func(failed bool), wait time.Duration, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := [2]string{user, host}
	lu, lh := g.byUser[key], g.byHost[host]
	if lu == nil {
		lu = rate.NewLimiter(failedSignInRate, failedSignInBurst)
		g.byUser[key] = lu
	}
	if lh == nil {
		lh = rate.NewLimiter(failedSignInHostRate, failedSignInHostBurst)
		g.byHost[host] = lh
	}
	ru, rh := lu.ReserveN(now, 1), lh.ReserveN(now, 1)
	if wait = max(ru.DelayFrom(now), rh.DelayFrom(now)); wait > 0 {
		ru.CancelAt(now)
		rh.CancelAt(now)
		return nil, wait, false
	}
	return func(failed bool) {
		if !failed {
			g.mu.Lock()
			defer g.mu.Unlock()
			ru.CancelAt(now)
			rh.CancelAt(now)
		}
	}, 0, true
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
