package guard

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Shell commands: walking a parsed command line (assignments, simple
// commands, redirections, cd and pushd, shell bodies re-parsed, find -exec's
// {}), and the option parser the write forms use.

// line checks a parsed command line, each command from each directory the
// line may have changed to.
func (g *guarder) line(l *shellcmd.Line, cwds []string, depth int) *Denial {
	g.lineLinks(l)
	for _, a := range l.Assigns {
		if d := g.checkAssign(a, "sets"); d != nil {
			return d
		}
	}
	for i := range l.Commands {
		if d := g.command(&l.Commands[i], &cwds, depth); d != nil {
			return d
		}
	}
	if depth == 0 && g.patchy {
		bases := append(append([]string(nil), cwds...), g.patchBases...)
		if d := g.checkPatch(patchHeaders(g.raw), bases); d != nil {
			return d
		}
		for _, pf := range g.patchFiles {
			if d := g.checkPatchFile(pf, cwds, bases); d != nil {
				return d
			}
		}
	}
	return nil
}

// command checks one simple command: its assignments, each layer's write
// operands, its redirections, and a shell body the parser could not read.
func (g *guarder) command(c *shellcmd.Command, cwds *[]string, depth int) *Denial {
	for _, a := range c.Assigns {
		if d := g.checkAssign(a, "sets"); d != nil {
			return d
		}
	}
	g.chdir(c.Argv, cwds)
	if d := g.agentShellRun(c, *cwds, depth); d != nil {
		return d
	}
	var roots []string // find's starting points, for {} in what it runs
	for li, layer := range c.Layers {
		if len(layer) == 0 {
			continue
		}
		if li == len(c.Layers)-1 && li > 0 && c.Implied == "find -delete" && g.findSparesProtected(c.Layers[li-1], *cwds) {
			continue // find.go: its name tests match no protected file
		}
		if d := g.guardLayer(layer, *cwds, roots); d != nil {
			return d
		}
		if layer[0] == "find" && li < len(c.Layers)-1 {
			roots = shellcmd.FindRoots(layer[1:])
			if g.findSparesProtected(layer, *cwds) {
				roots = nil // find.go: {} matches no protected file
			}
		}
	}
	if appliesPatch(c.Argv) {
		// The patch may come on stdin: patch -p1 < fix.diff.
		for _, r := range c.Redirects {
			if r.File && !r.Write && !r.Dynamic {
				for _, cwd := range *cwds {
					g.patchFiles = append(g.patchFiles, patchFile{path: r.Target, base: cwd})
				}
			}
		}
	}
	if c.Code != nil {
		// python3 -c "open('.claude/settings.json', 'w')": a file the
		// one-liner changes by a literal path.
		for _, w := range c.Code.Writes {
			if d := g.checkOp(guardOp{word: w, verb: "writes", follow: true}, *cwds); d != nil {
				return d
			}
		}
	}
	for _, r := range c.Redirects {
		if !r.File || !r.Write || strings.HasPrefix(r.Target, ">(") || strings.HasPrefix(r.Target, "<(") {
			continue
		}
		if d := g.checkOp(guardOp{word: r.Target, verb: "writes", follow: true}, *cwds); d != nil {
			return d
		}
	}
	if c.Unknown != "" && depth < guardMaxDepth {
		for _, layer := range c.Layers {
			if body := shellBody(layer); body != "" {
				if d := g.line(shellcmd.Parse(body), *cwds, depth+1); d != nil {
					return d
				}
			}
		}
	}
	return nil
}

// appliesPatch reports a command that applies a patch: patch, apply_patch,
// git apply, git am.
func appliesPatch(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch argv[0] {
	case "patch", "apply_patch", "applypatch":
		return true
	case "git":
		sub, _ := gitSubcommand(argv[1:])
		return sub == "apply" || sub == "am"
	}
	return false
}

// shellBody is the script of a shell layer the parser could not read
// statically (sh -c "rm $X", eval "..."), as source text.
func shellBody(layer []string) string {
	switch layer[0] {
	case "eval":
		return strings.Join(layer[1:], " ")
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh":
		for i := 1; i < len(layer)-1; i++ {
			a := layer[i]
			if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'c') {
				return layer[i+1]
			}
		}
	}
	return ""
}

// chdir follows a static cd or pushd (shellcmd.CdTarget, as the effects
// do): its target joins the candidate directories (the ones before stay,
// since a subshell or a failed cd leaves them in force), up to
// shellcmd.MaxCwds.
func (g *guarder) chdir(argv []string, cwds *[]string) {
	dir, ok := shellcmd.CdTarget(argv)
	if !ok || shellcmd.DynamicWord(g.substituteKnown(dir)) {
		return
	}
	switch {
	case dir == "~":
		dir = g.home
	case strings.HasPrefix(dir, "~/"):
		dir = g.home + dir[1:]
	}
	dir = g.substituteKnown(dir)
	if dir == "" {
		return
	}
	*cwds = shellcmd.FollowCd(*cwds, func(c string) string {
		switch {
		case filepath.IsAbs(dir):
			return filepath.Clean(dir)
		case c != "":
			return filepath.Join(c, dir)
		}
		return ""
	})
}

