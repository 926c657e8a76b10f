package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/state"
	"github.com/agent-shell/agent-shell/telemetry"
)

// script declares an inline script; extra is more of its keys.
func script(id, kind, source, extra string) string {
	return fmt.Sprintf("\n[[script]]\nid = %q\nkind = %q\nsource = '''\n%s'''\n%s\n", id, kind, source, extra)
}

func rule(id string, action Action, match string) string {
	return fmt.Sprintf("\n[[rule]]\nid = %q\naction = %q\nmatch = %s\n", id, action, match)
}

// manifestHead makes "ask" the default, so that a rule that does not match
// is told apart from an allow rule that does.
const manifestHead = "version = 1\n[policy]\ndefault = \"ask\"\n"

const tfMatcher = `def on_event(ctx, state):
    if ctx.basename == "terraform" and "destroy" in ctx.argv:
        return Match.yes("terraform destroy")
    return Match.no("not terraform destroy")
`

func TestMatcherDrivesDenyRule(t *testing.T) {
	e := mustEngine(t, "", manifestHead+
		script("tf", "shell_matcher", tfMatcher, "")+
		rule("no-tf-destroy", ActionDeny, `{ script = "tf" }`)+
		rule("terraform", ActionAllow, `{ basename = "terraform" }`))
	d := e.Decide("terraform destroy -auto-approve", "/repo")
	if d.Action != ActionDeny || d.Rule != "no-tf-destroy" || !strings.Contains(d.Reason, "denied by rule no-tf-destroy") {
		t.Errorf("terraform destroy: %s by %q (%s), want deny by no-tf-destroy", d.Action, d.Rule, d.Reason)
	}
	if len(d.Extensions) != 1 || d.Extensions[0].Script != "tf" || d.Extensions[0].Kind != "shell_matcher" ||
		d.Extensions[0].Outcome != "yes" || d.Extensions[0].Reason != "terraform destroy" || d.Extensions[0].Error != "" {
		t.Errorf("extensions %+v, want one run of tf answering yes", d.Extensions)
	}
	d = e.Decide("terraform plan", "/repo")
	if d.Action != ActionAllow || d.Rule != "terraform" {
		t.Errorf("terraform plan: %s by %q (%s), want allow by terraform", d.Action, d.Rule, d.Reason)
	}
	if len(d.Extensions) != 1 || d.Extensions[0].Outcome != "no" || d.Extensions[0].Reason != "not terraform destroy" {
		t.Errorf("extensions %+v, want one run answering no", d.Extensions)
	}
	// Every layer and every command of a line is asked.
	d = e.Decide("cd infra && sudo terraform destroy", "/repo")
	if d.Action != ActionDeny || d.Rule != "no-tf-destroy" {
		t.Errorf("wrapped and chained: %s by %q (%s)", d.Action, d.Rule, d.Reason)
	}
	d = e.Decide(`bash -c "terraform destroy"`, "/repo")
	if d.Action != ActionDeny || d.Rule != "no-tf-destroy" {
		t.Errorf("inside bash -c: %s by %q (%s)", d.Action, d.Rule, d.Reason)
	}
}

// The static keys of a match table are tested first: a matcher runs only
// for the commands they let through.
func TestMatcherRunsOnlyWhereStaticKeysHold(t *testing.T) {
	e := mustEngine(t, "", manifestHead+
		script("tf", "shell_matcher", tfMatcher, "")+
		rule("no-tf-destroy", ActionDeny, `{ basename = "terraform", script = "tf" }`))
	if d := e.Decide("ls -la", "/repo"); len(d.Extensions) != 0 {
		t.Errorf("ls ran %d scripts: %+v", len(d.Extensions), d.Extensions)
	}
	if d := e.Decide("terraform destroy", "/repo"); d.Action != ActionDeny || len(d.Extensions) != 1 {
		t.Errorf("terraform destroy: %s, %d runs", d.Action, len(d.Extensions))
	}
}

// A matcher runs once per command layer, however many rules name it.
func TestMatcherRunsOncePerLayer(t *testing.T) {
	e := mustEngine(t, "", manifestHead+
		script("m", "shell_matcher", "def on_event(ctx, state):\n    return Match.yes() if ctx.basename == \"ls\" else Match.no()\n", "")+
		rule("a", ActionAllow, `{ script = "m" }`)+
		rule("b", ActionAllow, `{ basename = "ls", script = "m" }`)+
		rule("c", ActionAsk, `{ not = { script = "m" } }`))
	tests := []struct {
		command string
		runs    int
		want    Action
	}{
		{"ls", 1, ActionAllow},
		{"ls -la && ls /tmp", 2, ActionAllow},
		{"pwd", 1, ActionAsk},
		{"ls; pwd; ls", 3, ActionAsk},
	}
	for _, tt := range tests {
		d := e.Decide(tt.command, "/repo")
		if len(d.Extensions) != tt.runs || d.Action != tt.want {
			t.Errorf("%q: %d runs, %s (%s); want %d runs, %s", tt.command, len(d.Extensions), d.Action, d.Reason, tt.runs, tt.want)
		}
	}
}

