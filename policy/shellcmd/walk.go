package shellcmd

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// state is shared by the walkers of one line and of the bodies nested in it.
type state struct {
	line      *Line
	meta      []cmdMeta // parallel to line.Commands
	parser    *syntax.Parser
	bodyBytes int   // bytes of nested bodies parsed so far
	err       error // a limit was hit: the line is unknown
	cdpath    bool  // the line assigns CDPATH, which may send a relative cd elsewhere
	// gitEnv holds the assignments of git configuration (GIT_CONFIG*,
	// GIT_SSH_COMMAND, ...) that stand alone or are exported earlier in the
	// line: git reads them (see gitIndirect).
	gitEnv []string
	// written are the files the line writes so far, by cleaned path (see
	// written.go).
	written map[string]writtenFile
	// downloadedAny names a downloader in the line that writes files whose
	// names are known only at run time (curl -J, wget -i, $URL), or is "".
	downloadedAny string
	// cloned are the folders git clone fills earlier in the line: what the
	// line runs from one is downloaded code.
	cloned []string
	disk   Disk
	// pkgScripts are the scripts npm pkg set gives package.json earlier
	// in the line, by name ("" for one it deletes).
	pkgScripts map[string]string
	// inRepo: what a git command's repository runs (gitdisk.go) is being
	// walked, and is not read again for the git commands within it.
	inRepo bool
	// gitConfigs are the settings of each repository's .git/config read
	// so far, by git folder.
	gitConfigs map[string][]gitSetting
	vars       *lineVars         // the values the line gives variables (vars.go), nil when it reads none
	aliases    map[string]string // the aliases the line defines so far, by name
	varBytes   int               // the text those values added to the line's words so far
}

// cmdMeta is what a later pipeline stage needs to know about a command.
type cmdMeta struct {
	stdinShell bool      // a shell (or parallel) that reads its script from standard input
	stdinCode  *oneLiner // an interpreter that reads its program from standard input
	stdinLang  string    // a program that reads a script in this language from standard input
	data       string    // what an echo or printf with static arguments writes
	hasData    bool
}

// walker walks the syntax tree of one source text (the line, or a body).
type walker struct {
	st        *state
	src       string
	depth     int
	nest      int
	holes     []string // placeholders filled in at run time (parallel input)
	runtime   bool     // commands get arguments at run time (parallel input)
	appendBy  string   // what appends run-time arguments to the commands (parallel), or ""
	inherited []redir  // redirections of the enclosing compound commands
	// feeds are the earlier stages of the pipelines whose stage this
	// walker walks: what an output process substitution of its commands
	// reads (curl x | tee >(sh)) comes through them.
	feeds feed
	cd    *dirState // the directory changes in force; shared by the walkers of one scope
	own   dirState  // where cd points for the first walker of a scope
	// bind is, while a command is walked with one combination of the values
	// the line gives its variables, that combination (see vars.go).
	bind     map[string]varChoice
	varDepth int    // values of variables within which this walker reads (b=$a/x)
	alias    string // the aliases whose text this walker walks (names, spaced), not expanded again within it
	// findLayers are, for the body of a shell a find runs (find -exec sh
	// -c 'cat "$1"' _ {} \;), the layers of that shell's command, which
	// its commands have as their outer layers: each file find passes is
	// theirs too.
	findLayers outerLayers
	// guessed: the commands walked are ones a program agent-shell does not
	// know may run (see guess).
	guessed bool
	// splice: the words walked are a simple command's, in which an array's
	// "${a[@]}" is all its elements (see arrayElems).
	splice bool
}

// feed is the first n stages of a pipeline, after those of the pipeline
// it is itself a stage of (outer, the enclosing walker's): references, so
// that each stage of a long pipeline costs no copy of those before it.
type feed struct {
	outer  *feed
	stages Pipeline
	n      int
}

// all lists the stages, outermost pipeline first.
func (f *feed) all(out Pipeline) Pipeline {
	if f.outer != nil {
		out = f.outer.all(out)
	}
	return append(out, f.stages[:f.n]...)
}

// redir is a Redirect plus whether its words hold a substitution.
type redir struct {
	Redirect
	subst bool
}

func (w *walker) fail(err error) {
	if w.st.err == nil {
		w.st.err = err
	}
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	if s == nil || w.st.err != nil {
		return
	}
	if w.nest >= maxNest {
		w.fail(fmt.Errorf("command line nests deeper than %d levels", maxNest))
		return
	}
	w.nest++
	defer func() { w.nest-- }()
	if s.Background { // a background job runs in a subshell: its cd's end with it
		w = w.scoped()
	}
	before := *w.cd // where the substitutions of the statement's redirections run
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(c, s.Redirs)
	case *syntax.DeclClause:
		w.decl(c, s.Redirs)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			w.withRedirs(s.Redirs).pipeline(s)
		} else {
			// a && b || c nests to the left: walk the chain as a list, so
			// that a long chain does not count as deep nesting.
			w.withRedirs(s.Redirs).andOr(s)
		}
		w.redirSubstsAt(before, s.Redirs)
	case *syntax.TimeClause:
		// bash and dash read "time [-p] [--] pipeline": the -p and -- are
		// the keyword's, not the program.
		stripTimeOpts(c)
		w.withRedirs(s.Redirs).substs(c)
		w.redirSubstsAt(before, s.Redirs)
	case nil:
		if len(s.Redirs) > 0 {
			w.call(&syntax.CallExpr{}, s.Redirs)
		}
	default:
		// Compound commands: if, while, for, case, { }, ( ), functions,
		// [[ ]], (( )), let, time, coproc. Their words are not commands, but
		// substitutions in them are, and their statements are.
		w.withRedirs(s.Redirs).compound(c)
		w.redirSubstsAt(before, s.Redirs)
	}
}

