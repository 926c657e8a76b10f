package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

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
	g.scriptShell = scriptShellRE().MatchString(command)
	g.envText = envWriteRE().FindString(command)
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
	envWriteRE    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(AGENTSHELL_(?:PASSTHROUGH|POLICY_PATH|LOG_DIR|ACTOR))[ \t]*\+?=`)
	})
)

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

// --- paths -----------------------------------------------------------------

// guardOp is one path a command or a tool writes.
type guardOp struct {
	word   string // as written (shell-normalized); relative to base
	base   string // absolute directory word is relative to; "" for each candidate cwd
	verb   string // "writes", "removes", ...
	follow bool   // a write through a final symbolic link reaches its target
	tree   bool   // everything under it is affected: an ancestor of a protected path counts
	// src, for a recursive copy or move into word, is its source: an
	// ancestor of a protected path counts only where the source holds
	// the part below it.
	src     string
	literal bool // a tool's path: no globbing
	removal bool // the file goes away (an .npmrc's script-shell line with it)
}

// checkOp checks one op from each candidate directory.
func (g *guarder) checkOp(op guardOp, cwds []string) *GuardDenial {
	bases := cwds
	if op.base != "" {
		bases = []string{op.base}
	}
	word := g.substituteKnown(op.word)
	if word == "" {
		return nil
	}
	if !op.literal && dynamicWord(word) {
		return g.checkDynamic(word, op, bases)
	}
	for _, b := range bases {
		for _, p := range g.expand(word, b, op.literal) {
			if d := g.checkPath(p, op); d != nil {
				return d
			}
		}
	}
	return nil
}

// knownVars are expansions whose value the guard knows.
var knownVars = []string{"${HOME}", "$HOME", "${PWD}", "$PWD", "$(pwd)", "`pwd`", "${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR",
	"$(git rev-parse --show-toplevel)", "`git rev-parse --show-toplevel`"}

// substituteKnown replaces a leading expansion whose value is known (the
// home, the current or project directory) by that value. $PWD and $(pwd)
// stay relative: "." is each candidate directory.
func (g *guarder) substituteKnown(w string) string {
	for _, v := range knownVars {
		rest, ok := strings.CutPrefix(w, v)
		if !ok || rest != "" && rest[0] != '/' {
			continue
		}
		switch {
		case strings.Contains(v, "HOME"):
			if g.home == "" {
				return w
			}
			return g.home + rest
		case strings.Contains(v, "PWD") || strings.Contains(v, "pwd"):
			return "." + rest
		default:
			if g.root == "" {
				return w
			}
			return g.root + rest
		}
	}
	return w
}

// expand makes word absolute against base: ~ is the home, and a glob gives
// the existing paths it matches (as the shell would) besides itself.
func (g *guarder) expand(word, base string, literal bool) []string {
	switch {
	case word == "~" || strings.HasPrefix(word, "~/"):
		if g.home == "" {
			return nil
		}
		word = g.home + word[1:]
	case strings.HasPrefix(word, "~"):
		return nil // another user's home
	}
	raw := word
	if !filepath.IsAbs(word) {
		if base == "" {
			return nil
		}
		raw = base + string(filepath.Separator) + word
	}
	out := []string{raw}
	if !literal && hasGlobMeta(word) {
		out = append(out, g.glob(filepath.Clean(raw))...)
	}
	return out
}

func hasGlobMeta(w string) bool { return strings.ContainsAny(w, "*?[") }

// glob lists the existing paths an absolute pattern matches, as bash does
// by default: a leading dot must be matched explicitly (unless dotglob),
// and ** is *. Only paths that can matter are kept (see relevant), so that
// a pattern over the whole file system costs little and no cap hides the
// one match that counts.
func (g *guarder) glob(pattern string) []string {
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	cur := []string{"/"}
	if vol := filepath.VolumeName(pattern); vol != "" {
		cur = []string{vol + "/"}
		segs[0] = ""
	}
	var parts []string
	for _, seg := range segs {
		if seg != "" {
			parts = append(parts, seg)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	anyName := g.namesMatter(parts[len(parts)-1])
	seen := map[string]bool{} // real paths reached through links
	links := 0
	for _, seg := range parts {
		var next []string
		extra := 0 // matches kept for their name or through a link: capped
		for _, dir := range cur {
			if !hasGlobMeta(seg) {
				next = append(next, path.Join(dir, seg))
				continue
			}
			if !g.spend() {
				return nil
			}
			entries, err := os.ReadDir(filepath.FromSlash(dir))
			if err != nil {
				continue
			}
			pat := strings.ReplaceAll(strings.ReplaceAll(seg, "[!", "[^"), "**", "*")
			for _, e := range entries {
				name := e.Name()
				if name[0] == '.' && pat[0] != '.' && !g.dotglob {
					continue
				}
				if ok, _ := path.Match(pat, name); !ok {
					continue
				}
				p := path.Join(dir, name)
				switch {
				case g.relevant(filepath.FromSlash(p)):
					next = append(next, p)
				case extra >= guardMaxMatches:
				case e.Type()&fs.ModeSymlink != 0:
					// Kept when it leads somewhere that matters, once
					// per place (/proc/*/root all lead to /).
					if links++; links > guardMaxLinks || !g.spend() {
						continue
					}
					real, err := filepath.EvalSymlinks(filepath.FromSlash(p))
					if err != nil || seen[real] || !g.relevant(real) {
						continue
					}
					seen[real] = true
					next = append(next, p)
					extra++
				case anyName:
					next = append(next, p)
					extra++
				}
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil
		}
	}
	out := make([]string, len(cur))
	for i, p := range cur {
		out[i] = filepath.FromSlash(p)
	}
	return out
}

// namesMatter reports whether a glob's last segment can match a name that
// counts wherever it is: an .npmrc, or a shell startup file when the
// command writes a guarded variable.
func (g *guarder) namesMatter(last string) bool {
	pat := strings.ReplaceAll(last, "[!", "[^")
	if ok, _ := path.Match(pat, ".npmrc"); ok {
		return true
	}
	if g.envText != "" {
		for name := range shellStartupFiles {
			if ok, _ := path.Match(pat, name); ok {
				return true
			}
		}
	}
	return false
}

// relevant reports whether a path found by a glob can matter to the
// guard: it holds the root or the home, or (inside one) it is a protected
// path, lies in one, or holds one.
func (g *guarder) relevant(p string) bool {
	check := func(bases []string, list []guardedPath) bool {
		for _, b := range bases {
			if _, ok := within(p, b); ok {
				return true // p holds b
			}
			rel, ok := within(b, p)
			if !ok {
				continue
			}
			lrel := strings.ToLower(rel)
			for k := range list {
				e := &list[k]
				switch {
				case ancestor(lrel, e.path):
					return true
				case e.kind == guardTree && under(lrel, e.path):
					return true
				case e.kind == guardFile && lrel == e.path:
					return true
				case e.kind == guardGlob:
					if ok, _ := path.Match(e.path, lrel); ok {
						return true
					}
				}
			}
		}
		return false
	}
	return check(g.roots(), rootGuarded) || check(g.homes(), homeGuarded) || check(g.configs(), configGuarded)
}

// configs is the user's configuration folder when XDG_CONFIG_HOME moves it
// out of the home (where homeGuarded already covers it).
func (g *guarder) configs() []string {
	if g.config == "" {
		return nil
	}
	return []string{g.config}
}

// checkDynamic: a target only known at run time is left to the policy,
// unless everything it can name lies in a protected folder (its static
// part already names one: .agent-shell/$X).
func (g *guarder) checkDynamic(word string, op guardOp, bases []string) *GuardDenial {
	i := strings.IndexAny(word, "$`")
	if j := strings.Index(word, "{}"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return nil
	}
	prefix, rest := word[:i], word[i:]
	slash := strings.LastIndexByte(prefix, '/')
	if slash < 0 || hasDotDot(rest) {
		return nil
	}
	dir := prefix[:slash]
	if dir == "" {
		dir = "/"
	}
	for _, b := range bases {
		for _, p := range g.expand(dir, b, true) {
			for _, c := range g.candidates(p, true) {
				for _, rb := range g.roots() {
					rel, ok := within(rb, c)
					if !ok {
						continue
					}
					for k := range rootGuarded {
						e := &rootGuarded[k]
						if e.kind == guardTree && under(strings.ToLower(rel), e.path) {
							target := rel + "/" + rest
							if d := g.denyPath(e, target, op.verb); d != nil {
								return d
							}
						}
					}
				}
			}
		}
	}
	return nil
}

