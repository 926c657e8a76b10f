package builtins

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Limits of the re module.
const (
	maxPattern = 1 << 10 // bytes in a pattern
	maxReInsts = 4 << 10 // instructions in a compiled pattern
	maxReCache = 64      // compiled patterns kept
	// maxReWork bounds the work of one call: runes the matcher reads times the
	// instructions of the pattern (an upper bound on the matcher's steps per rune). Go's
	// engines are linear in their input, but a call that finds many matches searches again
	// after each, and a search may read far past its match (a.*b|a on "aaaa..."), so without
	// a meter re.sub could be quadratic. At a few nanoseconds a step this is well under a
	// second.
	maxReWork = 1 << 25
)

func reModule() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "re", Members: starlark.StringDict{
		"match":     starlark.NewBuiltin("re.match", reFind(reModeMatch)),
		"search":    starlark.NewBuiltin("re.search", reFind(reModeSearch)),
		"fullmatch": starlark.NewBuiltin("re.fullmatch", reFind(reModeFull)),
		"findall":   starlark.NewBuiltin("re.findall", reFindall),
		"sub":       starlark.NewBuiltin("re.sub", reSub),
		"split":     starlark.NewBuiltin("re.split", reSplit),
	}}
	m.Freeze()
	return m
}

type reMode int

const (
	reModeSearch reMode = iota
	reModeMatch
	reModeFull
)

// A reProg is a compiled pattern P and its size, with, for searching again after a match,
// Q = \A(?s:.)(?s:.*?)(P), which, run on the text from the rune before a position, finds the
// leftmost match of P at or after that position while letting P's assertions (\b, \B,
// multi-line ^) see the rune before it.
type reProg struct {
	re   *regexp.Regexp
	cost int    // matcher steps per rune, at most (see compileBounded)
	src  string // the pattern as compiled

	nextOnce sync.Once
	nextRe   *regexp.Regexp
	nextCost int
	nextErr  error
}

// next returns Q, compiling it on first use.
func (p *reProg) next() (*regexp.Regexp, int, error) {
	p.nextOnce.Do(func() {
		// P compiled, so this does too, and is a few instructions larger.
		p.nextRe, p.nextCost, p.nextErr = compileBounded(`\A(?s:.)(?s:.*?)(`+p.src+`)`, maxReInsts+16)
	})
	return p.nextRe, p.nextCost, p.nextErr
}

// reCache is a small bounded cache of compiled patterns; when full, an arbitrary entry goes.
var reCache struct {
	sync.Mutex
	m map[string]*reProg
}

// compileRe compiles pattern (wrapped to be anchored at both ends for full), checking its
// size and the size of its program.
func compileRe(fn, pattern string, full bool) (*reProg, error) {
	if len(pattern) > maxPattern {
		return nil, fmt.Errorf("%s: pattern is %d bytes, more than %d", fn, len(pattern), maxPattern)
	}
	key := "s:" + pattern
	if full {
		key = "f:" + pattern
	}
	reCache.Lock()
	p, ok := reCache.m[key]
	reCache.Unlock()
	if ok {
		return p, nil
	}
	if full {
		// Compile the pattern alone first: a pattern that parses on its own has balanced
		// groups, so wrapping it cannot change its meaning.
		if _, err := compileRe(fn, pattern, false); err != nil {
			return nil, err
		}
	}
	p, err := newReProg(pattern, full)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", fn, err)
	}
	reCache.Lock()
	if reCache.m == nil {
		reCache.m = make(map[string]*reProg, maxReCache)
	}
	if len(reCache.m) >= maxReCache {
		for k := range reCache.m {
			delete(reCache.m, k)
			break
		}
	}
	reCache.m[key] = p
	reCache.Unlock()
	return p, nil
}

func newReProg(pattern string, full bool) (*reProg, error) {
	if full {
		pattern = `\A(?:` + pattern + `)\z`
	}
	re, n, err := compileBounded(pattern, maxReInsts)
	if err != nil {
		return nil, err
	}
	return &reProg{re: re, cost: n, src: pattern}, nil
}

// compileBounded compiles a pattern whose program has at most limit instructions and returns
// the cost of one matcher step per rune of input: the program's size, weighed by its groups.
func compileBounded(pattern string, limit int) (*regexp.Regexp, int, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, 0, err
	}
	// regexp does not expose its program; compile it again to measure. Only on a cache miss.
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, 0, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, 0, err
	}
	if len(prog.Inst) > limit {
		return nil, 0, fmt.Errorf("pattern is too complex (%d instructions, more than %d)", len(prog.Inst), limit)
	}
	// The matcher copies a thread's capture slots as it goes, so groups make each step
	// dearer: weigh them in (measured: 255 groups cost about five times as much a step).
	return re, len(prog.Inst) * (1 + 2*(re.NumSubexp()+1)/128), nil
}

