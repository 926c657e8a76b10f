package runtime

import (
	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/state"
)

// OnFailure is what a script's failure (fuel, timeout, error, malformed
// answer, state, input) counts as, as its declaration names it
// (failure = "...").
type OnFailure string

// The failure outcomes. None of them lets a failure widen what is allowed.
const (
	OnFailureDeny         OnFailure = "deny"
	OnFailureConservative OnFailure = "conservative" // a matcher: the failure is neither a match nor a miss
	OnFailureDefer        OnFailure = "defer"        // a reviewer: the next reviewer decides
	OnFailureProceed      OnFailure = "proceed"      // a before-interceptor: the next interceptor
	OnFailureKeep         OnFailure = "keep"         // an after-interceptor or audit filter: the output or event as it was
	OnFailureUnknown      OnFailure = "unknown"      // an effect analyzer: the command's effects are unknown
)

// The events of the executable payloads (shell-hook-json-v1), one per kind
// with an executable form.
const (
	HookEventBefore = "before_command"
	HookEventReview = "approval_request"
	HookEventAfter  = "after_command"
	HookEventEffect = "effect_analysis"
	HookEventAudit  = "audit_event"
)

// KindSpec is what one script kind is. Its Starlark surface is
// builtins.Surface(Kind): the pure library and the action module
// Kind.Module(), whose constructors make actions with the ops in Ops.
type KindSpec struct {
	Kind builtins.Kind
	// Phase and Version are the phase and version of the bridge value its
	// entry function is called with.
	Phase, Version string
	// Ops are the ops its actions may have (builtins.Op*).
	Ops []string
	// Failures are the outcomes its declaration may give a failure; the
	// first is the default.
	Failures []OnFailure
	// Lifecycle is its state's lifecycle when the declaration names none.
	Lifecycle state.Lifecycle
	// Hook and HookEvent are the wire name of its executable form and the
	// event of that form's payload; "" when it has none.
	Hook, HookEvent string
}

// kindSpecs lists every kind, in builtins.Kinds' order.
var kindSpecs = [...]KindSpec{
	{Kind: builtins.KindMatcher, Phase: builtins.PhaseMatcher, Version: builtins.ContextVersion,
		Ops:       []string{builtins.OpYes, builtins.OpNo},
		Failures:  []OnFailure{OnFailureConservative, OnFailureDeny},
		Lifecycle: state.Invocation},
	{Kind: builtins.KindReviewer, Phase: builtins.PhaseReviewer, Version: builtins.ContextVersion,
		Ops:       []string{builtins.OpApprove, builtins.OpApproveFor, builtins.OpDeny, builtins.OpRewrite, builtins.OpDefer},
		Failures:  []OnFailure{OnFailureDeny, OnFailureDefer},
		Lifecycle: state.Session, Hook: "reviewer", HookEvent: HookEventReview},
	{Kind: builtins.KindBefore, Phase: builtins.PhaseBefore, Version: builtins.ContextVersion,
		Ops:       []string{builtins.OpProceed, builtins.OpRewrite, builtins.OpRespond, builtins.OpReject},
		Failures:  []OnFailure{OnFailureDeny, OnFailureProceed},
		Lifecycle: state.Session, Hook: "before_interceptor", HookEvent: HookEventBefore},
	{Kind: builtins.KindAfter, Phase: builtins.PhaseAfter, Version: builtins.ResultVersion,
		Ops:       []string{builtins.OpKeep, builtins.OpReplace, builtins.OpRejectDisclosure},
		Failures:  []OnFailure{OnFailureDeny, OnFailureKeep},
		Lifecycle: state.Session, Hook: "after_interceptor", HookEvent: HookEventAfter},
	{Kind: builtins.KindEffect, Phase: builtins.PhaseEffect, Version: builtins.ContextVersion,
		Ops:       []string{builtins.OpAdd, builtins.OpReplace},
		Failures:  []OnFailure{OnFailureUnknown, OnFailureDeny},
		Lifecycle: state.Invocation, Hook: "effect_analyzer", HookEvent: HookEventEffect},
	{Kind: builtins.KindAudit, Phase: builtins.PhaseAudit, Version: builtins.AuditVersion,
		Ops:       []string{builtins.OpKeep, builtins.OpDropField, builtins.OpReplace},
		Failures:  []OnFailure{OnFailureKeep},
		Lifecycle: state.Session, Hook: "audit_filter", HookEvent: HookEventAudit},
}

// Spec returns kind k's spec, and false for a string that is no kind.
func Spec(k builtins.Kind) (KindSpec, bool) {
	for _, s := range kindSpecs {
		if s.Kind == k {
			return s, true
		}
	}
	return KindSpec{}, false
}
