package layout

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the package table of docs/architecture.md from go list")

const (
	tableHeading = "## Packages and the direction of imports"
	regenerate   = "go test ./testkit/layout -run TestPackageTable -update"
	descWidth    = 50 // the description column wraps at this width
	importsWidth = 46 // the imports column wraps at this width (a long name may exceed it)
)

// groupOrder orders the table by the top directory of each package, from
// the wire and the storage layout up to the programs, then the shared
// libraries and the tests.
var groupOrder = []string{
	"proto", "temporal", "partition", "raftgroup", "gossip", "metad", "storaged",
	"query", "graphd", "client", "console", "importer", "br", "bench", "cmd",
	"internal", "testkit", "deploy",
}

// TestPackageTable checks that the package table of docs/architecture.md is
// what go list says, and that every package has a doc comment to take its
// description from. With -update it rewrites the table.
func TestPackageTable(t *testing.T) {
	g := loadGraph(t)
	var missing []string
	for _, path := range g.ours {
		if strings.TrimSpace(g.pkgs[path].Doc) == "" {
			missing = append(missing, g.rel(path))
		}
	}
	for _, m := range missing {
		t.Errorf("package %s has no doc comment: give it one (\"// Package x is …\" in doc.go, or above the package clause of its main file); its first sentence describes it in docs/architecture.md", m)
	}
	if len(missing) > 0 {
		return
	}

	table, err := g.packageTable()
	if err != nil {
		t.Fatal(err)
	}
	path := g.docPath()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start, end, err := tableBlock(doc)
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	if doc[start:end] == table {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:start]+table+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the package table of %s", path)
		return
	}
	have, want := strings.Split(doc[start:end], "\n"), strings.Split(table, "\n")
	i := 0
	for i < len(have) && i < len(want) && have[i] == want[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return ls[i]
		}
		return "(end of table)"
	}
	t.Errorf("the package table of docs/architecture.md (%q) is not what go list says; run\n\t%s\nand commit docs/architecture.md. First difference, line %d of the table:\n have: %s\n want: %s",
		tableHeading, regenerate, i+1, line(have), line(want))
}

// tableBlock returns the byte range of the contents of the first fenced
// block after the table's heading (from the line after the opening fence to
// the start of the closing fence).
func tableBlock(doc string) (start, end int, err error) {
	h := strings.Index(doc, "\n"+tableHeading+"\n")
	if h < 0 {
		return 0, 0, fmt.Errorf("no heading %q", tableHeading)
	}
	open := strings.Index(doc[h:], "\n```")
	if open < 0 {
		return 0, 0, fmt.Errorf("no fenced block after %q", tableHeading)
	}
	nl := strings.Index(doc[h+open+1:], "\n")
	if nl < 0 {
		return 0, 0, fmt.Errorf("the fenced block after %q does not end", tableHeading)
	}
	start = h + open + 1 + nl + 1
	closing := strings.Index(doc[start:], "```")
	if closing < 0 || (closing > 0 && doc[start+closing-1] != '\n') {
		return 0, 0, fmt.Errorf("the fenced block after %q does not end", tableHeading)
	}
	return start, start + closing, nil
}

