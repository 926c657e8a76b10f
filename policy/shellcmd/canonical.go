package shellcmd

import (
	"slices"
	"strings"
)

// Canonical returns argv (a normalized command, such as [Command.Argv] or
// one of [Command.Layers], or the words of a policy pattern) with its
// options in one canonical form, so that a matcher that canonicalizes both
// the pattern and the command and then compares them treats spellings of
// the same command alike. It never modifies argv.
//
// The contract:
//
//   - Wrappers are kept as written, but each program word is reduced to its
//     basename, and the wrapped command (after sudo, env, timeout, xargs,
//     ...; the same unwrapping as [Parse]) is canonicalized as below. So
//     "sudo rm -fr /" becomes "sudo rm -f -r /".
//   - Only programs in a fixed table have their options rewritten: rm, cp,
//     mv, ln, chmod, chown, chgrp, mkdir, rmdir, touch, truncate, shred, ls,
//     grep (egrep, fgrep), curl, and git with the subcommands push, clean,
//     reset, checkout, switch, branch, commit, add, rm, rebase, fetch, tag.
//     Any other program is returned as it is: a cluster such as -n5 or
//     -xzf may carry a value, and guessing would make two different
//     commands equal.
//   - For git, global options before the subcommand that only pick the
//     repository or the pager are dropped (-C DIR, --git-dir, --work-tree,
//     --namespace, --no-pager, -p, -P, --paginate, --bare,
//     --*-pathspecs, --no-optional-locks, --no-advice): "git -C dir push
//     --force" is "git push -f". Options that can run code (-c NAME=VALUE,
//     --config-env, --exec-path) are kept in place ("git -c k=v push -f"),
//     so such a command never equals the plain one: an allow rule for
//     "git push*" must not cover it (and a deny "git push --force*" does
//     not see it either; deny on "git -c*" if that matters). A "+refspec"
//     operand of git push adds -f, since it forces that ref, and so does
//     --mirror, which forces every ref.
//   - For a table program, the arguments are rearranged the way GNU getopt
//     (and git's parse-options) reads them, which lets options follow
//     operands: first the short boolean flags, one per word, each once,
//     sorted by byte (so -R sorts before -f before -r); then other options
//     kept as written (long options without a short form, such as
//     --no-preserve-root or --force-with-lease, and words that are not a
//     clean cluster), sorted; then options with a value, each as two words
//     "-m" "VALUE", in their original order; then "--" if an operand starts
//     with "-"; then the operands in order; last, a value option whose value
//     is missing.
//   - Clusters are split only when every letter is a known flag of that
//     program; the first letter that takes a value ends the cluster (the
//     rest of the word, or the next word, is its value): "git commit -am
//     msg" is "git commit -a -m msg".
//   - Long options with a short equivalent become it (--recursive is -r,
//     --message=x and --message x are -m x), and some letters are aliases
//     (rm -R is -r; git branch -D is -d -f).
//   - Glob-suffixed long options in patterns: a word "--LONG*" whose LONG
//     has a one-letter boolean equivalent -X becomes "-X*", placed with the
//     flags, so the pattern "git push --force*" covers "git push -f". Any
//     other word containing "*" is kept as written.
//
// Canonical is idempotent. With the reference tool's anchored "*" glob, a
// deny pattern "rm -rf *" (canonical "rm -f -r *") matches "rm -fr /",
// "rm -r -f /", "/bin/rm -Rf /" and "rm --recursive --force /"; a command
// with extra flags ("rm -rfv /", canonical "rm -f -r -v /") needs a matcher
// that compares flags as a set, which the one-flag-per-word form allows.
func Canonical(argv []string) []string {
	if len(argv) == 0 {
		return []string{}
	}
	return canonicalUnwrapped(unwrap(lits(argv), ""), canonSimple)
}

// canonicalUnwrapped writes an unwrapped command as Canonical does: each
// wrapper's program reduced to its name and its arguments as written, then
// the innermost command through inner.
func canonicalUnwrapped(u unwrapped, inner func([]string) []string) []string {
	flat, starts := u.flat, u.starts
	if u.implied != "" { // xargs alone: do not write the implied echo
		flat, starts = flat[:len(flat)-1], starts[:len(starts)-1]
	}
	last := starts[len(starts)-1]
	out := make([]string, 0, len(flat)+2)
	for i, w := range flat[:last] {
		if slices.Contains(starts, i) {
			out = append(out, progName(w))
		} else {
			out = append(out, w.s)
		}
	}
	innermost := strs(flat[last:])
	innermost[0] = progName(flat[last])
	return append(out, inner(innermost)...)
}