// candidates are the paths a path may really be: as written (cleaned),
// and through the symbolic links that exist now (the final one only when
// op follows it).
func (g *guarder) candidates(raw string, follow bool) []string {
	clean := filepath.Clean(raw)
	out := []string{clean}
	if phys, ok := g.physical(raw, follow); ok && phys != clean {
		out = append(out, phys)
	}
	return out
}

// physical resolves the symbolic links of the deepest existing ancestor of
// raw (of raw itself when follow), the way the kernel walks it: a ".."
// after a link climbs from the link's target.
func (g *guarder) physical(raw string, follow bool) (string, bool) {
	sep := string(filepath.Separator)
	comps := strings.Split(raw, sep)
	if len(comps) > 128 {
		return "", false
	}
	last := len(comps) - 1
	if follow || comps[last] == "." || comps[last] == ".." || comps[last] == "" {
		last = len(comps)
	}
	for k := last; k >= 1; k-- {
		prefix := strings.Join(comps[:k], sep)
		if prefix == "" {
			prefix = sep
		}
		if _, err := g.lstat(prefix); err != nil {
			if errors.Is(err, errBudget) {
				return "", false
			}
			continue
		}
		if !g.spend() {
			return "", false
		}
		real, err := filepath.EvalSymlinks(prefix)
		if err != nil {
			return "", false
		}
		return filepath.Clean(real + sep + strings.Join(comps[k:], sep)), true
	}
	return "", false
}

// roots are the root as given and as resolved.
func (g *guarder) roots() []string {
	switch {
	case g.root == "":
		return nil
	case g.realRoot == g.root:
		return []string{g.root}
	}
	return []string{g.root, g.realRoot}
}

func (g *guarder) homes() []string {
	switch {
	case g.home == "":
		return nil
	case g.realHome == g.home:
		return []string{g.home}
	}
	return []string{g.home, g.realHome}
}

// within returns p relative to base, slash-separated ("" for base itself),
// and whether p is base or under it.
func within(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return rel, true
}

// under reports whether rel is dir or lies under it.
func under(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// ancestor reports whether rel ("" for the root) strictly contains p.
func ancestor(rel, p string) bool {
	return rel == "" || strings.HasPrefix(p, rel+"/")
}

// checkPath checks one absolute path (not yet cleaned) an op writes.
func (g *guarder) checkPath(raw string, op guardOp) *GuardDenial {
	follow := op.follow || strings.HasSuffix(op.word, "/")
	for _, c := range g.candidates(raw, follow) {
		for _, rb := range g.roots() {
			if rel, ok := within(rb, c); ok {
				if d := g.classify(rb, rel, op, rootGuarded, ""); d != nil {
					return d
				}
				if d := g.checkNpmrc(rb, rel, op); d != nil {
					return d
				}
			} else if d := g.classifyAncestor(c, rb, op, rootGuarded, ""); d != nil {
				return d
			}
		}
		for _, hb := range g.homes() {
			if rel, ok := within(hb, c); ok {
				if d := g.classify(hb, rel, op, homeGuarded, "~/"); d != nil {
					return d
				}
			} else if d := g.classifyAncestor(c, hb, op, homeGuarded, "~/"); d != nil {
				return d
			}
		}
		for _, cb := range g.configs() {
			if rel, ok := within(cb, c); ok {
				if d := g.classify(cb, rel, op, configGuarded, "$XDG_CONFIG_HOME/"); d != nil {
					return d
				}
			} else if d := g.classifyAncestor(c, cb, op, configGuarded, "$XDG_CONFIG_HOME/"); d != nil {
				return d
			}
		}
		if d := g.checkStartupFile(c); d != nil {
			return d
		}
	}
	return nil
}

// classifyAncestor: a tree op on c, an ancestor of base (the root or the
// home), reaches everything under base.
func (g *guarder) classifyAncestor(c, base string, op guardOp, list []guardedPath, show string) *GuardDenial {
	if !op.tree {
		return nil
	}
	below, ok := within(c, base)
	if !ok {
		return nil
	}
	if op.src != "" {
		op.src = filepath.Join(op.src, filepath.FromSlash(below))
	}
	g.at = filepath.ToSlash(c)
	defer func() { g.at = "" }()
	return g.classify(base, "", op, list, show)
}

// classify checks rel (relative to base, the root or the home) against the
// protected paths: rel is one, lies in one, or (for a tree op) holds one
// that exists.
func (g *guarder) classify(base, rel string, op guardOp, list []guardedPath, show string) *GuardDenial {
	lrel := strings.ToLower(rel)
	for k := range list {
		e := &list[k]
		hit := false
		switch e.kind {
		case guardTree:
			hit = under(lrel, e.path)
		case guardFile:
			hit = lrel == e.path
		case guardGlob:
			hit, _ = path.Match(e.path, lrel)
		}
		if hit {
			if d := g.denyPath(e, show+rel, op.verb); d != nil {
				return d
			}
		}
	}
	if !op.tree {
		return nil
	}
	at := show + rel
	switch {
	case g.at != "":
		at = g.at // an ancestor of the root or the home
	case rel == "" && show == "":
		at = "the repository root"
	case rel == "":
		at = "the home folder"
	}
	for k := range list {
		e := &list[k]
		if lrel != "" && !ancestor(lrel, e.path) {
			continue
		}
		targets := g.existing(base, e)
		if op.src != "" {
			// A copy writes what its source holds, whether or not the
			// destination has it yet.
			targets = g.fromSource(op.src, lrel, e)
		}
		for _, target := range targets {
			if d := g.denyAncestor(e, at, show+target, op.verb); d != nil {
				return d
			}
		}
	}
	if show == "" && lrel == "" && g.npmrcHasLine(filepath.Join(base, ".npmrc")) {
		if op.src == "" || len(g.fromSource(op.src, lrel, &guardedPath{path: ".npmrc", kind: guardFile})) > 0 {
			return g.denyNpm(".npmrc", fmt.Sprintf("%s %s and with it .npmrc", op.verb, at))
		}
	}
	return nil
}

// existing lists the paths of a protected entry that exist under base,
// relative to it.
func (g *guarder) existing(base string, e *guardedPath) []string {
	switch e.kind {
	case guardGlob:
		dir := path.Dir(e.path)
		if !g.spend() {
			return nil
		}
		entries, err := os.ReadDir(filepath.Join(base, filepath.FromSlash(dir)))
		if err != nil {
			return nil
		}
		var out []string
		for _, en := range entries {
			if ok, _ := path.Match(path.Base(e.path), strings.ToLower(en.Name())); ok {
				out = append(out, dir+"/"+en.Name())
			}
		}
		return out
	}
	if g.exists(filepath.Join(base, filepath.FromSlash(e.path))) {
		return []string{e.path}
	}
	return nil
}

// fromSource lists the paths of a protected entry that a recursive copy
// of src into lrel (lower case, an ancestor of the entry) writes: those
// whose part below lrel src holds.
func (g *guarder) fromSource(src, lrel string, e *guardedPath) []string {
	below := func(p string) string {
		if lrel == "" {
			return p
		}
		return strings.TrimPrefix(p, lrel+"/")
	}
	if e.kind != guardGlob {
		if g.exists(filepath.Join(src, filepath.FromSlash(below(e.path)))) {
			return []string{e.path}
		}
		return nil
	}
	dir := path.Dir(e.path)
	if !g.spend() {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(src, filepath.FromSlash(below(dir))))
	if err != nil {
		return nil
	}
	var out []string
	for _, en := range entries {
		if ok, _ := path.Match(path.Base(e.path), strings.ToLower(en.Name())); ok {
			out = append(out, dir+"/"+en.Name())
		}
	}
	return out
}

// checkNpmrc: a write to an .npmrc anywhere under the root counts when it
// can change npm's script-shell: the file has a script-shell line (a
// shell write or a whole-file write can drop it; an edit must mention
// it), the text mentions script-shell, or (for a shell write, which
// shows no content) the root's .npmrc has one that a new file below could
// override.
func (g *guarder) checkNpmrc(base, rel string, op guardOp) *GuardDenial {
	if strings.ToLower(path.Base(rel)) != ".npmrc" {
		return nil
	}
	file := filepath.Join(base, filepath.FromSlash(rel))
	switch {
	case g.scriptShell:
	case (g.shell || g.whole || op.removal) && g.npmrcHasLine(file):
	case g.shell && rel != ".npmrc" && g.rootNpmrcHasLine(base):
	default:
		return nil
	}
	return g.denyNpm(rel, op.verb+" "+rel)
}

func (g *guarder) rootNpmrcHasLine(base string) bool {
	if g.rootNpmrc == 0 {
		g.rootNpmrc = -1
		if g.npmrcHasLine(filepath.Join(base, ".npmrc")) {
			g.rootNpmrc = 1
		}
	}
	return g.rootNpmrc == 1
}

// npmrcHasLine reports whether an .npmrc sets script-shell (reading at
// most guardMaxNpmrc bytes of it).
func (g *guarder) npmrcHasLine(file string) bool {
	b, ok := g.readRegular(file, guardMaxNpmrc)
	return ok && npmrcLineRE().Match(b)
}

// readRegular reads at most max bytes of a regular file. Anything else (a
// FIFO, a terminal, a device) is not read: the hook must never block on
// what a command names.
func (g *guarder) readRegular(file string, max int64) ([]byte, bool) {
	if !g.spend() {
		return nil, false
	}
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false // swapped since the first look
	}
	b, err := io.ReadAll(io.LimitReader(f, max))
	return b, err == nil
}

