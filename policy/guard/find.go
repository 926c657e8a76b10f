package guard

import (
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// A find -delete stands for rm -r -f of its start paths (the parser's
// implied command), and find -exec rm -rf {} for rm -rf of them, which from
// the project root removes the root and every protected file with it. But
// a find whose expression is a plain conjunction of tests deletes only what
// every test holds for: find . -name '*.pyc' -delete removes no hook
// registration unless one is named like that, and find . -size +1M -delete
// none that is small. This is where the guard tells them apart, by trying
// the tests on the protected files that exist and on the folders that hold
// them. A test it cannot try is taken to hold.

// findTest is one test of a find's expression.
type findTest struct {
	primary string // "-name", "-size", ...
	arg     string // its operand, "" for -empty
}

// findTests reads the tests of a find's arguments (after the program). ok
// is false when the expression is not a plain conjunction (-o, !, -not,
// parentheses, a comma): then what it deletes is not bounded by them.
func findTests(args []string) (tests []findTest, ok bool) {
	inExpr := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !inExpr && !strings.HasPrefix(a, "-") && a != "(" && a != "!" {
			continue // a start path
		}
		inExpr = true
		switch a {
		case "-o", "-or", "!", "-not", "(", ")", ",":
			return nil, false
		case "-exec", "-execdir", "-ok", "-okdir":
			for i++; i < len(args) && args[i] != ";" && args[i] != "+"; i++ {
			}
		case "-empty", "-executable", "-readable", "-writable", "-nouser", "-nogroup", "-false":
			tests = append(tests, findTest{primary: a})
		case "-maxdepth", "-mindepth", "-regextype", "-D", "-fprint", "-fprint0", "-fls", "-fprintf", "-printf":
			i++ // an option or action and its operand, not a test
		default:
			if strings.HasPrefix(a, "-") && findTestArgs(a) && i+1 < len(args) {
				tests = append(tests, findTest{primary: a, arg: args[i+1]})
				i++
			}
		}
	}
	return tests, true
}

// findTestArgs reports a test that takes an operand.
func findTestArgs(p string) bool {
	switch p {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
		"-lname", "-ilname", "-type", "-xtype", "-size", "-mtime", "-atime", "-ctime", "-mmin",
		"-amin", "-cmin", "-newer", "-anewer", "-cnewer", "-perm", "-user", "-group", "-uid",
		"-gid", "-links", "-inum", "-samefile", "-fstype", "-used", "-context":
		return true
	}
	return strings.HasPrefix(p, "-newer") // -newerXY REF
}

// holds reports whether the test may hold for the entry at rel (slash
// separated, relative to the root; "" for the root) with fi its metadata.
// A test it cannot try holds.
func (t findTest) holds(rel string, fi fs.FileInfo, now time.Time) bool {
	switch t.primary {
	case "-name", "-iname":
		base := path.Base("/" + rel)
		if rel == "" {
			base = "."
		}
		return globHolds(t.arg, base, t.primary == "-iname")
	case "-path", "-ipath", "-wholename", "-iwholename":
		fold := strings.HasPrefix(t.primary, "-i")
		// find's * matches / in -path, which path.Match's does not: a
		// pattern with one is taken to hold.
		if strings.ContainsAny(t.arg, "*?[") {
			return true
		}
		p, r := t.arg, rel
		if fold {
			p, r = strings.ToLower(p), strings.ToLower(r)
		}
		return strings.HasSuffix("/"+r, "/"+strings.TrimPrefix(p, "./")) || strings.HasSuffix(p, "/"+r)
	case "-type":
		return typeHolds(t.arg, fi)
	case "-empty":
		// Only a file of no bytes; a folder on the way to a protected file
		// is not empty.
		return fi.Mode().IsRegular() && fi.Size() == 0
	case "-size":
		return sizeHolds(t.arg, fi)
	case "-mtime", "-atime", "-ctime":
		return ageHolds(t.arg, now.Sub(fi.ModTime()), 24*time.Hour, t.primary != "-mtime")
	case "-mmin", "-amin", "-cmin":
		return ageHolds(t.arg, now.Sub(fi.ModTime()), time.Minute, t.primary != "-mmin")
	case "-false":
		return false
	}
	return true
}

