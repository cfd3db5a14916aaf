package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// pkg is one package as `go list -json` reports it, with the fields the
// tests read.
type pkg struct {
	ImportPath   string
	Doc          string
	Standard     bool
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string // direct, non-test
	Deps         []string // transitive, non-test
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// graph is the module's non-test import graph plus every package it
// depends on (standard library and third party).
type graph struct {
	root    string          // the module's directory
	modPath string          // the module path, e.g. github.com/novagraph/novagraph
	pkgs    map[string]*pkg // by import path, ours and their dependencies
	ours    []string        // our packages' import paths, as go list ./... orders them
}

var (
	loadOnce  sync.Once
	loaded    *graph
	loadErr   error
	goMissing bool
)

// loadGraph runs go list once per test binary; a test skips when the go
// tool is not on PATH.
func loadGraph(t *testing.T) *graph {
	t.Helper()
	loadOnce.Do(func() {
		if _, err := exec.LookPath("go"); err != nil {
			goMissing = true
			return
		}
		loaded, loadErr = listModule()
		if loadErr == nil {
			loadErr = loaded.noteInputs()
		}
	})
	if goMissing {
		t.Skip("the go tool is not on PATH: the layout tests read the import graph from `go list`")
	}
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

func listModule() (*graph, error) {
	out, err := goCmd("", "list", "-m", "-f", "{{.Path}} {{.Dir}}")
	if err != nil {
		return nil, err
	}
	modPath, root, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || root == "" {
		return nil, errors.New("go list -m: no module directory in " + string(out))
	}
	g := &graph{root: root, modPath: modPath, pkgs: map[string]*pkg{}}

	fields := "ImportPath,Doc,Standard,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,Deps,TestImports,XTestImports,Error"
	out, err = goCmd(root, "list", "-deps", "-json="+fields, "./...")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, errors.New("go list: " + p.ImportPath + ": " + p.Error.Err)
		}
		g.pkgs[p.ImportPath] = &p
	}
	// -deps lists dependencies before dependents; the plain list gives our
	// packages alone, in go list's order.
	out, err = goCmd(root, "list", "./...")
	if err != nil {
		return nil, err
	}
	g.ours = strings.Fields(string(out))
	for _, path := range g.ours {
		if g.pkgs[path] == nil {
			return nil, errors.New("go list -deps did not report " + path)
		}
	}
	return g, nil
}

// noteInputs reads what go list read, so that go test's cache, which
// records the files and environment variables a test itself opens and
// reads, does not replay a pass after a package changed its imports: it
// lists every directory of the module (go test hashes each listing with
// its files' sizes and times) and reads the variables go list obeys.
func (g *graph) noteInputs() error {
	for _, v := range []string{"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOWORK"} {
		os.Getenv(v)
	}
	return filepath.WalkDir(g.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != g.root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return nil
	})
}

func goCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New("go " + strings.Join(args, " ") + ": " + err.Error() + "\n" + stderr.String())
	}
	return out, nil
}

// rel returns path relative to the module ("graphd/exec"), or path itself
// for a package that is not ours.
func (g *graph) rel(path string) string {
	if path == g.modPath {
		return "."
	}
	if r, ok := strings.CutPrefix(path, g.modPath+"/"); ok {
		return r
	}
	return path
}

// isOurs tells whether path is a package of this module.
func (g *graph) isOurs(path string) bool {
	return path == g.modPath || strings.HasPrefix(path, g.modPath+"/")
}

// chain returns the shortest non-test import chain from one package to
// another it depends on ("a → b → c"), in module-relative names.
func (g *graph) chain(from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			break
		}
		p := g.pkgs[cur]
		if p == nil {
			continue
		}
		for _, imp := range p.Imports {
			if _, seen := prev[imp]; !seen {
				prev[imp] = cur
				queue = append(queue, imp)
			}
		}
	}
	if _, ok := prev[to]; !ok {
		return g.rel(from) + " → … → " + g.rel(to)
	}
	var hops []string
	for cur := to; cur != ""; cur = prev[cur] {
		hops = append(hops, g.rel(cur))
	}
	for i, j := 0, len(hops)-1; i < j; i, j = i+1, j-1 {
		hops[i], hops[j] = hops[j], hops[i]
	}
	return strings.Join(hops, " → ")
}

// docPath is docs/architecture.md of the module.
func (g *graph) docPath() string {
	return filepath.Join(g.root, "docs", "architecture.md")
}
