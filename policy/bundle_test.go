package policy

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"testing"

	"github.com/agent-shell/agent-shell/scripts"
)

// The built-in packs' compiled programs ship in the binary
// (scripts/packs.bundle): this keeps them in step with the packs' sources.
// AGENTSHELL_WRITE_BUNDLE=1 go test ./policy -run TestBuiltinPackBundle
// rewrites it.
func TestBuiltinPackBundle(t *testing.T) {
	write := os.Getenv("AGENTSHELL_WRITE_BUNDLE") == "1"
	if write { // builtin_packs.go may be stale too: decode pack.toml itself
		for _, name := range scripts.Packs() {
			files, _ := scripts.Pack(name)
			data, err := fs.ReadFile(files, PackFileName)
			if err != nil {
				t.Fatal(err)
			}
			builtinPackFiles[name] = func() *PackFile {
				pf, err := decodePackFile(name, data)
				if err != nil {
					t.Fatal(err)
				}
				return pf
			}
		}
	}
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
	decoded, err := builtinPacksSource()
	if err != nil {
		t.Fatal(err)
	}
	if write {
		if err := os.WriteFile("../scripts/packs.bundle", all, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("builtin_packs.go", decoded, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(all, scripts.PackPrograms()) {
		t.Errorf("scripts/packs.bundle does not hold the built-in packs' programs as they are now (%d bytes, want %d): AGENTSHELL_WRITE_BUNDLE=1 go test ./policy -run TestBuiltinPackBundle", len(scripts.PackPrograms()), len(all))
	}
	if have, _ := os.ReadFile("builtin_packs.go"); !bytes.Equal(have, decoded) {
		t.Errorf("builtin_packs.go does not hold the built-in packs' pack.toml as they are now: AGENTSHELL_WRITE_BUNDLE=1 go test ./policy -run TestBuiltinPackBundle")
	}
}

// TestBuiltinPackFilesDecoded: what builtin_packs.go builds is what
// decoding each pack.toml gives, down to unexported fields.
func TestBuiltinPackFilesDecoded(t *testing.T) {
	for _, name := range scripts.Packs() {
		files, _ := scripts.Pack(name)
		data, err := fs.ReadFile(files, PackFileName)
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodePackFile(name, data)
		if err != nil {
			t.Fatal(err)
		}
		build, ok := builtinPackFiles[name]
		if !ok {
			t.Fatalf("pack %s is not in builtin_packs.go", name)
		}
		if got := build(); !reflect.DeepEqual(got, want) {
			t.Errorf("pack %s: builtin_packs.go builds another value than pack.toml decodes to", name)
		}
		if build() == build() || build().Rules[0] == build().Rules[0] {
			t.Errorf("pack %s: each call must build a new copy (the load changes it)", name)
		}
	}
}
