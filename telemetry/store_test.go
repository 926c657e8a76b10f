package telemetry

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestEventsDir(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	def := filepath.Join(root, DefaultEventsSubdir)
	tests := []struct {
		name     string
		override string
		want     string
		wantWarn bool
	}{
		{"default", "", def, false},
		{"relative inside", "logs/events", filepath.Join(root, "logs/events"), false},
		{"absolute inside", filepath.Join(root, "x"), filepath.Join(root, "x"), false},
		{"dot-dot out", "../elsewhere", def, true},
		{"absolute outside", outside, def, true},
		{"through a symlink out", "escape/events", def, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "AGENTSHELL_LOG_DIR" {
					return tt.override
				}
				return ""
			}
			got, warn := EventsDir(root, getenv)
			if got != tt.want || (warn != nil) != tt.wantWarn {
				t.Errorf("EventsDir = %s, %v; want %s, warning %v", got, warn, tt.want, tt.wantWarn)
			}
			if tt.wantWarn && !errors.Is(warn, ErrLogDirOutsideRoot) {
				t.Errorf("warning %v does not wrap ErrLogDirOutsideRoot", warn)
			}
			_, err := EventsDirForRead(root, getenv)
			if tt.wantWarn && err == nil {
				t.Errorf("EventsDirForRead accepted %q", tt.override)
			}
		})
	}
	// For reading, a missing override directory is an error, not an empty log.
	missing := func(k string) string {
		if k == "AGENTSHELL_LOG_DIR" {
			return "nowhere"
		}
		return ""
	}
	if _, err := EventsDirForRead(root, missing); err == nil {
		t.Error("EventsDirForRead accepted a missing directory")
	}
}

// TestSessionFilesMustBeRegular: a session file that is a named pipe or a
// symbolic link (to /dev/null, or to a real file) is refused by the writer
// and by every reader, promptly (a pipe nobody writes would block a plain
// open), and is never written through.
func TestSessionFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, t.TempDir(), "target.jsonl", chainLines(ev(EventToolUse, "a", 1)))
	before, _ := os.ReadFile(target)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"null": os.DevNull, "link": target} {
		if err := os.Symlink(to, filepath.Join(dir, name+".jsonl")); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]string{"fifo": "a named pipe (FIFO)", "null": "a symbolic link", "link": "a symbolic link"}
	for id, kind := range kinds {
		path := filepath.Join(dir, id+".jsonl")
		wantErr := func(what string, err error) {
			t.Helper()
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Kind() != kind || nr.Path != path {
				t.Errorf("%s %s: %v, want %s is %s", what, id, err, path, kind)
			}
		}
		withinSecond(t, func() {
			_, err := OpenWriter(dir, id)
			wantErr("OpenWriter", err)
			_, err = VerifyFile(path)
			wantErr("VerifyFile", err)
			_, err = (&Query{Files: []string{path}}).Run(func(*Record) error { return nil })
			wantErr("Query", err)
			_, _, err = ListSessions([]string{path}, Filter{})
			wantErr("ListSessions", err)
			_, err = SessionFile(dir, id)
			wantErr("SessionFile", err)
		})
	}
	if after, _ := os.ReadFile(target); !bytes.Equal(after, before) {
		t.Errorf("the link's target changed: %q", after)
	}
	files, skipped, err := ListFiles(dir)
	if err != nil || len(files) != 0 || len(skipped) != len(kinds) {
		t.Fatalf("ListFiles = %v, %v, %v", files, skipped, err)
	}
	for _, s := range skipped {
		if want := kinds[SessionIDOf(s.Path)]; s.Kind() != want {
			t.Errorf("ListFiles skipped %s as %s, want %s", s.Path, s.Kind(), want)
		}
	}
}

// withinSecond fails the test if fn has not returned after a second (it
// would hang on a named pipe opened for reading without O_NONBLOCK).
func withinSecond(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("still blocked after a second")
	}
}
