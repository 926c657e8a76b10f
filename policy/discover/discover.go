// Package discover is the `agent-shell policy --init` scan: it reads a
// project's own entry points (package.json scripts, GitHub Actions run steps,
// mise tasks, Makefile targets, justfile recipes, language toolchains) and
// proposes a starter policy.json and agent-shell.toml from them.
//
// Everything is read below the root only, through an [os.Root], with a size
// cap per file; a symbolic link anywhere in a path is skipped (as the policy
// loader rejects it), and a file that cannot be read or parsed becomes a note
// on the [Project], never an error of the scan as a whole. Nothing runs and
// nothing is written here.
package discover

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Limits on what the scan reads: a hostile or huge repository costs at most
// this much.
const (
	MaxFileBytes     = 512 << 10 // per file read
	maxWorkflowFiles = 100       // workflow files read
	maxWorkspaces    = 200       // workspace packages read
	maxDirEntries    = 4096      // entries read from one directory
	maxSteps         = 5000      // run steps read from one workflow
	maxCommands      = 10000     // workflow commands kept
)

// Project is what the scan found.
type Project struct {
	Root string

	// PackageManager runs the package.json scripts: npm, pnpm, yarn or bun
	// ("" when there is no package.json). PackageManagerFrom says how it was
	// chosen: the packageManager field, a lockfile, or "default".
	PackageManager     string
	PackageManagerFrom string
	// Lockfile is the package manager's lockfile at the root, if any.
	Lockfile string
	// YarnBerry is set for Yarn 2+ (a .yarnrc.yml or packageManager yarn@2+),
	// whose frozen install is --immutable.
	YarnBerry bool

	// Packages holds the root package.json first, then each workspace
	// package, sorted by directory.
	Packages []Package

	// Workflows holds each distinct simple command of the workflows' run
	// steps, in the order first seen (shell builtins such as echo and cd
	// left out).
	Workflows []WorkflowCommand

	MiseTasks   []Task
	MakeTargets []Task
	JustRecipes []Task
	// NoxSessions are noxfile.py's sessions; NoxDefault its
	// nox.options.sessions (nil: every session).
	NoxSessions []Task
	NoxDefault  []string
	// Tox reports a tox configuration (tox.ini, tox.toml or [tool.tox]),
	// ToxFile which; ToxEnvs are its environments, ToxDefault its env_list.
	Tox        bool
	ToxFile    string
	ToxEnvs    []Task
	ToxDefault []string
	// MakeDefault is the Makefile's default goal ("" when none).
	MakeDefault string

	Languages []Language

	// Notes say what was skipped and why: unreadable, oversized or
	// malformed files, symbolic links, limits reached.
	Notes []string
}

// Package is one package.json.
type Package struct {
	Dir     string // "." for the root
	File    string // path from the root
	Name    string
	Scripts []Script
	Deps    map[string]bool // every dependency name, of any kind
}

// Script is one package.json script.
type Script struct {
	Name string
	Body string
}

// WorkflowCommand is one simple command of a workflow run step.
type WorkflowCommand struct {
	File string // path from the root
	Job  string
	Step string // the step's name, or "step N"
	// Argv is the normalized command (program reduced to its basename);
	// Path is the program as written (./gradlew).
	Argv []string
	Path string
	// Why is non-empty when the command cannot be known statically: it
	// holds a GitHub expression, a variable or a substitution.
	Why string
}

// Task is one mise task, Makefile target or justfile recipe.
type Task struct {
	Name string
	// Params and Required count a just recipe's parameters, and those
	// without a default.
	Params, Required int
	// Private tasks (a just recipe named _x or marked [private], a hidden
	// mise task) are not offered.
	Private bool
	Run     []string // mise: the task's run commands, as written
	// Via is the target a Makefile's match-anything rule makes this one
	// run (lint for common-lint, by %: common-% ;).
	Via string
}

// Scan reads the project at root. It fails only when root itself cannot be
// opened; every problem with a file in it is a note.
func Scan(root string) (*Project, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	defer r.Close()
	s := &scanner{root: r, p: &Project{Root: root}}
	s.scanNode()
	s.scanWorkflows()
	s.scanMise()
	s.scanMake()
	s.scanJust()
	s.scanNox()
	s.scanTox()
	s.scanLanguages()
	return s.p, nil
}

