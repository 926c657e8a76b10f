package authority

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Limits on a configuration tree: enough for any policy with its scripts
// and packs, small enough that a copy is cheap and a diff readable.
const (
	MaxTreeFiles = 1000
	MaxFileBytes = 4 << 20
	MaxTreeBytes = 32 << 20
)

// Tree is a set of files: slash-separated paths, relative to a root, to
// their contents.
type Tree map[string][]byte

// Paths lists the tree's paths, sorted.
func (t Tree) Paths() []string {
	out := make([]string, 0, len(t))
	for p := range t {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ReadTree reads every regular file under root/sub, recursively, keyed by
// its slash-separated path relative to root. Symbolic links and other
// entries that are not regular files or folders are not followed: they are
// left out and listed in skipped. A missing root/sub is an empty tree. skip,
// when not nil, leaves out the paths it returns true for.
func ReadTree(root, sub string, skip func(rel string) bool) (t Tree, skipped []string, err error) {
	t = Tree{}
	base := filepath.Join(root, filepath.FromSlash(sub))
	if fi, err := os.Lstat(base); errors.Is(err, fs.ErrNotExist) {
		return t, nil, nil
	} else if err != nil {
		return nil, nil, err
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a folder", base)
	}
	total := 0
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if p == base {
			return nil
		}
		if skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			skipped = append(skipped, rel)
			return nil
		}
		if len(t) >= MaxTreeFiles {
			return fmt.Errorf("%s holds more than %d files", base, MaxTreeFiles)
		}
		data, err := readFileNoFollow(p, MaxFileBytes)
		if err != nil {
			return err
		}
		total += len(data)
		if total > MaxTreeBytes {
			return fmt.Errorf("%s holds more than %d bytes", base, MaxTreeBytes)
		}
		t[rel] = data
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return t, skipped, nil
}

// checkPath accepts a tree path only if it is relative, clean and stays
// below its root, so that no tree can write outside the folder it is
// staged in.
func checkPath(p string) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == "." || p == ".." ||
		strings.HasPrefix(p, "../") || strings.ContainsAny(p, "\x00\\") {
		return fmt.Errorf("tree path %q is not a clean relative path", p)
	}
	return nil
}

// Stage writes t into a new folder inside parent (created 0700 as needed)
// under a temporary name starting with ".staging-", files 0600 and synced,
// and returns that folder. Commit gives it its final name; os.RemoveAll
// discards it.
func Stage(parent string, t Tree) (string, error) {
	for p := range t {
		if err := checkPath(p); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	staged, err := os.MkdirTemp(parent, ".staging-")
	if err != nil {
		return "", err
	}
	if err := writeTree(staged, t); err != nil {
		os.RemoveAll(staged)
		return "", err
	}
	return staged, nil
}

func writeTree(dir string, t Tree) error {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	dirs := map[string]bool{".": true}
	for _, p := range t.Paths() {
		d := path.Dir(p)
		if err := r.MkdirAll(d, 0o700); err != nil {
			return err
		}
		dirs[d] = true
		f, err := r.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(t[p])
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	for d := range dirs {
		for ; ; d = path.Dir(d) {
			if err := syncDir(filepath.Join(dir, filepath.FromSlash(d))); err != nil {
				return err
			}
			if d == "." {
				break
			}
		}
	}
	return nil
}

// Commit renames the staged folder to final. A folder already at final is
// moved aside first and removed after, so final is missing only for the
// moment between two renames.
func Commit(staged, final string) error {
	parent := filepath.Dir(final)
	var old string
	if _, err := os.Lstat(final); err == nil {
		trash, err := os.MkdirTemp(parent, ".old-")
		if err != nil {
			return err
		}
		old = filepath.Join(trash, "x")
		if err := os.Rename(final, old); err != nil {
			os.Remove(trash)
			return err
		}
		defer os.RemoveAll(trash)
	}
	if err := os.Rename(staged, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return err
	}
	return syncDir(parent)
}

// Prune removes every entry of parent except keep (a name in it) and
// staged folders less than an hour old (another authorization may be
// underway), and reports the first failure.
func Prune(parent, keep string) error {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	var first error
	for _, e := range entries {
		if e.Name() == keep {
			continue
		}
		if strings.HasPrefix(e.Name(), ".staging-") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) < time.Hour {
				continue
			}
		}
		if err := os.RemoveAll(filepath.Join(parent, e.Name())); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Equal reports whether two trees hold the same files with the same
// contents.
func Equal(a, b Tree) bool {
	if len(a) != len(b) {
		return false
	}
	for p, x := range a {
		y, ok := b[p]
		if !ok || string(x) != string(y) {
			return false
		}
	}
	return true
}
