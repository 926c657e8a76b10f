package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/state"
)

// ReviewerDecl is one [[reviewer]], asked in declaration order about
// commands the rules say ask: a shell_reviewer script (script = "id"), or
// with kind = "model" a program that reaches a model (model.go).
type ReviewerDecl struct {
	Script string `toml:"script"`
	// Kind is "script" (the default) or "model".
	Kind string `toml:"kind"`
	// The keys of a model reviewer: its id (the reviewer's name in reasons,
	// grants and the record), the program and its arguments, how long it
	// may take, the largest request it is sent, and what its failure means.
	ID             string            `toml:"id"`
	Command        []string          `toml:"command"`
	Timeout        string            `toml:"timeout"`
	MaxPromptBytes int               `toml:"max_prompt_bytes"`
	Failure        runtime.OnFailure `toml:"failure"`

	timeout time.Duration
}

// The kinds of reviewer.
const (
	ReviewerScript = "script"
	ReviewerModel  = "model"
)

// Name is the reviewer's name: its script's id, or a model reviewer's id.
func (r *ReviewerDecl) Name() string {
	if r.Kind == ReviewerModel {
		return r.ID
	}
	return r.Script
}

// failure is what a reviewer's failure means: deny or defer.
func (r *ReviewerDecl) failure(m *Manifest) runtime.OnFailure {
	if r.Kind == ReviewerModel {
		return r.Failure
	}
	if decl := m.script(r.Script); decl != nil && decl.Failure == runtime.OnFailureDefer {
		return runtime.OnFailureDefer
	}
	return runtime.OnFailureDeny
}

// ApprovalsConfig is the manifest's [approvals] table.
type ApprovalsConfig struct {
	// Scopes lists the scopes reviewers may grant; default once and
	// exact_session.
	Scopes []string `toml:"scopes"`
	// DurableDays is how long a durable_exact grant lasts: default 30, at
	// most 365.
	DurableDays int `toml:"durable_days"`
}

var defaultScopes = []string{state.ScopeOnce, state.ScopeExactSession}

const (
	defaultDurableDays = 30
	maxDurableDays     = 365
	// grantTimeout bounds the wait for a grants file's lock.
	grantTimeout = 2 * time.Second
)

// validateReviewers checks [approvals] and the [[reviewer]] list, setting
// the defaults.
func (m *Manifest) validateReviewers() error {
	a := &m.Approvals
	fail := func(key string, line int, format string, args ...any) error {
		return &ManifestError{Path: m.Path, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if a.Scopes == nil {
		a.Scopes = slices.Clone(defaultScopes)
	}
	for i, s := range a.Scopes {
		if !state.ValidScope(s) {
			return fail("approvals.scopes", keyLine(m.src, "approvals", "scopes"), "%q: want %s", s, strings.Join(state.Scopes, ", "))
		}
		if slices.Contains(a.Scopes[:i], s) {
			return fail("approvals.scopes", keyLine(m.src, "approvals", "scopes"), "%q is listed twice", s)
		}
	}
	if a.DurableDays == 0 {
		a.DurableDays = defaultDurableDays
	}
	if a.DurableDays < 1 || a.DurableDays > maxDurableDays {
		return fail("approvals.durable_days", keyLine(m.src, "approvals", "durable_days"), "%d: want 1 to %d days", a.DurableDays, maxDurableDays)
	}
	for i, r := range m.Reviewers {
		line := func() int { return m.tableLine("reviewer", i) }
		key := fmt.Sprintf("reviewer[%d].script", i+1)
		switch r.Kind {
		case "", ReviewerScript:
			if k := r.modelKeys(); k != "" {
				return fail(fmt.Sprintf("reviewer[%d].%s", i+1, k), line(), "%s is a key of kind = \"model\" reviewers; a script reviewer has only script", k)
			}
			s := m.script(r.Script)
			switch {
			case r.Script == "":
				return fail(key, line(), "every reviewer names its shell_reviewer script (or is kind = \"model\" with a command)")
			case s == nil:
				return fail(key, line(), "no [[script]] has id %q", r.Script)
			case builtins.Kind(s.Kind) != builtins.KindReviewer:
				return fail(key, line(), "script %q is a %s, not a %s", r.Script, s.Kind, builtins.KindReviewer)
			}
		case ReviewerModel:
			if err := m.validateModelReviewer(i, r, line); err != nil {
				return err
			}
			key = fmt.Sprintf("reviewer[%d].id", i+1)
		default:
			return fail(fmt.Sprintf("reviewer[%d].kind", i+1), line(), "%q: want script or model", r.Kind)
		}
		for _, prev := range m.Reviewers[:i] {
			if prev.Name() == r.Name() {
				return fail(key, line(), "reviewer %q is listed twice", r.Name())
			}
		}
	}
	return nil
}

// modelKeys names the first model-reviewer key a declaration sets.
func (r *ReviewerDecl) modelKeys() string {
	switch {
	case r.ID != "":
		return "id"
	case r.Command != nil:
		return "command"
	case r.Timeout != "":
		return "timeout"
	case r.MaxPromptBytes != 0:
		return "max_prompt_bytes"
	case r.Failure != "":
		return "failure"
	}
	return ""
}

// maxModelTimeout bounds a model reviewer's timeout: the host waits for
// the hook meanwhile.
const maxModelTimeout = 10 * time.Minute

// validateModelReviewer checks a kind = "model" reviewer, setting its
// defaults: timeout 30s, max_prompt_bytes 32 KiB, failure deny.
func (m *Manifest) validateModelReviewer(i int, r *ReviewerDecl, line func() int) error {
	fail := func(key, format string, args ...any) error {
		return &ManifestError{Path: m.Path, Line: line(), Key: fmt.Sprintf("reviewer[%d].%s", i+1, key), Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case m.inPack:
		return fail("kind", "a pack cannot declare a model reviewer: the project chooses which programs reach a model")
	case r.Script != "":
		return fail("script", "a model reviewer runs its command, not a script")
	case r.ID == "":
		return fail("id", "a model reviewer needs an id (its name in reasons, grants and the record)")
	case !validReviewerID(r.ID):
		return fail("id", "%q: use letters, digits, -, _ and . only", r.ID)
	case m.script(r.ID) != nil:
		return fail("id", "%q is also a [[script]] id; give the model reviewer its own", r.ID)
	case len(r.Command) == 0 || r.Command[0] == "":
		return fail("command", "a model reviewer needs command = [\"program\", \"arg\", ...]: the program that reaches the model")
	}
	r.timeout = runtime.DefaultModelTimeout
	if r.Timeout != "" {
		d, err := time.ParseDuration(r.Timeout)
		if err != nil || d <= 0 || d > maxModelTimeout {
			return fail("timeout", "%q: want a duration above 0 and at most %s, e.g. \"30s\"", r.Timeout, maxModelTimeout)
		}
		r.timeout = d
	}
	if r.MaxPromptBytes == 0 {
		r.MaxPromptBytes = runtime.DefaultModelPrompt
	}
	if r.MaxPromptBytes < 1024 || r.MaxPromptBytes > runtime.MaxModelPrompt {
		return fail("max_prompt_bytes", "%d: want 1024 to %d", r.MaxPromptBytes, runtime.MaxModelPrompt)
	}
	switch r.Failure {
	case "":
		r.Failure = runtime.OnFailureDeny
	case runtime.OnFailureDeny, runtime.OnFailureDefer:
	default:
		return fail("failure", "%q: want deny or defer (a failure never approves)", r.Failure)
	}
	return nil
}

func validReviewerID(id string) bool {
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return id != "" && len(id) <= 64
}