// checkStartupFile: writing a guarded variable's assignment into a shell
// startup file sets it for every later command.
func (g *guarder) checkStartupFile(p string) *GuardDenial {
	if g.envText == "" || !shellStartupFiles[strings.ToLower(filepath.Base(p))] {
		return nil
	}
	name := envWriteRE().FindStringSubmatch(g.envText)[1]
	return g.denyEnv(name, "writes into "+filepath.Base(p)+" an assignment of")
}

// --- tools -----------------------------------------------------------------

// pathKeys are the input fields that name the file an edit tool writes.
var pathKeys = []string{"file_path", "path", "filePath", "absolute_path", "notebook_path", "target_file",
	"targetFile", "file", "filename", "fileName", "destination", "dest", "new_path", "newPath", "old_path",
	"oldPath", "source", "target"}

// patchKeys are the input fields that may hold patch text.
var patchKeys = []string{"command", "patch", "patchText", "patch_text", "input", "diff"}

// writeVerbs name tools that change files, by a word of their name.
var writeVerbs = map[string]bool{
	"write": true, "edit": true, "create": true, "delete": true, "remove": true, "rm": true, "move": true,
	"rename": true, "patch": true, "replace": true, "multiedit": true, "insert": true, "append": true,
	"copy": true, "mkdir": true, "save": true, "overwrite": true, "modify": true, "apply": true, "update": true,
	"unlink": true, "truncate": true,
}

// tool checks an edit or write tool's call.
func (g *guarder) tool(ev *hostapi.Event) *GuardDenial {
	switch ev.Tool {
	case hostapi.ToolRead, hostapi.ToolWebFetch, hostapi.ToolBash:
		return nil
	}
	native := ev.NativeTool
	if native == "" {
		native = ev.Tool
	}
	words := nameWords(native)
	writes := ev.Tool == hostapi.ToolEdit || ev.Tool == hostapi.ToolWrite
	for _, w := range words {
		if writeVerbs[w] {
			writes = true
		}
	}
	if !writes {
		return nil
	}
	g.subject = "this " + native + " call"
	var in map[string]any
	var text string
	if len(ev.Input) > 0 {
		if err := json.Unmarshal(ev.Input, &in); err != nil {
			_ = json.Unmarshal(ev.Input, &text)
		}
	}
	if c, ok := in["command"].(string); ok && (c == "view" || c == "read") {
		return nil // a text editor tool's read
	}
	removal := false
	for _, w := range words {
		switch w {
		case "delete", "remove", "rm", "unlink":
			removal = true
		case "write", "create", "overwrite", "save":
			g.whole = true
		}
	}
	if ev.Tool == hostapi.ToolWrite {
		g.whole = true
	}
	content := contentStrings(in, text)
	g.scriptShell = scriptShellRE().MatchString(content)
	g.envText = envWriteRE().FindString(content)

	paths := inputPaths(in)
	verb := "writes"
	if removal {
		verb = "removes"
	}
	for _, p := range paths {
		op := guardOp{word: p, verb: verb, follow: !removal, tree: removal, literal: true, removal: removal}
		if d := g.checkOp(op, []string{g.cwd}); d != nil {
			return d
		}
	}
	patch := text
	for _, k := range patchKeys {
		if s := stringOrLines(in[k]); s != "" && patch == "" {
			patch = s
		}
	}
	if patch == "" {
		return nil
	}
	isPatch := containsWord(words, "patch") || strings.Contains(strings.ToLower(native), "patch")
	if !isPatch && len(paths) > 0 {
		return nil
	}
	hdrs := patchHeaders(patch)
	if len(hdrs) == 0 {
		// A patch tool's patch that cannot be read: what it mentions
		// decides.
		if isPatch && len(paths) == 0 {
			if m := protectedMention(patch); m != "" {
				return g.deny(guardOf(m), m, fmt.Sprintf("agent-shell guard %s: %s holds a patch that cannot be read and mentions %s, which an agent may not change. %s",
					guardOf(m), g.subject, m, fixFor(m)))
			}
		}
		return nil
	}
	return g.checkPatch(hdrs, []string{g.cwd})
}

