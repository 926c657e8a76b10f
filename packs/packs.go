package packs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/scripts"
)

// Project is the repository whose configuration the pack commands change.
type Project struct {
	Root   string
	Getenv func(string) string
	Out    io.Writer // what changed, for the user
}

func (p *Project) dir() string          { return filepath.Join(p.Root, filepath.Dir(policy.ManifestSubpath)) }
func (p *Project) manifestPath() string { return filepath.Join(p.Root, policy.ManifestSubpath) }
func (p *Project) lockPath() string     { return filepath.Join(p.dir(), policy.LockFileName) }
func (p *Project) packDir(name string) string {
	return filepath.Join(p.dir(), policy.PacksSubdir, name)
}

// Add fetches the pack at arg (SOURCE[@REV]), checks that it loads and
// its examples pass, vendors it, declares it in the manifest (with the
// grants in trust) and pins it in the lock. name overrides the name its
// pack.toml gives. Nothing is written unless the whole configuration then
// loads.
func (p *Project) Add(ctx context.Context, arg, name, cwd string, trust []string) error {
	src, rev, err := ParseSource(arg, cwd)
	if err != nil {
		return err
	}
	f, pf, err := fetchChecked(ctx, src, rev)
	if err != nil {
		return err
	}
	if name == "" {
		name = pf.Name
	}
	if err := checkName(name); err != nil {
		return fmt.Errorf("%v (--name)", err)
	}
	text, err := p.readManifest()
	if err != nil {
		return err
	}
	if _, _, ok := packTable(text, name); ok {
		return fmt.Errorf("the manifest already has a pack named %q; use agent-shell pack update %s, or --name to add this one under another name", name, name)
	}
	if _, ok := scripts.Pack(name); ok {
		return fmt.Errorf("%q is the name of a built-in pack; add this one with --name", name)
	}
	lock, err := p.readLock()
	if err != nil {
		return err
	}
	if lock.Pack(name) != nil {
		return fmt.Errorf("the lock already pins a pack named %q; run agent-shell pack remove %s first", name, name)
	}
	lock.Packs = append(lock.Packs, policy.EntryFor(name, src.Spec, rev, f.commit, f.files))
	for _, g := range pf.NeedsTrust() {
		if !slices.Contains(trust, g) {
			return fmt.Errorf("the pack declares %s, which can loosen this project's decisions; add it with --trust %s if you mean to let it", g, strings.Join(pf.NeedsTrust(), ","))
		}
	}
	text = addPackTable(text, name, src.Spec, rev, trust)
	if err := p.commit(text, lock, name, f.files, pf.Executables()); err != nil {
		return err
	}
	at := rev
	if f.commit != "" {
		at = fmt.Sprintf("%s (%s)", orDefault(rev, "the default branch"), short(f.commit))
	}
	fmt.Fprintf(p.Out, "added pack %s %s from %s%s: %d rules, %d scripts\n", name, pf.Version, src.Spec, prefixed(" at ", at), len(pf.Rules), len(pf.Scripts))
	fmt.Fprintf(p.Out, "vendored in %s, pinned in %s\n", rel(p.Root, p.packDir(name)), rel(p.Root, p.lockPath()))
	return nil
}

// Update fetches a declared pack again, at rev when revGiven (else at the
// rev it has), writes it as Add does and then prints what changed in its
// rules (a failed update prints none: nothing changed).
func (p *Project) Update(ctx context.Context, name, rev string, revGiven bool) error {
	if err := checkName(name); err != nil {
		return err
	}
	text, err := p.readManifest()
	if err != nil {
		return err
	}
	decl, err := declOf(text, name)
	if err != nil {
		return err
	}
	if decl.Source == "" {
		return fmt.Errorf("%s is a built-in pack: it is updated with agent-shell itself", name)
	}
	if !revGiven {
		rev = decl.Rev
	}
	src, err := sourceOf(decl.Source)
	if err != nil {
		return err
	}
	f, pf, err := fetchChecked(ctx, src, rev)
	if err != nil {
		return err
	}
	old, _ := policy.ReadPackTree(p.packDir(name))
	changes := ruleChanges(name, old, f.files)
	lock, err := p.readLock()
	if err != nil {
		return err
	}
	lock.Packs = slices.DeleteFunc(lock.Packs, func(e *policy.LockEntry) bool { return e.Name == name })
	lock.Packs = append(lock.Packs, policy.EntryFor(name, src.Spec, rev, f.commit, f.files))
	if text, err = setPackRev(text, name, rev); err != nil {
		return err
	}
	if err := p.commit(text, lock, name, f.files, pf.Executables()); err != nil {
		return err
	}
	for _, line := range changes {
		fmt.Fprintln(p.Out, line)
	}
	at := " from " + src.Spec // a local folder has no revs
	if src.Git != "" {
		at = " at " + orDefault(rev, "the default branch") + commitNote(f.commit)
	}
	fmt.Fprintf(p.Out, "updated pack %s to %s%s\n", name, pf.Version, at)
	return nil
}