func globHolds(pattern, name string, fold bool) bool {
	if fold {
		pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	}
	ok, err := path.Match(pattern, name)
	return ok || err != nil
}

// typeHolds reads -type's letters (f, d, l, or several with commas).
func typeHolds(arg string, fi fs.FileInfo) bool {
	for _, c := range strings.Split(arg, ",") {
		switch c {
		case "f":
			if fi.Mode().IsRegular() {
				return true
			}
		case "d":
			if fi.IsDir() {
				return true
			}
		case "l":
			if fi.Mode()&fs.ModeSymlink != 0 {
				return true
			}
		default:
			return true // a type not tried
		}
	}
	return false
}

// sizeHolds reads -size [+-]N[cwbkMG], which rounds the size up to whole
// units (512-byte blocks when no unit is given).
func sizeHolds(arg string, fi fs.FileInfo) bool {
	sign, n := signed(arg)
	unit := int64(512)
	if n != "" {
		switch n[len(n)-1] {
		case 'c':
			unit = 1
		case 'w':
			unit = 2
		case 'b':
			unit = 512
		case 'k':
			unit = 1 << 10
		case 'M':
			unit = 1 << 20
		case 'G':
			unit = 1 << 30
		}
		n = strings.TrimRight(n, "cwbkMG")
	}
	want, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return true
	}
	units := (fi.Size() + unit - 1) / unit
	return compare(sign, units, want)
}

// ageHolds reads a time test's [+-]N in units of per. Access and change
// times are not tried (they move on reads).
func ageHolds(arg string, age, per time.Duration, untried bool) bool {
	if untried {
		return true
	}
	sign, n := signed(arg)
	want, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return true
	}
	units := int64(math.Floor(age.Seconds() / per.Seconds()))
	if sign == '+' {
		return float64(units) > want
	}
	if sign == '-' {
		return float64(units) < want
	}
	return float64(units) == want
}

func signed(arg string) (byte, string) {
	if arg != "" && (arg[0] == '+' || arg[0] == '-') {
		return arg[0], arg[1:]
	}
	return 0, arg
}

func compare(sign byte, got, want int64) bool {
	switch sign {
	case '+':
		return got > want
	case '-':
		return got < want
	}
	return got == want
}

// findSparesProtected reports that a find whose layer is find deletes
// none of the protected files under the repository root: its expression is
// a plain conjunction of tests that fails, for each protected file that
// exists, on the file and on every folder that holds it (the root
// included: find -exec rm -rf {} of a folder takes what it holds), and its
// start paths stay inside the root (the home's protected files are not
// looked at). Any doubt (a budget spent, a start path elsewhere) is false.
func (g *guarder) findSparesProtected(find []string, cwds []string) bool {
	tests, ok := findTests(find[1:])
	if !ok || len(tests) == 0 {
		return false
	}
	for _, r := range shellcmd.FindRoots(find[1:]) {
		if shellcmd.DynamicWord(r) || strings.HasPrefix(r, "~") && !(r == "~" || strings.HasPrefix(r, "~/")) {
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
	now := time.Now()
	tried := map[string]bool{}
	for k := range rootGuarded.Get() {
		files := g.existingFiles(&rootGuarded.Get()[k])
		if g.budget <= 0 {
			return false
		}
		for _, f := range files {
			for rel := f; ; rel = path.Dir(rel) {
				if rel == "." {
					rel = ""
				}
				if !tried[rel] {
					tried[rel] = true
					fi, err := g.lstat(filepath.Join(g.root, filepath.FromSlash(rel)))
					if err != nil || allHold(tests, rel, fi, now) {
						return false
					}
				}
				if rel == "" {
					break
				}
			}
		}
	}
	return true
}

func allHold(tests []findTest, rel string, fi fs.FileInfo, now time.Time) bool {
	for _, t := range tests {
		if !t.holds(rel, fi, now) {
			return false
		}
	}
	return true
}
