package chaos

import (
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// Checker unit tests on hand-written histories: the model accepts what a
// linearizable register may do and rejects what it may not, and ambiguous
// writes are treated as "maybe, at any time after the call".

func put(client int, key, value, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: regInput{key: key, write: true, value: value}, Call: call, Output: regOutput{}, Return: ret}
}

func failedPut(client int, key, value, call int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: regInput{key: key, write: true, value: value}, Call: call,
		Output: regOutput{ambiguous: true}, Return: ambiguous}
}

func get(client int, key, value, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: regInput{key: key}, Call: call, Output: regOutput{value: value}, Return: ret}
}

func TestRegisterModel(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
		ops  []porcupine.Operation
	}{
		{"empty register reads 0", true, []porcupine.Operation{get(0, 1, 0, 0, 1)}},
		{"read after write", true, []porcupine.Operation{put(0, 1, 5, 0, 1), get(1, 1, 5, 2, 3)}},
		{"stale read after acknowledged write", false, []porcupine.Operation{put(0, 1, 5, 0, 1), put(0, 1, 6, 2, 3), get(1, 1, 5, 4, 5)}},
		{"concurrent read may see either", true, []porcupine.Operation{put(0, 1, 5, 0, 1), put(0, 1, 6, 2, 10), get(1, 1, 5, 3, 4), get(2, 1, 6, 5, 6)}},
		{"no going back once the new value was seen", false, []porcupine.Operation{put(0, 1, 5, 0, 1), put(0, 1, 6, 2, 10), get(1, 1, 6, 3, 4), get(2, 1, 5, 5, 6)}},
		{"keys are independent", true, []porcupine.Operation{put(0, 1, 5, 0, 1), put(0, 2, 6, 2, 3), get(1, 1, 5, 4, 5), get(1, 2, 6, 6, 7)}},
		{"value of another key", false, []porcupine.Operation{put(0, 1, 5, 0, 1), get(1, 2, 5, 2, 3)}},
		{"ambiguous write may have happened later", true, []porcupine.Operation{put(0, 1, 5, 0, 1), failedPut(1, 1, 6, 2), get(2, 1, 5, 3, 4), get(2, 1, 6, 50, 51)}},
		{"ambiguous write may never happen", true, []porcupine.Operation{failedPut(0, 1, 6, 0), get(1, 1, 0, 10, 11)}},
		{"ambiguous write cannot precede its call", false, []porcupine.Operation{get(1, 1, 6, 0, 1), failedPut(0, 1, 6, 2)}},
		{"ambiguous write is not undone", false, []porcupine.Operation{failedPut(0, 1, 6, 0), get(1, 1, 6, 10, 11), get(1, 1, 0, 12, 13)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := porcupine.CheckOperationsVerbose(registerModel(), tc.ops, 10*time.Second)
			if (res == porcupine.Ok) != tc.ok {
				t.Fatalf("porcupine says %s, want ok=%v", res, tc.ok)
			}
		})
	}
}

func TestCheckNoLostWrites(t *testing.T) {
	h := []porcupine.Operation{put(0, 1, 5, 0, 1), put(1, 1, 6, 2, 3), failedPut(2, 1, 7, 4), put(0, 2, 8, 0, 1)}
	cases := []struct {
		name  string
		final map[int64]int64
		want  string // fragment of the problem, "" for none
	}{
		{"latest acknowledged", map[int64]int64{1: 6, 2: 8}, ""},
		{"ambiguous write won", map[int64]int64{1: 7, 2: 8}, ""},
		{"overwritten acknowledged write", map[int64]int64{1: 5, 2: 8}, "put(6)"},
		{"vanished key", map[int64]int64{1: 6, 2: 0}, "key 2 has no value"},
		{"foreign value", map[int64]int64{1: 8, 2: 8}, "which no write to it wrote"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(checkNoLostWrites(h, tc.final), "; ")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("problems %q, want %q", got, tc.want)
			}
		})
	}
}

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

// TestCheckLinearizableNamesTheBadKeys: a failure names the keys whose own
// history is not linearizable and writes their timelines.
func TestCheckLinearizableNamesTheBadKeys(t *testing.T) {
	h := []porcupine.Operation{
		put(0, 1, 5, 0, 1), put(0, 1, 6, 2, 3), get(1, 1, 5, 4, 5), // key 1: stale read
		put(0, 2, 7, 0, 1), get(1, 2, 7, 2, 3), // key 2: fine
	}
	err := checkLinearizable(t, h, 10*time.Second, false)
	if err == nil || !strings.Contains(err.Error(), "on keys [1]") {
		t.Fatalf("got %v, want a failure on key 1 only", err)
	}
	if got := timeline(h[:3]); !strings.Contains(got, "get(1) → 5") || strings.Count(got, "\n") != 3 {
		t.Fatalf("timeline:\n%s", got)
	}
	if err := checkLinearizable(t, h[3:], 10*time.Second, false); err != nil {
		t.Fatalf("a linearizable history failed: %v", err)
	}
}
