// Package driver is the load driver of `nova-bench run` and `nova-bench
// seed`, in the style of nebula-bench: a fixed set of nGQL scenarios run by
// N concurrent workers against graphd, at each concurrency of a sweep, with
// latency histograms, a JSON and markdown report and plots.
//
// # Scenarios
//
// Scenarios (the run workload) assume the schema the importer creates for
// LDBC data (LDBCSchema): TAG Person(firstName, lastName, gender, birthday,
// creationDate, locationIP, browserUsed, language, email) and EDGE
// knows(creationDate), every friendship stored in both directions. For a
// SNAP graph (SNAPSchema: TAG node(), EDGE link()) the id-only scenarios
// apply as they are.
//
//	go1, go2, go3           GO k STEPS FROM $id OVER knows YIELD dst(edge):
//	                        nebula-bench's go.step1/2/3; one row per edge
//	                        of the last step
//	go1_date .. go3_date    the same, YIELD knows.creationDate: the edge
//	                        rows of the last step are read and decoded
//	go1_props .. go3_props  the same, YIELD $$.Person.firstName,
//	                        $$.Person.lastName: a tag lookup per destination
//	fetch_vertex            FETCH PROP ON Person $id YIELD properties(vertex)
//	fetch_edge              FETCH PROP ON knows a->b YIELD properties(edge)
//	                        for an edge drawn from the data
//	insert_vertex           INSERT VERTEX Person(...) VALUES $id:(...) with
//	                        a fresh id far above the data's (FreshIDs)
//	insert_edge             INSERT EDGE knows(creationDate) between two
//	                        fresh ids (the benchmarked graph is untouched)
//
// SeedQueries (the seed workload, Q1–Q9) are documented with the table.
// Each scenario is one line of a table: a name, a text/template over Schema
// yielding the statement, and what it reads (InputKind). The inputs are
// sent as query parameters ($id, $src, $dst, $ts through
// Session.ExecuteWithParams), so graphd sees one statement text; where nGQL
// takes no parameter (FETCH PROP ON an edge key: "the key of FETCH PROP ON
// edges cannot be a parameter") they are spliced in as literals, as they
// are everywhere with Prepare's literal flag (`--literal`).
//
// # Inputs
//
// Start vertices come from the data the space was imported from (LoadLDBC
// reads person_0_0.csv and person_knows_person_0_0.csv, and gen's other
// shards; LoadSNAP an edge list), drawn by a Sampler with a seeded PRNG:
// Uniform over all vertices, or SizeBiased, with probability proportional
// to the out-degree. MakeInputs draws a list once; workers take inputs from
// it in turn and cycle, so two runs with the same seed (novagraph and the
// floor) read the same start vertices.
//
// # Runs and measurements
//
// Run opens Concurrency workers (NovaTarget: each its own session on one
// shared client.Pool, USE space), runs a warm-up whose executions are not
// counted, then measures for a Duration or a Count of executions. Each
// worker records into its own HDR histograms (1 µs to 60 s, 3 significant
// figures), merged at the end. Two latencies are kept per execution:
//
//   - client: the wall time of Execute in the driver: what an application
//     sees, including gRPC, serialisation of the result and the client's
//     decoding;
//   - server: ResultSet.LatencyUS, graphd's own time for the statement.
//
// Their difference is the transport and result-size cost (large for go3,
// whose results have thousands of rows), and a client latency that grows
// with concurrency while the server's does not points at the driver's
// host or the network rather than at novagraph. Errors are counted by kind
// (the graphd error code, "timeout", "transport") with the first messages
// kept; rows returned are counted, so rows/s shows the work behind the QPS.
//
// Sweep repeats a run at each concurrency (DefaultConcurrency: 1 to 64).
// Report renders JSON (everything), a markdown table (scenario, conc, QPS,
// client and server p50/p99, errors, and the ratio to the storage floor of
// package floor when it was measured) and, per scenario, plots of QPS and
// of p50/p99 latency against concurrency (gonum/plot, SVG or PNG).
package driver
