package enforce

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/internal/spawn"
)

// TestMain makes the test binary the sandbox's first process when Command
// starts it as such.
func TestMain(m *testing.M) {
	if IsEnter(os.Args[1:]) {
		Enter()
	}
	os.Exit(m.Run())
}

// Bound resolves symbolic links, leaves out a path under another and lists
// the paths that do not exist apart.
func TestPlanBound(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b", "real"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	p := Plan{ReadOnly: []string{filepath.Join(dir, "a/b"), filepath.Join(dir, "a"), filepath.Join(dir, "link"), filepath.Join(dir, "gone")}}
	bound, missing := p.Bound()
	if want := []string{filepath.Join(dir, "a"), filepath.Join(dir, "real")}; !slices.Equal(bound, want) {
		t.Errorf("bound %v, want %v", bound, want)
	}
	if want := []string{filepath.Join(dir, "gone")}; !slices.Equal(missing, want) {
		t.Errorf("missing %v, want %v", missing, want)
	}
}

// A plan reaches the sandbox as it was given; a missing or damaged one is
// an error, never an empty plan.
func TestPlanTransport(t *testing.T) {
	p := Plan{ReadOnly: []string{"/x"}, Writable: []string{"/x/y"}, Write: []string{"/w"}, DenyNetwork: true, inherit: 2, nested: true}
	t.Setenv(planEnv, encodePlan(p))
	got, err := decodePlan()
	if err != nil || !slices.Equal(got.ReadOnly, p.ReadOnly) || !got.DenyNetwork || got.inherit != 2 || !got.nested || os.Getenv(planEnv) != "" {
		t.Errorf("decoded %+v, %v", got, err)
	}
	for _, bad := range []string{"", "{", `{"read_only": 3}`, `{"inherit": 1000000}`, `{"inherit": -1}`} {
		t.Setenv(planEnv, bad)
		if _, err := decodePlan(); err == nil {
			t.Errorf("plan %q: no error", bad)
		}
	}
}

// starts are the two ways a sandbox starts: its first process agent-shell
// again (Enter, where the fast start is not built or the kernel's Landlock
// is older than ABI 6), and the fast start (Spawn).
var starts = []struct {
	name string
	run  func(t testing.TB, c *Cmd, dir string) (code int, stderr string)
}{
	{"first process", func(t testing.TB, c *Cmd, dir string) (int, string) {
		var stderr strings.Builder
		c.Dir, c.Stderr = dir, &stderr
		err := c.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return c.ProcessState.ExitCode(), stderr.String()
	}},
	{"fast", func(t testing.TB, c *Cmd, dir string) (int, string) {
		if c.fast == nil {
			t.Skip("no fast start here: it needs amd64 and Landlock ABI 6")
		}
		code, _, stderr := spawnIn(t, c, dir)
		return code, stderr
	}},
}

// spawnIn starts c by Spawn in dir, waits for it and finishes it.
func spawnIn(t testing.TB, c *Cmd, dir string) (code int, sig, stderr string) {
	errFile, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if dir != "" {
		// The fast start enters the working directory it was made in.
		t.Chdir(dir)
		c.fast.cwd = dir
	}
	pid, err := c.Spawn(append([]*os.File{null, null, errFile}, c.ExtraFiles...), c.SysProcAttr)
	c.Started()
	if err != nil {
		t.Fatal(err)
	}
	_, ws, err := spawn.Wait(pid)
	if err != nil {
		t.Fatal(err)
	}
	code, sig = spawn.Status(ws)
	sig = c.Finish(sig)
	b, _ := os.ReadFile(errFile.Name())
	return code, sig, string(b)
}