// nameWords splits a tool name into lower-case words: on punctuation and
// at camelCase humps ("mcp__fs__write_file" gives mcp fs write file).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	words = append(words, strings.ToLower(name)) // "MultiEdit" is also "multiedit"
	return words
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// inputPaths are the paths an edit tool's input names: its path fields,
// and those of the entries of its edits (MultiEdit, pre_write_code...).
func inputPaths(in map[string]any) []string {
	var out []string
	add := func(m map[string]any) {
		for _, k := range pathKeys {
			switch v := m[k].(type) {
			case string:
				if v != "" {
					out = append(out, v)
				}
			case []any:
				for _, x := range v {
					if s, ok := x.(string); ok && s != "" {
						out = append(out, s)
					}
				}
			}
		}
	}
	if in == nil {
		return nil
	}
	add(in)
	for _, k := range []string{"edits", "files", "changes", "paths"} {
		if list, ok := in[k].([]any); ok {
			for _, x := range list {
				switch v := x.(type) {
				case map[string]any:
					add(v)
				case string:
					if k == "paths" || k == "files" {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

// contentStrings joins every string of a tool's input (the text it writes
// among them), for the script-shell and variable checks.
func contentStrings(in map[string]any, text string) string {
	var b strings.Builder
	b.WriteString(text)
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 8 {
			return
		}
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, y := range x {
				walk(y, depth+1)
			}
		case map[string]any:
			for _, y := range x {
				walk(y, depth+1)
			}
		}
	}
	walk(in, 0)
	return b.String()
}

// stringOrLines reads a string, or an array of strings joined by lines
// (Codex's argv form: ["apply_patch", "*** Begin Patch..."]).
func stringOrLines(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, y := range x {
			if s, ok := y.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// --- patches ---------------------------------------------------------------

// patchHeader is one file a patch touches.
type patchHeader struct {
	path string
	op   string // "add", "update", "delete", "move", "diff"
}

var (
	codexHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?mi)^[ \t]*\*\*\*[ \t]*(add file|update file|delete file|move to)[ \t]*:[ \t]*(.*?)[ \t\r]*$`)
	})
	diffHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:(?:\+\+\+|---)[ \t]+([^\t\r\n]+)|diff --git[ \t]+(\S+)[ \t]+(\S+)|(?:rename|copy) (?:from|to) ([^\r\n]+?)|Index: ([^\r\n]+?))[ \t\r]*$`)
	})
)

// patchHeaders reads the files a patch touches: Codex's apply_patch
// headers and unified diff headers.
func patchHeaders(text string) []patchHeader {
	var out []patchHeader
	for _, m := range codexHeaderRE().FindAllStringSubmatch(text, -1) {
		if m[2] == "" {
			continue
		}
		op := strings.Fields(strings.ToLower(m[1]))[0]
		if op == "move" && len(out) > 0 && out[len(out)-1].op == "update" {
			out[len(out)-1].op = "movefrom" // the updated file moves away
		}
		out = append(out, patchHeader{path: m[2], op: op})
	}
	for _, m := range diffHeaderRE().FindAllStringSubmatch(text, -1) {
		for _, p := range m[1:] {
			p = strings.Trim(strings.TrimSpace(p), `"`)
			if p != "" && p != "/dev/null" {
				out = append(out, patchHeader{path: p, op: "diff"})
			}
		}
	}
	return out
}

// checkPatch checks the files of a patch. Paths are relative to the
// command's directory or, for git apply, to the root; a unified diff's may
// carry leading components to strip (a/, b/, -pN), so each is tried.
func (g *guarder) checkPatch(hdrs []patchHeader, cwds []string) *GuardDenial {
	bases := append([]string(nil), cwds...)
	if g.root != "" {
		bases = append(bases, g.root)
	}
	saved := g.whole
	defer func() { g.whole = saved }()
	for _, h := range hdrs {
		op := guardOp{verb: "patches", follow: true, literal: true}
		g.whole = saved
		switch h.op {
		case "delete":
			op.verb, op.removal, op.follow = "deletes by a patch", true, false
		case "movefrom":
			op.verb, op.removal, op.follow = "moves away by a patch", true, false
		case "add":
			op.verb = "creates by a patch"
			g.whole = true // the file's text is replaced as a whole
		case "move":
			op.verb = "moves a file by a patch onto"
			g.whole = true
		}
		forms := []string{h.path}
		if h.op == "diff" {
			p := h.path
			for i := 0; i < 3; i++ {
				j := strings.IndexByte(p, '/')
				if j < 0 {
					break
				}
				p = p[j+1:]
				forms = append(forms, p)
			}
		}
		for _, f := range forms {
			op.word = f
			if d := g.checkOp(op, bases); d != nil {
				return d
			}
		}
	}
	return nil
}

// protectedMarkers are the names whose mention in an unreadable patch or
// an overlong command counts as touching a protected path.
var protectedMarkers = []string{".github/hooks/agent-shell", ".agent-shell/", ".github/hooks/", ".claude/settings",
	".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json", ".cursor/hooks.json",
	".opencode/plugins/agent-shell.js", ".amp/settings.json", "script-shell", "script_shell",
	"AGENTSHELL_PASSTHROUGH", "AGENTSHELL_POLICY_PATH", "AGENTSHELL_LOG_DIR", "AGENTSHELL_ACTOR"}

func protectedMention(text string) string {
	lower := strings.ToLower(text)
	for _, m := range protectedMarkers {
		if strings.Contains(lower, strings.ToLower(m)) {
			return m
		}
	}
	return ""
}

func guardOf(marker string) string {
	switch {
	case strings.HasPrefix(marker, ".github/hooks/agent-shell") || strings.HasPrefix(marker, ".agent-shell"):
		return GuardAgentShellFiles
	case strings.HasPrefix(marker, "AGENTSHELL_"):
		return GuardAgentShellEnv
	case strings.HasPrefix(marker, "script"):
		return GuardNpmScriptShell
	}
	return GuardHookRegistration
}

func fixFor(marker string) string {
	switch guardOf(marker) {
	case GuardAgentShellFiles:
		return fixConfig
	case GuardNpmScriptShell:
		return fixNpm
	case GuardAgentShellEnv:
		return "A human sets it in their own shell."
	}
	return "A human edits it, or runs 'agent-shell hook install'."
}

// --- shell commands --------------------------------------------------------

// line checks a parsed command line, each command from each directory the
// line may have changed to.
func (g *guarder) line(l *shellcmd.Line, cwds []string, depth int) *GuardDenial {
	for _, a := range l.Assigns {
		if d := g.checkAssign(a, "sets"); d != nil {
			return d
		}
	}
	for i := range l.Commands {
		if d := g.command(&l.Commands[i], &cwds, depth); d != nil {
			return d
		}
	}
	if depth == 0 && g.patchy {
		bases := append(append([]string(nil), cwds...), g.patchBases...)
		if d := g.checkPatch(patchHeaders(g.raw), bases); d != nil {
			return d
		}
		for _, pf := range g.patchFiles {
			if d := g.checkPatchFile(pf, cwds, bases); d != nil {
				return d
			}
		}
	}
	return nil
}

// checkPatchFile reads a patch file a command applies (from cwds, or its
// own base) and checks the files it touches (from bases).
func (g *guarder) checkPatchFile(pf patchFile, cwds, bases []string) *GuardDenial {
	from := cwds
	if pf.base != "" {
		from = []string{pf.base}
	}
	if pf.path == "" || pf.path == "-" || dynamicWord(pf.path) {
		return nil
	}
	for _, b := range from {
		for _, p := range g.expand(pf.path, b, true) {
			data, ok := g.readRegular(filepath.Clean(p), guardMaxPatch)
			if !ok {
				continue
			}
			if d := g.checkPatch(patchHeaders(string(data)), bases); d != nil {
				return d
			}
		}
	}
	return nil
}

// command checks one simple command: its assignments, each layer's write
// operands, its redirections, and a shell body the parser could not read.
func (g *guarder) command(c *shellcmd.Command, cwds *[]string, depth int) *GuardDenial {
	for _, a := range c.Assigns {
		if d := g.checkAssign(a, "sets"); d != nil {
			return d
		}
	}
	if len(c.Argv) > 0 && (c.Argv[0] == "cd" || c.Argv[0] == "pushd") {
		g.chdir(c.Argv, cwds)
	}
	var roots []string // find's starting points, for {} in what it runs
	for li, layer := range c.Layers {
		if len(layer) == 0 {
			continue
		}
		if li == len(c.Layers)-1 && li > 0 && c.Implied == "find -delete" && g.findSparesProtected(c.Layers[li-1], *cwds) {
			continue // guard_find.go: its name tests match no protected file
		}
		if d := g.guardLayer(layer, *cwds, roots); d != nil {
			return d
		}
		if layer[0] == "find" && li < len(c.Layers)-1 {
			roots = findRoots(layer[1:])
			if g.findSparesProtected(layer, *cwds) {
				roots = nil // guard_find.go: {} matches no protected file
			}
		}
	}
	if appliesPatch(c.Argv) {
		// The patch may come on stdin: patch -p1 < fix.diff.
		for _, r := range c.Redirects {
			if r.File && !r.Write && !r.Dynamic {
				for _, cwd := range *cwds {
					g.patchFiles = append(g.patchFiles, patchFile{path: r.Target, base: cwd})
				}
			}
		}
	}
	for _, r := range c.Redirects {
		if !r.File || !r.Write || strings.HasPrefix(r.Target, ">(") || strings.HasPrefix(r.Target, "<(") {
			continue
		}
		if d := g.checkOp(guardOp{word: r.Target, verb: "writes", follow: true}, *cwds); d != nil {
			return d
		}
	}
	if c.Unknown != "" && depth < guardMaxDepth {
		for _, layer := range c.Layers {
			if body := shellBody(layer); body != "" {
				if d := g.line(shellcmd.Parse(body), *cwds, depth+1); d != nil {
					return d
				}
			}
		}
	}
	return nil
}

// appliesPatch reports a command that applies a patch: patch, apply_patch,
// git apply, git am.
func appliesPatch(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch argv[0] {
	case "patch", "apply_patch", "applypatch":
		return true
	case "git":
		sub, _ := gitSubcommand(argv[1:])
		return sub == "apply" || sub == "am"
	}
	return false
}

// gitSubcommand finds git's subcommand after its global options, and the
// index of the word after it.
func gitSubcommand(args []string) (string, int) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		if gitGlobal[args[i]] {
			i++
		}
	}
	if i >= len(args) {
		return "", len(args)
	}
	return args[i], i + 1
}

