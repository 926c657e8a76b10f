package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// startOnTerminal runs agent-shell with args on a new pseudo-terminal, as
// its session leader and so in the terminal's foreground, the way a shell
// runs npm. It returns the terminal's master side.
func startOnTerminal(t *testing.T, dir string, env []string, args ...string) (*os.File, *exec.Cmd) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), runAsMainEnv+"=1"), env...)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
	})
	return tty, cmd
}

// readUntil reads the terminal until want appears, failing after a while:
// a script stopped by SIGTTIN would otherwise hang the test.
func readUntil(t *testing.T, tty io.Reader, want string) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		var out bytes.Buffer
		r := bufio.NewReader(tty)
		for !strings.Contains(out.String(), want) {
			b, err := r.ReadByte()
			if err != nil {
				break
			}
			out.WriteByte(b)
		}
		got <- out.String()
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, want) {
			t.Fatalf("terminal output %q lacks %q", s, want)
		}
		return s
	case <-time.After(20 * time.Second):
		t.Fatalf("no %q on the terminal: the script could not use it", want)
	}
	return ""
}

// A script run by the shim in the foreground of a terminal can read it: its
// process group is given the terminal (a background group would be stopped
// by SIGTTIN on its first read).
func TestShimScriptReadsTheTerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(dir+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	tty, cmd := startOnTerminal(t, dir, []string{"AGENTSHELL_SESSION_ID=tty"},
		"-c", `printf 'name? '; read name; echo "hello $name"; exit 5`)
	readUntil(t, tty, "name? ")
	if _, err := tty.Write([]byte("ada\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, tty, "hello ada")
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 5 {
		t.Fatalf("exit: %v, want status 5", err)
	}
	data, err := os.ReadFile(dir + "/.agent-shell/events/tty.jsonl")
	if err != nil || !bytes.Contains(data, []byte(`"exit_code":5`)) {
		t.Fatalf("event: %s %v", data, err)
	}
}

// log colours its table on a terminal, and not with NO_COLOR set.
func TestLogColoursOnlyOnATerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/.agent-shell/events", 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"v":1,"session_id":"c","event":"script_end","command":"false","actor":"human","exit_code":1,"signal":null,"duration_ms":3,"timestamp":"2026-11-29T12:00:00.000Z","env":{},"tags":{},"seq":1}` + "\n"
	if err := os.WriteFile(dir+"/.agent-shell/events/c.jsonl", []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	tty, _ := startOnTerminal(t, dir, nil, "log")
	if out := readUntil(t, tty, "false"); !strings.Contains(out, "\x1b[") {
		t.Errorf("no colour on a terminal: %q", out)
	}
	tty, _ = startOnTerminal(t, dir, []string{"NO_COLOR=1"}, "log")
	if out := readUntil(t, tty, "false"); strings.Contains(out, "\x1b[") {
		t.Errorf("colour despite NO_COLOR: %q", out)
	}
}
