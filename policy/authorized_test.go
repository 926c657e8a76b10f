package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/guard"
)

// The authorized manifest denies curl; the changed one allows it.
const authManifest = `version = 1

[policy]
default = "allow"
%s

[[rule]]
id = "no-curl"
action = "deny"
reason = "no network"
match = { basename = "curl" }
`

func manifestWith(policyLine string) string {
	return strings.Replace(authManifest, "%s", policyLine, 1)
}

const changedManifest = `version = 1

[policy]
default = "allow"
unauthorized = "warn"
`

// authorize authorizes the configuration under root as a human would.
func authorize(t *testing.T, root, cfg string) *Proposal {
	t.Helper()
	p, err := ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Accept([]string{"claude"}, nil, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigDigestCoversEveryFile(t *testing.T) {
	manifest := `version = 1

[[script]]
id = "m"
kind = "shell_matcher"
src = "scripts/m.star"

[[rule]]
id = "r"
action = "deny"
match = { script = "m" }
`
	root, _ := writeRepo(t, manifest, map[string]string{
		"scripts/m.star":   "load(\"./lib.star\", \"bad\")\ndef on_event(ctx, state):\n    return Match.yes(\"x\") if bad(ctx) else Match.no(\"y\")\n",
		"scripts/lib.star": "def bad(ctx):\n    return False\n",
		"policy.json":      `{"deny":["sudo *"]}`,
	})
	dir := filepath.Join(root, ConfigFolder)
	digest := func() string {
		t.Helper()
		e := Load(root, noEnv)
		if e.LoadErr != nil {
			t.Fatal(e.LoadErr)
		}
		if len(e.ConfigDigest) != 64 {
			t.Fatalf("digest %q", e.ConfigDigest)
		}
		return e.ConfigDigest
	}
	seen := map[string]string{}
	first := digest()
	seen[first] = "the start"
	for _, step := range []struct {
		what, file, text string
		same             bool
	}{
		{what: "the manifest", file: "agent-shell.toml", text: manifest + "# a comment\n"},
		{what: "a script", file: "scripts/m.star", text: "load(\"./lib.star\", \"bad\")\ndef on_event(ctx, state):\n    return Match.no(\"y\")\n"},
		{what: "a loaded module", file: "scripts/lib.star", text: "def bad(ctx):\n    return True\n"},
		{what: "policy.json", file: "policy.json", text: `{"deny":["sudo *","su *"]}`},
		{what: "policy.json's spacing", file: "policy.json", text: "{ \"deny\": [\"sudo *\", \"su *\"] }\n", same: true},
		{what: "a file nothing reads", file: "notes.txt", text: "hello", same: true},
	} {
		writeFile(t, filepath.Join(dir, step.file), step.text)
		d := digest()
		if step.same {
			if _, ok := seen[d]; !ok {
				t.Errorf("changing %s changed the digest", step.what)
			}
			continue
		}
		if prev, ok := seen[d]; ok {
			t.Errorf("changing %s left the digest as after %s", step.what, prev)
		}
		seen[d] = step.what
	}
	// No policy.json is not an empty one; no manifest is not an empty one.
	if ConfigDigest(nil, nil) == ConfigDigest(&PolicyFile{}, nil) || ConfigDigest(nil, nil) == ConfigDigest(nil, &Manifest{}) {
		t.Error("a missing file digests like an empty one")
	}
	// The digest does not depend on where the files are.
	other := t.TempDir()
	tree, _, err := ConfigTree(root, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	staged, err := authority.Stage(other, tree)
	if err != nil {
		t.Fatal(err)
	}
	if e := LoadFrom(staged, other, noEnv); e.ConfigDigest != digest() {
		t.Errorf("a copy digests as %s, the original as %s", e.ConfigDigest, digest())
	}
}

func TestLoadAuthorizedNever(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), nil)
	e, au := LoadAuthorized(root, noEnv, t.TempDir())
	if au.State != AuthNever || e.Authorized || au.EventDue() || e.LoadErr != nil {
		t.Errorf("never authorized: %+v, engine authorized %v, %v", au, e.Authorized, e.LoadErr)
	}
	if d := e.Decide("curl x", ""); d.Action != ActionDeny || strings.Contains(d.Reason, "authorize") {
		t.Errorf("decision: %+v", d)
	}
	// No configuration directory at all: the same.
	if _, au := LoadAuthorized(root, noEnv, ""); au.State != AuthNever {
		t.Errorf("no config dir: %+v", au)
	}
}

func TestLoadAuthorizedAuthorized(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), nil)
	cfg := t.TempDir()
	p := authorize(t, root, cfg)
	e, au := LoadAuthorized(root, noEnv, cfg)
	if au.State != AuthAuthorized || !e.Authorized || au.EventDue() || au.Digest != p.Digest || au.AuthorizedDigest != p.Digest {
		t.Errorf("authorized: %+v, engine authorized %v", au, e.Authorized)
	}
	if strings.Join(au.Hosts, ",") != "claude" {
		t.Errorf("hosts: %v", au.Hosts)
	}
	if d := e.Decide("curl x", ""); d.Action != ActionDeny || strings.Contains(d.Reason, "authorize") {
		t.Errorf("decision: %+v", d)
	}
}

