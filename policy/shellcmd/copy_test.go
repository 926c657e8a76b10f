package shellcmd

import (
	"reflect"
	"strings"
	"testing"
)

func TestCopyRoles(t *testing.T) {
	for _, c := range []struct {
		line string
		want Copy
	}{
		{"cp a b", Copy{Sources: []string{"a"}, Dest: "b"}},
		{"cp a b dir", Copy{Sources: []string{"a", "b"}, Dest: "dir", ToDir: true}},
		{"cp -t dir a b", Copy{Sources: []string{"a", "b"}, Dest: "dir", ToDir: true}},
		{"cp --target-directory=dir a", Copy{Sources: []string{"a"}, Dest: "dir", ToDir: true}},
		{"cp -T a b", Copy{Sources: []string{"a"}, Dest: "b", NoTargetDir: true}},
		{"mv a", Copy{Sources: []string{"a"}}},
		{"cp --parents a/b/c dir", Copy{Sources: []string{"a/b/c"}, Dest: "dir", Parents: true}},
		{"ln -s /etc/x", Copy{Sources: []string{"/etc/x"}, Dest: ".", ToDir: true}},
		{"install -d a b", Copy{Creates: []string{"a", "b"}}},
		{"rsync -a src/ host:dst/", Copy{Sources: []string{"src/"}, ToRemote: true}},
		{"rsync -a host:src/ dst", Copy{Sources: []string{"host:src/"}, Dest: "dst"}},
		{"rsync -a host:src/ a/b:c dst", Copy{Sources: []string{"host:src/", "a/b:c"}, Dest: "dst", ToDir: true}},
		{"scp -P 2222 -i key host:x.json .claude/", Copy{Sources: []string{"host:x.json"}, Dest: ".claude/"}},
		{"scp f scp://host/dir", Copy{Sources: []string{"f"}, ToRemote: true}},
	} {
		argv := strings.Fields(c.line)
		got := CopyRoles(argv[0], argv[1:])
		got.Args = Args{}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, want %+v", c.line, got, c.want)
		}
	}
}

func TestRemote(t *testing.T) {
	for s, want := range map[string]string{"host:dir/x": "dir/x", "user@host:x": "x", "scp://host/a/b": "a/b", "a/b:c": "", "./x:y": "", "x": ""} {
		if got, remote := Remote(s); got != want || remote != (want != "") {
			t.Errorf("%q: %q %v", s, got, remote)
		}
	}
}
