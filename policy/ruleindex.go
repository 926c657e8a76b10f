package policy

import (
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// The rule index spares a layer of a command the rules it cannot match, so
// that a decision costs what the matching rules cost, not what the manifest
// holds. Each rule is filed under keys, one of which every layer it can
// match (or may match, at run time) has: the words its program, basename,
// argv_prefix or command_name keys compare with the layer's first word, or
// the kinds of its effect keys. A program_regex anchored on a literal
// prefix is filed under the prefix. A rule with none of these (a lone
// argument, not or script key) is tried on every layer. The keys are taken
// only from what matchStatic requires of every match, so a rule left out
// would have answered no: TestRuleIndexAgrees holds the index to that.

// indexKey is a key rules are filed under: in space keyWord, a word a
// layer's program must be (as written, its path, or canonical); in
// keyName, its command name; in keyEffect, the kind of one of its effects.
type indexKey struct {
	space byte
	word  string
}

const (
	keyEffect byte = 'e'
	keyName   byte = 'n'
	keyWord   byte = 'w'
)

func (k indexKey) less(o indexKey) bool {
	return k.space < o.space || k.space == o.space && k.word < o.word
}

// ruleKeys files a rule: keys, one of which a layer needs for mt to say yes
// or maybe; else the literal prefix a program_regex needs of the program;
// else neither (every layer tries the rule).
func ruleKeys(mt *Matcher) (keys []indexKey, prefix string) {
	if keys, ok := matcherKeys(mt); ok {
		return keys, ""
	}
	if mt != nil && mt.ProgramRegex != "" {
		return nil, regexpLiteralPrefix(mt.ProgramRegex)
	}
	return nil, ""
}

// matcherKeys returns the keys of one key of mt that every match needs
// (ok), as matchStatic tests it; all's parts count like keys beside them,
// any's when each part has keys.
func matcherKeys(mt *Matcher) (keys []indexKey, ok bool) {
	if mt == nil {
		return nil, false
	}
	withPrefix := func(space byte, l []string) []indexKey {
		out := make([]indexKey, len(l))
		for i, s := range l {
			out[i] = indexKey{space, s}
		}
		return out
	}
	switch {
	case len(mt.Program) > 0:
		return withPrefix(keyWord, mt.Program), true
	case len(mt.Basename) > 0:
		return withPrefix(keyWord, mt.Basename), true
	case len(mt.ArgvPrefix) > 0 && len(mt.canonPrefix) > 0 && mt.ArgvPrefix[0] != anyWord && mt.canonPrefix[0] != anyWord:
		if mt.canonPrefix[0] == mt.ArgvPrefix[0] {
			return []indexKey{{keyWord, mt.ArgvPrefix[0]}}, true
		}
		return []indexKey{{keyWord, mt.ArgvPrefix[0]}, {keyWord, mt.canonPrefix[0]}}, true
	case len(mt.CommandName) > 0 && !slices.ContainsFunc(mt.CommandName, func(n string) bool { return strings.HasSuffix(n, "*") }):
		return withPrefix(keyName, mt.CommandName), true
	case len(mt.GitSubcommand) > 0:
		return []indexKey{{keyName, "git"}}, true // gitSubcommand is "" unless the command is git
	case len(mt.Effect) > 0:
		kinds := make([]indexKey, len(mt.Effect))
		for i, p := range mt.Effect {
			kind, _, _ := strings.Cut(p, ":")
			kinds[i] = indexKey{keyEffect, kind}
		}
		return kinds, true
	}
	for _, sub := range mt.All {
		if keys, ok := matcherKeys(sub); ok {
			return keys, true
		}
	}
	if len(mt.Any) == 0 {
		return nil, false
	}
	for _, sub := range mt.Any {
		k, ok := matcherKeys(sub)
		if !ok {
			return nil, false
		}
		keys = append(keys, k...)
	}
	return keys, true
}

// regexpLiteralPrefix is the text every string a pattern matches starts
// with: the literal after a leading ^ (case-sensitive), "" when there is
// none.
func regexpLiteralPrefix(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText ||
		re.Sub[1].Op != syntax.OpLiteral || re.Sub[1].Flags&syntax.FoldCase != 0 {
		return ""
	}
	return string(re.Sub[1].Rune)
}

// eachKey calls f with every key the layer has, for ruleKeys' to meet.
func (s *subject) eachKey(f func(indexKey)) {
	f(indexKey{keyWord, s.argv[0]})
	f(indexKey{keyName, commandName(s.argv[0])})
	if len(s.canon) > 0 && s.canon[0] != s.argv[0] {
		f(indexKey{keyWord, s.canon[0]}) // the same word today: a layer's program is already its name
	}
	if s.innermost && s.cmd != nil && s.cmd.Path != "" {
		f(indexKey{keyWord, s.cmd.Path})
		f(indexKey{keyName, commandName(s.cmd.Path)})
	}
	for _, e := range s.effects {
		kind, _, _ := strings.Cut(e, ":")
		f(indexKey{keyEffect, kind})
	}
}

// hasPrefix reports whether the layer's program may match a program_regex
// that needs prefix.
func (s *subject) hasPrefix(prefix string) bool {
	return strings.HasPrefix(s.argv[0], prefix) || s.cmd != nil && strings.HasPrefix(s.cmd.Path, prefix)
}

// ruleIndex is the index of rules held in memory: a manifest's own, read
// from its text.
type ruleIndex struct {
	byKey    map[indexKey][]int32
	prefixes []prefixRule
	always   []int32
}

// prefixRule is a program_regex rule filed under its literal prefix.
type prefixRule struct {
	prefix string
	rule   int32
}

func newRuleIndex(rules []*Rule) *ruleIndex {
	ix := &ruleIndex{byKey: map[indexKey][]int32{}}
	for i, r := range rules {
		keys, prefix := ruleKeys(r.Match)
		switch {
		case len(keys) > 0:
			for _, k := range keys {
				if l := ix.byKey[k]; len(l) == 0 || l[len(l)-1] != int32(i) {
					ix.byKey[k] = append(l, int32(i))
				}
			}
		case prefix != "":
			ix.prefixes = append(ix.prefixes, prefixRule{prefix, int32(i)})
		default:
			ix.always = append(ix.always, int32(i))
		}
	}
	return ix
}

// candidates appends to out the numbers of the rules s may match, in the
// manifest's order, each once.
func candidates(s *subject, lookup func(indexKey, []int32) []int32, prefixes []prefixRule, always []int32, out []int32) []int32 {
	out = append(out, always...)
	s.eachKey(func(k indexKey) { out = lookup(k, out) })
	for _, p := range prefixes {
		if s.hasPrefix(p.prefix) {
			out = append(out, p.rule)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rulesFor returns the rules that may match the layer s, in the manifest's
// order: every rule except those the index shows cannot. The slice is
// reused by the next call of the evaluation.
func (m *Manifest) rulesFor(s *subject) []*Rule {
	var scratch *ruleScratch
	if s.eval != nil {
		scratch = &s.eval.ruleScratch
	} else {
		scratch = &ruleScratch{}
	}
	if m.lazy != nil {
		scratch.nums = candidates(s, m.lazy.lookup, m.lazy.prefixes, m.lazy.always, scratch.nums[:0])
	} else {
		m.indexOnce.Do(func() { m.index = newRuleIndex(m.Rules) })
		scratch.nums = candidates(s, func(k indexKey, out []int32) []int32 { return append(out, m.index.byKey[k]...) },
			m.index.prefixes, m.index.always, scratch.nums[:0])
	}
	scratch.rules = scratch.rules[:0]
	for _, n := range scratch.nums {
		if m.lazy != nil {
			scratch.rules = append(scratch.rules, m.lazy.rule(int(n)))
		} else {
			scratch.rules = append(scratch.rules, m.Rules[n])
		}
	}
	return scratch.rules
}

// ruleScratch is what rulesFor reuses from one layer to the next.
type ruleScratch struct {
	nums  []int32
	rules []*Rule
}

// AllRules returns every rule of the manifest. A manifest read from its
// snapshot decodes its rules only as decisions need them; this decodes the
// rest. Anything that lists or counts the rules reads them here.
func (m *Manifest) AllRules() []*Rule {
	if m.lazy != nil {
		m.Rules = m.lazy.all()
		m.lazy = nil
	}
	return m.Rules
}

// indexState is the manifest's rule index, built on the first decision.
type indexState struct {
	indexOnce sync.Once
	index     *ruleIndex
}