// stripTimeOpts removes the -p and -- that the time keyword reads from
// the first command of its pipeline (time -p -- rm -rf /).
func stripTimeOpts(tc *syntax.TimeClause) {
	st := tc.Stmt
	for st != nil {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		st = b.X
	}
	if st == nil {
		return
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 {
		return
	}
	for len(ce.Args) > 1 {
		lit := ce.Args[0].Lit()
		if lit == "--" {
			ce.Args = ce.Args[1:]
			return
		}
		if lit != "-p" {
			return
		}
		ce.Args = ce.Args[1:]
	}
}

// withRedirs returns a walker whose commands also get redirs, as the
// commands inside { ...; } > f all write to f.
func (w *walker) withRedirs(redirs []*syntax.Redirect) *walker {
	if len(redirs) == 0 {
		return w
	}
	sub := *w
	sub.inherited = append([]redir(nil), w.inherited...)
	for _, r := range redirs {
		sub.inherited = append(sub.inherited, w.redirect(r))
	}
	return &sub
}

// substStmts walks the body of a command or process substitution; the
// redirections around the enclosing command do not apply inside it, and
// its cd's end with it.
func (w *walker) substStmts(list []*syntax.Stmt) {
	sub := w.scoped()
	sub.inherited, sub.feeds = nil, feed{}
	sub.stmts(readSubst(list))
}

// readSubst: bash reads $(< FILE) as $(cat FILE) without running cat;
// the substitution is walked as that cat, so that what reads a file's
// contents (echo "$(< .env)") is judged as cat < .env is.
func readSubst(list []*syntax.Stmt) []*syntax.Stmt {
	if len(list) != 1 || list[0] == nil || list[0].Cmd != nil || len(list[0].Redirs) == 0 {
		return list
	}
	s := list[0]
	for _, r := range s.Redirs {
		if r == nil || r.Op != syntax.RdrIn {
			return list
		}
	}
	cat := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: s.Pos(), ValueEnd: s.Pos(), Value: "cat"}}}
	return []*syntax.Stmt{{Position: s.Position, Semicolon: s.Semicolon, Cmd: &syntax.CallExpr{Args: []*syntax.Word{cat}}, Redirs: s.Redirs}}
}

// substs walks every command or process substitution inside n, and the
// statements of n when it is a compound command.
func (w *walker) substs(n syntax.Node) {
	w.substsFed(n, -1)
}

// substsFed is substs for the words of command fed (an index into the
// line's commands, or -1 for a compound command): the commands of an
// output process substitution, tee >(sh), read what it writes.
func (w *walker) substsFed(n syntax.Node, fed int) {
	if x, ok := n.(*syntax.Word); ok && plainWord(x) {
		return // most words: nothing to walk
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt: // the statements of a compound command
			w.stmt(n)
			return false
		case *syntax.CmdSubst:
			w.substStmts(n.Stmts)
			return false
		case *syntax.ProcSubst:
			start := len(w.st.line.Commands)
			w.substStmts(n.Stmts)
			if n.Op == syntax.CmdOut {
				w.fedBy(fed, start)
			}
			return false
		}
		return true
	})
}

// fedBy records that the commands from start on, those of an output
// process substitution, read what command from writes (-1: a compound
// command): a shell among them reads its script from it, as in a pipe
// (curl x > >(sh) is curl x | sh), and the line gets that pipeline, after
// the stages that feed from.
func (w *walker) fedBy(from, start int) {
	line := w.st.line
	if start >= len(line.Commands) {
		return
	}
	var prev []int
	if from >= 0 {
		prev = []int{from}
	}
	w.pipedScript(prev, start)
	if from < 0 {
		return
	}
	inner := make([]int, 0, len(line.Commands)-start)
	for k := start; k < len(line.Commands); k++ {
		inner = append(inner, k)
	}
	p := append(w.feeds.all(nil), prev, inner)
	line.Pipelines = append(line.Pipelines, p)
}

// redirSubstsAt is redirSubsts for the redirections of a compound
// command: their substitutions run before it, where the directory was st.
func (w *walker) redirSubstsAt(st dirState, redirs []*syntax.Redirect) {
	if len(redirs) == 0 {
		return
	}
	if !st.equal(*w.cd) {
		w = w.scopedAt(st)
	}
	w.redirSubsts(redirs, -1)
}

// redirSubsts walks the substitutions in redirs, those of command fed
// (see substsFed).
func (w *walker) redirSubsts(redirs []*syntax.Redirect, fed int) {
	for _, r := range redirs {
		if r != nil && r.Word != nil {
			w.substsFed(r.Word, fed)
		}
		if r != nil && r.Hdoc != nil {
			w.substs(r.Hdoc)
		}
	}
}

