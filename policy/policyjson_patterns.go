package policy

import (
	"path/filepath"
	"strings"
	"unicode"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// filePattern is a policy.json pattern normalized like a command: its words
// unquoted, its program reduced to a basename, its flags canonicalized.
type filePattern struct {
	raw string
	wordGlob
	stages []wordGlob // for a pattern with a pipe: each stage
}

// wordGlob is a normalized pattern: its glob, the single-letter flags it
// names, and its glob as written (quotes removed, program basename, no
// flag canonicalization).
type wordGlob struct {
	glob  string
	flags map[string]bool
	plain string
	// globHead and plainHead are the first words any text matching glob
	// or plain begins with, "" when a wildcard stands in the first word:
	// a layer that begins otherwise is passed over without a glob.
	globHead, plainHead string
}

// layerForms are the texts of one command layer that deny patterns are
// matched against, read as r says and computed once for all patterns:
// canonical (flags normalized); as written, so that `--force*` still
// covers `--force-with-lease` as a text glob would; and for git, both
// again without the configuration options before the subcommand (-c,
// --config-env, --exec-path), which canonicalization keeps because they
// can run code but which must not hide `git -c x=y push --force` from a
// deny.
type layerForms struct {
	r               reading
	canon           []string
	canonText, text string
	// canonFirst and textFirst are the first words of canonText and text.
	canonFirst, textFirst string
	git                   *layerForms // without git's configuration options, or nil
	// anyHead: a pattern's head (wordGlob.globHead) cannot rule the
	// layer out, for a template may hold anything in its first word, or
	// the first word is a short flag, which matchDeny may drop.
	anyHead bool
}

func newLayerForms(r reading, layer, canon []string) *layerForms {
	f := &layerForms{r: r, canon: canon, canonText: r.join(canon), text: r.join(layer),
		anyHead: r == asShapes || len(canon) > 0 && isShortFlag(canon[0])}
	f.canonFirst, _, _ = strings.Cut(f.canonText, " ")
	f.textFirst, _, _ = strings.Cut(f.text, " ")
	if stripped, ok := gitWithoutConfig(layer); ok {
		f.git = newLayerForms(r, stripped, r.canon(stripped))
	}
	return f
}

// deniesLayer tests the pattern against every form of one command layer.
func (g wordGlob) deniesLayer(f *layerForms) bool {
	if g.matchDeny(f) || f.headFits(g.plainHead, f.textFirst) && f.r.matchDenyGlob(g.plain, f.text) {
		return true
	}
	return f.git != nil && g.deniesLayer(f.git)
}

// reading is how a pattern reads a command's words: asWritten, where it
// matches or not, or asShapes (shellcmd.Command.Shapes), where it may
// match some value of what is only known at run time.
type reading bool

const (
	asWritten reading = false
	asShapes  reading = true
)

func (r reading) join(words []string) string {
	if r == asShapes {
		return shellcmd.JoinShape(words)
	}
	return strings.Join(words, " ")
}

func (r reading) glob(pattern, s string) bool {
	if r == asShapes {
		return globMeets(pattern, s)
	}
	return globMatch(pattern, s)
}

func (r reading) canon(words []string) []string {
	if r == asShapes {
		return shellcmd.CanonicalShape(words)
	}
	return shellcmd.Canonical(words)
}

// gitWithoutConfig drops git's configuration options before its
// subcommand; ok is false when there are none (or it is not git).
func gitWithoutConfig(argv []string) ([]string, bool) {
	if len(argv) < 2 || argv[0] != "git" {
		return nil, false
	}
	var out []string // made at the first option dropped
	i := 1
	for i < len(argv) {
		n, runsCode := shellcmd.GitGlobal(argv[i:])
		if n == 0 {
			break
		}
		if runsCode && out == nil {
			out = append(make([]string, 0, len(argv)), argv[:i]...)
		} else if !runsCode && out != nil {
			out = append(out, argv[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return nil, false
	}
	return append(out, argv[i:]...), true
}

func compilePatterns(raws []string) []filePattern {
	out := make([]filePattern, 0, len(raws))
	for _, raw := range raws {
		p := filePattern{raw: raw, wordGlob: normalizePattern(raw)}
		if parts := splitPipe(raw); len(parts) > 1 {
			for _, part := range parts {
				p.stages = append(p.stages, normalizePattern(part))
			}
		}
		out = append(out, p)
	}
	return out
}

// matchDeny matches a command's canonical words. It is stricter than the
// plain glob in two ways, since a deny can only get safer: a pattern ending
// in " *" also stops the bare command (`sudo *` stops `sudo`), and flags
// the pattern does not name are ignored when the pattern names some
// (`rm -rf *` stops `rm -rfv /`).
func (g wordGlob) matchDeny(f *layerForms) bool {
	if !f.headFits(g.globHead, f.canonFirst) {
		return false
	}
	if f.r.matchDenyGlob(g.glob, f.canonText) {
		return true
	}
	if len(g.flags) == 0 {
		return false
	}
	reduced := make([]string, 0, len(f.canon))
	for _, w := range f.canon {
		if isShortFlag(w) && !g.flags[w] {
			continue
		}
		reduced = append(reduced, w)
	}
	return len(reduced) < len(f.canon) && f.r.matchDenyGlob(g.glob, f.r.join(reduced))
}

func (r reading) matchDenyGlob(pattern, s string) bool {
	if r.glob(pattern, s) {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, " *"); ok {
		return r.glob(p, s)
	}
	return false
}

// headFits reports whether one of f's forms, whose first word is first,
// may match a pattern whose head is head (wordGlob.globHead).
func (f *layerForms) headFits(head, first string) bool {
	return head == "" || f.anyHead || first == head
}

// patternHead is the first word of every text glob matches (or glob with
// its " *" cut, as matchDenyGlob also tries), "" when it has a wildcard.
func patternHead(glob string) string {
	first, _, _ := strings.Cut(glob, " ")
	if strings.Contains(first, "*") {
		return ""
	}
	return first
}

func isShortFlag(w string) bool {
	return len(w) == 2 && w[0] == '-' && (w[1] >= 'a' && w[1] <= 'z' || w[1] >= 'A' && w[1] <= 'Z')
}

// normalizePattern splits a pattern into words on whitespace, removes
// quotes, reduces the program to its basename and canonicalizes flags, the
// same normalization a command gets, so both sides compare alike.
func normalizePattern(raw string) wordGlob {
	words := patternWords(raw)
	if len(words) == 0 {
		return wordGlob{}
	}
	if !strings.Contains(words[0], "*") {
		words[0] = filepath.Base(words[0])
	}
	canon := shellcmd.Canonical(words)
	g := wordGlob{glob: strings.Join(canon, " "), plain: strings.Join(words, " ")}
	g.globHead, g.plainHead = patternHead(g.glob), patternHead(g.plain)
	for _, w := range canon {
		if isShortFlag(w) {
			if g.flags == nil {
				g.flags = map[string]bool{}
			}
			g.flags[w] = true
		}
	}
	return g
}

// patternWords splits on unquoted whitespace and drops the quotes.
func patternWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// splitPipe splits a pattern on unquoted `|` (not `||`).
func splitPipe(s string) []string {
	var parts []string
	var quote rune
	start := 0
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '|':
			if (i+1 < len(s) && s[i+1] == '|') || (i > 0 && s[i-1] == '|') {
				continue
			}
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
