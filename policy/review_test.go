package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/state"
)

// rvScript answers by the command's second word: approve, for-<scope>,
// deny, rewrite, fail, spin (out of fuel), anything else defers. It counts
// its calls in its session state.
const rvScript = `def on_event(ctx, state):
    state["calls"] = state.get("calls", 0) + 1
    a = ctx.argv[1] if len(ctx.argv) > 1 else ""
    if a == "approve":
        return Review.approve()
    if a.startswith("for-"):
        return Review.approve_for(a[4:])
    if a == "deny":
        return Review.deny("not that")
    if a == "rewrite":
        return Review.rewrite(["curl", "--proto", "=https", "https://x"])
    if a == "fail":
        fail("boom")
    if a == "spin":
        n = 0
        for i in range(1000000):
            n += i
    return Review.defer()
`

// reviewManifest: curl asks, rm is denied, everything else is allowed;
// extra adds reviewers and [approvals].
func reviewManifest(extra string) string {
	return "version = 1\n" + rule("curl-asks", ActionAsk, `{ basename = "curl" }`) +
		rule("no-rm", ActionDeny, `{ basename = "rm" }`) + extra
}

const oneReviewer = "\n[[script]]\nid = \"rv\"\nkind = \"shell_reviewer\"\nsource = '''\n" + rvScript + "'''\n\n[[reviewer]]\nscript = \"rv\"\n"

const allScopes = "\n[approvals]\nscopes = [\"once\", \"exact_session\", \"prefix_session\", \"durable_exact\"]\n"

// testStore is where reviewEngine keeps grants and state: under root.
func testStore(root string) *state.Store { return state.Open(filepath.Join(root, StateSubpath)) }

