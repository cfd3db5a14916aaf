package chaos

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// ambiguous is the return time of a write whose outcome is unknown (it
// returned an error): it may take effect at any point after its call, so it
// is concurrent with everything that follows. porcupine compresses
// timestamps before visualising, so the huge value is harmless.
const ambiguous = math.MaxInt64

// regInput is one operation on the register of one key.
type regInput struct {
	key   int64
	write bool
	value int64 // the value written
}

// regOutput is what an operation returned.
type regOutput struct {
	value     int64 // the value read; 0 = the key has no value
	ambiguous bool  // a write that returned an error
}

// registerModel is a linearizable register per key, partitioned by key so
// that porcupine checks each key on its own (the keys are independent
// objects, and linearizability is compositional).
func registerModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[int64][]porcupine.Operation{}
			var keys []int64
			for _, op := range history {
				k := op.Input.(regInput).key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, byKey[k])
			}
			return out
		},
		Init: func() any { return int64(0) },
		Step: func(state, input, output any) (bool, any) {
			in, out := input.(regInput), output.(regOutput)
			if in.write {
				// A write always may happen; an ambiguous one is
				// linearized (or not at all, by being placed after every
				// read, thanks to its infinite return time) by the search.
				return true, in.value
			}
			return out.value == state.(int64), state
		},
		Hash: func(state any) uint64 { return uint64(state.(int64)) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(regInput), output.(regOutput)
			if in.write {
				s := fmt.Sprintf("put(%d, %d)", in.key, in.value)
				if out.ambiguous {
					s += " → ?"
				}
				return s
			}
			return fmt.Sprintf("get(%d) → %d", in.key, out.value)
		},
		DescribeState: func(state any) string { return fmt.Sprint(state.(int64)) },
	}
}

// recorder collects one client's operations. A client runs one operation
// at a time, so its recorder needs no lock; the owner merges them after
// the client stopped.
type recorder struct {
	client int
	base   time.Time
	ops    []porcupine.Operation
}

func (r *recorder) now() int64 { return int64(time.Since(r.base)) }

// write records a put; err != nil makes it ambiguous.
func (r *recorder) write(key, value int64, call int64, err error) {
	ret, out := r.now(), regOutput{}
	if err != nil {
		ret, out.ambiguous = ambiguous, true
	}
	r.ops = append(r.ops, porcupine.Operation{ClientId: r.client, Input: regInput{key: key, write: true, value: value},
		Call: call, Output: out, Return: ret, Metadata: errText(err)})
}

// read records a successful get. A failed read has no effect and tells
// nothing, so it is not recorded.
func (r *recorder) read(key, value int64, call int64) {
	r.ops = append(r.ops, porcupine.Operation{ClientId: r.client, Input: regInput{key: key},
		Call: call, Output: regOutput{value: value}, Return: r.now()})
}

func errText(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}

// checkLinearizable runs porcupine and, on failure, writes the
// visualisation and returns a description naming its path. Unless persist,
// the file goes to the test's temporary directory (self-tests expect the
// failure and need not leave files behind).
func checkLinearizable(t *testing.T, history []porcupine.Operation, timeout time.Duration, persist bool) error {
	t.Helper()
	model := registerModel()
	start := time.Now()
	res, info := porcupine.CheckOperationsVerbose(model, history, timeout)
	t.Logf("porcupine: %s for %d operations in %v", res, len(history), time.Since(start).Round(time.Millisecond))
	if res == porcupine.Ok {
		return nil
	}
	path := filepath.Join(t.TempDir(), "history.html")
	if persist {
		path = artifactPath(t, "history.html")
	}
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		return fmt.Errorf("history is %s (and writing its visualisation failed: %v)", res, err)
	}
	if res == porcupine.Unknown {
		return fmt.Errorf("porcupine could not decide within %v (history too large?); visualisation: %s", timeout, path)
	}
	// Name the keys whose own history fails, and write each one's
	// timeline as text beside the visualisation: the first thing anyone
	// diagnosing the failure wants to read.
	var bad []int64
	for key, ops := range byKey(history) {
		if r, _ := porcupine.CheckOperationsVerbose(model, ops, timeout); r != porcupine.Ok {
			bad = append(bad, key)
			_ = os.WriteFile(filepath.Join(filepath.Dir(path), fmt.Sprintf("key-%d.txt", key)), []byte(timeline(ops)), 0o644)
		}
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i] < bad[j] })
	return fmt.Errorf("history is not linearizable on keys %v; visualisation %s, per-key timelines key-N.txt beside it", bad, path)
}

