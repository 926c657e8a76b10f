package plainfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	f, err := Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("one\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640&^umask() {
		t.Errorf("created %v, %v; want mode 0640 less the umask", fi.Mode(), err)
	}
	f, err = Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 16)
	n, _ := f.Read(data)
	f.Close()
	if string(data[:n]) != "one\n" {
		t.Errorf("read %q", data[:n])
	}
	if err := os.Symlink(path, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, err = Open(filepath.Join(dir, "link"), syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, syscall.ELOOP) || pe.Path != filepath.Join(dir, "link") {
		t.Errorf("O_NOFOLLOW on a link: %v; want a PathError naming it, ELOOP", err)
	}
	if _, err := Open(filepath.Join(dir, "missing"), syscall.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v; want ErrNotExist", err)
	}
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// A FIFO with no writer: the open does not wait with O_NONBLOCK, and the
// file is blocking afterwards.
func TestOpenNonblockFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	f, err := Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl, err := fcntlGetfl(f)
	if err != nil || fl&syscall.O_NONBLOCK != 0 {
		t.Errorf("flags %#x, %v; want O_NONBLOCK cleared", fl, err)
	}
}

func fcntlGetfl(f *os.File) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
