package guard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/lazy"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Path resolution and classification: how the guard turns an operand into
// the absolute paths it may really be (known variables, ~, globs, symbolic
// links, every candidate directory) and matches them against the
// protected paths under the root, the home and the configuration folder,
// including the .npmrc script-shell line and shell startup files.

// guardOp is one path a command or a tool writes.
type guardOp struct {
	word   string // as written (shell-normalized); relative to base
	base   string // absolute directory word is relative to; "" for each candidate cwd
	verb   string // "writes", "removes", ...
	follow bool   // a write through a final symbolic link reaches its target
	tree   bool   // everything under it is affected: an ancestor of a protected path counts
	// src, for a recursive copy or move into word, is its source: an
	// ancestor of a protected path counts only where the source holds
	// the part below it.
	src string
	// unknown, for a tree op, says what lands in it is not known here
	// (another host's folder): every protected path it could hold counts,
	// whether it exists yet or not.
	unknown bool
	literal bool // a tool's path: no globbing
	removal bool // the file goes away (an .npmrc's script-shell line with it)
	aliased bool // word came through a link the line makes: no further round
	// pathspec, for git's restores (checkout, restore, stash), leaves out
	// the work tree's root and what holds it: git checkout . puts back what
	// is committed everywhere, which the safety pack judges; a folder
	// named below it counts with everything under it.
	pathspec bool
}

// checkOp checks one op from each candidate directory.
func (g *guarder) checkOp(op guardOp, cwds []string) *Denial {
	if g.seen != nil { // a test records what the guard would check
		g.seen(op, cwds)
		return nil
	}
	bases := cwds
	if op.base != "" {
		bases = []string{op.base}
	}
	word := g.substituteKnown(op.word)
	if word == "" {
		return nil
	}
	if !op.literal && shellcmd.DynamicWord(word) {
		return g.checkDynamic(word, op, bases)
	}
	if !op.aliased {
		for _, w := range g.throughLinks(word) {
			sub := op
			sub.word, sub.aliased = w, true
			if d := g.checkOp(sub, cwds); d != nil {
				return d
			}
		}
	}
	for _, b := range bases {
		for _, p := range g.expand(word, b, op.literal) {
			if d := g.checkPath(p, op); d != nil {
				return d
			}
		}
	}
	return nil
}

// knownVar is an expansion whose value the guard knows.
type knownVar struct {
	expansion string
	value     knownValue
}

type knownValue uint8

const (
	valueHome knownValue = iota
	valueCwd             // kept relative: "." is each candidate directory
	valueRoot
)

// knownVars are the expansions whose value the guard knows: the home, the
// current folder, and the repository root (git's top level, and the
// variable a host sets to its project folder).
var knownVars = lazy.Value[[]knownVar]{New: func() []knownVar {
	list := []knownVar{{"${HOME}", valueHome}, {"$HOME", valueHome},
		{"${PWD}", valueCwd}, {"$PWD", valueCwd}, {"$(pwd)", valueCwd}, {"`pwd`", valueCwd}}
	for _, d := range hostapi.Descriptors() {
		if d.ProjectDirEnv != "" {
			list = append(list, knownVar{"${" + d.ProjectDirEnv + "}", valueRoot}, knownVar{"$" + d.ProjectDirEnv, valueRoot})
		}
	}
	return append(list, knownVar{"$(git rev-parse --show-toplevel)", valueRoot}, knownVar{"`git rev-parse --show-toplevel`", valueRoot})
}}

// substituteKnown replaces a leading expansion whose value is known (the
// home, the current or project directory) by that value. $PWD and $(pwd)
// stay relative: "." is each candidate directory.
func (g *guarder) substituteKnown(w string) string {
	for _, v := range knownVars.Get() {
		rest, ok := strings.CutPrefix(w, v.expansion)
		if !ok || rest != "" && rest[0] != '/' {
			continue
		}
		switch v.value {
		case valueHome:
			if g.home == "" {
				return w
			}
			return g.home + rest
		case valueCwd:
			return "." + rest
		default:
			if g.root == "" {
				return w
			}
			return g.root + rest
		}
	}
	return w
}

