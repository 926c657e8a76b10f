package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Built-in guard rules.
//
// The guards are part of the binary, not of the manifest: they run on every
// pre-tool event before the project's policy is even looked at, and no rule,
// reviewer, grant, interceptor or load error can overturn them. They deny
//
//   - agent-shell-files: any write to agent-shell's own files,
//     .github/hooks/agent-shell/** and .agent-shell/**;
//   - hook-registration: any write to a host's hook registration in the
//     repository (.claude/settings.json, .claude/settings.local.json,
//     .codex/hooks.json, .codex/config.toml, .gemini/settings.json,
//     .cursor/hooks.json, .github/hooks/*.json,
//     .opencode/plugins/agent-shell.js, .amp/settings.json) and in the
//     user's home (~/.claude/settings.json, ~/.codex/hooks.json,
//     ~/.codex/config.toml, ~/.gemini/settings.json, ~/.cursor/hooks.json,
//     ~/.copilot/hooks/*.json, ~/.config/amp/settings.json);
//   - npm-script-shell: a change to npm's script-shell setting, which sends
//     npm scripts through agent-shell (the script-shell line of any .npmrc
//     under the root, `npm config set|delete script-shell`, and the
//     per-command overrides --script-shell and npm_config_script_shell);
//   - agentshell-env: a command that sets AGENTSHELL_PASSTHROUGH,
//     AGENTSHELL_POLICY_PATH, AGENTSHELL_LOG_DIR or AGENTSHELL_ACTOR (or
//     writes one into a shell startup file).
//
// Reads stay allowed. A write is seen through an edit or write tool (by the
// path fields of its input, or the headers of an apply_patch patch) or
// through a shell command's write effects: redirections, and the operands
// of the programs that write their arguments (see guardLayer).
//
// Paths are matched relative to the root (or the home), cleaned, in ASCII
// lower case (a case-insensitive file system reaches the same file), both
// as written and through the symbolic links that exist when the hook runs
// (the deepest existing ancestor is resolved, and the file itself for a
// write that follows a link). A relative path is taken from the event's cwd
// (the root when it has none, as Amp's calls do), and from every folder a
// static cd or pushd earlier in the line may have moved to. A glob is
// matched against the files that exist, as the shell would. An operand
// that holds a protected path counts for removals, moves, permission
// changes, find -delete/-exec and recursive copies (for a copy, only where
// its source holds the part below). A path outside the root and the home
// is not protected (it is another repository).
//
// What is NOT caught (the policy's own rules and its unknown handling are
// the line there):
//   - writes by interpreters and by programs the guard does not know
//     (python -c, node -e, awk without -i inplace, make, tar -x, unzip,
//     formatters, editors' scripts...);
//   - targets only known at run time ($X, xargs input, cd $X), unless the
//     static part already lies in .agent-shell/ or
//     .github/hooks/agent-shell/ (.agent-shell/$X, $HOME/..., $PWD/...,
//     $(pwd)/... and $(git rev-parse --show-toplevel)/... are resolved);
//   - git operations that rewrite the work tree as a whole: a branch
//     checkout, `git checkout .`/`git restore .` (only pathspecs that name
//     a protected path count), reset, stash, merge, pull, rebase, switch,
//     and git clean without -x (it keeps ignored files; untracked new files
//     in .github/hooks/agent-shell/ would go);
//   - a link made earlier in the same command line (`ln -s .github g && rm
//     -rf g/hooks`: the ln itself is denied only when it points at a
//     protected path, not at a folder holding one); hard links made before
//     the call; Unicode normalization on file systems that apply it;
//   - variables set by `for NAME in`, `source`, `set -a` with a file, or a
//     file written now and read by a later command (except shell startup
//     files: .bashrc, .profile, .zshrc, .envrc, .env, ...);
//   - home-level registrations other than those listed, and system-wide
//     ones (/etc/...).
//
// This file holds the guard names, the [guard] table, the entry points, the
// protected paths and the guarder with its budget and denials. The rest is
// split by write form: guard_paths.go resolves and classifies paths,
// guard_tools.go reads edit tools and patches, guard_shell.go walks a
// command line, guard_writers.go knows each program's write operands, and
// guard_find.go tells which finds spare the protected files.

// Guard names.
const (
	GuardAgentShellFiles  = "agent-shell-files"
	GuardHookRegistration = "hook-registration"
	GuardNpmScriptShell   = "npm-script-shell"
	GuardAgentShellEnv    = "agentshell-env"
	GuardAuthorize        = "authorize"
)

