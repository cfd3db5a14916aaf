package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// GO ... SAMPLE [n1, n2, ...] and GO ... LIMIT [n1, n2, ...]: step i
// traverses at most n_i edges in all (counting every vertex of the step's
// frontier); the list has one count per step. SAMPLE picks the n_i edges
// at random, LIMIT takes whichever come first (which ones is not
// specified, as in NebulaGraph).
//
// Storage applies its limits per vertex and edge type, so the plan pushes
// n_i down as an upper bound (LimitPerVertex, or SamplePerVertex so that
// storage sends a uniform sample of each vertex's edges) and graphd cuts
// the step to n_i. For SAMPLE graphd draws n_i positions uniformly from
// all the step's edges (using each vertex's edge count from storage) and
// takes that many edges of each vertex's sample, which makes every edge of
// the step equally likely to be kept when the GO follows one edge type.
//
// The counts apply to the edges a step traverses: WHERE conditions that
// storage evaluates (those reading only the edge and $^) are applied
// first, others after. Intermediate steps are cut as well, so the next
// frontier comes only from the kept edges. A count of 0 ends the
// traversal at that step.

// checkStepLimits validates SAMPLE / LIMIT against the step count.
func (p *goPlan) checkStepLimits() error {
	l := p.stmt.Limits
	if l == nil {
		return nil
	}
	if len(l.Counts) != p.stmt.Steps.Max {
		return at(l, "%s has %d count(s) but GO takes %d step(s): give one count per step", limitsWord(p), len(l.Counts), p.stmt.Steps.Max)
	}
	return nil
}

func limitsWord(p *goPlan) string {
	if p.stmt.Limits != nil && p.stmt.Limits.Sample {
		return "SAMPLE"
	}
	return "LIMIT"
}

// stepLimit returns the edge count of step (1-based), if there is one.
func (p *goPlan) stepLimit(step int) (int64, bool) {
	l := p.stmt.Limits
	if l == nil || step < 1 || step > len(l.Counts) {
		return 0, false
	}
	return l.Counts[step-1], true
}

// stepSkipped reports whether step traverses no edges at all (count 0).
func (p *goPlan) stepSkipped(step int) bool {
	n, ok := p.stepLimit(step)
	return ok && n == 0
}

// pushStepLimit sets the per-vertex bound of step's request.
func (p *goPlan) pushStepLimit(req *storagepb.GetNeighborsReq, step int) {
	n, ok := p.stepLimit(step)
	if !ok || n <= 0 {
		return
	}
	if p.stmt.Limits.Sample {
		req.SamplePerVertex = n
	} else {
		req.LimitPerVertex = n
	}
}

// stepLimitInfo is the EXPLAIN text of step's bound.
func (p *goPlan) stepLimitInfo(step int) string {
	n, ok := p.stepLimit(step)
	if !ok {
		return ""
	}
	if p.stmt.Limits.Sample {
		return fmt.Sprintf(", samplePerVertex: %d, sample: %d", n, n)
	}
	return fmt.Sprintf(", limitPerVertex: %d, limit: %d", n, n)
}

// cutStep keeps at most the step's count of edges of resp, changing the
// VertexNeighbors in place.
func (p *goPlan) cutStep(step int, resp []*storagepb.VertexNeighbors) []*storagepb.VertexNeighbors {
	n, ok := p.stepLimit(step)
	if !ok {
		return resp
	}
	vidLen := int(p.space.GetVidLen())
	total := int64(0)
	for _, vn := range resp {
		total += int64(edgeCount(vn, vidLen))
	}
	if total <= n {
		return resp
	}
	keep := make([]int, len(resp)) // edges to keep per vertex
	if !p.stmt.Limits.Sample {
		left := n
		for i, vn := range resp {
			k := min(int64(edgeCount(vn, vidLen)), left)
			keep[i], left = int(k), left-k
		}
	} else {
		sampleCounts(resp, vidLen, n, keep)
	}
	for i, vn := range resp {
		keepEdges(vn, vidLen, keep[i], p.stmt.Limits.Sample)
	}
	return resp
}

// edgeCount is the number of edges storage returned for vn.
func edgeCount(vn *storagepb.VertexNeighbors, vidLen int) int {
	if len(vn.PackedDsts) > 0 && vidLen > 0 {
		return len(vn.PackedDsts) / vidLen
	}
	return len(vn.Edges)
}

// sampleCounts decides how many of each vertex's returned edges a sample
// of n of the step's edges keeps: it draws n distinct positions among all
// the step's edges, each vertex owning as many positions as it has edges
// (its Count from storage, at least what it returned), and counts the
// positions that fall to each vertex. A vertex's returned edges are a
// uniform sample of at least min(n, its edges), so it always has enough.
func sampleCounts(resp []*storagepb.VertexNeighbors, vidLen int, n int64, keep []int) {
	ends := make([]int64, len(resp)) // cumulative population
	pop := int64(0)
	for i, vn := range resp {
		pop += max(vn.Count, int64(edgeCount(vn, vidLen)))
		ends[i] = pop
	}
	// Floyd's algorithm: n distinct positions of [0, pop), O(n).
	chosen := make(map[int64]struct{}, n)
	for j := pop - n; j < pop; j++ {
		t := rand.Int64N(j + 1)
		if _, dup := chosen[t]; dup {
			t = j
		}
		chosen[t] = struct{}{}
	}
	for pos := range chosen {
		lo, hi := 0, len(ends)-1
		for lo < hi { // the first vertex whose range ends after pos
			mid := (lo + hi) / 2
			if ends[mid] > pos {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		keep[lo]++
	}
	for i, vn := range resp {
		keep[i] = min(keep[i], edgeCount(vn, vidLen))
	}
}

// keepEdges keeps k of vn's edges: the first k, or k at random (keeping
// their order) when sampling.
func keepEdges(vn *storagepb.VertexNeighbors, vidLen, k int, random bool) {
	m := edgeCount(vn, vidLen)
	if k >= m {
		return
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	if random {
		for i := 0; i < k; i++ { // partial Fisher-Yates
			j := i + rand.IntN(m-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		idx = idx[:k]
		slices.Sort(idx)
	} else {
		idx = idx[:k]
	}
	if len(vn.PackedDsts) > 0 && vidLen > 0 {
		packed := make([]byte, 0, k*vidLen)
		for _, i := range idx {
			packed = append(packed, vn.PackedDsts[i*vidLen:(i+1)*vidLen]...)
		}
		vn.PackedDsts = packed
		return
	}
	edges := make([]*storagepb.NeighborEdge, 0, k)
	for _, i := range idx {
		edges = append(edges, vn.Edges[i])
	}
	vn.Edges = edges
}
