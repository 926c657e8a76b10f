package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/scripts"
)

// A pack is a folder of rules and scripts shared between repositories:
// pack.toml at its root declares them, with paths relative to the pack, and
// the project's manifest takes it in with a [[pack]] entry. Its ids join the
// project's namespaced as NAME/id. A pack with a source is vendored under
// PacksSubdir and pinned by the lock file; a pack without one is built into
// the binary.
const (
	PackFileName = "pack.toml"
	// PacksSubdir is where vendored packs live, beside the manifest.
	PacksSubdir = "packs"
	// LockFileName is the lock file, beside the manifest.
	LockFileName = "agent-shell.lock"
)

// maxPackFiles and maxPackBytes bound what one vendored pack may hold.
const (
	maxPackFiles = 1000
	maxPackBytes = 16 << 20
)

// PackDecl is one [[pack]] of the manifest.
type PackDecl struct {
	Name    string         `toml:"name"`
	Source  string         `toml:"source"` // "" for a pack built into the binary
	Rev     string         `toml:"rev"`
	Options map[string]any `toml:"options"`
	// Disable turns off rules of the pack by their namespaced id.
	Disable []string `toml:"disable"`
	// Trust grants the pack what can loosen the project's own decisions:
	// "reviewers" (they approve asks), "interceptors" (they rewrite or
	// answer for commands) and "replace" (analyzers that replace effects,
	// which the project's rules match on). A pack that declares one of
	// these without the grant does not load.
	Trust []string `toml:"trust"`
}

// packGrants are the values of [[pack]] trust.
var packGrants = []string{"reviewers", "interceptors", "replace"}

// Executables lists the pack's executable extensions, by their paths in
// the pack.
func (pf *PackFile) Executables() []string {
	var out []string
	for _, s := range pf.Scripts {
		if s.Executable != "" {
			out = append(out, path.Clean(s.Executable))
		}
	}
	return out
}

// NeedsTrust lists the grants a pack's declarations need.
func (pf *PackFile) NeedsTrust() []string {
	var out []string
	if len(pf.Reviewers) > 0 {
		out = append(out, "reviewers")
	}
	if len(pf.Interceptors) > 0 {
		out = append(out, "interceptors")
	}
	if slices.ContainsFunc(pf.Analyzers, func(a *AnalyzerDecl) bool { return a.Replace }) {
		out = append(out, "replace")
	}
	return out
}

// PackFile is a pack's pack.toml.
type PackFile struct {
	Name         string                 `toml:"name"`
	Version      string                 `toml:"version"`
	Description  string                 `toml:"description"`
	Options      map[string]*OptionDecl `toml:"options"`
	Rules        []*Rule                `toml:"rule"`
	Scripts      []*ScriptDecl          `toml:"script"`
	Analyzers    []*AnalyzerDecl        `toml:"analyzer"`
	Reviewers    []*ReviewerDecl        `toml:"reviewer"`
	Interceptors []*InterceptorDecl     `toml:"interceptor"`
}

// OptionDecl declares one option of a pack: its type ("string", "bool",
// "int" or "strings", a list of strings), its default and, for strings,
// the values allowed.
type OptionDecl struct {
	Type        string `toml:"type"`
	Default     any    `toml:"default"`
	Allowed     []any  `toml:"allowed"`
	Description string `toml:"description"`
}

// Pack is a pack as loaded for a manifest.
type Pack struct {
	Decl    *PackDecl
	File    *PackFile
	Tree    string // the tree digest of a vendored pack's files
	Options map[string]any
	files   fs.FS
}

// Builtin reports whether the pack is built into the binary.
func (p *Pack) Builtin() bool { return p.Decl.Source == "" }

// validPackName: a pack's name is a path element and a load prefix
// (@name//): 1 to 64 of [a-z0-9_-], starting with a letter or digit.
func validPackName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[0] == '_' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != "agent-shell"
}

