package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/scripts"
)

// The built-in packs' programs ship compiled inside the binary (the
// bundle, scripts.PackPrograms), so that a hook call decodes the few it
// runs from memory instead of reading the compile cache. A bundle entry is
// keyed like a cache entry but without the compiler's version: the
// decoder refuses a program of another version, and the source is then
// compiled as usual, so a stale bundle costs time, never correctness. A
// test in policy keeps the bundle in step with the packs' sources.

// bundleKey identifies a program in the bundle: its file name, source
// digest, surface and predeclared names, and the dialect.
func bundleKey(file, sourceSHA, surface string, predeclared starlark.StringDict) string {
	h := sha256.New()
	fmt.Fprintf(h, "agent-shell starlark bundle 2\x00%+v\x00%s\x00%s\x00%s", *dialect, surface, file, sourceSHA)
	for _, name := range predeclared.Keys() {
		fmt.Fprintf(h, "\x00%s", name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// bundled is the bundle's entries by key, read on first use.
var bundled = sync.OnceValue(func() map[string][]byte { return readBundle(scripts.PackPrograms()) })

// readBundle splits a bundle: entries of a 64-hex-digit key, a 4-byte
// big-endian length and that many bytes of compiled program. A damaged
// bundle yields the entries before the damage.
func readBundle(data []byte) map[string][]byte {
	out := map[string][]byte{}
	for len(data) >= 68 {
		key, n := string(data[:64]), binary.BigEndian.Uint32(data[64:68])
		data = data[68:]
		if uint64(n) > uint64(len(data)) {
			break
		}
		out[key] = data[:n]
		data = data[n:]
	}
	return out
}

// bundledProgram is the program the binary carries for a key, or nil.
func bundledProgram(key string) *starlark.Program {
	data, ok := bundled()[key]
	if !ok {
		return nil
	}
	prog, err := starlark.CompiledProgram(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	return prog
}

// Bundle encodes every program the runtime compiled from a pack's files
// (named @pack//...), in key order: what the built-in packs' bundle holds
// once a runtime of them has compiled all their scripts (Check).
func (rt *Runtime) Bundle() ([]byte, error) {
	keys := make([]string, 0, len(rt.bundleKeys))
	for k := range rt.bundleKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out bytes.Buffer
	for _, k := range keys {
		var prog bytes.Buffer
		if err := rt.bundleKeys[k].Write(&prog); err != nil {
			return nil, err
		}
		out.WriteString(k)
		binary.Write(&out, binary.BigEndian, uint32(prog.Len())) //nolint:errcheck // a bytes.Buffer does not fail
		out.Write(prog.Bytes())
	}
	return out.Bytes(), nil
}
