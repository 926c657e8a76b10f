package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/authority"
)

const authorizeManifest = `version = 1

[[rule]]
id = "no-curl"
action = "deny"
match = { basename = "curl" }
`

func authorizedDigest(t *testing.T, cfg, root string) string {
	t.Helper()
	rec, ok, err := authority.Lookup(cfg, root)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return rec.Digest
}

// stagedLeft lists staging folders left under the authorized copies.
func stagedLeft(t *testing.T, root string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(root, ".agent-shell/state/authorized"))
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".staging-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// codeOn is the code authorize shows on a screen.
func codeOn(t *testing.T, screen string) string {
	t.Helper()
	m := codeRE.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no code on the screen:\n%s", screen)
	}
	return m[1]
}

// authorize on a terminal: it shows the configuration and a new code, and
// records, with who and from where, only when that code is typed back; a
// yes, another code, or Ctrl-C change nothing.
func TestAuthorizeOnATerminal(t *testing.T) {
	skipInAgentSession(t)
	dir := initRepo(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": authorizeManifest})
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A person at a terminal, even where the tests run in CI (whose
	// variables would make the actor "ci").
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "USER=ada", "CI=", "GITHUB_ACTIONS="}
	cfg := filepath.Join(dir, "config", "agent-shell")
	const prompt = "and press Enter (anything else declines): "

	// First authorization, the code typed back.
	tty, cmd := startOnTerminal(t, dir, env, "authorize")
	screen := readUntil(t, tty, prompt)
	for _, want := range []string{"First authorization", ".github/hooks/agent-shell/agent-shell.toml", "Configuration digest: ", "To authorize this configuration, type "} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	first := codeOn(t, screen)
	press(t, tty, first+"\n")
	out := readUntil(t, tty, "Authorized configuration ")
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	rec, ok, err := authority.Lookup(cfg, root)
	if err != nil || !ok || !strings.Contains(screen, rec.Digest) {
		t.Fatalf("recorded %+v %v %v; screen:\n%s", rec, ok, err, screen)
	}
	if by := rec.By; by == nil || by.User != "ada" || by.Actor != "human" || !strings.HasPrefix(by.Terminal, "/dev/pts/") || by.UID != os.Getuid() || len(by.Via) == 0 {
		t.Errorf("recorded as confirmed by %+v", rec.By)
	}

	// A change: the diff is shown; the old "yes", and the first code, are
	// not the code now.
	changed := strings.Replace(authorizeManifest, `action = "deny"`, `action = "allow"`, 1)
	if err := os.WriteFile(filepath.Join(dir, ".github/hooks/agent-shell/agent-shell.toml"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"yes", first} {
		tty, cmd = startOnTerminal(t, dir, env, "authorize")
		screen = readUntil(t, tty, prompt)
		for _, want := range []string{"Changes since the authorization of ", "-action = \"deny\"", "+action = \"allow\""} {
			if !strings.Contains(screen, want) {
				t.Errorf("screen lacks %q:\n%s", want, screen)
			}
		}
		if codeOn(t, screen) == answer {
			t.Fatalf("the code %s came twice", answer)
		}
		press(t, tty, answer+"\n")
		readUntil(t, tty, "Not authorized; nothing changed.")
		if code := waitExit(t, cmd); code != 1 {
			t.Errorf("answered %q: exit %d, want 1", answer, code)
		}
		if got := authorizedDigest(t, cfg, root); got != rec.Digest {
			t.Errorf("answering %q changed the record to %s", answer, got)
		}
		if left := stagedLeft(t, root); len(left) != 0 {
			t.Errorf("staged copies left: %v", left)
		}
	}

	// Ctrl-C at the question: nothing recorded, nothing left behind.
	tty, cmd = startOnTerminal(t, dir, env, "authorize")
	readUntil(t, tty, prompt)
	press(t, tty, "\x03")
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("Ctrl-C: exit %d, want 130", code)
	}
	if got := authorizedDigest(t, cfg, root); got != rec.Digest {
		t.Errorf("Ctrl-C changed the record to %s", got)
	}
	if left := stagedLeft(t, root); len(left) != 0 {
		t.Errorf("staged copies left after Ctrl-C: %v", left)
	}

	// The code typed in capitals, without its dash: the change is
	// authorized.
	tty, cmd = startOnTerminal(t, dir, env, "authorize")
	code := codeOn(t, readUntil(t, tty, prompt))
	press(t, tty, strings.ToUpper(strings.ReplaceAll(code, "-", ""))+"\n")
	readUntil(t, tty, "Authorized configuration ")
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d", code)
	}
	if got := authorizedDigest(t, cfg, root); got == rec.Digest || len(got) != 64 {
		t.Errorf("record %q after accepting the change", got)
	}
}

// Nothing stands in for the typed code: --yes is refused even on a
// terminal, and an agent's marker, set for authorize or only for the shell
// that runs it, refuses before anything is shown.
func TestAuthorizeRefusals(t *testing.T) {
	dir := initRepo(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": authorizeManifest})
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH")}
	for _, tc := range []struct {
		name string
		env  []string
		argv []string
		want string
	}{
		{"--yes", nil, []string{"agent-shell", "authorize", "--yes"}, "authorize --yes is refused: only a human authorizes"},
		{"marker", []string{"CLAUDECODE=1"}, []string{"agent-shell", "authorize"},
			"authorize refuses to run in an agent's session (CLAUDECODE is set: claude-code)"},
		{"marker in the parent", []string{"GEMINI_CLI=1"}, []string{"sh", "-c", `env -u GEMINI_CLI "$AGENT_SHELL" authorize; echo "status=$?"`},
			"authorize refuses to run in an agent's session (GEMINI_CLI is set for sh (process "},
		{"marker cleared with env -i", []string{"CODEX_THREAD_ID=t"}, []string{"sh", "-c", `env -i AGENT_SHELL_TEST_RUN_MAIN=1 "$AGENT_SHELL" authorize; echo "status=$?"`},
			"CODEX_THREAD_ID is set for sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			screen, status, err := onTerminal(dir, append(slices.Clone(env), tc.env...), "", tc.argv...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(screen, tc.want) || strings.Contains(screen, "Configuration digest") || strings.Contains(screen, "press Enter") {
				t.Errorf("screen:\n%s\nwant %q, and nothing shown", screen, tc.want)
			}
			if tc.argv[0] == "sh" {
				if !strings.Contains(screen, "status=1") {
					t.Errorf("authorize did not exit 1:\n%s", screen)
				}
			} else if status != 1 {
				t.Errorf("exit %d, want 1", status)
			}
			if _, err := os.Stat(filepath.Join(dir, "config")); err == nil {
				t.Errorf("something was recorded")
			}
		})
	}
}
