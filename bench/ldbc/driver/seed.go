package driver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/novagraph/novagraph/client"
)

// SeedQueries is the Q1–Q9 workload of a RocksDB graph-store benchmark,
// expressed in nGQL (`nova-bench seed`). It is meant for a SNAP graph
// (TAG node(), EDGE link(), no properties), where the "two properties" of
// Q1, Q2 and Q5 become properties(vertex), properties(edge) and
// properties($$) — an empty map, but the row is still located and read;
// pointed at the LDBC space (LDBCSchema) the same queries read two real
// properties (Person.firstName, Person.lastName; knows has one property,
// so Q2 reads properties(edge)).
//
// Q7 and Q8 count every vertex and edge. nGQL here has no MATCH, SHOW
// STATS or SUBMIT JOB STATS, and LOOKUP needs an index, so they are a
// LOOKUP over a property-less index (CREATE TAG INDEX ... ON node(), one
// entry per vertex with the tag; likewise for the edge type) piped into
// YIELD count(*). Their Setup creates and rebuilds those indexes once.
var SeedQueries = []Scenario{
	{Name: "q1", Input: InputVertex, Template: `FETCH PROP ON {{.Tag}} $id YIELD {{vprops2}}`, Doc: "vertex lookup with 2 properties"},
	{Name: "q2", Input: InputVertex, Template: `GO FROM $id OVER {{.Edge}} YIELD dst(edge), {{eprops2}}`, Doc: "out-edge scan with 2 edge properties"},
	{Name: "q3", Input: InputEdge, Literal: true, Template: `FETCH PROP ON {{.Edge}} $src->$dst YIELD properties(edge)`, Doc: "edge point lookup"},
	{Name: "q4", Input: InputVertex, Template: `GO FROM $id OVER {{.Edge}} YIELD dst(edge) LIMIT [5]`, Doc: "out-edge scan, first 5 edges (GO's per-step LIMIT, pushed to storage)"},
	{Name: "q5", Input: InputVertex, Template: `GO FROM $id OVER {{.Edge}} YIELD dst(edge), {{dstprops}}`, Doc: "out-neighbours with 2 properties each"},
	{Name: "q6", Input: InputVertex, Template: `GO 2 STEPS FROM $id OVER {{.Edge}} YIELD DISTINCT dst(edge) AS d | YIELD $-.d AS d WHERE $-.d != $id`, Doc: "distinct 2-hop neighbours, the start excluded"},
	{Name: "q7", Input: InputNone, Setup: setupCountIndex(false), Template: `LOOKUP ON {{.Tag}} YIELD id(vertex) AS v | YIELD count(*) AS n`, Doc: "count of all vertices (a full index scan)"},
	{Name: "q8", Input: InputNone, Setup: setupCountIndex(true), Template: `LOOKUP ON {{.Edge}} YIELD src(edge) AS s | YIELD count(*) AS n`, Doc: "count of all edges (a full index scan)"},
	{Name: "q9", Input: InputVertex, Template: `GO FROM $id OVER {{.Edge}} REVERSELY YIELD src(edge)`, Doc: "in-edge scan (REVERSELY)"},
}

// CountIndexName is the property-less index Q7 (tag) or Q8 (edge) scans.
func CountIndexName(schema Schema, edge bool) string {
	if edge {
		return schema.Edge + "_bench_all"
	}
	return schema.Tag + "_bench_all"
}

// setupCountIndex creates the property-less index of the tag (or edge
// type) and builds it from the data, unless it exists already (entries of
// later inserts are written with them, so one build is enough).
func setupCountIndex(edge bool) func(ctx context.Context, s *client.Session, schema Schema) error {
	return func(ctx context.Context, s *client.Session, schema Schema) error {
		kind, on := "TAG", schema.Tag
		if edge {
			kind, on = "EDGE", schema.Edge
		}
		name := CountIndexName(schema, edge)
		rs, err := s.Execute(ctx, fmt.Sprintf("SHOW %s INDEXES", kind))
		if err != nil {
			return fmt.Errorf("SHOW %s INDEXES: %w", kind, err)
		}
		for i := 0; i < rs.Len(); i++ {
			for j := 0; j < rs.Row(i).Len(); j++ {
				if v, err := rs.Row(i).String(j); err == nil && v == name {
					return nil
				}
			}
		}
		for _, stmt := range []string{
			fmt.Sprintf("CREATE %s INDEX IF NOT EXISTS %s ON %s()", kind, name, on),
			fmt.Sprintf("REBUILD %s INDEX %s", kind, name),
		} {
			// A new index reaches graphd's catalog asynchronously: retry
			// the rebuild briefly while it is not known yet.
			deadline := time.Now().Add(30 * time.Second)
			for {
				_, err := s.Execute(ctx, stmt)
				if err == nil {
					break
				}
				if time.Now().After(deadline) || !strings.Contains(strings.ToLower(err.Error()), "not found") && !strings.Contains(strings.ToLower(err.Error()), "no index") {
					return fmt.Errorf("%s: %w", stmt, err)
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
		return nil
	}
}
