package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Guard names.
const (
	AgentShellFiles  = "agent-shell-files"
	HookRegistration = "hook-registration"
	NpmScriptShell   = "npm-script-shell"
	AgentShellEnv    = "agentshell-env"
	Authorize        = "authorize"
)

// Denial is a built-in guard rule's denial.
type Denial struct {
	Guard  string // one of the guard names above
	Target string // the protected path, slash-separated and relative to the root ("~/..." in the home), or the variable or setting
	Reason string // names the guard and says how a human changes the file instead
}

// Config is the manifest's [guard] table.
type Config struct {
	// AllowAgentEdits opens protected paths to agents: root-relative
	// doublestar globs ("~/" for the home). It counts only in an authorized
	// configuration: policy passes it to the guard only then.
	AllowAgentEdits []string `toml:"allow_agent_edits"`
}

// Validate checks each allow_agent_edits entry.
func (c *Config) Validate() error {
	for i, p := range c.AllowAgentEdits {
		switch {
		case strings.TrimSpace(p) == "":
			return fmt.Errorf("entry %d is empty", i+1)
		case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
			return fmt.Errorf("%q: want a path relative to the repository root", p)
		case strings.Contains(p, `\`):
			return fmt.Errorf("%q: use / to separate folders", p)
		case shellcmd.HasDotDot(p):
			return fmt.Errorf("%q: .. is not allowed", p)
		case !doublestar.ValidatePattern(p):
			return fmt.Errorf("%q: bad glob", p)
		}
	}
	return nil
}

// Check checks one pre-tool event against the built-in guard rules; nil
// when it touches nothing protected. root is the repository root ("" finds
// it from the event's cwd); allowEdits are root-relative doublestar globs an
// authorized manifest opened ([guard] allow_agent_edits; the caller passes
// nil unless the manifest is authorized); line is as for Command.
func Check(root string, ev *hostapi.Event, line *shellcmd.Line, allowEdits []string) *Denial {
	if ev == nil || ev.Kind != hostapi.KindPreTool {
		return nil
	}
	if ev.IsShell() {
		if ev.CommandErr != nil {
			return nil // denied anyway, for the command cannot be read
		}
		return Command(root, ev.Cwd, ev.Command, line, allowEdits)
	}
	g := newGuarder(root, ev.Cwd, allowEdits)
	return g.tool(ev)
}

// Command is the shell-command half of Check: one command line run in
// cwd ("" for the root). line, when not nil, is what shellcmd.Parse gives
// for the command's trimmed text, so that a caller who parses it anyway
// does not pay for it twice.
func Command(root, cwd, command string, line *shellcmd.Line, allowEdits []string) *Denial {
	g := newGuarder(root, cwd, allowEdits)
	g.shell, g.subject = true, "the command"
	command = shellcmd.TrimSpace(command)
	g.raw = command
	g.scriptShell = mentionsScriptShell(command)
	g.envText = guardedEnvWrite(command)
	g.dotglob = strings.Contains(command, "dotglob") || strings.Contains(command, "GLOBIGNORE")
	// A command too long or too large to examine whole could hide a
	// protected write behind padding: the guard denies it outright.
	tooLarge := func(why string) *Denial {
		return g.deny(AgentShellFiles, "", fmt.Sprintf("agent-shell guard %s: the command is too large to check (%s), so the guard cannot tell whether it changes agent-shell's files. A human runs it instead.", AgentShellFiles, why))
	}
	if len(command) > maxGuardCommandBytes {
		return tooLarge(fmt.Sprintf("%d bytes", len(command)))
	}
	if line == nil {
		line = shellcmd.Parse(command)
	}
	if errors.Is(line.Err, shellcmd.ErrTooLarge) {
		return tooLarge(line.Err.Error())
	}
	return g.line(line, []string{g.cwd}, 0)
}

// maxGuardCommandBytes bounds the command line the guard parses; a longer
// one is judged by the protected names it mentions.
const maxGuardCommandBytes = 256 << 10

// userHome is the user's home folder; a variable so that tests can move it.
var userHome = func() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
}

// Bounds on the file system work of one guard call.
const (
	guardFSBudget   = 4096     // stat, readdir and readlink calls
	guardMaxDepth   = 4        // shell bodies re-parsed by the guard itself
	guardMaxNpmrc   = 64 << 10 // bytes of an .npmrc read
	guardMaxPatch   = 1 << 20  // bytes of a patch file read
	guardMaxMatches = 256      // paths one glob may give for their name or through a link
	guardMaxLinks   = 256      // links one glob resolves
)

// guarder holds one guard call's context.
type guarder struct {
	root, realRoot string // absolute; "" when unknown
	home, realHome string
	config         string // $XDG_CONFIG_HOME, when set elsewhere than ~/.config
	cwd            string // absolute
	allow          []string

	subject string // "the command", "this Edit call"
	// seen, set by tests only, receives each operation checkOp would
	// check, in place of checking it.
	seen  func(op guardOp, cwds []string)
	shell bool   // a shell command: any write to an .npmrc counts
	whole bool   // a tool that replaces the whole file
	raw   string // the command line

	scriptShell bool   // the command or the edit mentions script-shell
	envText     string // a guarded variable assignment the text holds, if any
	dotglob     bool

	at         string // while checking an ancestor of the root or home: its path, for reasons
	budget     int
	rootNpmrc  int8                // 0 unknown, 1 the root .npmrc has a script-shell line, -1 not
	patchy     bool                // a command applies a patch: scan the text for its headers
	links      map[string][]string // what each symbolic link the line makes points to (lineLinks)
	patchFiles []patchFile
	patchBases []string // folders a patch applies in besides the command's (patch -d)
}

type patchFile struct{ path, base string }

func newGuarder(root, cwd string, allow []string) *guarder {
	g := &guarder{allow: allow, budget: guardFSBudget, subject: "the command"}
	if root == "" && filepath.IsAbs(cwd) {
		root = project.FindRoot(cwd)
	}
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			g.root = abs
			g.realRoot = g.realpath(abs)
		}
	}
	if h := userHome(); h != "" && filepath.IsAbs(h) {
		g.home = filepath.Clean(h)
		g.realHome = g.realpath(g.home)
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) && filepath.Clean(x) != filepath.Join(g.home, ".config") {
		g.config = filepath.Clean(x)
	}
	switch {
	case cwd == "":
		g.cwd = g.root
	case filepath.IsAbs(cwd):
		g.cwd = filepath.Clean(cwd)
	case g.root != "":
		g.cwd = filepath.Join(g.root, cwd)
	default:
		if abs, err := filepath.Abs(cwd); err == nil {
			g.cwd = abs
		}
	}
	return g
}

func (g *guarder) realpath(p string) string {
	if !g.spend() {
		return p
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// spend takes one file system call from the budget.
func (g *guarder) spend() bool {
	if g.budget <= 0 {
		return false
	}
	g.budget--
	return true
}

func (g *guarder) lstat(p string) (fs.FileInfo, error) {
	if !g.spend() {
		return nil, errBudget
	}
	return os.Lstat(p)
}

func (g *guarder) exists(p string) bool {
	_, err := g.lstat(p)
	return err == nil
}

var errBudget = errors.New("guard: file system budget spent")

// --- denials ---------------------------------------------------------------

// opened reports whether allow_agent_edits opens target.
func (g *guarder) opened(target string) bool {
	for _, p := range g.allow {
		if ok, _ := doublestar.Match(p, target); ok {
			return true
		}
		if ok, _ := doublestar.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return true
		}
	}
	return false
}

// deny builds a denial unless allow_agent_edits opens its target. Env
// denials cannot be opened: they name no path.
func (g *guarder) deny(guard, target, reason string) *Denial {
	if guard != AgentShellEnv && g.opened(target) {
		return nil
	}
	return &Denial{Guard: guard, Target: target, Reason: reason}
}

func (g *guarder) denyPath(e *guardedPath, target, verb string) *Denial {
	return g.deny(e.guard, target, fmt.Sprintf("agent-shell guard %s: %s %s %s (%s), which an agent may not change. %s",
		e.guard, g.subject, verb, target, e.what, e.fix))
}

func (g *guarder) denyAncestor(e *guardedPath, at, target, verb string) *Denial {
	return g.deny(e.guard, target, fmt.Sprintf("agent-shell guard %s: %s %s %s and with it %s (%s), which an agent may not change. %s",
		e.guard, g.subject, verb, at, target, e.what, e.fix))
}

func (g *guarder) denyEnv(name, how string) *Denial {
	return g.deny(AgentShellEnv, name, fmt.Sprintf("agent-shell guard %s: %s %s %s, which %s; a human sets it in their own shell.",
		AgentShellEnv, g.subject, how, name, guardedEnv[name]))
}

func (g *guarder) denyNpm(target, what string) *Denial {
	return g.deny(NpmScriptShell, target, fmt.Sprintf("agent-shell guard %s: %s %s, and npm's script-shell setting sends npm scripts through agent-shell; an agent may not change it. %s",
		NpmScriptShell, g.subject, what, fixNpm))
}
