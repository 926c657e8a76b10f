package shellcmd

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
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
	return Disk{FindUp: func(dirs []string, unknown bool, name string) (string, string, string) {
		p.reads = append(p.reads, fmt.Sprintf("%q %v", dirs, unknown))
		if name != "package.json" {
			return "", "", ""
		}
		text, _ := json.Marshal(map[string]any{"scripts": p.scripts})
		return string(text), "/p", p.why
	}, File: func(dirs []string, unknown bool, names []string) (string, string, string) {
		// A workspace: node_modules/NAME holds {"scripts": {"ws": "cat .env"}}.
		if len(dirs) > 0 && strings.HasPrefix(dirs[len(dirs)-1], "node_modules/") {
			return `{"scripts": {"ws": "cat .env"}}`, "/p/" + dirs[len(dirs)-1], ""
		}
		return "", "", ""
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
	few := map[string]string{"rm": "rm -rf", "x": "bash -c", "t": "true"}
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
		{"nr rm ~", []string{"nr rm ~", "rm -rf ~ @1 ?guess", "rm ~ =implied ?guess"}},
		// A workspace by name: its own package.json.
		{"npm -w @a/b run ws", []string{"npm -w @a/b run ws", "cat .env @1 ?guess"}},
		{"yarn workspace b ws", []string{"yarn workspace b ws", "cat .env @1 ?guess"}},
		{"pnpm --filter 'b...' ws", []string{"pnpm --filter b... ws"}}, // a pattern: the project's
		// npm-run-all's words are scripts, or patterns of them.
		{"run-s build test", []string{"run-s build test", "cat .env @1 ?guess", "tsc @1 ?guess", "echo done @1 ?guess", "jest @1 ?guess"}},
		{"npm-run-all --parallel 'pre*'", []string{"npm-run-all --parallel pre*", "cat .env @1 ?guess", "husky @1 ?guess"}},
		{"run-p 'build:**'", []string{"run-p build:**"}},
		// A script named only at run time may be any of them.
		{"yarn \"$X\" ~", []string{"yarn $X ~ ~dyn", "rm -rf ~ @1 ?guess", "true ~ @1 ?guess", "bash -c ~ @1 ?guess", "~ @2 ?guess"}},
		{"npm install \"$PKG\"", []string{"npm install $PKG ~dyn"}},
		// Scripts npm pkg set gives package.json earlier in the line.
		{"npm pkg set scripts.zap='cat .env' && npm run zap", []string{"npm pkg set \"scripts.zap=cat .env\"", "npm run zap", "cat .env @1 ?guess"}},
		{"npm pkg delete scripts.rm && npm run rm -- ~", []string{"npm pkg delete scripts.rm", "npm run rm -- ~"}},
	} {
		p := &testPackage{scripts: scripts}
		if strings.Contains(tt.in, "$") {
			p.scripts = few // no more than maxPackageScripts
		}
		l := ParseWith(tt.in, p.disk())
		if l.Err != nil {
			t.Errorf("Parse(%q): %v", tt.in, l.Err)
			continue
		}
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if l.Written() != strings.Count(tt.in, "&&")+1 && tt.in != "npm exec -- rm -rf ~" {
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
	// A script named at run time among more than maxPackageScripts.
	p = &testPackage{scripts: many}
	if l := ParseWith("npm run \"$S\"", p.disk()); !strings.Contains(l.UnknownReason(), "may name any of the 17 scripts") {
		t.Errorf("run-time name among %d scripts: unknown %q", len(many), l.UnknownReason())
	}
	// What the line rewrites in place, or copies over package.json, is
	// not known; what reads it, or copies it away, leaves it as it was.
	for _, tt := range []struct {
		in      string
		unknown bool
	}{
		{"sed -i 's/a/b/' package.json && npm test", true},
		{"cp /tmp/evil.json package.json && npm test", true},
		{"cp /tmp/pkg/package.json . && npm test", true},
		{"mv p package.json && npm test", true},
		{"node -e \"fs.writeFileSync('package.json','{}')\" && npm test", true},
		{"sort-package-json package.json && npm test", true},
		{"npm pkg set --json 'scripts={}' && npm test", true},
		{"sed -i s/a/b/ Makefile && make", true},
		{"cp package.json /tmp/backup.json && npm test", false},
		{"jq .scripts package.json && npm test", false},
		{"sed s/a/b/ package.json && npm test", false},
		{"cat package.json && npm test", false},
		{"npm test && sed -i 's/a/b/' package.json", false},
		{"node Makefile lint && make", false}, // eslint's Makefile.js, run
		{"python3 package.json && npm test", false},
	} {
		p := &testPackage{scripts: map[string]string{"test": "jest"}}
		if l := ParseWith(tt.in, p.disk()); l.Unknown() != tt.unknown {
			t.Errorf("%s: unknown %v (%q), want %v", tt.in, l.Unknown(), l.UnknownReason(), tt.unknown)
		}
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
		checkWithDisk(t, src, l, fmt.Sprintf("script %q", body))
	})
}

// checkWithDisk checks a line parsed with what the disk holds (what, for
// the failure): its invariants hold, and the commands it spells out (not
// Guessed) are the ones it spells out parsed without the disk.
func checkWithDisk(t *testing.T, src string, l *Line, what string) {
	t.Helper()
	checkLine(t, src, l)
	spelled := func(l *Line) [][]string {
		var out [][]string
		for _, c := range l.Commands {
			if !c.Guessed {
				out = append(out, c.Argv)
			}
		}
		return out
	}
	if with, without := spelled(l), spelled(Parse(src)); !slices.EqualFunc(with, without, slices.Equal) {
		t.Fatalf("%q with %s: commands %q, %q without it", src, what, with, without)
	}
}

// A line that writes or rewrites the configuration a task runner reads,
// then runs its tasks, runs what it wrote: not known unless walked.
func TestParseRewrittenTaskConfigs(t *testing.T) {
	files := map[string]string{
		"/p/mise.toml": "[tasks.t]\nrun = 'true'\n", "/p/deno.json": `{"tasks": {"t": "true"}}`,
		"/p/composer.json": `{"scripts": {"t": "true"}}`, "/p/pyproject.toml": "[tool.pdm.scripts]\nt = 'true'\n",
	}
	for _, in := range []string{
		"cp /tmp/x mise.toml && mise run t",
		"echo '{}' > deno.json && deno task t",
		"sed -i s/a/b/ composer.json && composer t",
		"sed -i s/a/b/ pyproject.toml && pdm run t",
		"printf x > hatch.toml && hatch run t",
	} {
		if l := ParseWith(in, testJustfiles(files)); !l.Unknown() {
			t.Errorf("%s: known, commands %q", in, renderAll(l))
		}
	}
	for _, in := range []string{"echo '{}' > deno.json && deno run main.ts", "cat pyproject.toml && pdm run t"} {
		if l := ParseWith(in, testJustfiles(files)); l.Unknown() {
			t.Errorf("%s: unknown %q", in, l.UnknownReason())
		}
	}
}

// testWorkspaces is a project at /p of files by absolute path: FindUp and
// File read them, Workspaces matches one-level patterns (dir/*), ** any folder down.
func testWorkspaces(files map[string]string, why string) Disk {
	read := func(p string) (string, bool) { s, ok := files[p]; return s, ok }
	at := func(dirs []string) string {
		d := "/p"
		for _, x := range dirs {
			if path.IsAbs(x) {
				d = x
			} else {
				d = path.Join(d, x)
			}
		}
		return d
	}
	return Disk{
		FindUp: func(dirs []string, unknown bool, name string) (string, string, string) {
			for d := at(dirs); ; d = path.Dir(d) {
				if s, ok := read(path.Join(d, name)); ok {
					return s, d, ""
				}
				if d == "/" {
					return "", "", ""
				}
			}
		},
		File: func(dirs []string, unknown bool, names []string) (string, string, string) {
			for _, n := range names {
				if s, ok := read(path.Join(at(dirs), n)); ok {
					return s, at(dirs), ""
				}
			}
			return "", "", ""
		},
		Workspaces: func(dir string, patterns []string, file string) ([]string, string) {
			if why != "" {
				return nil, why
			}
			var out []string
			for p := range files {
				for _, pat := range patterns {
					deep := pat == "**" && strings.HasPrefix(p, dir+"/") && path.Base(p) == file // any folder down
					if ok, _ := path.Match(path.Join(dir, pat, file), p); ok || deep {
						out = append(out, path.Dir(p))
					}
				}
			}
			slices.Sort(out)
			return out, ""
		},
	}
}

// A package manager that runs a script in every workspace (npm -ws, pnpm
// -r, yarn workspaces foreach, lerna, turbo, nx) may run each workspace's
// script of that name; one selected by its name is found among them
// without node_modules; the lists of workspaces come from package.json,
// pnpm-workspace.yaml or lerna.json.
func TestParseWorkspaceScripts(t *testing.T) {
	npm := map[string]string{
		"/p/package.json":            `{"name": "root", "workspaces": ["packages/*"], "scripts": {"test": "jest"}}`,
		"/p/packages/a/package.json": `{"name": "@x/a", "scripts": {"wipe": "rm -rf ~", "test": "cat .env"}}`,
		"/p/packages/b/package.json": `{"name": "b", "scripts": {"build": "tsc"}}`,
	}
	pnpm := map[string]string{
		"/p/package.json":          `{"name": "root"}`,
		"/p/pnpm-workspace.yaml":   "packages:\n  - 'apps/*'\n",
		"/p/apps/web/package.json": `{"name": "web", "scripts": {"wipe": "git push -f"}}`,
	}
	lerna := map[string]string{
		"/p/package.json":           `{"name": "root"}`,
		"/p/lerna.json":             `{"packages": ["modules/*"]}`,
		"/p/modules/m/package.json": `{"name": "m", "scripts": {"wipe": "rm -rf /"}}`,
	}
	for _, tt := range []struct {
		files map[string]string
		in    string
		want  []string
	}{
		{npm, "npm run wipe -ws", []string{"npm run wipe -ws", "rm -rf ~ -ws @1 ?guess"}}, // the words after it, loosely
		{npm, "npm run wipe --workspaces -- /tmp", []string{"npm run wipe --workspaces -- /tmp", "rm -rf ~ --workspaces -- /tmp @1 ?guess"}},
		{npm, "npm test -ws", []string{"npm test -ws", "jest -ws @1 ?guess", "cat .env -ws @1 ?guess"}},
		{npm, "npm run wipe -w @x/a", []string{"npm run wipe -w @x/a", "rm -rf ~ -w @x/a @1 ?guess"}},
		{npm, "npm run wipe -w packages", []string{"npm run wipe -w packages", "rm -rf ~ -w packages @1 ?guess"}},
		{npm, "npm run wipe -w b", []string{"npm run wipe -w b"}},
		{npm, "npm run wipe", []string{"npm run wipe"}},
		{npm, "yarn workspaces foreach -A run wipe", []string{"yarn workspaces foreach -A run wipe", "rm -rf ~ @1 ?guess"}},
		{npm, "yarn workspace @x/a wipe", []string{"yarn workspace @x/a wipe", "rm -rf ~ @1 ?guess"}},
		{npm, "bun --filter '*' wipe", []string{"bun --filter * wipe", "rm -rf ~ @1 ?guess"}},
		{npm, "turbo run wipe", []string{"turbo run wipe", "rm -rf ~ @1 ?guess"}},
		{npm, "turbo @x/a#wipe", []string{"turbo @x/a#wipe", "rm -rf ~ @1 ?guess"}},
		{npm, "nx run @x/a:wipe", []string{"nx run @x/a:wipe", "rm -rf ~ @1 ?guess"}},
		{npm, "nx run-many --targets=build,wipe", []string{"nx run-many --targets=build,wipe", "rm -rf ~ @1 ?guess", "tsc @1 ?guess"}},
		{pnpm, "pnpm -r wipe", []string{"pnpm -r wipe", "git push -f @1 ?guess"}},
		{pnpm, "pnpm recursive run wipe", []string{"pnpm recursive run wipe", "git push -f @1 ?guess"}},
		{pnpm, "pnpm turbo run wipe", []string{"pnpm turbo run wipe", "git push -f @1 ?guess"}},
		{npm, "yarn workspaces run wipe", []string{"yarn workspaces run wipe", "rm -rf ~ @1 ?guess"}}, // yarn 1
		// A workspace only known at run time may be any of them.
		{npm, "npm run wipe -w \"$W\"", []string{"npm run wipe -w $W ~dyn", "rm -rf ~ -w $W @1 ~dyn ?guess"}},
		{pnpm, "pnpm -F \"$W\" wipe", []string{"pnpm -F $W wipe ~dyn", "git push -f @1 ?guess"}},
		{pnpm, "pnpm --filter './apps/**' run wipe", []string{"pnpm --filter ./apps/** run wipe", "git push -f @1 ?guess"}},
		{pnpm, "pnpm --filter web wipe", []string{"pnpm --filter web wipe", "git push -f @1 ?guess"}},
		{lerna, "lerna run wipe", []string{"lerna run wipe", "rm -rf / @1 ?guess"}},
	} {
		l := ParseWith(tt.in, testWorkspaces(tt.files, ""))
		checkWithDisk(t, tt.in, l, "workspaces")
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	// Workspaces that cannot be looked through, or too many to read: not
	// known. A line that writes a list of workspaces first: not known.
	if l := ParseWith("pnpm -r wipe", testWorkspaces(pnpm, "its workspace patterns reach more than 4096 folders")); !l.Unknown() {
		t.Errorf("workspaces not known: %q", renderAll(l))
	}
	many := maps.Clone(npm)
	for i := range maxWorkspaces + 1 {
		many[fmt.Sprintf("/p/packages/w%d/package.json", i)] = `{"scripts": {"wipe": "true"}}`
	}
	if l := ParseWith("npm run wipe -ws", testWorkspaces(many, "")); !strings.Contains(l.UnknownReason(), "workspaces, more than") {
		t.Errorf("%d workspaces: unknown %q", maxWorkspaces+3, l.UnknownReason())
	}
	for _, in := range []string{"echo 'packages: [x/*]' > pnpm-workspace.yaml && pnpm -r wipe", "cp /tmp/l lerna.json && lerna run wipe"} {
		if l := ParseWith(in, testWorkspaces(pnpm, "")); !l.Unknown() {
			t.Errorf("%s: known, commands %q", in, renderAll(l))
		}
	}
}

// FuzzWorkspaceScripts: any line, with any root package.json and
// pnpm-workspace.yaml over a workspace whose script is any text, parses
// to a line whose invariants hold and whose spelled-out commands are the
// ones it has without the disk.
func FuzzWorkspaceScripts(f *testing.F) {
	f.Add("pnpm -r x", `{"workspaces": ["w/*"]}`, "packages:\n  - w/*\n", "rm -rf ~")
	f.Add("npm run x -w a", `{"workspaces": {"packages": ["w/*"]}}`, "", "$(cat .env)")
	f.Add("nx run a:x", `{"name": "r"}`, "packages: [w/*]", "npm run x -ws")
	f.Fuzz(func(t *testing.T, src, root, pnpm, body string) {
		member, _ := json.Marshal(map[string]any{"name": "a", "scripts": map[string]string{"x": body, "test": body}})
		files := map[string]string{"/p/package.json": root, "/p/pnpm-workspace.yaml": pnpm, "/p/w/a/package.json": string(member)}
		l := ParseWith(src, testWorkspaces(files, ""))
		checkWithDisk(t, src, l, fmt.Sprintf("root %q, pnpm %q, script %q", root, pnpm, body))
	})
}
