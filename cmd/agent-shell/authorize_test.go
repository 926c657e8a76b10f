package main

import (
	"os"
	"path/filepath"
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

// authorize on a terminal: it shows the configuration, asks, and records
// only on y; n and Ctrl-C change nothing.
func TestAuthorizeOnATerminal(t *testing.T) {
	dir := initRepo(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": authorizeManifest})
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	cfg := filepath.Join(dir, "config", "agent-shell")

	// First authorization, answered y.
	tty, cmd := startOnTerminal(t, dir, env, "authorize")
	screen := readUntil(t, tty, "Authorize this configuration? [y/N] ")
	for _, want := range []string{"First authorization", ".github/hooks/agent-shell/agent-shell.toml", "Configuration digest: "} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	press(t, tty, "y\n")
	out := readUntil(t, tty, "Authorized configuration ")
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	first := authorizedDigest(t, cfg, root)
	if len(first) != 64 || !strings.Contains(screen, first) {
		t.Fatalf("recorded %q; screen:\n%s", first, screen)
	}

	// A change, declined: the diff is shown, nothing is recorded.
	changed := strings.Replace(authorizeManifest, `action = "deny"`, `action = "allow"`, 1)
	if err := os.WriteFile(filepath.Join(dir, ".github/hooks/agent-shell/agent-shell.toml"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	tty, cmd = startOnTerminal(t, dir, env, "authorize")
	screen = readUntil(t, tty, "Authorize this configuration? [y/N] ")
	for _, want := range []string{"Changes since the authorization of ", "-action = \"deny\"", "+action = \"allow\""} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	press(t, tty, "n\n")
	readUntil(t, tty, "Not authorized; nothing changed.")
	if code := waitExit(t, cmd); code != 1 {
		t.Errorf("declined: exit %d, want 1", code)
	}
	if got := authorizedDigest(t, cfg, root); got != first {
		t.Errorf("declining changed the record to %s", got)
	}
	if left := stagedLeft(t, root); len(left) != 0 {
		t.Errorf("staged copies left: %v", left)
	}

	// Ctrl-C at the question: nothing recorded, nothing left behind.
	tty, cmd = startOnTerminal(t, dir, env, "authorize")
	readUntil(t, tty, "Authorize this configuration? [y/N] ")
	press(t, tty, "\x03")
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("Ctrl-C: exit %d, want 130", code)
	}
	if got := authorizedDigest(t, cfg, root); got != first {
		t.Errorf("Ctrl-C changed the record to %s", got)
	}
	if left := stagedLeft(t, root); len(left) != 0 {
		t.Errorf("staged copies left after Ctrl-C: %v", left)
	}

	// Accepted with "yes": the change is authorized.
	tty, cmd = startOnTerminal(t, dir, env, "authorize")
	readUntil(t, tty, "Authorize this configuration? [y/N] ")
	press(t, tty, "yes\n")
	readUntil(t, tty, "Authorized configuration ")
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d", code)
	}
	if got := authorizedDigest(t, cfg, root); got == first || len(got) != 64 {
		t.Errorf("record %q after accepting the change", got)
	}
}

// --yes on a terminal asks nothing.
func TestAuthorizeYesOnATerminal(t *testing.T) {
	dir := initRepo(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": authorizeManifest})
	tty, cmd := startOnTerminal(t, dir, []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}, "authorize", "--yes")
	out := readUntil(t, tty, "Authorized configuration ")
	if strings.Contains(out, "[y/N]") {
		t.Errorf("asked despite --yes:\n%s", out)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d", code)
	}
}