// CanonicalShape is [Canonical] for the shapes of a layer (see
// [Command.Shapes]): a template that the canonical form of every run-time
// value of the layer fits, where a [Hole] stands for any text within one
// word and a [Spread] for any text at all. Where a run-time part may be an
// option of a program whose options Canonical rearranges (rm $F x, git
// reset $M, git push origin $B, whose $B may be +main), or git's
// subcommand or configuration (git $X, git -c "$K"), what follows the
// program (and git's subcommand) may be anything: the template ends there
// with a lone Spread. It never modifies shape.
func CanonicalShape(shape []string) []string {
	if len(shape) == 0 {
		return []string{}
	}
	words := make([]word, len(shape))
	for i, s := range shape {
		words[i] = shapeWord(s)
	}
	u := unwrap(words, "")
	if u.unknown != "" {
		return []string{string(Spread)}
	}
	return canonicalUnwrapped(u, canonShape)
}

// JoinShape joins the words of a template (shapes, or what CanonicalShape
// returns) with spaces, as a matcher joins a command's words, but a word
// that may vanish at run time (one that is only markers, a Spread among
// them: $F, "$@") takes no space of its own: the Spread stands for the
// spaces around its words too, so "rm … x" fits both "rm x" and "rm -rf x".
func JoinShape(words []string) string {
	var b strings.Builder
	sep := false // a space is due before the next word
	for _, w := range words {
		if strings.Trim(w, markers) == "" && strings.IndexByte(w, Spread) >= 0 {
			b.WriteString(w)
			continue
		}
		if sep {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		sep = true
	}
	return b.String()
}

// shapeWord reads a shape back as a word: dynamic when it holds a marker,
// and may split when it holds a Spread.
func shapeWord(s string) word {
	if strings.IndexAny(s, markers) < 0 {
		return word{s: s}
	}
	return word{s: s, shape: s, dyn: true, multi: strings.IndexByte(s, Spread) >= 0}
}

// canonShape is canonSimple for one unwrapped layer's shapes.
func canonShape(argv []string) []string {
	prog, args := argv[0], argv[1:]
	out := []string{prog}
	spec := specFor(prog)
	if prog == "git" {
		kept, rest, ok := gitGlobalShapes(args)
		out = append(out, kept...)
		switch {
		case !ok || len(rest) > 0 && strings.IndexAny(rest[0], markers) >= 0:
			return append(out, string(Spread)) // configuration or subcommand known at run time only
		case len(rest) == 0 || strings.HasPrefix(rest[0], "-"):
			return append(out, rest...)
		}
		out = append(out, rest[0])
		spec, args = gitSpec(rest[0]), rest[1:]
	}
	if spec == nil {
		return append(out, args...)
	}
	arranged, loose := spec.arrange(args, true)
	if loose {
		return append(out, string(Spread))
	}
	return append(out, arranged...)
}

// gitGlobalShapes is gitGlobals for shapes; ok is false when a run-time
// part may be configuration (git -c "$K", git -"$X") rather than a
// directory (git -C "$D"), or more or fewer words (git -C $D).
func gitGlobalShapes(args []string) (kept, rest []string, ok bool) {
	for len(args) > 0 {
		n, keep := gitGlobal(args)
		if n == 0 {
			break
		}
		value := args[n-1]
		if strings.IndexAny(args[0], markers) >= 0 || strings.IndexByte(value, Spread) >= 0 ||
			keep && strings.IndexAny(value, markers) >= 0 {
			return nil, nil, false
		}
		if keep {
			kept = append(kept, args[:n]...)
		}
		args = args[n:]
	}
	return kept, args, true
}

// canonSimple canonicalizes one unwrapped command.
func canonSimple(argv []string) []string {
	prog, args := argv[0], argv[1:]
	out := []string{prog}
	spec := specFor(prog)
	if prog == "git" {
		var kept []string
		kept, args = gitGlobals(args)
		out = append(out, kept...)
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return append(out, args...)
		}
		out = append(out, args[0])
		spec, args = gitSpec(args[0]), args[1:]
	}
	if spec == nil {
		return append(out, args...)
	}
	return append(out, spec.canon(args)...)
}

// gitGlobals reads git's global options before the subcommand. Those that
// only choose a repository, a work tree or the pager are dropped; those
// that can run code (-c, --config-env, --exec-path) are kept. It returns
// the kept words and the arguments from the subcommand on.
func gitGlobals(args []string) (kept, rest []string) {
	for len(args) > 0 {
		n, keep := gitGlobal(args)
		if n == 0 {
			break
		}
		if keep {
			kept = append(kept, args[:n]...)
		}
		args = args[n:]
	}
	return kept, args
}

