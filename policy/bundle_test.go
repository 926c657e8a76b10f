package policy

import (
	"bytes"
	"os"
	"testing"

	"github.com/agent-shell/agent-shell/scripts"
)

// The built-in packs' compiled programs ship in the binary
// (scripts/packs.bundle): this keeps them in step with the packs' sources.
// AGENTSHELL_WRITE_BUNDLE=1 go test ./policy -run TestBuiltinPackBundle
// rewrites it.
func TestBuiltinPackBundle(t *testing.T) {
	var all []byte
	for _, name := range scripts.Packs() {
		m, err := LoadBuiltinPack(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewEngine(nil, m); err != nil {
			t.Fatal(err)
		}
		if err := m.Runtime().Check(); err != nil { // compiles every script and module
			t.Fatal(err)
		}
		b, err := m.Runtime().Bundle()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if os.Getenv("AGENTSHELL_WRITE_BUNDLE") == "1" {
		if err := os.WriteFile("../scripts/packs.bundle", all, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(all, scripts.PackPrograms()) {
		t.Errorf("scripts/packs.bundle does not hold the built-in packs' programs as they are now (%d bytes, want %d): AGENTSHELL_WRITE_BUNDLE=1 go test ./policy -run TestBuiltinPackBundle", len(scripts.PackPrograms()), len(all))
	}
}
