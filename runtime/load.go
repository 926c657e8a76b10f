package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/scripts"
)

// libraryPrefix names the library embedded in the binary.
const libraryPrefix = "@agent-shell//"

// maxModuleBytes bounds one script or module source.
const maxModuleBytes = 256 << 10

// module is a loaded library module: compiled on the library surface (it
// can compute data but cannot mint actions), initialised at most once per
// process, then frozen and shared by every script that loads it.
type module struct {
	name   string // canonical: "scripts/lib.star", "@agent-shell//helpers.star" or "@team//lib.star"
	pack   string // the pack it belongs to, "" for none
	sha256 string
	prog   *starlark.Program
	deps   map[string]string // load string as written -> canonical name

	once    sync.Once
	globals starlark.StringDict
	initErr error
}

// origin is where a file lives, so that its relative loads resolve beside it.
type origin struct {
	embedded bool
	pack     string // the pack the file belongs to ("" for the manifest folder or the library)
	dir      string // slash path inside the manifest folder, the library or the pack
}

// originOf is the origin of an entry script named by its file: a path
// relative to the manifest folder, or to its pack's folder.
func originOf(file, pack string) origin { return origin{pack: pack, dir: path.Dir(file)} }

// loader resolves and compiles the modules a program loads, reading local
// ones through one os.Root on the manifest's folder, opened on first use.
type loader struct {
	rt   *Runtime
	root *os.Root
}

func (l *loader) openRoot() (*os.Root, error) {
	if l.root == nil {
		r, err := os.OpenRoot(l.rt.opts.Dir)
		if err != nil {
			return nil, err
		}
		l.root = r
	}
	return l.root, nil
}

func (l *loader) close() {
	if l.root != nil {
		l.root.Close()
	}
}

// resolveLoads compiles every module prog loads (transitively) and returns
// the canonical name of each load, by load index. stack holds the files
// being resolved, to find cycles.
func (l *loader) resolveLoads(prog *starlark.Program, file string, from origin, stack []string) ([]string, error) {
	deps := make([]string, prog.NumLoads())
	for i := range deps {
		spec, pos := prog.Load(i)
		name, org, err := l.rt.resolve(spec, from)
		if err != nil {
			return nil, fmt.Errorf("%s: load %q: %v", pos, spec, err)
		}
		for j, s := range stack {
			if s == name {
				return nil, fmt.Errorf("%s: load %q: cycle: %s -> %s", pos, spec, strings.Join(stack[j:], " -> "), name)
			}
		}
		deps[i] = name
		if _, done := l.rt.modules[name]; done {
			continue
		}
		src, err := l.read(name, org)
		if err != nil {
			return nil, fmt.Errorf("%s: load %q: %v", pos, spec, err)
		}
		sum := sha256.Sum256(src)
		m := &module{name: name, pack: org.pack, sha256: hex.EncodeToString(sum[:])}
		m.prog, err = l.rt.compileCached(name, src, m.sha256, "library", l.rt.predeclared(builtins.Library(), org.pack))
		if err != nil {
			return nil, err
		}
		sub, err := l.resolveLoads(m.prog, name, org, append(stack, name))
		if err != nil {
			return nil, err
		}
		m.deps = loadMap(m.prog, sub)
		l.rt.modules[name] = m
	}
	return deps, nil
}

func loadMap(prog *starlark.Program, deps []string) map[string]string {
	out := make(map[string]string, len(deps))
	for i, d := range deps {
		spec, _ := prog.Load(i)
		out[spec] = d
	}
	return out
}

