package policy

import (
	"path"
	"strings"
)

// A find -delete stands for rm -r -f of its start paths (the parser's
// implied command), and find -exec rm -rf {} for rm -rf of them, which from
// the project root removes the root and every protected file with it. But
// a find whose expression is a plain conjunction holding name tests deletes
// only what those tests match: find . -name '*.pyc' -delete removes no hook
// registration unless one is named like that. This is where the guard
// tells the two apart.

// findNameTest is one -name, -iname, -path or -ipath test of a find.
type findNameTest struct {
	pattern string
	whole   bool // -path: matched against the path, not the base name
	fold    bool // -iname, -ipath: any case
}

// findNameTests reads the tests of a find's arguments (after the program)
// that bound what it deletes by name: -name, -iname, -path, -ipath, and
// -type d with -empty (only empty folders, which hold no file). ok is false
// when the expression is not a plain conjunction (-o, !, -not, parentheses,
// a comma) or holds no such test: then what it deletes is not bounded.
func findNameTests(args []string) (tests []findNameTest, emptyDirs bool, ok bool) {
	inExpr, dirs, empty := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !inExpr && !strings.HasPrefix(a, "-") && a != "(" && a != "!" {
			continue // a start path
		}
		inExpr = true
		switch a {
		case "-o", "-or", "!", "-not", "(", ")", ",":
			return nil, false, false
		case "-exec", "-execdir", "-ok", "-okdir":
			for i++; i < len(args) && args[i] != ";" && args[i] != "+"; i++ {
			}
		case "-empty":
			empty = true
		case "-type":
			dirs = i+1 < len(args) && args[i+1] == "d"
			i++
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if i+1 >= len(args) {
				return nil, false, false
			}
			tests = append(tests, findNameTest{pattern: args[i+1], whole: !strings.HasSuffix(a, "name") || strings.HasSuffix(a, "wholename"), fold: strings.HasPrefix(a, "-i")})
			i++
		}
	}
	emptyDirs = dirs && empty
	return tests, emptyDirs, len(tests) > 0 || emptyDirs
}

// reaches reports whether the test can match the file at rel (slash
// separated, relative to the root) or a folder holding it, which a
// recursive delete of the match (-exec rm -rf {}) takes with it.
func (t findNameTest) reaches(rel string) bool {
	parts := strings.Split(rel, "/")
	for i := range parts {
		if t.matches(strings.Join(parts[:i+1], "/")) {
			return true
		}
	}
	return false
}

// matches reports whether the test can match the entry at rel: a path test
// is tried against rel and ./rel, and against any suffix of it, since
// find's start path prefixes what it sees.
func (t findNameTest) matches(rel string) bool {
	pattern, rel := t.pattern, rel
	if t.fold {
		pattern, rel = strings.ToLower(pattern), strings.ToLower(rel)
	}
	if !t.whole {
		ok, err := path.Match(pattern, path.Base(rel))
		return ok || err != nil
	}
	// find's * matches / in -path; path.Match's does not: a pattern with a
	// * anywhere is taken to match (deny stays the answer).
	if strings.ContainsAny(pattern, "*?[") {
		return true
	}
	return strings.HasSuffix("/"+rel, "/"+strings.TrimPrefix(pattern, "./")) || strings.HasSuffix(pattern, "/"+rel)
}

// findSparesProtected reports that an implied find -delete run from the
// layers of find deletes none of the protected files under the repository
// root: its expression is a plain conjunction of name tests none of the
// existing protected files matches, and its start paths stay inside the
// root (the home's protected files are not looked at). Any doubt (a
// budget spent, a start path elsewhere) is false.
func (g *guarder) findSparesProtected(find []string, cwds []string) bool {
	tests, emptyDirs, ok := findNameTests(find[1:])
	if !ok {
		return false
	}
	if emptyDirs {
		return true
	}
	for _, r := range findRoots(find[1:]) {
		if dynamicWord(r) || strings.HasPrefix(r, "~") && !(r == "~" || strings.HasPrefix(r, "~/")) {
			return false
		}
		for _, cwd := range cwds {
			p := r
			switch {
			case r == "~" || strings.HasPrefix(r, "~/"):
				if g.home == "" {
					return false
				}
				p = path.Join(g.home, r[1:])
			case !path.IsAbs(p):
				p = path.Join(cwd, p)
			}
			if _, inside := within(g.root, p); !inside {
				return false
			}
		}
	}
	for k := range rootGuarded {
		files := g.existingFiles(&rootGuarded[k])
		if g.budget <= 0 {
			return false
		}
		for _, f := range files {
			for _, t := range tests {
				if t.reaches(f) {
					return false
				}
			}
		}
	}
	return true
}