// ParsePackFile decodes and validates pack.toml text; path names it in
// errors. The pack's rules and scripts are checked as a manifest's would
// be, with their own ids.
func ParsePackFile(path string, data []byte) (*PackFile, error) {
	pf, err := decodePackFile(path, data)
	if err != nil {
		return nil, err
	}
	if err := pf.check(path, data); err != nil {
		return nil, err
	}
	return pf, nil
}

func decodePackFile(path string, data []byte) (*PackFile, error) {
	pf := &PackFile{}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().EnableUnmarshalerInterface()
	if err := dec.Decode(pf); err != nil {
		return nil, decodeError(path, data, err)
	}
	return pf, nil
}

// check validates a decoded pack file; data is its text, for the lines
// that errors name.
func (pf *PackFile) check(path string, data []byte) error {
	fail := func(key, format string, args ...any) error {
		return &ManifestError{Path: path, Line: topKeyLine(string(data), key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if !validPackName(pf.Name) {
		return fail("name", "%q: a pack's name is 1 to 64 of a-z, 0-9, '_' and '-', not agent-shell", pf.Name)
	}
	if pf.Version == "" {
		return fail("version", "a pack needs a version")
	}
	names := make([]string, 0, len(pf.Options))
	for name := range pf.Options {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := pf.Options[name].check(name); err != nil {
			return &ManifestError{Path: path, Line: keyLine(string(data), "options."+name, "type"), Key: "options." + name, Msg: err.Error()}
		}
	}
	// The rules and scripts are validated as a manifest of their own, so
	// that errors name pack.toml's own lines and ids.
	m := pf.manifest(path, string(data))
	if err := m.validate(string(data)); err != nil {
		return err
	}
	for i, r := range pf.Rules {
		if err := pf.checkWhen(r); err != nil {
			return &ManifestError{Path: path, Line: m.ruleKeyLine(i, "when"), Key: fmt.Sprintf("rule[%d].when", i+1), Msg: err.Error()}
		}
	}
	return nil
}

// manifest is the pack's declarations as a manifest, for validation.
func (pf *PackFile) manifest(path, src string) *Manifest {
	return &Manifest{Path: path, Version: 1, src: src, Rules: pf.Rules, Scripts: pf.Scripts,
		Analyzers: pf.Analyzers, Reviewers: pf.Reviewers, Interceptors: pf.Interceptors, inPack: true}
}

// topKeyLine is the line of a top-level key, or 0.
func topKeyLine(src, key string) int {
	for ln, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			return 0
		}
		if rest, ok := strings.CutPrefix(t, key); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return ln + 1
		}
	}
	return 0
}

func (o *OptionDecl) check(name string) error {
	if !validID(name) || strings.Contains(name, ".") {
		return fmt.Errorf("%q is not an option name", name)
	}
	switch o.Type {
	case "string", "bool", "int", "strings":
	default:
		return fmt.Errorf("type %q: want string, bool, int or strings", o.Type)
	}
	if len(o.Allowed) > 0 && o.Type != "string" {
		return errors.New("allowed lists the values of a string option")
	}
	for _, a := range o.Allowed {
		if _, ok := a.(string); !ok {
			return fmt.Errorf("allowed: %v is not a string", a)
		}
	}
	if o.Default == nil {
		return errors.New("an option needs a default")
	}
	v, err := o.value(o.Default)
	if err != nil {
		return fmt.Errorf("default: %v", err)
	}
	o.Default = v
	return nil
}

// value checks a value given for the option and returns it normalized.
func (o *OptionDecl) value(v any) (any, error) {
	switch o.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %v", v)
		}
		if len(o.Allowed) > 0 && !slices.Contains(o.Allowed, any(s)) {
			return nil, fmt.Errorf("%q is not one of %s", s, o.allowedList())
		}
		return s, nil
	case "bool":
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want true or false, got %v", v)
		}
		return b, nil
	case "int":
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("want an integer, got %v", v)
		}
		return n, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of strings, got %v", v)
	}
	out := make([]any, len(list))
	for i, it := range list {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("want a list of strings, got %v in it", it)
		}
		out[i] = s
	}
	return out, nil
}

