// Package scripts holds what ships inside the agent-shell binary besides
// code: the @agent-shell// Starlark library that scripts load, and the
// files `agent-shell demo` sets up a repository with. It reads nothing
// from disk.
package scripts

import "embed"

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