// A command in the sandbox cannot change a read-only path, by any of its
// names, and its status comes back; what is not protected takes writes.
func TestSandboxReadOnly(t *testing.T) {
	if l := Probe(); !l.Sandbox() {
		t.Skip("no sandbox here: " + l.String())
	}
	for _, start := range starts {
		t.Run(start.name, func(t *testing.T) {
			dir := t.TempDir()
			protected := filepath.Join(dir, "protected")
			if err := os.MkdirAll(protected, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(protected, "f"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(protected, filepath.Join(dir, "alias")); err != nil {
				t.Fatal(err)
			}
			run := func(line string) (int, string) {
				c, err := Command(Plan{ReadOnly: []string{protected}}, []string{"/bin/sh", "-c", line})
				if err != nil {
					t.Fatal(err)
				}
				return start.run(t, c, dir)
			}
			for _, line := range []string{
				"echo x > protected/f", "echo x > alias/f", "rm -rf protected", "mv protected elsewhere",
				"cd protected && echo x > f", "ln -s /tmp protected/new", "touch protected/new",
				"mount --bind /tmp protected", "umount protected",
			} {
				if code, _ := run(line); code == 0 {
					t.Errorf("%q succeeded", line)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(protected, "f")); string(b) != "keep" {
				t.Errorf("protected/f is %q", b)
			}
			if code, stderr := run("mkdir other && echo x > other/f && rm -rf other && exit 9"); code != 9 {
				t.Errorf("writes beside the protected folder: status %d, %s", code, stderr)
			}
		})
	}
}

// A fast start reaches no process outside the sandbox (it has no PID
// namespace: Landlock keeps ptrace, /proc/PID/root and signals inside),
// gains no privileges (no_new_privs), reports the signal that ended the command, and ends what the command
// left running.
func TestFastStart(t *testing.T) {
	if l := Probe(); !l.Sandbox() {
		t.Skip("no sandbox here: " + l.String())
	}
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	c, err := Command(Plan{}, []string{"/bin/sh", "-c", `
		ls /proc/$PPID/root/ && exit 1
		cat /proc/$PPID/environ && exit 2
		kill -CONT $PPID && exit 3
		grep -q "^NoNewPrivs:.*1" /proc/self/status || exit 4
		sleep 30 & echo $! > pids
		setsid sleep 30 & echo $! >> pids
		kill -TERM $$`})
	if err != nil {
		t.Fatal(err)
	}
	if c.fast == nil {
		t.Skip("no fast start here: it needs amd64 and Landlock ABI 6")
	}
	code, sig, stderr := spawnIn(t, c, dir)
	if code != 128+int(syscall.SIGTERM) || sig != "SIGTERM" {
		t.Errorf("status %d, signal %q, want 143 SIGTERM; stderr:\n%s", code, sig, stderr)
	}
	if n := strings.Count(stderr, "Permission denied"); n != 2 || !strings.Contains(stderr, "not permitted") {
		t.Errorf("stderr:\n%s", stderr)
	}
	b, _ := os.ReadFile(pids)
	left := strings.Fields(string(b))
	if len(left) != 2 {
		t.Fatalf("pids %q", b)
	}
	for _, p := range left {
		pid, _ := strconv.Atoi(p)
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("%d still runs after the sandbox's end", pid)
		}
	}
}

// A fast start that fails says which step failed, and starts nothing.
func TestFastStartFails(t *testing.T) {
	if l := Probe(); !l.Sandbox() {
		t.Skip("no sandbox here: " + l.String())
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv   []string
		plan   Plan
		before func()
		want   string
	}{
		// Executable when the command was made, no longer when it starts.
		{[]string{script}, Plan{}, func() { os.Chmod(script, 0o644) }, "exec " + script + ": permission denied"},
		// Protected when the plan was made, gone when the sandbox starts.
		{[]string{"/bin/true"}, Plan{ReadOnly: []string{gone}}, func() { os.Remove(gone) }, "bind " + gone + ": no such file or directory"},
	} {
		c, err := Command(tc.plan, tc.argv)
		if err != nil {
			t.Fatal(err)
		}
		if c.fast == nil {
			t.Skip("no fast start here: it needs amd64 and Landlock ABI 6")
		}
		tc.before()
		pid, err := c.Spawn(append([]*os.File{os.Stdin, os.Stdout, os.Stderr}, c.ExtraFiles...), c.SysProcAttr)
		c.Started()
		if err == nil {
			spawn.Wait(pid)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.argv, err, tc.want)
		}
	}
}

// BenchmarkSandboxTrue: `true` in a sandbox with the protected paths of a
// repository (8 binds), namespaces, mounts and ruleset included, beside
// `true` alone: "fast" minus "plain" is what applying the sandbox adds to
// a command. With "first process" the sandbox's first process is this
// test binary, a Go start of its own.
func BenchmarkSandboxTrue(b *testing.B) {
	dir := b.TempDir()
	var ro []string
	for _, name := range []string{".agent-shell", ".claude", ".github/hooks", ".codex", ".gemini", ".cursor", ".npmrc", "bin"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
		ro = append(ro, p)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("needs true")
	}
	if l := Probe(); !l.Sandbox() {
		b.Skip("no sandbox here: " + l.String())
	}
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	wait := func(pid int, err error) {
		if err != nil {
			b.Fatal(err)
		}
		if _, ws, err := spawn.Wait(pid); err != nil || ws.ExitStatus() != 0 {
			b.Fatal(ws, err)
		}
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			wait(spawn.Start(truePath, []string{truePath}, nil, files, nil))
		}
	})
	b.Run("first process", func(b *testing.B) {
		for b.Loop() {
			c, err := Command(Plan{ReadOnly: ro}, []string{truePath})
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			c, err := Command(Plan{ReadOnly: ro}, []string{truePath})
			if err != nil {
				b.Fatal(err)
			}
			if c.fast == nil {
				b.Skip("no fast start here: it needs amd64 and Landlock ABI 6")
			}
			wait(c.Spawn(append(files, c.ExtraFiles...), c.SysProcAttr))
			c.Started()
			c.Finish("")
		}
	})
}

