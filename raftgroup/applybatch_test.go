package raftgroup

import (
	"github.com/linxGnu/grocksdb"

	"fmt"
	"slices"
	"testing"
)

// TestApplyBatchReadsItsOwnWrites checks that Get and Scan see the database
// merged with this round's writes: new keys, overwrites and deletes.
func TestApplyBatchReadsItsOwnWrites(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	for _, k := range []string{"p/a", "p/c", "p/e", "q/z"} {
		if err := db.Put(wo, []byte(k), []byte("db:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	b := newApplyBatch(db)
	defer b.destroy()
	b.Put([]byte("p/b"), []byte("new:b"))
	b.Put([]byte("p/c"), []byte("new:c"))
	b.Delete([]byte("p/e"))
	b.Put([]byte("p/f"), []byte("new:f"))
	b.Delete([]byte("p/f"))
	b.Put([]byte("p/g"), []byte("new:g"))

	get := func(k string) string {
		v, err := b.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return "<nil>"
		}
		return string(v)
	}
	for k, want := range map[string]string{"p/a": "db:p/a", "p/b": "new:b", "p/c": "new:c", "p/e": "<nil>", "p/f": "<nil>", "p/x": "<nil>"} {
		if got := get(k); got != want {
			t.Errorf("Get(%s) = %s, want %s", k, got, want)
		}
	}

	scan := func(start string, limit int) []string {
		var out []string
		var st []byte
		if start != "" {
			st = []byte(start)
		}
		err := b.Scan([]byte("p/"), st, func(k, v []byte) (bool, error) {
			out = append(out, fmt.Sprintf("%s=%s", k, v))
			return len(out) < limit, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := scan("", 100), []string{"p/a=db:p/a", "p/b=new:b", "p/c=new:c", "p/g=new:g"}; !slices.Equal(got, want) {
		t.Errorf("Scan = %v, want %v", got, want)
	}
	if got, want := scan("p/bb", 100), []string{"p/c=new:c", "p/g=new:g"}; !slices.Equal(got, want) {
		t.Errorf("Scan from p/bb = %v, want %v", got, want)
	}
	if got, want := scan("", 2), []string{"p/a=db:p/a", "p/b=new:b"}; !slices.Equal(got, want) {
		t.Errorf("Scan stopped after 2 = %v, want %v", got, want)
	}

	// Once written, the database alone holds the same state.
	if err := b.Write(wo); err != nil {
		t.Fatal(err)
	}
	fresh := newApplyBatch(db)
	defer fresh.destroy()
	var after []string
	if err := fresh.Scan([]byte("p/"), nil, func(k, v []byte) (bool, error) {
		after = append(after, fmt.Sprintf("%s=%s", k, v))
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"p/a=db:p/a", "p/b=new:b", "p/c=new:c", "p/g=new:g"}; !slices.Equal(after, want) {
		t.Errorf("after write: %v, want %v", after, want)
	}
}

// TestApplyBatchAtomically checks that a failed command leaves neither
// overlay nor write batch changed, and a successful one keeps everything.
func TestApplyBatchAtomically(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := db.Put(wo, []byte("k/a"), []byte("db")); err != nil {
		t.Fatal(err)
	}
	b := newApplyBatch(db)
	defer b.destroy()
	b.Put([]byte("k/b"), []byte("kept"))
	err := b.Atomically(func() error {
		b.Put([]byte("k/a"), []byte("lost"))
		b.Delete([]byte("k/b"))
		b.Put([]byte("k/c"), []byte("lost"))
		return fmt.Errorf("boom")
	})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("Atomically = %v, want boom", err)
	}
	if err := b.Atomically(func() error {
		b.Put([]byte("k/d"), []byte("ok"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"k/a": "db", "k/b": "kept", "k/c": "", "k/d": "ok"}
	check := func(when string, get func(string) []byte) {
		for k, w := range want {
			if got := string(get(k)); got != w {
				t.Errorf("%s: %s = %q, want %q", when, k, got, w)
			}
		}
	}
	check("overlay", func(k string) []byte { v, _ := b.Get([]byte(k)); return v })
	if err := b.Write(wo); err != nil {
		t.Fatal(err)
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	check("written", func(k string) []byte { v, _ := db.GetBytes(ro, []byte(k)); return v })
}

// TestApplyBatchStagesFinalStateInKeyOrder checks what reaches RocksDB: one
// record per key written this round, its last value (or a delete), in key
// order, after the raft state the engine wrote directly; and that a
// rolled-back command leaves no record.
func TestApplyBatchStagesFinalStateInKeyOrder(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	b := newApplyBatch(db)
	defer b.destroy()
	b.wb.Put([]byte("raft/applied"), []byte("7")) // as putApplied does
	b.Put([]byte("k/d"), []byte("d1"))
	b.Put([]byte("k/b"), []byte("b1"))
	b.Put([]byte("k/d"), []byte("d2"))
	b.Delete([]byte("k/a"))
	b.Put([]byte("k/c"), []byte("c1"))
	b.Delete([]byte("k/c"))
	b.Put([]byte("k/b"), []byte("b2"))
	_ = b.Atomically(func() error {
		b.Put([]byte("k/0"), []byte("rolled back"))
		return fmt.Errorf("refused")
	})
	b.stage()
	var got []string
	it := b.wb.NewIterator()
	for it.Next() {
		r := it.Record()
		switch r.Type {
		case grocksdb.WriteBatchValueRecord:
			got = append(got, fmt.Sprintf("put %s=%s", r.Key, r.Value))
		case grocksdb.WriteBatchDeletionRecord:
			got = append(got, fmt.Sprintf("delete %s", r.Key))
		default:
			got = append(got, fmt.Sprintf("record type %d %s", r.Type, r.Key))
		}
	}
	want := []string{"put raft/applied=7", "delete k/a", "put k/b=b2", "delete k/c", "put k/d=d2"}
	if !slices.Equal(got, want) {
		t.Errorf("write batch = %v\nwant %v", got, want)
	}
	b.stage() // staged already: adds nothing
	if n := b.wb.Count(); n != len(want) {
		t.Errorf("after a second stage the batch has %d records, want %d", n, len(want))
	}
}
