package policy

import (
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// The stages run in order on every entry point: the guard before the
// authorization, the authorization before everything the configuration
// says, and the authorization's note once at the end, also after a rewrite
// restarted the pipeline.
func TestPipelineOrder(t *testing.T) {
	e, root := icEngine(t, icManifest("", ""))
	event := func(command string) *hostapi.Event {
		return &hostapi.Event{Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Command: command, Cwd: root, SessionID: "s1"}
	}

	e.auth = authNote{suffix: NoteWarn}
	d := e.DecideRequest("tool rewrite x", Request{Cwd: root, SessionID: "s1"})
	if d.Action != ActionAllow || d.Intercept == nil || d.Intercept.Outcome != InterceptRewrite ||
		!strings.HasSuffix(d.Reason, NoteWarn) || strings.Count(d.Reason, NoteWarn) != 1 {
		t.Errorf("rewrite under a note: %s %q, %+v; want allow, the rewrite, the note once at the end", d.Action, d.Reason, d.Intercept)
	}
	if d := e.DecideEvent(event("tool rewrite-guard")); d.Action != ActionDeny || d.Guard == "" || !strings.HasSuffix(d.Reason, NoteWarn) {
		t.Errorf("rewrite to a guarded command: %s %q, guard %q; want the guard's deny, noted", d.Action, d.Reason, d.Guard)
	}
	if d := e.DecideEvent(event("touch .agent-shell/x")); d.Action != ActionDeny || d.Guard == "" || strings.Contains(d.Reason, NoteWarn) {
		t.Errorf("guarded command: %s %q, guard %q; want the guard's deny, its reason its own", d.Action, d.Reason, d.Guard)
	}

	e.auth = authNote{deny: "not authorized"}
	if d := e.DecideEvent(event("touch .agent-shell/x")); d.Guard == "" {
		t.Errorf("guarded command, unauthorized: %s %q; want the guard first", d.Action, d.Reason)
	}
	for _, d := range []Decision{e.DecideEvent(event("tool rewrite x")), e.DecideRequest("tool go", Request{Cwd: root}), e.DecideShim("tool go", Request{Cwd: root})} {
		if d.Action != ActionDeny || d.Reason != "not authorized" || d.Intercept != nil || len(d.Extensions) != 0 {
			t.Errorf("unauthorized: %s %q, %+v; want the authorization's deny before any script", d.Action, d.Reason, d.Intercept)
		}
	}
}