// Matchers that fail, each way a script can fail.
var failingMatchers = []struct {
	name, source, extra, outcome, errText string
}{
	{"fail()", "def on_event(ctx, state):\n    fail(\"boom\")\n", "", "error", "boom"},
	{"runtime error", "def on_event(ctx, state):\n    return Match.yes(ctx.argv[7])\n", "", "error", "index 7 out of range"},
	{"out of fuel", "def on_event(ctx, state):\n    n = 0\n    for i in range(1000000):\n        n += i\n    return Match.yes()\n", "fuel = 2000", "fuel", "fuel exhausted"},
	{"timeout", "def on_event(ctx, state):\n    n = 0\n    for i in range(100000000):\n        n += i\n    return Match.yes()\n", "fuel = 100000000\ntimeout = \"20ms\"", "timeout", "timeout after 20ms"},
	{"recursion", "def f(n):\n    return f(n - 1) if n > 0 else 0\n\ndef on_event(ctx, state):\n    f(3)\n    return Match.yes()\n", "", "error", "called recursively"},
	{"reason over the string cap", "def on_event(ctx, state):\n    return Match.yes(\"x\" * 20000)\n", "", "error", "more than 16384"},
	{"huge string", "def on_event(ctx, state):\n    s = \"x\" * (1 << 40)\n    return Match.yes()\n", "", "error", "repeat count 1099511627776 too large"},
	{"returns None", "def on_event(ctx, state):\n    pass\n", "", "malformed", "returned None"},
	{"returns a string", "def on_event(ctx, state):\n    return \"yes\"\n", "", "malformed", "returned a string"},
	{"returns two actions", "def on_event(ctx, state):\n    return Match.yes(), Match.no()\n", "", "malformed", "a tuple of 2 values"},
	{"no entry function", "def match(ctx, state):\n    return Match.yes()\n", "", "error", "no function on_event"},
	{"entry of the wrong arity", "def on_event(ctx):\n    return Match.yes()\n", "", "error", "must be a function of (ctx, state)"},
	{"failing top level", "X = [1][3]\ndef on_event(ctx, state):\n    return Match.yes()\n", "", "error", "index 3 out of range"},
	{"mutates a frozen global", "SEEN = []\n\ndef on_event(ctx, state):\n    SEEN.append(ctx.basename)\n    return Match.yes()\n", "", "error", "frozen list"},
	{"mutates ctx", "def on_event(ctx, state):\n    ctx.argv.append(\"x\")\n    return Match.yes()\n", "", "error", "no .append field or method"},
	{"state that is not data", "def on_event(ctx, state):\n    state[\"f\"] = on_event\n    return Match.yes()\n", "", "malformed", "state"},
}

// A failing matcher never widens access: in an allow rule the rule does not
// match; in a deny or ask rule it matches, and the reason says why.
func TestFailingMatcherIsConservative(t *testing.T) {
	for _, fm := range failingMatchers {
		t.Run(fm.name, func(t *testing.T) {
			for _, action := range []Action{ActionAllow, ActionAsk, ActionDeny} {
				e := mustEngine(t, "", manifestHead+script("f", "shell_matcher", fm.source, fm.extra)+rule("r", action, `{ basename = "ls", script = "f" }`))
				d := e.Decide("ls -la", "/repo")
				if len(d.Extensions) != 1 {
					t.Fatalf("%s rule: %d runs, want 1", action, len(d.Extensions))
				}
				run := d.Extensions[0]
				if run.Outcome != fm.outcome || !strings.Contains(run.Error, fm.errText) {
					t.Errorf("%s rule: outcome %q error %q, want %q containing %q", action, run.Outcome, run.Error, fm.outcome, fm.errText)
				}
				switch action {
				case ActionAllow:
					if d.Action != ActionAsk || d.Rule != "" || !strings.Contains(d.Reason, "by the policy default") {
						t.Errorf("allow rule with a failing matcher: %s by %q (%s), want the default (ask)", d.Action, d.Rule, d.Reason)
					}
				default:
					if d.Action != action || d.Rule != "r" || !strings.Contains(d.Reason, "its script matcher failed, so the rule counts as matching") {
						t.Errorf("%s rule with a failing matcher: %s by %q (%s), want %s by r saying the matcher failed", action, d.Action, d.Rule, d.Reason, action)
					}
				}
			}
		})
	}
}

// Memory: a script that keeps allocating is stopped.
func TestMatcherOverAllocationBudget(t *testing.T) {
	// A small budget, so that the test does not depend on how fast the
	// machine gives a process memory.
	runtime.SetBudget(runtime.Budget{Memory: 48 << 20})
	t.Cleanup(func() { runtime.SetBudget(runtime.Budget{}) })
	src := "def on_event(ctx, state):\n    s = \"x\" * (1 << 20)\n    keep = []\n    for i in range(2000):\n        keep.append(s + str(i))\n    return Match.yes()\n"
	for _, action := range []Action{ActionAllow, ActionDeny} {
		e := mustEngine(t, "", manifestHead+script("f", "shell_matcher", src, "")+rule("r", action, `{ script = "f" }`))
		d := e.Decide("ls", "/repo")
		if len(d.Extensions) != 1 || d.Extensions[0].Outcome != "memory" {
			t.Fatalf("%s rule: runs %+v, want one memory failure", action, d.Extensions)
		}
		want := ActionAsk
		if action == ActionDeny {
			want = ActionDeny
		}
		if d.Action != want {
			t.Errorf("%s rule, matcher out of memory: %s (%s), want %s", action, d.Action, d.Reason, want)
		}
	}
}

