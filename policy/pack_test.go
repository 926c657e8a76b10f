package policy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// teamPack is a pack with a static rule, a matcher that reads its options
// and loads a file of its own, a strict-only rule and a library.
var teamPack = map[string]string{
	"pack.toml": `name = "team"
version = "1.0.0"
description = "the team's rules"

[options.level]
type = "string"
default = "standard"
allowed = ["standard", "strict"]

[options.clusters]
type = "strings"
default = ["prod"]

[[rule]]
id = "no-kubectl-delete"
action = "deny"
reason = "deleting cluster objects needs a human"
match = { argv_prefix = ["kubectl", "delete"] }
examples = { match = ["kubectl delete pod x"], not_match = ["kubectl get pods"] }

[[script]]
id = "ctx"
kind = "shell_matcher"
src = "rules/ctx.star"

[[rule]]
id = "no-prod-context"
action = "deny"
match = { script = "ctx" }

[[script]]
id = "inline-rel"
kind = "shell_matcher"
source = """
load("./lib.star", "shout")
def on_event(ctx, state):
    return Match.yes(shout("x")) if ctx.basename == "kubectx" else Match.no("")
"""

[[rule]]
id = "no-kubectx"
action = "ask"
match = { script = "inline-rel" }

[[rule]]
id = "strict-no-helm"
action = "ask"
when = { level = "strict" }
match = { basename = "helm" }
`,
	"rules/ctx.star": `load("//lib.star", "is_use_context")

def on_event(ctx, state):
    if is_use_context(ctx.argv) and ctx.argv[-1] in options.clusters:
        return Match.yes("switches kubectl to " + ctx.argv[-1])
    return Match.no("")
`,
	"lib.star": `load("@team//more/words.star", "WORDS")

def is_use_context(argv):
    return len(argv) >= 4 and argv[0] == "kubectl" and list(argv[1:3]) == WORDS

def shout(s):
    return s.upper() + "!"
`,
	"more/words.star": `WORDS = ["config", "use-context"]`,
	"rules/ctx_test.star": `def test_prod(t):
    r = t.run("ctx", ctx = t.context(argv = ["kubectl", "config", "use-context", "prod"]))
    assert.eq(r.outcome, "yes")
`,
}

// packRepo makes a repository whose manifest (text) takes in the team
// pack, vendored and locked, and returns its root.
func packRepo(t *testing.T, manifest string, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	dir := filepath.Join(root, ".github/hooks/agent-shell")
	packDir := filepath.Join(dir, PacksSubdir, "team")
	writeFiles(t, packDir, files)
	writeFiles(t, dir, map[string]string{"agent-shell.toml": manifest})
	tree, err := ReadPackTree(packDir)
	if err != nil {
		t.Fatal(err)
	}
	lock := &Lock{Version: 1, Packs: []*LockEntry{EntryFor("team", "git+file:///srv/team.git", "v1", "0123", tree)}}
	data, err := lock.Encode()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{LockFileName: string(data)})
	return root
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const teamManifest = `version = 1

[[pack]]
name = "team"
source = "git+file:///srv/team.git"
rev = "v1"
`

func TestPackRulesDecide(t *testing.T) {
	root := packRepo(t, teamManifest+`
[[script]]
id = "mine"
kind = "shell_matcher"
source = """
load("@team//lib.star", "shout")
def on_event(ctx, state):
    return Match.yes(shout("echo")) if ctx.basename == "echo" else Match.no("")
"""

[[rule]]
id = "no-echo"
action = "ask"
match = { script = "mine" }
`, teamPack)
	e := Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	if err := e.CheckPackExamples(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, action, rule string }{
		{"kubectl delete pod web", "deny", "team/no-kubectl-delete"},
		{"sudo kubectl delete ns x", "deny", "team/no-kubectl-delete"},
		{"kubectl config use-context prod", "deny", "team/no-prod-context"},
		{"kubectl config use-context dev", "allow", ""},
		{"helm install x", "allow", ""},            // strict only
		{"kubectx prod", "ask", "team/no-kubectx"}, // an inline script's relative load
		{"echo hi", "ask", "no-echo"},              // a project script loading @team//
	} {
		d := e.Decide(c.cmd, root)
		if string(d.Action) != c.action || d.Rule != c.rule {
			t.Errorf("%q: %s by %q (%s), want %s by %q", c.cmd, d.Action, d.Rule, d.Reason, c.action, c.rule)
		}
	}
}