// expand makes word absolute against base: ~ is the home, and a glob gives
// the existing paths it matches (as the shell would) besides itself.
func (g *guarder) expand(word, base string, literal bool) []string {
	switch {
	case word == "~" || strings.HasPrefix(word, "~/"):
		if g.home == "" {
			return nil
		}
		word = g.home + word[1:]
	case strings.HasPrefix(word, "~+/") || word == "~+":
		// ~+ is the shell's $PWD: the folder the word is read from.
		if base == "" {
			return nil
		}
		word = base + word[2:]
	case strings.HasPrefix(word, "~"):
		// ~NAME is NAME's home: protected when it is this user's own
		// (~root for root), another user's otherwise.
		name, rest, _ := strings.Cut(word[1:], "/")
		u, err := user.Lookup(name)
		if err != nil || !slices.Contains(g.homes(), filepath.Clean(u.HomeDir)) && !slices.Contains(g.homes(), g.realpath(u.HomeDir)) {
			return nil
		}
		word = filepath.Join(u.HomeDir, rest)
	}
	raw := word
	if !filepath.IsAbs(word) {
		if base == "" {
			return nil
		}
		raw = base + string(filepath.Separator) + word
	}
	out := []string{raw}
	if !literal && hasGlobMeta(word) {
		out = append(out, g.glob(filepath.Clean(raw))...)
	}
	return out
}

func hasGlobMeta(w string) bool { return strings.ContainsAny(w, "*?[") }