// A failure inside not() stays a failure: negation cannot turn it into a
// match of an allow rule, nor make a deny rule vanish.
func TestFailureInsideNot(t *testing.T) {
	fail := "def on_event(ctx, state):\n    fail(\"boom\")\n"
	yes := "def on_event(ctx, state):\n    return Match.yes()\n"
	no := "def on_event(ctx, state):\n    return Match.no()\n"
	tests := []struct {
		name, source, match string
		action, want        Action
	}{
		{"deny not(fail)", fail, `{ basename = "ls", not = { script = "f" } }`, ActionDeny, ActionDeny},
		{"allow not(fail)", fail, `{ basename = "ls", not = { script = "f" } }`, ActionAllow, ActionAsk},
		{"ask not(fail)", fail, `{ basename = "ls", not = { script = "f" } }`, ActionAsk, ActionAsk},
		{"allow not(not(fail))", fail, `{ basename = "ls", not = { not = { script = "f" } } }`, ActionAllow, ActionAsk},
		{"deny not(not(fail))", fail, `{ basename = "ls", not = { not = { script = "f" } } }`, ActionDeny, ActionDeny},
		{"allow not(all(fail))", fail, `{ not = { all = [{ script = "f" }] } }`, ActionAllow, ActionAsk},
		{"allow not(any(fail, no))", fail, `{ not = { any = [{ script = "f" }, { basename = "zzz" }] } }`, ActionAllow, ActionAsk},
		{"deny not(any(fail, no))", fail, `{ not = { any = [{ script = "f" }, { basename = "zzz" }] } }`, ActionDeny, ActionDeny},
		// A certain part decides whatever the failed part would have said.
		{"deny all(fail, no)", fail, `{ all = [{ script = "f" }, { basename = "zzz" }] }`, ActionDeny, ActionAsk},
		{"allow any(fail, yes)", fail, `{ any = [{ script = "f" }, { basename = "ls" }] }`, ActionAllow, ActionAllow},
		{"deny not(fail) and a static no", fail, `{ basename = "zzz", not = { script = "f" } }`, ActionDeny, ActionAsk},
		// The same shapes with answers.
		{"deny not(yes)", yes, `{ basename = "ls", not = { script = "f" } }`, ActionDeny, ActionAsk},
		{"deny not(no)", no, `{ basename = "ls", not = { script = "f" } }`, ActionDeny, ActionDeny},
		{"allow not(no)", no, `{ basename = "ls", not = { script = "f" } }`, ActionAllow, ActionAllow},
		{"allow not(yes)", yes, `{ basename = "ls", not = { script = "f" } }`, ActionAllow, ActionAsk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustEngine(t, "", manifestHead+script("f", "shell_matcher", tt.source, "")+rule("r", tt.action, tt.match))
			if d := e.Decide("ls", "/repo"); d.Action != tt.want {
				t.Errorf("%s rule %s: %s by %q (%s), want %s", tt.action, tt.match, d.Action, d.Rule, d.Reason, tt.want)
			}
		})
	}
}

// failure = "deny" denies the command whatever the rule's action.
func TestMatcherFailureDeny(t *testing.T) {
	m := manifestHead + script("f", "shell_matcher", "def on_event(ctx, state):\n    if ctx.basename == \"ls\":\n        fail(\"cannot tell\")\n    return Match.yes()\n", `failure = "deny"`) +
		rule("ok", ActionAllow, `{ script = "f" }`) + rule("also", ActionAllow, `{ program_regex = ".*", script = "f" }`)
	e := mustEngine(t, "", m)
	d := e.Decide("ls", "/repo")
	if d.Action != ActionDeny || !strings.Contains(d.Reason, "Command 'ls' denied: matcher f failed (error: ") || !strings.Contains(d.Reason, "cannot tell") {
		t.Errorf("ls: %s (%s), want deny saying matcher f failed", d.Action, d.Reason)
	}
	if len(d.Extensions) != 1 {
		t.Errorf("%d runs, want 1", len(d.Extensions))
	}
	// When it answers, its answer counts.
	if d := e.Decide("pwd", "/repo"); d.Action != ActionAllow || d.Rule != "ok" {
		t.Errorf("pwd: %s by %q (%s), want allow by ok", d.Action, d.Rule, d.Reason)
	}
	// One failure, one deny, even on several commands.
	d = e.Decide("ls && ls", "/repo")
	if d.Action != ActionDeny || len(d.Extensions) != 2 {
		t.Errorf("ls && ls: %s, %d runs", d.Action, len(d.Extensions))
	}
}

const deployAnalyzer = `def on_event(ctx, state):
    if ctx.basename != "deploy":
        return Effect.add([])
    return Effect.add(["network", "write:out/release", "read:/etc/deploy.conf"])
`