// reviewEngine builds an engine whose grants and state live under root.
func reviewEngine(t *testing.T, root, manifest string) *Engine {
	t.Helper()
	m, err := ParseManifest("agent-shell.toml", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngineWith(nil, m, RuntimeOptions{Store: testStore(root)})
	if err != nil {
		t.Fatal(err)
	}
	e.Root = root
	return e
}

func req(session string) Request { return Request{Cwd: "/w", SessionID: session} }

func reviewerRuns(d Decision) int {
	n := 0
	for _, r := range d.Extensions {
		if r.Kind == "shell_reviewer" {
			n++
		}
	}
	return n
}

func grants(t *testing.T, root string) []state.Grant {
	t.Helper()
	gs, err := testStore(root).ListGrants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

func TestReviewerAnswers(t *testing.T) {
	tests := []struct {
		command string
		extra   string
		want    Action
		reason  string // a substring of the reason
		outcome string
		grants  int
	}{
		{"curl approve", "", ActionAllow, "approved once by reviewer rv", ReviewApproved, 0},
		{"curl for-once", "", ActionAllow, "approved once by reviewer rv", ReviewApproved, 0},
		{"curl for-exact_session", "", ActionAllow, "approved by reviewer rv for exact_session (grant g-", ReviewApproved, 1},
		{"curl for-prefix_session", "", ActionDeny, "reviewer rv granted scope prefix_session, which the manifest does not offer", ReviewDenied, 0},
		{"curl for-durable_exact", "", ActionDeny, "reviewer rv granted scope durable_exact, which the manifest does not offer", ReviewDenied, 0},
		{"curl for-prefix_session", allScopes, ActionAllow, "approved by reviewer rv for prefix_session", ReviewApproved, 1},
		{"curl for-durable_exact", allScopes, ActionAllow, "approved by reviewer rv for durable_exact", ReviewApproved, 1},
		{"curl approve", "\n[approvals]\nscopes = [\"exact_session\"]\n", ActionDeny, "granted scope once, which the manifest does not offer", ReviewDenied, 0},
		{"curl for-exact_session", "\n[approvals]\nscopes = []\n", ActionDeny, "granted scope exact_session, which the manifest does not offer ([approvals] scopes = [])", ReviewDenied, 0},
		{"curl deny", "", ActionDeny, "rv: not that", ReviewDenied, 0},
		{"curl rewrite", "", ActionDeny, "reviewer rv suggests: curl --proto =https https://x", ReviewDenied, 0},
		{"curl defer", "", ActionAsk, "all reviewers deferred: Command 'curl defer' needs approval (rule curl-asks: matched)", ReviewDeferred, 0},
		{"curl fail", "", ActionDeny, "reviewer rv failed (error: ", ReviewDenied, 0},
		{"curl fail", "failure = \"defer\"", ActionAsk, "all reviewers deferred", ReviewDeferred, 0},
		{"curl spin", "fuel = 2000", ActionDeny, "reviewer rv failed (fuel: out of fuel", ReviewDenied, 0},
		{"curl spin", "fuel = 2000\nfailure = \"defer\"", ActionAsk, "all reviewers deferred", ReviewDeferred, 0},
	}
	for _, tt := range tests {
		t.Run(tt.command+tt.extra, func(t *testing.T) {
			root := t.TempDir()
			manifest := reviewManifest(strings.Replace(oneReviewer, "'''\n\n[[reviewer]]", "'''\n"+tt.extra+"\n\n[[reviewer]]", 1))
			if strings.HasPrefix(tt.extra, "\n[approvals]") {
				manifest = reviewManifest(oneReviewer + tt.extra)
			}
			e := reviewEngine(t, root, manifest)
			d := e.DecideRequest(tt.command, req("s1"))
			if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("%s (%s), want %s with %q", d.Action, d.Reason, tt.want, tt.reason)
			}
			if d.Review == nil || d.Review.Outcome != tt.outcome {
				t.Errorf("review %+v, want outcome %s", d.Review, tt.outcome)
			}
			if reviewerRuns(d) != 1 {
				t.Errorf("%d reviewer runs, want 1: %+v", reviewerRuns(d), d.Extensions)
			}
			if gs := grants(t, root); len(gs) != tt.grants {
				t.Errorf("%d grants stored, want %d: %+v", len(gs), tt.grants, gs)
			}
			if d.Rule != "curl-asks" {
				t.Errorf("rule %q, want curl-asks", d.Rule)
			}
		})
	}
}

// The review step records each answer, with the failure reason where there
// was one.
func TestReviewSteps(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(strings.Replace(oneReviewer, "'''\n\n[[reviewer]]", "'''\nfuel = 2000\n\n[[reviewer]]", 1)))
	d := e.DecideRequest("curl spin", req("s1"))
	if len(d.Review.Steps) != 1 {
		t.Fatalf("steps %+v", d.Review.Steps)
	}
	st := d.Review.Steps[0]
	if st.Reviewer != "rv" || st.Answer != "fuel" || st.Outcome != "deny" || !strings.Contains(st.Reason, "fuel: out of fuel") ||
		st.CommandLine() != "curl spin" || !st.Failed() {
		t.Errorf("step %+v", st)
	}
	if x := d.Extensions[len(d.Extensions)-1]; x.Script != "rv" || x.Outcome != "fuel" || x.Error == "" {
		t.Errorf("extension run %+v", x)
	}
	d = e.DecideRequest("curl for-exact_session", req("s1"))
	st = d.Review.Steps[0]
	if st.Answer != "approve_for" || st.Scope != "exact_session" || !strings.HasPrefix(st.Grant, "g-") || st.Outcome != "allow" || st.Failed() {
		t.Errorf("step %+v", st)
	}
}

// Hard deny rules come first: no reviewer runs, nothing overturns them.
func TestReviewNeverOverturnsDeny(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer))
	for _, cmd := range []string{"rm -rf /", "curl approve && rm x", "curl for-exact_session; rm x"} {
		d := e.DecideRequest(cmd, req("s1"))
		if d.Action != ActionDeny || d.Rule != "no-rm" || d.Review != nil || reviewerRuns(d) != 0 {
			t.Errorf("%q: %s by %q (%s), review %+v, %d reviewer runs", cmd, d.Action, d.Rule, d.Reason, d.Review, reviewerRuns(d))
		}
	}
	// A grant never covers a deny either.
	if d := e.DecideRequest("curl for-exact_session", req("s1")); d.Action != ActionAllow {
		t.Fatalf("%s (%s)", d.Action, d.Reason)
	}
	if d := e.DecideRequest("curl for-exact_session && rm x", req("s1")); d.Action != ActionDeny || d.Rule != "no-rm" {
		t.Errorf("granted curl with rm: %s (%s)", d.Action, d.Reason)
	}
	// An allow is not reviewed.
	if d := e.DecideRequest("ls", req("s1")); d.Action != ActionAllow || d.Review != nil || reviewerRuns(d) != 0 {
		t.Errorf("ls: %s, review %+v", d.Action, d.Review)
	}
}

