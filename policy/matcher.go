package policy

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// subject is one layer of a command as manifest matchers see it, with its
// canonical form computed once for all rules.
type subject struct {
	raw         string // the whole command line, for reasons
	argv, canon []string
	shape       []string          // the layer's shape when it is dynamic (see dynamic.go), else nil
	written     *layerForms       // the layer as deny patterns read it, once writtenForms computes it
	shaped      *layerForms       // its shape so read, once shapeForms computes it
	paths       map[string]string // runtimePaths, once pathsRead
	pathsRead   bool
	writtenOnly bool // matchers read no run-time values (see matchRule)
	cmd         *shellcmd.Command
	innermost   bool
	effects     []string
	memo        map[string][]string // canonical forms of rule arguments in this command's context

	eval    *evaluation
	ctx     starlark.Value    // shell-context-v1 for matchers, built on first use
	scripts map[string]tri    // matcher results, one run per script
	why     map[string]string // what each matcher that said yes said
	gitSub  string            // gitSubcommand, once gitRead
	gitRead bool
}

// eval evaluates a manifest matcher against one layer of a command. The
// static keys are certain, or maybe when only some run-time value of the
// layer's words makes them hold; a script matcher can fail. An answer that
// is not certain spreads: all() is no if any part is no, else failed if
// any part failed, else maybe if any part is maybe; any() is yes if any
// part is yes, else failed, else maybe; not() keeps a failure a failure
// and a maybe a maybe, so negation can never turn either into a match.
func (mt *Matcher) eval(s *subject) tri {
	static := mt.matchStatic(s)
	if static == triNo {
		return triNo
	}
	failed, maybe := false, static == triMaybe
	note := func(r tri) {
		failed = failed || r == triFailed
		maybe = maybe || r == triMaybe
	}
	for _, sub := range mt.All {
		r := sub.eval(s)
		if r == triNo {
			return triNo
		}
		note(r)
	}
	if len(mt.Any) > 0 {
		anyResult := triNo
		for _, sub := range mt.Any {
			r := sub.eval(s)
			if r == triYes {
				anyResult = triYes
				break
			}
			if r == triFailed || r == triMaybe && anyResult == triNo {
				anyResult = r
			}
		}
		if anyResult == triNo {
			return triNo
		}
		note(anyResult)
	}
	if mt.Not != nil {
		r := mt.Not.eval(s)
		if r == triYes {
			return triNo
		}
		note(r)
	}
	// The script runs last: a conjunction's answer does not depend on its
	// order, and the static keys beside it spare most commands the run.
	if mt.Script != "" {
		r := s.matchScript(mt.Script)
		if r == triNo {
			return triNo
		}
		note(r)
	}
	switch {
	case failed:
		return triFailed
	case maybe:
		return triMaybe
	}
	return triYes
}

