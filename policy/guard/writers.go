package guard

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The write forms of the programs the guard knows: layerOps, per program,
// and the families it calls for copies, moves and links, git and npm.

// opts is the option table of a program (shellcmd's, the one that
// canonicalization, unwrapping and the effects read too); nil, for a
// program it does not know, reads every option as one without a value.
func opts(prog string) *shellcmd.Options { return shellcmd.ProgramOptions(prog) }

// editors change the files they open.
var editors = map[string]bool{"ed": true, "ex": true, "vi": true, "vim": true, "nvim": true, "nano": true, "pico": true,
	"emacs": true, "micro": true, "hx": true, "kak": true, "joe": true, "mcedit": true, "sponge": true,
	"mkfifo": true, "mknod": true, "dos2unix": true, "unix2dos": true}

// layerOps checks the write operands of one program. underFind: the
// operands stand for whole trees (find's {}).
func (g *guarder) layerOps(argv []string, cwds []string, underFind bool) *Denial {
	prog, args := argv[0], argv[1:]
	check := func(op guardOp) *Denial {
		if underFind {
			op.tree = true
		}
		return g.checkOp(op, cwds)
	}
	each := func(words []string, op guardOp) *Denial {
		for _, w := range words {
			op.word = w
			if d := check(op); d != nil {
				return d
			}
		}
		return nil
	}
	switch prog {
	case "export", "declare", "typeset", "local", "readonly":
		p := opts(prog).Split(args)
		nameref := p.Has("n")
		for _, a := range args {
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
				continue
			}
			verb := "sets"
			if prog == "export" || p.Has("x") {
				verb = "exports"
			}
			if d := g.checkDynamicName(a, verb); d != nil {
				return d
			}
			if d := g.checkAssign(a, "sets"); d != nil {
				return d
			}
			if _, v, ok := strings.Cut(a, "="); ok && nameref {
				if d := g.checkAssign(v, "makes a reference to"); d != nil {
					return d
				}
			}
		}
	case "source", ".":
		// A file sourced sets what it assigns in this shell.
		if len(args) > 0 {
			return g.checkSourced(args[0], cwds)
		}
	case "read", "mapfile", "readarray", "printf", "getopts", "let":
		for i, a := range args {
			if prog == "printf" && a == "-v" && i+1 < len(args) {
				if d := g.checkDynamicName(args[i+1], "sets"); d != nil {
					return d
				}
			}
			name := a
			if i := strings.IndexAny(name, "+=["); i >= 0 {
				name = name[:i]
			}
			if _, ok := guardedEnv[strings.ToUpper(name)]; ok {
				return g.checkAssign(name, "sets")
			}
		}
	case "rm", "unlink", "rmdir":
		p := opts(prog).Split(args)
		tree := prog == "rm" && p.Has("r", "R", "recursive")
		return each(p.Operands, guardOp{verb: "removes", tree: tree, removal: true})
	case "shred":
		p := opts(prog).Split(args)
		return each(p.Operands, guardOp{verb: "overwrites", follow: true, removal: true})
	case "touch":
		return each(opts(prog).Split(args).Operands, guardOp{verb: "writes", follow: true})
	case "truncate":
		return each(opts(prog).Split(args).Operands, guardOp{verb: "truncates", follow: true, removal: true})
	case "mkdir":
		return each(opts(prog).Split(args).Operands, guardOp{verb: "creates"})
	case "tee":
		return each(opts(prog).Split(args).Operands, guardOp{verb: "writes", follow: true})
	case "chmod", "chown", "chgrp", "chattr", "setfacl":
		// The mode or owner is checked too: it names no protected path.
		return each(opts(prog).Split(args).Operands, guardOp{verb: "changes the permissions of", tree: true})
	case "sed", "perl", "ruby", "awk", "gawk", "yq", "sd":
		// In-place editors: shellcmd.InPlace knows which operands are files.
		files, edits := shellcmd.InPlace(prog, opts(prog).Split(args))
		if !edits {
			return nil
		}
		return each(files, guardOp{verb: "edits", follow: true, removal: true})
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				return check(guardOp{word: v, verb: "writes", follow: true, removal: true})
			}
		}
	case "sort", "shuf":
		return each(opts(prog).Split(args).Values("o", "output"), guardOp{verb: "writes", follow: true, removal: true})
	case "uniq":
		p := opts(prog).Split(args)
		if len(p.Operands) > 1 {
			return check(guardOp{word: p.Operands[1], verb: "writes", follow: true, removal: true})
		}
	case "curl", "wget", "aria2c", "http", "https", "xh", "xhs":
		// What it downloads, and the logs, headers and cookies it saves.
		return each(shellcmd.DownloaderWrites(prog, args), guardOp{verb: "writes", follow: true, removal: true})
	case "gzip", "bzip2", "xz", "lzma", "lzip", "zstd", "gunzip", "bunzip2", "unxz", "unlzma", "unzstd", "compress", "uncompress":
		p := opts(prog).Split(args)
		if p.Has("c", "k", "l", "t", "stdout", "to-stdout", "keep", "list", "test") || prog == "zstd" && !p.Has("rm") {
			return nil
		}
		if d := each(p.Operands, guardOp{verb: "compresses away", removal: true}); d != nil {
			return d
		}
		for _, o := range p.Operands { // the file it decompresses to
			if ext := path.Ext(o); ext != "" {
				if d := check(guardOp{word: strings.TrimSuffix(o, ext), verb: "writes", follow: true, removal: true}); d != nil {
					return d
				}
			}
		}
	case "find":
		for i, a := range args {
			if (a == "-fprint" || a == "-fprint0" || a == "-fls" || a == "-fprintf") && i+1 < len(args) {
				if d := check(guardOp{word: args[i+1], verb: "writes", follow: true, removal: true}); d != nil {
					return d
				}
			}
		}
	case "mv", "cp", "install", "rsync", "scp", "ln":
		return g.copyOps(prog, args, cwds, check)
	case "tar", "gtar", "bsdtar", "unzip":
		return archiveOps(prog, args, check)
	case "git":
		return g.gitOps(args, cwds)
	case "npm", "pnpm", "yarn", "npx", "bun":
		return g.npmOps(prog, args)
	case "claude", "claude-code": // claude-code: npx @anthropic-ai/claude-code
		return g.claudeOps(args, cwds)
	case "apply_patch", "applypatch":
		g.patchy = true
	case "patch":
		g.patchy = true
		p := opts(prog).Split(args)
		base := ""
		for _, d := range p.Values("d", "directory") {
			base = d
		}
		for _, f := range p.Values("i", "input") {
			g.patchFiles = append(g.patchFiles, patchFile{path: f})
		}
		if len(p.Operands) > 1 {
			g.patchFiles = append(g.patchFiles, patchFile{path: p.Operands[1]})
		}
		if len(p.Operands) > 0 {
			if d := g.checkOp(guardOp{word: p.Operands[0], verb: "patches", follow: true, removal: true}, g.rebase(cwds, base)); d != nil {
				return d
			}
		}
		if d := each(p.Values("o", "output", "r", "reject-file"), guardOp{verb: "writes", follow: true, removal: true}); d != nil {
			return d
		}
		if base != "" {
			g.patchBases = append(g.patchBases, g.rebase(cwds, base)...)
		}
	default:
		if files, ok := formatted(prog, args); ok {
			return each(files, guardOp{verb: "rewrites", follow: true, removal: true})
		}
		if !shellcmd.KnownProgram(prog) && !editors[prog] {
			// A program agent-shell does not know may write any file it
			// is given (mytool -o .claude/settings.json).
			var files []string
			for _, a := range args {
				if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
					a = v
				}
				if a != "" && !strings.HasPrefix(a, "-") {
					files = append(files, a)
				}
			}
			return each(files, guardOp{verb: "may write, through " + prog + " (a program agent-shell does not know),", follow: true, removal: true})
		}
		if editors[prog] {
			// -c CMD, --cmd CMD, a cluster ending in c (ex -sc CMD): an Ex command.
			takesCmd := func(a string) bool {
				return a == "--cmd" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.HasSuffix(a, "c")
			}
			var files []string
			for i, a := range args {
				switch {
				case strings.HasPrefix(a, "+"):
					files = append(files, exWrites(a[1:])...)
				case takesCmd(a) && i+1 < len(args):
					files = append(files, exWrites(args[i+1])...)
				case !strings.HasPrefix(a, "-") && (i == 0 || !takesCmd(args[i-1])):
					files = append(files, a)
				}
			}
			return each(files, guardOp{verb: "edits", follow: true, removal: true})
		}
	}
	return nil
}

