package register

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// Checker tests on hand-written histories: the model accepts what a
// linearizable register may do and rejects what it may not, and ambiguous
// operations count as "maybe, at any time after the call".

func put(client int, key, value, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{Key: key, Kind: Write, Value: value}, Call: call, Output: Output{}, Return: ret}
}

func failedPut(client int, key, value, call int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{Key: key, Kind: Write, Value: value}, Call: call,
		Output: Output{Ambiguous: true}, Return: Ambiguous}
}

func get(client int, key, value, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{Key: key}, Call: call, Output: Output{Value: value}, Return: ret}
}

func cas(client int, key, expect, value, call, ret int64, ok bool) porcupine.Operation {
	out := Output{OK: ok}
	if ret == Ambiguous {
		out = Output{Ambiguous: true}
	}
	return porcupine.Operation{ClientId: client, Input: Input{Key: key, Kind: CAS, Value: value, Expect: expect}, Call: call, Output: out, Return: ret}
}

func TestModel(t *testing.T) {
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
		{"cas that found its value", true, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 5, 7, 2, 3, true), get(0, 1, 7, 4, 5)}},
		{"cas cannot succeed on another value", false, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 4, 7, 2, 3, true)}},
		{"cas cannot fail on its value", false, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 5, 7, 2, 3, false)}},
		{"failed cas changes nothing", false, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 4, 7, 2, 3, false), get(0, 1, 7, 4, 5)}},
		{"two cas from one value: only one wins", false, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 5, 7, 2, 10, true), cas(2, 1, 5, 8, 2, 10, true)}},
		{"ambiguous cas may have won", true, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 5, 7, 2, Ambiguous, false), get(0, 1, 7, 4, 5)}},
		{"ambiguous cas cannot write when the value differs", false, []porcupine.Operation{put(0, 1, 5, 0, 1), cas(1, 1, 4, 7, 2, Ambiguous, false), get(0, 1, 7, 4, 5)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := porcupine.CheckOperationsVerbose(Model(), tc.ops, 10*time.Second)
			if (res == porcupine.Ok) != tc.ok {
				t.Fatalf("porcupine says %s, want ok=%v", res, tc.ok)
			}
		})
	}
}

func TestNoLostWrites(t *testing.T) {
	h := []porcupine.Operation{put(0, 1, 5, 0, 1), put(1, 1, 6, 2, 3), failedPut(2, 1, 7, 4), put(0, 2, 8, 0, 1),
		cas(0, 3, 0, 9, 0, 1, true), cas(1, 3, 0, 10, 2, 3, false), cas(1, 3, 9, 11, 4, Ambiguous, false)}
	cases := []struct {
		name  string
		final map[int64]int64
		want  string // fragment of the problem, "" for none
	}{
		{"latest acknowledged", map[int64]int64{1: 6, 2: 8, 3: 9}, ""},
		{"ambiguous write won", map[int64]int64{1: 7, 2: 8, 3: 11}, ""},
		{"overwritten acknowledged write", map[int64]int64{1: 5, 2: 8}, "write of 6"},
		{"vanished key", map[int64]int64{1: 6, 2: 0}, "key 2 has no value"},
		{"vanished cas", map[int64]int64{3: 0}, "key 3 has no value"},
		{"foreign value", map[int64]int64{1: 8, 2: 8}, "which no write to it wrote"},
		{"a failed cas wrote nothing", map[int64]int64{3: 10}, "which no write to it wrote"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(NoLostWrites(h, tc.final), "; ")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("problems %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckNamesTheBadKeys: a failure names the keys whose own history is
// not linearizable and writes the visualisation and their timelines.
func TestCheckNamesTheBadKeys(t *testing.T) {
	h := []porcupine.Operation{
		put(0, 1, 5, 0, 1), put(0, 1, 6, 2, 3), get(1, 1, 5, 4, 5), // key 1: stale read
		put(0, 2, 7, 0, 1), get(1, 2, 7, 2, 3), // key 2: fine
	}
	path := filepath.Join(t.TempDir(), "out", "history.html")
	res, err := Check(h, 10*time.Second, path)
	if res != porcupine.Illegal || err == nil || !strings.Contains(err.Error(), "on keys [1]") {
		t.Fatalf("got %s, %v; want a failure on key 1 only", res, err)
	}
	for _, f := range []string{path, filepath.Join(filepath.Dir(path), "key-1.txt")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	if got := Timeline(h[:3]); !strings.Contains(got, "get(1) → 5") || strings.Count(got, "\n") != 3 {
		t.Fatalf("timeline:\n%s", got)
	}
	if res, err := Check(h[3:], 10*time.Second, path); res != porcupine.Ok || err != nil {
		t.Fatalf("a linearizable history failed: %s %v", res, err)
	}
}

func TestRecorderAndCount(t *testing.T) {
	r := NewRecorder(3, time.Now())
	r.Write(1, 5, r.Now(), nil)
	r.CAS(1, 5, 6, r.Now(), true, nil)
	r.CAS(1, 5, 7, r.Now(), true, os.ErrDeadlineExceeded) // err wins over ok
	r.Read(1, 6, r.Now())
	ops := Merge(r)
	if len(ops) != 4 || ops[2].Return != Ambiguous || ops[2].Output.(Output).OK || ops[0].ClientId != 3 {
		t.Fatalf("recorded %+v", ops)
	}
	want := Counts{Reads: 1, Writes: 1, CASes: 2, CASApplied: 1, AmbiguousCASes: 1}
	if got := Count(ops); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	if res, err := Check(ops, 10*time.Second, filepath.Join(t.TempDir(), "h.html")); res != porcupine.Ok {
		t.Fatalf("%s %v", res, err)
	}
}
