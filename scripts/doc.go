// Package scripts holds what ships inside the agent-shell binary besides
// code: the @agent-shell// Starlark library that scripts load, and the
// files `agent-shell demo` sets up a repository with. It reads nothing
// from disk.
package scripts

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed demo
var demo embed.FS

//go:embed lib
var library embed.FS

// Demo returns an embedded file of the demo repository, by its path under
// demo/ (e.g. "policy.json").
func Demo(name string) ([]byte, error) {
	return demo.ReadFile("demo/" + name)
}

// Library returns a module of the @agent-shell// library by its cleaned
// path, e.g. "helpers.star" for load("@agent-shell//helpers.star", ...).
func Library(name string) ([]byte, error) {
	return library.ReadFile("lib/" + name)
}

//go:embed all:packs
var packs embed.FS

// Packs lists the packs built into the binary, by name.
func Packs() []string {
	entries, _ := packs.ReadDir("packs")
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// Pack returns the files of a built-in pack, rooted at the pack's folder.
func Pack(name string) (fs.FS, bool) {
	if name == "" || strings.ContainsAny(name, "/.") {
		return nil, false
	}
	if _, err := fs.Stat(packs, "packs/"+name+"/pack.toml"); err != nil {
		return nil, false
	}
	sub, err := fs.Sub(packs, "packs/"+name)
	return sub, err == nil
}

//go:embed packs.bundle
var packPrograms []byte

// PackPrograms is the built-in packs' Starlark programs, compiled: the
// runtime's bundle (see runtime/bundle.go), kept in step with the packs by
// a test in policy.
func PackPrograms() []byte { return packPrograms }