// FuzzDecodePlan: any plan text decodes to a plan or an error, never a
// panic, and a plan decodes to itself.
func FuzzDecodePlan(f *testing.F) {
	f.Add(encodePlan(Plan{ReadOnly: []string{"/a"}, Write: []string{"/w"}, DenyNetwork: true, inherit: 1}))
	f.Add(`{"read_only":null,"inherit":-1}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := parsePlan(raw)
		if err != nil {
			return
		}
		p.Bound()
		again, err := parsePlan(encodePlan(p))
		if err != nil || !slices.Equal(again.ReadOnly, p.ReadOnly) || again.inherit != p.inherit || again.DenyNetwork != p.DenyNetwork {
			t.Fatalf("%q: decodes to %+v, then %+v, %v", raw, p, again, err)
		}
	})
}

// The sandbox's first process with no command says so and exits 126.
func TestEnterWithoutCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(self, enterArg)
	c.Env = append(os.Environ(), planEnv+"="+encodePlan(Plan{}))
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(string(out), "no command to run") {
		t.Errorf("got %v: %s", err, out)
	}
}

// A signal to the sandbox's process group reaches the command once: the
// sandbox's first process does not pass it on a second time.
func TestSandboxSignalOnce(t *testing.T) {
	if l := Probe(); !l.Sandbox() {
		t.Skip("no sandbox here: " + l.String())
	}
	out := filepath.Join(t.TempDir(), "got")
	c, err := Command(Plan{}, []string{"/bin/sh", "-c", `trap 'echo INT >> "$0"' INT; touch "$0.ready"; i=0; while [ $i -lt 10 ]; do sleep 0.1; i=$((i+1)); done`, out})
	if err != nil {
		t.Fatal(err)
	}
	c.SysProcAttr.Setpgid = true
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(out + ".ready"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(-c.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "INT\n" {
		t.Errorf("the command caught %q, want one INT", b)
	}
}