func TestReviewerChain(t *testing.T) {
	second := func(answer string) string {
		return "\n[[script]]\nid = \"second\"\nkind = \"shell_reviewer\"\nsource = '''\ndef on_event(ctx, state):\n    return " + answer + "\n'''\n\n[[reviewer]]\nscript = \"second\"\n"
	}
	tests := []struct {
		command, answer string
		want            Action
		reason          string
		runs            int
	}{
		{"curl defer", `Review.approve()`, ActionAllow, "approved once by reviewer second", 2},
		{"curl defer", `Review.deny("no")`, ActionDeny, "second: no", 2},
		{"curl defer", `Review.defer()`, ActionAsk, "all reviewers deferred", 2},
		{"curl deny", `Review.approve()`, ActionDeny, "rv: not that", 1},        // first terminal answer wins
		{"curl approve", `Review.deny("no")`, ActionAllow, "by reviewer rv", 1}, // the second never runs
		{"curl fail", `Review.approve()`, ActionDeny, "reviewer rv failed", 1},  // a failure denies by default
	}
	for _, tt := range tests {
		e := reviewEngine(t, t.TempDir(), reviewManifest(oneReviewer+second(tt.answer)))
		d := e.DecideRequest(tt.command, req("s1"))
		if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) || reviewerRuns(d) != tt.runs {
			t.Errorf("%q then %s: %s (%s) after %d runs; want %s with %q after %d", tt.command, tt.answer, d.Action, d.Reason, reviewerRuns(d), tt.want, tt.reason, tt.runs)
		}
	}
	// A failure declared "defer" passes to the next reviewer.
	e := reviewEngine(t, t.TempDir(), reviewManifest(strings.Replace(oneReviewer, "'''\n\n[[reviewer]]", "'''\nfailure = \"defer\"\n\n[[reviewer]]", 1)+second(`Review.approve()`)))
	if d := e.DecideRequest("curl fail", req("s1")); d.Action != ActionAllow || !strings.Contains(d.Reason, "by reviewer second") {
		t.Errorf("failure deferred: %s (%s)", d.Action, d.Reason)
	}
}

// Reviewers see the command, the policy decision and the offered scopes.
func TestReviewerContext(t *testing.T) {
	src := "\n[[script]]\nid = \"look\"\nkind = \"shell_reviewer\"\nlifecycle = \"invocation\"\nsource = '''\n" +
		`def on_event(ctx, state):
    m = ctx.policy.matches[0]
    return Review.deny("|".join([ctx.phase, ctx.version, ctx.basename, " ".join(ctx.argv), ctx.policy.action, m.rule_id, m.action, ",".join(ctx.offered_scopes), ctx.session_id, ctx.cwd]))
` + "'''\n\n[[reviewer]]\nscript = \"look\"\n[approvals]\nscopes = [\"once\", \"prefix_session\"]\n"
	e := reviewEngine(t, t.TempDir(), reviewManifest(src))
	d := e.DecideRequest("sudo curl -s x", req("s1"))
	want := "look: shell_reviewer|shell-context-v1|sudo|sudo curl -s x|ask|curl-asks|ask|once,prefix_session|s1|/w"
	if d.Action != ActionDeny || d.Reason != want {
		t.Errorf("%s (%s), want deny (%s)", d.Action, d.Reason, want)
	}
}

