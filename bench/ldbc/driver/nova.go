package driver

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/novagraph/novagraph/client"
)

// NovaTarget runs a prepared scenario against graphd: each worker opens its
// own session on the shared pool and USEs the space.
type NovaTarget struct {
	Pool           *client.Pool
	User, Password string
	Space          string
	Prepared       Prepared
	// IDs hands out the fresh ids of the insert scenarios; share one
	// across the runs of a sweep so that no run rewrites another's.
	IDs *FreshIDs
}

// FreshIDs are vertex ids above every existing one: Base + 1, Base + 2, ...
type FreshIDs struct {
	Base int64
	n    atomic.Int64
}

// NewFreshIDs returns ids starting far above real data: 2^60 plus the
// current Unix time in seconds shifted left 24 bits, so that two runs
// started a second apart or more do not reuse ids unless one inserts over
// 16 million of them.
func NewFreshIDs() *FreshIDs {
	return &FreshIDs{Base: 1<<60 + time.Now().Unix()<<24}
}

// Next returns a new id.
func (f *FreshIDs) Next() int64 { return f.Base + f.n.Add(1) }

// Open implements Target.
func (t *NovaTarget) Open(ctx context.Context, w int) (Op, func(), error) {
	ids := t.IDs
	if ids == nil {
		ids = NewFreshIDs()
		t.IDs = ids
	}
	var sess *client.Session
	open := func(ctx context.Context) error {
		s, err := t.Pool.Session(ctx, t.User, t.Password)
		if err != nil {
			return err
		}
		if t.Space != "" {
			if _, err := s.Execute(ctx, "USE "+t.Space); err != nil {
				s.Close()
				return fmt.Errorf("USE %s: %w", t.Space, err)
			}
		}
		sess = s
		return nil
	}
	if err := open(ctx); err != nil {
		return nil, nil, err
	}
	p := t.Prepared
	kind := p.Scenario.Input
	op := func(ctx context.Context, in Input) Outcome {
		switch kind {
		case InputNewVertex:
			in.ID, in.TS = ids.Next(), time.Now().UnixMilli()
		case InputNewEdge:
			in.Src, in.Dst, in.TS = ids.Next(), ids.Next(), time.Now().UnixMilli()
		}
		stmt, params := p.Bind(in)
		var rs *client.ResultSet
		var err error
		if params != nil {
			rs, err = sess.ExecuteWithParams(ctx, stmt, params)
		} else {
			rs, err = sess.Execute(ctx, stmt)
		}
		if err != nil {
			if client.IsSessionExpired(err) {
				// graphd restarted or expired the session: the failure
				// counts, the next execution gets a new session.
				old := sess
				if open(ctx) == nil {
					old.Close()
				}
			}
			return Outcome{Err: err}
		}
		return Outcome{Rows: int64(rs.Len()), ServerUS: rs.LatencyUS(), HasServer: true}
	}
	return op, func() { sess.Close() }, nil
}

// MakeInputs draws n inputs for a scenario with a PRNG seeded by seed:
// start vertices from sampler, existing edges uniformly from g, or one
// empty input for scenarios that make their own (inserts) or read none.
func MakeInputs(kind InputKind, g *Graph, sampler *Sampler, seed int64, n int) ([]Input, error) {
	if n <= 0 {
		n = 1
	}
	switch kind {
	case InputVertex:
		ids := sampler.Sample(seed, n)
		out := make([]Input, n)
		for i, id := range ids {
			out[i] = Input{ID: id}
		}
		return out, nil
	case InputEdge:
		es, err := SampleEdges(g, seed, n)
		if err != nil {
			return nil, err
		}
		out := make([]Input, n)
		for i, e := range es {
			out[i] = Input{Src: e.Src, Dst: e.Dst}
		}
		return out, nil
	}
	return []Input{{}}, nil
}
