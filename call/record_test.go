package call

import (
	"testing"

	"github.com/agent-shell/agent-shell/telemetry"
)

// Each failed extension run becomes one extension_error event, even when a
// decision and its intercept step both list it; runs that answered do not.
func TestExtensionErrors(t *testing.T) {
	failed := telemetry.ExtensionRun{Script: "x", Kind: "shell_before_interceptor", Outcome: "fuel", Error: "out of fuel"}
	ok := telemetry.ExtensionRun{Script: "m", Kind: "shell_matcher", Outcome: "yes"}
	events := []*telemetry.Event{
		{Event: telemetry.EventIntercept, Command: "make", Extensions: []telemetry.ExtensionRun{failed}},
		{Event: telemetry.EventPolicyDecision, Command: "make", Agent: "claude", Extensions: []telemetry.ExtensionRun{ok, failed}},
	}
	got := extensionErrors(events)
	if len(got) != 1 {
		t.Fatalf("%d extension_error events, want 1", len(got))
	}
	e := got[0]
	if e.Event != telemetry.EventExtensionError || e.Rule != "x" || e.Error != "out of fuel" || e.Command != "make" ||
		e.Reason != "shell_before_interceptor x failed: fuel" {
		t.Errorf("event %+v", e)
	}
	if len(extensionErrors([]*telemetry.Event{{Extensions: []telemetry.ExtensionRun{ok}}})) != 0 {
		t.Error("a run that answered made an extension_error")
	}
}