// An analyzer's effects join the built-in ones, with paths made absolute
// against the cwd, and rules and matchers see them.
func TestEffectAnalyzerAdds(t *testing.T) {
	m := manifestHead + script("deploy-fx", "shell_effect_analyzer", deployAnalyzer, "") +
		"\n[[analyzer]]\nscript = \"deploy-fx\"\n" +
		script("sees-network", "shell_matcher", "def on_event(ctx, state):\n    return Match.yes() if \"network\" in ctx.effects else Match.no()\n", "") +
		rule("network", ActionAsk, `{ effect = "network" }`) +
		rule("release-writes", ActionDeny, `{ effect = "write:/repo/out/**" }`) +
		rule("network-by-script", ActionAsk, `{ script = "sees-network" }`)
	e := mustEngine(t, "", m)
	d := e.Decide("deploy --prod", "/repo")
	for _, want := range []string{"network", "write:/repo/out/release", "read:/etc/deploy.conf"} {
		if !slices.Contains(d.Effects, want) {
			t.Errorf("effects %q lack %q", d.Effects, want)
		}
	}
	if !slices.Contains(d.Effects, "unknown:unlisted program deploy") {
		t.Errorf("effects %q: an analyzer that adds must keep the built-in ones", d.Effects)
	}
	if d.Action != ActionDeny || d.Rule != "release-writes" {
		t.Errorf("deploy: %s by %q, want deny by release-writes", d.Action, d.Rule)
	}
	var matched []string
	for _, mt := range d.Commands[0].Matches {
		matched = append(matched, mt.Rule)
	}
	for _, want := range []string{"network", "release-writes", "network-by-script"} {
		if !slices.Contains(matched, want) {
			t.Errorf("rules matched %q, want %q among them", matched, want)
		}
	}
	// The analyzer runs before the matchers.
	if len(d.Extensions) != 2 || d.Extensions[0].Script != "deploy-fx" || d.Extensions[0].Outcome != "add" || d.Extensions[1].Script != "sees-network" {
		t.Errorf("runs %+v, want deploy-fx (add) then sees-network", d.Extensions)
	}
	// Another command gets nothing from it.
	d = e.Decide("ls", "/repo")
	if slices.Contains(d.Effects, "network") || d.Action != ActionAsk || d.Rule != "" {
		t.Errorf("ls: effects %q, %s by %q", d.Effects, d.Action, d.Rule)
	}
}

func TestEffectAnalyzerReplace(t *testing.T) {
	replacer := `def on_event(ctx, state):
    if ctx.basename == "deploy":
        return Effect.replace(["network", "write:out"])
    return Effect.add([])
`
	rules := rule("deploy-known", ActionAllow, `{ basename = "deploy", no_unknown_effects = true }`)
	t.Run("without replace = true", func(t *testing.T) {
		e := mustEngine(t, "", manifestHead+script("fx", "shell_effect_analyzer", replacer, "")+"\n[[analyzer]]\nscript = \"fx\"\n"+rules)
		d := e.Decide("deploy", "/repo")
		if len(d.Extensions) != 1 || d.Extensions[0].Outcome != "malformed" || !strings.Contains(d.Extensions[0].Error, "replace = true") {
			t.Errorf("runs %+v, want a malformed run saying replace needs replace = true", d.Extensions)
		}
		if !slices.Contains(d.Effects, "unknown:analyzer failed: fx (malformed)") || !slices.Contains(d.Effects, "unknown:unlisted program deploy") || slices.Contains(d.Effects, "network") {
			t.Errorf("effects %q, want the built-in ones plus unknown:analyzer failed", d.Effects)
		}
		if d.Action != ActionAsk {
			t.Errorf("deploy: %s by %q, want the default (the allow rule needs no unknown effects)", d.Action, d.Rule)
		}
	})
	t.Run("with replace = true", func(t *testing.T) {
		e := mustEngine(t, "", manifestHead+script("fx", "shell_effect_analyzer", replacer, "")+"\n[[analyzer]]\nscript = \"fx\"\nreplace = true\n"+rules)
		d := e.Decide("deploy", "/repo")
		if want := []string{"network", "write:/repo/out"}; !slices.Equal(d.Effects, want) {
			t.Errorf("effects %q, want exactly %q", d.Effects, want)
		}
		if d.Action != ActionAllow || d.Rule != "deploy-known" {
			t.Errorf("deploy: %s by %q (%s), want allow by deploy-known", d.Action, d.Rule, d.Reason)
		}
	})
}

// A failing analyzer adds unknown:analyzer failed, which an allow rule
// that wants no unknown effects does not pass; failure = "deny" denies.
func TestEffectAnalyzerFailure(t *testing.T) {
	failing := "def on_event(ctx, state):\n    if ctx.basename == \"cat\":\n        fail(\"no idea\")\n    return Effect.add([])\n"
	rules := rule("cat-known", ActionAllow, `{ basename = "cat", no_unknown_effects = true }`)
	// First, without the analyzer, the allow rule matches.
	e := mustEngine(t, "", manifestHead+rules)
	if d := e.Decide("cat README.md", "/repo"); d.Action != ActionAllow || d.Rule != "cat-known" {
		t.Fatalf("no analyzer: %s by %q (%s); the test needs an allow here", d.Action, d.Rule, d.Reason)
	}
	e = mustEngine(t, "", manifestHead+script("fx", "shell_effect_analyzer", failing, "")+"\n[[analyzer]]\nscript = \"fx\"\n"+rules)
	d := e.Decide("cat README.md", "/repo")
	if !slices.Contains(d.Effects, "unknown:analyzer failed: fx (error)") || !slices.Contains(d.Effects, "read:/repo/README.md") {
		t.Errorf("effects %q, want read:/repo/README.md and unknown:analyzer failed: fx (error)", d.Effects)
	}
	if d.Action != ActionAsk || d.Rule != "" {
		t.Errorf("cat with a failed analyzer: %s by %q, want the default", d.Action, d.Rule)
	}
	if len(d.Extensions) != 1 || d.Extensions[0].Outcome != "error" || !strings.Contains(d.Extensions[0].Error, "no idea") {
		t.Errorf("runs %+v", d.Extensions)
	}
	// Another program, where it answers, is not affected.
	if d := e.Decide("ls", "/repo"); slices.ContainsFunc(d.Effects, func(s string) bool { return strings.HasPrefix(s, "unknown:") }) {
		t.Errorf("ls: effects %q", d.Effects)
	}

	e = mustEngine(t, "", manifestHead+script("fx", "shell_effect_analyzer", failing, `failure = "deny"`)+"\n[[analyzer]]\nscript = \"fx\"\n"+rules)
	d = e.Decide("cat README.md", "/repo")
	if d.Action != ActionDeny || !strings.Contains(d.Reason, "effect analyzer fx failed") {
		t.Errorf("failure = deny: %s (%s), want deny naming the analyzer", d.Action, d.Reason)
	}
}

