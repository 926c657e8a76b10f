package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

// nx may run its projects' run-commands targets: those of the projects
// the words name, or of every one; nx.json's target defaults too.
func TestParseNxTargets(t *testing.T) {
	files := map[string]string{
		"/p/nx.json":                 `{"targetDefaults": {"lint": {"command": "eslint ."}}}`,
		"/p/apps/web/project.json":   `{"name": "web", "targets": {"deploy": {"command": "git push --force"}, "build": {"executor": "@nx/vite:build"}}}`,
		"/p/libs/ui/project.json":    `{"name": "ui", "targets": {"clean": {"executor": "nx:run-commands", "options": {"commands": ["rm -rf ~"]}}}}`,
		"/p/libs/other/project.json": `{"targets": {"deploy": {"command": "echo other"}}}`,
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"nx run web:deploy", []string{"nx run web:deploy", "git push --force @1 ?guess"}},
		{"nx deploy web", []string{"nx deploy web", "git push --force @1 ?guess"}},
		{"nx run-many -t deploy", []string{"nx run-many -t deploy", "git push --force @1 ?guess", "echo other @1 ?guess"}},
		{"nx affected --target=clean", []string{"nx affected --target=clean", "rm -rf ~ @1 ?guess"}},
		{"nx lint web", []string{"nx lint web", "eslint . @1 ?guess"}},
		{"nx build web", []string{"nx build web"}},
	} {
		l := ParseWith(tt.in, testWorkspaces(files, ""))
		checkWithDisk(t, tt.in, l, "project.json")
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"nx \"$T\" web", "echo '{}' > apps/web/project.json && nx deploy web"} {
		if l := ParseWith(in, testWorkspaces(files, "")); !l.Unknown() {
			t.Errorf("%s: known, commands %q", in, renderAll(l))
		}
	}
}

// FuzzNxTargets: any nx line over any project.json parses to a line whose
// invariants hold and whose spelled-out commands are its own.
func FuzzNxTargets(f *testing.F) {
	f.Add("nx run a:b", `{"name": "a", "targets": {"b": {"command": "rm -rf ~"}}}`)
	f.Fuzz(func(t *testing.T, src, project string) {
		files := map[string]string{"/p/nx.json": "{}", "/p/a/project.json": project}
		l := ParseWith(src, testWorkspaces(files, ""))
		checkWithDisk(t, src, l, fmt.Sprintf("project.json %q", project))
	})
}
