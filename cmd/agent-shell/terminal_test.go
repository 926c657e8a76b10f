package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agent-shell/agent-shell/call"
)

// codeRE finds the code authorize asks for on its terminal.
var codeRE = regexp.MustCompile(`type ([a-z2-9]{4}-[a-z2-9]{4}) and press Enter`)

// onTerminal runs argv on a new pseudo-terminal, as its session leader in
// the foreground, the way a person's shell runs a command; "agent-shell"
// as argv[0] is this test binary as agent-shell. When authorize shows its
// code, answer types it back (the code itself when answer is ""). It
// returns what the terminal showed, with CRLF read as LF, and the exit
// status.
func onTerminal(dir string, env []string, answer string, argv ...string) (string, int, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", 0, err
	}
	if argv[0] == "agent-shell" {
		argv[0] = exe
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(env, runAsMainEnv+"=1", "AGENT_SHELL="+exe)
	tty, err := pty.Start(cmd)
	if err != nil {
		return "", 0, err
	}
	defer tty.Close()
	screen := make(chan string, 1)
	go func() {
		var out bytes.Buffer
		r := bufio.NewReader(tty)
		answered := false
		for {
			b, err := r.ReadByte()
			if err != nil { // EIO once the terminal's last process ends
				break
			}
			out.WriteByte(b)
			if m := codeRE.FindSubmatch(out.Bytes()); m != nil && !answered && bytes.HasSuffix(out.Bytes(), []byte("declines): ")) {
				answered = true
				typed := answer
				if typed == "" {
					typed = string(m[1])
				}
				tty.Write([]byte(typed + "\n")) //nolint:errcheck // the process may be gone
			}
		}
		screen <- strings.ReplaceAll(out.String(), "\r\n", "\n")
	}()
	select {
	case s := <-screen:
		err := cmd.Wait()
		status, _ := call.ExitStatus(cmd.ProcessState, err)
		return s, status, nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return "", 0, errors.New("agent-shell did not end within 30s on its terminal")
	}
}

// terminalEnv are the variables a script's commands on a terminal get
// from the script.
var terminalEnv = []string{"PATH", "HOME", "TMPDIR", "XDG_CONFIG_HOME", "AGENTSHELL_SESSION_ID", "AGENTSHELL_POLICY_PATH", "USER"}

// authorizeOnTerminal is the testscript command
//
//	[!] authorize-on-terminal [-answer TEXT]
//
// which runs `agent-shell authorize` on a terminal of its own as a person
// would, typing back the code it shows (or TEXT). What the terminal showed
// becomes the script's stdout.
func authorizeOnTerminal(ts *testscript.TestScript, neg bool, args []string) {
	answer := ""
	switch {
	case len(args) == 2 && args[0] == "-answer":
		answer = args[1]
	case len(args) != 0:
		ts.Fatalf("usage: authorize-on-terminal [-answer TEXT]")
	}
	var env []string
	for _, k := range terminalEnv {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	screen, status, err := onTerminal(ts.MkAbs("."), env, answer, "agent-shell", "authorize")
	ts.Check(err)
	io.WriteString(ts.Stdout(), screen) //nolint:errcheck // a buffer
	switch {
	case neg && status == 0:
		ts.Fatalf("authorize succeeded on its terminal")
	case !neg && status != 0:
		ts.Fatalf("authorize exited %d on its terminal", status)
	}
}

// inAgentSession is the testscript condition [agentsession]: this test
// runs in an agent's session, where authorize refuses to ask at all.
func inAgentSession() bool { return agentSession(os.Getenv) != "" }

// skipInAgentSession skips a test that needs authorize to ask: run in an
// agent's session, it refuses by design.
func skipInAgentSession(t *testing.T) {
	t.Helper()
	if why := agentSession(os.Getenv); why != "" {
		t.Skipf("authorize refuses in an agent's session, and this test runs in one (%s)", why)
	}
}
