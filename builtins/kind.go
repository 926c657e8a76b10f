package builtins

// Kind is one of the six script kinds a manifest may declare.
type Kind string

// The script kinds, as spelled in the manifest.
const (
	KindMatcher  Kind = "shell_matcher"
	KindReviewer Kind = "shell_reviewer"
	KindBefore   Kind = "shell_before_interceptor"
	KindAfter    Kind = "shell_after_interceptor"
	KindEffect   Kind = "shell_effect_analyzer"
	KindAudit    Kind = "shell_audit_filter"
)

// The ops of the kinds' actions (Action.Op), by the module that makes them.
const (
	OpYes = "yes" // Match
	OpNo  = "no"

	OpApprove    = "approve" // Review
	OpApproveFor = "approve_for"
	OpDeny       = "deny"
	OpRewrite    = "rewrite" // Review and Intercept
	OpDefer      = "defer"

	OpProceed = "proceed" // Intercept
	OpRespond = "respond"
	OpReject  = "reject"

	OpKeep             = "keep"    // Result and Audit
	OpReplace          = "replace" // Result, Effect and Audit
	OpRejectDisclosure = "reject_disclosure"

	OpAdd = "add" // Effect

	OpDropField = "drop_field" // Audit
)

// The phases the kinds' bridge values carry (ctx.phase, result.phase, event.phase).
const (
	PhaseMatcher  = "shell_matcher"
	PhaseReviewer = "shell_reviewer"
	PhaseBefore   = "shell_before"
	PhaseAfter    = "shell_after"
	PhaseEffect   = "shell_effect"
	PhaseAudit    = "shell_audit"
)

// Limits the constructors and codecs enforce.
const (
	// MaxString is the most bytes in any one string (a reason, an argv element, an effect, a
	// field). The stdout and stderr of Intercept.respond and Result.replace may be up to
	// MaxOutput.
	MaxString = 16 << 10
	// MaxOutput is the most bytes in one output string, in one input to the json and re
	// modules, and in any string a codec converts.
	MaxOutput = 256 << 10
	// MaxList is the most items in a list or tuple (argv, effects) and entries in a dict.
	MaxList = 256
	// MaxDepth is the deepest nesting of containers in a converted value.
	MaxDepth = 32
	// MaxValue bounds the total work of converting one value with [ToStarlark] or
	// [FromStarlark]: one unit per value plus the bytes of every string and dict key. It keeps
	// a value that shares its parts (x = [y] * 256, nested) from costing more than its size.
	MaxValue = 1 << 20
)

var kinds = [...]Kind{KindMatcher, KindReviewer, KindBefore, KindAfter, KindEffect, KindAudit}

// Kinds returns the six kinds, in manifest-documentation order.
func Kinds() []Kind { return append([]Kind(nil), kinds[:]...) }

// Valid reports whether k is one of the six kinds.
func (k Kind) Valid() bool { return k.Module() != "" }

// Module returns the name of the kind's action module ("Match", "Review", "Intercept",
// "Result", "Effect", "Audit"), or "" for an invalid kind.
func (k Kind) Module() string {
	switch k {
	case KindMatcher:
		return "Match"
	case KindReviewer:
		return "Review"
	case KindBefore:
		return "Intercept"
	case KindAfter:
		return "Result"
	case KindEffect:
		return "Effect"
	case KindAudit:
		return "Audit"
	}
	return ""
}

func (k Kind) index() int {
	for i, x := range kinds {
		if x == k {
			return i
		}
	}
	return -1
}