// resolve turns a load string into a canonical module name and the origin
// its own loads resolve from. Paths are cleaned and cannot leave their
// root: the manifest folder, the embedded library or a pack's folder. The
// manifest's scripts may load any declared pack; a pack's files load only
// their own pack (by its declared name or the name its pack.toml gives)
// and the library; the library loads only itself.
func (rt *Runtime) resolve(spec string, from origin) (string, origin, error) {
	var rel string
	embedded, pack := from.embedded, from.pack
	switch {
	case strings.HasPrefix(spec, libraryPrefix):
		rel, embedded, pack = strings.TrimPrefix(spec, libraryPrefix), true, ""
		if strings.HasPrefix(rel, "/") {
			return "", origin{}, errors.New("a path in the library is relative")
		}
	case strings.HasPrefix(spec, "@"):
		name, r, ok := strings.Cut(strings.TrimPrefix(spec, "@"), "//")
		if !ok {
			return "", origin{}, errors.New("a pack's file is loaded as @NAME//file.star")
		}
		target, err := rt.packFor(name, from)
		if err != nil {
			return "", origin{}, err
		}
		rel, embedded, pack = r, false, target
		if strings.HasPrefix(rel, "/") {
			return "", origin{}, errors.New("a path in a pack is relative")
		}
	case strings.HasPrefix(spec, "//"):
		rel = strings.TrimPrefix(spec, "//")
	case strings.HasPrefix(spec, "/"):
		return "", origin{}, errors.New("absolute paths cannot be loaded; use ./name.star")
	default:
		rel = path.Join(from.dir, spec)
	}
	rel = path.Clean(rel)
	if strings.HasPrefix(rel, "/") {
		return "", origin{}, errors.New("absolute paths cannot be loaded; use ./name.star")
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || rel == "." {
		switch {
		case embedded:
			return "", origin{}, errors.New("the path leaves the @agent-shell// library")
		case pack != "":
			return "", origin{}, fmt.Errorf("the path leaves the pack %s", pack)
		}
		return "", origin{}, errors.New("the path leaves the manifest folder")
	}
	if !strings.HasSuffix(rel, ".star") {
		return "", origin{}, errors.New("only .star files can be loaded")
	}
	org := origin{embedded: embedded, pack: pack, dir: path.Dir(rel)}
	switch {
	case embedded:
		return libraryPrefix + rel, org, nil
	case pack != "":
		return "@" + pack + "//" + rel, org, nil
	}
	return rel, org, nil
}

// packFor is the declared pack that @name// names when loaded from a file
// of origin from.
func (rt *Runtime) packFor(name string, from origin) (string, error) {
	switch {
	case from.embedded:
		return "", fmt.Errorf("the @agent-shell// library cannot load the pack %q", name)
	case from.pack != "":
		if p := rt.opts.Packs[from.pack]; name == from.pack || p != nil && name == p.Self {
			return from.pack, nil
		}
		return "", fmt.Errorf("a file of the pack %s loads only its own files and @agent-shell//, not @%s//", from.pack, name)
	}
	if rt.opts.Packs[name] == nil {
		return "", fmt.Errorf("no pack named %q is declared", name)
	}
	return name, nil
}

// read reads a module's source: from the binary for the library, else
// through os.Root, which refuses symlinks and paths that escape the folder.
func (l *loader) read(name string, org origin) ([]byte, error) {
	if org.embedded {
		src, err := scripts.Library(strings.TrimPrefix(name, libraryPrefix))
		if err != nil {
			return nil, fmt.Errorf("the @agent-shell// library has no %s", strings.TrimPrefix(name, libraryPrefix))
		}
		return src, nil
	}
	if org.pack != "" {
		_, rel, _ := strings.Cut(name, "//")
		return readPackFile(l.rt.opts.Packs[org.pack], rel)
	}
	root, err := l.openRoot()
	if err != nil {
		return nil, err
	}
	return readRooted(root, name)
}

// readRooted reads one regular file of at most maxModuleBytes through root.
func readRooted(root *os.Root, name string) ([]byte, error) {
	// Non-blocking, so that a named pipe is refused below instead of
	// waiting for a writer.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, name)
}

// readOpened reads an opened file, refusing one that is not a regular
// file or is longer than maxModuleBytes.
func readOpened(f fs.File, name string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	// Read at the size the file says it has (io.ReadAll would grow its
	// buffer from 512 bytes), on past it if the file grew meanwhile.
	var buf bytes.Buffer
	buf.Grow(int(min(max(fi.Size(), 0), maxModuleBytes)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, maxModuleBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxModuleBytes {
		return nil, fmt.Errorf("%s is longer than the %d bytes a script may have", name, maxModuleBytes)
	}
	return buf.Bytes(), nil
}

// ReadSource reads an entry script's source named relative to dir, with the
// same confinement as loads: what the manifest's `src` goes through.
func ReadSource(dir, src string) ([]byte, error) {
	l := &loader{rt: &Runtime{opts: Options{Dir: dir}}}
	defer l.close()
	return l.readSource(src, "")
}

func (l *loader) readSource(src, pack string) ([]byte, error) {
	rel := path.Clean(src)
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		if pack != "" {
			return nil, fmt.Errorf("src %q leaves the pack %s", src, pack)
		}
		return nil, fmt.Errorf("src %q leaves the manifest folder", src)
	}
	if pack != "" {
		p := l.rt.opts.Packs[pack]
		if p == nil {
			return nil, fmt.Errorf("no pack named %q is declared", pack)
		}
		return readPackFile(p, rel)
	}
	root, err := l.openRoot()
	if err != nil {
		return nil, err
	}
	return readRooted(root, rel)
}

// init initialises a module once: its loads first, then its top-level code
// under the default limits, then its globals are frozen.
func (m *module) init(rt *Runtime) (starlark.StringDict, error) {
	m.once.Do(func() {
		m.globals, m.initErr = rt.initProgram(m.name, m.prog, m.deps, rt.predeclared(builtins.Library(), m.pack), Limits{}.withDefaults())
	})
	return m.globals, m.initErr
}

// entry initialises an entry script once and returns its entry function.
func (c *compiled) entry(rt *Runtime) (*starlark.Function, error) {
	c.once.Do(func() {
		if c.prog == nil { // a lazy script, compiled on first use
			l := &loader{rt: rt}
			err := rt.readEntrySource(l, c)
			if err == nil {
				err = rt.compileEntry(l, c)
			}
			l.close()
			if err != nil {
				c.initErr = err
				return
			}
		}
		globals, err := rt.initProgram(c.name(), c.prog, loadMap(c.prog, c.deps), rt.predeclared(builtins.Surface(c.Kind), c.Pack), c.Limits)
		if err != nil {
			c.initErr = err
			return
		}
		v, ok := globals[c.Function]
		if !ok {
			c.initErr = fmt.Errorf("%s: no function %s(ctx, state)", c.name(), c.Function)
			return
		}
		fn, ok := v.(*starlark.Function)
		if !ok || fn.NumParams() != 2 || fn.NumKwonlyParams() != 0 || fn.HasVarargs() || fn.HasKwargs() {
			c.initErr = fmt.Errorf("%s: %s must be a function of (ctx, state)", c.name(), c.Function)
			return
		}
		c.fn = fn
	})
	return c.fn, c.initErr
}

// initProgram runs a program's top-level code on a fresh thread with its
// limits armed first, giving it its loaded modules (initialised the same
// way), and freezes the globals.
func (rt *Runtime) initProgram(name string, prog *starlark.Program, deps map[string]string, predeclared starlark.StringDict, lim Limits) (starlark.StringDict, error) {
	r := newRun(name, lim)
	r.thread.Load = func(_ *starlark.Thread, spec string) (starlark.StringDict, error) {
		m, ok := rt.modules[deps[spec]]
		if !ok {
			return nil, fmt.Errorf("module %q was not resolved", spec)
		}
		return m.init(rt)
	}
	globals, err := watched(r, func() (starlark.StringDict, error) { return prog.Init(r.thread, predeclared) })
	if failure, err := r.classify(err); err != nil {
		return nil, &Error{Failure: failure, Err: fmt.Errorf("initialising %s: %w", name, err)}
	}
	globals.Freeze()
	return globals, nil
}