// Analyzers run in order, each seeing what the earlier ones added.
func TestEffectAnalyzersChain(t *testing.T) {
	first := "def on_event(ctx, state):\n    return Effect.network()\n"
	second := "def on_event(ctx, state):\n    if \"network\" in ctx.effects:\n        return Effect.write_path(\"net.log\")\n    return Effect.add([])\n"
	e := mustEngine(t, "", manifestHead+
		script("one", "shell_effect_analyzer", first, "")+script("two", "shell_effect_analyzer", second, "")+
		"\n[[analyzer]]\nscript = \"one\"\n\n[[analyzer]]\nscript = \"two\"\n"+rule("r", ActionDeny, `{ effect = "write:/repo/net.log" }`))
	if d := e.Decide("ls", "/repo"); d.Action != ActionDeny || !slices.Contains(d.Effects, "network") {
		t.Errorf("%s, effects %q", d.Action, d.Effects)
	}
}

// What a matcher sees of the request in ctx.
func TestMatcherContext(t *testing.T) {
	check := `def check(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))

def on_event(ctx, state):
    check("version", ctx.version, "shell-context-v1")
    check("phase", ctx.phase, "shell_matcher")
    check("agent", ctx.agent, "claude")
    check("session_id", ctx.session_id, "sess-42")
    check("tool", ctx.tool, "bash")
    check("cwd", ctx.cwd, "/work/repo")
    check("argv", ctx.argv, ("rm", "-rf", "build"))
    check("basename", ctx.basename, "rm")
    check("program", ctx.program, "/bin/rm")
    check("timestamp", ctx.timestamp, "2026-03-04T05:06:07.089Z")
    check("policy", ctx.policy, None)
    check("state", state, {})
    if "write:/work/repo/build" not in ctx.effects:
        fail("effects: %r" % (ctx.effects,))
    if not ctx.request_id.startswith("req-"):
        fail("request_id: %r" % ctx.request_id)
    return Match.yes("ctx as expected")
`
	e := mustEngine(t, "", manifestHead+script("ctx", "shell_matcher", check, "")+rule("r", ActionDeny, `{ script = "ctx" }`))
	req := Request{Cwd: "/work/repo", SessionID: "sess-42", Agent: "claude", Tool: "bash", Time: time.Date(2026, 3, 4, 6, 6, 7, 89e6, time.FixedZone("CET", 3600))}
	d := e.DecideRequest("/bin/rm -rf build", req)
	if len(d.Extensions) != 1 || d.Extensions[0].Outcome != "yes" {
		t.Fatalf("runs %+v", d.Extensions)
	}
	// The same through a hook event: agent, session, cwd and tool come from it.
	ev := &hostapi.Event{Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Agent: "claude", SessionID: "sess-42", Cwd: "/work/repo", Command: "/bin/rm -rf build"}
	d = e.DecideEvent(ev)
	if len(d.Extensions) != 1 || !strings.Contains(d.Extensions[0].Error, "timestamp") {
		t.Errorf("DecideEvent: runs %+v, want only the timestamp to differ", d.Extensions)
	}
	// A script's time is the request's, in the telemetry layout.
	ts := "def on_event(ctx, state):\n    return Match.yes(ctx.timestamp)\n"
	e = mustEngine(t, "", manifestHead+script("ts", "shell_matcher", ts, "")+rule("r", ActionDeny, `{ script = "ts" }`))
	before := time.Now().UTC().Add(-time.Second)
	d = e.Decide("ls", "/repo")
	got, err := time.Parse(telemetry.TimestampLayout, d.Extensions[0].Reason)
	if err != nil || got.Before(before) || got.After(time.Now().Add(time.Second)) {
		t.Errorf("timestamp without Request.Time: %q (%v), want now", d.Extensions[0].Reason, err)
	}
}

// An analyzer sees the built-in effects and its own phase.
func TestAnalyzerContext(t *testing.T) {
	src := `def on_event(ctx, state):
    if ctx.phase != "shell_effect":
        fail("phase %r" % ctx.phase)
    if ctx.effects != ("write:/repo/build",):
        fail("effects %r" % (ctx.effects,))
    return Effect.add([])
`
	e := mustEngine(t, "", manifestHead+script("fx", "shell_effect_analyzer", src, "")+"\n[[analyzer]]\nscript = \"fx\"\n")
	d := e.Decide("rm -rf build", "/repo")
	if len(d.Extensions) != 1 || d.Extensions[0].Outcome != "add" {
		t.Errorf("runs %+v", d.Extensions)
	}
}

