package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/novagraph/novagraph/testkit/testcluster"
)

// BenchmarkLDBCGo measures GO k-hop latency over knows on LDBC SF0.1 in an
// in-process 3-store cluster (replica_factor=3), from random persons, as the
// whole client round trip. It is a baseline for the engine's read path, not
// a capacity figure: the three stores share this process and its cores.
//
//	go test ./testkit/e2e -run '^$' -bench BenchmarkLDBCGo -benchtime 200x
func BenchmarkLDBCGo(b *testing.B) {
	persons, edges := loadLDBC(b)
	c := testcluster.Start(b, testcluster.Options{Stores: 3})
	s := c.Session()
	defer s.Close()
	exec(b, s, "CREATE SPACE ldbc(partition_num=6, replica_factor=3, vid_type=INT64)")
	exec(b, s, "USE ldbc")
	exec(b, s, "CREATE TAG Person(firstName string, lastName string, creationDate int)")
	exec(b, s, "CREATE EDGE knows(creationDate int)")
	start := time.Now()
	insertLDBC(b, s, persons, edges)
	b.Logf("loaded %d persons and %d knows rows (both directions) in %v", len(persons), len(edges), time.Since(start))
	rng := rand.New(rand.NewSource(1))
	for _, q := range []struct{ name, yield string }{
		{"ids", "YIELD dst(edge)"},
		{"props", "YIELD dst(edge), knows.creationDate, $$.Person.firstName"},
	} {
		for steps := 1; steps <= 3; steps++ {
			b.Run(fmt.Sprintf("%s/%dsteps", q.name, steps), func(b *testing.B) {
				rows := 0
				for i := 0; i < b.N; i++ {
					p := persons[rng.Intn(len(persons))].id
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					rs, err := s.Execute(ctx, fmt.Sprintf("GO %d STEPS FROM %d OVER knows %s", steps, p, q.yield))
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					rows += rs.Len()
				}
				b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
			})
		}
	}
}
