package chaos

import (
	"testing"
	"time"
)

// The checker's own tests are in testkit/chaos/register.

func TestScheduleIsAFunctionOfTheSeed(t *testing.T) {
	a, b, c := schedule(7, 10*time.Second, nil), schedule(7, 10*time.Second, nil), schedule(8, 10*time.Second, nil)
	if len(a) != len(b) {
		t.Fatalf("same seed, %d and %d steps", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, step %d differs: %v vs %v", i, a[i], b[i])
		}
	}
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == c[i]
	}
	if same {
		t.Fatal("seeds 7 and 8 have the same schedule")
	}
	seen := map[faultKind]bool{}
	for _, s := range a[:numFaultKinds] {
		seen[s.kind] = true
	}
	if len(seen) != int(numFaultKinds) {
		t.Fatalf("the first %d steps do not cover every fault kind: %v", numFaultKinds, a[:numFaultKinds])
	}
	for _, s := range schedule(7, 10*time.Second, []faultKind{faultPause}) {
		if s.kind != faultPause {
			t.Fatalf("a schedule restricted to pauses has a %v step", s.kind)
		}
	}
}
