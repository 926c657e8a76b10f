package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnforceConfig is the manifest's [enforce] table: whether the commands the
// policy allows run in the kernel's sandbox (package enforce), and what the
// sandbox allows besides keeping agent-shell's files read-only.
type EnforceConfig struct {
	// Mode is "off" (the default: only the text is judged) or "sandbox":
	// allowed shell commands of the hosts that can be rewritten, and npm
	// scripts, run through agent-shell exec.
	Mode string `toml:"mode"`
	// Write, when set, are the only folders commands may write to:
	// "<project>", "<tmp>", "~/…", absolute paths, or paths relative to
	// the project.
	Write []string `toml:"write"`
	// Network is "allow" (the default) or "deny": no TCP connection or
	// bind.
	Network string `toml:"network"`
}

const (
	EnforceOff     = "off"
	EnforceSandbox = "sandbox"
)

// Sandbox reports whether allowed commands run in the sandbox.
func (c EnforceConfig) Sandbox() bool { return c.Mode == EnforceSandbox }

// DenyNetwork reports whether the sandbox denies TCP.
func (c EnforceConfig) DenyNetwork() bool { return c.Network == "deny" }

// validate returns the key at fault with the error.
func (c EnforceConfig) validate() (string, error) {
	switch c.Mode {
	case "", EnforceOff, EnforceSandbox:
	default:
		return "mode", fmt.Errorf("%q: want off or sandbox", c.Mode)
	}
	switch c.Network {
	case "", "allow", "deny":
	default:
		return "network", fmt.Errorf("%q: want allow or deny", c.Network)
	}
	for _, w := range c.Write {
		if w == "" || strings.HasPrefix(w, "<") && w != "<project>" && w != "<tmp>" {
			return "write", fmt.Errorf("%q: want <project>, <tmp>, ~/..., or a path", w)
		}
	}
	return "", nil
}

// WriteRoots is Write as absolute paths: <project> is root, <tmp> the
// temporary folders, ~ the home; other relative paths are under root.
func (c EnforceConfig) WriteRoots(root, home string) []string {
	var out []string
	for _, w := range c.Write {
		switch {
		case w == "<project>":
			out = append(out, root)
		case w == "<tmp>":
			out = append(out, os.TempDir(), "/tmp", "/var/tmp")
		case w == "~" || strings.HasPrefix(w, "~/"):
			out = append(out, filepath.Join(home, strings.TrimPrefix(w, "~")))
		case filepath.IsAbs(w):
			out = append(out, filepath.Clean(w))
		default:
			out = append(out, filepath.Join(root, w))
		}
	}
	return out
}
