package runtime

// Model reviewers: a program (command = [...] in the manifest) that reaches
// a model, asked about one command. agent-shell writes one versioned JSON
// request on its stdin (ModelReviewRequestVersion) and reads back exactly
// one JSON object of the shell-model-review-v1 shape:
//
//	{"decision": "approve_once" | "approve_scope" | "deny" | "defer",
//	 "scope": "...",   // approve_scope only: one of the offered scopes
//	 "reason": "..."}  // required for deny, optional otherwise
//
// ("version": "shell-model-review-v1" may be given too.) Anything else
// fails: markdown fences, prose before or after, invalid JSON, duplicate or
// unknown fields, a scope that is not offered, a missing deny reason, more
// than MaxModelResponse bytes, a timeout, a nonzero exit or a signal, a
// program that cannot be started. No tools are offered: the program gets
// the request and nothing else from agent-shell.
//
// The program runs like an executable extension (runProc): its own process
// group, killed on timeout, on an oversized answer and when it exits;
// stdout bounded, stderr kept (bounded) for the record. Unlike an
// executable extension it is not pinned and keeps the environment, since
// it has to reach a model (credentials, a CLI's configuration): it is the
// manifest's, which a human authorizes, and it is run as written.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
)

// Versions and limits of model reviews (docs/hook-protocol.md, "Model
// reviewers"): a 32 KiB prompt by default, 1 MiB at most; an 8 KiB
// reply; 30 s.
const (
	ModelReviewRequestVersion = "shell-model-review-request-v1"
	ModelReviewVersion        = "shell-model-review-v1"
	DefaultModelTimeout       = 30 * time.Second
	DefaultModelPrompt        = 32 << 10
	MaxModelPrompt            = 1 << 20
	MaxModelResponse          = 8 << 10
)

// ModelReviewer is one [[reviewer]] kind = "model".
type ModelReviewer struct {
	ID      string
	Argv    []string // the program and its arguments
	Dir     string   // the working directory, and what a relative program path is relative to
	Env     []string // the program's environment
	Timeout time.Duration
}

// Review runs the program once with request on stdin and decodes its
// answer strictly; offered are the scopes approve_scope may name.
func (m *ModelReviewer) Review(ctx context.Context, request []byte, offered []string) (res Result) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res = Result{Failure: FailError, Err: &Error{Failure: FailError, Err: fmt.Errorf("model reviewer %q: internal error: %v", m.ID, r)}}
		}
		res.Elapsed = time.Since(start)
	}()
	fail := func(f Failure, err error) Result {
		return Result{Failure: f, Err: &Error{Failure: f, Err: err}}
	}
	if len(m.Argv) == 0 || m.Argv[0] == "" {
		return fail(FailError, fmt.Errorf("model reviewer %q: no command", m.ID))
	}
	if ctx.Err() != nil {
		return fail(FailTimeout, fmt.Errorf("model reviewer %q: cancelled before it ran: %v", m.ID, context.Cause(ctx)))
	}
	path := m.Argv[0]
	switch {
	case strings.Contains(path, "/"):
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.Dir, path)
		}
	default:
		p, err := exec.LookPath(path)
		if err != nil {
			return fail(FailError, hookErr(CodeExecution, "model reviewer %q: %v", m.ID, err))
		}
		path = p
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = DefaultModelTimeout
	}
	env := m.Env
	if env == nil {
		env = os.Environ()
	}
	out := runProc(ctx, procSpec{label: fmt.Sprintf("model reviewer %q", m.ID), path: path, args: m.Argv, env: env, dir: m.Dir,
		timeout: timeout, maxOut: MaxModelResponse}, request)
	if !res.tookProcess(out) {
		return res
	}
	a, err := DecodeModelReview(out.stdout, offered)
	if err != nil {
		res.Failure, res.Err = FailMalformed, &Error{Failure: FailMalformed, Err: err}
		return res
	}
	res.Action = a
	return res
}

