package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f.txt")
	if err := Write(p, []byte("one"), 0); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v, %v", fi, err)
	}
	os.Chmod(p, 0o600)
	if err := Write(p, []byte("two"), 0); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "two" || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file: %q, %v: want its content replaced and its mode kept", data, fi.Mode())
	}
	if err := Write(p, []byte("three"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the one asked for", fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestWriteRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("kept"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	err := Write(link, []byte("x"), 0)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "kept" {
		t.Errorf("target changed: %q", data)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

func TestWriteIntoMissingFolderUnderAFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	if err := Write(filepath.Join(f, "x"), []byte("x"), 0); err == nil {
		t.Error("wrote below a file")
	}
}

func TestCreateNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "policy.json")
	if err := Create(path, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Create(path, []byte("two"), 0o640); !errors.Is(err, fs.ErrExist) {
		t.Errorf("err = %v, want ErrExist", err)
	}
	data, err := os.ReadFile(path)
	if fi, _ := os.Stat(path); err != nil || string(data) != "one" || fi.Mode().Perm() != 0o640 {
		t.Errorf("content = %q, %v", data, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}
