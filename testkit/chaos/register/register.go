// Package register records histories of operations on a set of registers
// (one per key) and checks them: that they are linearizable
// (github.com/anishathalye/porcupine) and that no acknowledged write is
// lost. Both chaos harnesses use it: the in-process one (testkit/chaos),
// which reads and writes through the storage client, and the one against
// the compose cluster (testkit/chaos/compose), which goes through graphd
// and also does compare-and-set with UPDATE ... WHEN.
//
// # Ambiguity
//
// A write or compare-and-set that returned an error may or may not have
// happened. It is recorded with the return time Ambiguous (the largest
// int64), so porcupine may place it at any point after its call, or after
// every other operation, which is the same as never. A read that failed
// tells nothing and is not recorded.
package register

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Ambiguous is the return time of an operation whose outcome is unknown.
// porcupine compresses timestamps before visualising, so the huge value is
// harmless.
const Ambiguous = math.MaxInt64

// Kind is what an operation does to its register.
type Kind uint8

const (
	Read  Kind = iota
	Write      // set the register to Value
	CAS        // set it to Value if it holds Expect
)

// Input is one operation on the register of one key. Values are never 0
// except as "no value yet": a register starts at 0.
type Input struct {
	Key    int64
	Kind   Kind
	Value  int64 // written (Write, CAS)
	Expect int64 // what a CAS expects to find
}

// Output is what an operation returned.
type Output struct {
	Value     int64 // the value read; 0 = the key has no value
	OK        bool  // a CAS found Expect and wrote Value
	Ambiguous bool  // a Write or CAS that returned an error
}

// Model is a linearizable register per key, partitioned by key so that
// porcupine checks each key on its own (the keys are independent objects,
// and linearizability is compositional).
func Model() porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			groups := ByKey(history)
			keys := make([]int64, 0, len(groups))
			for k := range groups {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, groups[k])
			}
			return out
		},
		Init: func() any { return int64(0) },
		Step: func(state, input, output any) (bool, any) {
			in, out, cur := input.(Input), output.(Output), state.(int64)
			switch in.Kind {
			case Write:
				// An ambiguous write is linearized somewhere after its
				// call, or (placed after every read thanks to its
				// infinite return time) not at all, by the search.
				return true, in.Value
			case CAS:
				if out.Ambiguous {
					// Wherever it is placed, it did what a CAS does there.
					if cur == in.Expect {
						return true, in.Value
					}
					return true, cur
				}
				if out.OK {
					return cur == in.Expect, in.Value
				}
				return cur != in.Expect, cur
			default:
				return out.Value == cur, cur
			}
		},
		Hash: func(state any) uint64 { return uint64(state.(int64)) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(Input), output.(Output)
			switch in.Kind {
			case Write:
				s := fmt.Sprintf("put(%d, %d)", in.Key, in.Value)
				if out.Ambiguous {
					s += " → ?"
				}
				return s
			case CAS:
				s := fmt.Sprintf("cas(%d, %d→%d)", in.Key, in.Expect, in.Value)
				switch {
				case out.Ambiguous:
					return s + " → ?"
				case out.OK:
					return s + " → ok"
				default:
					return s + " → failed"
				}
			default:
				return fmt.Sprintf("get(%d) → %d", in.Key, out.Value)
			}
		},
		DescribeState: func(state any) string { return fmt.Sprint(state.(int64)) },
	}
}

// Recorder collects one client's operations. A client runs one operation
// at a time, so a Recorder needs no lock; its owner merges the recorders
// after the clients stopped.
type Recorder struct {
	client int
	base   time.Time
	ops    []porcupine.Operation
}

// NewRecorder records for client; times are measured from base, which all
// of a history's recorders must share.
func NewRecorder(client int, base time.Time) *Recorder {
	return &Recorder{client: client, base: base}
}

// Now is the time to pass as an operation's call time.
func (r *Recorder) Now() int64 { return int64(time.Since(r.base)) }

// Ops is what was recorded, in the order it happened.
func (r *Recorder) Ops() []porcupine.Operation { return r.ops }

// Write records a put; err != nil makes it ambiguous.
func (r *Recorder) Write(key, value, call int64, err error) {
	r.add(Input{Key: key, Kind: Write, Value: value}, Output{}, call, err)
}

// CAS records a compare-and-set; ok is whether it found expect. err != nil
// makes it ambiguous (ok is then ignored).
func (r *Recorder) CAS(key, expect, value, call int64, ok bool, err error) {
	r.add(Input{Key: key, Kind: CAS, Value: value, Expect: expect}, Output{OK: ok}, call, err)
}

// Read records a successful get. A failed read has no effect and tells
// nothing, so it is not recorded.
func (r *Recorder) Read(key, value, call int64) {
	r.ops = append(r.ops, porcupine.Operation{ClientId: r.client, Input: Input{Key: key, Kind: Read},
		Call: call, Output: Output{Value: value}, Return: r.Now()})
}

func (r *Recorder) add(in Input, out Output, call int64, err error) {
	ret := r.Now()
	var meta any
	if err != nil {
		ret, out = Ambiguous, Output{Ambiguous: true}
		meta = err.Error()
	}
	r.ops = append(r.ops, porcupine.Operation{ClientId: r.client, Input: in, Call: call, Output: out, Return: ret, Metadata: meta})
}

