//go:build !linux

package enforce

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

var errNotLinux = errors.New("the sandbox needs Linux (Landlock and namespaces)")

func realPath(path string) (string, error) { return filepath.EvalSymlinks(path) }

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// Probe reports that only the text guards apply.
func Probe() Level { return Level{Why: "not Linux"} }

// Cmd is a command that runs in the sandbox.
type Cmd struct{ *exec.Cmd }

// Command fails: there is no sandbox here.
func Command(Plan, []string, ...*os.File) (*Cmd, error) { return nil, errNotLinux }

// Spawn fails: there is no sandbox here.
func (c *Cmd) Spawn([]*os.File, *syscall.SysProcAttr) (int, error) { return 0, errNotLinux }

// Finish returns sig.
func (c *Cmd) Finish(sig string) string { return sig }

// Started does nothing: no sandbox starts.
func (c *Cmd) Started() {}

// Enter fails.
func Enter() {
	os.Stderr.WriteString("agent-shell: sandbox: " + errNotLinux.Error() + "\n")
	os.Exit(126)
}