func (o *OptionDecl) allowedList() string {
	var parts []string
	for _, a := range o.Allowed {
		parts = append(parts, fmt.Sprintf("%q", a))
	}
	return strings.Join(parts, ", ")
}

// checkWhen checks a rule's when table: each key a declared string, bool
// or int option, each value one it can take.
func (pf *PackFile) checkWhen(r *Rule) error {
	for name, want := range r.When {
		o := pf.Options[name]
		if o == nil {
			return fmt.Errorf("rule %q: no option %q is declared", r.ID, name)
		}
		if o.Type == "strings" {
			return fmt.Errorf("rule %q: option %q is a list; when compares single values", r.ID, name)
		}
		for _, v := range whenValues(want) {
			if _, err := o.value(v); err != nil {
				return fmt.Errorf("rule %q: option %q: %v", r.ID, name, err)
			}
		}
	}
	return nil
}

// whenValues is a when entry's values: one value or a list of them.
func whenValues(v any) []any {
	if list, ok := v.([]any); ok {
		return list
	}
	return []any{v}
}

// ruleApplies reports whether every when entry of a rule holds for the
// option values.
func ruleApplies(r *Rule, options map[string]any) bool {
	for name, want := range r.When {
		if !slices.Contains(whenValues(want), options[name]) {
			return false
		}
	}
	return true
}