func byKey(history []porcupine.Operation) map[int64][]porcupine.Operation {
	out := map[int64][]porcupine.Operation{}
	for _, op := range history {
		k := op.Input.(regInput).key
		out[k] = append(out[k], op)
	}
	return out
}

// timeline prints one key's operations in call order: client, call and
// return time since the start, the operation, and a failed write's error.
func timeline(ops []porcupine.Operation) string {
	ops = append([]porcupine.Operation(nil), ops...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	model := registerModel()
	var b strings.Builder
	ms := func(ns int64) string { return fmt.Sprintf("%10.3fms", float64(ns)/1e6) }
	for _, op := range ops {
		ret := "         ?  "
		if op.Return != ambiguous {
			ret = ms(op.Return)
		}
		fmt.Fprintf(&b, "client %d  %s .. %s  %s", op.ClientId, ms(op.Call), ret, model.DescribeOperation(op.Input, op.Output))
		if op.Metadata != nil {
			fmt.Fprintf(&b, "  (%v)", op.Metadata)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// artifactPath names a file that outlives the test: under the -artifacts
// directory when go test was asked to keep artifacts, else in a fresh
// directory under os.TempDir() (t.ArtifactDir alone would be deleted).
func artifactPath(t *testing.T, name string) string {
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return filepath.Join(t.ArtifactDir(), name)
	}
	dir, err := os.MkdirTemp("", "novagraph-chaos-"+strings.NewReplacer("/", "_", "=", "").Replace(t.Name())+"-")
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, name)
}

// checkNoLostWrites checks each key's final value (read after healing)
// against the acknowledged writes: the write that produced it must not
// have completed before an acknowledged write to the same key began (that
// later write would then be lost), and a key that any acknowledged write
// touched must have a value. porcupine implies this; the check exists for
// its plain error message.
func checkNoLostWrites(history []porcupine.Operation, final map[int64]int64) []string {
	writer := map[int64]porcupine.Operation{} // value → its write
	acked := map[int64][]porcupine.Operation{}
	for _, op := range history {
		in := op.Input.(regInput)
		if !in.write {
			continue
		}
		writer[in.value] = op
		if !op.Output.(regOutput).ambiguous {
			acked[in.key] = append(acked[in.key], op)
		}
	}
	var problems []string
	keys := make([]int64, 0, len(final))
	for k := range final {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, key := range keys {
		v := final[key]
		if v == 0 {
			if len(acked[key]) > 0 {
				problems = append(problems, fmt.Sprintf("key %d has no value, but %d writes to it were acknowledged (first: %d)",
					key, len(acked[key]), acked[key][0].Input.(regInput).value))
			}
			continue
		}
		w, ok := writer[v]
		if !ok || w.Input.(regInput).key != key {
			problems = append(problems, fmt.Sprintf("key %d holds %d, which no write to it wrote", key, v))
			continue
		}
		for _, a := range acked[key] {
			if a.Call > w.Return {
				problems = append(problems, fmt.Sprintf("key %d: acknowledged put(%d) (called at %v) is lost: the final value %d was written by an operation that returned at %v",
					key, a.Input.(regInput).value, time.Duration(a.Call), v, time.Duration(w.Return)))
				break
			}
		}
	}
	return problems
}