func TestLoadAuthorizedModes(t *testing.T) {
	for _, tc := range []struct {
		name, policyLine string
		action           Action
		reason           string
		authorized       bool
		mode             string
	}{
		{"default", "", ActionDeny, "denied by rule no-curl: no network" + NoteLastAuthorized, true, UnauthorizedLastAuthorized},
		{"last-authorized", `unauthorized = "last-authorized"`, ActionDeny, "denied by rule no-curl: no network" + NoteLastAuthorized, true, UnauthorizedLastAuthorized},
		{"deny", `unauthorized = "deny"`, ActionDeny, "agent-shell configuration not authorized", false, UnauthorizedDeny},
		// The changed manifest allows curl and asks for warn: warn comes
		// from the authorized copy here, not from it.
		{"warn", `unauthorized = "warn"`, ActionAllow, "allowed by the policy default" + NoteWarn, false, UnauthorizedWarn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, path := writeRepo(t, manifestWith(tc.policyLine), nil)
			cfg := t.TempDir()
			authorize(t, root, cfg)
			writeFile(t, path, changedManifest)
			e, au := LoadAuthorized(root, noEnv, cfg)
			if au.State != AuthUnauthorized || au.Mode != tc.mode || !au.EventDue() || au.Problem != "" || e.Authorized != tc.authorized {
				t.Errorf("authorization: %+v, engine authorized %v", au, e.Authorized)
			}
			d := e.Decide("curl x", "")
			if d.Action != tc.action || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("decision: %s %q, want %s with %q", d.Action, d.Reason, tc.action, tc.reason)
			}
			// Non-shell events too: denied under deny, noted otherwise.
			ed := e.DecideEvent(&hostapi.Event{Kind: hostapi.KindPreTool, Tool: hostapi.ToolEdit})
			switch tc.mode {
			case UnauthorizedDeny:
				if ed.Action != ActionDeny || !strings.Contains(ed.Reason, "`agent-shell authorize`") {
					t.Errorf("edit under deny: %+v", ed)
				}
				if !errors.Is(e.LoadErr, ErrUnauthorized) {
					t.Errorf("LoadErr %v", e.LoadErr)
				}
			default:
				if ed.Action != ActionAllow || !strings.HasSuffix(ed.Reason, ")") || strings.Count(ed.Reason, "agent-shell authorize") != 1 {
					t.Errorf("edit: %+v", ed)
				}
			}
			if !strings.Contains(au.Summary(), "changed since it was authorized") {
				t.Errorf("summary: %s", au.Summary())
			}
		})
	}
}

// The current manifest cannot choose how it is treated while unauthorized:
// its own [policy] unauthorized = "warn" is ignored.
func TestUnauthorizedModeComesFromTheAuthorizedCopy(t *testing.T) {
	root, path := writeRepo(t, manifestWith(""), nil)
	cfg := t.TempDir()
	authorize(t, root, cfg)
	writeFile(t, path, changedManifest) // says warn
	e, au := LoadAuthorized(root, noEnv, cfg)
	if au.Mode != UnauthorizedLastAuthorized {
		t.Fatalf("mode %s", au.Mode)
	}
	if d := e.Decide("curl x", ""); d.Action != ActionDeny {
		t.Errorf("decision: %+v", d)
	}
}