// gitGlobal reads the global option of git at args[0], if it is one: n is
// how many words it takes (0: none, it is not a global option, or its value
// is missing), keep reports one that can run code (-c, --config-env,
// --exec-path). It is the one table of git's global options.
func gitGlobal(args []string) (n int, keep bool) {
	a := args[0]
	switch {
	case a == "-c" || a == "--config-env":
		if len(args) < 2 {
			return 0, false
		}
		return 2, true
	case a == "--exec-path" || strings.HasPrefix(a, "--config-env=") || strings.HasPrefix(a, "--exec-path=") ||
		len(a) > 2 && strings.HasPrefix(a, "-c"):
		return 1, true
	case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--super-prefix":
		if len(args) < 2 {
			return 0, false
		}
		return 2, false
	case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree=") ||
		strings.HasPrefix(a, "--namespace=") || strings.HasPrefix(a, "--super-prefix=") ||
		a == "--no-pager" || a == "-p" || a == "--paginate" || a == "-P" || a == "--bare" ||
		a == "--no-replace-objects" || a == "--literal-pathspecs" || a == "--glob-pathspecs" ||
		a == "--noglob-pathspecs" || a == "--icase-pathspecs" || a == "--no-optional-locks" ||
		a == "--no-advice" || a == "--no-lazy-fetch" || len(a) > 2 && strings.HasPrefix(a, "-C"):
		return 1, false
	}
	return 0, false
}

// GitGlobal is gitGlobal for the other packages: how many words the global
// option of git at args[0] takes (0 when it is none), and whether it can
// run code.
func GitGlobal(args []string) (n int, runsCode bool) { return gitGlobal(args) }

// GitChdirs lists the folders git's -C options in globals (as GitSplit
// returns them) move into, in order: each relative to the one before.
func GitChdirs(globals []string) []string {
	var dirs []string
	for i := 0; i < len(globals); {
		n, _ := gitGlobal(globals[i:])
		if n == 0 {
			break
		}
		switch a := globals[i]; {
		case a == "-C" && n == 2:
			dirs = append(dirs, globals[i+1])
		case len(a) > 2 && strings.HasPrefix(a, "-C"):
			dirs = append(dirs, a[2:])
		}
		i += n
	}
	return dirs
}

// GitSplit splits the arguments of git (its argv without the program) into
// its global options as written (-C DIR, -c NAME=VALUE, --git-dir[=]DIR,
// --work-tree, --namespace, --super-prefix, --config-env, --exec-path[=],
// --no-pager, -p, -P, --paginate, --bare, the pathspec switches,
// --no-optional-locks, --no-replace-objects, --no-advice, --no-lazy-fetch),
// the subcommand, and the subcommand's arguments. sub is "" when no word
// follows the global options, or when the first that does is an option
// git's table here does not know (--version, or an option missing its
// value): rest then starts with it, so no word is lost. The slices share
// storage with args.
func GitSplit(args []string) (globals []string, sub string, rest []string) {
	i := 0
	for i < len(args) {
		n, _ := gitGlobal(args[i:])
		if n == 0 {
			break
		}
		i += n
	}
	globals, rest = args[:i:i], args[i:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub, rest = rest[0], rest[1:]
	}
	return globals, sub, rest
}

// flagSpec is what Canonical knows of one program's options.
type flagSpec struct {
	bools  string      // short boolean flags
	values string      // short flags that take a value
	alias  []flagAlias // letters that mean other letters
	long   []longFlag  // long options with short equivalents
	// more lists the other long options (names without "--", space
	// separated). With abbrev, a long option may be written as an
	// unambiguous prefix of one of long or more, as getopt_long and git's
	// parse-options accept (rm --rec --for, git reset --har).
	more   string
	abbrev bool
}

type flagAlias struct {
	from byte
	to   string
}

// longFlag maps "--name" (or an exact "--name=value") to short letters.
type longFlag struct {
	name  string
	short string
}

// specFor returns the table entry of a program, or nil. A switch, not a
// map, so that nothing is built at package initialisation.
func specFor(prog string) *flagSpec {
	switch prog {
	case "rm":
		return &rmSpec
	case "cp":
		return &cpSpec
	case "mv":
		return &mvSpec
	case "ln":
		return &lnSpec
	case "chmod":
		return &chmodSpec
	case "chown", "chgrp":
		return &chownSpec
	case "mkdir":
		return &mkdirSpec
	case "rmdir":
		return &rmdirSpec
	case "touch":
		return &touchSpec
	case "truncate":
		return &truncateSpec
	case "shred":
		return &shredSpec
	case "ls":
		return &lsSpec
	case "grep", "egrep", "fgrep":
		return &grepSpec
	case "curl":
		return &curlSpec
	}
	return nil
}

