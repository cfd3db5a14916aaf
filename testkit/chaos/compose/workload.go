package compose

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/testkit/chaos/register"
)

// The workload runs through both graphd, as users would, on space `chaos`:
//
//   - register clients read (FETCH), write (INSERT VERTEX) and
//     compare-and-set (UPDATE ... WHEN) the property v of tag reg on a few
//     keys at a time. The keys move on to fresh ones at every fault (the
//     generation), so that each key's history stays short enough for
//     porcupine however long the run;
//   - an insert client adds vertices item(v) with unique ids and, for each,
//     an edge link from one of a few hub vertices, recording each
//     acknowledged insert;
//   - a GO client reads a hub's out-neighbours and checks, on the spot,
//     that every edge acknowledged before the read began is there and that
//     nothing appears that was never inserted.

const (
	keysPerGeneration = 6
	hubs              = 8
	itemBase          = int64(1) << 40
	hubBase           = int64(1) << 41
)

// session is one client's graphd session on space chaos, reopened after
// any failure that may have lost it.
type session struct {
	pool     *client.Pool
	space    string
	password string // root's
	sess     *client.Session
}

func (s *session) exec(ctx context.Context, stmt string) (*client.ResultSet, error) {
	if s.sess == nil {
		sess, err := s.pool.Session(ctx, "root", s.password)
		if err != nil {
			return nil, err
		}
		if s.space != "" {
			if _, err := sess.Execute(ctx, "USE "+s.space); err != nil {
				_ = sess.Close()
				return nil, err
			}
		}
		s.sess = sess
	}
	rs, err := s.sess.Execute(ctx, stmt)
	var qe *client.QueryError
	if err != nil && !errors.As(err, &qe) || client.IsSessionExpired(err) {
		// A transport failure (graphd killed, or the deadline) or a
		// forgotten session: start over on a new session next time.
		_ = s.sess.Close()
		s.sess = nil
	}
	return rs, err
}

func (s *session) close() {
	if s.sess != nil {
		_ = s.sess.Close()
	}
}

// errorKind names an error for the report's errors-by-kind table: the
// most specific error code graphd's message quotes (a storage code such
// as E_OUTCOME_UNKNOWN rather than graphd's E_EXECUTION around it), else
// what failed on the way to graphd.
var errorCode = regexp.MustCompile(`\bE_[A-Z_]+\b`)

func errorKind(err error) string {
	var qe *client.QueryError
	var te *client.TransportError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &qe):
		kind := qe.Code.String()
		for _, c := range errorCode.FindAllString(qe.Msg, -1) {
			if c != "E_EXECUTION" {
				kind = c
			}
		}
		return kind
	case errors.As(err, &te):
		if errors.Is(err, context.DeadlineExceeded) {
			return "client deadline"
		}
		return "graphd unreachable"
	case errors.Is(err, context.DeadlineExceeded):
		return "client deadline"
	}
	return "other"
}

// definiteFailure: the statement certainly did not change anything. Only
// errors raised before anything was proposed qualify; everything else
// (timeouts, leader changes mid-flight, unreachable graphd) may have
// happened.
func definiteFailure(err error) bool {
	switch errorKind(err) {
	case "E_SYNTAX", "E_SEMANTIC", "E_NOT_FOUND", "E_DISK_FULL":
		return true
	}
	return false
}

// errorCounts is a concurrency-safe tally of errors by kind, with one
// example message per kind.
type errorCounts struct {
	mu      sync.Mutex
	n       map[string]int
	example map[string]string
}

func (e *errorCounts) add(op string, err error) {
	if err == nil {
		return
	}
	k := op + ": " + errorKind(err)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.n == nil {
		e.n, e.example = map[string]int{}, map[string]string{}
	}
	e.n[k]++
	if _, ok := e.example[k]; !ok {
		msg := err.Error()
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		e.example[k] = msg
	}
}

func (e *errorCounts) snapshot() (map[string]int, map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, ex := map[string]int{}, map[string]string{}
	for k, v := range e.n {
		n[k], ex[k] = v, e.example[k]
	}
	return n, ex
}

