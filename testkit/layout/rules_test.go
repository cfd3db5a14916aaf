package layout

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// A rule forbids the packages it applies to to depend, directly or through
// other packages, on some packages, except for the listed pairs.
//
// Patterns are import paths, "./x" for this module's package x; a trailing
// "/..." also matches every package below.
type rule struct {
	name    string
	why     string   // one line, printed with every violation
	applies []string // patterns of our packages the rule constrains
	exempt  []string // patterns of our packages it does not constrain
	deny    []string // patterns of the packages they must not depend on
	// allow lists the (importing package, denied pattern) pairs that are
	// right, with the reason. Keys are "importing package → pattern" in module
	// relative names.
	allow map[string]string
}

// The I/O the language must not do, and the rooms it must not reach into.
var languageDeny = []string{
	"google.golang.org/grpc/...",
	"github.com/linxGnu/grocksdb/...",
	"go.etcd.io/...",
	"github.com/hashicorp/memberlist/...",
	"net",
	"net/http/...",
	"os/exec",
	"./metad/...",
	"./storaged/...",
	"./graphd/...",
	"./raftgroup/...",
	"./gossip/...",
	"./client/...",
	"./console/...",
	"./importer/...",
	"./bench/...",
	"./cmd/...",
	"./testkit/...",
	"./internal/daemon/...",
	"./internal/grpcdial/...",
	"./internal/rocksopts/...",
}

var rules = []rule{
	{
		name: "the language is I/O-free",
		why: "query/ (lexer, ast, parser, value, eval) is nGQL itself; graphd, storaged, " +
			"the importer and the console link it, so it must not drag in RPC, storage or a daemon",
		applies: []string{"./query/..."},
		deny:    languageDeny,
	},
	{
		name: "the tools do not link the executor, and the parser only if they read nGQL",
		why: "graphd/exec is graphd's; a tool that needs a helper of it gets the helper moved " +
			"to a shared package (as schema.ColumnValue, bytesize.Parse), and only programs that " +
			"read nGQL text link query/parser",
		applies: []string{"./importer/...", "./bench/...", "./client/...", "./console/...", "./cmd/..."},
		deny:    []string{"./graphd/exec", "./query/parser"},
		allow: map[string]string{
			"cmd/graphd → graphd/exec":         "graphd is the daemon that runs the executor",
			"cmd/graphd → query/parser":        "graphd parses the statements of its sessions (through graphd/exec)",
			"cmd/storaged → query/parser":      "storaged parses the filters graphd pushes down (docs/storage.md)",
			"console → query/parser":           "the console parses the values of :param (NebulaGraph's console does too)",
			"cmd/nova-console → query/parser":  "through console, above",
			"importer → query/parser":          "the importer evaluates the schema's DEFAULT expressions and its config's mapping expressions",
			"cmd/nova-importer → query/parser": "through importer, above",
		},
	},
	{
		name: "only tests and the test kit import testkit/",
		why: "testkit/ holds test harnesses (in-process clusters, fault networks, oracles); " +
			"a program that links one links etcd, every daemon and testing",
		applies: []string{"./..."},
		exempt:  []string{"./testkit/..."},
		deny:    []string{"./testkit/..."},
	},
	{
		name: "the daemons' I/O-free halves stay I/O-free",
		why: "metad/catalog, metad/ddlcheck and storaged/rowread are what metad and storaged " +
			"decide without their stores, which graphd, the importer or testkit/memgraph link too; " +
			"linking RocksDB, etcd, raft or a daemon would make them the daemon again",
		applies: []string{"./metad/catalog", "./metad/ddlcheck", "./storaged/rowread"},
		deny: []string{
			"github.com/linxGnu/grocksdb/...", "go.etcd.io/...", "github.com/hashicorp/memberlist/...",
			"./metad", "./metad/client", "./storaged", "./storaged/client", "./graphd/...",
			"./raftgroup/...", "./gossip/...", "./internal/rocksopts/...", "./testkit/...",
		},
	},
	{
		name: "internal/ holds small shared libraries",
		why: "internal/ packages are shared by the daemons and the tools, " +
			"so none of them may depend on a daemon, a tool or the test kit",
		applies: []string{"./internal/..."},
		deny: []string{
			"./graphd/...", "./storaged/...", "./metad/...", "./raftgroup/...", "./gossip/...",
			"./client/...", "./console/...", "./importer/...", "./bench/...", "./cmd/...",
			"./testkit/...", "./deploy/...",
		},
	},
}

// match tells whether the package path (full import path) matches the
// pattern.
func (g *graph) match(pattern, path string) bool {
	if r, ok := strings.CutPrefix(pattern, "./"); ok {
		if r == "..." {
			return g.isOurs(path)
		}
		pattern = g.modPath + "/" + r
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func (g *graph) matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return g.match(p, path) })
}

