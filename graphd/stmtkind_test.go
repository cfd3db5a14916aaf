package graphd

import "testing"

func TestStatementKind(t *testing.T) {
	for text, want := range map[string]string{
		"GO 3 STEPS FROM 1 OVER e YIELD dst(edge)":         "go",
		"  -- a comment\n go from 1 over e":                "go",
		"USE nba; GO FROM 'a' OVER follow":                 "go",
		"USE nba":                                          "use",
		"USE nba;":                                         "use",
		"use `my space`; MATCH (v) RETURN v":               "match",
		"OPTIONAL MATCH (v)-->(w) RETURN w":                "match",
		"$a = LOOKUP ON player YIELD id(vertex) AS id":     "lookup",
		`EXPLAIN FORMAT = "dot" FETCH PROP ON t 1 YIELD 1`: "fetch",
		"PROFILE GO FROM 1 OVER e":                         "go",
		"(YIELD 1 AS a UNION YIELD 2 AS a)":                "yield",
		"INSERT EDGE e() VALUES 1->2:()":                   "insert",
		"UPSERT VERTEX ON t 1 SET a = 1":                   "update",
		"CREATE TAG t(a int)":                              "ddl",
		"SHOW HOSTS":                                       "show",
		"FIND SHORTEST PATH FROM 1 TO 2 OVER *":            "path",
		"GET SUBGRAPH FROM 1":                              "subgraph",
		"SUBMIT JOB STATS":                                 "job",
		"GRANT ROLE ADMIN ON s TO u":                       "admin",
		"FROB the widget":                                  "other",
		"`GO` FROM 1":                                      "other",
		"":                                                 "none",
		"   ":                                              "none",
		`"a string first"`:                                 "other",
	} {
		if got := statementKind(text); got != want {
			t.Errorf("statementKind(%q) = %q, want %q", text, got, want)
		}
	}
}