// workload owns the clients; everything they record is read only after
// stop returned.
type workload struct {
	pools      []*client.Pool
	space      string
	base       time.Time
	opTimeout  time.Duration
	generation func() int64

	stop chan struct{}
	wg   sync.WaitGroup

	recs   []*register.Recorder
	errors errorCounts

	// Inserts: attempted and acknowledged, by the insert client; GO
	// anomalies, by the GO client.
	inserts  *insertLog
	goReads  int
	goIssues []string
}

// insertLog is the insert client's record, read concurrently by the GO
// client: which edges hub→item were attempted, and when each was
// acknowledged.
type insertLog struct {
	mu        sync.Mutex
	attempted map[int64]bool      // item id → an insert of its edge was sent
	ackedAt   map[int64]time.Time // item id → when its edge insert was acknowledged
	vertices  map[int64]bool      // item ids whose vertex insert was acknowledged
}

func hubOf(item int64) int64 { return hubBase + item%hubs }

func startWorkload(pools []*client.Pool, password, space string, seed int64, registerClients int, opTimeout time.Duration, generation func() int64) *workload {
	w := &workload{pools: pools, space: space, base: time.Now(), opTimeout: opTimeout, generation: generation,
		stop: make(chan struct{}), inserts: &insertLog{attempted: map[int64]bool{}, ackedAt: map[int64]time.Time{}, vertices: map[int64]bool{}}}
	for i := 0; i < registerClients; i++ {
		rec := register.NewRecorder(i, w.base)
		w.recs = append(w.recs, rec)
		rng := rand.New(rand.NewSource(seed*1000 + int64(i)))
		s := &session{pool: pools[i%len(pools)], space: space, password: password}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer s.close()
			w.runRegisterClient(s, rec, rng, int64(i+1)*1_000_000_000)
		}()
	}
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		s := &session{pool: pools[0], space: space, password: password}
		defer s.close()
		w.runInserts(s)
	}()
	go func() {
		defer w.wg.Done()
		s := &session{pool: pools[len(pools)-1], space: space, password: password}
		defer s.close()
		w.runGoReads(s, rand.New(rand.NewSource(seed*1000+999)))
	}()
	return w
}

func (w *workload) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

func (w *workload) pause(d time.Duration) bool {
	select {
	case <-w.stop:
		return false
	case <-time.After(d):
		return true
	}
}

// runRegisterClient does reads, writes and CASes on the current
// generation's keys. Values are unique in the history: firstValue,
// firstValue+1, ….
func (w *workload) runRegisterClient(s *session, rec *register.Recorder, rng *rand.Rand, firstValue int64) {
	next := firstValue
	known := map[int64]int64{} // key → the last value this client saw or wrote
	for !w.stopped() {
		key := w.generation()*keysPerGeneration + rng.Int63n(keysPerGeneration) + 1
		ctx, cancel := context.WithTimeout(context.Background(), w.opTimeout)
		call := rec.Now()
		switch r := rng.Float64(); {
		case r < 0.4:
			rs, err := s.exec(ctx, fmt.Sprintf("FETCH PROP ON reg %d YIELD reg.v AS v", key))
			w.errors.add("read", err)
			if err == nil {
				if v, err := readValue(rs); err == nil {
					rec.Read(key, v, call)
					known[key] = v
				} else {
					w.errors.add("read", err)
				}
			}
		case r < 0.7 || known[key] == 0:
			v := next
			next++
			_, err := s.exec(ctx, fmt.Sprintf("INSERT VERTEX reg(v) VALUES %d:(%d)", key, v))
			w.errors.add("write", err)
			if err != nil && definiteFailure(err) {
				break // nothing happened: not part of the history
			}
			rec.Write(key, v, call, err)
			if err == nil {
				known[key] = v
			}
		default:
			expect, v := known[key], next
			next++
			rs, err := s.exec(ctx, fmt.Sprintf("UPDATE VERTEX ON reg %d SET v = %d WHEN v == %d YIELD v AS v", key, v, expect))
			w.errors.add("cas", err)
			if err != nil && definiteFailure(err) {
				break
			}
			ok := false
			if err == nil {
				var cur int64
				if cur, err = readValue(rs); err == nil {
					ok = cur == v
					known[key] = cur
				}
			}
			rec.CAS(key, expect, v, call, ok, err)
		}
		cancel()
		if !w.pause(time.Duration(rng.Intn(5)) * time.Millisecond) {
			return
		}
	}
}