func gitSpec(sub string) *flagSpec {
	switch sub {
	case "push":
		return &gitPushSpec
	case "clean":
		return &gitCleanSpec
	case "reset":
		return &gitResetSpec
	case "checkout":
		return &gitCheckoutSpec
	case "switch":
		return &gitSwitchSpec
	case "branch":
		return &gitBranchSpec
	case "commit":
		return &gitCommitSpec
	case "add":
		return &gitAddSpec
	case "rm":
		return &gitRmSpec
	case "rebase":
		return &gitRebaseSpec
	case "fetch":
		return &gitFetchSpec
	case "tag":
		return &gitTagSpec
	}
	return nil
}

var (
	rmSpec = flagSpec{abbrev: true, more: "one-file-system no-preserve-root preserve-root help version",
		bools: "dfiIrv",
		alias: []flagAlias{{'R', "r"}},
		long: []longFlag{{"--force", "f"}, {"--recursive", "r"}, {"--dir", "d"}, {"--verbose", "v"},
			{"--interactive", "i"}, {"--interactive=always", "i"}, {"--interactive=once", "I"}},
	}
	cpSpec = flagSpec{abbrev: true, more: "attributes-only backup copy-contents debug no-preserve parents preserve reflink remove-destination sparse strip-trailing-slashes context keep-directory-symlink help version",
		bools: "abdfHilLnPprsTuvxZ", values: "St",
		alias: []flagAlias{{'R', "r"}},
		long: []longFlag{{"--recursive", "r"}, {"--force", "f"}, {"--archive", "a"}, {"--interactive", "i"},
			{"--no-clobber", "n"}, {"--verbose", "v"}, {"--link", "l"}, {"--symbolic-link", "s"},
			{"--update", "u"}, {"--dereference", "L"}, {"--no-dereference", "P"}, {"--one-file-system", "x"},
			{"--target-directory", "t"}, {"--suffix", "S"}, {"--no-target-directory", "T"}},
	}
	mvSpec = flagSpec{abbrev: true, more: "backup context debug exchange no-copy strip-trailing-slashes help version",
		bools: "bfinTuvZ", values: "St",
		long: []longFlag{{"--force", "f"}, {"--interactive", "i"}, {"--no-clobber", "n"}, {"--verbose", "v"},
			{"--update", "u"}, {"--target-directory", "t"}, {"--suffix", "S"}, {"--no-target-directory", "T"}},
	}
	lnSpec = flagSpec{abbrev: true, more: "backup help version",
		bools: "bdFfinLPrsTv", values: "St",
		long: []longFlag{{"--symbolic", "s"}, {"--force", "f"}, {"--no-dereference", "n"}, {"--interactive", "i"},
			{"--verbose", "v"}, {"--relative", "r"}, {"--logical", "L"}, {"--physical", "P"}, {"--directory", "d"},
			{"--target-directory", "t"}, {"--suffix", "S"}, {"--no-target-directory", "T"}},
	}
	// chmod's modes look like flags (-w, -rwx): only these letters are
	// flags, and a cluster with any other letter stays an operand.
	chmodSpec = flagSpec{abbrev: true, more: "no-preserve-root preserve-root reference help version",
		bools: "cfvR",
		long:  []longFlag{{"--recursive", "R"}, {"--changes", "c"}, {"--silent", "f"}, {"--quiet", "f"}, {"--verbose", "v"}},
	}
	chownSpec = flagSpec{abbrev: true, more: "dereference from no-preserve-root preserve-root reference help version",
		bools: "cfhHLPRv",
		long: []longFlag{{"--recursive", "R"}, {"--changes", "c"}, {"--silent", "f"}, {"--quiet", "f"},
			{"--verbose", "v"}, {"--no-dereference", "h"}},
	}
	mkdirSpec    = flagSpec{abbrev: true, more: "context help version", bools: "pvZ", values: "m", long: []longFlag{{"--parents", "p"}, {"--verbose", "v"}, {"--mode", "m"}}}
	rmdirSpec    = flagSpec{abbrev: true, more: "ignore-fail-on-non-empty help version", bools: "pv", long: []longFlag{{"--parents", "p"}, {"--verbose", "v"}}}
	touchSpec    = flagSpec{abbrev: true, more: "time help version", bools: "acfhm", values: "dtr", long: []longFlag{{"--no-create", "c"}, {"--date", "d"}, {"--reference", "r"}, {"--no-dereference", "h"}}}
	truncateSpec = flagSpec{abbrev: true, more: "help version", bools: "co", values: "rs", long: []longFlag{{"--no-create", "c"}, {"--io-blocks", "o"}, {"--reference", "r"}, {"--size", "s"}}}
	shredSpec    = flagSpec{abbrev: true, more: "random-source help version",
		bools: "fuvxz", values: "ns",
		long: []longFlag{{"--force", "f"}, {"--remove", "u"}, {"--zero", "z"}, {"--iterations", "n"}, {"--size", "s"},
			{"--verbose", "v"}, {"--exact", "x"}},
	}
	lsSpec = flagSpec{
		bools: "1aAbBcCdDfFgGhHikLlmnNopqQrRsStuUvxXZ", values: "ITw",
		long: []longFlag{{"--all", "a"}, {"--almost-all", "A"}, {"--recursive", "R"}, {"--human-readable", "h"},
			{"--reverse", "r"}, {"--directory", "d"}, {"--inode", "i"}, {"--size", "s"}, {"--dereference", "L"},
			{"--classify", "F"}},
	}
	grepSpec = flagSpec{
		bools: "abcEFGHhiIlLnoPqRrsTUvwxyZz", values: "ABCDdefm",
		long: []longFlag{{"--recursive", "r"}, {"--dereference-recursive", "R"}, {"--ignore-case", "i"},
			{"--invert-match", "v"}, {"--regexp", "e"}, {"--file", "f"}, {"--files-with-matches", "l"},
			{"--files-without-match", "L"}, {"--count", "c"}, {"--extended-regexp", "E"}, {"--fixed-strings", "F"},
			{"--basic-regexp", "G"}, {"--perl-regexp", "P"}, {"--word-regexp", "w"}, {"--line-regexp", "x"},
			{"--quiet", "q"}, {"--silent", "q"}, {"--no-messages", "s"}, {"--line-number", "n"},
			{"--with-filename", "H"}, {"--no-filename", "h"}, {"--only-matching", "o"}, {"--max-count", "m"},
			{"--after-context", "A"}, {"--before-context", "B"}, {"--context", "C"}, {"--text", "a"},
			{"--null", "Z"}, {"--null-data", "z"}},
	}
	curlSpec = flagSpec{
		bools: "0123456aBfgGiIjJklLMnNOpqRsSvVZ", values: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
		long: []longFlag{{"--output", "o"}, {"--request", "X"}, {"--header", "H"}, {"--data", "d"},
			{"--location", "L"}, {"--silent", "s"}, {"--fail", "f"}, {"--show-error", "S"}, {"--insecure", "k"},
			{"--include", "i"}, {"--head", "I"}, {"--remote-name", "O"}, {"--user", "u"}, {"--upload-file", "T"},
			{"--verbose", "v"}, {"--form", "F"}, {"--user-agent", "A"}, {"--cookie", "b"}, {"--proxy", "x"},
			{"--max-time", "m"}, {"--referer", "e"}, {"--range", "r"}, {"--get", "G"}},
	}

	gitPushSpec = flagSpec{abbrev: true, more: "all branches mirror tags follow-tags no-follow-tags atomic no-atomic force-with-lease no-force-with-lease force-if-includes no-force-if-includes receive-pack exec repo prune no-verify verify porcelain progress no-progress recurse-submodules no-recurse-submodules signed no-signed thin no-thin ipv4 ipv6",
		bools: "dfnquv", values: "o",
		long: []longFlag{{"--force", "f"}, {"--delete", "d"}, {"--dry-run", "n"}, {"--quiet", "q"},
			{"--verbose", "v"}, {"--set-upstream", "u"}, {"--push-option", "o"}},
	}
	gitCleanSpec = flagSpec{abbrev: true, more: "no-quiet",
		bools: "dfinqXx", values: "e",
		long: []longFlag{{"--force", "f"}, {"--dry-run", "n"}, {"--quiet", "q"}, {"--interactive", "i"}, {"--exclude", "e"}},
	}
	gitResetSpec    = flagSpec{abbrev: true, more: "hard soft mixed merge keep no-refresh refresh recurse-submodules no-recurse-submodules pathspec-from-file pathspec-file-nul unified inter-hunk-context", bools: "Npq", long: []longFlag{{"--quiet", "q"}, {"--patch", "p"}, {"--intent-to-add", "N"}}}
	gitCheckoutSpec = flagSpec{abbrev: true, more: "detach guess no-guess orphan ours theirs conflict ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore no-overwrite-ignore recurse-submodules no-recurse-submodules progress no-progress no-track overlay no-overlay pathspec-from-file pathspec-file-nul",
		bools: "fmpqt", values: "bB",
		long: []longFlag{{"--force", "f"}, {"--merge", "m"}, {"--patch", "p"}, {"--quiet", "q"}, {"--track", "t"}},
	}
	gitSwitchSpec = flagSpec{abbrev: true, more: "guess no-guess orphan conflict ignore-other-worktrees progress no-progress recurse-submodules no-recurse-submodules no-track",
		bools: "dfmqt", values: "cC",
		long: []longFlag{{"--create", "c"}, {"--force-create", "C"}, {"--detach", "d"}, {"--force", "f"},
			{"--discard-changes", "f"}, {"--merge", "m"}, {"--quiet", "q"}, {"--track", "t"}},
	}
	gitBranchSpec = flagSpec{abbrev: true, more: "abbrev no-abbrev color no-color column no-column contains no-contains create-reflog edit-description format merged no-merged points-at show-current sort unset-upstream omit-empty recurse-submodules",
		bools: "acdfilmqrtv", values: "u",
		alias: []flagAlias{{'D', "df"}, {'M', "mf"}, {'C', "cf"}},
		long: []longFlag{{"--delete", "d"}, {"--force", "f"}, {"--move", "m"}, {"--copy", "c"}, {"--remotes", "r"},
			{"--all", "a"}, {"--list", "l"}, {"--verbose", "v"}, {"--quiet", "q"}, {"--set-upstream-to", "u"},
			{"--ignore-case", "i"}, {"--track", "t"}},
	}
	gitCommitSpec = flagSpec{abbrev: true, more: "amend author date cleanup dry-run fixup squash include only no-edit allow-empty allow-empty-message reset-author short branch porcelain long status no-status untracked-files gpg-sign no-gpg-sign trailer pathspec-from-file pathspec-file-nul no-post-rewrite verify interactive",
		bools: "aenpqsvz", values: "cCFmt",
		long: []longFlag{{"--all", "a"}, {"--message", "m"}, {"--file", "F"}, {"--no-verify", "n"}, {"--quiet", "q"},
			{"--signoff", "s"}, {"--verbose", "v"}, {"--edit", "e"}, {"--patch", "p"}, {"--reuse-message", "C"},
			{"--reedit-message", "c"}, {"--template", "t"}, {"--null", "z"}},
	}
	gitAddSpec = flagSpec{abbrev: true, more: "ignore-errors ignore-missing ignore-removal no-ignore-removal no-all refresh renormalize chmod sparse pathspec-from-file pathspec-file-nul",
		bools: "AefiNnpuv",
		long: []longFlag{{"--all", "A"}, {"--edit", "e"}, {"--force", "f"}, {"--interactive", "i"},
			{"--intent-to-add", "N"}, {"--dry-run", "n"}, {"--patch", "p"}, {"--update", "u"}, {"--verbose", "v"}},
	}
	gitRmSpec     = flagSpec{abbrev: true, more: "cached ignore-unmatch sparse pathspec-from-file pathspec-file-nul", bools: "fnqr", long: []longFlag{{"--force", "f"}, {"--dry-run", "n"}, {"--quiet", "q"}}}
	gitRebaseSpec = flagSpec{abbrev: true, more: "onto keep-base continue abort skip quit edit-todo show-current-patch apply merge empty keep-empty no-keep-empty autosquash no-autosquash autostash no-autostash committer-date-is-author-date ignore-date reset-author-date signoff root rebase-merges no-rebase-merges update-refs no-update-refs fork-point no-fork-point gpg-sign no-gpg-sign no-ff stat no-stat no-verify verify reschedule-failed-exec no-reschedule-failed-exec reapply-cherry-picks no-reapply-cherry-picks context whitespace ignore-whitespace",
		bools: "fiqv", values: "sxX",
		long: []longFlag{{"--interactive", "i"}, {"--force-rebase", "f"}, {"--quiet", "q"}, {"--verbose", "v"},
			{"--exec", "x"}, {"--strategy", "s"}, {"--strategy-option", "X"}},
	}
	gitFetchSpec = flagSpec{abbrev: true, more: "append atomic depth deepen shallow-since shallow-exclude unshallow update-shallow refetch refmap prune-tags recurse-submodules no-recurse-submodules no-tags set-upstream upload-pack update-head-ok progress server-option show-forced-updates no-show-forced-updates ipv4 ipv6 keep filter negotiation-tip negotiate-only write-fetch-head no-write-fetch-head porcelain auto-maintenance auto-gc no-auto-gc",
		bools: "afmnpqtv", values: "j",
		long: []longFlag{{"--all", "a"}, {"--force", "f"}, {"--multiple", "m"}, {"--dry-run", "n"}, {"--prune", "p"},
			{"--quiet", "q"}, {"--tags", "t"}, {"--verbose", "v"}, {"--jobs", "j"}},
	}
	gitTagSpec = flagSpec{abbrev: true, more: "list sort contains no-contains merged no-merged points-at column no-column create-reflog format color ignore-case omit-empty cleanup trailer no-sign",
		bools: "adfsv", values: "Fmu",
		long: []longFlag{{"--annotate", "a"}, {"--delete", "d"}, {"--force", "f"}, {"--sign", "s"}, {"--verify", "v"},
			{"--message", "m"}, {"--file", "F"}, {"--local-user", "u"}},
	}
)

