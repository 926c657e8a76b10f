package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agent-shell/agent-shell"

// floors are the house's floors (README.md in this folder, "The house"): a
// package imports only packages of lower floors, so that every arrow points
// down and each room can be understood without those above it.
var floors = map[string]int{
	// Leaves: pure helpers, the task files' reader and the shell parser
	// above it, the embedded scripts, the sandbox, these notes.
	"internal/textcut": 0, "internal/lazy": 0, "internal/jsonstr": 0, "internal/atomicfile": 0,
	"internal/project": 0, "internal/corpustsv": 0, "internal/nethelper": 0, "internal/plainfile": 0,
	"internal/spawn": 0, "scripts": 0, "docs": 0,
	"internal/termtext": 1, "enforce": 1, "policy/taskfile": 1,
	"internal/udiff": 2, "policy/shellcmd": 2,
	// The edges and the stores: what comes in, what is kept.
	"hostapi": 3, "telemetry": 3, "state": 3, "builtins": 3, "authority": 3,
	// What runs scripts, what reads the record, the guard.
	"runtime": 4, "policy/guard": 4, "telemetry/logtable": 4, "telemetry/otlp": 4, "telemetry/report": 4,
	// Where the decision is made.
	"policy": 5, "telemetry/otlp/otlphttp": 5,
	// What uses the decision: onboarding, replay, packs, a hook's call.
	"policy/discover": 6, "policy/replay": 6, "packs": 6, "setup": 6, "call": 6,
	"internal/mcpserver": 7,
	// The commands and the benchmarks.
	"cmd/agent-shell": 8, "cmd/agent-shell-net": 8,
	"bench/accuracy": 8, "bench/genevents": 8, "bench/hello": 8,
}

// TestImportsPointDown checks every import of every package of the module
// (tests aside) against floors, and that floors names every package.
func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		seen[pkg] = true
		floor, ok := floors[pkg]
		if !ok {
			t.Errorf("%s: a package the house does not place: give it a floor", pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ours := strings.CutPrefix(p, module+"/")
			if !ours {
				continue
			}
			if to, ok := floors[dep]; !ok || to >= floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): arrows point down only", filepath.ToSlash(rel), floor, dep, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range floors {
		if !seen[pkg] {
			t.Errorf("%s is in floors but not in the repository", pkg)
		}
	}
	if len(seen) < 30 {
		t.Fatalf("found %d packages under %s: not the repository", len(seen), root)
	}
}