// packageTable renders the table: one row per package, grouped by top
// directory in groupOrder and, within a group, each package below the ones
// it imports (then by name).
func (g *graph) packageTable() (string, error) {
	groups := map[string][]string{}
	for _, path := range g.ours {
		top, _, _ := strings.Cut(g.rel(path), "/")
		if !slices.Contains(groupOrder, top) {
			return "", fmt.Errorf("package %s is in no group of the table: add %q to groupOrder in testkit/layout/table_test.go", g.rel(path), top)
		}
		groups[top] = append(groups[top], path)
	}

	type row struct{ name, desc, imports string }
	var rows [][]row // per group
	nameWidth := len("package")
	for _, top := range groupOrder {
		var rs []row
		for _, path := range g.dependencyOrder(groups[top]) {
			r := row{name: g.rel(path), desc: describe(g.pkgs[path].Doc)}
			imports := shorten(g.ourImports(path))
			if imports == "" {
				imports = "—"
			}
			if g.testOnly(path) {
				imports = "(tests) " + imports
			}
			if top == "testkit" {
				r.desc = "test kit: " + r.desc
			}
			r.imports = imports
			nameWidth = max(nameWidth, utf8.RuneCountInString(r.name))
			rs = append(rs, r)
		}
		if len(rs) > 0 {
			rows = append(rows, rs)
		}
	}

	var b strings.Builder
	put := func(name, desc, imports string) {
		line := fmt.Sprintf("%-*s  %-*s  %s", nameWidth, name, descWidth, desc, imports)
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	put("package", "what it is (its doc comment)", "imports of ours, direct")
	for _, rs := range rows {
		b.WriteString("\n")
		for _, r := range rs {
			desc, imports := wrap(r.desc, " ", descWidth), wrap(r.imports, ", ", importsWidth)
			for i := range max(len(desc), len(imports)) {
				var d, im, n string
				if i < len(desc) {
					d = desc[i]
				}
				if i < len(imports) {
					im = imports[i]
				}
				if i == 0 {
					n = r.name
				}
				put(n, d, im)
			}
		}
	}
	return b.String(), nil
}

// dependencyOrder sorts the packages of one group so that each comes after
// the packages of the group it imports, ties broken by name.
func (g *graph) dependencyOrder(paths []string) []string {
	in := map[string]bool{}
	for _, p := range paths {
		in[p] = true
	}
	var out []string
	done := map[string]bool{}
	for len(out) < len(paths) {
		var ready []string
		for _, p := range paths {
			if done[p] {
				continue
			}
			if !slices.ContainsFunc(g.pkgs[p].Imports, func(imp string) bool { return in[imp] && !done[imp] }) {
				ready = append(ready, p)
			}
		}
		if len(ready) == 0 { // an import cycle cannot build; keep the rest by name
			for _, p := range paths {
				if !done[p] {
					ready = append(ready, p)
				}
			}
		}
		next := slices.Min(ready)
		done[next] = true
		out = append(out, next)
	}
	return out
}

// testOnly tells whether a package is only tests (and its doc.go).
func (g *graph) testOnly(path string) bool {
	p := g.pkgs[path]
	code := slices.Concat(p.GoFiles, p.CgoFiles)
	return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 && (len(code) == 0 || slices.Equal(code, []string{"doc.go"}))
}

// ourImports lists the packages of ours that path imports directly, in
// module-relative names: its non-test imports, or its tests' for a package
// that is only tests.
func (g *graph) ourImports(path string) []string {
	p := g.pkgs[path]
	imports := p.Imports
	if g.testOnly(path) {
		imports = slices.Concat(p.TestImports, p.XTestImports)
	}
	var out []string
	for _, imp := range imports {
		if g.isOurs(imp) && imp != path {
			out = append(out, g.rel(imp))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var docSubject = regexp.MustCompile(`^(Package|Command) \S+ (is )?`)

// describe returns the summary clause of a package's synopsis (go list's
// Doc, the first sentence of its doc comment): the sentence without its
// subject ("Package x is") and its parentheses, up to a colon, semicolon,
// dash or ", so".
func describe(synopsis string) string {
	var b strings.Builder
	depth := 0
	for _, r := range synopsis {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	s = strings.NewReplacer(" ,", ",", " .", ".", " :", ":").Replace(s)
	s = docSubject.ReplaceAllString(s, "")
	for _, sep := range []string{": ", "; ", " — ", ", so "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	return strings.TrimRight(s, ".:; ")
}

// shorten joins import paths, folding the children of one directory:
// proto/commonpb, proto/metapb → proto/{commonpb,metapb}.
func shorten(paths []string) string {
	var parts []string
	for i := 0; i < len(paths); {
		dir, base := splitLast(paths[i])
		j := i + 1
		for j < len(paths) && dir != "" {
			d, _ := splitLast(paths[j])
			if d != dir {
				break
			}
			j++
		}
		if j-i == 1 {
			parts = append(parts, paths[i])
		} else {
			bases := []string{base}
			for _, p := range paths[i+1 : j] {
				_, b := splitLast(p)
				bases = append(bases, b)
			}
			parts = append(parts, dir+"/{"+strings.Join(bases, ",")+"}")
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

func splitLast(path string) (dir, base string) {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

// wrap splits s into lines of at most width runes, breaking after sep; a piece
// longer than width gets a line of its own.
func wrap(s, sep string, width int) []string {
	pieces := strings.SplitAfter(s, sep)
	var lines []string
	var cur string
	for _, p := range pieces {
		if cur != "" && utf8.RuneCountInString(strings.TrimRight(cur+p, " ")) > width {
			lines = append(lines, strings.TrimRight(cur, " "))
			cur = ""
		}
		cur += p
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, strings.TrimRight(cur, " "))
	}
	return lines
}