// letters resolves one short option letter through the aliases.
func (s *flagSpec) letters(c byte) string {
	for _, a := range s.alias {
		if a.from == c {
			return a.to
		}
	}
	return string(c)
}

func (s *flagSpec) isBool(c byte) bool  { return strings.IndexByte(s.bools, c) >= 0 }
func (s *flagSpec) isValue(c byte) bool { return strings.IndexByte(s.values, c) >= 0 }

// longShort finds the short letters of a long option: first the exact
// word (--interactive=once), then its name (--message=x).
func (s *flagSpec) longShort(arg string) (short string, val string, hasVal bool, ok bool) {
	for _, l := range s.long {
		if l.name == arg {
			return l.short, "", false, true
		}
	}
	name, v, eq := strings.Cut(arg, "=")
	if !eq {
		return "", "", false, false
	}
	for _, l := range s.long {
		if l.name == name && len(l.short) == 1 && s.isValue(l.short[0]) {
			return l.short, v, true, true
		}
	}
	return "", "", false, false
}

// expandLong returns the long option a ("--name" or "--name=value") with
// its name completed when it is an unambiguous prefix of one known long
// option of the program; otherwise a as written.
func (s *flagSpec) expandLong(a string) string {
	if !s.abbrev || strings.Contains(a, "*") {
		return a
	}
	name, v, eq := strings.Cut(a[2:], "=")
	if name == "" {
		return a
	}
	full := ""
	try := func(f string) bool {
		switch {
		case f == name:
			full = ""
			return false // an exact match: a is as written
		case strings.HasPrefix(f, name) && full != "" && full != f:
			full = "\x00" // ambiguous
		case strings.HasPrefix(f, name) && full == "":
			full = f
		}
		return true
	}
	for _, l := range s.long {
		n, _, _ := strings.Cut(l.name[2:], "=")
		if !try(n) {
			return a
		}
	}
	for f := range strings.FieldsSeq(s.more) {
		if !try(f) {
			return a
		}
	}
	if full == "" || full == "\x00" {
		return a
	}
	if eq {
		return "--" + full + "=" + v
	}
	return "--" + full
}

