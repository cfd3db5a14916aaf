// Package grafana holds the cluster's Grafana dashboard
// (novagraph-dashboard.json), the Prometheus scrape configuration
// (prometheus.yml) and Grafana's provisioning files, as deploy/compose's
// "monitoring" profile mounts them; docs/operate.md says what each panel
// shows. The Go code reads the dashboard's queries, for the tests that
// check every series it queries is one a running cluster exports (in
// process: testkit/e2e; on the compose cluster: deploy/compose).
package grafana

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
)

// DashboardJSON is novagraph-dashboard.json as shipped.
//
//go:embed novagraph-dashboard.json
var DashboardJSON []byte

// Query is one query of a dashboard panel.
type Query struct {
	Panel string // the panel's title
	Expr  string // PromQL
}

// Queries returns every query of the dashboard, checking on the way what
// Grafana needs to show it: a uid, unique panel ids, at least one query per
// panel that is not a row, a datasource on every query, and balanced
// brackets and quotes in every expression.
func Queries() ([]Query, error) {
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			ID      int    `json:"id"`
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr       string          `json:"expr"`
				Datasource json.RawMessage `json:"datasource"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(DashboardJSON, &dash); err != nil {
		return nil, fmt.Errorf("novagraph-dashboard.json: %w", err)
	}
	if dash.UID == "" || len(dash.Panels) == 0 {
		return nil, fmt.Errorf("novagraph-dashboard.json: no uid or no panels")
	}
	ids := map[int]string{}
	var out []Query
	for _, p := range dash.Panels {
		if prev, dup := ids[p.ID]; dup {
			return nil, fmt.Errorf("novagraph-dashboard.json: panels %q and %q share id %d", prev, p.Title, p.ID)
		}
		ids[p.ID] = p.Title
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			return nil, fmt.Errorf("novagraph-dashboard.json: panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if len(tg.Datasource) == 0 {
				return nil, fmt.Errorf("novagraph-dashboard.json: panel %q: a query without a datasource", p.Title)
			}
			if !Balanced(tg.Expr) {
				return nil, fmt.Errorf("novagraph-dashboard.json: panel %q: unbalanced brackets or quotes in %s", p.Title, tg.Expr)
			}
			out = append(out, Query{Panel: p.Title, Expr: tg.Expr})
		}
	}
	return out, nil
}

// metricName picks series names out of PromQL: novagraph's own and the Go
// and process collectors'. Label names and functions never start so.
var metricName = regexp.MustCompile(`\b(?:novagraph|process|go)_[a-z0-9_]+\b`)

// MetricNames returns the series an expression queries, as exported (a
// histogram's as its _bucket, _sum or _count series).
func MetricNames(expr string) []string { return metricName.FindAllString(expr, -1) }

// Balanced reports whether the brackets of expr pair up outside its
// double-quoted strings, and every string ends.
func Balanced(expr string) bool {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	inString := false
	for _, r := range expr {
		switch {
		case r == '"':
			inString = !inString
		case inString:
		case r == '(' || r == '[' || r == '{':
			stack = append(stack, r)
		case pairs[r] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0 && !inString
}