// checkAssign checks NAME=value (or NAME+=, NAME[i]=, or a bare NAME to
// export).
func (g *guarder) checkAssign(a, how string) *Denial {
	name := a
	if i := strings.IndexAny(name, "+=["); i >= 0 {
		name = name[:i]
	}
	up := strings.ToUpper(name)
	if _, ok := guardedEnv[up]; ok {
		return g.denyEnv(up, how)
	}
	if up == "NPM_CONFIG_SCRIPT_SHELL" || up == "NPM_CONFIG_SCRIPT-SHELL" {
		return g.denyNpm("npm_config_script_shell", how+" "+name+", which overrides script-shell")
	}
	if up == "NPM_CONFIG_USERCONFIG" && g.userNpmrcHasLine() {
		return g.denyNpm("npm_config_userconfig", how+" "+name+", which makes npm read another user configuration than ~/.npmrc and drop its script-shell line")
	}
	return nil
}

// checkDynamicName checks a word that names a variable (NAME or
// NAME=value) for a name known only at run time: V=AGENTSHELL_PASSTHROUGH;
// export $V=1 switches recording off as the written name would, so a
// variable of unknown name may not be exported or set this way.
func (g *guarder) checkDynamicName(word, verb string) *Denial {
	name, _, _ := strings.Cut(word, "=")
	if !shellcmd.DynamicWord(name) {
		return nil
	}
	return g.deny(AgentShellEnv, name, fmt.Sprintf(
		"agent-shell guard %s: %s %s a variable whose name, %s, is known only when it runs: it may be one that switches agent-shell off or moves what it records. Name the variable as written.",
		AgentShellEnv, g.subject, verb, name))
}

// checkSourced checks a file a command sources: its assignments of the
// guarded variables are set in the shell that runs the command.
func (g *guarder) checkSourced(file string, cwds []string) *Denial {
	if shellcmd.DynamicWord(file) {
		return nil // the policy's unknown handling judges it
	}
	for _, b := range g.readFrom(file, cwds, guardMaxNpmrc) {
		if m := envWriteRE().FindStringSubmatch(string(b)); m != nil {
			return g.denyEnv(m[1], "sources "+file+", which sets")
		}
	}
	return nil
}

// readFrom reads the regular file a command names, from each directory
// it may run in: one text for each where it exists.
func (g *guarder) readFrom(file string, cwds []string, max int64) [][]byte {
	var out [][]byte
	for _, cwd := range cwds {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if b, ok := g.readRegular(p, max); ok {
			out = append(out, b)
		}
	}
	return out
}

// guardLayer checks one layer of a command: the write operands of the
// programs that write their arguments. findRoots, when the layer runs
// under find -exec, stand for its {}.
func (g *guarder) guardLayer(argv []string, cwds []string, findRoots []string) *Denial {
	if findRoots != nil {
		// {} is any path under find's starting points: the tree itself, and
		// each protected file in it (find . -exec cp /dev/null {} \; writes
		// .claude/settings.json).
		for _, a := range argv[1:] {
			if strings.Contains(a, "{}") {
				for _, r := range findRoots {
					if d := g.layerOps(substituteAll(argv, "{}", r), cwds, true); d != nil {
						return d
					}
					for _, f := range g.protectedUnder(r, cwds) {
						if d := g.layerOps(substituteAll(argv, "{}", f), cwds, false); d != nil {
							return d
						}
					}
				}
				return nil
			}
		}
	}
	return g.layerOps(argv, cwds, false)
}

// protectedUnder lists the protected paths of the repository that lie
// under dir (from each of cwds): the files of each protected entry that
// exist, and the folder of a protected tree.
func (g *guarder) protectedUnder(dir string, cwds []string) []string {
	if shellcmd.DynamicWord(dir) {
		return nil
	}
	var out []string
	for _, cwd := range cwds {
		base := dir
		if !filepath.IsAbs(base) {
			base = filepath.Join(cwd, base)
		}
		for k := range rootGuarded.Get() {
			e := &rootGuarded.Get()[k]
			files := []string{e.path}
			if e.kind != guardTree {
				files = g.existing(g.root, e)
			}
			for _, f := range files {
				p := filepath.Join(g.root, filepath.FromSlash(f))
				if _, ok := within(base, p); ok {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

func substituteAll(argv []string, old, new string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, old, new)
	}
	return out
}

// rebase joins dir to each candidate directory ("" leaves them).
func (g *guarder) rebase(cwds []string, dir string) []string {
	if dir == "" {
		return cwds
	}
	dir = g.substituteKnown(dir)
	if shellcmd.DynamicWord(dir) {
		return cwds
	}
	var out []string
	for _, c := range cwds {
		switch {
		case filepath.IsAbs(dir):
			out = append(out, filepath.Clean(dir))
		case strings.HasPrefix(dir, "~/") && g.home != "":
			out = append(out, filepath.Join(g.home, dir[2:]))
		case c != "":
			out = append(out, filepath.Join(c, dir))
		}
	}
	if len(out) == 0 {
		return cwds
	}
	return out
}