// canon rearranges the arguments of one table program; see Canonical.
func (s *flagSpec) canon(args []string) []string {
	out, _ := s.arrange(args, false)
	return out
}

// arrange is canon; with shapes, args are shapes (see CanonicalShape), and
// loose reports a run-time part that could be an option or more words,
// which would change the arrangement: out is nil then.
func (s *flagSpec) arrange(args []string, shapes bool) (out []string, loose bool) {
	var (
		flags    []string // "-x" and "-x*", sorted later
		others   []string
		values   []string // "-m", "VALUE" pairs
		operands []string
		dangling []string // a value option with no value left
	)
	addFlag := func(f string) {
		if !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	addValue := func(c byte, val string, hasVal bool, i *int) {
		switch {
		case hasVal:
			values = append(values, "-"+string(c), val)
		case *i+1 < len(args):
			*i++
			values = append(values, "-"+string(c), args[*i])
			loose = loose || shapes && strings.IndexByte(args[*i], Spread) >= 0
		default:
			dangling = append(dangling, "-"+string(c))
		}
	}
	dashdash, after := false, len(args) // after: the operands from there on follow "--"
	inert := ""                         // a shape word that is an operand or one of others (see inertWord)
	for i := 0; i < len(args) && !loose; i++ {
		a := args[i]
		if shapes && s.mayBeOption(a, dashdash) {
			if inert != "" || !s.inertWord(a) {
				return nil, true
			}
			if inert = a; a[0] == '-' {
				continue // one of others: placed below
			}
		}
		switch {
		case dashdash || a == "-" || !strings.HasPrefix(a, "-"):
			operands = append(operands, a)
		case a == "--":
			dashdash, after = true, len(operands)
		case strings.HasPrefix(a, "--"):
			a = s.expandLong(a)
			if short, val, hasVal, ok := s.longShort(a); ok {
				if len(short) == 1 && s.isValue(short[0]) {
					addValue(short[0], val, hasVal, &i)
					continue
				}
				for j := 0; j < len(short); j++ {
					addFlag("-" + short[j:j+1])
				}
				continue
			}
			if strings.Count(a, "*") == 1 && strings.HasSuffix(a, "*") {
				if short, _, _, ok := s.longShort(a[:len(a)-1]); ok && len(short) == 1 && s.isBool(short[0]) {
					addFlag("-" + short + "*")
					continue
				}
			}
			others = append(others, a)
		case len(a) == 3 && a[2] == '*' && s.isBool(a[1]):
			addFlag(a) // "-f*", as Canonical writes a glob-suffixed long option
		default:
			if !s.cluster(a, addFlag, addValue, &i) {
				others = append(others, a)
			}
		}
	}
	if s == &gitPushSpec {
		if slices.Contains(others, "--mirror") { // every ref, forced
			addFlag("-f")
		}
		for _, o := range operands {
			if len(o) > 1 && o[0] == '+' {
				addFlag("-f")
				// "+$B" forces unless $B is empty: a lone "+" does not.
				loose = loose || shapes && strings.Trim(o[1:], markers) == ""
			}
		}
	}
	slices.SortStableFunc(flags, func(x, y string) int { return strings.Compare(x[1:], y[1:]) })
	slices.Sort(others)
	sep := separator(operands, after, shapes)
	if inert != "" {
		// Its place among others is right after the flags; as an operand,
		// it must be in the same place for one template to hold both.
		if len(others) > 0 || inert[0] != '-' && (len(values) > 0 || sep != "" || operands[0] != inert) {
			return nil, true
		}
		if inert[0] == '-' {
			others = []string{inert}
		}
	}
	if loose {
		return nil, true
	}
	out = make([]string, 0, len(args)+len(flags))
	out = append(out, flags...)
	out = append(out, others...)
	out = append(out, values...)
	if sep != "" {
		out = append(out, sep)
	}
	out = append(out, operands...)
	return append(out, dangling...), false
}

// inertWord reports a shape word (not a Spread) that can be no flag of a
// program with no option that takes a value: a character known to be in
// it (rm "$D/x" has "/") is none of a flag's, nor the * of a pattern's. Its value is an operand, or
// one of others when it starts with "-".
func (s *flagSpec) inertWord(a string) bool {
	if s.values != "" || strings.IndexByte(a, Spread) >= 0 {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if c != Hole && c != '-' && c != '=' && c != '*' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return true
		}
	}
	return false
}

