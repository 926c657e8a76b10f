package builtins

import (
	"path"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The versions of the bridge values, and the constructors their structs print with.
const (
	ContextVersion = "shell-context-v1"
	AuditVersion   = "shell-audit-v1"
	ResultVersion  = "shell-result-v1"

	contextCtor     = starlark.String("shell_context")
	policyCtor      = starlark.String("shell_policy")
	policyMatchCtor = starlark.String("shell_policy_match")
	auditCtor       = starlark.String("shell_audit")
	redirectCtor    = starlark.String("shell_redirect")
)

// Context is shell-context-v1: what matchers, reviewers, before-interceptors and effect
// analyzers see of one simple command.
type Context struct {
	Phase     string // PhaseMatcher, PhaseReviewer, PhaseBefore or PhaseEffect
	RequestID string
	SessionID string
	Agent     string   // "claude", "copilot", ... or "npm" on the shim path
	Tool      string   // normalized tool name, e.g. "bash"
	Argv      []string // normalized argv of the simple command
	Program   string   // the program as written (path kept), may equal Argv[0]
	Cwd       string
	Effects   []string
	Policy    *Policy // nil for matchers and analyzers
	Timestamp string  // RFC 3339 with milliseconds, UTC; the only clock a script has

	// What the line says about the simple command this layer belongs to (additive fields of
	// shell-context-v1; every layer of a command sees the same values).
	Home      string              // the hook's $HOME, "" when unknown
	Project   string              // the repository root the policy decides for, "" when unknown
	Dir       string              // where the command runs: Cwd with the line's cd's applied, "" when unknown
	Redirects []shellcmd.Redirect // the command's redirections, then those of enclosing compounds
	Upstream  [][]string          // the argv of each earlier stage of its pipeline, nearest last
	Layers    [][]string          // every layer of the command, outermost first; nil: just Argv
	Implied   string              // what implies the command when it is not written ("find -delete"), or ""
	Dynamic   bool                // some word of the command is only known at run time
	Assigns   []string            // the environment assignments it runs with, NAME=value
	Code      *shellcmd.CodeScan  // what an interpreter one-liner's program does, nil for other commands
	Guessed   bool                // a command the line's program may run from a file (a package.json script, a make recipe, a tox environment), not one the line spells out
}

// Policy is the policy decision reviewers and before-interceptors see.
type Policy struct {
	Action, Reason string
	Matches        []PolicyMatch
}

// PolicyMatch is one rule that matched.
type PolicyMatch struct{ RuleID, Action, Reason string }

// Value builds the frozen struct scripts see as ctx: version="shell-context-v1", phase,
// request_id, session_id, agent, tool, argv (tuple), basename (path.Base of Argv[0], "" if
// none), program, cwd, effects (tuple), policy (None or a struct {action, reason, matches:
// tuple of structs {rule_id, action, reason}}), timestamp; and home, project, dir (strings),
// redirects (tuple of structs {op, target, file, write, dynamic}), upstream and layers
// (tuples of argv tuples; layers is (argv,) when Layers is nil), implied (string),
// dynamic (bool), assigns (tuple of NAME=value), guessed (bool) and code (None, or for an
// interpreter one-liner a struct {lang, deletes_recursively, deletes_only (tuple of the folders of
// its recursive deletes when all are literals, else empty), changes_files, reads and writes
// (tuples of the files it reads and changes, given as literals), runs (tuple of the command lines
// it runs), unknown}). The caller is responsible for having bounded the inputs (every list at
// most MaxList items, strings at most MaxString bytes).
func (c *Context) Value() starlark.Value {
	basename := ""
	if len(c.Argv) > 0 {
		basename = path.Base(c.Argv[0])
	}
	var policy starlark.Value = starlark.None
	if c.Policy != nil {
		policy = c.Policy.value()
	}
	layers := starlark.Tuple{stringTuple(c.Argv)}
	if c.Layers != nil {
		layers = argvTuples(c.Layers)
	}
	s := starlarkstruct.FromStringDict(contextCtor, starlark.StringDict{
		"version":    starlark.String(ContextVersion),
		"phase":      starlark.String(c.Phase),
		"request_id": starlark.String(c.RequestID),
		"session_id": starlark.String(c.SessionID),
		"agent":      starlark.String(c.Agent),
		"tool":       starlark.String(c.Tool),
		"argv":       stringTuple(c.Argv),
		"basename":   starlark.String(basename),
		"program":    starlark.String(c.Program),
		"cwd":        starlark.String(c.Cwd),
		"effects":    stringTuple(c.Effects),
		"policy":     policy,
		"timestamp":  starlark.String(c.Timestamp),
		"home":       starlark.String(c.Home),
		"project":    starlark.String(c.Project),
		"dir":        starlark.String(c.Dir),
		"redirects":  redirectTuple(c.Redirects),
		"upstream":   argvTuples(c.Upstream),
		"layers":     layers,
		"implied":    starlark.String(c.Implied),
		"dynamic":    starlark.Bool(c.Dynamic),
		"assigns":    stringTuple(c.Assigns),
		"code":       codeValue(c.Code),
		"guessed":    starlark.Bool(c.Guessed),
	})
	s.Freeze()
	return s
}

func codeValue(c *shellcmd.CodeScan) starlark.Value {
	if c == nil {
		return starlark.None
	}
	return starlarkstruct.FromStringDict(starlark.String("code"), starlark.StringDict{
		"lang":                starlark.String(c.Lang),
		"deletes_recursively": starlark.Bool(c.DeletesRecursively),
		"deletes_only":        stringTuple(c.DeletesOnly),
		"changes_files":       starlark.Bool(c.ChangesFiles),
		"reads":               stringTuple(c.Reads),
		"writes":              stringTuple(c.Writes),
		"runs":                stringTuple(c.Runs),
		"unknown":             starlark.String(c.Unknown),
	})
}

func redirectTuple(rs []shellcmd.Redirect) starlark.Tuple {
	t := make(starlark.Tuple, len(rs))
	for i, r := range rs {
		t[i] = starlarkstruct.FromStringDict(redirectCtor, starlark.StringDict{
			"op":      starlark.String(r.Op),
			"target":  starlark.String(r.Target),
			"file":    starlark.Bool(r.File),
			"write":   starlark.Bool(r.Write),
			"dynamic": starlark.Bool(r.Dynamic),
		})
	}
	return t
}

func argvTuples(lists [][]string) starlark.Tuple {
	t := make(starlark.Tuple, len(lists))
	for i, l := range lists {
		t[i] = stringTuple(l)
	}
	return t
}

func (p *Policy) value() starlark.Value {
	matches := make(starlark.Tuple, len(p.Matches))
	for i, m := range p.Matches {
		matches[i] = starlarkstruct.FromStringDict(policyMatchCtor, starlark.StringDict{
			"rule_id": starlark.String(m.RuleID),
			"action":  starlark.String(m.Action),
			"reason":  starlark.String(m.Reason),
		})
	}
	return starlarkstruct.FromStringDict(policyCtor, starlark.StringDict{
		"action":  starlark.String(p.Action),
		"reason":  starlark.String(p.Reason),
		"matches": matches,
	})
}

// AuditEvent is shell-audit-v1: one flight-recorder event, already redacted, as an audit
// filter sees it.
type AuditEvent struct {
	Sequence  int64
	Timestamp string
	SessionID string
	Event     string         // the event type, e.g. "policy_decision"
	Fields    map[string]any // every top-level field of the event line, JSON-decoded (numbers as int64 or float64)
}

// Value builds the frozen struct an audit filter sees: version="shell-audit-v1",
// phase="shell_audit", sequence (int), timestamp, session_id, event, fields (frozen dict,
// sorted keys, values converted with ToStarlark; an error if they are not data or exceed
// the caps).
func (a *AuditEvent) Value() (starlark.Value, error) {
	fields := a.Fields
	if fields == nil {
		fields = map[string]any{}
	}
	f, err := toStarlarkNamed("fields", fields)
	if err != nil {
		return nil, err
	}
	s := starlarkstruct.FromStringDict(auditCtor, starlark.StringDict{
		"version":    starlark.String(AuditVersion),
		"phase":      starlark.String(PhaseAudit),
		"sequence":   starlark.MakeInt64(a.Sequence),
		"timestamp":  starlark.String(a.Timestamp),
		"session_id": starlark.String(a.SessionID),
		"event":      starlark.String(a.Event),
		"fields":     f,
	})
	s.Freeze()
	return s, nil
}

// CommandResult is shell-result-v1: a finished command's result as an
// after-interceptor sees it, its output already finalised (escapes
// stripped, redacted, bounded).
type CommandResult struct {
	Argv            []string
	Signaled        bool // Status is a signal number, not an exit code
	Status          int
	Stdout, Stderr  string
	StdoutTruncated bool
	StderrTruncated bool
	InterceptedBy   string // the before-interceptor whose respond produced it, or ""
}

// Value builds the frozen struct: version, phase "shell_after", argv
// (tuple), status_kind ("exited" or "signaled"), status_code, stdout,
// stderr, stdout_truncated, stderr_truncated, intercepted_by (None or the
// id), untrusted_output (always True).
func (r *CommandResult) Value() starlark.Value {
	kind := "exited"
	if r.Signaled {
		kind = "signaled"
	}
	var by starlark.Value = starlark.None
	if r.InterceptedBy != "" {
		by = starlark.String(r.InterceptedBy)
	}
	argv := make(starlark.Tuple, len(r.Argv))
	for i, a := range r.Argv {
		argv[i] = starlark.String(a)
	}
	s := starlarkstruct.FromStringDict(starlark.String("shell_result"), starlark.StringDict{
		"version":          starlark.String(ResultVersion),
		"phase":            starlark.String(PhaseAfter),
		"argv":             argv,
		"status_kind":      starlark.String(kind),
		"status_code":      starlark.MakeInt(r.Status),
		"stdout":           starlark.String(r.Stdout),
		"stderr":           starlark.String(r.Stderr),
		"stdout_truncated": starlark.Bool(r.StdoutTruncated),
		"stderr_truncated": starlark.Bool(r.StderrTruncated),
		"intercepted_by":   by,
		"untrusted_output": starlark.True,
	})
	s.Freeze()
	return s
}
