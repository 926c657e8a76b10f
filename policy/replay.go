package policy

import (
	"github.com/agent-shell/agent-shell/state"
)

// LoadReplay loads the configuration under configRoot (root itself, or
// another checkout holding a ConfigFolder) to decide again, for the
// repository at root, calls that were recorded there. Nothing of the
// repository's own state is read or changed: every script is compiled from
// source (no compile cache), the approval grants and script state live in
// stateDir (a scratch folder; "" keeps none between calls), and the
// authorization is not consulted: the files as they are decide, as they
// would once authorized ([guard] allow_agent_edits included). The built-in
// guards protect root. AGENTSHELL_POLICY_PATH applies to root's own
// configuration only: another checkout's policy.json is the one it holds.
//
// Executable extensions are programs the configuration names: a checkout's
// are whatever its author put there. They run only with runExecutables;
// otherwise each fails as ErrExecutableNotRun (runtime.FailSkipped) and
// takes its declared failure outcome.
func LoadReplay(configRoot, root, stateDir string, getenv func(string) string, runExecutables bool) *Engine {
	if configRoot != root {
		getenv = withoutPolicyOverride(getenv)
	}
	opts := RuntimeOptions{}
	if stateDir != "" {
		opts.Store = state.Open(stateDir)
	}
	e := loadWith(configRoot, root, getenv, opts)
	e.Authorized = e.LoadErr == nil
	if e.Manifest != nil {
		e.Manifest.skipExecutables = !runExecutables
	}
	return e
}
