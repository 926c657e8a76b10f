package shellcmd

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Programs run what files say as well as what their words say: make a
// Makefile's recipes, npm a package.json's scripts, git the hooks in
// .git/hooks. A line that writes such a file and then runs its program
// (echo 'rm -rf ~' > .git/hooks/pre-commit && git commit) runs what it
// wrote: walked when the line wrote it whole (echo, printf, a heredoc
// into cat), unknown otherwise.

// runFiles returns how the program name finds the files it runs: their
// base names, or the folders whose every file it may run (git's hooks).
func runFiles(name string) (names, dirs []string) {
	switch name {
	case "make", "gmake":
		return []string{"Makefile", "makefile", "GNUmakefile"}, nil
	case "npm", "pnpm", "yarn", "bun":
		return []string{"package.json"}, nil
	case "git":
		// Any git command may run one: reference-transaction runs on every
		// ref a command updates.
		return nil, []string{".git/hooks", ".husky", ".githooks"}
	case "just":
		return []string{"justfile", "Justfile", ".justfile"}, nil
	case "task":
		return []string{"Taskfile.yml", "Taskfile.yaml"}, nil
	case "rake":
		return []string{"Rakefile"}, nil
	case "tox":
		return []string{"tox.ini"}, nil
	case "nox":
		return []string{"noxfile.py"}, nil
	case "pre-commit":
		return []string{".pre-commit-config.yaml"}, nil
	case "cargo":
		return []string{"build.rs"}, nil
	case "gradle", "gradlew":
		return []string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}, nil
	case "direnv":
		return []string{".envrc"}, nil
	}
	return nil, nil
}

// runsWrittenFile judges the command at idx when it runs a file the line
// wrote earlier by the way its program finds it (see runFiles).
func (w *walker) runsWrittenFile(idx int, name string) {
	if len(w.st.written) == 0 {
		return
	}
	names, dirs := runFiles(name)
	if names == nil && dirs == nil {
		return
	}
	written := make([]string, 0, len(w.st.written))
	for p := range w.st.written {
		written = append(written, p)
	}
	sort.Strings(written) // the same reason each time
	for _, p := range written {
		hook := slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/") })
		if !hook && !slices.Contains(names, path.Base(p)) {
			continue
		}
		f := w.st.written[p]
		switch {
		case !f.known:
			w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s runs %s, which %s writes earlier in the line", name, p, f.by)
			return
		case hook:
			w.body(idx, script{src: f.data})
		case path.Base(p) == "package.json":
			var pkg struct {
				Scripts map[string]string `json:"scripts"`
			}
			if json.Unmarshal([]byte(f.data), &pkg) != nil {
				w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s runs the scripts of %s, which the line writes and which does not read as JSON", name, p)
				return
			}
			keys := make([]string, 0, len(pkg.Scripts))
			for k := range pkg.Scripts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				w.body(idx, script{src: pkg.Scripts[k]})
			}
		case name == "make" || name == "gmake":
			r := makefileBodies(f.data)
			if r.why != "" {
				w.st.line.Commands[idx].Unknown = r.why
				return
			}
			for _, s := range r.scripts {
				w.body(idx, s)
			}
		default:
			w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s runs %s, which %s writes earlier in the line", name, p, f.by)
			return
		}
	}
}
