// Package runtime is the sandboxed Starlark host: it compiles each
// declared script on its kind's surface (with a disk cache), resolves and
// cycle-checks the whole load() graph before anything runs, and invokes
// scripts under fuel, wall-time and output limits, with transactional
// state. It knows nothing of policy: callers hand it frozen input values
// and get back one validated action or a classified failure.
package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/state"
)

// Default limits of a script that declares none. Starlark counts bytecode
// steps, not the instruction units of the runtime agent-shell's extensions
// are modelled on (whose default fuel is 100 000 of those): a million
// steps is a few milliseconds of work here, far more than a matcher needs
// and far less than a hang.
const (
	DefaultFuel      = 1_000_000
	DefaultTimeout   = 2 * time.Second
	DefaultMaxOutput = 16 << 10
	DefaultFunction  = "on_event"
)

// dialect is the strictest Starlark dialect (the zero value): no while, no
// recursion, no top-level control flow, no global reassignment, no set.
var dialect = &syntax.FileOptions{}

// Limits bound one run of a script, module initialisation included.
type Limits struct {
	Fuel      uint64        // execution steps
	Timeout   time.Duration // wall time
	MaxOutput int           // bytes of print output kept
}

// Script is one declared script, its source already read.
type Script struct {
	ID        string
	Kind      builtins.Kind
	File      string // the name in positions and errors, e.g. "scripts/tf.star"
	Source    []byte // the source; when nil, Compile reads File from Options.Dir
	Function  string
	Lifecycle state.Lifecycle
	Limits    Limits
	// Pack is the declared pack whose folder File is relative to, "" for
	// the manifest's folder.
	Pack string
	// Lazy defers reading and compiling the script, and resolving what it loads, to
	// its first run (or Check): for scripts whose sources are pinned, such
	// as a pack's, so that a call pays only for the scripts it runs. A
	// lazy script is not in Digests, nor are the modules only it loads.
	Lazy bool
}

// Options says where a runtime reads and writes.
type Options struct {
	// Dir is the manifest's folder: `./x.star` loads resolve inside it and
	// cannot leave it.
	Dir string
	// CacheDir holds compiled programs; "" disables the disk cache.
	CacheDir string
	// CachePins, when not nil, is the only way a program read from
	// CacheDir is used: its cache key must map to the SHA-256 of the
	// program's bytes, as an authorization recorded them outside the
	// repository (where an agent that can write the cache cannot change
	// them). Any other entry is ignored and the source compiled; only a
	// program that is the pinned one is written back. nil trusts any entry
	// with the key's header: what a configuration never authorized, which
	// anyone who can write the cache can change anyway, may use.
	CachePins map[string]string
	// Store keeps session and runtime state; nil keeps none (every call
	// then starts from empty state, as an invocation would).
	Store *state.Store
	// Packs are the declared packs by the name scripts load them by
	// (@name//file.star).
	Packs map[string]*Pack
}

// Pack is a script pack as the runtime sees it: its files, the name its own
// pack.toml gives it (its files may load @self// too), and the option
// values its files see as the predeclared struct `options`.
type Pack struct {
	Files   fs.FS
	Self    string
	Options map[string]any

	once    sync.Once
	options starlark.Value
}

// optionsValue is the frozen struct of the pack's options.
func (p *Pack) optionsValue() starlark.Value {
	p.once.Do(func() {
		fields := make(starlark.StringDict, len(p.Options))
		for k, v := range p.Options {
			sv, err := builtins.ToStarlark(v)
			if err != nil {
				sv = starlark.None // options are validated data; unreachable
			}
			fields[k] = sv
		}
		s := starlarkstruct.FromStringDict(starlark.String("options"), fields)
		s.Freeze()
		p.options = s
	})
	return p.options
}

// predeclared is the surface a file of pack sees: base, plus `options`
// for a pack's files.
func (rt *Runtime) predeclared(base starlark.StringDict, pack string) starlark.StringDict {
	if pack == "" {
		return base
	}
	base["options"] = rt.opts.Packs[pack].optionsValue()
	return base
}

// readPackFile reads one file of a pack, at most maxModuleBytes.
func readPackFile(p *Pack, rel string) ([]byte, error) {
	f, err := p.Files.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, rel)
}

// Runtime is a compiled set of scripts and the modules they load.
type Runtime struct {
	opts     Options
	scripts  map[string]*compiled
	order    []string
	modules  map[string]*module // by canonical module name
	manifest string             // the manifest digest, for state identity
	// programs are the compiled programs by cache key: scripts that share a
	// file and a kind (one file, several functions) compile it once.
	programs map[string]*starlark.Program
	// bundleKeys are the programs compiled from packs' files, by bundle
	// key (bundle.go).
	bundleKeys map[string]*starlark.Program
	// sums, rejected and unpinned are what ProgramSums, CacheRejected and
	// CacheUnpinned report.
	sums     map[string]string
	rejected []string
	unpinned int
}

// compiled is one entry script.
type compiled struct {
	Script
	sha256 string
	prog   *starlark.Program
	deps   []string // canonical names of the modules it loads, by load index

	once    sync.Once
	fn      *starlark.Function
	initErr error
}