func TestReviewCompound(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer))
	tests := []struct {
		command string
		want    Action
		runs    int
	}{
		{"curl approve && curl for-once", ActionAllow, 2},
		{"curl approve && ls && curl defer", ActionAsk, 2},
		{"curl deny; curl approve", ActionDeny, 1},      // reviewing stops at the first denial
		{"curl approve | curl approve", ActionAllow, 1}, // the same command is reviewed once
	}
	for _, tt := range tests {
		d := e.DecideRequest(tt.command, req("s1"))
		if d.Action != tt.want || reviewerRuns(d) != tt.runs {
			t.Errorf("%q: %s (%s) after %d runs, want %s after %d", tt.command, d.Action, d.Reason, reviewerRuns(d), tt.want, tt.runs)
		}
	}
	// A grant asked for on a line that is not approved as a whole is not
	// stored.
	if d := e.DecideRequest("curl for-exact_session && curl defer", req("s1")); d.Action != ActionAsk {
		t.Fatalf("%s (%s)", d.Action, d.Reason)
	}
	if gs := grants(t, root); len(gs) != 0 {
		t.Errorf("grants stored for a line left to the host: %+v", gs)
	}
	// A line is approved by grants only when they cover every command that
	// asked; the others are reviewed.
	if d := e.DecideRequest("curl for-exact_session", req("s1")); d.Action != ActionAllow {
		t.Fatalf("%s (%s)", d.Action, d.Reason)
	}
	d := e.DecideRequest("curl for-exact_session && curl defer", req("s1"))
	if d.Action != ActionAsk || reviewerRuns(d) != 1 {
		t.Errorf("half granted: %s (%s) after %d runs", d.Action, d.Reason, reviewerRuns(d))
	}
	d = e.DecideRequest("curl for-exact_session && curl approve", req("s1"))
	if d.Action != ActionAllow || reviewerRuns(d) != 1 || d.Review.Outcome != ReviewApproved ||
		!strings.Contains(d.Reason, "approved by grant g-") || !strings.Contains(d.Reason, "approved once by reviewer rv") {
		t.Errorf("granted and approved: %s (%s) after %d runs", d.Action, d.Reason, reviewerRuns(d))
	}
	d = e.DecideRequest("curl for-exact_session; curl for-exact_session", req("s1"))
	if d.Action != ActionAllow || reviewerRuns(d) != 0 || d.Review.Outcome != ReviewGranted {
		t.Errorf("granted twice over: %s (%s) after %d runs", d.Action, d.Reason, reviewerRuns(d))
	}
}

func TestGrantExactSession(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer))
	d := e.DecideRequest("curl for-exact_session", req("s1"))
	if d.Action != ActionAllow || reviewerRuns(d) != 1 {
		t.Fatalf("%s (%s)", d.Action, d.Reason)
	}
	gs := grants(t, root)
	if len(gs) != 1 || gs[0].Scope != "exact_session" || gs[0].SessionID != "s1" || gs[0].Reviewer != "rv" ||
		strings.Join(gs[0].Argv, " ") != "curl for-exact_session" || gs[0].Cwd != "/w" || gs[0].Program != "name:curl" ||
		gs[0].ManifestSHA256 != e.Manifest.Digest || gs[0].ExpiresAt != nil {
		t.Fatalf("grants %+v", gs)
	}
	id := gs[0].ID
	if _, err := os.Stat(filepath.Join(root, ".agent-shell/state/sessions/s1/grants.json")); err != nil {
		t.Fatal(err)
	}
	// The same request in the same session: the grant, no reviewer.
	d = e.DecideRequest("curl for-exact_session", req("s1"))
	if d.Action != ActionAllow || reviewerRuns(d) != 0 || d.Reason != "approved by grant "+id+" (exact_session, by reviewer rv)" ||
		d.Review.Outcome != ReviewGranted || d.Review.Steps[0].Answer != "grant" || d.Review.Steps[0].Grant != id {
		t.Errorf("same session: %s (%s), review %+v", d.Action, d.Reason, d.Review)
	}
	if gs := grants(t, root); gs[0].LastUsedAt == nil {
		t.Errorf("last_used_at not set")
	}
	// Another session, another argv, another cwd: reviewed again.
	for _, r := range []struct {
		cmd string
		req Request
	}{
		{"curl for-exact_session", req("s2")},
		{"curl for-exact_session x", req("s1")},
		{"curl for-exact_session", Request{Cwd: "/elsewhere", SessionID: "s1"}},
		{"PATH=/tmp curl for-exact_session", req("s1")},
		{"curl for-exact_session > out", req("s1")},
		{"/opt/bin/curl for-exact_session", req("s1")},
		{"sudo curl for-exact_session", req("s1")},
	} {
		d := e.DecideRequest(r.cmd, r.req)
		if reviewerRuns(d) != 1 || d.Review.Outcome == ReviewGranted {
			t.Errorf("%q in %+v: used the grant: %s (%s)", r.cmd, r.req, d.Action, d.Reason)
		}
	}
	// Without a session there is nothing to keep a session grant with: the
	// reviewer (session state or not) approves this call once, and no grant
	// is stored.
	for _, manifest := range []string{oneReviewer, strings.Replace(oneReviewer, "'''\n\n[[reviewer]]", "'''\nlifecycle = \"invocation\"\n\n[[reviewer]]", 1)} {
		e = reviewEngine(t, t.TempDir(), reviewManifest(manifest))
		d = e.DecideRequest("curl for-exact_session", Request{Cwd: "/w"})
		if d.Action != ActionAllow || !strings.Contains(d.Reason, "approved once by reviewer rv (exact_session granted, but grant not stored: the request has no session id") {
			t.Errorf("no session: %s (%s)", d.Action, d.Reason)
		}
		for _, st := range d.Review.Steps {
			if st.Grant != "" {
				t.Errorf("no session: grant %s was kept", st.Grant)
			}
		}
	}
}

