package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/pelletier/go-toml/v2"
)

// maxLockBytes bounds the lock file.
const maxLockBytes = 4 << 20

// Lock is agent-shell.lock: for each vendored pack, where it came from and
// the SHA-256 of every file, so that loading can refuse a vendored file
// that changed, went missing or was added.
type Lock struct {
	Version int          `toml:"version"`
	Packs   []*LockEntry `toml:"pack"`
}

// LockEntry pins one pack.
type LockEntry struct {
	Name   string            `toml:"name"`
	Source string            `toml:"source"`
	Rev    string            `toml:"rev"`    // as the manifest asks for it
	Commit string            `toml:"commit"` // what rev resolved to; "" for a local folder
	Tree   string            `toml:"tree"`   // TreeDigest of the files
	Files  map[string]string `toml:"files"`  // slash path -> SHA-256
}

// Pack is the entry of a pack, or nil.
func (l *Lock) Pack(name string) *LockEntry {
	for _, e := range l.Packs {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// ReadLock reads and checks the lock file: a regular file of its own (no
// symbolic link, no other hard link, no pipe to block on), at most
// maxLockBytes.
func ReadLock(p string) (*Lock, error) {
	data, err := readConfined(filepath.Dir(p), p, maxLockBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("there is no lock file; run agent-shell pack add")
		}
		return nil, err
	}
	return ParseLock(data)
}

// ParseLock decodes and checks lock file text: version 1, unique valid
// names, and hex digests for every file and tree.
func ParseLock(data []byte) (*Lock, error) {
	l := &Lock{}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(l); err != nil {
		return nil, decodeError("", data, err)
	}
	if l.Version != 1 {
		return nil, fmt.Errorf("version: must be 1, got %d", l.Version)
	}
	seen := map[string]bool{}
	for i, e := range l.Packs {
		switch {
		case !validPackName(e.Name):
			return nil, fmt.Errorf("pack[%d].name: %q is not a pack name", i+1, e.Name)
		case seen[e.Name]:
			return nil, fmt.Errorf("pack[%d].name: %q is pinned twice", i+1, e.Name)
		case e.Source == "":
			return nil, fmt.Errorf("pack %q: no source", e.Name)
		case !isHex64(e.Tree):
			return nil, fmt.Errorf("pack %q: tree: want 64 hex digits", e.Name)
		case len(e.Files) == 0:
			return nil, fmt.Errorf("pack %q: no files", e.Name)
		}
		seen[e.Name] = true
		for p, sum := range e.Files {
			if err := checkPackPath(p); err != nil {
				return nil, fmt.Errorf("pack %q: files: %v", e.Name, err)
			}
			if !isHex64(sum) {
				return nil, fmt.Errorf("pack %q: files: %s: want 64 hex digits", e.Name, p)
			}
		}
	}
	return l, nil
}

// checkPackPath refuses a file path that is not a clean relative slash path.
func checkPackPath(p string) error {
	if p == "" || path.Clean(p) != p || path.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%q is not a clean relative path", p)
	}
	return nil
}

// Encode writes the lock as TOML, packs sorted by name.
func (l *Lock) Encode() ([]byte, error) {
	sort.Slice(l.Packs, func(i, j int) bool { return l.Packs[i].Name < l.Packs[j].Name })
	var buf bytes.Buffer
	buf.WriteString("# Written by agent-shell pack; do not edit. agent-shell pack verify checks the vendored files against it.\n")
	enc := toml.NewEncoder(&buf).SetIndentTables(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EntryFor pins files as a pack's entry.
func EntryFor(name, source, rev, commit string, files PackFiles) *LockEntry {
	e := &LockEntry{Name: name, Source: source, Rev: rev, Commit: commit, Files: map[string]string{}}
	for p, data := range files {
		sum := sha256.Sum256(data)
		e.Files[p] = hex.EncodeToString(sum[:])
	}
	e.Tree = TreeDigest(e.Files)
	return e
}

// TreeDigest is the SHA-256 of a pack's file list: every path and the
// SHA-256 of its content, sorted by path.
func TreeDigest(files map[string]string) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	io.WriteString(h, "agent-shell pack tree 1\n")
	for _, p := range paths {
		fmt.Fprintf(h, "%s %d:%s\n", files[p], len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Mismatch is one way a vendored file differs from its pin: What is
// "missing", "changed" or "not in the lock".
type Mismatch struct{ Path, What string }

// Mismatches lists every vendored file that differs from its pin, sorted
// by path.
func (e *LockEntry) Mismatches(files PackFiles) []Mismatch {
	var out []Mismatch
	for p, want := range e.Files {
		data, ok := files[p]
		if !ok {
			out = append(out, Mismatch{p, "missing"})
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != strings.ToLower(want) {
			out = append(out, Mismatch{p, "changed"})
		}
	}
	for p := range files {
		if _, ok := e.Files[p]; !ok {
			out = append(out, Mismatch{p, "not in the lock"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// TreeMatches reports whether the entry's tree digest is that of the
// files it lists.
func (e *LockEntry) TreeMatches() bool { return TreeDigest(e.Files) == strings.ToLower(e.Tree) }

// Verify checks files against the entry and names every file that is
// missing, changed or not pinned.
func (e *LockEntry) Verify(files PackFiles) error {
	var problems []string
	for _, m := range e.Mismatches(files) {
		switch m.What {
		case "missing":
			problems = append(problems, m.Path+" is missing")
		case "changed":
			problems = append(problems, m.Path+" was changed")
		default:
			problems = append(problems, m.Path+" is not in the lock")
		}
	}
	if len(problems) == 0 && !e.TreeMatches() {
		problems = append(problems, "the tree digest does not match the files the lock lists")
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("vendored pack %s does not match %s: %s", e.Name, LockFileName, strings.Join(problems, "; "))
	}
	return nil
}

// FS serves the files from memory: a vendored pack is compiled from the
// very bytes that were checked against the lock.
func (f PackFiles) FS() fs.FS {
	m := make(fstest.MapFS, len(f))
	for p, data := range f {
		m[p] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return m
}