// sourceSHA is the SHA-256 of the script's source, hashed on first use.
func (c *compiled) sourceSHA() string {
	if c.sha256 == "" {
		sum := sha256.Sum256(c.Source)
		c.sha256 = hex.EncodeToString(sum[:])
	}
	return c.sha256
}

// readEntrySource reads the script's source when it was not given.
func (rt *Runtime) readEntrySource(l *loader, c *compiled) error {
	if c.Source != nil {
		return nil
	}
	src, err := l.readSource(c.File, c.Pack)
	if err != nil {
		return err
	}
	c.Source = src
	return nil
}

// compileEntry compiles an entry script (from the cache when it can) and
// everything it loads.
func (rt *Runtime) compileEntry(l *loader, c *compiled) error {
	prog, err := rt.compileCached(c.name(), c.Source, c.sourceSHA(), string(c.Kind), rt.predeclared(builtins.Surface(c.Kind), c.Pack))
	if err != nil {
		return err
	}
	deps, err := l.resolveLoads(prog, c.name(), originOf(c.File, c.Pack), []string{c.name()})
	if err != nil {
		return err
	}
	c.prog, c.deps = prog, deps
	return nil
}

// name is the script's file as positions and errors show it: its path in
// the manifest folder, or @pack//path.
func (c *compiled) name() string {
	if c.Pack != "" {
		return "@" + c.Pack + "//" + c.File
	}
	return c.File
}

// CompileError is a script or load error located at file:line:col when the
// position is known.
type CompileError struct {
	Script string // the script id
	Src    bool   // the script's own source file could not be read
	Err    error
}

func (e *CompileError) Error() string { return fmt.Sprintf("script %q: %v", e.Script, e.Err) }
func (e *CompileError) Unwrap() error { return e.Err }

// Compile compiles every script and everything it loads. Any error (a
// syntax or name error, a load outside the root, a cycle, a function of
// another kind) fails the whole set: a manifest whose scripts do not
// compile must not be used.
func Compile(scripts []Script, opts Options) (*Runtime, error) {
	rt := &Runtime{opts: opts, scripts: map[string]*compiled{}, modules: map[string]*module{}, programs: map[string]*starlark.Program{}, bundleKeys: map[string]*starlark.Program{}}
	l := &loader{rt: rt}
	defer l.close()
	for _, s := range scripts {
		if _, dup := rt.scripts[s.ID]; dup {
			return nil, &CompileError{Script: s.ID, Err: errors.New("duplicate script id")}
		}
		if !s.Kind.Valid() {
			return nil, &CompileError{Script: s.ID, Err: fmt.Errorf("unknown kind %q", s.Kind)}
		}
		if s.Function == "" {
			s.Function = DefaultFunction
		}
		s.Limits = s.Limits.withDefaults()
		if s.Pack != "" && opts.Packs[s.Pack] == nil {
			return nil, &CompileError{Script: s.ID, Err: fmt.Errorf("no pack named %q is declared", s.Pack)}
		}
		c := &compiled{Script: s}
		if !s.Lazy {
			if err := rt.readEntrySource(l, c); err != nil {
				return nil, &CompileError{Script: s.ID, Src: true, Err: err}
			}
			if err := rt.compileEntry(l, c); err != nil {
				return nil, &CompileError{Script: s.ID, Err: err}
			}
		}
		rt.scripts[s.ID] = c
		rt.order = append(rt.order, s.ID)
	}
	return rt, nil
}

func (l Limits) withDefaults() Limits {
	if l.Fuel == 0 {
		l.Fuel = DefaultFuel
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxOutput == 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	return l
}

// SetManifestDigest binds the runtime to the manifest it belongs to: state
// snapshots written under another manifest are not used.
func (rt *Runtime) SetManifestDigest(d string) { rt.manifest = d }

// Digest is one source that went into the runtime, for the manifest digest.
type Digest struct {
	Name   string // a script id, or a module's canonical name
	SHA256 string
}

// Digests lists every entry script (by id) but the lazy ones, and every
// loaded module (by canonical name), with the SHA-256 of its source,
// sorted by name.
func (rt *Runtime) Digests() []Digest {
	var out []Digest
	for _, id := range rt.order {
		if c := rt.scripts[id]; !c.Lazy {
			out = append(out, Digest{Name: "script " + id, SHA256: c.sourceSHA()})
		}
	}
	for name, m := range rt.modules {
		out = append(out, Digest{Name: "module " + name, SHA256: m.sha256})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Kind returns the kind of a declared script, and whether it exists.
func (rt *Runtime) Kind(id string) (builtins.Kind, bool) {
	c, ok := rt.scripts[id]
	if !ok {
		return "", false
	}
	return c.Kind, true
}

// IDs lists the declared scripts in declaration order.
func (rt *Runtime) IDs() []string { return append([]string(nil), rt.order...) }

// Check runs every script's top-level code once, under its limits, and
// checks that its entry function exists and takes (ctx, state): what
// `policy check` does beyond compiling.
func (rt *Runtime) Check() error {
	for _, id := range rt.order {
		if _, err := rt.scripts[id].entry(rt); err != nil {
			return &CompileError{Script: id, Err: err}
		}
	}
	return nil
}