// A copy that was changed, removed or replaced cannot decide: everything is
// denied, and the problem is named.
func TestTamperedAuthorizedCopy(t *testing.T) {
	for name, tamper := range map[string]func(t *testing.T, copyDir string){
		"edited": func(t *testing.T, copyDir string) {
			writeFile(t, filepath.Join(copyDir, ManifestSubpath), changedManifest)
		},
		"removed": func(t *testing.T, copyDir string) { os.RemoveAll(copyDir) },
		"broken": func(t *testing.T, copyDir string) {
			writeFile(t, filepath.Join(copyDir, ManifestSubpath), "version = [")
		},
		"a link to the current configuration": func(t *testing.T, copyDir string) {
			// copyDir is ROOT/.agent-shell/state/authorized/DIGEST.
			os.RemoveAll(copyDir)
			if err := os.Symlink(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(copyDir)))), copyDir); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			root, path := writeRepo(t, manifestWith(""), nil)
			cfg := t.TempDir()
			p := authorize(t, root, cfg)
			writeFile(t, path, changedManifest)
			tamper(t, AuthorizedCopy(root, p.Digest))
			e, au := LoadAuthorized(root, noEnv, cfg)
			if au.State != AuthUnauthorized || au.Mode != UnauthorizedDeny || au.Problem == "" || e.Authorized {
				t.Fatalf("authorization: %+v", au)
			}
			if d := e.Decide("ls", ""); d.Action != ActionDeny || !strings.Contains(d.Reason, "authorized copy") {
				t.Errorf("decision: %+v", d)
			}
		})
	}
}

func TestDamagedStoreDeniesEverything(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), nil)
	cfg := t.TempDir()
	writeFile(t, filepath.Join(cfg, authority.FileName), "{")
	e, au := LoadAuthorized(root, noEnv, cfg)
	if au.State != AuthUnauthorized || au.Problem == "" {
		t.Fatalf("authorization: %+v", au)
	}
	if d := e.Decide("ls", ""); d.Action != ActionDeny || !strings.Contains(d.Reason, "fix or remove it") {
		t.Errorf("decision: %+v", d)
	}
}

// A configuration that no longer loads is not the authorized one: the
// authorized copy decides.
func TestBrokenCurrentFallsBack(t *testing.T) {
	root, path := writeRepo(t, manifestWith(""), nil)
	cfg := t.TempDir()
	authorize(t, root, cfg)
	writeFile(t, path, "version = [")
	e, au := LoadAuthorized(root, noEnv, cfg)
	if au.State != AuthUnauthorized || au.LoadErr == nil || au.Digest != "" || e.LoadErr != nil {
		t.Fatalf("authorization: %+v, engine %v", au, e.LoadErr)
	}
	if d := e.Decide("curl x", ""); d.Action != ActionDeny || !strings.HasSuffix(d.Reason, NoteLastAuthorized) {
		t.Errorf("decision: %+v", d)
	}
}

