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
//     kept as written (long options without a short form and without a
//     value, such as --no-preserve-root or --force-with-lease, a short
//     option with an optional value, attached, as -uno, and words that are
//     not a clean cluster), sorted; then options with a value, each as two
//     words "-m" "VALUE" (or "--onto" "VALUE" for a long option without a
//     short form), in their original order; then "--" if an operand starts
//     with "-"; then the operands in order; last, a value option whose value
//     is missing.
//   - Which options a program has, and which take a value, comes from the
//     program-knowledge table (programs.go) that the unwrapping, the
//     guard and the effects read too.
//   - Clusters are split only when every letter is a known flag of that
//     program; the first letter that takes a value ends the cluster (the
//     rest of the word, or the next word, is its value): "git commit -am
//     msg" is "git commit -a -m msg".
//   - Long options with a short equivalent become it (--recursive is -r,
//     --message=x and --message x are -m x; --untracked-files=no is -uno),
//     and some letters are aliases
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
	innermost := strs(flat[last:])
	innermost[0] = progName(flat[last])
	if last == 0 { // no wrapper, as most commands
		return inner(innermost)
	}
	out := make([]string, 0, len(flat)+2)
	for i, w := range flat[:last] {
		if slices.Contains(starts, i) {
			out = append(out, progName(w))
		} else {
			out = append(out, w.s)
		}
	}
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
	out := make([]string, 1, len(argv))
	out[0] = prog
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
	out := make([]string, 1, len(argv))
	out[0] = prog
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

// specFor returns the options of a program whose options Canonical
// rewrites (the fixed table of its contract), or nil.
func specFor(prog string) *Options {
	switch prog {
	case "rm", "cp", "mv", "ln", "chmod", "chown", "chgrp", "mkdir", "rmdir", "touch", "truncate", "shred",
		"ls", "grep", "egrep", "fgrep", "curl":
		return ProgramOptions(prog)
	}
	return nil
}

// gitSpec is specFor for git's subcommands.
func gitSpec(sub string) *Options {
	switch sub {
	case "push", "clean", "reset", "checkout", "switch", "branch", "commit", "add", "rm", "rebase", "fetch", "tag":
		return GitOptions(sub)
	}
	return nil
}

// letters resolves one short option letter through the aliases.
func (s *Options) letters(c byte) string {
	for _, a := range s.alias {
		if a.from == c {
			return a.to
		}
	}
	return string(c)
}

func (s *Options) isBool(c byte) bool  { return strings.IndexByte(s.flags, c) >= 0 }
func (s *Options) isValue(c byte) bool { return strings.IndexByte(s.args, c) >= 0 }
func (s *Options) isOpt(c byte) bool   { return strings.IndexByte(s.opt, c) >= 0 }

// longShort finds the short letters of a long option: first the exact
// word (--interactive=once), then its name (--message=x).
func (s *Options) longShort(arg string) (short string, val string, hasVal bool, ok bool) {
	for _, l := range s.exact {
		if l.name == arg {
			return l.short, "", false, true
		}
	}
	name, v, eq := strings.Cut(arg[2:], "=")
	full, _, short := s.longOpt(name)
	switch {
	case full != name || short == "":
		return "", "", false, false
	case !eq:
		return short, "", false, true
	case len(short) == 1 && (s.isValue(short[0]) || s.isOpt(short[0])):
		return short, v, true, true
	}
	return "", "", false, false
}

// longValue reports a long option ("--name" or "--name=value", its name
// complete) that takes a value and has no short form.
func (s *Options) longValue(arg string) (name, val string, hasVal, ok bool) {
	name, val, hasVal = strings.Cut(arg[2:], "=")
	full, kind, short := s.longOpt(name)
	return "--" + name, val, hasVal, full == name && kind == '=' && short == ""
}

// hasLongValue reports a long option that takes a value.
func (s *Options) hasLongValue() bool {
	return strings.Contains(s.long, "= ") || strings.HasSuffix(s.long, "=") || strings.Contains(s.long, "=:")
}

// expandLong returns the long option a ("--name" or "--name=value") with
// its name completed when it is an unambiguous prefix of one known long
// option of the program; otherwise a as written.
func (s *Options) expandLong(a string) string {
	if s.noAbbrev || strings.Contains(a, "*") {
		return a
	}
	name, v, eq := strings.Cut(a[2:], "=")
	full, _, _ := s.longOpt(name)
	if full == "" || full == name {
		return a
	}
	if eq {
		return "--" + full + "=" + v
	}
	return "--" + full
}

// canon rearranges the arguments of one table program; see Canonical.
func (s *Options) canon(args []string) []string {
	out, _ := s.arrange(args, false)
	return out
}

// arrange is canon; with shapes, args are shapes (see CanonicalShape), and
// loose reports a run-time part that could be an option or more words,
// which would change the arrangement: out is nil then.
func (s *Options) arrange(args []string, shapes bool) (out []string, loose bool) {
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
	addNamed := func(opt string, val string, hasVal bool, i *int) {
		switch {
		case hasVal:
			values = append(values, opt, val)
		case *i+1 < len(args):
			*i++
			values = append(values, opt, args[*i])
			loose = loose || shapes && strings.IndexByte(args[*i], Spread) >= 0
		default:
			dangling = append(dangling, opt)
		}
	}
	addValue := func(c byte, val string, hasVal bool, i *int) {
		if s.isOpt(c) { // an optional value stays attached: -uno, --untracked-files=no
			others = append(others, "-"+string(c)+val)
			return
		}
		addNamed("-"+string(c), val, hasVal, i)
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
				if len(short) == 1 && (s.isValue(short[0]) || s.isOpt(short[0])) {
					addValue(short[0], val, hasVal, &i)
					continue
				}
				for j := 0; j < len(short); j++ {
					addFlag("-" + short[j:j+1])
				}
				continue
			}
			if name, val, hasVal, ok := s.longValue(a); ok && !strings.Contains(a, "*") {
				addNamed(name, val, hasVal, &i) // --onto X, --onto=X: "--onto" "X"
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
	if s == &gitPushOpts {
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
func (s *Options) inertWord(a string) bool {
	if s.args != "" || s.hasLongValue() || strings.IndexByte(a, Spread) >= 0 {
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
func (s *Options) mayBeOption(a string, dashdash bool) bool {
	i := strings.IndexAny(a, markers)
	if i < 0 {
		return false
	}
	spread := strings.IndexByte(a, Spread) >= 0
	switch {
	case dashdash:
		return s == &gitPushOpts && (i == 0 || spread)
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
		if len(ls) == 1 && s.isOpt(ls[0]) {
			return false // the rest of the word is its value, whatever it is
		}
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
func (s *Options) cluster(a string, addFlag func(string), addValue func(byte, string, bool, *int), i *int) bool {
	var found []string
	j := 1
	for ; j < len(a); j++ {
		ls := s.letters(a[j])
		if len(ls) == 1 && (s.isValue(ls[0]) || s.isOpt(ls[0])) {
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
