package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// triMaybe is a matcher's answer when only some run-time value of the
// command's words makes it hold.
const triMaybe tri = triFailed + 1

// matchRule evaluates a rule's matcher on the layer so that what is only
// known at run time never makes a rule's action less likely to apply
// where that restricts: a deny or ask rule holds where it holds as
// written (a not = {...} that does not hold for a dynamic word's text
// does not turn a deny into an unknown), else where some run-time value
// may make it hold; an allow rule's answer is the run-time one, where a
// maybe allows nothing.
func (s *subject) matchRule(r *Rule) tri {
	if r.Action == ActionAllow || !s.varies() {
		return r.Match.eval(s)
	}
	s.writtenOnly = true
	written := r.Match.eval(s)
	s.writtenOnly = false
	if written != triNo {
		return written
	}
	return r.Match.eval(s)
}

// varies reports a layer with words or a redirection only known at run
// time.
func (s *subject) varies() bool {
	return s.shape != nil || len(s.runtimePaths()) > 0
}

// writtenForms is the layer as deny patterns read it, computed once.
func (s *subject) writtenForms() *layerForms {
	if s.written == nil {
		s.written = newLayerForms(asWritten, s.argv, s.canon)
	}
	return s.written
}

// shapeForms is the layer's shape as deny patterns read it, computed once.
func (s *subject) shapeForms() *layerForms {
	if s.shaped == nil {
		s.shaped = newLayerForms(asShapes, s.shape, shellcmd.CanonicalShape(s.shape))
	}
	return s.shaped
}

// canonicalShape is the layer's canonical template.
func (s *subject) canonicalShape() []string { return s.shapeForms().canon }

// layerShape is the shape of one layer of c, or nil when it is static or
// the command is already unknown (then the unknown action applies anyway).
func layerShape(c *shellcmd.Command, li int) []string {
	if c.Shapes == nil || c.Unknown != "" {
		return nil
	}
	return c.Shapes[li]
}

// mayMatch is the match of a deny or ask rule that only some run-time
// value of the command would match: the policy's unknown action, never
// more severe than the rule's own, and a deny under an allow list (which
// can only pass what it can see). ok is false when that decides nothing
// ([policy] unknown = "allow"): the command then takes the default, as if
// the rule did not match.
func mayMatch(sub *subject, source, rule string, ruleAction, unknownAction Action, allowList bool) (Match, bool) {
	why := fmt.Sprintf("%s may match it: %s only known at run time", rule, runtimeParts(sub.argv, sub.shape))
	m := unknownMatch(sub.raw, why, unknownAction, allowList)
	if m.Action.severity() > ruleAction.severity() {
		m.Action = ruleAction
	}
	m.Source, m.Rule = source, rule
	return m, m.Action != ActionAllow
}

// runtimeParts names the words of a layer that are only known at run
// time, for a reason: `$F`, `"$@"`, the arguments appended to it, and
// the globs of a static layer, which the shell expands.
func runtimeParts(layer, shape []string) string {
	var parts []string
	if shape == nil {
		// A static layer's words that the shell expands: its globs.
		for _, w := range layer[1:] {
			if strings.ContainsAny(w, "*?[") {
				parts = append(parts, w)
			}
		}
	}
	for i, w := range shape {
		if strings.IndexAny(w, shapeMarkers) < 0 {
			continue
		}
		if i >= len(layer) {
			parts = append(parts, "arguments given at run time")
		} else {
			parts = append(parts, layer[i])
		}
	}
	if len(parts) > 3 {
		parts = append(parts[:3], "...")
	}
	verb := "is"
	if len(parts) > 1 {
		verb = "are"
	}
	return strings.Join(parts, ", ") + " " + verb
}

// stageMatch is stageMatches for the layers of a dynamic stage: triYes
// when a layer matches as written, triMaybe when one may at run time.
func stageMatch(pattern wordGlob, line *shellcmd.Line, stage []int) tri {
	if len(stage) == 0 {
		return triNo
	}
	c := &line.Commands[stage[0]]
	r := triNo
	for li, layer := range c.Layers {
		if pattern.deniesLayer(newLayerForms(asWritten, layer, shellcmd.Canonical(layer))) {
			return triYes
		}
		if shape := layerShape(c, li); shape != nil && pattern.deniesLayer(newLayerForms(asShapes, shape, shellcmd.CanonicalShape(shape))) {
			r = triMaybe
		}
	}
	return r
}

