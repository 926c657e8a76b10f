// Package setup is `agent-shell init`: it finds out what a repository has
// (its agents, package managers, and which agent-shell features are set up
// already) and sets up what is missing, merging into existing files without
// losing anything and never overwriting a file it cannot read.
package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy"
)

// ErrNotRepo is returned outside a git repository: init writes files that
// belong to a repository, and the hooks find the policy from its root.
var ErrNotRepo = errors.New("run agent-shell init inside a git repository")

// RegistrationFiles lists the files an agent's hook registration lives in,
// relative to the root (its adapter's Descriptor.Installs); the first is the
// one reports name.
func RegistrationFiles(agent string) []string {
	d, _ := hostapi.Describe(agent)
	return d.Installs
}

// Agent is what init knows about one agent in the repository.
type Agent struct {
	Name string
	// Detected is the marker that says the agent is used here (its
	// configuration directory, or AGENT=amp: its Descriptor's Markers),
	// "" when there is none.
	Detected string
	// Registered is true when the agent's hooks run agent-shell already:
	// installing them would change nothing.
	Registered bool
	// Err says why the registration cannot be merged (an invalid file);
	// installing would fail and leave the file unchanged.
	Err error
}

// PackageManager is one package manager the repository uses, and why init
// thinks so.
type PackageManager struct {
	Name     string
	Evidence string
}

// NPMState is what .npmrc says about script-shell.
type NPMState struct {
	Set   bool   // script-shell is agent-shell
	Other string // the other script-shell in effect, if one is
	// Tracked: .npmrc is committed, so what it says reaches every clone,
	// including machines without agent-shell.
	Tracked bool
}

// State is what Detect found.
type State struct {
	Root            string
	HasPackageJSON  bool
	PackageManagers []PackageManager
	Agents          []Agent  // every agent agent-shell knows, by name
	NPM             NPMState // from .npmrc
	PolicyFiles     []string // the policy files that exist, root-relative
	PolicyErr       error    // the existing policy does not load
	SafetyPack      bool     // the existing manifest takes in the built-in safety pack
	Gitignore       bool     // .gitignore ignores .agent-shell/
	getenv          func(string) string
}

// Detect looks at the repository around dir.
func Detect(dir string, getenv func(string) string) (*State, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	root, ok := project.RepoRoot(abs)
	if !ok {
		return nil, ErrNotRepo
	}
	s := &State{Root: root, getenv: getenv}
	s.detectPackageManagers()
	for _, d := range hostapi.Descriptors() {
		ad, _ := hostapi.ByName(d.Name, getenv)
		a := Agent{Name: d.Name, Detected: detected(root, d.Markers, getenv)}
		a.Registered, a.Err = registered(root, ad, d.Installs)
		s.Agents = append(s.Agents, a)
	}

	data, err := readSmall(filepath.Join(root, ".npmrc"))
	if err != nil {
		return nil, err
	}
	s.NPM = npmrcState(data)
	s.NPM.Tracked = GitTracks(root, ".npmrc")

	data, err = readSmall(filepath.Join(root, ".gitignore"))
	if err != nil {
		return nil, err
	}
	s.Gitignore = gitignoreHas(data)

	for _, p := range []string{policy.PolicyFileSubpath, policy.ManifestSubpath} {
		if exists(filepath.Join(root, p)) {
			s.PolicyFiles = append(s.PolicyFiles, p)
		}
	}
	if override := getenv("AGENTSHELL_POLICY_PATH"); override != "" {
		// The policy lives elsewhere and the user manages it: a starter next
		// to it would never be read.
		s.PolicyFiles = append(s.PolicyFiles, override)
	}
	if len(s.PolicyFiles) > 0 {
		e := policy.Load(root, getenv)
		s.PolicyErr = e.LoadErr
		if e.Manifest != nil {
			for _, p := range e.Manifest.LoadedPacks() {
				s.SafetyPack = s.SafetyPack || p.Builtin() && p.Decl.Name == "safety"
			}
		}
	}
	return s, nil
}

// Agent returns what is known about the named agent.
func (s *State) Agent(name string) Agent {
	for _, a := range s.Agents {
		if a.Name == name {
			return a
		}
	}
	return Agent{Name: name}
}