// shellBody is the script of a shell layer the parser could not read
// statically (sh -c "rm $X", eval "..."), as source text.
func shellBody(layer []string) string {
	switch layer[0] {
	case "eval":
		return strings.Join(layer[1:], " ")
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh":
		for i := 1; i < len(layer)-1; i++ {
			a := layer[i]
			if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'c') {
				return layer[i+1]
			}
		}
	}
	return ""
}

// chdir follows a static cd or pushd: its target joins the candidate
// directories (the ones before stay, since a subshell or a failed cd leaves
// them in force).
func (g *guarder) chdir(argv []string, cwds *[]string) {
	var dir string
	for _, a := range argv[1:] {
		if a == "--" || strings.HasPrefix(a, "-") && a != "-" && len(a) <= 3 {
			continue
		}
		dir = a
		break
	}
	switch {
	case dir == "" || dir == "~":
		dir = g.home
	case dir == "-" || dynamicWord(g.substituteKnown(dir)):
		return
	case strings.HasPrefix(dir, "~/"):
		dir = g.home + dir[1:]
	}
	dir = g.substituteKnown(dir)
	if dir == "" {
		return
	}
	var add []string
	for _, c := range *cwds {
		var next string
		if filepath.IsAbs(dir) {
			next = filepath.Clean(dir)
		} else if c != "" {
			next = filepath.Join(c, dir)
		}
		if next != "" && !containsWord(*cwds, next) && !containsWord(add, next) {
			add = append(add, next)
		}
	}
	for _, a := range add {
		if len(*cwds) >= guardMaxCwds {
			break
		}
		*cwds = append(*cwds, a)
	}
}

// checkAssign checks NAME=value (or NAME+=, NAME[i]=, or a bare NAME to
// export).
func (g *guarder) checkAssign(a, how string) *GuardDenial {
	name := a
	if i := strings.IndexAny(name, "+=["); i >= 0 {
		name = name[:i]
	}
	up := strings.ToUpper(name)
	if _, ok := guardedEnv[up]; ok {
		return g.denyEnv(up, how)
	}
	if up == "NPM_CONFIG_SCRIPT_SHELL" || up == "NPM_CONFIG_SCRIPT-SHELL" {
		return g.denyNpm("npm_config_script_shell", how+" "+name+", which overrides script-shell")
	}
	return nil
}

// argSpec describes a program's options: which short and long options take
// an argument, so that it is not taken for an operand.
type argSpec struct {
	shortArg string   // short options with an argument, attached or the next word
	attached string   // short options with an optional argument, only attached (sed -i[SUF])
	longArg  []string // long options that take the next word when not written --name=V
}

// parsedArgs is a command's arguments split by an argSpec.
type parsedArgs struct {
	operands []string
	opts     []optVal
}

type optVal struct{ name, val string } // name: the letter, or the long name

func (s argSpec) parse(args []string) parsedArgs {
	var p parsedArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case strings.HasPrefix(a, "--"):
			n, v, eq := strings.Cut(a[2:], "=")
			if !eq && containsWord(s.longArg, n) && i+1 < len(args) {
				v = args[i+1]
				i++
			}
			p.opts = append(p.opts, optVal{n, v})
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch {
				case strings.IndexByte(s.attached, c) >= 0:
					p.opts = append(p.opts, optVal{string(c), a[j+1:]})
					j = len(a)
				case strings.IndexByte(s.shortArg, c) >= 0:
					v := a[j+1:]
					if v == "" && i+1 < len(args) {
						v = args[i+1]
						i++
					}
					p.opts = append(p.opts, optVal{string(c), v})
					j = len(a)
				default:
					p.opts = append(p.opts, optVal{name: string(c)})
				}
			}
		default:
			p.operands = append(p.operands, a)
		}
	}
	return p
}

func (p parsedArgs) has(names ...string) bool {
	for _, o := range p.opts {
		if containsWord(names, o.name) {
			return true
		}
	}
	return false
}

func (p parsedArgs) values(names ...string) []string {
	var out []string
	for _, o := range p.opts {
		if containsWord(names, o.name) {
			out = append(out, o.val)
		}
	}
	return out
}