// GuardDenial is a built-in guard rule's denial.
type GuardDenial struct {
	Guard  string // one of the Guard* names
	Target string // the protected path, slash-separated and relative to the root ("~/..." in the home), or the variable or setting
	Reason string // names the guard and says how a human changes the file instead
}

// GuardConfig is the manifest's [guard] table.
type GuardConfig struct {
	// AllowAgentEdits opens protected paths to agents: root-relative
	// doublestar globs ("~/" for the home). It counts only in an authorized
	// configuration (see Engine.allowEdits).
	AllowAgentEdits []string `toml:"allow_agent_edits"`
}

// validate checks each allow_agent_edits entry.
func (c *GuardConfig) validate() error {
	for i, p := range c.AllowAgentEdits {
		switch {
		case strings.TrimSpace(p) == "":
			return fmt.Errorf("entry %d is empty", i+1)
		case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
			return fmt.Errorf("%q: want a path relative to the repository root", p)
		case strings.Contains(p, `\`):
			return fmt.Errorf("%q: use / to separate folders", p)
		case hasDotDot(p):
			return fmt.Errorf("%q: .. is not allowed", p)
		case !doublestar.ValidatePattern(p):
			return fmt.Errorf("%q: bad glob", p)
		}
	}
	return nil
}

// allowEdits returns the paths the manifest's [guard] allow_agent_edits
// opens, and only when the configuration in force is the one a human
// authorized (Authorized, set by LoadAuthorized): otherwise an agent that
// could write the manifest could open the guard with it.
func (e *Engine) allowEdits() []string {
	if e == nil || !e.Authorized || e.Manifest == nil {
		return nil
	}
	return e.Manifest.Guard.AllowAgentEdits
}

// guardEvent is the guard's decision on a pre-tool event, if it has one.
// It depends on nothing of the project's policy, so it must come before
// everything else a decision looks at.
func (e *Engine) guardEvent(ev *hostapi.Event) (Decision, bool) {
	if ev == nil || ev.Kind != hostapi.KindPreTool {
		return Decision{}, false
	}
	g := Guard(e.Root, ev, e.allowEdits())
	if g == nil {
		return Decision{}, false
	}
	return Decision{Action: ActionDeny, Rule: "guard:" + g.Guard, Guard: g.Guard, Reason: g.Reason}, true
}

// Guard checks one pre-tool event against the built-in guard rules; nil
// when it touches nothing protected. root is the repository root ("" finds
// it from the event's cwd); allowEdits are root-relative doublestar globs an
// authorized manifest opened ([guard] allow_agent_edits; the caller passes
// nil unless the manifest is authorized).
func Guard(root string, ev *hostapi.Event, allowEdits []string) *GuardDenial {
	if ev == nil || ev.Kind != hostapi.KindPreTool {
		return nil
	}
	if ev.IsShell() {
		if ev.CommandErr != nil {
			return nil // denied anyway, for the command cannot be read
		}
		return GuardCommand(root, ev.Cwd, ev.Command, allowEdits)
	}
	g := newGuarder(root, ev.Cwd, allowEdits)
	return g.tool(ev)
}

// GuardCommand is the shell-command half of Guard: one command line run in
// cwd ("" for the root).
func GuardCommand(root, cwd, command string, allowEdits []string) *GuardDenial {
	g := newGuarder(root, cwd, allowEdits)
	g.shell, g.subject = true, "the command"
	command = trimSpace(command)
	g.raw = command
	g.scriptShell = mentionsScriptShell(command)
	g.envText = guardedEnvWrite(command)
	g.dotglob = strings.Contains(command, "dotglob") || strings.Contains(command, "GLOBIGNORE")
	// A command too long or too large to examine whole could hide a
	// protected write behind padding: the guard denies it outright.
	tooLarge := func(why string) *GuardDenial {
		return g.deny(GuardAgentShellFiles, "", fmt.Sprintf("agent-shell guard %s: the command is too large to check (%s), so the guard cannot tell whether it changes agent-shell's files. A human runs it instead.", GuardAgentShellFiles, why))
	}
	if len(command) > maxGuardCommandBytes {
		return tooLarge(fmt.Sprintf("%d bytes", len(command)))
	}
	line := shellcmd.Parse(command)
	if errors.Is(line.Err, shellcmd.ErrTooLarge) {
		return tooLarge(line.Err.Error())
	}
	return g.line(line, []string{g.cwd}, 0)
}

// maxGuardCommandBytes bounds the command line the guard parses; a longer
// one is judged by the protected names it mentions.
const maxGuardCommandBytes = 256 << 10

// guardKind says how a protected path matches.
type guardKind uint8

const (
	guardTree guardKind = iota // the folder and everything under it
	guardFile                  // exactly this file
	guardGlob                  // files matching a path.Match pattern
)

// guardedPath is one protected location.
type guardedPath struct {
	path  string // lower case, slash-separated, relative to the root (or the home)
	kind  guardKind
	guard string
	what  string // what it is, for reasons
	fix   string // how a human changes it
}

const (
	fixConfig = "A human edits it directly, then runs 'agent-shell authorize'."
	fixState  = "A human who must change it does so directly, outside the agent (agent-shell itself writes it)."
	fixHome   = "A human edits it directly."
	fixNpm    = "A human edits .npmrc, or runs 'agent-shell init --npm'."
)

func fixInstall(host string) string {
	return "A human edits it, or runs 'agent-shell hook install --agent " + host + "'."
}

// rootGuarded are the protected paths under the repository root, folders
// first so that a file in one is reported as agent-shell's.
var rootGuarded = []guardedPath{
	{".github/hooks/agent-shell", guardTree, GuardAgentShellFiles, "agent-shell's configuration", fixConfig},
	{".agent-shell", guardTree, GuardAgentShellFiles, "agent-shell's flight recorder and state", fixState},
	{".claude/settings.json", guardFile, GuardHookRegistration, "Claude Code's hook registration", fixInstall("claude")},
	{".claude/settings.local.json", guardFile, GuardHookRegistration, "Claude Code's hook registration", fixInstall("claude")},
	{".codex/hooks.json", guardFile, GuardHookRegistration, "Codex's hook registration", fixInstall("codex")},
	{".codex/config.toml", guardFile, GuardHookRegistration, "Codex's configuration, which can register hooks", fixInstall("codex")},
	{".gemini/settings.json", guardFile, GuardHookRegistration, "Gemini CLI's hook registration", fixInstall("gemini")},
	{".cursor/hooks.json", guardFile, GuardHookRegistration, "Cursor's hook registration", fixInstall("cursor")},
	{".github/hooks/*.json", guardGlob, GuardHookRegistration, "Copilot's hook registration", fixInstall("copilot")},
	{".opencode/plugins/agent-shell.js", guardFile, GuardHookRegistration, "agent-shell's opencode plugin", fixInstall("opencode")},
	{".amp/settings.json", guardFile, GuardHookRegistration, "Amp's delegate registration", fixInstall("amp")},
}

// homeGuarded are the user-level hook registrations, under the home: a
// change there can switch the hooks off for every repository.
var homeGuarded = []guardedPath{
	{".claude/settings.json", guardFile, GuardHookRegistration, "Claude Code's user settings, which register hooks", fixHome},
	{".codex/hooks.json", guardFile, GuardHookRegistration, "Codex's user hook registration", fixHome},
	{".codex/config.toml", guardFile, GuardHookRegistration, "Codex's user configuration, which can register hooks", fixHome},
	{".gemini/settings.json", guardFile, GuardHookRegistration, "Gemini CLI's user settings, which register hooks", fixHome},
	{".cursor/hooks.json", guardFile, GuardHookRegistration, "Cursor's user hook registration", fixHome},
	{".copilot/hooks/*.json", guardGlob, GuardHookRegistration, "Copilot's user hook registration", fixHome},
	{".config/amp/settings.json", guardFile, GuardHookRegistration, "Amp's user settings", fixHome},
	// Deleting the record of authorizations would make a changed
	// configuration look never authorized, and so decide as it is.
	{".config/agent-shell", guardTree, GuardAgentShellFiles, "agent-shell's record of the configurations a human authorized",
		"A human changes it with 'agent-shell authorize'."},
}

// configGuarded is agent-shell's record of authorizations under a
// configuration folder that XDG_CONFIG_HOME moved out of the home.
var configGuarded = []guardedPath{
	{"agent-shell", guardTree, GuardAgentShellFiles, "agent-shell's record of the configurations a human authorized",
		"A human changes it with 'agent-shell authorize'."},
}

// guardedEnv are the variables no command may set, and what setting each
// would do.
var guardedEnv = map[string]string{
	"AGENTSHELL_PASSTHROUGH": "would switch agent-shell off for the commands it runs",
	"AGENTSHELL_POLICY_PATH": "would make agent-shell read another policy",
	"AGENTSHELL_LOG_DIR":     "would move agent-shell's flight recorder",
	"AGENTSHELL_ACTOR":       "would make the flight recorder name another actor",
	"AGENTSHELL_RECORD_FD":   "would send what agent-shell records to a descriptor of the command's choosing instead of the flight recorder",
}

// userHome is the user's home folder; a variable so that tests can move it.
var userHome = func() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
}

// The guard's regexps are compiled on first use, not at start-up: every
// process pays its package initialisation, most never reach the guard.
var (
	scriptShellRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)script[-_]shell`) })
	npmrcLineRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?im)^[ \t]*["']?script[-_]shell["']?[ \t]*=`) })
	// envWriteRE finds an assignment of one of guardedEnv's variables.
	envWriteRE = sync.OnceValue(func() *regexp.Regexp {
		names := slices.Sorted(maps.Keys(guardedEnv))
		return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)[ \t]*\+?=`)
	})
)

// mentionsScriptShell is scriptShellRE's match, its regexp compiled only
// for text that holds "hell" (h, e and l have no non-ASCII case folds).
func mentionsScriptShell(s string) bool {
	return hasFoldASCII(s, "hell") && scriptShellRE().MatchString(s)
}

// guardedEnvWrite is envWriteRE's first match in s, its regexp compiled
// only for text that names an AGENTSHELL_ variable.
func guardedEnvWrite(s string) string {
	if !strings.Contains(s, "AGENTSHELL_") {
		return ""
	}
	return envWriteRE().FindString(s)
}

// hasFoldASCII reports whether s holds lower (ASCII lower-case letters)
// in any mix of cases.
func hasFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) && s[i+j]|0x20 == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// shellStartupFiles are files a shell or an environment loader reads at
// start: writing a guarded variable into one sets it for later commands.
var shellStartupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true, ".zshrc": true,
	".zshenv": true, ".zprofile": true, ".zlogin": true, ".kshrc": true, ".mkshrc": true,
	".envrc": true, ".env": true, "config.fish": true, "environment": true, "bash.bashrc": true,
}

// Bounds on the file system work of one guard call.
const (
	guardFSBudget   = 4096     // stat, readdir and readlink calls
	guardMaxCwds    = 16       // directories a command line may cd to, tracked
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
	shell   bool   // a shell command: any write to an .npmrc counts
	whole   bool   // a tool that replaces the whole file
	raw     string // the command line

	scriptShell bool   // the command or the edit mentions script-shell
	envText     string // a guarded variable assignment the text holds, if any
	dotglob     bool

	at         string // while checking an ancestor of the root or home: its path, for reasons
	budget     int
	rootNpmrc  int8 // 0 unknown, 1 the root .npmrc has a script-shell line, -1 not
	patchy     bool // a command applies a patch: scan the text for its headers
	patchFiles []patchFile
	patchBases []string // folders a patch applies in besides the command's (patch -d)
}

type patchFile struct{ path, base string }

func newGuarder(root, cwd string, allow []string) *guarder {
	g := &guarder{allow: allow, budget: guardFSBudget, subject: "the command"}
	if root == "" && filepath.IsAbs(cwd) {
		root = telemetry.FindRoot(cwd)
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
func (g *guarder) deny(guard, target, reason string) *GuardDenial {
	if guard != GuardAgentShellEnv && g.opened(target) {
		return nil
	}
	return &GuardDenial{Guard: guard, Target: target, Reason: reason}
}

func (g *guarder) denyPath(e *guardedPath, target, verb string) *GuardDenial {
	return g.deny(e.guard, target, fmt.Sprintf("agent-shell guard %s: %s %s %s (%s), which an agent may not change. %s",
		e.guard, g.subject, verb, target, e.what, e.fix))
}

func (g *guarder) denyAncestor(e *guardedPath, at, target, verb string) *GuardDenial {
	return g.deny(e.guard, target, fmt.Sprintf("agent-shell guard %s: %s %s %s and with it %s (%s), which an agent may not change. %s",
		e.guard, g.subject, verb, at, target, e.what, e.fix))
}

func (g *guarder) denyEnv(name, how string) *GuardDenial {
	return g.deny(GuardAgentShellEnv, name, fmt.Sprintf("agent-shell guard %s: %s %s %s, which %s; a human sets it in their own shell.",
		GuardAgentShellEnv, g.subject, how, name, guardedEnv[name]))
}

func (g *guarder) denyNpm(target, what string) *GuardDenial {
	return g.deny(GuardNpmScriptShell, target, fmt.Sprintf("agent-shell guard %s: %s %s, and npm's script-shell setting sends npm scripts through agent-shell; an agent may not change it. %s",
		GuardNpmScriptShell, g.subject, what, fixNpm))
}
