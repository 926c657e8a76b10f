package scripts

import (
	"testing"

	"github.com/agent-shell/agent-shell/policy"
)

// The demo's manifest must load, examples included: the demo runs on it.
func TestDemoManifestLoads(t *testing.T) {
	data, err := Demo("agent-shell.toml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := policy.ParseManifest("agent-shell.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.NewEngine(nil, m); err != nil {
		t.Fatal(err)
	}
	if _, err := Demo("policy.json"); err != nil {
		t.Fatal(err)
	}
}