// formatted returns the files a formatter or linter rewrites in place, when
// its options ask it to (prettier --write, eslint --fix, gofmt -w, black
// unless --check or --diff); ok is false for any other program or run.
func formatted(prog string, args []string) (files []string, ok bool) {
	var write []string
	switch prog {
	case "prettier", "biome", "dprint":
		write = []string{"--write", "-w", "--apply", "--fix", "fmt", "format"}
	case "eslint", "stylelint", "markdownlint", "oxlint", "ruff", "golangci-lint":
		write = []string{"--fix", "format"}
	case "gofmt", "goimports", "shfmt":
		write = []string{"-w"}
	case "clang-format", "autopep8", "yapf":
		write = []string{"-i", "--in-place"}
	case "rubocop":
		write = []string{"-a", "-A", "--autocorrect", "--autocorrect-all"}
	case "black", "isort":
		ok = !slices.Contains(args, "--check") && !slices.Contains(args, "--diff")
	default:
		return nil, false
	}
	for _, a := range args {
		switch {
		case slices.Contains(write, a):
			ok = true
		case !strings.HasPrefix(a, "-"):
			files = append(files, a)
		}
	}
	return files, ok
}

// copyOps checks mv, cp, install, rsync and ln: what they write (the
// destination, or each source's name in a destination folder), what mv
// takes away (its sources), and what a link points to.
func (g *guarder) copyOps(prog string, args []string, cwds []string, check func(guardOp) *Denial) *Denial {
	c := shellcmd.CopyRoles(prog, args)
	p := c.Args
	if c.ToRemote {
		return nil // to another host
	}
	if len(c.Creates) > 0 {
		return g.eachCheck(c.Creates, guardOp{verb: "creates"}, check)
	}
	recursive := prog == "mv" || p.Has("r", "R", "a", "recursive", "archive")
	sources, dest, toDir := c.Sources, c.Dest, c.ToDir
	switch {
	case dest == "" && prog == "mv" && len(sources) == 1:
		return check(guardOp{word: sources[0], verb: "moves", tree: true, removal: true})
	case dest == "":
		return nil
	case !toDir:
		toDir = strings.HasSuffix(dest, "/") || (!c.NoTargetDir && g.isDirAnywhere(dest))
	}
	if prog == "mv" || prog == "rsync" && p.Has("remove-source-files") {
		if d := g.eachCheck(sources, guardOp{verb: "moves", tree: prog == "mv", removal: true}, check); d != nil {
			return d
		}
	}
	if prog == "ln" || prog == "cp" && p.Has("l", "s", "link", "symbolic-link") {
		// A link to a protected file lets a later write reach it.
		if d := g.eachCheck(sources, guardOp{verb: "makes a link to"}, check); d != nil {
			return d
		}
		if prog == "ln" && p.Has("s", "symbolic") {
			// A relative symbolic link points from the folder it is in.
			linkDir := dest
			if !toDir {
				linkDir = path.Dir(dest)
			}
			for _, s := range sources {
				if !path.IsAbs(s) && !shellcmd.DynamicWord(s) && !shellcmd.DynamicWord(linkDir) {
					if d := check(guardOp{word: path.Join(linkDir, s), verb: "makes a link to"}); d != nil {
						return d
					}
				}
			}
		}
	}
	if prog == "rsync" && p.Has("delete", "delete-before", "delete-during", "delete-after", "delete-delay", "del", "delete-excluded") {
		if d := check(guardOp{word: dest, verb: "deletes files in", tree: true, removal: true}); d != nil {
			return d
		}
	}
	verb := "writes"
	switch prog {
	case "mv":
		verb = "moves a file onto"
	case "ln":
		verb = "makes a link at"
	}
	for _, s := range sources {
		name, remote := shellcmd.Remote(s) // another host's: its name is known, not what it holds
		if !remote {
			name = s
		}
		w := dest
		contents := prog == "rsync" && strings.HasSuffix(s, "/") || prog == "cp" && (strings.HasSuffix(s, "/.") || s == ".")
		switch {
		case c.Parents && !path.IsAbs(name):
			w = strings.TrimSuffix(dest, "/") + "/" + path.Clean(name) // cp --parents a/b/c d writes d/a/b/c
		case toDir && !contents:
			w = strings.TrimSuffix(dest, "/") + "/" + path.Base(strings.TrimSuffix(name, "/"))
		}
		op := guardOp{word: w, verb: verb, follow: prog != "ln" && prog != "mv", removal: true}
		switch {
		case recursive && prog == "ln":
		case recursive && (remote || shellcmd.DynamicWord(s) || !g.existsAnywhere(s)):
			// What lands there is not known here: another host's folder,
			// one named at run time, or one the line makes first (mkdir
			// -p e/.claude && … && cp -r e/.claude .).
			op.tree, op.unknown = true, true
		case recursive:
			op.tree = true
			op.src = s
		}
		if d := g.copyCheck(op, cwds, check); d != nil {
			return d
		}
	}
	return nil
}

