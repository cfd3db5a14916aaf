package nebulaapi

import (
	"context"
	"sync"

	"github.com/vesoft-inc/nebula-go/v3/nebula"
)

// An answer in NebulaGraph's form is a union per cell (136 bytes, mostly
// nil pointers) plus its scalar: GO 3 STEPS' 65,638 rows are 10 MB of
// them. Allocated fresh for each answer, those slabs cost more to fault in
// and zero than to fill, and load the GC; so the converter borrows them
// from pools, and the connection gives them back once the answer is
// written (conn.answer). BenchmarkAnswer measures the conversion.

// pooledMin is the smallest slice worth pooling: below it, allocating is
// cheaper than the pool.
const pooledMin = 256

// slicePool lends slices of T of any length; one too short for a request
// is dropped and a new one made.
type slicePool[T any] struct{ p sync.Pool }

func (sp *slicePool[T]) get(n int) []T {
	if v, ok := sp.p.Get().(*[]T); ok && cap(*v) >= n {
		s := (*v)[:n]
		clear(s) // a lent slice starts as a new one would
		return s
	}
	return make([]T, n)
}

func (sp *slicePool[T]) put(s []T) {
	clear(s[:cap(s)]) // hold no pointers into a written answer
	sp.p.Put(&s)
}

// pools are a server's slice pools, one per element type.
type pools struct {
	values  slicePool[nebula.Value]
	cells   slicePool[*nebula.Value]
	rows    slicePool[nebula.Row]
	rowPtrs slicePool[*nebula.Row]
	ints    slicePool[int64]
	floats  slicePool[float64]
}

// arena is what one request borrowed; release returns it all. Only the
// request's goroutine uses it.
type arena struct {
	pools   *pools
	values  [][]nebula.Value
	cells   [][]*nebula.Value
	rows    [][]nebula.Row
	rowPtrs [][]*nebula.Row
	ints    [][]int64
	floats  [][]float64
}

type arenaKey struct{}

func withArena(ctx context.Context, a *arena) context.Context {
	return context.WithValue(ctx, arenaKey{}, a)
}

func arenaFrom(ctx context.Context) *arena {
	a, _ := ctx.Value(arenaKey{}).(*arena)
	return a
}

// borrow takes a slice of n from pool, remembered in *lent; without an
// arena, or for a small n, a new one.
func borrow[T any](a *arena, pool func(*pools) *slicePool[T], lent func(*arena) *[][]T, n int) []T {
	if a == nil || n < pooledMin {
		return make([]T, n)
	}
	s := pool(a.pools).get(n)
	l := lent(a)
	*l = append(*l, s)
	return s
}

func (a *arena) release() {
	if a == nil {
		return
	}
	for _, s := range a.values {
		a.pools.values.put(s)
	}
	for _, s := range a.cells {
		a.pools.cells.put(s)
	}
	for _, s := range a.rows {
		a.pools.rows.put(s)
	}
	for _, s := range a.rowPtrs {
		a.pools.rowPtrs.put(s)
	}
	for _, s := range a.ints {
		a.pools.ints.put(s)
	}
	for _, s := range a.floats {
		a.pools.floats.put(s)
	}
	*a = arena{pools: a.pools}
}

func (a *arena) valueSlab(n int) []nebula.Value {
	return borrow(a, func(p *pools) *slicePool[nebula.Value] { return &p.values }, func(a *arena) *[][]nebula.Value { return &a.values }, n)
}

func (a *arena) cellSlab(n int) []*nebula.Value {
	return borrow(a, func(p *pools) *slicePool[*nebula.Value] { return &p.cells }, func(a *arena) *[][]*nebula.Value { return &a.cells }, n)
}

func (a *arena) rowSlab(n int) []nebula.Row {
	return borrow(a, func(p *pools) *slicePool[nebula.Row] { return &p.rows }, func(a *arena) *[][]nebula.Row { return &a.rows }, n)
}

func (a *arena) rowPtrSlab(n int) []*nebula.Row {
	return borrow(a, func(p *pools) *slicePool[*nebula.Row] { return &p.rowPtrs }, func(a *arena) *[][]*nebula.Row { return &a.rowPtrs }, n)
}

func (a *arena) intSlab(n int) []int64 {
	return borrow(a, func(p *pools) *slicePool[int64] { return &p.ints }, func(a *arena) *[][]int64 { return &a.ints }, n)
}

func (a *arena) floatSlab(n int) []float64 {
	return borrow(a, func(p *pools) *slicePool[float64] { return &p.floats }, func(a *arena) *[][]float64 { return &a.floats }, n)
}