func TestProposeAuthorization(t *testing.T) {
	root, path := writeRepo(t, manifestWith(""), map[string]string{"hooks.json": `{"version":1}`})
	cfg := t.TempDir()
	p, err := ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Previous != nil || p.Unchanged || !strings.Contains(p.Diff, "new file: .github/hooks/agent-shell/agent-shell.toml") {
		t.Errorf("first proposal: %+v", p)
	}
	// Copilot's registration is not configuration.
	if strings.Join(p.Files, " ") != ManifestSubpath {
		t.Errorf("files: %v", p.Files)
	}
	// Discarding leaves nothing behind and records nothing.
	p.Discard()
	if entries, _ := os.ReadDir(filepath.Join(root, AuthorizedSubpath)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if _, ok, _ := authority.Lookup(cfg, root); ok {
		t.Error("a discarded proposal was recorded")
	}

	first := authorize(t, root, cfg)
	p, err = ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Unchanged || p.Diff != "" || p.Digest != first.Digest {
		t.Errorf("unchanged proposal: %+v", p)
	}
	p.Discard()

	writeFile(t, path, manifestWith(`sole_gate = true`))
	p, err = ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Unchanged || !strings.Contains(p.Diff, "+sole_gate = true") || p.Previous == nil || p.Previous.Digest != first.Digest {
		t.Errorf("changed proposal: %+v\n%s", p, p.Diff)
	}
	if err := p.Accept(nil, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	// Only the new copy is kept.
	entries, _ := os.ReadDir(filepath.Join(root, AuthorizedSubpath))
	if len(entries) != 1 || entries[0].Name() != p.Digest {
		t.Errorf("copies: %v", entries)
	}

	// A configuration that does not load is never authorized.
	writeFile(t, path, "version = 2\n")
	if _, err := ProposeAuthorization(root, noEnv, cfg); !errors.Is(err, ErrNotAuthorizable) || !strings.Contains(err.Error(), "version") {
		t.Errorf("broken configuration: %v", err)
	}
	if rec, _, _ := authority.Lookup(cfg, root); rec.Digest != p.Digest {
		t.Error("the record changed")
	}
}

// A tampered copy is not used to show the change: every file is new.
func TestProposeWithTamperedCopy(t *testing.T) {
	root, path := writeRepo(t, manifestWith(""), nil)
	cfg := t.TempDir()
	first := authorize(t, root, cfg)
	writeFile(t, path, changedManifest)
	// The tamperer makes the copy look like the change, to hide it.
	writeFile(t, filepath.Join(AuthorizedCopy(root, first.Digest), ManifestSubpath), changedManifest)
	p, err := ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard()
	if p.PreviousProblem == "" || !strings.Contains(p.Diff, "new file: "+ManifestSubpath) {
		t.Errorf("proposal: %+v\n%s", p, p.Diff)
	}
}

// Under AGENTSHELL_POLICY_PATH the file in force is what is authorized, and
// the copy decides as it did.
func TestAuthorizePolicyOverride(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), map[string]string{"policy.json": `{"deny":["ls"]}`})
	writeFile(t, filepath.Join(root, "custom/policy.json"), `{"deny":["whoami"]}`)
	getenv := func(k string) string {
		if k == "AGENTSHELL_POLICY_PATH" {
			return "custom/policy.json"
		}
		return ""
	}
	cfg := t.TempDir()
	p, err := ProposeAuthorization(root, getenv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Accept(nil, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	e, au := LoadAuthorized(root, getenv, cfg)
	if au.State != AuthAuthorized {
		t.Fatalf("authorization: %+v", au)
	}
	writeFile(t, filepath.Join(root, "custom/policy.json"), `{"deny":[]}`)
	e, au = LoadAuthorized(root, getenv, cfg)
	if au.State != AuthUnauthorized || au.Problem != "" {
		t.Fatalf("authorization: %+v", au)
	}
	if d := e.Decide("whoami", ""); d.Action != ActionDeny {
		t.Errorf("the copy does not decide as the authorized override did: %+v", d)
	}
	if d := e.Decide("ls", ""); d.Action != ActionAllow {
		t.Errorf("the copy decides with the default policy.json: %+v", d)
	}
}

func TestManifestUnauthorizedValue(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(`unauthorized = "ignore"`), nil)
	me := loadRejected(t, root)
	if me.Key != "policy.unauthorized" || me.Line != 5 || !strings.Contains(me.Msg, "want last-authorized, deny or warn") {
		t.Errorf("error: %+v", me)
	}
}

// Deleting the record of authorizations does not make a changed
// configuration decide as if never authorized: with authorized copies in
// the repository and no record, everything is denied until a human
// authorizes again. And an agent cannot delete the record in the first
// place: the guard protects it.
func TestLostAuthorizationRecordDenies(t *testing.T) {
	root, _ := writeRepo(t, "version = 1\n[policy]\ndefault = \"allow\"\n", nil)
	cfg := t.TempDir()
	p, err := ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Accept(nil, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(cfg, "authorized.json")); err != nil {
		t.Fatal(err)
	}
	e, au := LoadAuthorized(root, noEnv, cfg)
	if au.State != AuthUnauthorized || !strings.Contains(au.Problem, "record") {
		t.Fatalf("authorization %+v, want unauthorized: the record is missing", au)
	}
	if d := e.Decide("ls", root); d.Action != ActionDeny {
		t.Errorf("ls: %s, want deny", d.Action)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, cmd := range []string{"rm -rf ~/.config/agent-shell", "rm " + home + "/.config/agent-shell/authorized.json",
		`echo '{"version":1,"repos":{}}' > ~/.config/agent-shell/authorized.json`} {
		if g := guard.Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("%q: not guarded", cmd)
		}
	}
}
