// Package scripts holds what ships inside the agent-shell binary besides
// code: the files `agent-shell demo` sets up a repository with (and, once
// the Starlark runtime lands, the @agent-shell// library and examples). It
// reads nothing from disk.
package scripts

import "embed"

//go:embed demo
var demo embed.FS

// Demo returns an embedded file of the demo repository, by its path under
// demo/ (e.g. "policy.json").
func Demo(name string) ([]byte, error) {
	return demo.ReadFile("demo/" + name)
}