// Remove takes a pack out of the manifest, the lock and the vendored
// folder.
func (p *Project) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	text, err := p.readManifest()
	if err != nil {
		return err
	}
	lock, err := p.readLock()
	if err != nil {
		return err
	}
	start, end, ok := packTable(text, name)
	switch {
	case ok:
		lines := strings.SplitAfter(text, "\n")
		text = strings.Join(append(lines[:start:start], lines[end:]...), "")
		text = strings.ReplaceAll(text, "\n\n\n", "\n\n")
	case lock.Pack(name) == nil:
		return fmt.Errorf("the manifest has no pack named %q", name)
	}
	// A pack the lock still pins but the manifest lost goes from the lock.
	lock.Packs = slices.DeleteFunc(lock.Packs, func(e *policy.LockEntry) bool { return e.Name == name })
	if err := p.commit(text, lock, name, nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(p.Out, "removed pack %s\n", name)
	return nil
}

// Problem is one thing `pack verify` found wrong.
type Problem struct {
	Pack string
	What string
}

// Verify re-hashes every vendored pack against the lock and checks that
// the manifest and the lock agree, listing every problem.
func (p *Project) Verify() ([]Problem, error) {
	lock, err := p.readLock()
	if err != nil {
		return nil, err
	}
	var out []Problem
	text, err := p.readManifest()
	if err != nil {
		return nil, err
	}
	declared := declsOf(text)
	for _, e := range lock.Packs {
		d := declared[e.Name]
		switch {
		case d == nil:
			out = append(out, Problem{e.Name, "pinned in the lock but not declared in the manifest"})
			continue
		case d.Source != e.Source || d.Rev != e.Rev:
			out = append(out, Problem{e.Name, fmt.Sprintf("the lock pins %s@%s, the manifest asks for %s@%s", e.Source, e.Rev, d.Source, d.Rev)})
		}
		files, err := policy.ReadPackTree(p.packDir(e.Name))
		if err != nil {
			out = append(out, Problem{e.Name, err.Error()})
			continue
		}
		out = append(out, fileProblems(e, files)...)
	}
	for name, d := range declared {
		if d.Source != "" && lock.Pack(name) == nil {
			out = append(out, Problem{name, "declared with a source but not pinned in the lock; run agent-shell pack add"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pack < out[j].Pack })
	return out, nil
}

// fileProblems lists every vendored file that differs from its pin.
func fileProblems(e *policy.LockEntry, files policy.PackFiles) []Problem {
	var out []Problem
	for _, m := range e.Mismatches(files) {
		out = append(out, Problem{e.Name, m.Path + ": " + m.What})
	}
	if len(out) == 0 && !e.TreeMatches() {
		out = append(out, Problem{e.Name, "the lock's tree digest does not match its file list"})
	}
	return out
}

// Info is one declared pack, as `pack list` shows it.
type Info struct {
	Name, Version, Description, Source, Rev, Commit string
	Rules                                           int
	Builtin                                         bool
}

// List describes every declared pack.
func (p *Project) List() ([]Info, error) {
	text, err := p.readManifest()
	if err != nil {
		return nil, err
	}
	lock, err := p.readLock()
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, d := range declsList(text) {
		in := Info{Name: d.Name, Source: d.Source, Rev: d.Rev, Builtin: d.Source == ""}
		if e := lock.Pack(d.Name); e != nil {
			in.Commit = e.Commit
		}
		if files, err := p.Files(d.Name, d.Source == ""); err == nil {
			if pf, err := policy.ParsePackFile(policy.PackFileName, files[policy.PackFileName]); err == nil {
				in.Version, in.Description, in.Rules = pf.Version, pf.Description, len(pf.Rules)
			}
		}
		out = append(out, in)
	}
	return out, nil
}

// Files are a pack's files: a built-in pack's from the binary, else the
// vendored ones.
func (p *Project) Files(name string, builtin bool) (policy.PackFiles, error) {
	if !builtin {
		return policy.ReadPackTree(p.packDir(name))
	}
	fsys, ok := scripts.Pack(name)
	if !ok {
		return nil, fmt.Errorf("there is no built-in pack %q (built in: %s)", name, strings.Join(scripts.Packs(), ", "))
	}
	out := policy.PackFiles{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		out[path] = data
		return err
	})
	return out, err
}

// ShowFiles are the files `pack show NAME` prints: a declared pack's, or a
// built-in pack's even when the project does not declare it.
func (p *Project) ShowFiles(name string) (policy.PackFiles, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	text, _ := p.readManifest()
	if d := declsOf(text)[name]; d != nil && d.Source != "" {
		return p.Files(name, false)
	}
	return p.Files(name, true)
}

// checkName refuses a name that is not a pack's: it becomes a folder.
func checkName(name string) error {
	if !policy.ValidPackName(name) {
		return fmt.Errorf("%q cannot name a pack: use 1 to 64 of a-z, 0-9, '_' and '-'", name)
	}
	return nil
}

// fetchChecked fetches a pack and checks it loads on its own.
func fetchChecked(ctx context.Context, src Source, rev string) (*fetched, *policy.PackFile, error) {
	f, err := fetch(ctx, src, rev)
	if err != nil {
		return nil, nil, err
	}
	pf, err := checkPack(src.Spec, f.files)
	if err != nil {
		return nil, nil, err
	}
	return f, pf, nil
}

// checkPack loads fetched files as a pack on its own: pack.toml valid,
// scripts compiling and initialising, examples passing.
func checkPack(where string, files policy.PackFiles) (*policy.PackFile, error) {
	m, err := policy.LoadPackFiles(where, files)
	if err != nil {
		return nil, fmt.Errorf("the pack does not load: %w", err)
	}
	e, err := policy.NewEngine(nil, m)
	if err == nil {
		err = e.CheckPackExamples()
	}
	if err == nil && m.Runtime() != nil {
		err = m.Runtime().Check()
	}
	if err != nil {
		return nil, fmt.Errorf("the pack does not load: %w", err)
	}
	return m.LoadedPacks()[0].File, nil
}

// commit writes the manifest text, the lock and the pack's vendored files
// (files nil: the folder is removed), then loads the whole configuration;
// if it does not load, every file is put back as it was.
func (p *Project) commit(text string, lock *policy.Lock, name string, files policy.PackFiles, execs []string) error {
	broken := policy.Load(p.Root, p.Getenv).LoadErr
	t := &transaction{}
	err := p.apply(t, text, lock, name, files, execs)
	if err == nil {
		if e := policy.Load(p.Root, p.Getenv); e.LoadErr != nil {
			err = fmt.Errorf("nothing was changed: with this change the configuration would not load: %v", e.LoadErr)
			if broken != nil {
				err = fmt.Errorf("nothing was changed: the configuration does not load, this change aside: %v", broken)
			}
		}
	}
	if err != nil {
		t.rollback()
		return err
	}
	t.done()
	return nil
}

// transaction remembers how to put back what a change replaced.
type transaction struct {
	undo    []func()
	cleanup []func() // after success
}

func (t *transaction) rollback() {
	for i := len(t.undo) - 1; i >= 0; i-- {
		t.undo[i]()
	}
}

func (t *transaction) done() {
	for _, f := range t.cleanup {
		f()
	}
}

// writeFile replaces path (data nil: removes it), keeping the old content
// to put back.
func (t *transaction) writeFile(path string, data []byte) error {
	old, err := os.ReadFile(path)
	if err == nil {
		t.undo = append(t.undo, func() { atomicfile.Write(path, old, 0) })
	} else {
		t.undo = append(t.undo, func() { os.Remove(path) })
	}
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return atomicfile.Write(path, data, 0)
}

// replaceDir puts files in dir (nil: dir goes), moving the old folder aside
// until the change is done.
func (t *transaction) replaceDir(dir, name string, files policy.PackFiles, execs []string) error {
	if _, err := os.Lstat(dir); err == nil {
		backup := filepath.Join(filepath.Dir(dir), "."+name+".old")
		if err := os.RemoveAll(backup); err != nil {
			return err
		}
		if err := os.Rename(dir, backup); err != nil {
			return err
		}
		t.undo = append(t.undo, func() { os.RemoveAll(dir); os.Rename(backup, dir) })
		t.cleanup = append(t.cleanup, func() { os.RemoveAll(backup) })
	}
	if files == nil {
		// The last pack removed takes the packs folder with it.
		t.cleanup = append(t.cleanup, func() { os.Remove(filepath.Dir(dir)) })
		return nil
	}
	if err := t.mkdirAll(filepath.Dir(dir)); err != nil {
		return err
	}
	staged, err := stage(filepath.Dir(dir), name, files, execs)
	if err != nil {
		return err
	}
	if err := os.Rename(staged, dir); err != nil {
		os.RemoveAll(staged)
		return err
	}
	t.undo = append(t.undo, func() { os.RemoveAll(dir) })
	return nil
}

// mkdirAll creates dir and its missing parents, which a rollback removes
// again (if still empty), deepest first.
func (t *transaction) mkdirAll(dir string) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		created = append(created, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	t.undo = append(t.undo, func() {
		for _, d := range created {
			os.Remove(d)
		}
	})
	return nil
}

func (p *Project) apply(t *transaction, text string, lock *policy.Lock, name string, files policy.PackFiles, execs []string) error {
	if err := t.replaceDir(p.packDir(name), name, files, execs); err != nil {
		return err
	}
	var data []byte
	if len(lock.Packs) > 0 {
		var err error
		if data, err = lock.Encode(); err != nil {
			return err
		}
	}
	if err := t.writeFile(p.lockPath(), data); err != nil {
		return err
	}
	return t.writeFile(p.manifestPath(), []byte(text))
}

// stage writes the files into a new hidden folder beside the vendored
// one, to be renamed into place; execs (the pack's executable extensions)
// are made executable.
func stage(parent, name string, files policy.PackFiles, execs []string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".new-*")
	if err != nil {
		return "", err
	}
	for path, data := range files {
		full := filepath.Join(tmp, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		mode := os.FileMode(0o644)
		if slices.Contains(execs, path) {
			mode = 0o755
		}
		if err := os.WriteFile(full, data, mode); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

func (p *Project) readManifest() (string, error) {
	data, err := os.ReadFile(p.manifestPath())
	if errors.Is(err, fs.ErrNotExist) {
		return "version = 1\n", nil
	}
	return string(data), err
}

func (p *Project) readLock() (*policy.Lock, error) {
	if _, err := os.Lstat(p.lockPath()); errors.Is(err, fs.ErrNotExist) {
		return &policy.Lock{Version: 1}, nil
	}
	l, err := policy.ReadLock(p.lockPath())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel(p.Root, p.lockPath()), err)
	}
	return l, nil
}

// ruleChanges lists the rules a pack update adds, removes and changes, by
// their namespaced ids (NAME/id, as disable names them): a rule changes
// when its table does, the source of a script it names, or a library of
// the pack.
func ruleChanges(name string, oldFiles, newFiles policy.PackFiles) []string {
	rules := func(files policy.PackFiles) map[string]string {
		out := map[string]string{}
		pf, err := policy.ParsePackFile(policy.PackFileName, files[policy.PackFileName])
		if err != nil {
			return out
		}
		// A script's loads are not followed: every library of the pack (a
		// .star file that is neither a script nor a test) counts as part
		// of every script, so a changed library changes each rule with one.
		scriptFiles := map[string]bool{}
		for _, s := range pf.Scripts {
			scriptFiles[filepath.ToSlash(filepath.Clean(s.Src))] = true
		}
		var libs []byte
		for _, p := range sortedKeys(files) {
			if strings.HasSuffix(p, ".star") && !strings.HasSuffix(p, "_test.star") && !scriptFiles[p] {
				libs = append(append(libs, p...), files[p]...)
			}
		}
		srcs := map[string][]byte{}
		for _, s := range pf.Scripts {
			srcs[s.ID] = append(append([]byte(s.Source), files[filepath.ToSlash(filepath.Clean(s.Src))]...), libs...)
		}
		for _, r := range pf.Rules {
			b, _ := json.Marshal(r)
			for _, id := range r.ScriptRefs() {
				b = append(b, srcs[id]...)
			}
			out[r.ID] = string(b)
		}
		return out
	}
	before, after := rules(oldFiles), rules(newFiles)
	var added, removed, changed []string
	for id, a := range after {
		b, ok := before[id]
		switch {
		case !ok:
			added = append(added, id)
		case !bytes.Equal([]byte(a), []byte(b)):
			changed = append(changed, id)
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			removed = append(removed, id)
		}
	}
	if len(added)+len(removed)+len(changed) == 0 {
		return []string{"rules: no change"}
	}
	var out []string
	for _, g := range []struct {
		what string
		ids  []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		sort.Strings(g.ids)
		for _, id := range g.ids {
			out = append(out, fmt.Sprintf("  %-8s %s/%s", g.what, name, id))
		}
	}
	return append([]string{"rules:"}, out...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func commitNote(commit string) string {
	if commit == "" {
		return ""
	}
	return " (" + short(commit) + ")"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
