package hostapi

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// maxBesideRead bounds how much of a file HooksBeside reads for its marker.
const maxBesideRead = 64 << 10

// HooksBeside lists the files in root (as root-relative paths) and in home
// (as ~/paths) where the host registers hooks besides agent-shell's own:
// each runs on the host's tool calls too, and a hook or plugin that runs
// after agent-shell can change a command it judged. home "" looks at the
// repository only.
func (d Descriptor) HooksBeside(root, home string) []string {
	var out []string
	look := func(base, show string, regs []Registration) {
		for _, r := range regs {
			if r.Beside == "" || base == "" {
				continue
			}
			matches, _ := filepath.Glob(filepath.Join(base, filepath.FromSlash(r.Path)))
			for _, m := range matches {
				rel, err := filepath.Rel(base, m)
				if err != nil {
					continue
				}
				rel = filepath.ToSlash(rel)
				if show == "" && slices.Contains(d.Installs, rel) {
					continue // agent-shell's own
				}
				if holds(m, r.Beside) {
					out = append(out, show+rel)
				}
			}
		}
	}
	look(root, "", d.Registrations)
	look(home, "~/", d.HomeRegistrations)
	return out
}

// holds reports whether the regular file at p holds marker in its first
// maxBesideRead bytes (HooksAlways: any regular file).
func holds(p, marker string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if marker == HooksAlways {
		return true
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxBesideRead))
	return bytes.Contains(data, []byte(marker))
}
