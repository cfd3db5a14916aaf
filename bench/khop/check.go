package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Row is one answer row of a k-hop workload, in a form both systems'
// answers convert to: dst(edge) alone, or dst(edge), $$.node.name,
// $$.node.age, follows.weight (Props). A NULL name or age (a destination
// without the tag) is kept as such, not as a zero value.
type Row struct {
	Dst      int64
	Name     string
	Age      int64
	Weight   int64
	NameNull bool
	AgeNull  bool
}

func (r Row) String() string {
	if r == (Row{Dst: r.Dst}) {
		return fmt.Sprintf("(%d)", r.Dst) // a dst(edge) row
	}
	name, age := strconv.Quote(r.Name), strconv.FormatInt(r.Age, 10)
	if r.NameNull {
		name = "NULL"
	}
	if r.AgeNull {
		age = "NULL"
	}
	return fmt.Sprintf("(%d, %s, %s, %d)", r.Dst, name, age, r.Weight)
}

// compareRows orders rows by every field, for sorted-multiset comparison.
func compareRows(a, b Row) int {
	if c := cmp.Compare(a.Dst, b.Dst); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Weight, b.Weight); c != 0 {
		return c
	}
	if c := boolCmp(a.NameNull, b.NameNull); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := boolCmp(a.AgeNull, b.AgeNull); c != 0 {
		return c
	}
	return cmp.Compare(a.Age, b.Age)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// Fingerprint is an order-independent digest of a multiset of rows: the
// count and two sums (mod 2^64) of independent 64-bit row hashes. Two
// answers with the same rows, duplicates included, in any order have the
// same fingerprint; answers that differ in any row, or in a row's
// multiplicity, differ with probability 1 - 2^-128 or so (the hashes are
// not adversarially secure, and need not be). It lets every timed answer
// be checked in O(rows) while it is read, without holding it.
type Fingerprint struct {
	Rows   int64  `json:"rows"`
	S1, S2 uint64 `json:"-"`
}

func (f Fingerprint) String() string { return fmt.Sprintf("%d rows, %016x%016x", f.Rows, f.S1, f.S2) }

// Add adds one row.
func (f *Fingerprint) Add(r Row) {
	f.Rows++
	f.S1 += r.hash(0x243f6a8885a308d3)
	f.S2 += r.hash(0x13198a2e03707344)
}

// AddDst adds a row of dst(edge) alone: Add(Row{Dst: dst}).
func (f *Fingerprint) AddDst(dst int64) { f.Add(Row{Dst: dst}) }

// mix is SplitMix64's finaliser, a bijection with good avalanche.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (r Row) hash(seed uint64) uint64 {
	h := mix(seed ^ uint64(r.Dst))
	h = mix(h ^ (uint64(r.Weight) + 0x9e3779b97f4a7c15))
	nh := uint64(0xcbf29ce484222325) ^ seed // FNV-1a over the name
	for i := 0; i < len(r.Name); i++ {
		nh ^= uint64(r.Name[i])
		nh *= 0x100000001b3
	}
	if r.NameNull {
		nh = ^nh
	}
	h = mix(h ^ nh)
	ah := uint64(r.Age) + 0x9e3779b97f4a7c15
	if r.AgeNull {
		ah = ^ah
	}
	return mix(h + ah + 0x7f4a7c159e3779b9)
}

// FingerprintOf digests rows.
func FingerprintOf(rows []Row) Fingerprint {
	var f Fingerprint
	for _, r := range rows {
		f.Add(r)
	}
	return f
}

// Diff compares two answers as sorted multisets. It returns "" when they
// are equal, else a summary: the row counts, how many rows each has that
// the other lacks (counting multiplicity), and the first few of them.
func Diff(aName string, a []Row, bName string, b []Row) string {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, compareRows)
	slices.SortFunc(b, compareRows)
	var onlyA, onlyB []Row
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && compareRows(a[i], b[j]) < 0:
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || compareRows(a[i], b[j]) > 0:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s %d rows, %s %d rows; %d rows only in %s, %d only in %s (with multiplicity)",
		aName, len(a), bName, len(b), len(onlyA), aName, len(onlyB), bName)
	show := func(name string, rows []Row) {
		if len(rows) == 0 {
			return
		}
		const max = 5
		fmt.Fprintf(&s, "\n  only in %s:", name)
		for k, r := range rows {
			if k == max {
				fmt.Fprintf(&s, " … (%d more)", len(rows)-max)
				break
			}
			s.WriteString(" " + r.String())
		}
	}
	show(aName, onlyA)
	show(bName, onlyB)
	return s.String()
}
