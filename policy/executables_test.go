package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// hookScript is a shell-hook-json-v1 executable that answers every request
// with body (its request_id echoed), and keeps the request it got in
// request.json in its working directory, the manifest's folder.
func hookScript(body string) string {
	return "#!/bin/sh\nreq=$(cat)\nprintf '%s' \"$req\" > request.json 2>/dev/null\n" +
		"id=$(printf '%s' \"$req\" | sed 's/.*\"request_id\":\"\\([^\"]*\\)\".*/\\1/')\n" +
		"printf '{\"version\":1,\"request_id\":\"%s\",%s}' \"$id\" '" + body + "'\n"
}

func pin(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// writeExecutable writes an executable hook beside the manifest.
func writeExecutable(t *testing.T, path, text string) {
	t.Helper()
	writeFile(t, path, text)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func executableDecl(id, kind, name, sum string) string {
	return "\n[[script]]\nid = \"" + id + "\"\nkind = \"" + kind + "\"\nexecutable = \"" + name + "\"\nsha256 = \"" + sum + "\"\n"
}

func TestExecutableAnalyzerAndReviewer(t *testing.T) {
	analyzer := hookScript(`"action":"add_effects","effects":["network"]`)
	reviewer := hookScript(`"decision":"approve_once"`)
	manifest := "version = 1\n[policy]\ndefault = \"allow\"\n" +
		executableDecl("net", "shell_effect_analyzer", "hooks/net.sh", pin(analyzer)) +
		"\n[[analyzer]]\nscript = \"net\"\n" +
		executableDecl("rv", "shell_reviewer", "hooks/rv.sh", pin(reviewer)) +
		"\n[[reviewer]]\nscript = \"rv\"\n[approvals]\nscopes = [\"once\"]\n" +
		"\n[[rule]]\nid = \"net-asks\"\naction = \"ask\"\nmatch = { effect = \"network\" }\n"
	root, mpath := writeRepo(t, manifest, nil)
	dir := filepath.Dir(mpath)
	writeExecutable(t, filepath.Join(dir, "hooks/net.sh"), analyzer)
	writeExecutable(t, filepath.Join(dir, "hooks/rv.sh"), reviewer)
	e := Load(root, noEnv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	if err := e.Manifest.VerifyExecutables(); err != nil {
		t.Fatal(err)
	}
	// The analyzer adds network to an unlisted program; the rule asks; the
	// reviewer approves once.
	d := e.DecideRequest("mytool --upload", Request{Cwd: root, SessionID: "s1"})
	if d.Action != ActionAllow || !strings.Contains(strings.Join(d.Effects, ","), "network") {
		t.Fatalf("decision %s (%s), effects %v; want allow after the reviewer, with network", d.Action, d.Reason, d.Effects)
	}
	var kinds []string
	for _, r := range d.Extensions {
		kinds = append(kinds, r.Script+":"+r.Outcome)
	}
	if got := strings.Join(kinds, " "); got != "net:add rv:approve" {
		t.Errorf("runs %q, want the analyzer's add then the reviewer's approve", got)
	}
	// The reviewer got the approval_request payload (docs/hook-protocol.md,
	// "Payloads") with the offered scopes.
	req, err := os.ReadFile(filepath.Join(dir, "request.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"hook_id":"rv"`, `"kind":"reviewer"`, `"event":"approval_request"`, `"display_command":"mytool --upload"`,
		`"offered_scopes":["once"]`, `"command":{"arguments":["--upload"],"program":"mytool"}`} {
		if !strings.Contains(string(req), want) {
			t.Errorf("request %s\nlacks %s", req, want)
		}
	}

	// An executable that no longer matches its pin does not run: the
	// analyzer fails (unknown:analyzer failed), and policy check says so.
	writeExecutable(t, filepath.Join(dir, "hooks/net.sh"), analyzer+"# changed\n")
	e = Load(root, noEnv)
	if err := e.Manifest.VerifyExecutables(); err == nil || !strings.Contains(err.Error(), "net") {
		t.Errorf("VerifyExecutables after a change: %v, want an error naming the script", err)
	}
	d = e.DecideRequest("mytool --upload", Request{Cwd: root, SessionID: "s1"})
	if !strings.Contains(strings.Join(d.Effects, ","), "unknown:analyzer failed: net (pin)") {
		t.Errorf("effects %v, want unknown:analyzer failed: net (pin)", d.Effects)
	}
}

func TestExecutableAuditFilter(t *testing.T) {
	filter := hookScript(`"action":"drop_field","field":"env"`)
	manifest := "version = 1\n" + executableDecl("af", "shell_audit_filter", "af.sh", pin(filter)) + "\n[audit]\nfilter = \"af\"\n"
	root, mpath := writeRepo(t, manifest, nil)
	writeExecutable(t, filepath.Join(filepath.Dir(mpath), "af.sh"), filter)
	e := Load(root, noEnv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	w, err := telemetry.OpenWriter(t.TempDir(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Filter = e.AuditFilter()
	if err := w.Append(&telemetry.Event{SessionID: "s1", Event: telemetry.EventToolUse, Command: "ls", Env: map[string]string{"CI": "true"}}); err != nil {
		t.Fatal(err)
	}
	line, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(line), `"env"`) || strings.Contains(string(line), "filter_error") || !strings.Contains(string(line), `"command":"ls"`) {
		t.Errorf("line %s: want env dropped by the executable filter", line)
	}
}

func TestExecutableDeclarationErrors(t *testing.T) {
	sum := strings.Repeat("a", 64)
	for _, tc := range []struct{ name, decl, key, msg string }{
		{"no pin", "[[script]]\nid = \"x\"\nkind = \"shell_reviewer\"\nexecutable = \"x.sh\"\n", "script[1].sha256", "needs its sha256 pin"},
		{"short pin", "[[script]]\nid = \"x\"\nkind = \"shell_reviewer\"\nexecutable = \"x.sh\"\nsha256 = \"abc\"\n", "script[1].sha256", "needs its sha256 pin"},
		{"pin without executable", "[[script]]\nid = \"x\"\nkind = \"shell_reviewer\"\nsource = \"x = 1\"\nsha256 = \"" + sum + "\"\n", "script[1].sha256", "pins an executable"},
		{"matcher executable", "[[script]]\nid = \"x\"\nkind = \"shell_matcher\"\nexecutable = \"x.sh\"\nsha256 = \"" + sum + "\"\n", "script[1].executable", "Starlark only"},
		{"outside the folder", "[[script]]\nid = \"x\"\nkind = \"shell_reviewer\"\nexecutable = \"../x.sh\"\nsha256 = \"" + sum + "\"\n", "script[1].executable", "inside the manifest's folder"},
		{"executable and src", "[[script]]\nid = \"x\"\nkind = \"shell_reviewer\"\nsrc = \"x.star\"\nexecutable = \"x.sh\"\nsha256 = \"" + sum + "\"\n", "script[1].src", "more than one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"+tc.decl))
			me, ok := err.(*ManifestError)
			if !ok || me.Key != tc.key || !strings.Contains(me.Msg, tc.msg) {
				t.Errorf("err %v, want %s: ...%s...", err, tc.key, tc.msg)
			}
		})
	}
}

// An executable reviewer's expires_at ends its grant, but cannot make a
// durable grant outlast [approvals] durable_days.
func TestExecutableReviewerExpiry(t *testing.T) {
	for _, tc := range []struct {
		scope   string
		expires int64 // what the reviewer answers
		want    time.Time
	}{
		{"exact_session", 2000000000, time.Unix(2000000000, 0)},
		{"durable_exact", 4000000000, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}, // capped at one day
		{"durable_exact", 1796000000, time.Unix(1796000000, 0)},                       // sooner than the cap
	} {
		reviewer := hookScript(`"decision":"approve_scope","scope":"` + tc.scope + `","expires_at":` + strconv.FormatInt(tc.expires, 10))
		manifest := "version = 1\n[policy]\ndefault = \"ask\"\n" +
			executableDecl("rv", "shell_reviewer", "rv.sh", pin(reviewer)) +
			"\n[[reviewer]]\nscript = \"rv\"\n[approvals]\nscopes = [\"" + tc.scope + "\"]\ndurable_days = 1\n"
		root, mpath := writeRepo(t, manifest, nil)
		writeExecutable(t, filepath.Join(filepath.Dir(mpath), "rv.sh"), reviewer)
		getenv := configEnv(t)
		e := Load(root, getenv)
		if e.LoadErr != nil {
			t.Fatal(e.LoadErr)
		}
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		if d := e.DecideRequest("make deploy", Request{Cwd: root, SessionID: "s1", Time: now}); d.Action != ActionAllow {
			t.Fatalf("%s: %s (%s), want allow", tc.scope, d.Action, d.Reason)
		}
		store, err := GrantStore(root, getenv)
		if err != nil {
			t.Fatal(err)
		}
		grants, err := store.ListGrants(context.Background())
		if err != nil || len(grants) != 1 || grants[0].ExpiresAt == nil {
			t.Fatalf("%s: grants %+v, %v", tc.scope, grants, err)
		}
		if got := *grants[0].ExpiresAt; !got.Equal(tc.want) {
			t.Errorf("%s answering %d: expires %v, want %v", tc.scope, tc.expires, got, tc.want)
		}
	}
}