var (
	specNone     = argSpec{}
	specCp       = argSpec{shortArg: "St", longArg: []string{"suffix", "target-directory"}}
	specInstall  = argSpec{shortArg: "gmoSt", longArg: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"}}
	specTouch    = argSpec{shortArg: "dtr", longArg: []string{"date", "reference", "time"}}
	specTruncate = argSpec{shortArg: "sr", longArg: []string{"size", "reference"}}
	specMkdir    = argSpec{shortArg: "m", longArg: []string{"mode", "context"}}
	specSed      = argSpec{shortArg: "efl", attached: "i", longArg: []string{"expression", "file", "line-length"}}
	specPerl     = argSpec{shortArg: "eE", attached: "iIMmxl0CdDF"}
	specRuby     = argSpec{shortArg: "eErIC", attached: "i0FKTWx"}
	specSort     = argSpec{shortArg: "okStT", longArg: []string{"output", "key", "buffer-size", "field-separator", "temporary-directory", "files0-from", "compress-program", "parallel", "batch-size"}}
	specRsync    = argSpec{shortArg: "eTfBM", longArg: []string{"exclude", "include", "filter", "rsh", "rsync-path", "temp-dir",
		"backup-dir", "link-dest", "compare-dest", "copy-dest", "files-from", "exclude-from", "include-from", "log-file",
		"partial-dir", "suffix", "chmod", "chown", "timeout", "port", "password-file", "bwlimit", "max-size", "min-size",
		"max-delete", "block-size", "out-format"}}
	specChattr = argSpec{shortArg: "vp"}
	specGzip   = argSpec{shortArg: "S", longArg: []string{"suffix"}}
	specPatch  = argSpec{shortArg: "BDFVYzdioprg", longArg: []string{"prefix", "ifdef", "fuzz", "version-control",
		"basename-prefix", "suffix", "directory", "input", "output", "strip", "reject-file", "get", "quoting-style", "backup-if-mismatch"}}
	specGitCheckout = argSpec{shortArg: "bBU", longArg: []string{"orphan", "conflict", "pathspec-from-file"}}
	specGitRestore  = argSpec{shortArg: "s", longArg: []string{"source", "conflict", "pathspec-from-file"}}
	specGitClean    = argSpec{shortArg: "e", longArg: []string{"exclude"}}
	specAwk         = argSpec{shortArg: "fvFiE", longArg: []string{"file", "assign", "field-separator", "include", "exec"}}
	specYq          = argSpec{shortArg: "oIpP", longArg: []string{"output-format", "indent", "input-format", "front-matter"}}
)

// editors change the files they open.
var editors = map[string]bool{"ed": true, "ex": true, "vi": true, "vim": true, "nvim": true, "nano": true, "pico": true,
	"emacs": true, "micro": true, "hx": true, "kak": true, "joe": true, "mcedit": true, "sponge": true,
	"mkfifo": true, "mknod": true, "dos2unix": true, "unix2dos": true}

// guardLayer checks one layer of a command: the write operands of the
// programs that write their arguments. findRoots, when the layer runs
// under find -exec, stand for its {}.
func (g *guarder) guardLayer(argv []string, cwds []string, findRoots []string) *GuardDenial {
	if findRoots != nil {
		// {} is any path under find's starting points.
		for _, a := range argv[1:] {
			if strings.Contains(a, "{}") {
				for _, r := range findRoots {
					if d := g.layerOps(substituteAll(argv, "{}", r), cwds, true); d != nil {
						return d
					}
				}
				return nil
			}
		}
	}
	return g.layerOps(argv, cwds, false)
}

func substituteAll(argv []string, old, new string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, old, new)
	}
	return out
}

// layerOps checks the write operands of one program. underFind: the
// operands stand for whole trees (find's {}).
func (g *guarder) layerOps(argv []string, cwds []string, underFind bool) *GuardDenial {
	prog, args := argv[0], argv[1:]
	check := func(op guardOp) *GuardDenial {
		if underFind {
			op.tree = true
		}
		return g.checkOp(op, cwds)
	}
	each := func(words []string, op guardOp) *GuardDenial {
		for _, w := range words {
			op.word = w
			if d := check(op); d != nil {
				return d
			}
		}
		return nil
	}
	switch prog {
	case "export", "declare", "typeset", "local", "readonly":
		p := specNone.parse(args)
		nameref := p.has("n")
		for _, a := range args {
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
				continue
			}
			if d := g.checkAssign(a, "sets"); d != nil {
				return d
			}
			if _, v, ok := strings.Cut(a, "="); ok && nameref {
				if d := g.checkAssign(v, "makes a reference to"); d != nil {
					return d
				}
			}
		}
	case "read", "mapfile", "readarray", "printf", "getopts", "let":
		for _, a := range args {
			name := a
			if i := strings.IndexAny(name, "+=["); i >= 0 {
				name = name[:i]
			}
			if _, ok := guardedEnv[strings.ToUpper(name)]; ok {
				return g.checkAssign(name, "sets")
			}
		}
	case "rm", "unlink", "rmdir":
		p := specNone.parse(args)
		tree := prog == "rm" && p.has("r", "R", "recursive")
		return each(p.operands, guardOp{verb: "removes", tree: tree, removal: true})
	case "shred":
		p := argSpec{shortArg: "ns", longArg: []string{"iterations", "size", "random-source"}}.parse(args)
		return each(p.operands, guardOp{verb: "overwrites", follow: true, removal: true})
	case "touch":
		return each(specTouch.parse(args).operands, guardOp{verb: "writes", follow: true})
	case "truncate":
		return each(specTruncate.parse(args).operands, guardOp{verb: "truncates", follow: true, removal: true})
	case "mkdir":
		return each(specMkdir.parse(args).operands, guardOp{verb: "creates"})
	case "tee":
		return each(specNone.parse(args).operands, guardOp{verb: "writes", follow: true})
	case "chmod", "chown", "chgrp", "chattr":
		spec := specNone
		if prog == "chattr" {
			spec = specChattr
		}
		// The mode or owner is checked too: it names no protected path.
		return each(spec.parse(args).operands, guardOp{verb: "changes the permissions of", tree: true})
	case "sed":
		p := specSed.parse(args)
		if !p.has("i", "in-place") {
			return nil
		}
		files := p.operands
		if !p.has("e", "f", "expression", "file") && len(files) > 0 {
			files = files[1:]
		}
		return each(files, guardOp{verb: "edits", follow: true, removal: true})
	case "perl", "ruby":
		spec := specPerl
		if prog == "ruby" {
			spec = specRuby
		}
		p := spec.parse(args)
		if !p.has("i") {
			return nil
		}
		files := p.operands
		if !p.has("e", "E") && len(files) > 0 {
			files = files[1:]
		}
		return each(files, guardOp{verb: "edits", follow: true, removal: true})
	case "awk", "gawk":
		p := specAwk.parse(args)
		if !containsWord(p.values("i", "include"), "inplace") {
			return nil
		}
		files := p.operands
		if !p.has("f", "file") && len(files) > 0 {
			files = files[1:]
		}
		return each(files, guardOp{verb: "edits", follow: true, removal: true})
	case "yq":
		p := specYq.parse(args)
		if !p.has("i", "inplace") || len(p.operands) == 0 {
			return nil
		}
		return each(p.operands[1:], guardOp{verb: "edits", follow: true, removal: true})
	case "sd":
		p := specNone.parse(args)
		if p.has("p", "preview") || len(p.operands) < 3 {
			return nil
		}
		return each(p.operands[2:], guardOp{verb: "edits", follow: true, removal: true})
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				return check(guardOp{word: v, verb: "writes", follow: true, removal: true})
			}
		}
	case "sort", "shuf":
		return each(specSort.parse(args).values("o", "output"), guardOp{verb: "writes", follow: true, removal: true})
	case "uniq":
		p := argSpec{shortArg: "fsw", longArg: []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}}.parse(args)
		if len(p.operands) > 1 {
			return check(guardOp{word: p.operands[1], verb: "writes", follow: true, removal: true})
		}
	case "curl", "wget":
		for i, a := range args {
			var out string
			switch {
			case a == "--output" || a == "--output-document":
				if i+1 < len(args) {
					out = args[i+1]
				}
			case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-document="):
				out = a[strings.IndexByte(a, '=')+1:]
			case len(a) > 1 && a[0] == '-' && a[1] != '-':
				letter := byte('o')
				if prog == "wget" {
					letter = 'O'
				}
				if k := strings.IndexByte(a, letter); k > 0 {
					out = a[k+1:]
					if out == "" && i+1 < len(args) {
						out = args[i+1]
					}
				}
			}
			if out != "" && out != "-" {
				if d := check(guardOp{word: out, verb: "writes", follow: true, removal: true}); d != nil {
					return d
				}
			}
		}
	case "gzip", "bzip2", "xz", "lzma", "lzip", "zstd", "gunzip", "bunzip2", "unxz", "unlzma", "unzstd", "compress", "uncompress":
		p := specGzip.parse(args)
		if p.has("c", "k", "l", "t", "stdout", "to-stdout", "keep", "list", "test") || prog == "zstd" && !p.has("rm") {
			return nil
		}
		if d := each(p.operands, guardOp{verb: "compresses away", removal: true}); d != nil {
			return d
		}
		for _, o := range p.operands { // the file it decompresses to
			if ext := path.Ext(o); ext != "" {
				if d := check(guardOp{word: strings.TrimSuffix(o, ext), verb: "writes", follow: true, removal: true}); d != nil {
					return d
				}
			}
		}
	case "find":
		for i, a := range args {
			if (a == "-fprint" || a == "-fprint0" || a == "-fls" || a == "-fprintf") && i+1 < len(args) {
				if d := check(guardOp{word: args[i+1], verb: "writes", follow: true, removal: true}); d != nil {
					return d
				}
			}
		}
	case "mv", "cp", "install", "rsync", "ln":
		return g.copyOps(prog, args, cwds, check)
	case "git":
		return g.gitOps(args, cwds)
	case "npm", "pnpm", "yarn", "npx", "bun":
		return g.npmOps(prog, args)
	case "agent-shell":
		// authorize --yes needs no terminal: run by an agent it would bless
		// whatever the agent changed. Only a human authorizes.
		for _, a := range args {
			if a == "authorize" {
				return g.deny(GuardAuthorize, "agent-shell authorize", "agent-shell guard "+GuardAuthorize+
					": an agent may not authorize agent-shell's configuration. A human runs 'agent-shell authorize' in their own terminal.")
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	case "apply_patch", "applypatch":
		g.patchy = true
	case "patch":
		g.patchy = true
		p := specPatch.parse(args)
		base := ""
		for _, d := range p.values("d", "directory") {
			base = d
		}
		for _, f := range p.values("i", "input") {
			g.patchFiles = append(g.patchFiles, patchFile{path: f})
		}
		if len(p.operands) > 1 {
			g.patchFiles = append(g.patchFiles, patchFile{path: p.operands[1]})
		}
		if len(p.operands) > 0 {
			if d := g.checkOp(guardOp{word: p.operands[0], verb: "patches", follow: true, removal: true}, g.rebase(cwds, base)); d != nil {
				return d
			}
		}
		if d := each(p.values("o", "output", "r", "reject-file"), guardOp{verb: "writes", follow: true, removal: true}); d != nil {
			return d
		}
		if base != "" {
			g.patchBases = append(g.patchBases, g.rebase(cwds, base)...)
		}
	default:
		if editors[prog] {
			var files []string
			for _, a := range args {
				if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
					files = append(files, a)
				}
			}
			return each(files, guardOp{verb: "edits", follow: true, removal: true})
		}
	}
	return nil
}