// matchStatic tests the keys that need no script: triYes when all hold,
// triMaybe when some only may at run time.
func (mt *Matcher) matchStatic(s *subject) tri {
	argv := s.argv
	if len(argv) == 0 {
		return triNo
	}
	if len(mt.Program) > 0 && !(contains(mt.Program, argv[0]) || s.innermost && contains(mt.Program, s.cmd.Path)) {
		return triNo
	}
	if len(mt.Basename) > 0 && !contains(mt.Basename, argv[0]) {
		return triNo
	}
	if len(mt.CommandName) > 0 && !(commandNameIn(mt.CommandName, argv[0]) || s.innermost && commandNameIn(mt.CommandName, s.cmd.Path)) {
		return triNo
	}
	r := triYes
	// For a key that does not hold as written: whether it may at run
	// time, unless run-time values are not read (see matchRule).
	runtime := !s.writtenOnly
	may := func(holds bool) bool {
		if holds {
			r = triMaybe
		}
		return holds
	}
	if len(mt.ArgvPrefix) > 0 {
		switch s.prefixHolds(mt) {
		case triYes:
		case triMaybe:
			// Only if a word that "*" stands for is one word at run time.
			if !runtime {
				return triNo
			}
			r = triMaybe
		default:
			if !(runtime && may(s.mayHavePrefix(mt))) {
				return triNo
			}
		}
	}
	if len(mt.Argument) > 0 && !s.anyArgument(mt.Argument) && !(runtime && may(s.mayHaveArgument(mt.Argument))) {
		return triNo
	}
	if len(mt.ArgumentContains) > 0 && !anyArgumentContains(argv[1:], mt.ArgumentContains) &&
		!(runtime && may(s.mayContainArgument(mt.ArgumentContains))) {
		return triNo
	}
	if re := mt.programRE; re != nil && !(re.MatchString(argv[0]) || s.innermost && re.MatchString(s.cmd.Path)) {
		return triNo
	}
	if len(mt.GitSubcommand) > 0 && !s.gitSubcommandIn(mt.GitSubcommand) {
		return triNo
	}
	if len(mt.Effect) > 0 && !anyEffect(s.effects, mt.Effect) && !(runtime && may(s.mayHaveEffect(mt.Effect))) {
		return triNo
	}
	if mt.NoUnknownEffects != nil {
		hasUnknown := false
		for _, e := range s.effects {
			if e == EffectUnknown || strings.HasPrefix(e, EffectUnknown+":") {
				hasUnknown = true
			}
		}
		if *mt.NoUnknownEffects == hasUnknown {
			return triNo
		}
	}
	return r
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// anyWord, a word of an argv_prefix, stands for any one word of the
// command.
const anyWord = "*"

// prefixHolds reports whether the layer starts with the matcher's
// argv_prefix, as written or in canonical form: triYes when it does, triMaybe
// when it does only if the words that a "*" stands for are single words at
// run time (one holds a part only known at run time, or a glob that the
// shell may expand to several words before more of the prefix), triNo
// otherwise.
func (s *subject) prefixHolds(mt *Matcher) tri {
	// A word is certain when the shell runs it as it is written: static, and
	// with no glob character. In the canonical form, where words move, only
	// a layer with no run-time part at all counts.
	written := prefixWords(s.argv, mt.ArgvPrefix, func(i int) bool {
		return s.shape == nil || i < len(s.shape) && s.shape[i] == s.argv[i]
	})
	if written == triYes {
		return triYes
	}
	canon := prefixWords(s.canon, mt.canonPrefix, func(int) bool { return s.shape == nil })
	switch {
	case canon == triYes:
		return triYes
	case written == triMaybe || canon == triMaybe:
		return triMaybe
	}
	return triNo
}

// prefixWords compares words with an argv_prefix whose "*" stands for any
// one word: triYes when every word a "*" takes is certain, triMaybe when
// some is not: only known at run time (static says which are known), or a
// glob before more of the prefix (a glob is one word or more: at the end of
// the prefix, it fills the "*" either way).
func prefixWords(words, prefix []string, static func(i int) bool) tri {
	if len(prefix) > len(words) {
		return triNo
	}
	r := triYes
	for i, p := range prefix {
		switch {
		case p == anyWord:
			if !static(i) || i < len(prefix)-1 && strings.ContainsAny(words[i], "*?[") {
				r = triMaybe
			}
		case words[i] != p:
			return triNo
		}
	}
	return r
}

// gitSubcommandIn reports whether the layer is git (in any case, git.exe
// too: a case-insensitive file system runs them) running one of subs,
// or a subcommand that cannot be known from the text: a dynamic word, or
// one the command's own configuration may alias (-c alias.*,
// --config-env, -c include.path, GIT_CONFIG_* variables). An alias set by
// an earlier git config is judged where it is set (git config is one of
// the safety pack's subcommands).
func (s *subject) gitSubcommandIn(subs []string) bool {
	if !s.gitRead {
		s.gitSub, s.gitRead = s.gitSubcommand(), true
	}
	switch s.gitSub {
	case "":
		return false
	case gitAnySub:
		return true
	}
	return contains(subs, s.gitSub)
}

// gitAnySub stands for a subcommand that may be any: dynamic, or aliased.
const gitAnySub = "\x00any"

// gitSubcommand is the layer's git subcommand in lower case, gitAnySub
// when it may be any, "" when the layer is not git or runs none: read once
// per layer, however many rules ask.
func (s *subject) gitSubcommand() string {
	if commandName(s.argv[0]) != "git" {
		return ""
	}
	globals, sub, rest := shellcmd.GitSplit(s.argv[1:])
	if sub == "" && len(rest) > 0 && rest[0] == "--" {
		_, sub, _ = shellcmd.GitSplit(rest[1:])
	}
	if sub == "" {
		return ""
	}
	if shellcmd.DynamicWord(sub) {
		return gitAnySub
	}
	for _, g := range globals {
		// -c alias.x=..., --config-env=alias.x=VAR, -c include.path=...:
		// configuration that may define what the subcommand runs.
		if g := strings.ToLower(g); strings.Contains(g, "alias.") || strings.Contains(g, "include") {
			return gitAnySub
		}
	}
	for _, a := range s.cmd.Assigns {
		if strings.HasPrefix(a, "GIT_CONFIG") {
			return gitAnySub
		}
	}
	return strings.ToLower(sub)
}

// anyArgument reports whether some wanted argument is among the command's
// arguments, as written or canonicalized in the command's own context (so
// "--force" finds "git push -f", and "-D" finds "git branch -d -f").
func (s *subject) anyArgument(wants []string) bool {
	for _, w := range wants {
		if contains(s.argv[1:], w) {
			return true
		}
		words := s.canonicalArgument(w)
		found := len(words) > 0
		for _, x := range words {
			if !contains(s.canon[1:], x) {
				found = false
			}
		}
		if found {
			return true
		}
	}
	return false
}

// canonicalArgument is the canonical form of w as an argument of this
// command's program (and subcommand, which decides what options mean).
func (s *subject) canonicalArgument(w string) []string {
	if words, ok := s.memo[w]; ok {
		return words
	}
	ctx := s.canon[:1]
	if len(s.canon) > 1 && !strings.HasPrefix(s.canon[1], "-") {
		ctx = s.canon[:2]
	}
	base := shellcmd.Canonical(ctx)
	var words []string
	for _, x := range shellcmd.Canonical(append(append([]string{}, ctx...), w)) {
		if !contains(base, x) {
			words = append(words, x)
		}
	}
	if s.memo == nil {
		s.memo = map[string][]string{}
	}
	s.memo[w] = words
	return words
}

func anyArgumentContains(args, wants []string) bool {
	for _, a := range args {
		for _, w := range wants {
			if strings.Contains(a, w) {
				return true
			}
		}
	}
	return false
}

// anyEffect reports whether some effect matches some pattern: a bare kind
// matches every effect of that kind, kind:glob matches the path by glob.
func anyEffect(effects, patterns []string) bool {
	for _, p := range patterns {
		pk, pglob, hasGlob := strings.Cut(p, ":")
		for _, e := range effects {
			ek, epath, _ := strings.Cut(e, ":")
			if ek != pk {
				continue
			}
			if !hasGlob {
				return true
			}
			if ok, _ := doublestar.Match(pglob, epath); ok {
				return true
			}
		}
	}
	return false
}