func TestGrantPrefixSession(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer+allScopes))
	if d := e.DecideRequest("curl for-prefix_session", req("s1")); d.Action != ActionAllow {
		t.Fatalf("%s (%s)", d.Action, d.Reason)
	}
	d := e.DecideRequest("curl for-prefix_session --max-time 5 https://x", req("s1"))
	if d.Action != ActionAllow || reviewerRuns(d) != 0 || !strings.Contains(d.Reason, "(prefix_session, by reviewer rv)") {
		t.Errorf("longer argv: %s (%s) after %d runs", d.Action, d.Reason, reviewerRuns(d))
	}
	for _, r := range []struct {
		cmd string
		req Request
	}{
		{"curl for-prefix_session x", Request{Cwd: "/elsewhere", SessionID: "s1"}},
		{"curl for-prefix_session x", req("s2")},
		{"curl defer for-prefix_session", req("s1")},
		{"curl", req("s1")},
	} {
		if d := e.DecideRequest(r.cmd, r.req); reviewerRuns(d) != 1 {
			t.Errorf("%q in %+v: used the prefix grant: %s (%s)", r.cmd, r.req, d.Action, d.Reason)
		}
	}
	// Another manifest is another scope.
	e2 := reviewEngine(t, root, reviewManifest(oneReviewer+allScopes)+"# changed\n")
	if d := e2.DecideRequest("curl for-prefix_session x", req("s1")); reviewerRuns(d) != 1 {
		t.Errorf("another manifest used the prefix grant: %s (%s)", d.Action, d.Reason)
	}
}

