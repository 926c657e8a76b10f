package shellcmd

import "testing"

func TestResolvePath(t *testing.T) {
	const dir, home = "/home/dev/proj", "/home/dev"
	tests := []struct{ p, dir, home, want string }{
		{"x", dir, home, "/home/dev/proj/x"},
		{".", dir, home, dir},
		{"./", dir, home, dir},
		{"./x/", dir, home, "/home/dev/proj/x"},
		{"..", dir, home, home},
		{"../proj-old", dir, home, "/home/dev/proj-old"},
		{"build/../../x", dir, home, "/home/dev/x"},
		{"/tmp/../home/dev", dir, home, "/home/dev"},
		{"//etc//passwd/", dir, home, "/etc/passwd"},
		{"/../..", dir, home, "/"},
		{"../../../../..", dir, home, "/"},
		{"/", dir, home, "/"},
		{"dist/*", dir, home, "/home/dev/proj/dist/*"},
		{"~", dir, home, home},
		{"~/", dir, home, home},
		{"~/.ssh/id_rsa", dir, home, "/home/dev/.ssh/id_rsa"},
		{"$HOME", dir, home, home},
		{"${HOME}", dir, home, home},
		{"$HOME/x/..", dir, home, home},
		{"${HOME}/.aws/credentials", dir, home, "/home/dev/.aws/credentials"},
		{"~/..", dir, home, "/home"},
		{"x", dir, "", "/home/dev/proj/x"},
		{"/abs", "", "", "/abs"},
		// Not knowable.
		{"", dir, home, ""},
		{"~", dir, "", ""},
		{"$HOME/x", dir, "", ""},
		{"~bob", dir, home, ""},
		{"~+/x", dir, home, ""},
		{"~-", dir, home, ""},
		{"$HOMEDIR", dir, home, ""},
		{"$HOME$X", dir, home, ""},
		{"$X/y", dir, home, ""},
		{"${X}", dir, home, ""},
		{"/a/$(id)", dir, home, ""},
		{"/a/`id`", dir, home, ""},
		{"<(ls)", dir, home, ""},
		{"x", "", home, ""},
		{"x", "rel", home, ""},
		{"~", dir, "rel", ""},
	}
	for _, tt := range tests {
		got, ok := ResolvePath(tt.p, tt.dir, tt.home)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ResolvePath(%q, %q, %q) = %q, %v; want %q", tt.p, tt.dir, tt.home, got, ok, tt.want)
		}
	}
}

func TestCommandDir(t *testing.T) {
	tests := []struct{ line, cwd, home, want string }{
		{"ls", "/p", "/h", "/p"},
		{"ls", "/p/", "/h", "/p"},
		{"cd ..; ls", "/p", "/h", "/"},
		{"cd a && cd ../b/./c && ls", "/p", "/h", "/p/b/c"},
		{"cd /tmp/../home/dev; ls", "/p", "/h", "/home/dev"},
		{"cd; ls", "/p", "/h", "/h"},
		{"cd ~/x; ls", "/p", "/h", "/h/x"},
		{"cd \"$HOME\"/x; ls", "/p", "/h", "/h/x"},
		{"cd; ls", "/p", "", ""},
		{"cd /x; ls", "", "/h", ""},
		{"ls", "", "/h", ""},
		{"ls", "rel", "/h", ""},
		{"cd $X; ls", "/p", "/h", ""},
	}
	for _, tt := range tests {
		l := Parse(tt.line)
		c := &l.Commands[len(l.Commands)-1]
		if got := c.Dir(tt.cwd, tt.home); got != tt.want {
			t.Errorf("%q in %q (HOME %q): Dir = %q, want %q", tt.line, tt.cwd, tt.home, got, tt.want)
		}
	}
}