// rebase joins dir to each candidate directory ("" leaves them).
func (g *guarder) rebase(cwds []string, dir string) []string {
	if dir == "" {
		return cwds
	}
	dir = g.substituteKnown(dir)
	if dynamicWord(dir) {
		return cwds
	}
	var out []string
	for _, c := range cwds {
		switch {
		case filepath.IsAbs(dir):
			out = append(out, filepath.Clean(dir))
		case strings.HasPrefix(dir, "~/") && g.home != "":
			out = append(out, filepath.Join(g.home, dir[2:]))
		case c != "":
			out = append(out, filepath.Join(c, dir))
		}
	}
	if len(out) == 0 {
		return cwds
	}
	return out
}

// copyOps checks mv, cp, install, rsync and ln: what they write (the
// destination, or each source's name in a destination folder), what mv
// takes away (its sources), and what a link points to.
func (g *guarder) copyOps(prog string, args []string, cwds []string, check func(guardOp) *GuardDenial) *GuardDenial {
	spec := specCp
	switch prog {
	case "install":
		spec = specInstall
	case "rsync":
		spec = specRsync
	}
	p := spec.parse(args)
	ops := p.operands
	if prog == "rsync" {
		var local []string
		for _, o := range ops {
			if !remoteRsync(o) {
				local = append(local, o)
			}
		}
		if len(local) < len(ops) && len(ops) > 0 && remoteRsync(ops[len(ops)-1]) {
			return nil // to another host
		}
		ops = local
	}
	recursive := prog == "mv" || p.has("r", "R", "a", "recursive", "archive")
	if prog == "install" && p.has("d", "directory") {
		return g.eachCheck(ops, guardOp{verb: "creates"}, check)
	}
	target := p.values("t", "target-directory")
	var sources []string
	var dest string
	toDir := false
	switch {
	case len(target) > 0:
		sources, dest, toDir = ops, target[len(target)-1], true
	case prog == "ln" && len(ops) == 1:
		sources, dest, toDir = ops, ".", true
	case len(ops) >= 2:
		sources, dest = ops[:len(ops)-1], ops[len(ops)-1]
		toDir = len(sources) > 1 || strings.HasSuffix(dest, "/") || (!p.has("T", "no-target-directory") && g.isDirAnywhere(dest))
	case len(ops) == 1 && prog == "mv":
		return check(guardOp{word: ops[0], verb: "moves", tree: true, removal: true})
	default:
		return nil
	}
	if prog == "mv" || prog == "rsync" && p.has("remove-source-files") {
		if d := g.eachCheck(sources, guardOp{verb: "moves", tree: prog == "mv", removal: true}, check); d != nil {
			return d
		}
	}
	if prog == "ln" || prog == "cp" && p.has("l", "s", "link", "symbolic-link") {
		// A link to a protected file lets a later write reach it.
		if d := g.eachCheck(sources, guardOp{verb: "makes a link to"}, check); d != nil {
			return d
		}
		if prog == "ln" && p.has("s", "symbolic") {
			// A relative symbolic link points from the folder it is in.
			linkDir := dest
			if !toDir {
				linkDir = path.Dir(dest)
			}
			for _, s := range sources {
				if !path.IsAbs(s) && !dynamicWord(s) && !dynamicWord(linkDir) {
					if d := check(guardOp{word: path.Join(linkDir, s), verb: "makes a link to"}); d != nil {
						return d
					}
				}
			}
		}
	}
	if prog == "rsync" && p.has("delete", "delete-before", "delete-during", "delete-after", "delete-delay", "del", "delete-excluded") {
		if d := check(guardOp{word: dest, verb: "deletes files in", tree: true, removal: true}); d != nil {
			return d
		}
	}
	verb := "writes"
	switch prog {
	case "mv":
		verb = "moves a file onto"
	case "ln":
		verb = "makes a link at"
	}
	for _, s := range sources {
		w := dest
		contents := prog == "rsync" && strings.HasSuffix(s, "/") || prog == "cp" && (strings.HasSuffix(s, "/.") || s == ".")
		if toDir && !contents {
			w = strings.TrimSuffix(dest, "/") + "/" + path.Base(strings.TrimSuffix(s, "/"))
		}
		op := guardOp{word: w, verb: verb, follow: prog != "ln" && prog != "mv", removal: true}
		if recursive && prog != "ln" && !dynamicWord(s) {
			op.tree = true
			op.src = s
		}
		if d := g.copyCheck(op, cwds, check); d != nil {
			return d
		}
	}
	return nil
}

// copyCheck checks a copy's destination; a recursive copy's source is made
// absolute for each candidate directory first.
func (g *guarder) copyCheck(op guardOp, cwds []string, check func(guardOp) *GuardDenial) *GuardDenial {
	if op.src == "" {
		return check(op)
	}
	src := op.src
	op.src = ""
	// A recursive copy writes its destination and, below it, what the
	// source holds.
	if d := check(guardOp{word: op.word, verb: op.verb, follow: op.follow, removal: op.removal}); d != nil {
		return d
	}
	for _, c := range cwds {
		for _, s := range g.expand(src, c, false) {
			o := op
			o.src = filepath.Clean(s)
			if d := check(o); d != nil {
				return d
			}
		}
	}
	return nil
}