// archiveOps checks what tar and unzip write: the members they extract
// (named, or, when none is and they extract into a folder named, whatever
// the archive holds, which is not known here: every protected path in
// that folder counts), and the archive tar writes. An archive extracted
// whole where the command runs is left alone, as npm install is: what it
// writes is only known when it runs, which enforced mode bounds.
func archiveOps(prog string, args []string, check func(guardOp) *Denial) *Denial {
	var dir string
	var members []string
	absolute := false // a member's leading / is kept (tar -P)
	switch prog {
	case "unzip":
		if x := slices.Index(args, "-x"); x >= 0 { // -x FILES...: left out, up to the next option
			end := x + 1
			for end < len(args) && !strings.HasPrefix(args[end], "-") {
				end++
			}
			args = append(slices.Clip(args[:x]), args[end:]...)
		}
		p := opts(prog).Split(args)
		if p.Has("l", "t", "v", "p", "z", "Z") || len(p.Operands) == 0 {
			return nil // lists, tests or prints: nothing written
		}
		for _, d := range p.Values("d") {
			dir = d
		}
		members = p.Operands[1:]
	default:
		t := shellcmd.TarRoles(args)
		if t.Writes && t.Archive != "" && t.Archive != "-" {
			return check(guardOp{word: t.Archive, verb: "writes", follow: true, removal: true})
		}
		if !t.Extract {
			return nil
		}
		dir, members, absolute = t.Dir, t.Members, t.Absolute
	}
	if len(members) == 0 {
		if dir == "" || path.Clean(dir) == "." {
			return nil
		}
		return check(guardOp{word: dir, verb: "extracts an archive into", tree: true, unknown: true, removal: true})
	}
	for _, m := range members {
		w := path.Join(dir, m) // tar and unzip drop a member's leading /
		if absolute && path.IsAbs(m) {
			w = m
		}
		if d := check(guardOp{word: w, verb: "extracts", tree: true, removal: true}); d != nil {
			return d
		}
	}
	return nil
}

