package spawn

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func run(t *testing.T, script string, files []*os.File) (code int, sig string) {
	t.Helper()
	pid, err := Start("/bin/sh", []string{"sh", "-c", script}, []string{"GREETING=hi"}, files, &syscall.SysProcAttr{Setpgid: true})
	if err != nil {
		t.Fatal(err)
	}
	got, ws, err := Wait(pid)
	if err != nil || got != pid {
		t.Fatalf("Wait(%d) = %d, %v", pid, got, err)
	}
	return Status(ws)
}

func TestStartAndWait(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	in, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	// The environment, the streams and the process group are the child's.
	code, sig := run(t, `echo "$GREETING $(ps -o pgid= $$ | tr -d ' ') $$" >&1; echo err >&2; exit 3`, []*os.File{in, out, out})
	if code != 3 || sig != "" {
		t.Errorf("exit 3 ended as %d %q", code, sig)
	}
	data, _ := os.ReadFile(out.Name())
	f := strings.Fields(string(data))
	if len(f) != 4 || f[0] != "hi" || f[1] != f[2] || f[3] != "err" {
		t.Errorf("the child wrote %q; want its greeting, its own group (pgid = pid) and stderr to the same file", data)
	}
	if code, sig := run(t, `kill -TERM $$`, []*os.File{in, out, out}); code != 128+15 || sig != "SIGTERM" {
		t.Errorf("a child killed by SIGTERM ended as %d %q", code, sig)
	}
}

func TestStartMissingProgram(t *testing.T) {
	_, err := Start("/nonexistent/sh", []string{"sh"}, nil, []*os.File{os.Stdin, os.Stdout, os.Stderr}, nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/sh") {
		t.Errorf("Start of a missing program = %v; want an error naming it", err)
	}
}
