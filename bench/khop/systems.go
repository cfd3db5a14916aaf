package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/novagraph/novagraph/bench/ldbc/floor"
	"github.com/novagraph/novagraph/client"
)

// System is one side of the comparison: novagraph through graphd, DuckDB
// embedded, or the RocksDB floor.
type System interface {
	Name() string
	// Supports reports whether the system can run w (the floor reads no
	// properties).
	Supports(w Workload) bool
	// Open prepares one worker for w: a session, a connection with the
	// statement prepared, an iterator.
	Open(ctx context.Context, w Workload) (Worker, error)
}

// Worker answers one workload's queries; one per concurrent worker.
type Worker interface {
	// Fingerprint runs the query from start and digests its rows while
	// reading them. serverUS is graphd's own latency (0 elsewhere).
	// CountOnly systems (the floor) return only the row count.
	Fingerprint(ctx context.Context, start int64) (fp Fingerprint, serverUS int64, err error)
	// Rows runs the query and returns its rows (the full check, and the
	// diff of a mismatch).
	Rows(ctx context.Context, start int64) ([]Row, error)
	Close()
}

// countOnly is implemented by systems whose answers are row counts.
type countOnly interface{ CountOnly() bool }

func isCountOnly(s System) bool {
	c, ok := s.(countOnly)
	return ok && c.CountOnly()
}

// --- novagraph ---

// Nova runs the workloads through graphd with the Go client, one session
// per worker on a shared pool, the start vertex as the query parameter $id
// (or spliced into the text with Literal).
type Nova struct {
	Pool           *client.Pool
	User, Password string
	Space          string
	Literal        bool
}

func (n *Nova) Name() string           { return "novagraph" }
func (n *Nova) Supports(Workload) bool { return true }
func (n *Nova) session(ctx context.Context) (*client.Session, error) {
	s, err := n.Pool.Session(ctx, n.User, n.Password)
	if err != nil {
		return nil, err
	}
	if _, err := s.Execute(ctx, "USE `"+n.Space+"`"); err != nil {
		s.Close()
		return nil, fmt.Errorf("USE %s: %w", n.Space, err)
	}
	return s, nil
}

func (n *Nova) Open(ctx context.Context, w Workload) (Worker, error) {
	s, err := n.session(ctx)
	if err != nil {
		return nil, err
	}
	return &novaWorker{n: n, s: s, w: w, stmt: w.NGQL()}, nil
}

type novaWorker struct {
	n    *Nova
	s    *client.Session
	w    Workload
	stmt string
}

func (nw *novaWorker) exec(ctx context.Context, start int64) (*client.ResultSet, error) {
	var rs *client.ResultSet
	var err error
	if nw.n.Literal {
		rs, err = nw.s.Execute(ctx, literalStmt(nw.stmt, start))
	} else {
		rs, err = nw.s.ExecuteWithParams(ctx, nw.stmt, map[string]any{"id": start})
	}
	if err != nil {
		if client.IsSessionExpired(err) {
			if s, e := nw.n.session(ctx); e == nil {
				nw.s.Close()
				nw.s = s
			}
		}
		return nil, err
	}
	want := 1
	if nw.w.Props {
		want = 4
	}
	if len(rs.Columns()) != want {
		return nil, fmt.Errorf("%d columns %v, want %d", len(rs.Columns()), rs.Columns(), want)
	}
	return rs, nil
}

// novaRow converts row i of a result.
func novaRow(rs *client.ResultSet, i int, props bool) (Row, error) {
	row := rs.Row(i)
	var r Row
	var err error
	if r.Dst, err = row.Int(0); err != nil {
		return r, err
	}
	if !props {
		return r, nil
	}
	if row.IsNull(1) {
		r.NameNull = true
	} else if r.Name, err = row.String(1); err != nil {
		return r, err
	}
	if row.IsNull(2) {
		r.AgeNull = true
	} else if r.Age, err = row.Int(2); err != nil {
		return r, err
	}
	r.Weight, err = row.Int(3)
	return r, err
}

