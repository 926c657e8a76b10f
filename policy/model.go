package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"
)

// KindModelReviewer is how a model reviewer's run is recorded among a
// decision's extension runs.
const KindModelReviewer builtins.Kind = "model_reviewer"

// ModelRequest is what a model reviewer is sent, as one JSON object on
// stdin: the command, its effects, the rules that asked and the project's
// name, nothing else (no environment, no file, no history, no tools),
// redacted, and at most the reviewer's max_prompt_bytes.
type ModelRequest struct {
	Version string      `json:"version"` // runtime.ModelReviewRequestVersion
	Project string      `json:"project"` // the repository folder's name
	Command string      `json:"command"` // the simple command, as a shell line
	Argv    []string    `json:"argv"`
	Effects []string    `json:"effects"`
	Rules   []ModelRule `json:"rules"` // what asked
	Answer  ModelAnswer `json:"answer"`
}

// ModelRule is a rule that asked about the command.
type ModelRule struct {
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason"`
}

// ModelAnswer says what the answer must be.
type ModelAnswer struct {
	Format    string   `json:"format"` // runtime.ModelReviewVersion
	Decisions []string `json:"decisions"`
	Scopes    []string `json:"scopes"` // what approve_scope may name
	Rules     string   `json:"rules"`
}

const modelAnswerRules = `Answer with exactly one JSON object and nothing else (no markdown, no prose): ` +
	`{"decision": "approve_once" | "approve_scope" | "deny" | "defer", "scope": "<one of scopes, approve_scope only>", "reason": "<why; required for deny>"}. ` +
	`Deny or defer when unsure.`

// modelRequest builds the request about one command.
func (e *Engine) modelRequest(ev *evaluation, it *askItem, ruleReason string) ModelRequest {
	root := e.Root
	if root == "" {
		root = project.FindRoot(ev.req.Cwd)
	}
	req := ModelRequest{Version: runtime.ModelReviewRequestVersion, Project: filepath.Base(root),
		Command: telemetry.Redact(quoteWords(it.argv)), Argv: make([]string, len(it.argv)), Effects: []string{}, Rules: []ModelRule{},
		Answer: ModelAnswer{Format: runtime.ModelReviewVersion, Decisions: []string{"approve_once", "approve_scope", "deny", "defer"},
			Scopes: []string{}, Rules: modelAnswerRules}}
	for i, a := range it.argv {
		req.Argv[i] = telemetry.Redact(a)
	}
	req.Effects = append(req.Effects, it.effects...)
	for _, mt := range it.matches {
		if mt.Action == string(ActionAsk) {
			reason := mt.Reason // the decision's reason; the rule's own when it has one
			for _, r := range e.Manifest.AllRules() {
				if r.ID == mt.RuleID && mt.RuleID != "" && r.Reason != "" {
					reason = r.Reason
					break
				}
			}
			req.Rules = append(req.Rules, ModelRule{ID: mt.RuleID, Reason: telemetry.Redact(reason)})
		}
	}
	if len(req.Rules) == 0 {
		req.Rules = append(req.Rules, ModelRule{Reason: telemetry.Redact(ruleReason)})
	}
	for _, s := range e.Manifest.Approvals.Scopes {
		if s != "once" && !slices.Contains(req.Answer.Scopes, s) {
			req.Answer.Scopes = append(req.Answer.Scopes, s)
		}
	}
	return req
}

// reviewByModel asks a model reviewer about one command.
func (e *Engine) reviewByModel(ev *evaluation, it *askItem, rv *ReviewerDecl, ruleReason string) runtime.Result {
	m := e.Manifest
	fail := func(f runtime.Failure, format string, args ...any) runtime.Result {
		return runtime.Result{Failure: f, Err: &runtime.Error{Failure: f, Err: fmt.Errorf(format, args...)}}
	}
	if m.skipExecutables {
		return fail(runtime.FailSkipped, "model reviewer %q: not run (replay)", rv.ID)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one line, with its newline
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.modelRequest(ev, it, ruleReason)); err != nil {
		return fail(runtime.FailInput, "model reviewer %q: %v", rv.ID, err)
	}
	data := buf.Bytes()
	if len(data) > rv.MaxPromptBytes {
		return fail(runtime.FailInput, "model reviewer %q: the request is %d bytes, more than max_prompt_bytes = %d; it was not sent", rv.ID, len(data), rv.MaxPromptBytes)
	}
	mr := &runtime.ModelReviewer{ID: rv.ID, Argv: rv.Command, Dir: filepath.Dir(m.Path), Timeout: rv.timeout}
	return mr.Review(ev.req.Context, data, m.Approvals.Scopes)
}