// DetectedAgents names the agents used here, or Copilot when there is none
// (the reference tool's only agent, and the one whose hooks are in .github/).
func (s *State) DetectedAgents() []string {
	var names []string
	for _, a := range s.Agents {
		if a.Detected != "" {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		names = []string{"copilot"}
	}
	return names
}

// hooksMissing reports whether any of the agents lacks agent-shell's hooks.
func (s *State) hooksMissing(agents []string) bool {
	for _, n := range agents {
		if !s.Agent(n).Registered {
			return true
		}
	}
	return false
}

// registered reports whether the agent's registration runs agent-shell
// already. Rather than a second, drifting reading of seven file formats, it
// asks the adapter itself: Install runs on a scratch copy of the files it
// writes (files), and the registration is complete when it changes
// nothing. An Install error (an invalid file) is the agent's Err, with the
// scratch directory's paths turned into root-relative ones.
func registered(root string, ad hostapi.Adapter, files []string) (bool, error) {
	scratch, err := os.MkdirTemp("", "agent-shell-init-")
	if err != nil {
		return false, fmt.Errorf("init: scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	for _, f := range files {
		if err := copyFile(filepath.Join(root, f), filepath.Join(scratch, f)); err != nil {
			return false, err
		}
	}
	changed, err := ad.Install(scratch)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), scratch+string(filepath.Separator), "")
		return false, errors.New(strings.ReplaceAll(msg, scratch, root))
	}
	return len(changed) == 0, nil
}

// copyFile copies src to dst with its permissions; a missing src is not
// copied.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("init: %s is not a regular file", src)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := io.Copy(out, io.LimitReader(in, maxFileBytes)); err != nil {
		out.Close()
		return fmt.Errorf("init: copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	return os.Chmod(dst, fi.Mode().Perm()) // past the umask: Amp's wrapper must stay executable
}

// detected is the first of a host's markers found (see hostapi.Marker),
// as init reports it; "" when none is.
func detected(root string, markers []hostapi.Marker, getenv func(string) string) string {
	for _, m := range markers {
		switch {
		case m.Path == "":
			if m.Env.Set(getenv) {
				return m.Env.String()
			}
		case m.Besides == "":
			if exists(filepath.Join(root, filepath.FromSlash(m.Path))) {
				return m.Path
			}
		default:
			entries, _ := os.ReadDir(filepath.Join(root, filepath.FromSlash(m.Path)))
			for _, e := range entries {
				if e.Name() != m.Besides {
					return m.Path
				}
			}
		}
	}
	return ""
}

// lockfiles name the package manager each lockfile belongs to, in the
// order they are reported.
var lockfiles = []struct{ file, manager string }{
	{"package-lock.json", "npm"},
	{"npm-shrinkwrap.json", "npm"},
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"bun.lock", "bun"},
	{"bun.lockb", "bun"},
}

func (s *State) detectPackageManagers() {
	seen := map[string]bool{}
	add := func(name, evidence string) {
		if !seen[name] {
			seen[name] = true
			s.PackageManagers = append(s.PackageManagers, PackageManager{name, evidence})
		}
	}
	data, err := readSmall(filepath.Join(s.Root, "package.json"))
	if err == nil && data != nil {
		s.HasPackageJSON = true
		var pkg struct {
			PackageManager string `json:"packageManager"`
		}
		if json.Unmarshal(data, &pkg) == nil && pkg.PackageManager != "" {
			name, _, _ := strings.Cut(pkg.PackageManager, "@")
			add(name, "package.json packageManager")
		}
	}
	for _, l := range lockfiles {
		if exists(filepath.Join(s.Root, l.file)) {
			add(l.manager, l.file)
		}
	}
	if s.HasPackageJSON && len(s.PackageManagers) == 0 {
		add("npm", "package.json")
	}
	if seen["yarn"] && exists(filepath.Join(s.Root, ".yarnrc.yml")) {
		// Yarn 2+ runs scripts in its own shell and ignores .npmrc.
		for i, pm := range s.PackageManagers {
			if pm.Name == "yarn" {
				s.PackageManagers[i].Name = "yarn berry"
			}
		}
	}
}

// GitTracks reports whether git's index holds the root-relative file: it
// is committed, or about to be. Where git cannot tell (no git, no index),
// nothing is tracked.
func GitTracks(root, file string) bool {
	cmd := exec.Command("git", "-C", root, "ls-files", "--error-unmatch", "--", file)
	return cmd.Run() == nil
}

// maxFileBytes bounds a line file read for merging (.npmrc, .gitignore).
const maxFileBytes = 4 << 20

// readSmall reads a file, nil when it does not exist.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("init: read %s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("init: %s is larger than %d bytes; it was left unchanged", path, maxFileBytes)
	}
	return data, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
