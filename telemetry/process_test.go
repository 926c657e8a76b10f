package telemetry

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startChain runs `shell -c 'CHILD & echo $!; wait'` with env and returns
// the pid of CHILD, a grandchild of the test, once it runs sleep.
func startChain(t *testing.T, shell string, env []string, child string) int {
	t.Helper()
	cmd := exec.Command(shell, "-c", child+" & echo $!; wait")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, name, _ := readStat(pid); name == "sleep" {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never ran sleep", pid)
		}
		time.Sleep(time.Millisecond)
	}
}

// A marker taken out of a command's own environment is still seen in the
// shell that ran it; names with spaces and parentheses are read whole.
func TestAncestors(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	shell := filepath.Join(t.TempDir(), "sh) 1 (x")
	if err := os.Symlink("/bin/sh", shell); err != nil {
		t.Fatal(err)
	}
	pid := startChain(t, shell, []string{"CLAUDECODE=1"}, "env -u CLAUDECODE sleep 30")
	if own := readEnviron(pid); own("CLAUDECODE") != "" {
		t.Fatalf("the child still has CLAUDECODE")
	}
	up := Ancestors(pid, testAgents)
	if len(up) < 2 {
		t.Fatalf("ancestors %+v", up)
	}
	if up[0].Name != "sh) 1 (x" || up[0].Marker != "CLAUDECODE" || up[0].Actor != "claude-code" {
		t.Errorf("parent %+v, want the shell with CLAUDECODE", up[0])
	}
	if up[1].PID != os.Getpid() {
		t.Errorf("grandparent %+v, want the test (%d)", up[1], os.Getpid())
	}
	if last := up[len(up)-1]; last.PID != 1 {
		t.Errorf("the walk ends at %+v, want pid 1", last)
	}
}

func TestAncestorsWithoutMarker(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	pid := startChain(t, "/bin/sh", nil, "sleep 30")
	up := Ancestors(pid, testAgents)
	if len(up) == 0 || up[0].Marker != "" {
		t.Errorf("ancestors %+v, want a parent without marker", up)
	}
}

func TestAncestorsOfNoProcess(t *testing.T) {
	if up := Ancestors(-1, testAgents); up != nil {
		t.Errorf("Ancestors(-1, testAgents) = %+v", up)
	}
}
