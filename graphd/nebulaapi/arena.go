package nebulaapi

import (
	"context"
	"sync"

	"github.com/vesoft-inc/nebula-go/v3/nebula"
)

// An answer in NebulaGraph's form is a union per cell (136 bytes, mostly
// nil pointers) plus its scalar and a row per row: GO 3 STEPS' 65,638 rows
// are 10 MB of them. Allocated afresh for each answer, in one slab or one
// object at a time, they cost more to allocate, fault in and collect than
// to fill; so the converter takes them from chunks of a fixed size
// (chunkLen), which a server keeps in pools and reuses once the answer
// holding them has been written (conn.answer releases the arena).
// BenchmarkAnswer measures the conversion.

// chunkLen is the length of a chunk: 4,096 unions are 544 KiB.
const chunkLen = 4096

// chunkPool keeps free chunks of T: a free list, not a sync.Pool, because
// the GC empties a sync.Pool at every cycle, and an answer of millions of
// cells makes a cycle of its own.
type chunkPool[T any] struct {
	mu   sync.Mutex
	free [][]T
}

// maxFreeChunks bounds what a pool keeps between answers: 32 chunks of
// unions are 17 MiB.
const maxFreeChunks = 32

func (p *chunkPool[T]) get() []T {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		c := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return c // cleared by put
	}
	p.mu.Unlock()
	return make([]T, chunkLen)
}

func (p *chunkPool[T]) put(c []T) {
	clear(c) // hold no pointers into a written answer; lent as new
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < maxFreeChunks {
		p.free = append(p.free, c)
	}
}

// pools are a server's chunk pools, one per element type.
type pools struct {
	values chunkPool[nebula.Value]
	cells  chunkPool[*nebula.Value]
	rows   chunkPool[nebula.Row]
	ints   chunkPool[int64]
	floats chunkPool[float64]
}

// bump hands out pieces of chunks taken from a pool, in order.
type bump[T any] struct {
	pool *chunkPool[T]
	cur  []T   // what is left of the newest chunk
	used [][]T // every chunk taken, for release
}

// take returns n zero elements; a piece longer than a chunk (a row of
// thousands of columns) is allocated on its own.
func (b *bump[T]) take(n int) []T {
	if n > chunkLen {
		return make([]T, n)
	}
	if len(b.cur) < n {
		b.cur = b.pool.get()
		b.used = append(b.used, b.cur)
	}
	s := b.cur[:n:n]
	b.cur = b.cur[n:]
	return s
}

func (b *bump[T]) one() *T { return &b.take(1)[0] }

func (b *bump[T]) release() {
	for _, c := range b.used {
		b.pool.put(c)
	}
	b.cur, b.used = nil, nil
}

// arena is what one answer took from a server's pools; release gives it
// back. Only the request's goroutine uses it, and nothing of the answer
// may be read after release.
type arena struct {
	values bump[nebula.Value]
	cells  bump[*nebula.Value]
	rows   bump[nebula.Row]
	ints   bump[int64]
	floats bump[float64]
}

func newArena(p *pools) *arena {
	a := &arena{}
	a.values.pool, a.cells.pool, a.rows.pool = &p.values, &p.cells, &p.rows
	a.ints.pool, a.floats.pool = &p.ints, &p.floats
	return a
}

func (a *arena) release() {
	a.values.release()
	a.cells.release()
	a.rows.release()
	a.ints.release()
	a.floats.release()
}

type arenaKey struct{}

func withArena(ctx context.Context, a *arena) context.Context {
	return context.WithValue(ctx, arenaKey{}, a)
}

func arenaFrom(ctx context.Context) *arena {
	a, _ := ctx.Value(arenaKey{}).(*arena)
	return a
}
