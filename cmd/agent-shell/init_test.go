package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

func initRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files[".git/HEAD"] = "ref: refs/heads/main\n"
	for p, data := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func press(t *testing.T, tty *os.File, keys string) {
	t.Helper()
	if _, err := tty.Write([]byte(keys)); err != nil {
		t.Fatal(err)
	}
}

// waitExit waits for the command and returns its exit status.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatal("agent-shell init did not exit")
	}
	return -1
}

// cooked reports whether the terminal's settings are back to those of a
// terminal nobody changed (a fresh one): the prompt's raw mode is undone.
// A pseudo-terminal's master side reads its line discipline's settings.
func cooked(t *testing.T, tty *os.File) bool {
	t.Helper()
	fresh, freshSlave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	defer freshSlave.Close()
	want, err := term.GetState(int(fresh.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := term.GetState(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(got, want)
}

// The interactive prompt, on a real terminal: select an agent, toggle a
// feature off, confirm; the files are those chosen.
func TestInitPromptOnATerminal(t *testing.T) {
	dir := initRepo(t, map[string]string{"package.json": `{"name":"app"}`})
	tty, cmd := startOnTerminal(t, dir, nil, "init")

	// The agents: amp, claude, codex, copilot (preselected: no agent was
	// found), cursor, gemini, opencode. Move to claude and select it.
	screen := readUntil(t, tty, "opencode")
	for _, want := range []string{"Which agents should agent-shell hook into?", "[x] copilot", "package managers: npm (package.json)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("agents screen lacks %q:\n%s", want, screen)
		}
	}
	press(t, tty, "j")
	readUntil(t, tty, "> [ ] claude")
	press(t, tty, " ")
	readUntil(t, tty, "> [x] claude")
	press(t, tty, "\r")

	// The features: flight recording, policy, npm scripts, .gitignore, all
	// on. Turn npm off with the arrow keys.
	readUntil(t, tty, "ignore .agent-shell/")
	press(t, tty, "\x1b[B\x1b[B")
	readUntil(t, tty, "> [x] npm scripts")
	press(t, tty, " ")
	readUntil(t, tty, "> [ ] npm scripts")
	press(t, tty, "\r")

	screen = readUntil(t, tty, "Write these files? [y/N] ")
	for _, want := range []string{".claude/settings.json", ".github/hooks/agent-shell/hooks.json", "the safety pack, level standard"} {
		if !strings.Contains(screen, want) {
			t.Errorf("summary lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, ".npmrc") {
		t.Errorf("summary has .npmrc:\n%s", screen)
	}
	press(t, tty, "y")
	out := readUntil(t, tty, "verify: agent-shell policy check")
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "wrote .claude/settings.json") {
		t.Errorf("output:\n%s", out)
	}
	if !cooked(t, tty) {
		t.Error("the terminal was left in raw mode")
	}

	for file, want := range map[string]string{
		".claude/settings.json":                      "agent-shell hook --agent=claude",
		".github/hooks/agent-shell/hooks.json":       "agent-shell hook --agent=copilot",
		".github/hooks/agent-shell/agent-shell.toml": `name = "safety"`,
		".gitignore": ".agent-shell/",
	} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v, lacks %q:\n%s", file, err, want, data)
		}
	}
	for _, file := range []string{".npmrc", ".codex", ".gemini"} {
		if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
			t.Errorf("%s was written", file)
		}
	}

	// Run again: only what is still missing (npm) is asked about; declined.
	tty, cmd = startOnTerminal(t, dir, nil, "init")
	screen = readUntil(t, tty, "script-shell=agent-shell in .npmrc")
	for _, unwanted := range []string{"Which agents", "] flight recording", "] policy"} {
		if strings.Contains(screen, unwanted) {
			t.Errorf("second run asks about %q:\n%s", unwanted, screen)
		}
	}
	press(t, tty, "\r")
	readUntil(t, tty, "Write these files? [y/N] ")
	press(t, tty, "n")
	readUntil(t, tty, "Nothing changed.")
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("second run: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, ".npmrc")); err == nil {
		t.Error(".npmrc written although declined")
	}

	// Once nothing is missing, nothing is asked.
	tty, cmd = startOnTerminal(t, dir, nil, "init", "--npm")
	readUntil(t, tty, "wrote .npmrc")
	waitExit(t, cmd)
	tty, cmd = startOnTerminal(t, dir, nil, "init")
	readUntil(t, tty, "agent-shell is already set up here; nothing changed")
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("third run: exit %d", code)
	}
}

// Leaving the prompt with Ctrl-C, or a signal from elsewhere, writes
// nothing and leaves the terminal as it was.
func TestInitPromptCanceled(t *testing.T) {
	dir := initRepo(t, map[string]string{})
	tty, cmd := startOnTerminal(t, dir, nil, "init")
	readUntil(t, tty, "opencode")
	press(t, tty, "\r")
	readUntil(t, tty, "ignore .agent-shell/")
	press(t, tty, "\x03")
	readUntil(t, tty, "canceled; nothing changed")
	if code := waitExit(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if !cooked(t, tty) {
		t.Error("the terminal was left in raw mode")
	}

	tty, cmd = startOnTerminal(t, dir, nil, "init")
	readUntil(t, tty, "opencode")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d after SIGTERM", code)
	}
	if !cooked(t, tty) {
		t.Error("the terminal was left in raw mode after SIGTERM")
	}

	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("files written: %v (%v)", entries, err)
	}
}