// Merge concatenates recorders' operations into one history.
func Merge(recs ...*Recorder) []porcupine.Operation {
	var out []porcupine.Operation
	for _, r := range recs {
		out = append(out, r.ops...)
	}
	return out
}

// Check runs porcupine on history. When it is not linearizable (or
// porcupine cannot decide within timeout), it writes porcupine's HTML
// visualisation to htmlPath and, beside it, key-N.txt with each failing
// key's operations in call order (the first thing anyone diagnosing the
// failure wants to read), and returns an error naming the keys and files.
func Check(history []porcupine.Operation, timeout time.Duration, htmlPath string) (porcupine.CheckResult, error) {
	model := Model()
	res, info := porcupine.CheckOperationsVerbose(model, history, timeout)
	if res == porcupine.Ok {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(htmlPath), 0o755); err != nil {
		return res, fmt.Errorf("history is %s (and creating %s failed: %v)", res, filepath.Dir(htmlPath), err)
	}
	if err := porcupine.VisualizePath(model, info, htmlPath); err != nil {
		return res, fmt.Errorf("history is %s (and writing its visualisation failed: %v)", res, err)
	}
	if res == porcupine.Unknown {
		return res, fmt.Errorf("porcupine could not decide within %v (history too large?); visualisation: %s", timeout, htmlPath)
	}
	var bad []int64
	for key, ops := range ByKey(history) {
		if r, _ := porcupine.CheckOperationsVerbose(model, ops, timeout); r != porcupine.Ok {
			bad = append(bad, key)
			_ = os.WriteFile(filepath.Join(filepath.Dir(htmlPath), fmt.Sprintf("key-%d.txt", key)), []byte(Timeline(ops)), 0o644)
		}
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i] < bad[j] })
	return res, fmt.Errorf("history is not linearizable on keys %v; visualisation %s, per-key timelines key-N.txt beside it", bad, htmlPath)
}

// ByKey splits a history by register.
func ByKey(history []porcupine.Operation) map[int64][]porcupine.Operation {
	out := map[int64][]porcupine.Operation{}
	for _, op := range history {
		k := op.Input.(Input).Key
		out[k] = append(out[k], op)
	}
	return out
}

// Timeline prints operations in call order: client, call and return time
// since the start, the operation, and a failed operation's error.
func Timeline(ops []porcupine.Operation) string {
	ops = append([]porcupine.Operation(nil), ops...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	model := Model()
	var b strings.Builder
	ms := func(ns int64) string { return fmt.Sprintf("%10.3fms", float64(ns)/1e6) }
	for _, op := range ops {
		ret := "         ?  "
		if op.Return != Ambiguous {
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

// Counts summarises a history for a report.
type Counts struct {
	Reads, Writes, CASes        int
	AmbiguousWrites, CASApplied int // CASApplied: acknowledged CASes that found their value
	AmbiguousCASes              int
}

// Count tallies a history.
func Count(history []porcupine.Operation) Counts {
	var c Counts
	for _, op := range history {
		in, out := op.Input.(Input), op.Output.(Output)
		switch in.Kind {
		case Read:
			c.Reads++
		case Write:
			c.Writes++
			if out.Ambiguous {
				c.AmbiguousWrites++
			}
		case CAS:
			c.CASes++
			switch {
			case out.Ambiguous:
				c.AmbiguousCASes++
			case out.OK:
				c.CASApplied++
			}
		}
	}
	return c
}

// NoLostWrites checks each key's final value (read after healing) against
// the acknowledged writes (puts and CASes that reported success): the
// operation that produced the final value must not have completed before
// an acknowledged write to the same key began (that later write would then
// be lost), and a key that any acknowledged write touched must have a
// value. Linearizability implies this; the check exists for its plain
// error message. Values must be unique per history.
func NoLostWrites(history []porcupine.Operation, final map[int64]int64) []string {
	writer := map[int64]porcupine.Operation{} // value → the operation that may have written it
	acked := map[int64][]porcupine.Operation{}
	for _, op := range history {
		in, out := op.Input.(Input), op.Output.(Output)
		if in.Kind == Read || in.Kind == CAS && !out.OK && !out.Ambiguous {
			continue
		}
		writer[in.Value] = op
		if !out.Ambiguous {
			acked[in.Key] = append(acked[in.Key], op)
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
					key, len(acked[key]), acked[key][0].Input.(Input).Value))
			}
			continue
		}
		w, ok := writer[v]
		if !ok || w.Input.(Input).Key != key {
			problems = append(problems, fmt.Sprintf("key %d holds %d, which no write to it wrote", key, v))
			continue
		}
		for _, a := range acked[key] {
			if a.Call > w.Return {
				problems = append(problems, fmt.Sprintf("key %d: acknowledged write of %d (called at %v) is lost: the final value %d was written by an operation that returned at %v",
					key, a.Input.(Input).Value, time.Duration(a.Call), v, time.Duration(w.Return)))
				break
			}
		}
	}
	return problems
}