// resolveOptions checks the options a [[pack]] gives against the pack's
// declarations and fills in the defaults.
func (pf *PackFile) resolveOptions(given map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(pf.Options))
	for name, o := range pf.Options {
		out[name] = o.Default
	}
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := pf.Options[name]
		if o == nil {
			return nil, fmt.Errorf("options: the pack %s has no option %q", pf.Name, name)
		}
		v, err := o.value(given[name])
		if err != nil {
			return nil, fmt.Errorf("options.%s: %v", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// loadPacks reads, verifies and takes in every [[pack]] of the manifest:
// built-in packs from the binary, vendored ones from PacksSubdir checked
// against the lock. Their rules and scripts join the manifest's with ids
// namespaced NAME/id; any problem is a ManifestError naming the file.
func (m *Manifest) loadPacks() error {
	dir := filepath.Dir(m.Path)
	lockPath := filepath.Join(dir, LockFileName)
	// A lock that pins a pack the manifest does not take from a source
	// says the manifest lost it: the lock is read whenever it is there.
	var lock *Lock
	if _, err := os.Lstat(lockPath); err == nil {
		if lock, err = ReadLock(lockPath); err != nil {
			return &ManifestError{Path: lockPath, Msg: err.Error()}
		}
	} else if len(m.Packs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for i, d := range m.Packs {
		fail := func(key, format string, args ...any) error {
			return &ManifestError{Path: m.Path, Line: m.tableLine("pack", i), Key: fmt.Sprintf("pack[%d].%s", i+1, key), Msg: fmt.Sprintf(format, args...)}
		}
		if !validPackName(d.Name) {
			return fail("name", "%q: a pack's name is 1 to 64 of a-z, 0-9, '_' and '-', not agent-shell", d.Name)
		}
		if seen[d.Name] {
			return fail("name", "two packs are named %q", d.Name)
		}
		seen[d.Name] = true
		var p *Pack
		var err error
		if d.Source == "" {
			if d.Rev != "" {
				return fail("rev", "pack %q: rev pins a pack with a source; a built-in pack comes with the binary", d.Name)
			}
			p, err = builtinPack(d)
			if err != nil {
				return fail("name", "%v", err)
			}
		} else {
			if lock == nil {
				return &ManifestError{Path: lockPath, Msg: "the manifest takes in packs from a source, but there is no lock file; run agent-shell pack add"}
			}
			if p, err = vendoredPack(dir, d, lock); err != nil {
				return err
			}
		}
		if p.Options, err = p.File.resolveOptions(d.Options); err != nil {
			return fail("options", "pack %q: %v", d.Name, err)
		}
		for _, g := range d.Trust {
			if !slices.Contains(packGrants, g) {
				return fail("trust", "%q: want %s", g, strings.Join(packGrants, ", "))
			}
		}
		for _, g := range p.File.NeedsTrust() {
			if !slices.Contains(d.Trust, g) {
				return fail("trust", "pack %q declares %s, which can loosen this project's decisions; to let it, add trust = [\"%s\"] to its [[pack]]", d.Name, g, g)
			}
		}
		for _, id := range d.Disable {
			local, ok := strings.CutPrefix(id, d.Name+"/")
			if !ok || !slices.ContainsFunc(p.File.Rules, func(r *Rule) bool { return r.ID == local }) {
				return fail("disable", "pack %q has no rule %q (rules are named %s/ID)", d.Name, id, d.Name)
			}
		}
		if err := m.takeIn(p); err != nil {
			return fail("name", "%v", err)
		}
		m.packs = append(m.packs, p)
	}
	if lock != nil {
		for _, e := range lock.Packs {
			if !seen[e.Name] || m.packByName(e.Name).Builtin() {
				return &ManifestError{Path: lockPath, Msg: fmt.Sprintf("the lock pins a pack %q that the manifest does not take from a source; run agent-shell pack remove %s", e.Name, e.Name)}
			}
		}
	}
	return nil
}

func (m *Manifest) packByName(name string) *Pack {
	for _, p := range m.packs {
		if p.Decl.Name == name {
			return p
		}
	}
	return nil
}

// Packs lists the packs the manifest takes in, in declaration order.
func (m *Manifest) LoadedPacks() []*Pack { return m.packs }

// builtinPack reads a pack built into the binary.
func builtinPack(d *PackDecl) (*Pack, error) {
	files, ok := scripts.Pack(d.Name)
	if !ok {
		return nil, fmt.Errorf("there is no built-in pack %q (built in: %s); a pack from elsewhere needs a source", d.Name, strings.Join(scripts.Packs(), ", "))
	}
	data, err := fs.ReadFile(files, PackFileName)
	if err != nil {
		return nil, fmt.Errorf("built-in pack %q: %v", d.Name, err)
	}
	path := "@" + d.Name + "//" + PackFileName
	// A built-in pack's pack.toml comes decoded, as Go (builtin_packs.go):
	// decoding it costs more than a hook call's own work.
	decoded, ok := builtinPackFiles[d.Name]
	if !ok {
		return nil, fmt.Errorf("built-in pack %q is not in builtin_packs.go: AGENTSHELL_WRITE_BUNDLE=1 go test ./policy -run TestBuiltinPackBundle", d.Name)
	}
	pf := decoded()
	if err := pf.check(path, data); err != nil {
		return nil, err
	}
	return &Pack{Decl: d, File: pf, files: files}, nil
}

// vendoredPack reads a vendored pack and checks its files against the lock.
func vendoredPack(dir string, d *PackDecl, lock *Lock) (*Pack, error) {
	lockPath := filepath.Join(dir, LockFileName)
	e := lock.Pack(d.Name)
	switch {
	case e == nil:
		return nil, &ManifestError{Path: lockPath, Msg: fmt.Sprintf("the lock has no pack %q; run agent-shell pack add %s", d.Name, d.Source)}
	case e.Source != d.Source || e.Rev != d.Rev:
		return nil, &ManifestError{Path: lockPath, Msg: fmt.Sprintf("the lock pins pack %q at %s@%s, but the manifest asks for %s@%s; run agent-shell pack update %s", d.Name, e.Source, e.Rev, d.Source, d.Rev, d.Name)}
	}
	packDir := filepath.Join(dir, PacksSubdir, d.Name)
	files, err := readVendored(packDir, e)
	if err != nil {
		return nil, &ManifestError{Path: packDir, Msg: err.Error()}
	}
	pf, err := ParsePackFile(filepath.Join(packDir, PackFileName), files[PackFileName])
	if err != nil {
		return nil, err
	}
	return &Pack{Decl: d, File: pf, Tree: e.Tree, files: files.FS()}, nil
}

// readVendored reads a vendored pack's folder and checks it against its
// lock entry.
func readVendored(packDir string, e *LockEntry) (PackFiles, error) {
	if fi, err := os.Lstat(packDir); err == nil && !fi.IsDir() {
		return nil, errors.New("is not a folder (a symbolic link is refused)")
	}
	files, err := ReadPackTree(packDir)
	if err != nil {
		return nil, err
	}
	if err := e.Verify(files); err != nil {
		return nil, err
	}
	return files, nil
}

// CheckVendored checks the pack vendored in packDir (a manifest's
// packs/NAME/) against the lock beside the manifest, as loading it does.
func CheckVendored(packDir string) error {
	lockPath := filepath.Join(filepath.Dir(filepath.Dir(packDir)), LockFileName)
	lock, err := ReadLock(lockPath)
	if err != nil {
		return fmt.Errorf("%s: %w", lockPath, err)
	}
	e := lock.Pack(filepath.Base(packDir))
	if e == nil {
		return fmt.Errorf("%s pins no pack %s", lockPath, filepath.Base(packDir))
	}
	_, err = readVendored(packDir, e)
	return err
}

// takeIn adds a pack's rules (those its when and the disable list keep) and
// its scripts, analyzers, reviewers and interceptors, namespaced.
func (m *Manifest) takeIn(p *Pack) error {
	ns := func(id string) string { return p.Decl.Name + "/" + id }
	for _, r := range p.File.Rules {
		if !ruleApplies(r, p.Options) || slices.Contains(p.Decl.Disable, ns(r.ID)) {
			continue
		}
		c := *r
		c.ID, c.Match, c.pack = ns(r.ID), r.Match.namespaced(ns), p.Decl.Name
		m.Rules = append(m.Rules, &c)
	}
	for _, s := range p.File.Scripts {
		c := *s
		c.ID, c.pack = ns(s.ID), p.Decl.Name
		if s.Executable != "" {
			if p.Builtin() {
				return fmt.Errorf("pack %q: a built-in pack runs no executables", p.Decl.Name)
			}
			c.Executable = path.Join(PacksSubdir, p.Decl.Name, s.Executable)
		}
		m.Scripts = append(m.Scripts, &c)
	}
	for _, a := range p.File.Analyzers {
		m.Analyzers = append(m.Analyzers, &AnalyzerDecl{Script: ns(a.Script), Replace: a.Replace})
	}
	for _, r := range p.File.Reviewers {
		m.Reviewers = append(m.Reviewers, &ReviewerDecl{Script: ns(r.Script)})
	}
	for _, in := range p.File.Interceptors {
		m.Interceptors = append(m.Interceptors, &InterceptorDecl{Script: ns(in.Script), Phase: in.Phase, Match: in.Match.namespaced(ns)})
	}
	return nil
}

// ScriptRefs lists the scripts a rule's matcher names.
func (r *Rule) ScriptRefs() []string { return r.Match.scriptRefs(nil) }

// namespaced copies a matcher with its script references renamed.
func (mt *Matcher) namespaced(ns func(string) string) *Matcher {
	if mt == nil {
		return nil
	}
	c := *mt
	if c.Script != "" {
		c.Script = ns(c.Script)
	}
	c.All, c.Any = nil, nil
	for _, sub := range mt.All {
		c.All = append(c.All, sub.namespaced(ns))
	}
	for _, sub := range mt.Any {
		c.Any = append(c.Any, sub.namespaced(ns))
	}
	c.Not = mt.Not.namespaced(ns)
	return &c
}

// runtimePacks is the packs as the script runtime loads them.
func (m *Manifest) runtimePacks() map[string]*runtime.Pack {
	if len(m.packs) == 0 {
		return nil
	}
	out := make(map[string]*runtime.Pack, len(m.packs))
	for _, p := range m.packs {
		out[p.Decl.Name] = &runtime.Pack{Files: p.files, Self: p.File.Name, Options: p.Options}
	}
	return out
}

// LoadPackDir reads the pack in dir on its own, without a lock, as a
// manifest holding only it (its default options): what `script test` runs a
// pack's tests against and what `pack add` validates before vendoring.
func LoadPackDir(dir string) (*Manifest, error) {
	files, err := ReadPackTree(dir)
	if err != nil {
		return nil, &ManifestError{Path: dir, Msg: err.Error()}
	}
	return LoadPackFiles(dir, files)
}

// LoadPackFiles is LoadPackDir for files already read; dir (a folder or a
// source URL) names them in errors.
func LoadPackFiles(dir string, files PackFiles) (*Manifest, error) {
	if files[PackFileName] == nil {
		return nil, &ManifestError{Path: dir, Msg: "no " + PackFileName}
	}
	where := filepath.Join(dir, PackFileName)
	if strings.Contains(dir, "://") {
		where = strings.TrimSuffix(dir, "/") + "/" + PackFileName // Join would make git+file:///x git+file:/x
	}
	pf, err := ParsePackFile(where, files[PackFileName])
	if err != nil {
		return nil, err
	}
	return standalonePack(where, &Pack{Decl: &PackDecl{Name: pf.Name, Source: "dir:" + dir}, File: pf, files: files.FS()})
}

// ValidPackName reports whether s can name a pack.
func ValidPackName(s string) bool { return validPackName(s) }

// LoadBuiltinPack reads a pack built into the binary on its own, as
// LoadPackDir does.
func LoadBuiltinPack(name string) (*Manifest, error) {
	p, err := builtinPack(&PackDecl{Name: name})
	if err != nil {
		return nil, err
	}
	return standalonePack("@"+name+"//"+PackFileName, p)
}

func standalonePack(path string, p *Pack) (*Manifest, error) {
	var err error
	if p.Options, err = p.File.resolveOptions(nil); err != nil {
		return nil, err
	}
	m := &Manifest{Path: path, Version: 1, Policy: PolicyConfig{Default: ActionAllow, Unknown: ActionAsk, Unauthorized: UnauthorizedLastAuthorized}}
	if err := m.takeIn(p); err != nil {
		return nil, err
	}
	m.packs = []*Pack{p}
	return m, nil
}

// PackFiles is a pack's files by slash path relative to the pack.
type PackFiles map[string][]byte

// ReadPackTree reads every regular file under dir (a .git folder aside).
// A symbolic link or any other non-regular entry is an error, as are more
// than maxPackFiles files or maxPackBytes bytes: a pack is read whole on
// every load.
func ReadPackTree(dir string) (PackFiles, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := PackFiles{}
	total := 0
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if d.Name() == ".git" && p != "." {
				return fs.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file (a pack holds only files and folders)", p)
		}
		if len(out) >= maxPackFiles {
			return fmt.Errorf("the pack has more than %d files", maxPackFiles)
		}
		f, err := root.Open(filepath.FromSlash(p))
		if err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(f, int64(maxPackBytes-total)+1))
		f.Close()
		if err != nil {
			return err
		}
		total += len(data)
		if total > maxPackBytes {
			return fmt.Errorf("the pack is larger than %d bytes", maxPackBytes)
		}
		out[p] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out[PackFileName] == nil {
		return nil, fmt.Errorf("no %s in %s", PackFileName, dir)
	}
	return out, nil
}