func TestPackOptionsAndDisable(t *testing.T) {
	root := packRepo(t, teamManifest+`options = { level = "strict", clusters = ["staging"] }
disable = ["team/no-kubectl-delete"]
`, teamPack)
	e := Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	for _, c := range []struct{ cmd, action string }{
		{"kubectl delete pod web", "allow"},
		{"kubectl config use-context prod", "allow"},
		{"kubectl config use-context staging", "deny"},
		{"helm install x", "ask"},
	} {
		if d := e.Decide(c.cmd, root); string(d.Action) != c.action {
			t.Errorf("%q: %s (%s), want %s", c.cmd, d.Action, d.Reason, c.action)
		}
	}
}

// Every way a pack can be wrong is a load error that names the problem,
// and the engine then denies everything.
func TestPackLoadErrors(t *testing.T) {
	with := func(name, text string) map[string]string {
		files := map[string]string{}
		for k, v := range teamPack {
			files[k] = v
		}
		files[name] = text
		return files
	}
	for _, c := range []struct {
		name, manifest string
		files          map[string]string
		tamper         func(root string)
		want           string
	}{
		{"unknown option", teamManifest + `options = { levle = "strict" }`, teamPack, nil, `no option "levle"`},
		{"option outside its set", teamManifest + `options = { level = "paranoid" }`, teamPack, nil, `"paranoid" is not one of "standard", "strict"`},
		{"option of the wrong type", teamManifest + `options = { clusters = "prod" }`, teamPack, nil, "want a list of strings"},
		{"disable an unknown rule", teamManifest + `disable = ["team/nope"]`, teamPack, nil, `has no rule "team/nope"`},
		{"disable without the namespace", teamManifest + `disable = ["no-kubectl-delete"]`, teamPack, nil, `has no rule "no-kubectl-delete"`},
		{"two packs of one name", teamManifest + "\n" + strings.TrimPrefix(teamManifest, "version = 1\n"), teamPack, nil, `two packs are named "team"`},
		{"no such built-in pack", "version = 1\n[[pack]]\nname = \"nope\"\n", teamPack, nil, `no built-in pack "nope"`},
		{"rev without a source", "version = 1\n[[pack]]\nname = \"safety\"\nrev = \"v1\"\n", teamPack, nil, "rev pins a pack with a source"},
		{"a changed vendored file", teamManifest, teamPack, func(root string) {
			writeFiles(t, filepath.Join(root, ".github/hooks/agent-shell/packs/team"), map[string]string{"lib.star": "X = 1\n"})
		}, "lib.star was changed"},
		{"a missing vendored file", teamManifest, teamPack, func(root string) {
			os.Remove(filepath.Join(root, ".github/hooks/agent-shell/packs/team/more/words.star"))
		}, "more/words.star is missing"},
		{"an extra vendored file", teamManifest, teamPack, func(root string) {
			writeFiles(t, filepath.Join(root, ".github/hooks/agent-shell/packs/team"), map[string]string{"extra.star": ""})
		}, "extra.star is not in the lock"},
		{"a symlink in the pack", teamManifest, teamPack, func(root string) {
			os.Symlink("/etc/passwd", filepath.Join(root, ".github/hooks/agent-shell/packs/team/pw"))
		}, "pw is not a regular file"},
		{"no lock", teamManifest, teamPack, func(root string) {
			os.Remove(filepath.Join(root, ".github/hooks/agent-shell", LockFileName))
		}, "there is no lock file"},
		{"a lock for another rev", strings.Replace(teamManifest, `rev = "v1"`, `rev = "v2"`, 1), teamPack, nil, "run agent-shell pack update team"},
		{"a lock for another source", strings.Replace(teamManifest, "/srv/team.git", "/srv/other.git", 1), teamPack, nil, "but the manifest asks for"},
		{"a lock pinning a pack not taken in", "version = 1\n", teamPack, nil, `the lock pins a pack "team" that the manifest does not take`},
		{"a pack loading outside itself", teamManifest, with("lib.star", `load("@safety//x.star", "X")`+"\n"), nil, "loads only its own files"},
		{"a pack loading above itself", teamManifest, with("lib.star", `load("../../agent-shell.toml.star", "X")`+"\n"), nil, "leaves the pack team"},
		{"a pack's src above itself", teamManifest, with("pack.toml", strings.Replace(teamPack["pack.toml"], `src = "rules/ctx.star"`, `src = "../x.star"`, 1)), nil, "must be a path inside"},
		{"a bad pack.toml", teamManifest, with("pack.toml", "name = \"team\"\nversion = \"1\"\n[[rule]]\nid = \"x\"\naction = \"maybe\"\nmatch = { basename = \"x\" }\n"), nil, `action "maybe"`},
		{"when on an undeclared option", teamManifest, with("pack.toml", "name = \"team\"\nversion = \"1\"\n[[rule]]\nid = \"x\"\naction = \"deny\"\nwhen = { mode = \"a\" }\nmatch = { basename = \"x\" }\n"), nil, `no option "mode"`},
		{"when in a manifest", "version = 1\n[[rule]]\nid = \"x\"\naction = \"deny\"\nwhen = { level = \"a\" }\nmatch = { basename = \"x\" }\n", teamPack, nil, "a manifest's own rules have none"},
		{"a pack name that is not one", "version = 1\n[[pack]]\nname = \"../x\"\nsource = \"x\"\n", teamPack, nil, "a pack's name is"},
		{"an unknown grant", teamManifest + `trust = ["everything"]`, teamPack, nil, `"everything": want reviewers, interceptors, replace`},
		{"an analyzer that replaces effects, not granted", teamManifest, with("pack.toml", teamPack["pack.toml"]+"\n[[script]]\nid = \"fx\"\nkind = \"shell_effect_analyzer\"\nsource = \"def on_event(ctx, state):\\n    return Effect.replace([])\\n\"\n\n[[analyzer]]\nscript = \"fx\"\nreplace = true\n"), nil, `add trust = ["replace"]`},
		{"a stale lock beside built-in packs only", "version = 1\n[[pack]]\nname = \"safety\"\n", teamPack, nil, `the lock pins a pack "team"`},
		{"a lock that is a fifo", teamManifest, teamPack, func(root string) {
			p := filepath.Join(root, ".github/hooks/agent-shell", LockFileName)
			os.Remove(p)
			syscall.Mkfifo(p, 0o644)
		}, "is not a regular file"},
		{"a vendored folder that is a symlink", teamManifest, teamPack, func(root string) {
			d := filepath.Join(root, ".github/hooks/agent-shell/packs")
			os.Rename(filepath.Join(d, "team"), filepath.Join(root, "elsewhere"))
			os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(d, "team"))
		}, "a symbolic link is refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := packRepo(t, c.manifest, c.files)
			if c.tamper != nil {
				c.tamper(root)
			}
			e := Load(root, func(string) string { return "" })
			if e.LoadErr == nil {
				t.Fatalf("loaded; want an error containing %q", c.want)
			}
			if !strings.Contains(e.LoadErr.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", e.LoadErr, c.want)
			}
			if d := e.Decide("ls", root); d.Action != ActionDeny {
				t.Errorf("ls under a broken pack: %s", d.Action)
			}
		})
	}
}