func (nw *novaWorker) Fingerprint(ctx context.Context, start int64) (Fingerprint, int64, error) {
	rs, err := nw.exec(ctx, start)
	if err != nil {
		return Fingerprint{}, 0, err
	}
	var f Fingerprint
	for i := range rs.Len() {
		r, err := novaRow(rs, i, nw.w.Props)
		if err != nil {
			return f, 0, fmt.Errorf("row %d: %w", i, err)
		}
		f.Add(r)
	}
	return f, rs.LatencyUS(), nil
}

func (nw *novaWorker) Rows(ctx context.Context, start int64) ([]Row, error) {
	rs, err := nw.exec(ctx, start)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, rs.Len())
	for i := range rows {
		if rows[i], err = novaRow(rs, i, nw.w.Props); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	return rows, nil
}

func (nw *novaWorker) Close() { nw.s.Close() }

// literalStmt splices the start vertex into the statement for $id.
func literalStmt(stmt string, start int64) string {
	const ref = "$id"
	for i := 0; i+len(ref) <= len(stmt); i++ {
		if stmt[i:i+len(ref)] == ref {
			return fmt.Sprintf("%s%d%s", stmt[:i], start, stmt[i+len(ref):])
		}
	}
	return stmt
}

// --- DuckDB ---

// Duck runs the workloads' SQL on an embedded DuckDB, each worker on its
// own connection with the statement prepared once.
type Duck struct {
	DB *sql.DB
}

func (d *Duck) Name() string           { return "DuckDB" }
func (d *Duck) Supports(Workload) bool { return true }

func (d *Duck) Open(ctx context.Context, w Workload) (Worker, error) {
	conn, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	stmt, err := conn.PrepareContext(ctx, w.SQL())
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("preparing %s: %w", w.SQL(), err)
	}
	return &duckWorker{conn: conn, stmt: stmt, w: w}, nil
}

type duckWorker struct {
	conn *sql.Conn
	stmt *sql.Stmt
	w    Workload
}

func (dw *duckWorker) each(ctx context.Context, start int64, fn func(Row)) error {
	rows, err := dw.stmt.QueryContext(ctx, start)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r Row
	var name sql.NullString
	var age sql.NullInt64
	for rows.Next() {
		if !dw.w.Props {
			if err := rows.Scan(&r.Dst); err != nil {
				return err
			}
			fn(r)
			continue
		}
		if err := rows.Scan(&r.Dst, &name, &age, &r.Weight); err != nil {
			return err
		}
		r.Name, r.NameNull = name.String, !name.Valid
		r.Age, r.AgeNull = age.Int64, !age.Valid
		fn(r)
	}
	return rows.Err()
}

func (dw *duckWorker) Fingerprint(ctx context.Context, start int64) (Fingerprint, int64, error) {
	var f Fingerprint
	err := dw.each(ctx, start, f.Add)
	return f, 0, err
}

func (dw *duckWorker) Rows(ctx context.Context, start int64) ([]Row, error) {
	var out []Row
	err := dw.each(ctx, start, func(r Row) { out = append(out, r) })
	return out, err
}

func (dw *duckWorker) Close() {
	dw.stmt.Close()
	dw.conn.Close()
}

// --- the RocksDB floor ---

// Floor runs the plain k-hop forms on bench/ldbc/floor: storaged's keys in
// an in-process RocksDB, scanned with no RPC, planning or result building.
// Its answers are row counts (the floor copies the last step's
// destinations out but does not return them), checked against the
// reference's.
type Floor struct {
	F *floor.Floor
}

func (f *Floor) Name() string             { return "floor" }
func (f *Floor) CountOnly() bool          { return true }
func (f *Floor) Supports(w Workload) bool { return !w.Props }
func (f *Floor) Open(_ context.Context, w Workload) (Worker, error) {
	if w.Props {
		return nil, errors.New("the floor reads no properties")
	}
	return &floorWorker{r: f.F.NewReader(), steps: w.Steps}, nil
}

type floorWorker struct {
	r     *floor.Reader
	steps int
}

func (fw *floorWorker) Fingerprint(_ context.Context, start int64) (Fingerprint, int64, error) {
	n, err := fw.r.Go(fw.steps, start)
	return Fingerprint{Rows: n}, 0, err
}

func (fw *floorWorker) Rows(context.Context, int64) ([]Row, error) {
	return nil, errors.New("the floor returns row counts only")
}

func (fw *floorWorker) Close() { fw.r.Close() }