// Summary is the one line that says what was found.
func (p *Project) Summary() string {
	scripts := 0
	for _, pkg := range p.Packages {
		scripts += len(pkg.Scripts)
	}
	return fmt.Sprintf("Discovered: %d npm script(s), %d workflow command(s), %d mise task(s), %d make target(s), %d just recipe(s), %d language(s)",
		scripts, len(p.Workflows), len(p.MiseTasks), len(p.MakeTargets), len(p.JustRecipes), len(p.Languages))
}

// HasLanguage reports whether the scan found the named toolchain.
func (p *Project) HasLanguage(name string) bool {
	for _, l := range p.Languages {
		if l.Name == name {
			return true
		}
	}
	return false
}

type scanner struct {
	root *os.Root
	p    *Project
}

func (s *scanner) notef(format string, args ...any) {
	s.p.Notes = append(s.p.Notes, fmt.Sprintf(format, args...))
}

var errSymlink = errors.New("is a symbolic link")

// lstat checks every segment of rel: none may be a symbolic link, since the
// policy loader refuses those and a link could point out of the root.
func (s *scanner) lstat(rel string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	parts := strings.Split(path.Clean(rel), "/")
	for i := range parts {
		var err error
		fi, err = s.root.Lstat(strings.Join(parts[:i+1], "/"))
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if i == len(parts)-1 {
				return nil, errSymlink
			}
			return nil, fmt.Errorf("%s %w", strings.Join(parts[:i+1], "/"), errSymlink)
		}
	}
	return fi, nil
}

// exists reports whether rel is there (a file or a directory), reached
// without a symbolic link.
func (s *scanner) exists(rel string) bool {
	_, err := s.lstat(rel)
	return err == nil
}

// present reports whether there is an entry at rel at all (a link
// included), so that reading it can say what is wrong with it.
func (s *scanner) present(rel string) bool {
	_, err := s.root.Lstat(rel)
	return err == nil
}

func (s *scanner) isDir(rel string) bool {
	fi, err := s.lstat(rel)
	return err == nil && fi.IsDir()
}

// read returns a regular file's content. A missing file gives ok false and
// no note; any other problem gives ok false and a note.
func (s *scanner) read(rel string) (data []byte, ok bool) {
	fi, err := s.lstat(rel)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.notef("%s: %v; skipped", rel, trimPathErr(err))
		}
		return nil, false
	}
	if !fi.Mode().IsRegular() {
		s.notef("%s: not a regular file; skipped", rel)
		return nil, false
	}
	if fi.Size() > MaxFileBytes {
		s.notef("%s: larger than %d KiB; skipped", rel, MaxFileBytes>>10)
		return nil, false
	}
	f, err := s.root.Open(rel)
	if err != nil {
		s.notef("%s: %v; skipped", rel, trimPathErr(err))
		return nil, false
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		s.notef("%s: %v; skipped", rel, trimPathErr(err))
		return nil, false
	}
	if len(data) > MaxFileBytes {
		s.notef("%s: larger than %d KiB; skipped", rel, MaxFileBytes>>10)
		return nil, false
	}
	return data, true
}

// readDir lists a directory's entries by name (at most maxDirEntries).
func (s *scanner) readDir(rel string) []fs.DirEntry {
	fi, err := s.lstat(rel)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.notef("%s: %v; skipped", rel, trimPathErr(err))
		}
		return nil
	}
	if !fi.IsDir() {
		return nil
	}
	f, err := s.root.Open(rel)
	if err != nil {
		s.notef("%s: %v; skipped", rel, trimPathErr(err))
		return nil
	}
	defer f.Close()
	entries, err := f.ReadDir(maxDirEntries)
	if err != nil && err != io.EOF {
		s.notef("%s: %v", rel, trimPathErr(err))
	}
	if len(entries) == maxDirEntries {
		s.notef("%s: more than %d entries; only some were read", rel, maxDirEntries)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries
}

// trimPathErr drops the operation and path of a *fs.PathError, which the
// note already names.
func trimPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