// copyCheck checks a copy's destination; a recursive copy's source is made
// absolute for each candidate directory first.
func (g *guarder) copyCheck(op guardOp, cwds []string, check func(guardOp) *Denial) *Denial {
	if op.src == "" {
		return check(op)
	}
	src := op.src
	op.src = ""
	// A recursive copy writes its destination and, below it, what the
	// source holds.
	if d := check(guardOp{word: op.word, verb: op.verb, follow: op.follow, removal: op.removal}); d != nil {
		return d
	}
	for _, c := range cwds {
		for _, s := range g.expand(src, c, false) {
			o := op
			o.src = filepath.Clean(s)
			if d := check(o); d != nil {
				return d
			}
		}
	}
	return nil
}

func (g *guarder) eachCheck(words []string, op guardOp, check func(guardOp) *Denial) *Denial {
	for _, w := range words {
		op.word = w
		if d := check(op); d != nil {
			return d
		}
	}
	return nil
}

// existsAnywhere reports whether word names an existing file or folder
// from the command's directory.
func (g *guarder) existsAnywhere(word string) bool {
	for _, p := range g.expand(word, g.cwd, true) {
		if !g.spend() {
			return true // out of budget: judged by what it names, as before
		}
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// isDirAnywhere reports whether word names an existing folder from the
// command's directory.
func (g *guarder) isDirAnywhere(word string) bool {
	for _, p := range g.expand(word, g.cwd, true) {
		if !g.spend() {
			return false
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// gitSubcommand finds git's subcommand after its global options (the one
// table of them, shellcmd.GitSplit), and the index of the word after it.
func gitSubcommand(args []string) (string, int) {
	_, sub, rest := shellcmd.GitSplit(args)
	if sub == "" {
		return "", len(args)
	}
	return sub, len(args) - len(rest)
}

// gitOps checks git subcommands that write the work tree by path:
// checkout and restore of protected paths, rm, mv, clean -x, apply, am,
// config --file.
func (g *guarder) gitOps(args []string, cwds []string) *Denial {
	globals, _, _ := shellcmd.GitSplit(args)
	for _, dir := range shellcmd.GitChdirs(globals) {
		cwds = g.rebase(cwds, dir)
	}
	sub, next := gitSubcommand(args)
	if sub == "" {
		return nil
	}
	rest := args[next:]
	check := func(op guardOp) *Denial { return g.checkGitPath(op, cwds) }
	switch sub {
	case "checkout", "restore":
		spec := shellcmd.GitOptions(sub)
		// Pathspecs: everything after --; before it, any operand that
		// names a protected path (the others name branches and commits).
		var specs []string
		dashdash := -1
		for k, a := range rest {
			if a == "--" {
				dashdash = k
				break
			}
		}
		if dashdash >= 0 {
			specs = append(specs, rest[dashdash+1:]...)
			specs = append(specs, spec.Split(rest[:dashdash]).Operands...)
		} else {
			specs = spec.Split(rest).Operands
		}
		return g.eachCheck(specs, guardOp{verb: "restores", follow: true, tree: true, removal: true, pathspec: true}, check)
	case "clone":
		// The new folder holds what the other repository holds.
		p := shellcmd.GitOptions(sub).Split(rest)
		if len(p.Operands) < 2 {
			return nil // into a new folder named after the repository
		}
		return check(guardOp{word: p.Operands[1], verb: "clones a repository into", tree: true, unknown: true, removal: true})
	case "stash":
		// git stash --all stashes ignored files away too, as git clean -x
		// removes them: agent-shell's own folders are ignored files. The
		// paths it is given are put back as committed.
		words, save := rest, len(rest) > 0 && rest[0] == "save"
		if len(words) > 0 && (words[0] == "push" || save) {
			words = words[1:]
		} else if len(words) > 0 && !strings.HasPrefix(words[0], "-") {
			return nil // list, show, pop, apply, drop...
		}
		p := shellcmd.GitOptions("stash push").Split(words)
		specs := p.Operands
		if save {
			specs = nil // git stash save's words are its message, not pathspecs
		}
		if !p.Has("a", "all") {
			// The paths named go back to their committed version (and
			// untracked ones, with -u, away), as git checkout -- PATHS does.
			return g.eachCheck(specs, guardOp{verb: "stashes away", follow: true, tree: true, removal: true, pathspec: true}, check)
		}
		if len(specs) == 0 {
			specs = []string{"."}
		}
		return g.eachCheck(specs, guardOp{verb: "stashes away (with ignored files)", tree: true, removal: true}, check)
	case "worktree":
		// git worktree add PATH: the new folder holds a checkout.
		if len(rest) == 0 || rest[0] != "add" {
			return nil
		}
		p := shellcmd.GitOptions("worktree add").Split(rest[1:])
		if len(p.Operands) == 0 {
			return nil
		}
		return check(guardOp{word: p.Operands[0], verb: "checks a work tree out into", tree: true, unknown: true, removal: true})
	case "rm":
		p := shellcmd.GitOptions(sub).Split(rest)
		verb := "removes"
		if p.Has("cached") {
			// The file stays here, but the next commit deletes it in every
			// other clone that pulls it.
			verb = "removes from git's index"
		}
		return g.eachCheck(p.Operands, guardOp{verb: verb, tree: p.Has("r"), removal: true}, check)
	case "mv":
		p := shellcmd.GitOptions(sub).Split(rest)
		return g.eachCheck(p.Operands, guardOp{verb: "moves", tree: true, removal: true}, check)
	case "clean":
		p := shellcmd.GitOptions(sub).Split(rest)
		if p.Has("n", "dry-run") || !p.Has("x", "X") {
			// Ignored files stay; untracked ones named outright do not.
			if p.Has("n", "dry-run") {
				return nil
			}
			return g.eachCheck(p.Operands, guardOp{verb: "removes", removal: true}, check)
		}
		specs := p.Operands
		if len(specs) == 0 {
			specs = []string{"."}
		}
		return g.eachCheck(specs, guardOp{verb: "removes (with ignored files)", tree: true, removal: true}, check)
	case "apply", "am":
		g.patchy = true
		for _, o := range shellcmd.GitOptions(sub).Split(rest).Operands {
			for _, c := range cwds {
				g.patchFiles = append(g.patchFiles, patchFile{path: o, base: c})
			}
		}
	case "config":
		p := shellcmd.GitOptions(sub).Split(rest)
		if p.Has("get", "get-all", "get-regexp", "get-urlmatch", "l", "list", "e", "edit") && !p.Has("e", "edit") {
			return nil
		}
		return g.eachCheck(p.Values("f", "file"), guardOp{verb: "writes", follow: true, removal: true}, check)
	}
	return nil
}

// checkGitPath checks a pathspec: ":/" and ":(top)" make it root-relative,
// ":!" excludes (ignored), and a glob matches across folders as git's do.
func (g *guarder) checkGitPath(op guardOp, cwds []string) *Denial {
	w := op.word
	switch {
	case strings.HasPrefix(w, ":!") || strings.HasPrefix(w, ":^") || strings.HasPrefix(w, ":(exclude"):
		return nil
	case strings.HasPrefix(w, ":/"):
		w, cwds = w[2:], []string{g.root}
	case strings.HasPrefix(w, ":(top)"):
		w, cwds = w[len(":(top)"):], []string{g.root}
	case strings.HasPrefix(w, ":("):
		if j := strings.IndexByte(w, ')'); j > 0 {
			w = w[j+1:]
		}
	}
	if w == "" {
		w = "."
	}
	op.word = w
	if d := g.checkOp(op, cwds); d != nil {
		return d
	}
	if !hasGlobMeta(w) || shellcmd.DynamicWord(w) || g.root == "" {
		return nil
	}
	// A git pathspec glob's * also matches /: test it against the
	// protected paths that exist.
	for _, c := range cwds {
		relBase, ok := within(g.root, c)
		if !ok {
			continue
		}
		pat := w
		if relBase != "" {
			pat = relBase + "/" + w
		}
		re, err := gitGlobRE(pat)
		if err != nil {
			continue
		}
		for k := range rootGuarded.Get() {
			e := &rootGuarded.Get()[k]
			for _, target := range g.existingFiles(e) {
				if re.MatchString(strings.ToLower(target)) || re.MatchString(target) {
					if d := g.denyPath(e, target, op.verb); d != nil {
						return d
					}
				}
			}
		}
	}
	return nil
}

// gitGlobRE compiles a pathspec glob the way git matches it by default
// (fnmatch without FNM_PATHNAME: * and ? match / too).
func gitGlobRE(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(pat[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// npmOps checks npm's (and pnpm's, yarn's) ways to change script-shell: the
// config commands, and the per-command --script-shell override.
func (g *guarder) npmOps(prog string, args []string) *Denial {
	for _, a := range args {
		n := strings.ToLower(strings.ReplaceAll(a, "_", "-"))
		if n == "--script-shell" || strings.HasPrefix(n, "--script-shell=") {
			return g.denyNpm("--script-shell", "overrides script-shell with "+a)
		}
		if (n == "--userconfig" || strings.HasPrefix(n, "--userconfig=")) && g.userNpmrcHasLine() {
			return g.denyNpm("--userconfig", "reads another user configuration than ~/.npmrc, whose script-shell line it drops, with "+a)
		}
	}
	var ops []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	verb := ""
	keys := ops[1:]
	switch ops[0] {
	case "config", "c":
		if len(ops) < 2 {
			return nil
		}
		verb, keys = ops[1], ops[2:]
	case "set", "delete", "unset":
		verb = ops[0]
	default:
		return nil
	}
	switch verb {
	case "set", "delete", "rm", "unset", "del":
		for _, k := range keys {
			name, _, _ := strings.Cut(k, "=")
			n := strings.ToLower(strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-"))
			if n == "script-shell" {
				return g.denyNpm("script-shell", fmt.Sprintf("runs %s config %s %s", prog, verb, name))
			}
		}
	case "edit":
		for _, a := range args {
			if strings.Contains(a, "project") {
				return g.denyNpm(".npmrc", fmt.Sprintf("runs %s config edit on the project's .npmrc", prog))
			}
		}
		if g.userNpmrcHasLine() {
			return g.denyNpm("~/.npmrc", fmt.Sprintf("runs %s config edit on ~/.npmrc, which sets script-shell", prog))
		}
	}
	return nil
}

// claudeOps: a nested Claude Code session started without the project's
// settings (--setting-sources without project) or with settings that
// change hooks (--settings '{"disableAllHooks": true}', inline or a
// file), and claude config set of a hooks key, would run tool calls that
// agent-shell's hooks never see.
func (g *guarder) claudeOps(args []string, cwds []string) *Denial {
	deny := func(what string) *Denial {
		return g.deny(HookRegistration, ".claude/settings.json", fmt.Sprintf("agent-shell guard %s: %s %s, so the hooks that run agent-shell would not see its tool calls; a human starts Claude Code so.",
			HookRegistration, g.subject, what))
	}
	if len(args) > 2 && args[0] == "config" {
		for _, k := range args[2:] {
			if strings.Contains(strings.ToLower(k), "hook") {
				return deny("runs claude config " + args[1] + " " + k)
			}
		}
	}
	for i, a := range args {
		name, v, eq := strings.Cut(a, "=")
		if !eq && i+1 < len(args) {
			v = args[i+1]
		}
		switch name {
		case "--setting-sources":
			if !strings.Contains(v, "project") {
				return deny("starts Claude Code with --setting-sources " + v + ", without the project's settings")
			}
		case "--settings":
			text := v
			if !strings.HasPrefix(strings.TrimSpace(v), "{") {
				for _, b := range g.readFrom(v, cwds, 1<<20) {
					text += string(b)
				}
			}
			if shellcmd.DynamicWord(v) || strings.Contains(strings.ToLower(text), "hook") {
				return deny("starts Claude Code with --settings " + v + ", which may change its hooks")
			}
		}
	}
	return nil
}

// exWrites lists the files an editor's Ex commands (vim -c 'w! FILE',
// +'wq FILE', commands joined by |) write by name.
func exWrites(cmds string) []string {
	var files []string
	for _, c := range strings.Split(cmds, "|") {
		c = strings.TrimLeft(c, " \t:")
		n := 0
		for n < len(c) && (c[n] >= 'a' && c[n] <= 'z') {
			n++
		}
		switch c[:n] {
		case "w", "write", "wq", "x", "xit", "exi", "exit", "sav", "saveas", "up", "update":
		default:
			continue
		}
		f := strings.TrimSpace(strings.TrimPrefix(c[n:], "!"))
		f = strings.TrimSpace(strings.TrimPrefix(f, ">>"))
		if f != "" && !strings.HasPrefix(f, "!") { // w !cmd pipes the buffer to a command
			files = append(files, f)
		}
	}
	return files
}