// mayHavePrefix reports whether argv_prefix may hold at run time: the
// prefix, as a pattern that ends there or goes on, meets the layer's
// canonical template or its shape as written. The program is static, so
// a prefix naming another one never does.
func (s *subject) mayHavePrefix(mt *Matcher) bool {
	if s.shape == nil || s.argv[0] != mt.ArgvPrefix[0] && s.canon[0] != mt.canonPrefix[0] {
		return false
	}
	f := s.shapeForms()
	return prefixWordsMeet(mt.canonPrefix, f.canonText) || prefixWordsMeet(mt.ArgvPrefix, f.text)
}

// prefixWordsMeet is prefixMeets for the words of an argv_prefix, whose "*"
// words stand for any run of text: more than the one word they match, which
// can only make a maybe more likely.
func prefixWordsMeet(prefix []string, template string) bool {
	if !slices.Contains(prefix, anyWord) {
		return prefixMeets(strings.Join(prefix, " "), template)
	}
	var b strings.Builder
	var wild []int
	for i, w := range prefix {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w == anyWord {
			wild = append(wild, b.Len())
		}
		b.WriteString(w)
	}
	exact := b.String()
	more := exact + " *"
	isWild := func(i int) bool { return slices.Contains(wild, i) || i == len(more)-1 }
	return meets(exact, wildcards{wild[0], wild[len(wild)-1], isWild}, template) ||
		meets(more, wildcards{wild[0], len(more) - 1, isWild}, template)
}

// mayHaveArgument reports whether some wanted argument may be among the
// layer's words at run time: one of its words may be it as written, or its
// canonical template may hold its canonical form.
func (s *subject) mayHaveArgument(wants []string) bool {
	if s.shape == nil {
		return false
	}
	for _, w := range wants {
		if anyWordMeets(w, s.shape[1:]) {
			return true
		}
		words := s.canonicalArgument(w)
		found := len(words) > 0
		for _, x := range words {
			found = found && anyWordMeets(x, s.canonicalShape()[1:])
		}
		if found {
			return true
		}
	}
	return false
}

// anyWordMeets reports whether one of a template's words may be want: a
// word with a Spread may be several words, any of them want.
func anyWordMeets(want string, words []string) bool {
	for _, x := range words {
		if x == want || strings.IndexByte(x, shellcmd.Spread) >= 0 || literalMeets(want, x) {
			return true
		}
	}
	return false
}

// mayContainArgument is argument_contains at run time: some word with a
// run-time part may hold a wanted text.
func (s *subject) mayContainArgument(wants []string) bool {
	if s.shape == nil {
		return false
	}
	for _, x := range s.shape[1:] {
		if strings.IndexAny(x, shapeMarkers) < 0 {
			continue
		}
		for _, w := range wants {
			if containsMeets(w, x) {
				return true
			}
		}
	}
	return false
}

// mayHaveEffect reports whether an effect pattern kind:glob may match a
// path only known at run time: a word of the layer with a run-time part
// (rm "$D/x", dd of=$F) or the target of a redirection to one (> "$LOG"),
// whose known segments the glob does not rule out (pathMayMatch).
func (s *subject) mayHaveEffect(patterns []string) bool {
	paths := s.runtimePaths()
	if len(paths) == 0 {
		return false
	}
	for _, p := range patterns {
		pk, pglob, hasGlob := strings.Cut(p, ":")
		if !hasGlob {
			continue // a bare kind matches as written or not at all
		}
		for _, e := range s.effects {
			ek, epath, _ := strings.Cut(e, ":")
			if shape, ok := paths[epath]; ok && ek == pk && s.absoluteMayMatch(pglob, shape) {
				return true
			}
		}
	}
	return false
}

// runtimePaths maps the text of each path of the layer that is only known
// at run time, as its effects name it, to its shape; computed once.
func (s *subject) runtimePaths() map[string]string {
	if !s.pathsRead {
		s.paths, s.pathsRead = s.readRuntimePaths(), true
	}
	return s.paths
}