// errReWork is the error of a call that would take more than maxReWork steps.
var errReWork = errors.New("too much work: the pattern is too complex for this much input")

// A reMeter counts down the runes the matcher may still read in one call.
type reMeter struct{ runes int }

// meteredReader feeds s to the matcher rune by rune, stopping (and setting over) when the
// meter runs out.
type meteredReader struct {
	s    string
	i    int
	m    *reMeter
	over bool
}

func (r *meteredReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	if r.m.runes <= 0 {
		r.over = true
		return 0, 0, io.EOF
	}
	r.m.runes--
	if c := r.s[r.i]; c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	c, size := utf8.DecodeRuneInString(r.s[r.i:])
	r.i += size
	return c, size, nil
}

// newMeter returns a meter for one call with a program costing cost steps a rune.
func newMeter(cost int) *reMeter { return &reMeter{runes: maxReWork / max(cost, 1)} }

// first returns the submatch indexes of the leftmost match of p in s, or nil.
func (p *reProg) first(s string) ([]int, error) {
	if len(s)*p.cost <= maxReWork {
		return p.re.FindStringSubmatchIndex(s), nil // within budget whatever it does
	}
	return p.find(s, 0, newMeter(p.cost))
}

// find returns the submatch indexes of the leftmost match of p in s that starts at or
// after pos (a rune boundary), as regexp would find it searching s from pos, or nil.
func (p *reProg) find(s string, pos int, m *reMeter) ([]int, error) {
	if pos == 0 {
		r := &meteredReader{s: s, m: m}
		loc := p.re.FindReaderSubmatchIndex(r)
		if r.over {
			return nil, errReWork
		}
		return loc, nil
	}
	q, _, err := p.next()
	if err != nil {
		return nil, err
	}
	_, size := utf8.DecodeLastRuneInString(s[:pos])
	start := pos - size
	r := &meteredReader{s: s[start:], m: m}
	loc := q.FindReaderSubmatchIndex(r)
	if r.over {
		return nil, errReWork
	}
	if loc == nil {
		return nil, nil
	}
	out := loc[2:] // group 1 of Q is P's match; P's groups follow
	for i, x := range out {
		if x >= 0 {
			out[i] = x + start
		}
	}
	return out, nil
}

// all calls deliver with each successive non-overlapping match of p in s, as
// regexp.Regexp.FindAllStringSubmatchIndex finds them, until deliver returns false. The work
// of the whole iteration is metered.
func (p *reProg) all(s string, deliver func(loc []int) bool) error {
	_, qCost, err := p.next()
	if err != nil {
		return err
	}
	m := newMeter(max(p.cost, qCost))
	prevEnd := -1
	for pos := 0; pos <= len(s); {
		loc, err := p.find(s, pos, m)
		if err != nil {
			return err
		}
		if loc == nil {
			return nil
		}
		accept := true
		if loc[1] == pos {
			// An empty match: not allowed right after a previous match; step one rune.
			if loc[0] == prevEnd {
				accept = false
			}
			if pos < len(s) {
				_, width := utf8.DecodeRuneInString(s[pos:])
				pos += width
			} else {
				pos++
			}
		} else {
			pos = loc[1]
		}
		prevEnd = loc[1]
		if accept && !deliver(loc) {
			return nil
		}
	}
	return nil
}

// reArgs unpacks (pattern, s) and compiles the pattern.
func reArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, full bool) (*reProg, string, error) {
	var pattern, s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "s", &s); err != nil {
		return nil, "", err
	}
	if len(s) > MaxOutput {
		return nil, "", fmt.Errorf("%s: input is %d bytes, more than %d", b.Name(), len(s), MaxOutput)
	}
	p, err := compileRe(b.Name(), pattern, full)
	return p, s, err
}

// reFind implements match, search and fullmatch: the list [whole, group1, ...] of the
// first match (None for a group that did not take part), or None.
func reFind(mode reMode) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		p, s, err := reArgs(b, args, kwargs, mode == reModeFull)
		if err != nil {
			return nil, err
		}
		loc, err := p.first(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
		// The leftmost match starts at 0 whenever any match does, so an anchored match is
		// the leftmost one when it starts at 0.
		if loc == nil || (mode == reModeMatch && loc[0] != 0) {
			return starlark.None, nil
		}
		groups := make([]starlark.Value, len(loc)/2)
		for i := range groups {
			if loc[2*i] < 0 {
				groups[i] = starlark.None
			} else {
				groups[i] = starlark.String(s[loc[2*i]:loc[2*i+1]])
			}
		}
		return starlark.NewList(groups), nil
	}
}