// patternName is a pattern as violations and the allow-list name it.
func patternName(p string) string {
	return strings.TrimPrefix(p, "./")
}

// check returns the rule's violations, and the allow-list entries no
// package needs any more.
func (g *graph) check(r rule) (violations, unused []string) {
	used := map[string]bool{}
	for _, path := range g.ours {
		if !g.matchAny(r.applies, path) || g.matchAny(r.exempt, path) {
			continue
		}
		p := g.pkgs[path]
		for _, pattern := range r.deny {
			// Deps are sorted, so the first match is the top of the
			// pattern's packages (grpc before grpc/codes).
			i := slices.IndexFunc(p.Deps, func(d string) bool { return g.match(pattern, d) })
			if i < 0 {
				continue
			}
			dep := p.Deps[i]
			key := g.rel(path) + " → " + patternName(pattern)
			if _, ok := r.allow[key]; ok {
				used[key] = true
				continue
			}
			how := "through " + g.chain(path, dep)
			if slices.Contains(p.Imports, dep) {
				how = "directly"
			}
			violations = append(violations, fmt.Sprintf(
				"%s imports %s (%s), which breaks the rule %q: %s",
				g.rel(path), g.rel(dep), how, r.name, r.why))
		}
	}
	for key := range r.allow {
		if !used[key] {
			unused = append(unused, key)
		}
	}
	sort.Strings(unused)
	return violations, unused
}

func TestImportRules(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			violations, unused := g.check(r)
			for _, v := range violations {
				t.Error(v)
			}
			if len(violations) > 0 {
				t.Log("if the new import is right, add it to the rule's allow-list in testkit/layout/rules_test.go with its reason")
			}
			for _, key := range unused {
				t.Errorf("allow-list entry %q (%s) of the rule %q is not needed any more: remove it", key, r.allow[key], r.name)
			}
		})
	}
}

// The rules must notice what they are there to notice: each one checked
// against a graph with one wrong arrow added, from → to, which the rule
// reports on the package named by reported (from, if empty).
func TestImportRulesCatchWrongArrows(t *testing.T) {
	g := loadGraph(t)
	for _, tc := range []struct{ from, to, reported, rule string }{
		{"query/value", "google.golang.org/grpc", "", rules[0].name},
		{"query/lexer", "storaged/client", "", rules[0].name},
		// A service declared in common.proto would bring gRPC into the
		// language through the wire values.
		{"proto/commonpb", "google.golang.org/grpc", "query/value", rules[0].name},
		{"importer/source", "graphd/exec", "", rules[1].name},
		{"cmd/nova-diskfill", "query/parser", "", rules[1].name},
		{"client", "testkit/oracle", "", rules[2].name},
		{"internal/schema", "metad/catalog", "", rules[4].name},
		{"storaged/rowread", "github.com/linxGnu/grocksdb", "", rules[3].name},
		{"temporal", "go.etcd.io/etcd/client/v3", "metad/ddlcheck", rules[3].name},
	} {
		from, to := g.full(tc.from), g.full(tc.to)
		if g.pkgs[from] == nil || g.pkgs[to] == nil {
			t.Fatalf("%s or %s is not a package any more: change this test", tc.from, tc.to)
		}
		reported := cmp.Or(tc.reported, tc.from)
		h := g.withArrow(from, to)
		var found bool
		for _, r := range rules {
			violations, _ := h.check(r)
			for _, v := range violations {
				if r.name == tc.rule && strings.HasPrefix(v, reported+" imports ") {
					found = true
					t.Log(v)
				}
			}
		}
		if !found {
			t.Errorf("with an arrow %s → %s, the rule %q does not report %s", tc.from, tc.to, tc.rule, reported)
		}
	}
}

// full is the import path of a module-relative or external package name.
func (g *graph) full(name string) string {
	if strings.Contains(strings.Split(name, "/")[0], ".") {
		return name
	}
	return g.modPath + "/" + name
}

// withArrow returns a copy of g in which from also imports to (and so
// depends on to and its dependencies, and so does every package that
// depends on from).
func (g *graph) withArrow(from, to string) *graph {
	h := *g
	h.pkgs = make(map[string]*pkg, len(g.pkgs))
	added := append([]string{to}, g.pkgs[to].Deps...)
	for path, p := range g.pkgs {
		q := *p
		if path == from {
			q.Imports = append(slices.Clone(p.Imports), to)
		}
		if path == from || slices.Contains(p.Deps, from) {
			deps := slices.Concat(p.Deps, added)
			slices.Sort(deps)
			q.Deps = slices.Compact(deps)
		}
		h.pkgs[path] = &q
	}
	return &h
}
