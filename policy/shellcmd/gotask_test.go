package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

// task runs the commands of the tasks it names (or default), after those
// they call and depend on, with {{.CLI_ARGS}} the words after --, and
// follows includes (namespace:task) and wildcard tasks.
func TestParseTaskfile(t *testing.T) {
	files := map[string]string{
		"/p/Taskfile.yml": "version: '3'\nincludes:\n  docs: ./docs\ntasks:\n  default:\n    deps: [build]\n  build:\n    cmds:\n      - go build ./...\n" +
			"  wipe:\n    cmds:\n      - rm -rf {{.CLI_ARGS}}\n  release:*:\n    cmds:\n      - task: build\n      - git push --force\n",
		"/p/docs/Taskfile.yml": "tasks:\n  serve:\n    deps: [gen]\n    cmds: [mkdocs serve]\n  gen: cat .env\n",
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"task", []string{"task", "go build ./... @1 ?guess"}},
		{"task wipe -- ~", []string{"task wipe -- ~", "rm -rf ~ @1 ?guess"}},
		{"task release:patch", []string{"task release:patch", "go build ./... @1 ?guess", "git push --force @1 ?guess"}},
		{"task docs:serve", []string{"task docs:serve", "cat .env @1 ?guess", "mkdocs serve @1 ?guess"}},
		{"task nothing", []string{"task nothing"}},
		{"task -t other.yml wipe", []string{"task -t other.yml wipe"}},
	} {
		l := ParseWith(tt.in, testWorkspaces(files, ""))
		checkWithDisk(t, tt.in, l, "Taskfile.yml")
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, file string }{
		{"task \"$T\"", files["/p/Taskfile.yml"]},
		{"task -g x", files["/p/Taskfile.yml"]},
		{"echo x > Taskfile.yml && task", files["/p/Taskfile.yml"]},
		{"task x", "tasks:\n  x:\n    cmds: *c\n"},
		{"task ext:x", "includes:\n  ext: '{{.DIR}}/x.yml'\ntasks: {}\n"},
	} {
		f := map[string]string{"/p/Taskfile.yml": tt.file}
		if l := ParseWith(tt.in, testWorkspaces(f, "")); !l.Unknown() {
			t.Errorf("%s: known, commands %q", tt.in, renderAll(l))
		}
	}
}

// FuzzTaskfile: any task line over any Taskfile parses to a line whose
// invariants hold and whose spelled-out commands are its own.
func FuzzTaskfile(f *testing.F) {
	f.Add("task a -- ~", "tasks:\n  a:\n    cmds:\n      - rm -rf {{.CLI_ARGS}}\n")
	f.Add("task i:a", "includes:\n  i: ./Taskfile.yml\ntasks:\n  a: [task: i:a]\n")
	f.Fuzz(func(t *testing.T, src, file string) {
		l := ParseWith(src, testWorkspaces(map[string]string{"/p/Taskfile.yml": file}, ""))
		checkWithDisk(t, src, l, fmt.Sprintf("Taskfile %q", file))
	})
}
