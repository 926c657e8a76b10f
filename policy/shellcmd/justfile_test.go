package shellcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// testJustfiles are files by path under /p, found as the disk finds them.
func testJustfiles(files map[string]string) Disk {
	folder := func(dirs []string) string {
		dir := "/p"
		for _, d := range dirs {
			if path.IsAbs(d) {
				dir = d
			} else {
				dir = path.Join(dir, d)
			}
		}
		return dir
	}
	return Disk{
		FindUp: func(dirs []string, unknown bool, name string) (string, string, string) {
			for dir := folder(dirs); ; dir = path.Dir(dir) {
				if text, ok := files[path.Join(dir, name)]; ok {
					return text, dir, ""
				}
				if dir == "/" {
					return "", "", ""
				}
			}
		},
		File: func(dirs []string, unknown bool, names []string) (string, string, string) {
			for _, n := range names {
				if text, ok := files[path.Join(folder(dirs), n)]; ok {
					return text, folder(dirs), ""
				}
			}
			return "", "", ""
		},
	}
}

const testJustfile = `# a justfile
set shell := ["bash", "-c"]
alias w := wipe

out := "dist"
home := '~'
computed := ` + "`git rev-parse HEAD`" + `

default: build

build:
    cargo build

[private]
clean:
    rm -rf {{out}}

wipe target=home: clean
    @rm -rf {{target}}

leak *files:
    cat {{files}}

rev:
    echo {{computed}}

fn:
    rm -rf {{justfile_directory()}}/x

script:
    #!/usr/bin/env bash
    set -e
    git reset --hard

py:
    #!/usr/bin/env python3
    import shutil; shutil.rmtree("/")
`

// just runs the recipes its words name (the first when none), what they
// depend on first, with the words after a recipe as its arguments.
func TestParseJustfileRecipes(t *testing.T) {
	files := map[string]string{"/p/justfile": testJustfile, "/p/other.just": "x:\n  cat .env\n"}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"just", []string{"just", "cargo build @1 ?guess"}},
		{"just clean", []string{"just clean", "rm -rf dist @1 ?guess"}},
		{"just wipe", []string{"just wipe", "rm -rf dist @1 ?guess", "rm -rf ~ @1 ?guess"}},
		{"just w /x", []string{"just w /x", "rm -rf dist @1 ?guess", "rm -rf /x @1 ?guess"}},
		{"just leak .env .npmrc", []string{"just leak .env .npmrc", "cat .env .npmrc @1 ?guess"}},
		{"just build clean", []string{"just build clean", "cargo build @1 ?guess", "rm -rf dist @1 ?guess"}},
		{"just rev", []string{"just rev"}},
		{"just fn", []string{"just fn"}},
		{"just script", []string{"just script", "set -e @1 ?guess", "git reset --hard @1 ?guess"}},
		{"just py", []string{"just py"}},
		{"just -f other.just x", []string{"just -f other.just x", "cat .env @1 ?guess"}},
		{"cd sub/deep && just clean", []string{"cd sub/deep", "just clean", "rm -rf dist @1 ?guess"}},
		{"just --list", []string{"just --list"}},
		{"just -n wipe", []string{"just -n wipe"}},
		{"just \"$R\"", []string{"just $R ~dyn"}},
	} {
		l := ParseWith(tt.in, testJustfiles(files))
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	// Past the bound of recipe lines, the command is unknown.
	long := "all:\n" + strings.Repeat("    true\n", maxMakeRecipes+1)
	if l := ParseWith("just", testJustfiles(map[string]string{"/p/justfile": long})); !strings.Contains(l.UnknownReason(), "recipe lines of its justfile") {
		t.Errorf("a long recipe: unknown %q", l.UnknownReason())
	}
}

// FuzzJustfile: whatever a justfile says and whatever just line runs it,
// the parse holds its invariants, and the commands the line spells out
// are the ones it spells out without the justfile.
func FuzzJustfile(f *testing.F) {
	f.Add("just", testJustfile)
	f.Add("just a b c", "a x +y: (b 'z')\n  echo {{x}} {{y}}\nb:\n  {{\n")
	f.Add("just -f j", "a:\n\t#!/bin/sh\n\trm -rf ~\n")
	f.Fuzz(func(t *testing.T, src, text string) {
		l := ParseWith(src, testJustfiles(map[string]string{"/p/justfile": text, "/p/j": text}))
		checkWithDisk(t, src, l, fmt.Sprintf("justfile %q", text))
	})
}