// hasProcSubst reports a process substitution anywhere inside x.
func hasProcSubst(x *syntax.Word) bool {
	found := false
	if x != nil {
		syntax.Walk(x, func(n syntax.Node) bool {
			if _, ok := n.(*syntax.ProcSubst); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

// hasSubst reports a command or process substitution anywhere inside n.
func hasSubst(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// wordHasSubst is hasSubst for a word, skipping the walk for plain words.
func wordHasSubst(x *syntax.Word) bool {
	return x != nil && !plainWord(x) && hasSubst(x)
}

// plainWord reports a word of literal and single-quoted parts only, which
// can hold no command.
func plainWord(x *syntax.Word) bool {
	for _, p := range x.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// pipeline walks a | b | c, recording the commands of each stage.
func (w *walker) pipeline(s *syntax.Stmt) {
	var stages []*syntax.Stmt
	flattenPipe(s, &stages)
	line := w.st.line
	pi := len(line.Pipelines)
	line.Pipelines = append(line.Pipelines, nil)
	p := make(Pipeline, len(stages))
	for i, stage := range stages {
		start := len(line.Commands)
		sw := w.scoped() // each stage runs in a subshell
		sw.feeds = feed{outer: &w.feeds, stages: p, n: i}
		sw.stmt(stage)
		if i > 0 {
			sw.pipedScript(p[i-1], start)
		}
		idx := make([]int, 0, len(line.Commands)-start)
		for k := start; k < len(line.Commands); k++ {
			idx = append(idx, k)
		}
		p[i] = idx
	}
	line.Pipelines[pi] = p
}

func flattenPipe(s *syntax.Stmt, out *[]*syntax.Stmt) {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		for _, x := range []*syntax.Stmt{b.X, b.Y} {
			if x == nil {
				continue
			}
			if xb, ok := x.Cmd.(*syntax.BinaryCmd); ok && (xb.Op == syntax.Pipe || xb.Op == syntax.PipeAll) &&
				len(x.Redirs) == 0 && !x.Negated && !x.Background {
				flattenPipe(x, out)
				continue
			}
			*out = append(*out, x)
		}
		return
	}
	*out = append(*out, s)
}

// pipedScript handles echo 'rm -rf /' | sh: a shell reading its script
// from a pipe fed by an echo or printf of static text runs that text. Fed
// by anything else (curl, cat, a here-string into cat), what it runs is
// not known before it runs. An interpreter fed a static program that way
// has it scanned; fed otherwise, it runs a program file in effect, which
// is left to the effects table. Every command the stage spells out, past
// shell bodies, reads the pipe: those of a group or subshell (curl x |
// (cd /tmp && sh)), and those the stage's program may run (echo 'rm -rf
// ~' | faketime now sh; see guess); not those another runs with its own
// input (find -exec, xargs), which share its outer layer.
func (w *walker) pipedScript(prev []int, start int) {
	cmds := w.st.line.Commands
	n := len(cmds)
	for k := start; k < n; k++ {
		if cmds[k].Depth != cmds[start].Depth || len(cmds[k].Layers) == 0 || len(cmds[k].Layers[0]) == 0 {
			continue
		}
		derived := false
		for j := start; j < k && !derived; j++ {
			derived = len(cmds[j].Layers) > 0 && len(cmds[j].Layers[0]) > 0 && &cmds[j].Layers[0][0] == &cmds[k].Layers[0][0]
		}
		if k == start || cmds[k].Guessed || !derived {
			w.pipedTo(prev, k)
		}
	}
}

// pipedTo is pipedScript for the command at start.
func (w *walker) pipedTo(prev []int, start int) {
	m := w.st.meta
	if start < len(m) && m[start].stdinLang != "" {
		if len(prev) == 1 && m[prev[0]].hasData {
			w.foreignScript(start, m[start].stdinLang, m[prev[0]].data)
		} else if c := &w.st.line.Commands[start]; c.Unknown == "" {
			c.Unknown = fmt.Sprintf("%s reads its %s script from a pipe, which is not static", c.Argv[0], m[start].stdinLang)
		}
		return
	}
	if start < len(m) && m[start].stdinCode != nil {
		if len(prev) == 1 && m[prev[0]].hasData {
			w.code(start, *m[start].stdinCode, m[prev[0]].data)
		}
		return
	}
	if len(prev) == 1 && m[prev[0]].hasData {
		w.xargsFed(start, m[prev[0]].data)
	}
	if start >= len(m) || !m[start].stdinShell {
		return
	}
	if len(prev) != 1 || !m[prev[0]].hasData {
		c := &w.st.line.Commands[start]
		if c.Unknown == "" {
			c.Unknown = c.Argv[0] + " reads its script from a pipe, which is not static"
		}
		return
	}
	w.body(start, script{src: m[prev[0]].data})
}

// aliases notes the aliases an alias command defines, and walks a
// command named by one defined earlier in the line as the alias's text
// with its arguments (alias c=cat; c .env: where aliases are expanded, as
// in a shell that sources a user's aliases, that is cat .env).
func (w *walker) aliases(idx int, name string, inner []word) {
	c := &w.st.line.Commands[idx]
	if name == "alias" {
		for _, x := range inner[1:] {
			n, v, ok := strings.Cut(x.s, "=")
			if ok && !x.dyn && !strings.HasPrefix(n, "-") {
				if w.st.aliases == nil {
					w.st.aliases = map[string]string{}
				}
				w.st.aliases[n] = v
			}
		}
		return
	}
	v, ok := w.st.aliases[name]
	if !ok || hasWord(w.alias, name) || len(c.Layers) != 1 || c.Dynamic || c.Depth >= MaxDepth {
		return // (an alias is not expanded within its own text, nor its expansions')
	}
	w.body(idx, script{src: v + " " + joinQuoted(inner[1:], true), alias: strings.TrimSpace(w.alias + " " + name)})
}

// maxXargsLines bounds the input lines of xargs -I that are walked.
const maxXargsLines = 64

// xargsFed walks, when the command at idx is xargs fed by an echo or printf
// of static text (echo .env | xargs cat), the command it runs with that
// text: its words appended, or each line in place of -I's replace string.
func (w *walker) xargsFed(idx int, data string) {
	if idx >= len(w.st.line.Commands) {
		return
	}
	c := &w.st.line.Commands[idx]
	li := 0 // the xargs layer, under any wrappers (timeout 5 xargs cat)
	for li < len(c.Layers)-1 && c.Layers[li][0] != "xargs" {
		li++
	}
	if li == len(c.Layers)-1 || c.Unknown != "" {
		return
	}
	hits, op, why := xargsOpts.scan(lits(c.Layers[li]))
	if why != "" || op >= len(c.Layers[li]) {
		return
	}
	hole, _ := xargsReplace(hits)
	inner := c.Layers[li][op:]
	for _, x := range inner {
		if hole != "" {
			x = strings.ReplaceAll(x, hole, "")
		}
		if DynamicWord(x) {
			return
		}
	}
	base := Command{Depth: c.Depth, Redirects: c.Redirects, Implied: "xargs fed static text", Guessed: c.Guessed}
	if hole == "" {
		w.simple(lits(append(slices.Clip(inner), strings.Fields(data)...)), base, outerLayers{}, nil)
		return
	}
	lines := strings.Split(strings.TrimRight(data, "\n"), "\n")
	if len(lines) > maxXargsLines {
		return
	}
	for _, line := range lines {
		words := make([]string, len(inner))
		for i, x := range inner {
			words[i] = strings.ReplaceAll(x, hole, strings.TrimSpace(line))
		}
		w.simple(lits(words), base, outerLayers{}, nil)
	}
}

// assignText renders an assignment as NAME=value (NAME+=value, NAME[i]=v).
func (w *walker) assignText(a *syntax.Assign) string {
	if a == nil {
		return ""
	}
	if a.Name == nil {
		return w.word(a.Value).s
	}
	var b strings.Builder
	b.WriteString(a.Name.Value)
	if a.Index != nil {
		b.WriteString("[" + w.text(a.Index) + "]")
	}
	if a.Naked {
		return b.String()
	}
	if a.Append {
		b.WriteByte('+')
	}
	b.WriteByte('=')
	switch {
	case a.Array != nil:
		b.WriteString(w.text(a.Array))
	case a.Value != nil:
		b.WriteString(w.word(a.Value).s)
	}
	return b.String()
}

// redirect normalizes one redirection.
func (w *walker) redirect(r *syntax.Redirect) redir {
	var out redir
	if r == nil {
		return out
	}
	if r.N != nil {
		out.Op = r.N.Value
	}
	out.Op += r.Op.String()
	out.subst = wordHasSubst(r.Word) || wordHasSubst(r.Hdoc)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return out // data, not a file
	}
	t := w.word(r.Word)
	out.Target, out.Dynamic = t.s, t.dyn
	switch r.Op {
	case syntax.RdrIn:
		out.File = true
	case syntax.DplIn, syntax.DplOut:
		// 2>&1, >&-, 3>&2- duplicate or close descriptors; >&file (and a
		// target unknown until run time) writes a file.
		fd := strings.TrimSuffix(t.s, "-")
		if !t.dyn && (fd == "" || allDigits(fd)) {
			return out
		}
		out.File = true
		out.Write = r.Op == syntax.DplOut
	default:
		out.File, out.Write = true, true
	}
	return out
}

// callOnce normalizes a simple command, with the variables bound as they
// are in w.
func (w *walker) callOnce(ce *syntax.CallExpr, redirs []*syntax.Redirect) {
	subst := false
	var assigns []string
	for _, a := range ce.Assigns {
		assigns = append(assigns, w.assignText(a))
		subst = subst || a != nil && (wordHasSubst(a.Value) || a.Array != nil && hasSubst(a.Array))
	}
	for _, a := range ce.Args {
		subst = subst || wordHasSubst(a)
	}
	rds := make([]Redirect, 0, len(redirs)+len(w.inherited))
	for _, r := range redirs {
		rd := w.redirect(r)
		rds = append(rds, rd.Redirect)
		subst = subst || rd.subst
	}
	for _, rd := range w.inherited {
		rds = append(rds, rd.Redirect)
		subst = subst || rd.subst
	}
	if len(rds) == 0 {
		rds = nil
	}
	base := Command{Assigns: assigns, Redirects: rds, Substitution: subst, Depth: w.depth}
	switch {
	case len(ce.Args) > 0:
		w.splice = true
		words := w.argWords(ce.Args)
		w.splice = false
		w.simple(words, base, w.findLayers, redirs)
	case len(redirs) > 0:
		// "> f" alone truncates f: report it as the null command ":" so
		// the write is not lost with the missing program.
		base.Implied = "redirection without a command"
		w.simple([]word{{s: ":"}}, base, outerLayers{}, nil)
	default:
		w.st.line.Assigns = append(w.st.line.Assigns, assigns...)
		w.startupVars(assigns, base, false)
		w.st.cdpath = w.st.cdpath || setsCDPATH(assigns)
		w.st.gitEnv = appendGitEnv(w.st.gitEnv, assigns)
		w.bashAliases(ce.Assigns)
	}
}

// call normalizes a simple command and walks what is nested in it.
func (w *walker) call(ce *syntax.CallExpr, redirs []*syntax.Redirect) {
	before := *w.cd
	fed := len(w.st.line.Commands) // the command simple adds first, if it adds one
	alts := w.varAlternatives(ce.Args, redirs)
	if alts == nil {
		w.callOnce(ce, redirs)
	} else {
		// Once per combination of its variables' values, each from where
		// the command starts; it ends in any of the directories they reach.
		ends := make([]dirState, 0, len(alts))
		for _, b := range alts {
			*w.cd = before
			w.bind = b
			w.callOnce(ce, redirs)
			ends = append(ends, *w.cd)
		}
		w.bind = nil
		*w.cd = joinDirs(ends...)
	}
	pre := w
	if !before.equal(*w.cd) { // substitutions run before the command: its cd does not move them
		pre = w.scopedAt(before)
	}
	for _, a := range ce.Assigns {
		if a != nil {
			pre.substs(a)
		}
	}
	if fed >= len(w.st.line.Commands) {
		fed = -1
	}
	for _, a := range ce.Args {
		if a != nil {
			pre.substsFed(a, fed)
		}
	}
	pre.redirSubsts(redirs, fed)
}

// decl handles export, declare, local, readonly, typeset and nameref,
// which the parser keeps apart from simple commands.
func (w *walker) decl(d *syntax.DeclClause, redirs []*syntax.Redirect) {
	words := []word{{s: "declare"}}
	if d.Variant != nil {
		words[0].s = d.Variant.Value
	}
	subst := false
	for _, a := range d.Args {
		if a == nil {
			continue
		}
		if a.Name == nil && a.Value != nil {
			words = append(words, w.word(a.Value))
		} else {
			v := w.word(a.Value)
			words = append(words, word{s: w.assignText(a), dyn: v.dyn, shape: string(Spread)})
		}
		subst = subst || wordHasSubst(a.Value) || a.Array != nil && hasSubst(a.Array)
	}
	var rds []Redirect
	for _, r := range redirs {
		rd := w.redirect(r)
		rds = append(rds, rd.Redirect)
		subst = subst || rd.subst
	}
	for _, rd := range w.inherited {
		rds = append(rds, rd.Redirect)
		subst = subst || rd.subst
	}
	w.st.cdpath = w.st.cdpath || setsCDPATH(strs(words[1:]))
	w.st.gitEnv = appendGitEnv(w.st.gitEnv, strs(words[1:]))
	w.simple(words, Command{Redirects: rds, Substitution: subst, Depth: w.depth}, outerLayers{}, redirs)
	w.startupVars(strs(words[1:]), Command{Depth: w.depth}, false)
	for _, a := range d.Args {
		if a != nil {
			w.substs(a)
		}
	}
	w.redirSubsts(redirs, -1)
}

// add appends a command to the line.
func (w *walker) add(c Command, m cmdMeta) int {
	line := w.st.line
	if len(line.Commands) >= maxCommands {
		w.fail(fmt.Errorf("%w: it holds more than %d commands", ErrTooLarge, maxCommands))
		return -1
	}
	line.Commands = append(line.Commands, c)
	w.st.meta = append(w.st.meta, m)
	return len(line.Commands) - 1
}

// outerLayers are the layers of an enclosing find, and their shapes when
// that find is dynamic.
type outerLayers struct {
	layers [][]string
	shapes [][]string
}

// layerShapes is [Command.Shapes] of an unwrapped command inside outer.
func layerShapes(u unwrapped, outer outerLayers) [][]string {
	flat := make([]string, len(u.flat), len(u.flat)+1)
	for i, x := range u.flat {
		flat[i] = shapeOf(x)
	}
	for _, s := range u.starts {
		if !u.flat[s].dyn {
			flat[s] = progName(u.flat[s])
		}
	}
	shapes := make([][]string, 0, len(outer.layers)+len(u.starts))
	for i, l := range outer.layers {
		if outer.shapes != nil {
			shapes = append(shapes, outer.shapes[i])
		} else {
			shapes = append(shapes, l)
		}
	}
	appended := flat
	if u.appendBy != "" {
		appended = append(flat, string(Spread))
	}
	for k, s := range u.starts {
		if u.appendBy != "" && k >= u.appendFrom {
			shapes = append(shapes, u.layer(appended, k, s))
		} else {
			shapes = append(shapes, u.layer(flat, k, s))
		}
	}
	return shapes
}

// bin is the name the k-th layer's program runs by when its word is a
// package spec, or "".
func (u *unwrapped) bin(k int) string {
	if k < len(u.bins) {
		return u.bins[k]
	}
	return ""
}

// layer is the k-th layer, starting at s in flat (the words or their
// shapes): a suffix of flat, or a copy with its program renamed.
func (u *unwrapped) layer(flat []string, k, s int) []string {
	bin := u.bin(k)
	if bin == "" {
		return flat[s:]
	}
	return append([]string{bin}, flat[s+1:]...)
}

// simple unwraps and records one command given its words, then what it
// runs: its shell bodies and its find -exec commands. outer holds the
// layers of an enclosing find; stmtRedirs are the command's own
// redirections (a heredoc may feed a shell its script).
func (w *walker) simple(words []word, base Command, outer outerLayers, stmtRedirs []*syntax.Redirect) {
	if len(words) == 0 || w.st.err != nil {
		return
	}
	u := unwrap(words, w.appendBy)
	c := base
	if len(u.assigns) > 0 {
		c.Assigns = append(append([]string(nil), base.Assigns...), u.assigns...)
	}
	flat := strs(u.flat)
	for _, s := range u.starts {
		flat[s] = progName(u.flat[s])
	}
	c.Layers = make([][]string, 0, len(outer.layers)+len(u.starts))
	c.Layers = append(c.Layers, outer.layers...)
	for k, s := range u.starts {
		c.Layers = append(c.Layers, u.layer(flat, k, s))
	}
	last := u.starts[len(u.starts)-1]
	c.Argv = c.Layers[len(c.Layers)-1]
	c.Path = c.Argv[0]
	if u.bin(len(u.starts)-1) == "" {
		c.Path = u.flat[last].s
	}
	c.Unknown = u.unknown
	c.Guessed = c.Guessed || w.guessed
	if u.implied != "" {
		c.Implied = u.implied
	}
	c.Dynamic = base.Dynamic || u.runtime || w.runtime || u.appendBy != ""
	for _, x := range u.flat {
		c.Dynamic = c.Dynamic || x.dyn
	}
	if c.Dynamic {
		c.Shapes = layerShapes(u, outer)
	}
	if w.cd.unknown || u.chdir {
		c.DirUnknown = true
	} else {
		c.Dirs = w.cd.dirs
	}
	inner := u.flat[last:]
	var m cmdMeta
	if c.Unknown == "" && !c.Dynamic && !c.Substitution {
		m.data, m.hasData = echoData(c.Argv)
	}
	idx := w.add(c, m)
	if idx < 0 || c.Unknown != "" {
		return
	}
	if len(c.Assigns) > 0 {
		w.startupVars(c.Assigns, base, c.Argv[0] == "git") // PS4='$(rm -rf ~)' bash -xc true
	}
	name := c.Argv[0]
	if v, ok := npmNodeOptions(name, inner[1:]); ok {
		w.startupVars([]string{"NODE_OPTIONS=" + v}, base, false) // npm test --node-options=...
	}
	if outer.layers == nil && (name == "cd" || name == "pushd" || name == "popd") && inShell(&c) {
		switch ch, op := cdOf(name, inner[1:], w.st.cdpath || setsCDPATH(c.Assigns)); ch {
		case cdTo:
			*w.cd = w.cd.to(op)
		case cdUnknown:
			*w.cd = unknownDir
		}
	}

	w.recordWrites(idx, name, inner, m, stmtRedirs)
	w.aliases(idx, name, inner)
	b := bodies(name, inner)
	w.runsWritten(idx, name, inner, b)
	w.runsWrittenFile(idx, name)
	w.runsFromDisk(idx, name, inner)
	w.rewritesRunFiles(name, inner[1:]) // for the commands after it
	if w.st.line.Commands[idx].Unknown != "" {
		return
	}
	if b.elsewhere { // its scripts run where this line cannot tell
		w.st.line.Commands[idx].Dirs, w.st.line.Commands[idx].DirUnknown = nil, true
	}
	switch {
	case b.why != "":
		w.st.line.Commands[idx].Unknown = b.why
		return
	case b.missing != "" && u.appendBy != "":
		w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s supplied at run time by %s", b.missing, u.appendBy)
		return
	case b.stdin:
		if src, ok, why := heredocScript(w, stmtRedirs); why != "" {
			w.st.line.Commands[idx].Unknown = why
			return
		} else if ok {
			if src != "" {
				w.body(idx, script{src: src})
			}
		} else if u.appendBy == "" {
			// (With xargs or parallel appending arguments, the shell gets
			// file names, not a script on its input.)
			w.st.meta[idx].stdinShell = true
		}
	}
	if b.input != "" {
		w.st.line.Commands[idx].Unknown = b.input
	}
	for _, s := range b.scripts {
		w.body(idx, s)
	}
	if b.stdinLang != "" {
		w.stdinScript(idx, b.stdinLang, stmtRedirs)
	}
	if name == "git" {
		w.gitIndirect(idx, inner)
	}

	ol, oneLiner := oneLinerOf(name, inner)
	if oneLiner {
		w.interpreter(idx, ol, stmtRedirs, u.appendBy)
	}
	if name == "find" {
		w.find(idx, inner, base)
	}
	if what, files := impliedDeletes(name, inner); len(files) > 0 {
		w.impliedDelete(idx, base, what, files)
	}
	if !KnownProgram(name) {
		w.guess(idx, inner, base, stmtRedirs)
	} else if k := scriptOperand(name, inner, b, oneLiner); k > 0 {
		w.guess(idx, inner[k:], base, stmtRedirs) // bash wrapper.sh rm -rf ~: the script may run its arguments
	}
}

// impliedDelete records the rm -r -f of paths that the command at idx
// deletes without being rm (find -delete, rimraf ~, tar --remove-files),
// wrapped by it.
func (w *walker) impliedDelete(idx int, base Command, what string, paths []word) {
	fc := &w.st.line.Commands[idx]
	layers := outerLayers{layers: fc.Layers, shapes: fc.Shapes}
	del := Command{Assigns: base.Assigns, Redirects: base.Redirects, Substitution: base.Substitution, Depth: w.depth, Implied: what}
	w.simple(append([]word{{s: "rm"}, {s: "-r"}, {s: "-f"}}, paths...), del, layers, nil)
}

// startupVars walks the code that assignments give a shell, or another
// program, to run later: PS0 to PS4 are expanded when it prompts or traces
// (PS4='$(rm -rf ~)' bash -xc true runs rm), PROMPT_COMMAND is a command,
// and BASH_ENV and ENV name a file it reads at start (from a process
// substitution, not static); a pager, an editor or a browser is a command
// that man, less, crontab -e, gh, systemctl and many more run with a shell
// (PAGER='sh -c "rm -rf ~"' man ls; git reads its own, see gitEnvKey);
// LESS's +CMD is a command less runs at start; NODE_OPTIONS (and npm's
// node-options), PERL5OPT, PERL5DB and MAKEFLAGS's --eval may hold code
// for every node, perl or make the command starts; and a BASH_FUNC_f%%
// variable is a function bash defines. Each such assignment is reported as an implied null command ":" holding
// that code, with base's redirections. forGit: they are given to git, which
// reads the program variables as its configuration.
func (w *walker) startupVars(assigns []string, base Command, forGit bool) {
	for _, a := range assigns {
		name, v, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		var src, why string
		key := strings.TrimSuffix(name, "+")
		switch {
		case strings.EqualFold(key, "npm_config_node_options"):
			key = "NODE_OPTIONS" // npm gives its scripts' node the node-options setting
		case strings.HasPrefix(key, "BASH_FUNC_") && strings.HasSuffix(key, "%%"):
			key = "BASH_FUNC_"
		}
		switch key {
		case "BASH_FUNC_":
			// env 'BASH_FUNC_ls%%=() { ...; }' bash -c ls: bash defines
			// the function ls from its environment.
			src = strings.TrimSuffix(strings.TrimPrefix(name, "BASH_FUNC_"), "%%") + " " + v
		case "MAKEFLAGS", "GNUMAKEFLAGS":
			// make reads options from them, --eval's makefile text among
			// them (MAKEFLAGS='--eval=x:;rm -rf ~' make x).
			if !strings.Contains(v, "eval") && !strings.Contains(v, "-E") {
				continue
			}
			src = "make " + quoteAll(optionWords(v, false))
		case "PERL5DB":
			src = "perl -e " + Quote(v) // the debugger perl -d runs: perl code
		case "PS0", "PS1", "PS2", "PS3", "PS4":
			if !strings.Contains(v, "$(") && !strings.Contains(v, "`") {
				continue
			}
			src = ": " + v
		case "PROMPT_COMMAND":
			src = v
		case "LESSOPEN", "LESSCLOSE":
			// "|cmd %s" (or "||cmd %s", "cmd %s %s"): less runs it with a
			// shell, %s the file.
			src = strings.ReplaceAll(strings.TrimLeft(strings.TrimPrefix(v, "-"), "|"), "%s", "FILE")
		case "NODE_OPTIONS", "PERL5OPT":
			// Options every node (npm's scripts among them) or perl
			// takes: a data: URL node imports, or perl's -M with code,
			// is a program (NODE_OPTIONS='--import=data:,CODE' npm test).
			prog, opts := "node", optionWords(v, true)
			if key == "PERL5OPT" {
				prog, opts = "perl", strings.Fields(v) // perl splits it at white space, quotes and all
			}
			if !slices.ContainsFunc(opts, func(o string) bool { return optionHoldsCode(prog, o) }) {
				continue
			}
			src = prog + " " + quoteAll(opts) + " FILE"
		case "LESS":
			// less takes its options from LESS: +CMD runs to the end of
			// the value, or to a $.
			at := strings.Index(" "+v, " +")
			if at < 0 {
				continue
			}
			cmd, _, _ := strings.Cut(v[at:], "$")
			r := lessBodies([]word{{s: "less"}, {s: cmd}})
			if len(r.scripts) == 0 && r.why == "" {
				continue
			}
			why = r.why
			for _, sc := range r.scripts {
				src += sc.src + "\n"
			}
		case "BASH_ENV", "ENV":
			if !strings.Contains(v, "<(") && !strings.Contains(v, ">(") {
				continue // a file: running it is the effects table's business, as for bash FILE
			}
			why = fmt.Sprintf("a shell reads its startup file %s from a process substitution, which is not static", name)
		default:
			if !programVar(name) || forGit {
				continue
			}
			src = strings.ReplaceAll(v, "%s", "FILE") // BROWSER's %s is the address
		}
		idx := len(w.st.line.Commands)
		w.simple([]word{{s: ":"}}, Command{Redirects: base.Redirects, Depth: w.depth, Implied: "an assignment of " + name + ", code run later"}, outerLayers{}, nil)
		if idx >= len(w.st.line.Commands) {
			return
		}
		if why != "" {
			w.st.line.Commands[idx].Unknown = why
			continue
		}
		w.body(idx, script{src: src})
	}
}

// stdinScript walks a script in lang that a command reads from a heredoc
// or here-string, or marks it to be fed by the pipeline stage before it.
func (w *walker) stdinScript(idx int, lang string, redirs []*syntax.Redirect) {
	switch src, ok, why := heredocScript(w, redirs); {
	case why != "":
		w.st.line.Commands[idx].Unknown = why
	case ok:
		w.foreignScript(idx, lang, src)
	default:
		w.st.meta[idx].stdinLang = lang
	}
}

// optionWords splits a variable that holds options into words: as node
// reads NODE_OPTIONS (quotes: at spaces outside double quotes, which it
// drops, a backslash in them escaping the next character), or as make
// reads MAKEFLAGS (at blanks, a backslash escaping the next character).
func optionWords(v string, quotes bool) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && (quoted || !quotes) && i+1 < len(v):
			i++
			cur.WriteByte(v[i])
		case c == '"' && quotes:
			quoted = !quoted
		case (c == ' ' || c == '\t' && !quotes) && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
			continue
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// npmNodeOptions is the node-options setting a package manager's command
// gives the node its scripts run: npm test --node-options=V, npm config
// set node-options V. ok is false when it gives none, or only at run time.
func npmNodeOptions(name string, args []word) (string, bool) {
	if name != "npm" && name != "pnpm" && name != "yarn" {
		return "", false
	}
	for i, a := range args {
		if a.dyn {
			continue
		}
		if v, ok := strings.CutPrefix(a.s, "--node-options="); ok {
			return v, true
		}
		if (a.s == "--node-options" || a.s == "node-options") && i+1 < len(args) && !args[i+1].dyn {
			return args[i+1].s, true
		}
		if v, ok := strings.CutPrefix(a.s, "node-options="); ok {
			return v, true
		}
	}
	return "", false
}

// optionHoldsCode reports an option of node or perl given in the
// environment that holds a program: a data: URL, perl's -M with code.
func optionHoldsCode(prog, o string) bool {
	if prog == "node" {
		return strings.Contains(o, "data:")
	}
	spec, ok := strings.CutPrefix(o, "-M")
	if !ok {
		spec, ok = strings.CutPrefix(o, "-m")
	}
	return ok && !plainPerlModule(spec)
}

// programVar reports the variables that name a pager, an editor or a
// browser, commands programs run with a shell.
func programVar(name string) bool {
	switch name {
	case "PAGER", "MANPAGER", "SYSTEMD_PAGER", "GH_PAGER", "AWS_PAGER", "PSQL_PAGER", "BAT_PAGER",
		"EDITOR", "VISUAL", "SUDO_EDITOR", "GH_EDITOR", "KUBE_EDITOR", "FCEDIT", "BROWSER":
		return true
	}
	return false
}

// appendGitEnv adds the assignments among words that give git
// configuration (GIT_CONFIG*, GIT_SSH_COMMAND, ...) to env.
func appendGitEnv(env, words []string) []string {
	for _, a := range words {
		name, _, ok := strings.Cut(a, "=")
		if ok && (strings.HasPrefix(name, "GIT_CONFIG") || gitEnvKey(name) != "") {
			env = append(env, a)
		}
	}
	return env
}

// bashAliases reports an assignment to BASH_ALIASES[name] as the alias it
// defines, so that its body is walked as alias's is.
func (w *walker) bashAliases(assigns []*syntax.Assign) {
	for _, a := range assigns {
		if a == nil || a.Name == nil || a.Name.Value != "BASH_ALIASES" || a.Index == nil || a.Value == nil {
			continue
		}
		name := word{s: w.text(a.Index), dyn: true}
		if ix, ok := a.Index.(*syntax.Word); ok {
			name = w.word(ix)
		}
		v := w.word(a.Value)
		def := word{s: name.s + "=" + v.s, dyn: name.dyn || v.dyn, shape: string(Spread)}
		w.simple([]word{{s: "alias"}, def}, Command{Implied: "an assignment to BASH_ALIASES", Depth: w.depth}, outerLayers{}, nil)
	}
}

// find records the commands a find runs: each -exec as its own command
// wrapped by the find, and -delete as an implied rm -r -f of the roots.
func (w *walker) find(idx int, l []word, base Command) {
	r := findActions(l)
	if r.why != "" {
		w.st.line.Commands[idx].Unknown = r.why
	}
	fc := &w.st.line.Commands[idx]
	layers := outerLayers{layers: fc.Layers, shapes: fc.Shapes}
	// Its commands run where the find runs (-execdir: where each file is).
	w = w.scopedAt(dirState{dirs: fc.Dirs, unknown: fc.DirUnknown})
	w.appendBy = "" // arguments appended to the find do not reach its -exec commands
	child := Command{Assigns: base.Assigns, Redirects: base.Redirects, Substitution: base.Substitution, Depth: w.depth}
	for i, ex := range r.execs {
		if r.inDir[i] {
			w.scopedAt(unknownDir).simple(ex, child, layers, nil)
			continue
		}
		w.simple(ex, child, layers, nil)
	}
	if r.delete != nil {
		w.impliedDelete(idx, base, "find -delete", r.delete)
	}
}

// body parses and walks a script a command runs, one level deeper.
func (w *walker) body(idx int, s script) {
	c := &w.st.line.Commands[idx]
	if w.depth+1 > MaxDepth {
		c.Unknown = fmt.Sprintf("shell bodies nest deeper than %d", MaxDepth)
		return
	}
	w.st.bodyBytes += len(s.src)
	if w.st.bodyBytes > maxBodyBytes {
		c.Unknown = fmt.Sprintf("nested bodies exceed %d bytes", maxBodyBytes)
		return
	}
	if nestsDeeper(s.src, maxParseNest) {
		c.Unknown = fmt.Sprintf("its %s body nests deeper than %d levels", c.Argv[0], maxParseNest)
		return
	}
	f, err := w.st.parser.Parse(strings.NewReader(s.src), "")
	if err != nil {
		c.Unknown = fmt.Sprintf("parse %s body: %v", c.Argv[0], err)
	}
	if f == nil {
		return
	}
	// The body starts where its command runs. Only eval and source run it
	// in this shell, so only their cd's outlive it.
	cd := &dirState{dirs: c.Dirs, unknown: c.DirUnknown}
	if (c.Argv[0] == "eval" || c.Argv[0] == "source" || c.Argv[0] == ".") && inShell(c) {
		cd = w.cd
	} else if s.dir != "" {
		*cd = cd.to(s.dir)
	}
	sub := &walker{st: w.st, src: s.src, depth: w.depth + 1, nest: w.nest, holes: s.holes, runtime: s.runtime, appendBy: s.appendBy, cd: cd, alias: s.alias,
		guessed: w.guessed || c.Guessed}
	if len(c.Layers) > 1 && c.Layers[0][0] == "find" {
		sub.findLayers = outerLayers{layers: c.Layers, shapes: c.Shapes}
	}
	sub.collectVars(f, false)
	sub.positional(s.params)
	// The body's commands read and write through its command's descriptors:
	// in sh -c cat < .env, cat reads .env. (A heredoc that feeds a shell
	// is its script, not its commands' input.)
	for _, r := range c.Redirects {
		if r.File {
			sub.inherited = append(sub.inherited, redir{Redirect: r})
		}
	}
	sub.stmts(f.Stmts)
}

// heredocScript returns the script a heredoc or here-string feeds a shell
// on standard input (bash <<'EOF' ... EOF). ok is false when standard
// input is not one; why is set when it is one that is not static.
func heredocScript(w *walker, redirs []*syntax.Redirect) (src string, ok bool, why string) {
	var last *syntax.Redirect
	for _, r := range redirs {
		if r == nil || r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			last = r
		}
	}
	if last == nil {
		return "", false, ""
	}
	switch last.Op {
	case syntax.WordHdoc:
		x := w.word(last.Word)
		if x.dyn {
			return "", false, fmt.Sprintf("here-string script is not static: %s", x.s)
		}
		return x.s + "\n", true, ""
	case syntax.Hdoc, syntax.DashHdoc:
	case syntax.RdrIn:
		if hasProcSubst(last.Word) {
			return "", false, fmt.Sprintf("reads its script from a process substitution, which is not static: %s", w.text(last.Word))
		}
		return "", true, "" // a file: reading it is the effects table's business
	default:
		return "", true, "" // another descriptor, not the pipe
	}
	if last.Hdoc == nil {
		return "", true, ""
	}
	quoted := false
	if last.Word != nil {
		for _, p := range last.Word.Parts {
			if l, isLit := p.(*syntax.Lit); !isLit || strings.ContainsRune(l.Value, '\\') {
				quoted = true
			}
		}
	}
	var b strings.Builder
	for _, p := range last.Hdoc.Parts {
		l, isLit := p.(*syntax.Lit)
		if !isLit {
			return "", false, fmt.Sprintf("heredoc script is not static: %s", w.text(p))
		}
		if quoted {
			b.WriteString(l.Value)
		} else {
			b.WriteString(unescapeHeredoc(l.Value))
		}
	}
	return b.String(), true, ""
}

// echoData returns what echo or printf writes when that is plain text
// known statically (no echo -e escapes, no printf directives).
func echoData(argv []string) (string, bool) {
	switch argv[0] {
	case "echo":
		args := argv[1:]
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-E") {
			args = args[1:]
		}
		if len(args) > 0 && strings.HasPrefix(args[0], "-e") {
			return "", false
		}
		return strings.Join(args, " ") + "\n", true
	case "printf":
		if len(argv) < 2 || strings.HasPrefix(argv[1], "-") {
			return "", false
		}
		return printfData(ansiC(argv[1]), argv[2:])
	}
	return "", false
}

// printfData is what printf FORMAT ARGS... writes when FORMAT holds no
// conversion but %s and %%: the format again for each further round of
// arguments, as printf does.
func printfData(format string, args []string) (string, bool) {
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			if format[i] != '%' {
				b.WriteByte(format[i])
				continue
			}
			if i+1 >= len(format) {
				return "", false
			}
			i++
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's':
				if used < len(args) {
					b.WriteString(args[used])
				}
				used++
			default:
				return "", false
			}
		}
		if used == 0 || used >= len(args) {
			return b.String(), true
		}
		args = args[used:]
		if b.Len() > maxBodyBytes {
			return "", false
		}
	}
}