// A vendored pack's tree enters the manifest digest, so authorize covers
// it; a built-in pack counts by name.
func TestPackDigest(t *testing.T) {
	root := packRepo(t, teamManifest, teamPack)
	e := Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	files := map[string]string{}
	for k, v := range teamPack {
		files[k] = v
	}
	files["README.md"] = "docs change the tree too\n"
	root2 := packRepo(t, teamManifest, files)
	e2 := Load(root2, func(string) string { return "" })
	if e2.LoadErr != nil {
		t.Fatal(e2.LoadErr)
	}
	if e.ConfigDigest == e2.ConfigDigest {
		t.Error("a file added to the vendored pack left the configuration digest unchanged")
	}
}

func TestLoadPackDir(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, teamPack)
	m, err := LoadPackDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CheckPackExamples(); err != nil {
		t.Fatal(err)
	}
	if d := e.Decide("kubectl delete pod x", dir); d.Rule != "team/no-kubectl-delete" {
		t.Errorf("decided %s by %q", d.Action, d.Rule)
	}
}

// A pack's analyzers, reviewers and interceptors join the project's,
// namespaced, and run.
func TestPackExtensionKinds(t *testing.T) {
	files := map[string]string{
		"pack.toml": `name = "ops"
version = "0.1.0"

[[script]]
id = "deploy-net"
kind = "shell_effect_analyzer"
source = """
def on_event(ctx, state):
    return Effect.network() if ctx.basename == "deploy" else Effect.add([])
"""

[[analyzer]]
script = "deploy-net"

[[script]]
id = "ok-staging"
kind = "shell_reviewer"
source = """
def on_event(ctx, state):
    return Review.approve() if "staging" in ctx.argv else Review.defer()
"""

[[reviewer]]
script = "ok-staging"

[[script]]
id = "no-py2"
kind = "shell_before_interceptor"
source = """
def on_event(ctx, state):
    return Intercept.reject("python2 is gone; use python3")
"""

[[interceptor]]
script = "no-py2"
phase = "before"
match = { basename = "python2" }
`,
	}
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	dir := filepath.Join(root, ".github/hooks/agent-shell")
	writeFiles(t, filepath.Join(dir, PacksSubdir, "ops"), files)
	manifest := `version = 1

[[pack]]
name = "ops"
source = "/srv/ops"
TRUST

[[rule]]
id = "network-asks"
action = "ask"
match = { effect = "network" }
`
	tree, err := ReadPackTree(filepath.Join(dir, PacksSubdir, "ops"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := (&Lock{Version: 1, Packs: []*LockEntry{EntryFor("ops", "/srv/ops", "", "", tree)}}).Encode()
	writeFiles(t, dir, map[string]string{LockFileName: string(data)})
	// Reviewers and interceptors can loosen the project's decisions: a
	// pack has them only when its [[pack]] grants them.
	writeFiles(t, dir, map[string]string{"agent-shell.toml": strings.Replace(manifest, "TRUST", "", 1)})
	if e := Load(root, func(string) string { return "" }); e.LoadErr == nil || !strings.Contains(e.LoadErr.Error(), `add trust = ["reviewers"]`) {
		t.Fatalf("a pack with reviewers and no trust: %v", e.LoadErr)
	}
	writeFiles(t, dir, map[string]string{"agent-shell.toml": strings.Replace(manifest, "TRUST", `trust = ["reviewers", "interceptors"]`, 1)})
	e := Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	for _, c := range []struct{ cmd, action, why string }{
		{"deploy production", "ask", "the pack's analyzer adds network; the project's rule asks"},
		{"deploy staging", "allow", "the pack's reviewer approves the ask"},
		{"python2 x.py", "deny", "the pack's interceptor rejects"},
		{"ls", "allow", ""},
	} {
		d := e.DecideRequest(c.cmd, Request{Cwd: root, SessionID: "s1", DryRun: true})
		if string(d.Action) != c.action {
			t.Errorf("%q: %s (%s); want %s: %s", c.cmd, d.Action, d.Reason, c.action, c.why)
		}
		if c.cmd == "python2 x.py" && !strings.Contains(d.Reason, "ops/no-py2") {
			t.Errorf("%q: reason %q does not name ops/no-py2", c.cmd, d.Reason)
		}
	}
}