// separator is the "--" that canon writes before operands when one starts
// with "-"; with shapes, an operand after "--" (from operands[after] on)
// that starts with a run-time part may, so a Spread stands for the "--"
// that may or may not be there. (Before "--", such an operand is an
// option when it starts with "-".)
func separator(operands []string, after int, shapes bool) string {
	sep := ""
	for k, o := range operands {
		switch {
		case shapes && k >= after && strings.IndexAny(o, markers) >= 0 &&
			(o[0] == Hole || o[0] == Spread || o[0] == '-' && strings.Trim(o[1:], markers) == ""):
			sep = string(Spread) // "$X" or "-$X": a lone "-" is no option
		case len(o) > 1 && o[0] == '-':
			return "--"
		}
	}
	return sep
}

// mayBeOption reports whether a shape word read where an option or an
// operand stands may, at run time, be an option of the program or more
// than one word (then any of them may be an option). After "--" only
// operands follow, but a git push operand that starts with "+" forces.
func (s *flagSpec) mayBeOption(a string, dashdash bool) bool {
	i := strings.IndexAny(a, markers)
	if i < 0 {
		return false
	}
	spread := strings.IndexByte(a, Spread) >= 0
	switch {
	case dashdash:
		return s == &gitPushSpec && (i == 0 || spread)
	case spread || i == 0:
		return true
	case a[0] != '-':
		return false // an operand: its first character is known
	case strings.HasPrefix(a, "--"):
		eq := strings.IndexByte(a, '=')
		return eq < 0 || eq > i // the run-time part is in the option's name
	}
	for j := 1; j < i; j++ { // a cluster: its letters up to the run-time part
		ls := s.letters(a[j])
		if len(ls) == 1 && s.isValue(ls[0]) {
			// The rest of the word is the option's value, unless it may be
			// empty: then the next word is.
			return strings.Trim(a[j+1:], markers) == ""
		}
	}
	return true
}

// markers are Hole and Spread, for strings.IndexAny.
const markers = string(Hole) + string(Spread)

// cluster splits a short-option word when every letter is known; the
// first letter that takes a value ends it. It adds nothing and returns
// false otherwise.
func (s *flagSpec) cluster(a string, addFlag func(string), addValue func(byte, string, bool, *int), i *int) bool {
	var found []string
	j := 1
	for ; j < len(a); j++ {
		ls := s.letters(a[j])
		if len(ls) == 1 && s.isValue(ls[0]) {
			break
		}
		for k := 0; k < len(ls); k++ {
			if !s.isBool(ls[k]) {
				return false
			}
			found = append(found, "-"+ls[k:k+1])
		}
	}
	for _, f := range found {
		addFlag(f)
	}
	if j < len(a) {
		c := s.letters(a[j])[0]
		addValue(c, a[j+1:], j+1 < len(a), i)
	}
	return true
}