func TestGrantDurable(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer+allScopes+"durable_days = 10\n"))
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := func(session string, t time.Time) Request { return Request{Cwd: "/w", SessionID: session, Time: t} }
	if d := e.DecideRequest("curl for-durable_exact", at("s1", now)); d.Action != ActionAllow {
		t.Fatalf("%s (%s)", d.Action, d.Reason)
	}
	gs := grants(t, root)
	if len(gs) != 1 || gs[0].SessionID != "" || gs[0].ExpiresAt == nil || !gs[0].ExpiresAt.Equal(now.Add(10*24*time.Hour)) {
		t.Fatalf("grants %+v", gs)
	}
	if _, err := os.Stat(filepath.Join(root, ".agent-shell/state/grants.json")); err != nil {
		t.Fatal(err)
	}
	// Any session, until it expires.
	for _, s := range []string{"s1", "s2", ""} {
		if d := e.DecideRequest("curl for-durable_exact", at(s, now.Add(24*time.Hour))); reviewerRuns(d) != 0 || d.Action != ActionAllow {
			t.Errorf("session %q: %s (%s)", s, d.Action, d.Reason)
		}
	}
	if d := e.DecideRequest("curl for-durable_exact", at("s2", now.Add(11*24*time.Hour))); reviewerRuns(d) != 1 {
		t.Errorf("expired grant used: %s (%s)", d.Action, d.Reason)
	}
	// Exact: a longer argv is reviewed.
	if d := e.DecideRequest("curl for-durable_exact x", at("s2", now)); reviewerRuns(d) != 1 {
		t.Errorf("durable grant used as a prefix")
	}
	// Revoked: not used.
	if _, err := testStore(root).RevokeGrant(context.Background(), gs[0].ID, "test", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// (the reviewer stored a second grant when the first expired)
	for _, g := range grants(t, root) {
		if g.RevokedAt == nil {
			if _, err := testStore(root).RevokeGrant(context.Background(), g.ID, "test", now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := e.DecideRequest("curl for-durable_exact", at("s1", now.Add(2*time.Hour))); reviewerRuns(d) != 1 {
		t.Errorf("revoked grant used: %s (%s)", d.Action, d.Reason)
	}
}

// A command that is not static has no identity to check later: approved
// once, no grant stored.
func TestGrantNotStatic(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer))
	d := e.DecideRequest("curl for-exact_session $URL", req("s1"))
	if d.Action != ActionAllow || !strings.Contains(d.Reason, "approved once by reviewer rv (exact_session granted, but grant not stored") {
		t.Errorf("%s (%s)", d.Action, d.Reason)
	}
	if gs := grants(t, root); len(gs) != 0 {
		t.Errorf("grants %+v", gs)
	}
}

// The grant store fails closed.
func TestGrantStoreFailures(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(oneReviewer+allScopes))
	dir := filepath.Join(root, StateSubpath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A grant that cannot be written: deny.
	if err := os.Mkdir(filepath.Join(dir, "grants.json.tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	d := e.DecideRequest("curl for-durable_exact", req("s1"))
	if d.Action != ActionDeny || !strings.Contains(d.Reason, "grant cannot be stored") || d.Review.Outcome != ReviewDenied {
		t.Errorf("unwritable: %s (%s)", d.Action, d.Reason)
	}
	// A corrupt grants file: deny, even for what a reviewer would approve.
	if err := os.WriteFile(filepath.Join(dir, "grants.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	d = e.DecideRequest("curl approve", req("s1"))
	if d.Action != ActionDeny || !strings.Contains(d.Reason, "approval grants cannot be read") || reviewerRuns(d) != 0 {
		t.Errorf("corrupt: %s (%s)", d.Action, d.Reason)
	}
	// An engine with no store keeps no grants: a scope cannot be granted.
	e.store = nil
	if d := e.DecideRequest("curl for-exact_session", req("s1")); d.Action != ActionDeny || !strings.Contains(d.Reason, "no state folder") {
		t.Errorf("no store: %s (%s)", d.Action, d.Reason)
	}
	if d := e.DecideRequest("curl approve", req("s1")); d.Action != ActionAllow {
		t.Errorf("no store, once: %s (%s)", d.Action, d.Reason)
	}
}

// Without reviewers nothing changes: an ask stays an ask, no grant file is
// read.
func TestNoReviewers(t *testing.T) {
	root := t.TempDir()
	e := reviewEngine(t, root, reviewManifest(""))
	d := e.DecideRequest("curl approve", req("s1"))
	if d.Action != ActionAsk || d.Review != nil {
		t.Errorf("%s (%s), review %+v", d.Action, d.Reason, d.Review)
	}
	if _, err := os.Stat(filepath.Join(root, ".agent-shell")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state touched: %v", err)
	}
}

// A line that does not parse is left to the host.
func TestReviewSkipsUnparsed(t *testing.T) {
	e := reviewEngine(t, t.TempDir(), reviewManifest(oneReviewer))
	d := e.DecideRequest("curl approve 'unterminated", req("s1"))
	if d.Action != ActionAsk || d.Review == nil || d.Review.Outcome != ReviewSkipped || reviewerRuns(d) != 0 {
		t.Errorf("%s (%s), review %+v", d.Action, d.Reason, d.Review)
	}
}

func TestReviewerManifestErrors(t *testing.T) {
	rv := "\n[[script]]\nid = \"rv\"\nkind = \"shell_reviewer\"\nsource = \"def on_event(ctx, state):\\n    return Review.defer()\\n\"\n"
	m := "\n[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"def on_event(ctx, state):\\n    return Match.no()\\n\"\n"
	tests := []struct {
		body, want string
	}{
		{"\n[approvals]\nscopes = [\"forever\"]\n", `agent-shell.toml:4: approvals.scopes: "forever": want once, exact_session, prefix_session, durable_exact`},
		{"\n[approvals]\nscopes = [\"once\", \"once\"]\n", `agent-shell.toml:4: approvals.scopes: "once" is listed twice`},
		{"\n[approvals]\ndurable_days = 400\n", `agent-shell.toml:4: approvals.durable_days: 400: want 1 to 365 days`},
		{"\n[[reviewer]]\nscript = \"nope\"\n", `agent-shell.toml:3: reviewer[1].script: no [[script]] has id "nope"`},
		{"\n[[reviewer]]\n", `agent-shell.toml:3: reviewer[1].script: every reviewer names its shell_reviewer script`},
		{m + "\n[[reviewer]]\nscript = \"m\"\n", `reviewer[1].script: script "m" is a shell_matcher, not a shell_reviewer`},
		{rv + "\n[[reviewer]]\nscript = \"rv\"\n\n[[reviewer]]\nscript = \"rv\"\n", `reviewer[2].script: reviewer "rv" is listed twice`},
		{"\n[approvals]\nscope = [\"once\"]\n", `approvals.scope: unknown key`},
	}
	for _, tt := range tests {
		_, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"+tt.body))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.body, err, tt.want)
		}
		var me *ManifestError
		if err != nil && !errors.As(err, &me) {
			t.Errorf("%q: %T, want a *ManifestError", tt.body, err)
		}
	}
	got, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Approvals.Scopes, ",") != "once,exact_session" || got.Approvals.DurableDays != 30 {
		t.Errorf("defaults %+v", got.Approvals)
	}
}

// A grant never covers a command whose directory or environment an earlier
// command of the line changed: `cd /etc && curl x` is not the `curl x`
// approved in the project.
func TestGrantIgnoresShiftedCommands(t *testing.T) {
	src := manifestHead + script("rv", "shell_reviewer", "def on_event(ctx, state):\n    return Review.approve_for(\"exact_session\")\n", "") +
		"\n[[reviewer]]\nscript = \"rv\"\n[approvals]\nscopes = [\"once\", \"exact_session\"]\n"
	root, _ := writeRepo(t, src, nil)
	e := Load(root, configEnv(t))
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	req := Request{Cwd: root, SessionID: "s1"}
	if d := e.DecideRequest("curl x", req); d.Action != ActionAllow || !strings.Contains(d.Reason, "grant") {
		t.Fatalf("first curl: %s (%s), want allowed with a grant", d.Action, d.Reason)
	}
	for _, line := range []string{"cd /etc && curl x", "PATH=/tmp/evil; curl x", "export PATH=/tmp/evil; curl x"} {
		d := e.DecideRequest(line, req)
		if d.Review == nil {
			t.Fatalf("%q: no review", line)
		}
		reviewed := false
		for _, s := range d.Review.Steps {
			if len(s.Command) == 0 || s.Command[0] != "curl" {
				continue // the cd or export itself is an ordinary command
			}
			reviewed = true
			if s.Answer == "grant" || s.Grant != "" {
				t.Errorf("%q: step %+v uses or stores a grant", line, s)
			}
		}
		if !reviewed {
			t.Errorf("%q: the curl was not reviewed: %+v", line, d.Review.Steps)
		}
	}
}

// EventTimeout bounds a hook decision's extensions together: a reviewer
// that would run for seconds fails when the decision's time is up, and its
// failure denies; the answer comes well before the host's own timeout.
func TestEventTimeoutBoundsExtensions(t *testing.T) {
	spin := "def on_event(ctx, state):\n    for i in range(100000000):\n        pass\n    return Review.approve()\n"
	src := manifestHead + script("rv", "shell_reviewer", spin, "fuel = 100000000\ntimeout = \"20s\"\n") +
		"\n[[reviewer]]\nscript = \"rv\"\n"
	root, _ := writeRepo(t, src, nil)
	e := Load(root, noEnv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	e.EventTimeout = 100 * time.Millisecond
	ev := &hostapi.Event{Agent: "claude", Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Command: "make deploy", Cwd: root, SessionID: "s1"}
	start := time.Now()
	d := e.DecideEvent(ev)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("decision took %v with a 100ms bound", took)
	}
	if d.Action != ActionDeny || !strings.Contains(d.Reason, "reviewer rv failed") {
		t.Errorf("decision %s (%s), want deny: the reviewer ran out of time", d.Action, d.Reason)
	}
}
