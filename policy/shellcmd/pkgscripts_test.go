package shellcmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testPackage is a package.json's scripts, in the folder /p, for a parse
// that reads them; it records the directory changes each read was given.
type testPackage struct {
	scripts map[string]string
	why     string
	reads   []string
}

func (p *testPackage) disk() Disk {
	return Disk{PackageScripts: func(dirs []string, unknown bool) (map[string]string, string, string) {
		p.reads = append(p.reads, fmt.Sprintf("%q %v", dirs, unknown))
		return p.scripts, "/p", p.why
	}}
}

// A package manager may run the scripts its words name (with the words
// after one appended), their pre and post scripts and its subcommand's
// lifecycle scripts: each is walked as a command it may run.
func TestParsePackageScripts(t *testing.T) {
	scripts := map[string]string{
		"rm": "rm -rf", "g": "git", "build": "tsc", "prebuild": "cat .env", "postbuild": "echo done",
		"test": "jest", "prepare": "husky", "postinstall": "node setup.js", "x": "bash -c", "deep": "npm run deep",
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"npm run rm -- ~", []string{"npm run rm -- ~", "rm -rf ~ @1 ?guess"}},
		{"npm run rm -- \"$HOME\"", []string{"npm run rm -- $HOME ~dyn", "rm -rf $HOME @1 ~dyn ?guess"}},
		{"yarn rm ~", []string{"yarn rm ~", "rm -rf ~ @1 ?guess"}},
		{"pnpm run g reset --hard", []string{"pnpm run g reset --hard", "git reset --hard @1 ?guess"}},
		{"npm --loglevel silent run x 'cat .env'", []string{"npm --loglevel silent run x \"cat .env\"", "bash -c \"cat .env\" @1 ?guess", "cat .env @2 ?guess"}},
		{"npm run build", []string{"npm run build", "cat .env @1 ?guess", "tsc @1 ?guess", "echo done @1 ?guess"}},
		{"npm ci", []string{"npm ci", "node setup.js @1 ?guess", "husky @1 ?guess"}},
		{"npm test -- -t 'rm -rf ~'", []string{"npm test -- -t \"rm -rf ~\"", "jest -t \"rm -rf ~\" @1 ?guess"}},
		{"bun test", []string{"bun test"}},
		{"npm run nothing", []string{"npm run nothing"}},
		{"npm exec -- rm -rf ~", []string{"rm -rf ~"}},
	} {
		p := &testPackage{scripts: scripts}
		l := ParseWith(tt.in, p.disk())
		if l.Err != nil {
			t.Errorf("Parse(%q): %v", tt.in, l.Err)
			continue
		}
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if l.Written() != 1 && tt.in != "npm exec -- rm -rf ~" {
			t.Errorf("Parse(%q): %d written commands, want the package manager's alone", tt.in, l.Written())
		}
	}

	// A script that runs itself ends at the nesting limit, on a command it
	// may run: the package manager's own stays known.
	p := &testPackage{scripts: scripts}
	if l := ParseWith("npm run deep", p.disk()); l.Unknown() || len(l.Commands) < 2 {
		t.Errorf("npm run deep: unknown %q, %d commands", l.UnknownReason(), len(l.Commands))
	}
	// Without a Disk, nothing is read.
	if l := Parse("npm run rm -- ~"); len(l.Commands) != 1 {
		t.Errorf("Parse without a disk: %q", renderAll(l))
	}
}

// The folder the package manager runs in reaches the reader: where the
// line's cd's and its own directory options send it.
func TestParsePackageScriptsFolder(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"npm run rm", `[] false`},
		{"cd web && npm run rm", `["web"] false`},
		{"npm --prefix web run rm", `["web"] false`},
		{"pnpm -C=web rm", `["web"] false`},
		{"yarn --cwd \"$D\" rm", `[""] true`},
		{"cd \"$D\" && npm run rm", `[] true`},
	} {
		p := &testPackage{scripts: map[string]string{"rm": "rm -rf ~"}}
		ParseWith(tt.in, p.disk())
		if len(p.reads) != 1 || p.reads[0] != tt.want {
			t.Errorf("%s: read with %q, want %q", tt.in, p.reads, tt.want)
		}
	}
}

// A package.json that is there but cannot be read, a command that names
// too many scripts, or a line that wrote package.json itself.
func TestParsePackageScriptsLimits(t *testing.T) {
	p := &testPackage{scripts: map[string]string{"a": "true"}, why: "package.json is larger than 512 KiB"}
	if l := ParseWith("npm run a", p.disk()); !strings.HasSuffix(l.UnknownReason(), ": package.json is larger than 512 KiB") {
		t.Errorf("unreadable package.json: unknown %q", l.UnknownReason())
	}
	many := map[string]string{}
	var names []string
	for i := range maxPackageScripts + 1 {
		n := fmt.Sprintf("s%d", i)
		many[n], names = "true", append(names, n)
	}
	p = &testPackage{scripts: many}
	if l := ParseWith("npm run "+strings.Join(names, " "), p.disk()); !strings.Contains(l.UnknownReason(), "more than 16 scripts") {
		t.Errorf("%d scripts: unknown %q", len(names), l.UnknownReason())
	}
	p = &testPackage{scripts: map[string]string{"x": "echo on disk"}}
	l := ParseWith(`echo '{"scripts":{"x":"cat .env"}}' > package.json && npm run x`, p.disk())
	if len(p.reads) != 0 || !slices.Contains(renderAll(l), "cat .env @1") {
		t.Errorf("package.json written by the line: read from disk %q; commands %q", p.reads, renderAll(l))
	}
}

// FuzzPackageScripts: whatever a package.json script says and whatever
// line runs it, the parse holds its invariants, and the commands the line
// spells out are the ones it spells out without the script.
func FuzzPackageScripts(f *testing.F) {
	for _, s := range [][2]string{
		{"npm run x -- ~", "rm -rf"}, {"npm test", "npm test"}, {"yarn x", "'"}, {"pnpm -C $D x", "cd .. && x"},
		{"cd a; npm --prefix=b run x y", "bash -c"}, {"npm ci", "$(cat .env)"}, {"npm run x", strings.Repeat("(", 200)},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, src, body string) {
		p := &testPackage{scripts: map[string]string{"x": body, "test": body, "prepare": body}}
		l := ParseWith(src, p.disk())
		checkLine(t, src, l)
		var with, without [][]string
		for _, c := range l.Commands {
			if !c.Guessed {
				with = append(with, c.Argv)
			}
		}
		for _, c := range Parse(src).Commands {
			if !c.Guessed {
				without = append(without, c.Argv)
			}
		}
		if !slices.EqualFunc(with, without, slices.Equal) {
			t.Fatalf("%q with script %q: commands %q, %q without it", src, body, with, without)
		}
	})
}
