package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver
)

// OpenDuck opens an embedded DuckDB (path "" is in memory) and loads the
// two CSV files WriteCSV wrote: node(id PRIMARY KEY, name, age) and
// follows(src, dst, weight) sorted by (src, dst) with an ART index on src.
// threads > 0 sets DuckDB's thread count (default: every core).
func OpenDuck(ctx context.Context, path string, threads int, verticesCSV, edgesCSV string) (*sql.DB, string, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, "", err
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	stmts := []string{
		"DROP TABLE IF EXISTS follows",
		"DROP TABLE IF EXISTS node",
		"CREATE TABLE node(id BIGINT PRIMARY KEY, name VARCHAR, age BIGINT)",
		"INSERT INTO node SELECT * FROM read_csv(" + q(verticesCSV) +
			", header = false, delim = ',', columns = {'id': 'BIGINT', 'name': 'VARCHAR', 'age': 'BIGINT'}) ORDER BY id",
		"CREATE TABLE follows(src BIGINT NOT NULL, dst BIGINT NOT NULL, weight BIGINT NOT NULL)",
		"INSERT INTO follows SELECT * FROM read_csv(" + q(edgesCSV) +
			", header = false, delim = ',', columns = {'src': 'BIGINT', 'dst': 'BIGINT', 'weight': 'BIGINT'}) ORDER BY src, dst",
		"CREATE INDEX follows_src ON follows(src)",
		"CHECKPOINT",
	}
	if threads > 0 {
		stmts = append([]string{fmt.Sprintf("SET threads = %d", threads)}, stmts...)
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, "", fmt.Errorf("duckdb: %s: %w", s, err)
		}
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&version); err != nil {
		db.Close()
		return nil, "", err
	}
	return db, version, nil
}

// DuckCounts returns the row counts of the two tables.
func DuckCounts(ctx context.Context, db *sql.DB) (vertices, edges int64, err error) {
	if err = db.QueryRowContext(ctx, "SELECT count(*) FROM node").Scan(&vertices); err != nil {
		return
	}
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM follows").Scan(&edges)
	return
}