// readValue is the single value of column v, 0 when there is no row.
func readValue(rs *client.ResultSet) (int64, error) {
	switch rs.Len() {
	case 0:
		return 0, nil
	case 1:
		return rs.Row(0).Int(0)
	}
	return 0, fmt.Errorf("%d rows for one key", rs.Len())
}

// runInserts inserts item i (vertex, then edge hub→i) for i = 1, 2, ….
func (w *workload) runInserts(s *session) {
	for i := int64(1); !w.stopped(); i++ {
		id := itemBase + i
		ctx, cancel := context.WithTimeout(context.Background(), w.opTimeout)
		_, err := s.exec(ctx, fmt.Sprintf("INSERT VERTEX item(v) VALUES %d:(%d)", id, id))
		w.errors.add("insert vertex", err)
		if err == nil {
			w.inserts.mu.Lock()
			w.inserts.vertices[id] = true
			w.inserts.mu.Unlock()
		}
		w.inserts.mu.Lock()
		w.inserts.attempted[id] = true
		w.inserts.mu.Unlock()
		_, err = s.exec(ctx, fmt.Sprintf("INSERT EDGE link() VALUES %d->%d:()", hubOf(id), id))
		w.errors.add("insert edge", err)
		if err == nil {
			w.inserts.mu.Lock()
			w.inserts.ackedAt[id] = time.Now()
			w.inserts.mu.Unlock()
		}
		cancel()
		if !w.pause(2 * time.Millisecond) {
			return
		}
	}
}

// runGoReads checks GO FROM hub OVER link against the insert log.
func (w *workload) runGoReads(s *session, rng *rand.Rand) {
	for !w.stopped() {
		hub := hubBase + rng.Int63n(hubs)
		ctx, cancel := context.WithTimeout(context.Background(), w.opTimeout)
		start := time.Now()
		rs, err := s.exec(ctx, fmt.Sprintf("GO FROM %d OVER link YIELD dst(edge) AS d", hub))
		cancel()
		w.errors.add("go", err)
		if err == nil {
			if issues := w.inserts.checkGo(hub, rs, start); len(issues) > 0 && len(w.goIssues) < 100 {
				w.goIssues = append(w.goIssues, issues...)
			}
			w.goReads++
		}
		if !w.pause(20 * time.Millisecond) {
			return
		}
	}
}

// checkGo: a GO read that began at start must return every edge of hub
// acknowledged before start, and nothing never inserted.
func (l *insertLog) checkGo(hub int64, rs *client.ResultSet, start time.Time) []string {
	got := map[int64]bool{}
	var issues []string
	for i := 0; i < rs.Len(); i++ {
		d, err := rs.Row(i).Int(0)
		if err != nil {
			return []string{fmt.Sprintf("GO FROM %d: row %d: %v", hub, i, err)}
		}
		got[d] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for d := range got {
		if !l.attempted[d] || hubOf(d) != hub {
			issues = append(issues, fmt.Sprintf("GO FROM %d returned %d, which was never inserted from that hub", hub, d))
		}
	}
	var missing []int64
	for id, at := range l.ackedAt {
		if hubOf(id) == hub && at.Before(start) && !got[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
		issues = append(issues, fmt.Sprintf("GO FROM %d at %s missed %d acknowledged edges, e.g. to %d", hub, start.Format(time.RFC3339Nano), len(missing), missing[0]))
	}
	return issues
}

// finish stops the clients and returns the register history.
func (w *workload) finish() []porcupine.Operation {
	close(w.stop)
	w.wg.Wait()
	return register.Merge(w.recs...)
}