// DecodeModelReview decodes one shell-model-review-v1 answer, strictly.
func DecodeModelReview(data []byte, offered []string) (*builtins.Action, error) {
	if len(data) > MaxModelResponse {
		return nil, hookErr(CodeOutputLimit, "the answer is %d bytes, more than %d", len(data), MaxModelResponse)
	}
	o, err := parseResponse(data)
	if err != nil {
		if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "```") {
			return nil, hookErr(CodeProtocol, "the answer is fenced (```): want one bare JSON object")
		}
		return nil, err
	}
	if err := o.only("version", "decision", "scope", "reason"); err != nil {
		return nil, err
	}
	if v, ok := o.fields["version"]; ok && v != ModelReviewVersion {
		return nil, hookErr(CodeProtocol, "unsupported version %s, want %q", clipString(fmt.Sprint(v)), ModelReviewVersion)
	}
	decision, err := o.str("decision")
	if err != nil {
		return nil, err
	}
	reason := ""
	if _, ok := o.fields["reason"]; ok {
		if reason, err = o.str("reason"); err != nil {
			return nil, err
		}
		if len(reason) > builtins.MaxString {
			return nil, hookErr(CodeAction, "reason is %d bytes, more than %d", len(reason), builtins.MaxString)
		}
	}
	_, hasScope := o.fields["scope"]
	if hasScope && decision != "approve_scope" {
		return nil, hookErr(CodeProtocol, "scope is only for approve_scope, not %s", clipString(decision))
	}
	a := &builtins.Action{Kind: builtins.KindReviewer, Reason: reason}
	switch decision {
	case "approve_once":
		a.Op = builtins.OpApprove
	case "defer":
		a.Op = builtins.OpDefer
	case "deny":
		if strings.TrimSpace(reason) == "" {
			return nil, hookErr(CodeAction, "deny needs a reason")
		}
		a.Op = builtins.OpDeny
	case "approve_scope":
		scope, err := o.str("scope")
		if err != nil {
			return nil, err
		}
		var scopes []string
		for _, s := range offered {
			if slices.Contains(hookScopes, s) {
				scopes = append(scopes, s)
			}
		}
		if !slices.Contains(scopes, scope) {
			want := strings.Join(scopes, ", ")
			if want == "" {
				want = "none is offered: answer approve_once"
			}
			return nil, hookErr(CodeScope, "scope %q is not offered (offered: %s)", clipString(scope), want)
		}
		a.Op, a.Scope = builtins.OpApproveFor, scope
	default:
		return nil, hookErr(CodeAction, "decision %q is not one of approve_once, approve_scope, deny, defer", clipString(decision))
	}
	return a, nil
}

// ParseStrictJSON parses exactly one JSON object with nothing but
// whitespace around it: invalid UTF-8, a duplicate key in any object,
// trailing data or deep nesting is an error. Numbers stay json.Numbers.
func ParseStrictJSON(data []byte) (map[string]any, error) {
	o, err := parseResponse(data)
	if err != nil {
		if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "```") {
			return nil, hookErr(CodeProtocol, "the answer is fenced (```): want one bare JSON object")
		}
		return nil, err
	}
	return o.fields, nil
}

// Program is a program run once with a request on stdin, like a model
// reviewer: its own process group, killed on timeout and when it exits,
// stdout bounded.
type Program struct {
	Label     string // how errors name it
	Argv      []string
	Dir       string
	Env       []string // nil: this process's environment
	Timeout   time.Duration
	MaxOutput int
}

// Run runs the program and returns its stdout, or an error saying why it
// failed (a timeout, a nonzero exit, a signal, too much output), and its
// stderr (bounded) either way.
func (p *Program) Run(ctx context.Context, stdin []byte) (stdout []byte, stderr string, err error) {
	if len(p.Argv) == 0 || p.Argv[0] == "" {
		return nil, "", fmt.Errorf("%s: no command", p.Label)
	}
	path := p.Argv[0]
	if !strings.Contains(path, "/") {
		if path, err = exec.LookPath(path); err != nil {
			return nil, "", fmt.Errorf("%s: %v", p.Label, err)
		}
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(p.Dir, path)
	}
	env := p.Env
	if env == nil {
		env = os.Environ()
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultModelTimeout
	}
	out := runProc(ctx, procSpec{label: p.Label, path: path, args: p.Argv, env: env, dir: p.Dir, timeout: timeout, maxOut: max(p.MaxOutput, 1)}, stdin)
	if out.fail != nil {
		return nil, out.stderr, out.fail
	}
	return out.stdout, out.stderr, nil
}
