package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
)

// starlarkVersion is the go.starlark.net module version linked in: a
// compiled program is only reused by the interpreter that wrote it.
var starlarkVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "go.starlark.net" {
				if d.Replace != nil {
					return d.Replace.Path + "@" + d.Replace.Version + " " + d.Replace.Sum
				}
				return d.Version + " " + d.Sum
			}
		}
	}
	return "unknown"
})

// cacheKey identifies a compiled program: the source digest and its name
// (positions carry it), the surface it was resolved against (its name and
// the very names it predeclares, which another build may not have), the
// dialect, and the compiler. Missing any of these would let a program
// compiled for one kind, build or dialect be reused for another.
func cacheKey(file, sourceSHA, surface string, predeclared starlark.StringDict) string {
	h := sha256.New()
	fmt.Fprintf(h, "agent-shell starlark cache 2\x00%d\x00%s\x00%s\x00%+v\x00%s\x00%s",
		starlark.CompilerVersion, starlarkVersion(), surface, *dialect, file, sourceSHA)
	for _, name := range predeclared.Keys() {
		fmt.Fprintf(h, "\x00%s", name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// compileCached compiles src on the given surface, reusing a program from
// the disk cache when one with the same key is there. A corrupt, foreign or
// unreadable entry is ignored and rewritten.
func (rt *Runtime) compileCached(file string, src []byte, sourceSHA, surface string, predeclared starlark.StringDict) (*starlark.Program, error) {
	key := cacheKey(file, sourceSHA, surface, predeclared)
	if prog, ok := rt.programs[key]; ok {
		return prog, nil
	}
	var bkey string
	var prog *starlark.Program
	if strings.HasPrefix(file, "@") && rt.bundleKeys != nil {
		bkey = bundleKey(file, sourceSHA, surface, predeclared)
		prog = bundledProgram(bkey)
	}
	var err error
	if prog == nil {
		prog, err = rt.compileCachedOnce(key, file, src, predeclared)
	}
	if err == nil && rt.programs != nil {
		rt.programs[key] = prog
		if bkey != "" {
			rt.bundleKeys[bkey] = prog
		}
	}
	return prog, err
}

// compileCachedOnce is compileCached for a key not compiled yet in this
// process.
func (rt *Runtime) compileCachedOnce(key, file string, src []byte, predeclared starlark.StringDict) (*starlark.Program, error) {
	header := []byte("agent-shell-starlark " + key + "\n")
	var path string
	if rt.opts.CacheDir != "" {
		path = filepath.Join(rt.opts.CacheDir, key[:40]+".bin")
		if prog := rt.readCache(path, header, key); prog != nil {
			return prog, nil
		}
	}
	prog, err := compileSource(file, src, predeclared.Has)
	if err != nil {
		return nil, err
	}
	if path != "" {
		var buf bytes.Buffer
		buf.Write(header)
		if prog.Write(&buf) == nil {
			sum := sha256Hex(buf.Bytes()[len(header):])
			rt.noteSum(key, sum)
			if want, pinned := rt.opts.CachePins[key]; rt.opts.CachePins == nil || pinned && want == sum {
				_ = atomicfile.WriteCache(path, buf.Bytes()) // not cached: the next process compiles again
			}
		}
	}
	return prog, nil
}

// readCache returns the program of the cache entry at path when it may be
// used for key: any entry with the key's header while nothing is pinned;
// otherwise only the program pinned for the key (see Options.CachePins).
// A pinned key whose entry holds another program is noted in rejected.
func (rt *Runtime) readCache(path string, header []byte, key string) *starlark.Program {
	want, pinned := rt.opts.CachePins[key]
	if rt.opts.CachePins != nil && !pinned {
		rt.unpinned++
		return nil // nothing authorized to compare it with
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, header) {
		return nil
	}
	body := data[len(header):]
	if pinned {
		if sha256Hex(body) != want {
			rt.rejected = append(rt.rejected, path)
			return nil
		}
		rt.noteSum(key, want)
	}
	prog, err := starlark.CompiledProgram(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	return prog
}

// noteSum records the SHA-256 of the program of key, for ProgramSums.
func (rt *Runtime) noteSum(key, sum string) {
	if rt.sums == nil {
		rt.sums = map[string]string{}
	}
	rt.sums[key] = sum
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ProgramSums returns the SHA-256 of each program this runtime compiled
// from source into the cache, or read from it as pinned, by cache key:
// what an authorization pins. Programs from the binary's bundle are not
// listed, nor any when there is no CacheDir.
func (rt *Runtime) ProgramSums() map[string]string { return maps.Clone(rt.sums) }

// CacheRejected lists the cache entries that held another program than
// the one pinned for their key, and so were not used.
func (rt *Runtime) CacheRejected() []string { return slices.Clone(rt.rejected) }

// CacheUnpinned counts the programs compiled from source because the pins
// had none for their key (the cache is not read for them).
func (rt *Runtime) CacheUnpinned() int { return rt.unpinned }
