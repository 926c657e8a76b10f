package scripts_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/scripts"
)

// The demo's manifest must load with its script, examples included: the
// demo runs on it.
func TestDemoManifestLoads(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"agent-shell.toml", "policy.json", "scripts/tf.star", "scripts/tf_test.star"} {
		data, err := scripts.Demo(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := policy.LoadManifestFile(filepath.Join(dir, "agent-shell.toml"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := policy.NewEngine(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide("terraform destroy -auto-approve", dir); d.Action != policy.ActionDeny || d.Rule != "no-terraform-destroy" {
		t.Errorf("terraform destroy: %s by %q, want deny by no-terraform-destroy", d.Action, d.Rule)
	}
}

// Every module of the @agent-shell// library is embedded.
func TestLibrary(t *testing.T) {
	if _, err := scripts.Library("helpers.star"); err != nil {
		t.Fatal(err)
	}
	if _, err := scripts.Library("nope.star"); err == nil {
		t.Error("a missing module was found")
	}
}