// glob lists the existing paths an absolute pattern matches, as bash does
// by default: a leading dot must be matched explicitly (unless dotglob),
// and ** is *. Only paths that can matter are kept (see relevant), so that
// a pattern over the whole file system costs little and no cap hides the
// one match that counts.
func (g *guarder) glob(pattern string) []string {
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	cur := []string{"/"}
	if vol := filepath.VolumeName(pattern); vol != "" {
		cur = []string{vol + "/"}
		segs[0] = ""
	}
	var parts []string
	for _, seg := range segs {
		if seg != "" {
			parts = append(parts, seg)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	anyName := g.namesMatter(parts[len(parts)-1])
	seen := map[string]bool{} // real paths reached through links
	links := 0
	for _, seg := range parts {
		var next []string
		extra := 0 // matches kept for their name or through a link: capped
		for _, dir := range cur {
			if !hasGlobMeta(seg) {
				next = append(next, path.Join(dir, seg))
				continue
			}
			if !g.spend() {
				return nil
			}
			entries, err := os.ReadDir(filepath.FromSlash(dir))
			if err != nil {
				continue
			}
			pat := strings.ReplaceAll(strings.ReplaceAll(seg, "[!", "[^"), "**", "*")
			for _, e := range entries {
				name := e.Name()
				if name[0] == '.' && pat[0] != '.' && !g.dotglob {
					continue
				}
				if ok, _ := path.Match(pat, name); !ok {
					continue
				}
				p := path.Join(dir, name)
				switch {
				case g.relevant(filepath.FromSlash(p)):
					next = append(next, p)
				case extra >= guardMaxMatches:
				case e.Type()&fs.ModeSymlink != 0:
					// Kept when it leads somewhere that matters, once
					// per place (/proc/*/root all lead to /).
					if links++; links > guardMaxLinks || !g.spend() {
						continue
					}
					real, err := filepath.EvalSymlinks(filepath.FromSlash(p))
					if err != nil || seen[real] || !g.relevant(real) {
						continue
					}
					seen[real] = true
					next = append(next, p)
					extra++
				case anyName:
					next = append(next, p)
					extra++
				}
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil
		}
	}
	out := make([]string, len(cur))
	for i, p := range cur {
		out[i] = filepath.FromSlash(p)
	}
	return out
}

// namesMatter reports whether a glob's last segment can match a name that
// counts wherever it is: an .npmrc, or a shell startup file when the
// command writes a guarded variable.
func (g *guarder) namesMatter(last string) bool {
	pat := strings.ReplaceAll(last, "[!", "[^")
	if ok, _ := path.Match(pat, ".npmrc"); ok {
		return true
	}
	if g.envText != "" {
		for name := range shellStartupFiles {
			if ok, _ := path.Match(pat, name); ok {
				return true
			}
		}
	}
	return false
}

// relevant reports whether a path found by a glob can matter to the
// guard: it holds the root or the home, or (inside one) it is a protected
// path, lies in one, or holds one.
func (g *guarder) relevant(p string) bool {
	check := func(bases []string, list []guardedPath) bool {
		for _, b := range bases {
			if _, ok := within(p, b); ok {
				return true // p holds b
			}
			rel, ok := within(b, p)
			if !ok {
				continue
			}
			lrel := strings.ToLower(rel)
			for k := range list {
				e := &list[k]
				switch {
				case ancestor(lrel, e.path):
					return true
				case e.kind == guardTree && under(lrel, e.path):
					return true
				case e.kind == guardFile && lrel == e.path:
					return true
				case e.kind == guardGlob:
					if ok, _ := path.Match(e.path, lrel); ok {
						return true
					}
				}
			}
		}
		return false
	}
	return check(g.roots(), rootGuarded.Get()) || check(g.homes(), homeGuarded.Get()) || check(g.configs(), configGuarded)
}

// configs is the user's configuration folder when XDG_CONFIG_HOME moves it
// out of the home (where homeGuarded already covers it).
func (g *guarder) configs() []string {
	if g.config == "" {
		return nil
	}
	return []string{g.config}
}

// checkDynamic: a target only known at run time is left to the policy,
// unless everything it can name lies in a protected folder (its static
// part already names one: .agent-shell/$X).
func (g *guarder) checkDynamic(word string, op guardOp, bases []string) *Denial {
	i := strings.IndexAny(word, "$`")
	if j := strings.Index(word, "{}"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return nil
	}
	prefix, rest := word[:i], word[i:]
	slash := strings.LastIndexByte(prefix, '/')
	if slash < 0 || shellcmd.HasDotDot(rest) {
		return nil
	}
	dir := prefix[:slash]
	if dir == "" {
		dir = "/"
	}
	for _, b := range bases {
		for _, p := range g.expand(dir, b, true) {
			for _, c := range g.candidates(p, true) {
				for _, area := range []struct {
					bases []string
					list  []guardedPath
					show  string
				}{{g.roots(), rootGuarded.Get(), ""}, {g.homes(), homeGuarded.Get(), "~/"}} {
					for _, rb := range area.bases {
						rel, ok := within(rb, c)
						if !ok {
							continue
						}
						for k := range area.list {
							e := &area.list[k]
							if dynamicReaches(strings.ToLower(rel), e) {
								if d := g.denyPath(e, area.show+rel+"/"+rest, op.verb); d != nil {
									return d
								}
							}
						}
					}
				}
			}
		}
	}
	return nil
}

// dynamicReaches reports whether a path whose static folder is dir (root-
// relative, lower case) and whose rest is known only at run time may be the
// protected entry e: dir lies in a protected folder, or in the folder of a
// registration's files (.claude for settings.json, .claude/agents for
// agents/*, .claude/skills for skills/*/SKILL.md), except the root itself,
// where every file would be.
func dynamicReaches(dir string, e *guardedPath) bool {
	if e.kind != guardTree && path.Dir(e.path) == "." {
		return false
	}
	return under(dir, mountPath(*e))
}

// candidates are the paths a path may really be: as written (cleaned),
// and through the symbolic links that exist now (the final one only when
// op follows it).
func (g *guarder) candidates(raw string, follow bool) []string {
	clean := filepath.Clean(raw)
	out := []string{clean}
	if phys, ok := g.physical(raw, follow); ok && phys != clean {
		out = append(out, phys)
	}
	return out
}

// physical resolves the symbolic links of the deepest existing ancestor of
// raw (of raw itself when follow), the way the kernel walks it: a ".."
// after a link climbs from the link's target.
func (g *guarder) physical(raw string, follow bool) (string, bool) {
	sep := string(filepath.Separator)
	comps := strings.Split(raw, sep)
	if len(comps) > 128 {
		return "", false
	}
	last := len(comps) - 1
	if follow || comps[last] == "." || comps[last] == ".." || comps[last] == "" {
		last = len(comps)
	}
	for k := last; k >= 1; k-- {
		prefix := strings.Join(comps[:k], sep)
		if prefix == "" {
			prefix = sep
		}
		if _, err := g.lstat(prefix); err != nil {
			if errors.Is(err, errBudget) {
				return "", false
			}
			continue
		}
		if !g.spend() {
			return "", false
		}
		real, err := filepath.EvalSymlinks(prefix)
		if err != nil {
			return "", false
		}
		return filepath.Clean(real + sep + strings.Join(comps[k:], sep)), true
	}
	return "", false
}

// roots are the root as given and as resolved.
// holdsRoot reports whether c is the root or a folder above it.
func (g *guarder) holdsRoot(c string) bool {
	for _, rb := range g.roots() {
		if _, ok := within(c, rb); ok {
			return true
		}
	}
	return false
}

func (g *guarder) roots() []string {
	switch {
	case g.root == "":
		return nil
	case g.realRoot == g.root:
		return []string{g.root}
	}
	return []string{g.root, g.realRoot}
}

func (g *guarder) homes() []string {
	switch {
	case g.home == "":
		return nil
	case g.realHome == g.home:
		return []string{g.home}
	}
	return []string{g.home, g.realHome}
}

// within returns p relative to base, slash-separated ("" for base itself),
// and whether p is base or under it.
func within(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return rel, true
}

// under reports whether rel is dir or lies under it.
func under(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// ancestor reports whether rel ("" for the root) strictly contains p, or
// some path the pattern p matches (a component of p may be a pattern).
func ancestor(rel, p string) bool {
	if rel == "" || strings.HasPrefix(p, rel+"/") {
		return true
	}
	if !hasGlobMeta(p) {
		return false
	}
	rs, ps := strings.Split(rel, "/"), strings.Split(p, "/")
	if len(rs) >= len(ps) {
		return false
	}
	for i, r := range rs {
		if ok, _ := path.Match(ps[i], r); !ok {
			return false
		}
	}
	return true
}

// checkPath checks one absolute path (not yet cleaned) an op writes.
func (g *guarder) checkPath(raw string, op guardOp) *Denial {
	follow := op.follow || strings.HasSuffix(op.word, "/")
	for _, c := range g.candidates(raw, follow) {
		if op.pathspec && g.holdsRoot(c) {
			continue
		}
		for _, rb := range g.roots() {
			if rel, ok := within(rb, c); ok {
				if d := g.classify(rb, rel, op, rootGuarded.Get(), ""); d != nil {
					return d
				}
				if d := g.checkNpmrc(rb, rel, op); d != nil {
					return d
				}
			} else if d := g.classifyAncestor(c, rb, op, rootGuarded.Get(), ""); d != nil {
				return d
			}
		}
		for _, hb := range g.homes() {
			if rel, ok := within(hb, c); ok {
				if d := g.classify(hb, rel, op, homeGuarded.Get(), "~/"); d != nil {
					return d
				}
				// npm's user configuration: where script-shell is set when
				// the project's .npmrc is committed.
				if strings.EqualFold(rel, ".npmrc") {
					if d := g.checkNpmrc(hb, rel, op); d != nil {
						return d
					}
				}
			} else if d := g.classifyAncestor(c, hb, op, homeGuarded.Get(), "~/"); d != nil {
				return d
			}
		}
		for _, cb := range g.configs() {
			if rel, ok := within(cb, c); ok {
				if d := g.classify(cb, rel, op, configGuarded, "$XDG_CONFIG_HOME/"); d != nil {
					return d
				}
			} else if d := g.classifyAncestor(c, cb, op, configGuarded, "$XDG_CONFIG_HOME/"); d != nil {
				return d
			}
		}
		if d := g.checkStartupFile(c); d != nil {
			return d
		}
	}
	return nil
}

// classifyAncestor: a tree op on c, an ancestor of base (the root or the
// home), reaches everything under base.
func (g *guarder) classifyAncestor(c, base string, op guardOp, list []guardedPath, show string) *Denial {
	if !op.tree {
		return nil
	}
	below, ok := within(c, base)
	if !ok {
		return nil
	}
	if op.src != "" {
		op.src = filepath.Join(op.src, filepath.FromSlash(below))
	}
	g.at = filepath.ToSlash(c)
	defer func() { g.at = "" }()
	return g.classify(base, "", op, list, show)
}

// classify checks rel (relative to base, the root or the home) against the
// protected paths: rel is one, lies in one, or (for a tree op) holds one
// that exists.
func (g *guarder) classify(base, rel string, op guardOp, list []guardedPath, show string) *Denial {
	lrel := strings.ToLower(rel)
	for k := range list {
		e := &list[k]
		hit := false
		switch e.kind {
		case guardTree:
			hit = under(lrel, e.path)
		case guardFile:
			hit = lrel == e.path
		case guardGlob:
			hit, _ = path.Match(e.path, lrel)
		}
		if hit {
			if d := g.denyPath(e, show+rel, op.verb); d != nil {
				return d
			}
		}
	}
	if !op.tree {
		return nil
	}
	at := show + rel
	switch {
	case g.at != "":
		at = g.at // an ancestor of the root or the home
	case rel == "" && show == "":
		at = "the repository root"
	case rel == "":
		at = "the home folder"
	}
	for k := range list {
		e := &list[k]
		if lrel != "" && !ancestor(lrel, e.path) {
			continue
		}
		var targets []string
		switch {
		case op.unknown:
			// The part of the entry below the folder written to.
			n := 0
			if lrel != "" {
				n = strings.Count(lrel, "/") + 1
			}
			targets = []string{path.Join(lrel, strings.Join(strings.Split(e.path, "/")[n:], "/"))}
		case op.src != "":
			// A copy writes what its source holds, whether or not the
			// destination has it yet.
			targets = g.fromSource(op.src, lrel, e)
		default:
			targets = g.existing(base, e)
		}
		for _, target := range targets {
			if lrel != "" && !strings.HasPrefix(strings.ToLower(target), lrel+"/") {
				continue // a match of a pattern elsewhere (.claude/skills/*/...)
			}
			if d := g.denyAncestor(e, at, show+target, op.verb); d != nil {
				return d
			}
		}
	}
	if show == "" && lrel == "" && g.npmrcHasLine(filepath.Join(base, ".npmrc")) {
		if op.src == "" || op.unknown || len(g.fromSource(op.src, lrel, &guardedPath{path: ".npmrc", kind: guardFile})) > 0 {
			return g.denyNpm(".npmrc", fmt.Sprintf("%s %s and with it .npmrc", op.verb, at))
		}
	}
	return nil
}

// existing lists the paths of a protected entry that exist under base,
// relative to it.
func (g *guarder) existing(base string, e *guardedPath) []string {
	if e.kind == guardGlob {
		return g.globUnder(base, "", e.path)
	}
	if g.exists(filepath.Join(base, filepath.FromSlash(e.path))) {
		return []string{e.path}
	}
	return nil
}

// globUnder lists, as prefix + "/" + each match, the paths under base that
// pattern (relative, slash-separated, lower case, a pattern in any
// component) matches, names compared in lower case, within the budget.
func (g *guarder) globUnder(base, prefix, pattern string) []string {
	first, rest, more := strings.Cut(pattern, "/")
	join := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "/" + name
	}
	if !hasGlobMeta(first) && g.exists(filepath.Join(base, first)) {
		if !more {
			return []string{join(first)}
		}
		return g.globUnder(filepath.Join(base, first), join(first), rest)
	}
	// A pattern, or a name whose case may differ (a skill file named in
	// capitals, matched by its lower-case pattern).
	if !g.spend() {
		return nil
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []string
	for _, en := range entries {
		if ok, _ := path.Match(first, strings.ToLower(en.Name())); !ok {
			continue
		}
		if !more {
			out = append(out, join(en.Name()))
		} else if en.IsDir() {
			out = append(out, g.globUnder(filepath.Join(base, en.Name()), join(en.Name()), rest)...)
		}
	}
	return out
}

// fromSource lists the paths of a protected entry that a recursive copy
// of src into lrel (lower case, an ancestor of the entry) writes: those
// whose part below lrel src holds.
func (g *guarder) fromSource(src, lrel string, e *guardedPath) []string {
	n := 0 // the components of lrel, which the copy's destination stands for
	if lrel != "" {
		n = strings.Count(lrel, "/") + 1
	}
	below := strings.Join(strings.Split(e.path, "/")[n:], "/")
	if e.kind != guardGlob {
		if g.exists(filepath.Join(src, filepath.FromSlash(below))) {
			return []string{e.path}
		}
		return nil
	}
	return g.globUnder(src, lrel, below)
}

// checkNpmrc: a write to an .npmrc anywhere under the root counts when it
// can change npm's script-shell: the file has a script-shell line (a
// shell write or a whole-file write can drop it; an edit must mention
// it), the text mentions script-shell, or (for a shell write, which
// shows no content) the root's .npmrc has one that a new file below could
// override.
func (g *guarder) checkNpmrc(base, rel string, op guardOp) *Denial {
	if strings.ToLower(path.Base(rel)) != ".npmrc" {
		return nil
	}
	file := filepath.Join(base, filepath.FromSlash(rel))
	switch {
	case g.scriptShell:
	case (g.shell || g.whole || op.removal) && g.npmrcHasLine(file):
	case g.shell && rel != ".npmrc" && g.rootNpmrcHasLine(base):
	default:
		return nil
	}
	return g.denyNpm(rel, op.verb+" "+rel)
}

// userNpmrcHasLine reports whether ~/.npmrc sets script-shell.
func (g *guarder) userNpmrcHasLine() bool {
	return g.home != "" && g.npmrcHasLine(filepath.Join(g.home, ".npmrc"))
}

func (g *guarder) rootNpmrcHasLine(base string) bool {
	if g.rootNpmrc == 0 {
		g.rootNpmrc = -1
		if g.npmrcHasLine(filepath.Join(base, ".npmrc")) {
			g.rootNpmrc = 1
		}
	}
	return g.rootNpmrc == 1
}

// npmrcHasLine reports whether an .npmrc sets script-shell (reading at
// most guardMaxNpmrc bytes of it).
func (g *guarder) npmrcHasLine(file string) bool {
	b, ok := g.readRegular(file, guardMaxNpmrc)
	return ok && npmrcLineRE().Match(b)
}

// readRegular reads at most max bytes of a regular file. Anything else (a
// FIFO, a terminal, a device) is not read: the hook must never block on
// what a command names.
func (g *guarder) readRegular(file string, max int64) ([]byte, bool) {
	if !g.spend() {
		return nil, false
	}
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false // swapped since the first look
	}
	b, err := io.ReadAll(io.LimitReader(f, max))
	return b, err == nil
}

// checkStartupFile: writing a guarded variable's assignment into a shell
// startup file sets it for every later command.
func (g *guarder) checkStartupFile(p string) *Denial {
	if g.envText == "" || !shellStartupFiles[strings.ToLower(filepath.Base(p))] {
		return nil
	}
	name := envWriteRE().FindStringSubmatch(g.envText)[1]
	return g.denyEnv(name, "writes into "+filepath.Base(p)+" an assignment of")
}

// existingFiles lists a protected entry's existing files (a folder's,
// within the budget), root-relative.
func (g *guarder) existingFiles(e *guardedPath) []string {
	if e.kind != guardTree {
		return g.existing(g.root, e)
	}
	var out []string
	dir := filepath.Join(g.root, filepath.FromSlash(e.path))
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !g.spend() {
			return filepath.SkipAll
		}
		if !d.IsDir() {
			if rel, ok := within(g.root, p); ok {
				out = append(out, rel)
			}
		}
		return nil
	})
	return out
}