// Rule examples run the matchers when the manifest loads.
func TestExamplesRunMatchers(t *testing.T) {
	tests := []struct {
		name, matcher, examples, want string
	}{
		{"pass", tfMatcher, `{ match = ["terraform destroy"], not_match = ["terraform plan"] }`, ""},
		{"matcher fails on an example", "def on_event(ctx, state):\n    if \"destroy\" in ctx.argv:\n        fail(\"unsupported\")\n    return Match.no()\n",
			`{ match = ["terraform destroy"] }`, `examples.match: rule "r": example "terraform destroy": script tf failed: error: `},
		{"matcher fails on a counter-example", "def on_event(ctx, state):\n    if \"plan\" in ctx.argv:\n        fail(\"unsupported\")\n    return Match.yes()\n",
			`{ not_match = ["terraform plan"] }`, `examples.not_match: rule "r": example "terraform plan": script tf failed`},
		{"matcher disagrees with an example", "def on_event(ctx, state):\n    return Match.no()\n",
			`{ match = ["terraform destroy"] }`, `rule "r" does not match its example "terraform destroy"`},
		{"matcher disagrees with a counter-example", "def on_event(ctx, state):\n    return Match.yes()\n",
			`{ not_match = ["terraform plan"] }`, `rule "r" matches its counter-example "terraform plan"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := manifestHead + script("tf", "shell_matcher", tt.matcher, "") +
				"\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"tf\" }\nexamples = " + tt.examples + "\n"
			m, err := ParseManifest("agent-shell.toml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = NewEngine(nil, m)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var me *ManifestError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tt.want) || me.Line == 0 {
				t.Errorf("err %v, want a located error containing %q", err, tt.want)
			}
		})
	}
	// The analyzers run for examples too, and their failure fails the load.
	src := manifestHead + script("fx", "shell_effect_analyzer", "def on_event(ctx, state):\n    fail(\"nope\")\n", "") +
		"\n[[analyzer]]\nscript = \"fx\"\n" +
		"\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { basename = \"rm\" }\nexamples = { match = [\"rm x\"] }\n"
	m, err := ParseManifest("agent-shell.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(nil, m); err == nil || !strings.Contains(err.Error(), "script fx failed") {
		t.Errorf("err %v, want the analyzer's failure", err)
	}
}

// The sandbox limits, one by one, and what each leads to for a deny rule
// and for an allow rule.
func TestSandboxFailureDecisions(t *testing.T) {
	tests := []struct {
		name, source, extra, outcome string
	}{
		{"fuel", "def on_event(ctx, state):\n    for i in range(10000000):\n        pass\n    return Match.yes()\n", "fuel = 5000", "fuel"},
		{"timeout", "def on_event(ctx, state):\n    for i in range(100000000):\n        pass\n    return Match.yes()\n", "fuel = 100000000\ntimeout = \"10ms\"", "timeout"},
		{"recursion", "def f(ctx):\n    return f(ctx)\n\ndef on_event(ctx, state):\n    return f(ctx)\n", "", "error"},
		{"huge string", "def on_event(ctx, state):\n    return Match.no(\"y\" * (1 << 35))\n", "", "error"},
		{"string over the cap", "def on_event(ctx, state):\n    return Match.no(\"y\" * (16 << 10 + 1))\n", "", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for action, want := range map[Action]Action{ActionDeny: ActionDeny, ActionAllow: ActionAsk} {
				e := mustEngine(t, "", manifestHead+script("s", "shell_matcher", tt.source, tt.extra)+rule("r", action, `{ script = "s" }`))
				start := time.Now()
				d := e.Decide("ls", "/repo")
				if took := time.Since(start); took > time.Second {
					t.Errorf("%s: took %s", tt.name, took)
				}
				if len(d.Extensions) != 1 || d.Extensions[0].Outcome != tt.outcome {
					t.Errorf("%s rule: runs %+v, want one %s failure", action, d.Extensions, tt.outcome)
				}
				if d.Action != want {
					t.Errorf("%s rule: %s (%s), want %s", action, d.Action, d.Reason, want)
				}
			}
		})
	}
}

// The caller's context cancels a running script: a hook whose host is
// about to give up does not wait for the script's own timeout.
func TestRequestContextCancelsScripts(t *testing.T) {
	src := "def on_event(ctx, state):\n    for i in range(100000000):\n        pass\n    return Match.yes()\n"
	e := mustEngine(t, "", manifestHead+script("slow", "shell_matcher", src, "fuel = 100000000\ntimeout = \"10s\"")+rule("r", ActionDeny, `{ script = "slow" }`))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	d := e.DecideRequest("ls", Request{Cwd: "/repo", Context: ctx})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s", took)
	}
	if d.Action != ActionDeny || len(d.Extensions) != 1 || d.Extensions[0].Outcome != "timeout" {
		t.Errorf("%s, runs %+v", d.Action, d.Extensions)
	}
}

// auditLines reads a session file's lines as ordered keys and values.
func auditLines(t *testing.T, path string) ([]map[string]any, []string) {
	t.Helper()
	data := readFileT(t, path)
	var out []map[string]any
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, m)
	}
	return out, lines
}

// The manifest's audit filter, through a real event writer: edits are
// applied and redacted again, protected fields stay, failures leave the
// event unfiltered with filter_error, state persists per session, and the
// chain verifies.
func TestAuditFilterEndToEnd(t *testing.T) {
	filter := `def on_event(ev, state):
    state["n"] = state.get("n", 0) + 1
    cmd = ev.fields.get("command", "")
    if cmd == "boom":
        fail("filter broke")
    if cmd == "drop seq":
        return Audit.drop_field("seq")
    if cmd == "leak":
        return Audit.replace({"note": "token ghp_` + strings.Repeat("A1b2", 9) + `", "auth": "Bearer abc.def.ghi"})
    if ev.event == "policy_decision":
        return Audit.replace({"note": "seq %d call %d" % (ev.sequence, state["n"]), "command": cmd.replace("prod", "[env]")})
    return Audit.drop_field("env")
`
	m, err := ParseManifest("agent-shell.toml", []byte(manifestHead+script("audit", "shell_audit_filter", filter, "")+"\n[audit]\nfilter = \"audit\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	e, err := NewEngineWith(nil, m, RuntimeOptions{Store: state.Open(stateDir)})
	if err != nil {
		t.Fatal(err)
	}
	f := e.AuditFilter()
	if f == nil {
		t.Fatal("no audit filter")
	}
	dir := t.TempDir()
	w, err := telemetry.OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Filter = f
	env := map[string]string{"CI": "true"}
	events := []*telemetry.Event{
		{SessionID: "s1", Event: telemetry.EventToolUse, ToolName: "bash", Command: "ls", Actor: "test", Env: env},
		{SessionID: "s1", Event: telemetry.EventPolicyDecision, Command: "deploy prod", Decision: "allow", Actor: "test", Env: env},
		{SessionID: "s1", Event: telemetry.EventToolUse, ToolName: "bash", Command: "boom", Actor: "test", Env: env},
		{SessionID: "s1", Event: telemetry.EventToolUse, ToolName: "bash", Command: "drop seq", Actor: "test", Env: env},
		{SessionID: "s1", Event: telemetry.EventToolUse, ToolName: "bash", Command: "leak", Actor: "test", Env: env},
		{SessionID: "s1", Event: telemetry.EventPolicyDecision, Command: "deploy prod", Decision: "allow", Actor: "test", Env: env},
	}
	for _, ev := range events {
		if err := w.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	got, raw := auditLines(t, w.Path())
	if len(got) != len(events) {
		t.Fatalf("%d lines, want %d", len(got), len(events))
	}
	// 1: env dropped, nothing else.
	if _, ok := got[0]["env"]; ok || got[0]["command"] != "ls" || got[0]["tags"] == nil || got[0]["filter_error"] != nil {
		t.Errorf("line 1: %s", raw[0])
	}
	// 2: replaced values, a new field, the filter saw the line's seq.
	if got[1]["command"] != "deploy [env]" || got[1]["note"] != "seq 2 call 2" || got[1]["env"] == nil {
		t.Errorf("line 2: %s", raw[1])
	}
	// 3, 4: unfiltered, with filter_error; env kept.
	if fe, _ := got[2]["filter_error"].(string); !strings.Contains(fe, "filter broke") || got[2]["env"] == nil {
		t.Errorf("line 3: %s", raw[2])
	}
	if fe, _ := got[3]["filter_error"].(string); !strings.Contains(fe, `may not drop "seq"`) || got[3]["seq"] != float64(4) || got[3]["env"] == nil {
		t.Errorf("line 4: %s", raw[3])
	}
	// 5: secrets in replacements are redacted again.
	if strings.Contains(raw[4], "ghp_A1b2") || strings.Contains(raw[4], "abc.def.ghi") || got[4]["note"] != "token [REDACTED]" || !strings.Contains(got[4]["auth"].(string), "[REDACTED]") {
		t.Errorf("line 5: %s", raw[4])
	}
	// 6: the session state counted every call that returned an action
	// (the failed call's change was rolled back).
	if got[5]["note"] != "seq 6 call 5" {
		t.Errorf("line 6: note %v, want \"seq 6 call 5\": %s", got[5]["note"], raw[5])
	}
	res, err := telemetry.VerifyFile(w.Path())
	if err != nil || !res.OK() || res.Events != len(events) {
		t.Errorf("verify: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "sessions", "s1", "scripts", "audit.json")); err != nil {
		t.Errorf("session state: %v", err)
	}
}

// A manifest without [audit] has no filter, and neither has one that did
// not load.
func TestAuditFilterAbsent(t *testing.T) {
	if f := mustEngine(t, "", manifestHead+rule("r", ActionDeny, `{ basename = "rm" }`)).AuditFilter(); f != nil {
		t.Error("a manifest without [audit] has a filter")
	}
	if f := (&Engine{LoadErr: ErrLoad}).AuditFilter(); f != nil {
		t.Error("an engine that failed to load has a filter")
	}
}

// An audit filter script can set up to 256 fields of 16 KiB each; the line
// it leads to must still be one that `log` and `log verify` read (at most
// telemetry.MaxLineBytes), or the event is lost to its filter after all.
func TestAuditFilterCannotMakeLinesUnreadable(t *testing.T) {
	filter := "def on_event(ev, state):\n    return Audit.replace({\"f\" + str(i): \"v\" * 16384 for i in range(256)})\n"
	e := mustEngine(t, "", manifestHead+script("big", "shell_audit_filter", filter, "")+"\n[audit]\nfilter = \"big\"\n")
	w, err := telemetry.OpenWriter(t.TempDir(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Filter = e.AuditFilter()
	if err := w.Append(&telemetry.Event{SessionID: "s1", Event: telemetry.EventToolUse, ToolName: "bash", Command: "ls"}); err != nil {
		t.Fatal(err)
	}
	if data := readFileT(t, w.Path()); len(data) > telemetry.MaxLineBytes {
		t.Errorf("the filtered line is %d bytes, over the reader's limit of %d", len(data), telemetry.MaxLineBytes)
	}
	if res, err := telemetry.VerifyFile(w.Path()); err != nil || !res.OK() {
		t.Errorf("verify: %+v %v", res, err)
	}
}

// When a matcher fails on a rule's example, the load error says why (the
// script's own error), not only that it failed.
func TestExampleFailureSaysWhy(t *testing.T) {
	src := manifestHead + script("tf", "shell_matcher", "def on_event(ctx, state):\n    fail(\"unsupported terraform version\")\n", "") +
		"\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"tf\" }\nexamples = { match = [\"terraform destroy\"] }\n"
	m, err := ParseManifest("agent-shell.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewEngine(nil, m)
	if err == nil || !strings.Contains(err.Error(), "unsupported terraform version") {
		t.Errorf("err %v\nwant it to say why the script failed (\"unsupported terraform version\")", err)
	}
	// The same for a runtime error in the script's top level.
	src = manifestHead + script("tf", "shell_matcher", "X = [1][3]\ndef on_event(ctx, state):\n    return Match.no()\n", "") +
		"\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"tf\" }\nexamples = { not_match = [\"terraform plan\"] }\n"
	if m, err = ParseManifest("agent-shell.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	_, err = NewEngine(nil, m)
	if err == nil || !strings.Contains(err.Error(), "index 3 out of range") {
		t.Errorf("err %v\nwant it to say why the script failed (\"index 3 out of range\")", err)
	}
}

// The example extensions in testdata/extensions (run by `agent-shell script
// test` in cmd/agent-shell/testdata/script/extensions_examples.txtar, which
// carries a copy) load and decide as their tests and rules say.
func TestExampleExtensions(t *testing.T) {
	dir := filepath.Join("..", "testdata", "extensions")
	m, err := LoadManifestFile(filepath.Join(dir, "agent-shell.toml"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(nil, m) // the examples in the manifest are checked here
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command string
		want    Action
		rule    string
	}{
		{"terraform destroy", ActionDeny, "no-terraform-destroy"},
		{"cd infra && terraform -chdir=prod apply -destroy -auto-approve", ActionDeny, "no-terraform-destroy"},
		{"git push --force origin HEAD:release/3.0", ActionAsk, "no-push-to-protected"},
		{"git push origin feature/login", ActionAsk, "network-needs-review"},
		{"deploy --dry-run staging", ActionAllow, ""},
		{"deploy production", ActionAsk, "network-needs-review"},
		{"ls -la", ActionAllow, ""},
	}
	for _, tt := range tests {
		d := e.Decide(tt.command, "/src")
		if d.Action != tt.want || d.Rule != tt.rule {
			t.Errorf("%q: %s by %q (%s), want %s by %q", tt.command, d.Action, d.Rule, d.Reason, tt.want, tt.rule)
		}
	}
	if d := e.Decide("deploy --out=build/site production", "/src"); !slices.Contains(d.Effects, "write:/src/build/site") || !slices.Contains(d.Effects, "read:/src/deploy.toml") {
		t.Errorf("deploy effects %q", d.Effects)
	}

	// The audit filter drops env from recorded events.
	w, err := telemetry.OpenWriter(t.TempDir(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Filter = e.AuditFilter()
	if err := w.Append(&telemetry.Event{SessionID: "s1", Event: telemetry.EventToolUse, ToolName: "bash", Command: "ls", Env: map[string]string{"CI": "true"}}); err != nil {
		t.Fatal(err)
	}
	if line := readFileT(t, w.Path()); strings.Contains(line, `"env"`) || strings.Contains(line, "filter_error") {
		t.Errorf("recorded: %s", line)
	}

	// The CLI test's copies are these files.
	ar, err := txtar.ParseFile(filepath.Join("..", "cmd", "agent-shell", "testdata", "script", "extensions_examples.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	copies := map[string]string{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, ".github/hooks/agent-shell/"); ok {
			copies[name] = string(f.Data)
		}
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(dir, path)
		name = filepath.ToSlash(name)
		if c, ok := copies[name]; !ok {
			t.Errorf("extensions_examples.txtar has no copy of %s", name)
		} else if c != readFileT(t, path) {
			t.Errorf("extensions_examples.txtar's copy of %s differs from testdata/extensions/%s", name, name)
		}
		delete(copies, name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range copies {
		t.Errorf("extensions_examples.txtar has %s, which testdata/extensions does not", name)
	}
}

// What a script prints is kept on its run (for the record), bounded by its
// max_output.
func TestScriptPrintIsRecorded(t *testing.T) {
	src := "def on_event(ctx, state):\n    print(\"looking at\", ctx.basename)\n    print(\"x\" * 100)\n    return Match.no()\n"
	e := mustEngine(t, "", manifestHead+script("p", "shell_matcher", src, "")+rule("r", ActionDeny, `{ script = "p" }`))
	d := e.Decide("ls", "/repo")
	if len(d.Extensions) != 1 || d.Extensions[0].Output != "looking at ls\n"+strings.Repeat("x", 100)+"\n" {
		t.Errorf("runs %+v", d.Extensions)
	}
	e = mustEngine(t, "", manifestHead+script("p", "shell_matcher", src, "max_output = 20")+rule("r", ActionDeny, `{ script = "p" }`))
	d = e.Decide("ls", "/repo")
	if out := d.Extensions[0].Output; !strings.HasPrefix(out, "looking at ls\nxxxxxx") || !strings.Contains(out, "[print output truncated]") || len(out) > 60 {
		t.Errorf("with max_output = 20: output %q", out)
	}
	if d.Extensions[0].Outcome != "no" {
		t.Errorf("printing past max_output is not a failure: %+v", d.Extensions[0])
	}
}