func (s *subject) readRuntimePaths() map[string]string {
	var paths map[string]string
	add := func(text, shape string) {
		if paths == nil {
			paths = map[string]string{}
		}
		paths[text] = shape
	}
	if s.shape != nil {
		for i, w := range s.shape[1:min(len(s.shape), len(s.argv))] {
			if strings.IndexAny(w, shapeMarkers) < 0 {
				continue
			}
			arg := s.argv[i+1]
			add(arg, w)
			// dd of=$F names the path after the "=".
			if k := strings.IndexByte(w, '='); k >= 0 && k < strings.IndexAny(w, shapeMarkers) {
				add(arg[strings.IndexByte(arg, '=')+1:], w[k+1:])
			}
		}
	}
	for _, r := range s.cmd.Redirects {
		if r.File && r.Dynamic {
			add(r.Target, textShape(r.Target))
		}
	}
	return paths
}

// textShape is the shape of a redirection's target, which keeps only its
// text: a segment holding an expansion or a substitution is a Hole.
func textShape(target string) string {
	segs := strings.Split(target, "/")
	for i, seg := range segs {
		if shellcmd.DynamicWord(seg) {
			segs[i] = string(shellcmd.Hole)
		}
	}
	return strings.Join(segs, "/")
}

// absoluteMayMatch is pathMayMatch for a path as the command names it: a
// relative one (or one under ~) is tried in each directory the command may
// run in (where its line started, and where its cd's lead), and with no
// known directory, relative.
func (s *subject) absoluteMayMatch(glob, shape string) bool {
	var bases []string
	switch {
	case shape == "" || shape[0] == '/' || isMarker(shape[0]):
	case shape == "~" || strings.HasPrefix(shape, "~/"):
		if home := s.request().Home; path.IsAbs(home) {
			bases, shape = []string{home}, "."+shape[1:]
		}
	case !s.cmd.DirUnknown:
		for _, dir := range []string{s.request().Cwd, s.cmd.Dir(s.request().Cwd, s.request().Home)} {
			if path.IsAbs(dir) {
				bases = append(bases, dir)
			}
		}
	}
	if len(bases) == 0 {
		return pathMayMatch(glob, shape)
	}
	for _, b := range bases {
		if pathMayMatch(glob, strings.TrimSuffix(b, "/")+"/"+strings.TrimPrefix(shape, "./")) {
			return true
		}
	}
	return false
}

// request is what the layer is decided for, or none.
func (s *subject) request() Request {
	if s.eval == nil {
		return Request{}
	}
	return s.eval.req
}

// pathMayMatch reports whether a doublestar glob may match some run-time
// value of a path's shape. The segments before its first run-time part
// (when it is absolute: a relative one starts where the command runs) and
// after its last are known, and each must match the glob's segment in the
// same place, up to a "**"; without a "**", the glob matches no path of
// more segments than it has. A Spread may make more paths: any.
func pathMayMatch(glob, shape string) bool {
	if strings.IndexByte(shape, shellcmd.Spread) >= 0 {
		return true
	}
	gs, ps := strings.Split(glob, "/"), strings.Split(shape, "/")
	dynamic := func(seg string) bool { return strings.IndexAny(seg, shapeMarkers) >= 0 }
	first, last := slices.IndexFunc(ps, dynamic), len(ps)-1
	for last > first && !dynamic(ps[last]) {
		last--
	}
	if !strings.Contains(glob, "**") && len(ps) > len(gs) {
		return false
	}
	if strings.HasPrefix(shape, "/") {
		for k := 0; k < first; k++ {
			if k >= len(gs) || gs[k] != "**" && !segmentMatch(gs[k], ps[k]) {
				return false
			}
			if gs[k] == "**" {
				break
			}
		}
	}
	for k := 1; len(ps)-k > last; k++ {
		g := len(gs) - k
		if g < 0 || gs[g] != "**" && !segmentMatch(gs[g], ps[len(ps)-k]) {
			return false
		}
		if gs[g] == "**" {
			break
		}
	}
	return true
}

// segmentMatch matches one segment of a glob; a glob it cannot read may
// match.
func segmentMatch(glob, seg string) bool {
	ok, err := doublestar.Match(glob, seg)
	return ok || err != nil
}
