package importer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestSorterMatchesMap sorts random pairs with repeated keys through
// spills and the merge, and checks the result against a map that keeps
// each key's last value: every key once, in byte order, last write wins.
func TestSorterMatchesMap(t *testing.T) {
	for _, spillEvery := range []int{0, 1, 7, 100} {
		t.Run(fmt.Sprintf("spill every %d", spillEvery), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(spillEvery)))
			s := &sorter{dir: t.TempDir(), name: "t"}
			want := map[string]string{}
			for i := range 2000 {
				// Keys share an 8-byte prefix, as in one partition, and
				// vary in length so that some are prefixes of others.
				k := append([]byte("SSSSPPPP"), byte(rng.IntN(3)))
				for range rng.IntN(20) {
					k = append(k, byte(rng.IntN(4)))
				}
				v := fmt.Sprintf("v%d", i)
				s.add(k, []byte(v))
				want[string(k)] = v
				if spillEvery > 0 && i%spillEvery == 0 {
					if err := s.spill(); err != nil {
						t.Fatal(err)
					}
				}
			}
			var keys []string
			for k := range want {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			i := 0
			err := s.merge(func(k, v []byte) error {
				if i >= len(keys) {
					return fmt.Errorf("extra key %x", k)
				}
				if !bytes.Equal(k, []byte(keys[i])) || string(v) != want[keys[i]] {
					return fmt.Errorf("pair %d: got %x=%s, want %x=%s", i, k, v, keys[i], want[keys[i]])
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if i != len(keys) {
				t.Fatalf("merge gave %d keys, want %d", i, len(keys))
			}
		})
	}
}
