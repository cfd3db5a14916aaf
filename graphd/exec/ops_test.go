package exec

import (
	"slices"
	"testing"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

func TestSortCompare(t *testing.T) {
	// Ascending order as ORDER BY sorts it.
	asc := []value.Value{
		value.Bool(false), value.Bool(true),
		value.Int(-1), value.Float(0.5), value.Int(1), value.Float(1.5), value.Int(2),
		value.Str(""), value.Str("a"), value.Str("b"),
		value.List(), value.List(value.Int(1), value.Int(2)), value.List(value.Int(1), value.Null()), value.List(value.Int(2)),
		value.Null(),
	}
	for i := range asc {
		for j := range asc {
			c := sortCompare(asc[i], asc[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if c != want {
				t.Errorf("sortCompare(%s, %s) = %d, want %d", asc[i], asc[j], c, want)
			}
		}
	}
	if sortCompare(value.Int(1), value.Float(1)) != 0 {
		t.Errorf("1 and 1.0 should tie")
	}
}

func TestAccumulators(t *testing.T) {
	vals := []value.Value{value.Int(3), value.Null(), value.Int(1), value.Int(3), value.Float(0.5)}
	for _, tc := range []struct {
		name     string
		distinct bool
		star     bool
		want     string
	}{
		{"count", false, true, "5"},
		{"count", false, false, "4"},
		{"count", true, false, "3"},
		{"sum", false, false, "7.5"},
		{"sum", true, false, "4.5"},
		{"avg", false, false, "1.875"},
		{"avg", true, false, "1.5"},
		{"min", false, false, "0.5"},
		{"max", false, false, "3"},
		{"collect", false, false, "[3,1,3,0.5]"},
		{"collect", true, false, "[3,1,0.5]"},
		{"collect_set", false, false, "[3,1,0.5]"},
	} {
		a := &ast.AggregateExpr{Name: tc.name, Distinct: tc.distinct}
		if !tc.star {
			a.Arg = &ast.InputPropExpr{Col: "x"}
		}
		acc := newAccumulator(a)
		for _, v := range vals {
			if err := acc.add(v); err != nil {
				t.Fatalf("%s: %v", a, err)
			}
		}
		if got := acc.result().String(); got != tc.want {
			t.Errorf("%s = %s, want %s", a, got, tc.want)
		}
	}
	// Over nothing (or only NULLs): count and sum 0, the others NULL or [].
	for name, want := range map[string]string{"count": "0", "sum": "0", "avg": "NULL", "min": "NULL", "max": "NULL", "collect": "[]", "collect_set": "[]"} {
		acc := newAccumulator(&ast.AggregateExpr{Name: name, Arg: &ast.InputPropExpr{Col: "x"}})
		_ = acc.add(value.Null())
		if got := acc.result().String(); got != want {
			t.Errorf("%s over NULL = %s, want %s", name, got, want)
		}
	}
	acc := newAccumulator(&ast.AggregateExpr{Name: "sum", Arg: &ast.InputPropExpr{Col: "x"}})
	if err := acc.add(value.Str("x")); err == nil {
		t.Errorf("sum of a string: no error")
	}
}

// neighbors builds a step response: vertex i has edges[i] returned edges
// out of counts[i] in all.
func neighbors(counts, edges []int, packed bool) []*storagepb.VertexNeighbors {
	var resp []*storagepb.VertexNeighbors
	for i := range counts {
		vn := &storagepb.VertexNeighbors{Vid: []byte{byte(i)}, Count: int64(counts[i])}
		for j := 0; j < edges[i]; j++ {
			if packed {
				vn.PackedDsts = append(vn.PackedDsts, byte(i), byte(j))
			} else {
				vn.Edges = append(vn.Edges, &storagepb.NeighborEdge{Dst: []byte{byte(i), byte(j)}})
			}
		}
		resp = append(resp, vn)
	}
	return resp
}

func stepPlan(sample bool, counts ...int64) *goPlan {
	return &goPlan{
		space: &metapb.SpaceDesc{VidLen: 2},
		stmt:  &ast.GoStmt{Steps: ast.StepRange{Min: 1, Max: len(counts)}, Limits: &ast.StepLimits{Sample: sample, Counts: counts}},
	}
}

func TestCutStepLimit(t *testing.T) {
	for _, packed := range []bool{false, true} {
		p := stepPlan(false, 4)
		resp := p.cutStep(1, neighbors([]int{3, 3, 3}, []int{3, 3, 3}, packed))
		var got [][]byte
		for _, vn := range resp {
			got = append(got, storageDsts(vn)...)
		}
		want := [][]byte{{0, 0}, {0, 1}, {0, 2}, {1, 0}}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("packed=%v: kept %v, want %v", packed, got, want)
		}
	}
	// Under the limit: untouched.
	p := stepPlan(false, 10)
	resp := p.cutStep(1, neighbors([]int{3, 3}, []int{3, 3}, false))
	if len(resp[0].Edges)+len(resp[1].Edges) != 6 {
		t.Errorf("cut below the limit")
	}
}

func storageDsts(vn *storagepb.VertexNeighbors) [][]byte {
	var out [][]byte
	if len(vn.PackedDsts) > 0 {
		for b := vn.PackedDsts; len(b) >= 2; b = b[2:] {
			out = append(out, b[:2])
		}
		return out
	}
	for _, e := range vn.Edges {
		out = append(out, e.Dst)
	}
	return out
}

// TestCutStepSample checks that sampling keeps exactly n distinct edges
// and weighs vertices by their edge counts: vertex 0 has 90 edges and
// vertex 1 has 10, each returning a sample of 5, so of 5 kept edges 4.5
// come from vertex 0 on average.
func TestCutStepSample(t *testing.T) {
	const trials = 4000
	from0 := 0
	for i := 0; i < trials; i++ {
		p := stepPlan(true, 5)
		resp := p.cutStep(1, neighbors([]int{90, 10}, []int{5, 5}, i%2 == 0))
		d0, d1 := storageDsts(resp[0]), storageDsts(resp[1])
		if len(d0)+len(d1) != 5 {
			t.Fatalf("kept %d edges, want 5", len(d0)+len(d1))
		}
		all := append(slices.Clone(d0), d1...)
		slices.SortFunc(all, slices.Compare)
		if len(slices.CompactFunc(all, slices.Equal)) != 5 {
			t.Fatalf("an edge kept twice: %v", all)
		}
		from0 += len(d0)
	}
	// Mean 4.5 per trial; the standard deviation of the total is about
	// sqrt(trials * 0.41) ≈ 40, so ±400 is ten of them.
	if mean := 4.5 * trials; float64(from0) < mean-400 || float64(from0) > mean+400 {
		t.Errorf("%d of %d sampled edges from vertex 0, want about %.0f", from0, 5*trials, mean)
	}
}
