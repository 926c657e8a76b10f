package state

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The test binary doubles as a worker process for TestConcurrentProcesses:
// with STATE_TEST_WORKER=1 it increments a session counter
// STATE_TEST_COUNT times in the store STATE_TEST_DIR, once the file
// STATE_TEST_GO exists, and exits.
const (
	workerEnv = "STATE_TEST_WORKER"
	dirEnv    = "STATE_TEST_DIR"
	countEnv  = "STATE_TEST_COUNT"
	goEnv     = "STATE_TEST_GO"
)

const workerSession = "shared-session"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if err := worker(); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func worker() error {
	n, err := strconv.Atoi(os.Getenv(countEnv))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Start together: wait for the go file.
	for {
		if _, err := os.Stat(os.Getenv(goEnv)); err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(time.Millisecond)
	}
	s := Open(os.Getenv(dirEnv))
	for range n {
		if err := increment(ctx, s, Session, workerSession, testID()); err != nil {
			return err
		}
	}
	return nil
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	const procs, each = 8, 100
	root := t.TempDir()
	s := Open(filepath.Join(root, "state"))
	goFile := filepath.Join(root, "go")
	type proc struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
	}
	var ps []*proc
	for range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		p.cmd.Env = append(os.Environ(),
			workerEnv+"=1",
			dirEnv+"="+s.Dir(),
			countEnv+"="+strconv.Itoa(each),
			goEnv+"="+goFile,
		)
		p.cmd.Stderr = &p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	start := time.Now()
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v\n%s", i, err, p.stderr.Bytes())
		}
	}
	t.Logf("%d processes × %d commits in %v", procs, each, time.Since(start))
	st := load(t, s, Session, workerSession, testID())
	if st["n"] != int64(procs*each) {
		t.Fatalf("n = %#v, want %d", st["n"], procs*each)
	}
	path, _ := s.Path(Session, workerSession, testID())
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want the snapshot and its lock", names)
	}
}