// reFindall returns the whole matches, at most MaxList of them (more is an error).
func reFindall(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, s, err := reArgs(b, args, kwargs, false)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	err = p.all(s, func(loc []int) bool {
		out = append(out, starlark.String(s[loc[0]:loc[1]]))
		return len(out) <= MaxList
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if len(out) > MaxList {
		return nil, fmt.Errorf("%s: more than %d matches", b.Name(), MaxList)
	}
	return starlark.NewList(out), nil
}

// reSplit splits s around the matches as regexp.Regexp.Split(s, -1) does, into at most
// MaxList parts (more is an error).
func reSplit(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, s, err := reArgs(b, args, kwargs, false)
	if err != nil {
		return nil, err
	}
	if p.re.String() != "" && s == "" {
		return starlark.NewList([]starlark.Value{starlark.String("")}), nil
	}
	var parts []starlark.Value
	beg, end := 0, 0
	err = p.all(s, func(loc []int) bool {
		end = loc[0]
		if loc[1] != 0 {
			parts = append(parts, starlark.String(s[beg:end]))
		}
		beg = loc[1]
		return len(parts) <= MaxList
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if end != len(s) {
		parts = append(parts, starlark.String(s[beg:]))
	}
	if len(parts) > MaxList {
		return nil, fmt.Errorf("%s: more than %d parts", b.Name(), MaxList)
	}
	return starlark.NewList(parts), nil
}

// reSub replaces every match of pattern in s by repl, in which $1, ${1}, $name and ${name}
// expand to groups and $$ is a dollar, exactly as regexp.Regexp.Expand does. The result may
// be at most MaxOutput bytes; it is built piecewise so an oversized one fails early.
func reSub(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, repl, s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "repl", &repl, "s", &s); err != nil {
		return nil, err
	}
	if len(s) > MaxOutput {
		return nil, fmt.Errorf("%s: input is %d bytes, more than %d", b.Name(), len(s), MaxOutput)
	}
	if len(repl) > MaxString {
		return nil, fmt.Errorf("%s: repl is %d bytes, more than %d", b.Name(), len(repl), MaxString)
	}
	p, err := compileRe(b.Name(), pattern, false)
	if err != nil {
		return nil, err
	}
	tmpl := parseTemplate(p.re, repl)
	var out strings.Builder
	var tooLong bool
	grow := func(piece string) bool {
		if out.Len()+len(piece) > MaxOutput {
			tooLong = true
			return false
		}
		out.WriteString(piece)
		return true
	}
	last := 0
	err = p.all(s, func(m []int) bool {
		if !grow(s[last:m[0]]) {
			return false
		}
		for _, t := range tmpl {
			piece := t.lit
			if t.group >= 0 {
				piece = ""
				if 2*t.group+1 < len(m) && m[2*t.group] >= 0 {
					piece = s[m[2*t.group]:m[2*t.group+1]]
				}
			}
			if !grow(piece) {
				return false
			}
		}
		last = m[1]
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if tooLong || !grow(s[last:]) {
		return nil, fmt.Errorf("%s: result is more than %d bytes", b.Name(), MaxOutput)
	}
	return starlark.String(out.String()), nil
}

// A templatePart is a literal (group < 0) or a reference to a group.
type templatePart struct {
	lit   string
	group int
}

// parseTemplate splits repl as regexp.Regexp.Expand reads it: $$ is a dollar; $name or
// ${name} (name: letters, digits, underscores) is a group by number or by name, and a name
// the pattern does not have expands to nothing; a malformed reference is a literal dollar.
func parseTemplate(re *regexp.Regexp, repl string) []templatePart {
	var parts []templatePart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, templatePart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for {
		before, after, ok := strings.Cut(repl, "$")
		if !ok {
			break
		}
		lit.WriteString(before)
		repl = after
		if repl != "" && repl[0] == '$' {
			lit.WriteByte('$')
			repl = repl[1:]
			continue
		}
		name, num, rest, ok := extractRef(repl)
		if !ok {
			lit.WriteByte('$')
			continue
		}
		repl = rest
		if num < 0 {
			num = re.SubexpIndex(name) // -1 if absent: expands to nothing
			if num < 0 {
				continue
			}
		}
		flush()
		parts = append(parts, templatePart{group: num})
	}
	lit.WriteString(repl)
	flush()
	return parts
}

// extractRef is regexp's extract: the name or number after a dollar.
func extractRef(str string) (name string, num int, rest string, ok bool) {
	if str == "" {
		return
	}
	brace := false
	if str[0] == '{' {
		brace = true
		str = str[1:]
	}
	i := 0
	for i < len(str) {
		r, size := utf8.DecodeRuneInString(str[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			break
		}
		i += size
	}
	if i == 0 {
		return // empty name is not okay
	}
	name = str[:i]
	if brace {
		if i >= len(str) || str[i] != '}' {
			return // missing closing brace
		}
		i++
	}
	num = 0
	for j := 0; j < len(name); j++ {
		if name[j] < '0' || '9' < name[j] || num >= 1e8 {
			num = -1
			break
		}
		num = num*10 + int(name[j]) - '0'
	}
	if name[0] == '0' && len(name) > 1 {
		num = -1 // leading zeros are a name
	}
	rest = str[i:]
	ok = true
	return
}
