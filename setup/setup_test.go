package setup

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
)

func noenv(string) string { return "" }

// repo makes a repository holding files (path -> content).
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, data := range files {
		write(t, filepath.Join(root, p), data)
	}
	return root
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func detect(t *testing.T, dir string) *State {
	t.Helper()
	s, err := Detect(dir, noenv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDetectOutsideARepository(t *testing.T) {
	if _, err := Detect(t.TempDir(), noenv); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("err = %v, want ErrNotRepo", err)
	}
}

func TestDetect(t *testing.T) {
	root := repo(t, map[string]string{
		"package.json":             `{"name":"x","packageManager":"pnpm@9.1.0"}`,
		"pnpm-lock.yaml":           "",
		"yarn.lock":                "",
		".claude/commands/x.md":    "",
		".github/hooks/other.json": "{}",
		".npmrc":                   "script-shell=agent-shell\n",
		".gitignore":               "/.agent-shell\n",
		"sub/dir/.keep":            "",
	})
	s := detect(t, filepath.Join(root, "sub", "dir"))
	if s.Root != root {
		t.Errorf("root = %s, want %s", s.Root, root)
	}
	if got := s.DetectedAgents(); !reflect.DeepEqual(got, []string{"claude", "copilot"}) {
		t.Errorf("detected agents = %v", got)
	}
	if !s.HasPackageJSON || !reflect.DeepEqual(s.PackageManagers, []PackageManager{
		{"pnpm", "package.json packageManager"}, {"yarn", "yarn.lock"},
	}) {
		t.Errorf("package managers = %v", s.PackageManagers)
	}
	if !s.NPM.Set || !s.Gitignore || len(s.PolicyFiles) != 0 {
		t.Errorf("npm %+v, gitignore %v, policy %v", s.NPM, s.Gitignore, s.PolicyFiles)
	}
	for _, a := range s.Agents {
		if a.Registered || a.Err != nil {
			t.Errorf("%s: registered %v, err %v", a.Name, a.Registered, a.Err)
		}
	}
	if p := s.DefaultPlan(); !p.FlightRecorder || !p.Policy || p.NPM || p.Gitignore {
		t.Errorf("default plan = %+v", p)
	}
}

func TestDetectNoAgentMeansCopilotAndAmpByEnvironment(t *testing.T) {
	root := repo(t, nil)
	if got := detect(t, root).DetectedAgents(); !reflect.DeepEqual(got, []string{"copilot"}) {
		t.Errorf("detected = %v, want copilot", got)
	}
	s, err := Detect(root, func(k string) string {
		if k == "AGENT" {
			return "amp"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.DetectedAgents(); !reflect.DeepEqual(got, []string{"amp"}) {
		t.Errorf("detected = %v, want amp", got)
	}
}

// Every agent counts as registered once its adapter installed it, and only
// then: detection runs the same Install on a scratch copy.
func TestDetectRegisteredForEveryAgent(t *testing.T) {
	for _, name := range hostapi.Names() {
		t.Run(name, func(t *testing.T) {
			files := RegistrationFiles(name)
			if len(files) == 0 {
				t.Fatalf("no registration files listed for %s", name)
			}
			root := repo(t, nil)
			if detect(t, root).Agent(name).Registered {
				t.Fatal("registered before install")
			}
			ad, _ := hostapi.ByName(name, noenv)
			wrote, err := ad.Install(root)
			if err != nil {
				t.Fatal(err)
			}
			// Detection copies only the listed files to its scratch root.
			for _, f := range wrote {
				if rel, _ := filepath.Rel(root, f); !slices.Contains(files, filepath.ToSlash(rel)) {
					t.Errorf("Install wrote %s, which %s's Descriptor.Installs does not list", rel, name)
				}
			}
			a := detect(t, root).Agent(name)
			if !a.Registered || a.Err != nil {
				t.Fatalf("after install: registered %v, err %v", a.Registered, a.Err)
			}
			// Detection wrote nothing in the repository.
			if again, err := ad.Install(root); err != nil || len(again) != 0 {
				t.Fatalf("install after detect changed %v (%v)", again, err)
			}
		})
	}
}

// Setup detects every host from each of its markers, and from nothing else.
func TestDetectEveryHostFromItsMarkers(t *testing.T) {
	for _, d := range hostapi.Descriptors() {
		for _, m := range d.Markers {
			root, env := repo(t, nil), map[string]string{}
			want := m.Path
			switch {
			case m.Path == "":
				env[m.Env.Name], want = cmp.Or(m.Env.Value, "1"), m.Env.String()
			case m.Besides != "":
				write(t, filepath.Join(root, m.Path, m.Besides, "x"), "")
				if got := detect(t, root).Agent(d.Name).Detected; got != "" {
					t.Errorf("%s: detected by %q from %s/%s alone", d.Name, got, m.Path, m.Besides)
				}
				write(t, filepath.Join(root, m.Path, "other"), "")
			default:
				write(t, filepath.Join(root, m.Path), "")
			}
			s, err := Detect(root, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range s.Agents {
				if got := a.Detected; (a.Name == d.Name) != (got != "") || a.Name == d.Name && got != want {
					t.Errorf("marker %+v of %s: %s detected by %q", m, d.Name, a.Name, got)
				}
			}
		}
	}
}

func TestDetectPartialRegistrationIsMissing(t *testing.T) {
	root := repo(t, map[string]string{
		hostapi.ClaudeSettingsFile: `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"agent-shell hook --agent=claude"}]}]}}`,
	})
	if detect(t, root).Agent("claude").Registered {
		t.Error("a registration with only PreToolUse counts as complete")
	}
}

func TestInvalidRegistrationIsLeftUnchanged(t *testing.T) {
	const bad = "{ not json"
	root := repo(t, map[string]string{hostapi.CopilotHooksFile: bad})
	s := detect(t, root)
	a := s.Agent("copilot")
	if a.Err == nil || !strings.Contains(a.Err.Error(), hostapi.CopilotHooksFile+" is not a JSON object") || strings.Contains(a.Err.Error(), os.TempDir()) {
		t.Fatalf("err = %v", a.Err)
	}
	res, err := Apply(s, s.DefaultPlan())
	if err == nil || len(res.Files) != 0 {
		t.Fatalf("apply: files %v, err %v", res.Files, err)
	}
	if got := read(t, filepath.Join(root, hostapi.CopilotHooksFile)); got != bad {
		t.Errorf("hooks.json = %q", got)
	}
	for _, p := range []string{".gitignore", policy.PolicyFileSubpath} {
		if exists(filepath.Join(root, p)) {
			t.Errorf("%s written although init failed", p)
		}
	}
}

// jsonHas reports whether every key and value of want is in got (lists:
// every element of want's list appears in got's).
func jsonHas(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !jsonHas(g[k], v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		for _, v := range w {
			if !slices.ContainsFunc(g, func(x any) bool { return jsonHas(x, v) }) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

func TestApplyKeepsEverythingAndIsIdempotent(t *testing.T) {
	claude := `{"model":"opus","permissions":{"allow":["Bash(npm test)"]},
	  "hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./lint-guard.sh"}]}]}}`
	copilot := `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./audit.sh","timeoutSec":5}],"custom":[{"x":1}]}}`
	root := repo(t, map[string]string{
		hostapi.ClaudeSettingsFile: claude,
		hostapi.CopilotHooksFile:   copilot,
		".npmrc":                   "registry=https://r.example/\n",
		".gitignore":               "node_modules/\n",
		"package.json":             "{}",
	})
	s := detect(t, root)
	p := s.DefaultPlan()
	if !reflect.DeepEqual(p.Agents, []string{"claude", "copilot"}) {
		t.Fatalf("agents = %v", p.Agents)
	}
	res, err := Apply(s, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{hostapi.ClaudeSettingsFile, hostapi.CopilotHooksFile, policy.ManifestSubpath, ".npmrc", ".git/info/exclude", ".gitignore"}
	if !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files = %v, want %v", res.Files, want)
	}
	for file, old := range map[string]string{hostapi.ClaudeSettingsFile: claude, hostapi.CopilotHooksFile: copilot} {
		got := read(t, filepath.Join(root, file))
		if !jsonHas(decode(t, got), decode(t, old)) {
			t.Errorf("%s lost something:\n%s", file, got)
		}
		if !strings.Contains(got, hostapi.HookCommand) {
			t.Errorf("%s has no agent-shell hook:\n%s", file, got)
		}
	}
	if got := read(t, filepath.Join(root, ".npmrc")); got != "registry=https://r.example/\nscript-shell=agent-shell\n" {
		t.Errorf(".npmrc = %q", got)
	}
	// The starter is the safety pack at level standard, and no allow list.
	e := policy.Load(root, noenv)
	if e.LoadErr != nil || e.File != nil || len(e.Manifest.LoadedPacks()) != 1 {
		t.Fatalf("starter policy: %v, policy.json %v", e.LoadErr, e.File != nil)
	}
	if p := e.Manifest.LoadedPacks()[0]; p.Decl.Name != "safety" || !p.Builtin() || p.Options["level"] != "standard" {
		t.Errorf("starter pack %s %v", p.Decl.Name, p.Options)
	}
	if d := e.Decide("git reset --hard", root); d.Action != policy.ActionDeny || d.Rule != "safety/git-discard" {
		t.Errorf("git reset --hard under the starter: %s by %q", d.Action, d.Rule)
	}

	s = detect(t, root)
	if p := s.DefaultPlan(); !p.Empty() {
		t.Errorf("second run plans %+v", p)
	}
	res, err = Apply(s, s.PlanFromFlags(Flags{Yes: true, Given: true, Agents: []string{"claude", "copilot"}}))
	if err != nil || len(res.Files) != 0 {
		t.Errorf("second run wrote %v (%v)", res.Files, err)
	}
}

// The reference tool's footgun: a deny-only policy.json was given an allow
// list, which denies everything else. An existing policy is never touched.
func TestDenyOnlyPolicyStaysDenyOnly(t *testing.T) {
	const denyOnly = `{"deny": ["curl *"]}`
	root := repo(t, map[string]string{policy.PolicyFileSubpath: denyOnly})
	s := detect(t, root)
	res, err := Apply(s, s.PlanFromFlags(Flags{Policy: true, Given: true}))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(root, policy.PolicyFileSubpath)); got != denyOnly {
		t.Errorf("policy.json = %q", got)
	}
	if exists(filepath.Join(root, policy.ManifestSubpath)) || slices.Contains(res.Files, policy.PolicyFileSubpath) {
		t.Errorf("a starter was written next to an existing policy: %v", res.Files)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, `name = "safety"`) }) {
		t.Errorf("no note on how to add the safety pack: %q", res.Notes)
	}
}

func TestMergeFileRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "real"), "x\n")
	if err := os.Symlink("real", filepath.Join(dir, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if _, err := mergeFile(filepath.Join(dir, ".gitignore"), mergeGitignore); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v", err)
	}
	if got := read(t, filepath.Join(dir, "real")); got != "x\n" {
		t.Errorf("the link's target changed: %q", got)
	}
}

func TestPlanFromFlags(t *testing.T) {
	root := repo(t, map[string]string{"package.json": "{}", ".claude/x": ""})
	s := detect(t, root)
	for _, tc := range []struct {
		name string
		f    Flags
		want Plan
	}{
		{"only --yes: every missing feature", Flags{Yes: true},
			Plan{Agents: []string{"claude"}, FlightRecorder: true, Policy: true, NPM: true, Gitignore: true}},
		{"--agent", Flags{Agents: []string{"gemini", "codex"}},
			Plan{Agents: []string{"gemini", "codex"}, FlightRecorder: true, Policy: true, NPM: true, Gitignore: true}},
		{"--no-npm", Flags{NoNPM: true},
			Plan{Agents: []string{"claude"}, FlightRecorder: true, Policy: true, Gitignore: true}},
		{"--no-flight-recorder", Flags{NoFlightRecorder: true},
			Plan{Agents: []string{"claude"}, Policy: true, NPM: true, Gitignore: true}},
		{"--policy alone", Flags{Policy: true},
			Plan{Agents: []string{"claude"}, Policy: true, Gitignore: true}},
		{"--no-* beats its twin", Flags{Policy: true, NoPolicy: true, NPM: true},
			Plan{Agents: []string{"claude"}, NPM: true, Gitignore: true}},
		{"everything off", Flags{NoFlightRecorder: true, NoPolicy: true, NoNPM: true},
			Plan{Agents: []string{"claude"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Given = true
			if got := s.PlanFromFlags(tc.f); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan = %+v\nwant %+v", got, tc.want)
			}
		})
	}

	// Another script-shell is replaced only by --npm or --yes.
	write(t, filepath.Join(root, ".npmrc"), "script-shell=bash\n")
	s = detect(t, root)
	if p := s.PlanFromFlags(Flags{Given: true, Agents: []string{"claude"}}); p.NPM {
		t.Errorf("--agent replaces script-shell: %+v", p)
	}
	if p := s.DefaultPlan(); p.NPM {
		t.Errorf("the default replaces script-shell: %+v", p)
	}
	for _, f := range []Flags{{Given: true, NPM: true}, {Given: true, Yes: true}} {
		if p := s.PlanFromFlags(f); !p.NPM || !p.ReplaceScriptShell {
			t.Errorf("%+v does not replace script-shell: %+v", f, p)
		}
	}
}

func TestCheckAgents(t *testing.T) {
	if err := CheckAgents([]string{"copilot", "claude"}); err != nil {
		t.Error(err)
	}
	var ue *UsageError
	if err := CheckAgents([]string{"copilot", "clippy"}); !errors.As(err, &ue) || !strings.Contains(err.Error(), `unknown agent "clippy"`) {
		t.Errorf("err = %v", err)
	}
}

func TestRunNonInteractive(t *testing.T) {
	root := repo(t, nil)
	var out, errb bytes.Buffer
	o := Options{Dir: root, Getenv: noenv, Stdout: &out, Stderr: &errb}
	if err := Run(o); err != nil {
		t.Fatal(err)
	}
	if want := "agent-shell: non-interactive mode, enabling: flight recording and policy hooks (copilot), the safety pack, .gitignore entry\n"; errb.String() != want {
		t.Errorf("stderr = %q", errb.String())
	}
	for _, want := range []string{"wrote " + hostapi.CopilotHooksFile, "wrote .gitignore", "verify: agent-shell policy check"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	if err := Run(o); err != nil {
		t.Fatal(err)
	}
	if out.String() != AlreadySetUp+"\n" || errb.Len() != 0 {
		t.Errorf("second run: stdout %q, stderr %q", out.String(), errb.String())
	}
}

// The prompt's logic, driven by key bytes (the terminal itself is tested
// through a pseudo-terminal in cmd/agent-shell).
func TestPrompter(t *testing.T) {
	root := repo(t, map[string]string{"package.json": "{}"})
	s := detect(t, root)
	run := func(keys string) (Plan, bool, string, error) {
		var out bytes.Buffer
		p := &prompter{in: bufio.NewReader(strings.NewReader(keys)), out: &out}
		plan, ok, err := p.run(s)
		return plan, ok, out.String(), err
	}
	// Agents: amp, claude, codex, copilot (preselected), cursor, ...
	// Down to claude and select it; features: down twice to npm, off; yes.
	plan, ok, screen, err := run("j \r" + "\x1b[B\x1b[B \r" + "y")
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v\n%s", ok, err, screen)
	}
	want := Plan{Agents: []string{"claude", "copilot"}, FlightRecorder: true, Policy: true, Gitignore: true}
	if !reflect.DeepEqual(plan, want) {
		t.Errorf("plan = %+v\nwant %+v", plan, want)
	}
	for _, line := range []string{"> [x] claude", "[x] copilot", "[ ] npm scripts", "Write these files? [y/N] yes", "agents found:     none (Copilot is suggested)"} {
		if !strings.Contains(screen, line) {
			t.Errorf("screen lacks %q:\n%s", line, screen)
		}
	}
	if strings.Contains(strings.ReplaceAll(screen, "\r\n", ""), "\n") {
		t.Error("a bare newline on a raw terminal")
	}

	if _, ok, _, err := run("\r\rn"); ok || err != nil {
		t.Errorf("declined: ok %v, err %v", ok, err)
	}
	if _, ok, _, err := run("\r\r\r"); ok || err != nil {
		t.Errorf("enter at the confirmation is no: ok %v, err %v", ok, err)
	}
	for _, keys := range []string{"\x03", "j\x04", "q", "\r\x1b", "\r\r\x03", ""} {
		if _, _, _, err := run(keys); !errors.Is(err, ErrCanceled) {
			t.Errorf("%q: err = %v, want ErrCanceled", keys, err)
		}
	}
	// Numbers toggle: 4 is copilot, off; nothing left to hook into, so the
	// features are the policy files and the rest.
	plan, ok, _, _ = run("4\r" + "\r" + "y")
	if !ok || plan.hooks() || !plan.Policy || !plan.NPM {
		t.Errorf("plan = %+v", plan)
	}
}

func TestCleanAgents(t *testing.T) {
	got := cleanAgents([]string{"claude", " Gemini", "", "claude"})
	if !reflect.DeepEqual(got, []string{"claude", "gemini"}) {
		t.Errorf("cleanAgents = %v", got)
	}
}

// agent-shell's own policy files under .github/hooks/ do not make Copilot a
// detected agent; a hook file of the user's does.
func TestCopilotDetection(t *testing.T) {
	root := repo(t, map[string]string{policy.PolicyFileSubpath: `{"deny":[]}`, ".claude/x": ""})
	if a := detect(t, root).Agent("copilot"); a.Detected != "" {
		t.Errorf("copilot detected by %s", a.Detected)
	}
	write(t, filepath.Join(root, ".github/hooks/audit.json"), "{}")
	if a := detect(t, root).Agent("copilot"); a.Detected != ".github/hooks" {
		t.Errorf("copilot detected by %q", a.Detected)
	}
}