func (g *guarder) eachCheck(words []string, op guardOp, check func(guardOp) *GuardDenial) *GuardDenial {
	for _, w := range words {
		op.word = w
		if d := check(op); d != nil {
			return d
		}
	}
	return nil
}

// isDirAnywhere reports whether word names an existing folder from the
// command's directory.
func (g *guarder) isDirAnywhere(word string) bool {
	for _, p := range g.expand(word, g.cwd, true) {
		if !g.spend() {
			return false
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

func remoteRsync(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// gitGlobal are git's options before the subcommand that take a value.
var gitGlobal = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--config-env": true, "--super-prefix": true, "--exec-path": false}

// gitOps checks git subcommands that write the work tree by path:
// checkout and restore of protected paths, rm, mv, clean -x, apply, am,
// config --file.
func (g *guarder) gitOps(args []string, cwds []string) *GuardDenial {
	for i := 0; i < len(args)-1 && strings.HasPrefix(args[i], "-"); i++ {
		if args[i] == "-C" {
			cwds = g.rebase(cwds, args[i+1])
		}
		if gitGlobal[args[i]] {
			i++
		}
	}
	sub, next := gitSubcommand(args)
	if sub == "" {
		return nil
	}
	rest := args[next:]
	check := func(op guardOp) *GuardDenial { return g.checkGitPath(op, cwds) }
	switch sub {
	case "checkout", "restore":
		spec := specGitCheckout
		if sub == "restore" {
			spec = specGitRestore
		}
		// Pathspecs: everything after --; before it, any operand that
		// names a protected path (the others name branches and commits).
		var specs []string
		dashdash := -1
		for k, a := range rest {
			if a == "--" {
				dashdash = k
				break
			}
		}
		if dashdash >= 0 {
			specs = append(specs, rest[dashdash+1:]...)
			specs = append(specs, spec.parse(rest[:dashdash]).operands...)
		} else {
			specs = spec.parse(rest).operands
		}
		return g.eachCheck(specs, guardOp{verb: "restores", follow: true, removal: true}, check)
	case "rm":
		p := argSpec{longArg: []string{"pathspec-from-file"}}.parse(rest)
		return g.eachCheck(p.operands, guardOp{verb: "removes", tree: p.has("r"), removal: true}, check)
	case "mv":
		p := argSpec{}.parse(rest)
		return g.eachCheck(p.operands, guardOp{verb: "moves", tree: true, removal: true}, check)
	case "clean":
		p := specGitClean.parse(rest)
		if p.has("n", "dry-run") || !p.has("x", "X") {
			// Ignored files stay; untracked ones named outright do not.
			if p.has("n", "dry-run") {
				return nil
			}
			return g.eachCheck(p.operands, guardOp{verb: "removes", removal: true}, check)
		}
		specs := p.operands
		if len(specs) == 0 {
			specs = []string{"."}
		}
		return g.eachCheck(specs, guardOp{verb: "removes (with ignored files)", tree: true, removal: true}, check)
	case "apply", "am":
		g.patchy = true
		spec := argSpec{shortArg: "pC", longArg: []string{"directory", "exclude", "include", "whitespace", "build-fake-ancestor"}}
		for _, o := range spec.parse(rest).operands {
			for _, c := range cwds {
				g.patchFiles = append(g.patchFiles, patchFile{path: o, base: c})
			}
		}
	case "config":
		p := argSpec{shortArg: "f", longArg: []string{"file", "blob", "type", "default", "comment", "value"}}.parse(rest)
		if p.has("get", "get-all", "get-regexp", "get-urlmatch", "l", "list", "e", "edit") && !p.has("e", "edit") {
			return nil
		}
		return g.eachCheck(p.values("f", "file"), guardOp{verb: "writes", follow: true, removal: true}, check)
	}
	return nil
}

// checkGitPath checks a pathspec: ":/" and ":(top)" make it root-relative,
// ":!" excludes (ignored), and a glob matches across folders as git's do.
func (g *guarder) checkGitPath(op guardOp, cwds []string) *GuardDenial {
	w := op.word
	switch {
	case strings.HasPrefix(w, ":!") || strings.HasPrefix(w, ":^") || strings.HasPrefix(w, ":(exclude"):
		return nil
	case strings.HasPrefix(w, ":/"):
		w, cwds = w[2:], []string{g.root}
	case strings.HasPrefix(w, ":(top)"):
		w, cwds = w[len(":(top)"):], []string{g.root}
	case strings.HasPrefix(w, ":("):
		if j := strings.IndexByte(w, ')'); j > 0 {
			w = w[j+1:]
		}
	}
	if w == "" {
		w = "."
	}
	op.word = w
	if d := g.checkOp(op, cwds); d != nil {
		return d
	}
	if !hasGlobMeta(w) || dynamicWord(w) || g.root == "" {
		return nil
	}
	// A git pathspec glob's * also matches /: test it against the
	// protected paths that exist.
	for _, c := range cwds {
		relBase, ok := within(g.root, c)
		if !ok {
			continue
		}
		pat := w
		if relBase != "" {
			pat = relBase + "/" + w
		}
		re, err := gitGlobRE(pat)
		if err != nil {
			continue
		}
		for k := range rootGuarded {
			e := &rootGuarded[k]
			for _, target := range g.existingFiles(e) {
				if re.MatchString(strings.ToLower(target)) || re.MatchString(target) {
					if d := g.denyPath(e, target, op.verb); d != nil {
						return d
					}
				}
			}
		}
	}
	return nil
}

// existingFiles lists a protected entry's existing files (a folder's,
// within the budget), root-relative.
func (g *guarder) existingFiles(e *guardedPath) []string {
	if e.kind != guardTree {
		return g.existing(g.root, e)
	}
	var out []string
	dir := filepath.Join(g.root, filepath.FromSlash(e.path))
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !g.spend() {
			return filepath.SkipAll
		}
		if !d.IsDir() {
			if rel, ok := within(g.root, p); ok {
				out = append(out, rel)
			}
		}
		return nil
	})
	return out
}

// gitGlobRE compiles a pathspec glob the way git matches it by default
// (fnmatch without FNM_PATHNAME: * and ? match / too).
func gitGlobRE(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(pat[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// npmOps checks npm's (and pnpm's, yarn's) ways to change script-shell: the
// config commands, and the per-command --script-shell override.
func (g *guarder) npmOps(prog string, args []string) *GuardDenial {
	for _, a := range args {
		n := strings.ToLower(strings.ReplaceAll(a, "_", "-"))
		if n == "--script-shell" || strings.HasPrefix(n, "--script-shell=") {
			return g.denyNpm("--script-shell", "overrides script-shell with "+a)
		}
	}
	var ops []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	verb := ""
	keys := ops[1:]
	switch ops[0] {
	case "config", "c":
		if len(ops) < 2 {
			return nil
		}
		verb, keys = ops[1], ops[2:]
	case "set", "delete", "unset":
		verb = ops[0]
	default:
		return nil
	}
	switch verb {
	case "set", "delete", "rm", "unset", "del":
		for _, k := range keys {
			name, _, _ := strings.Cut(k, "=")
			n := strings.ToLower(strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-"))
			if n == "script-shell" {
				return g.denyNpm("script-shell", fmt.Sprintf("runs %s config %s %s", prog, verb, name))
			}
		}
	case "edit":
		for _, a := range args {
			if strings.Contains(a, "project") {
				return g.denyNpm(".npmrc", fmt.Sprintf("runs %s config edit on the project's .npmrc", prog))
			}
		}
	}
	return nil
}
