package shellcmd

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDirs bounds the directory changes a command carries: past it, the
// directory is unknown, so that a line of many cd's costs no more than
// maxCommands * maxDirs.
const maxDirs = 64

// dirState is the directory changes in force at one point of the walk:
// what [Command.Dirs] and [Command.DirUnknown] report.
type dirState struct {
	dirs    []string // clipped: appending always copies, so commands share it safely
	unknown bool
}

var unknownDir = dirState{unknown: true}

func (d dirState) equal(o dirState) bool {
	return d.unknown == o.unknown && slices.Equal(d.dirs, o.dirs)
}

// joinDirs is where a command runs when it may follow either state.
func joinDirs(states ...dirState) dirState {
	for _, s := range states[1:] {
		if !s.equal(states[0]) {
			return unknownDir
		}
	}
	return states[0]
}

// to applies a static cd operand: relative to the directory in force, or
// from scratch for an absolute path or one under "~" (which makes an
// unknown directory known again).
func (d dirState) to(op string) dirState {
	if strings.HasPrefix(op, "/") || op == "~" || strings.HasPrefix(op, "~/") {
		if d.unknown {
			return dirState{dirs: []string{op}}
		}
	} else if d.unknown {
		return d
	}
	if len(d.dirs) >= maxDirs {
		return unknownDir
	}
	return dirState{dirs: append(slices.Clip(d.dirs), op)}
}

// scoped returns a walker for a scope whose directory changes end with it
// (a subshell, a pipeline stage, a substitution, a background job): it
// starts where w is and does not move w.
func (w *walker) scoped() *walker {
	return w.scopedAt(*w.cd)
}

// scopedAt is scoped, starting from st.
func (w *walker) scopedAt(st dirState) *walker {
	sub := &walker{}
	*sub = *w
	sub.own = st
	sub.cd = &sub.own
	return sub
}

// cdChange is what a command does to the shell's directory.
type cdChange int

const (
	cdNone    cdChange = iota // does not change it
	cdTo                      // changes it to a static operand
	cdUnknown                 // changes it to a directory not known statically
)

// cdOf says what a command that runs in the shell itself (cd, pushd or
// popd, maybe behind command or builtin) does to its directory, and the
// operand it changes to: "~" for HOME, "~/x" below it ($HOME and ${HOME}
// read as "~"). args are the words after the program; cdpath reports a
// CDPATH assignment earlier in the line or on the command, which makes a
// plain relative operand unknown.
func cdOf(name string, args []word, cdpath bool) (cdChange, string) {
	if name == "popd" {
		return cdUnknown, ""
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.dyn || len(a.s) < 2 || a.s[0] != '-' {
			break
		}
		if a.s == "--" {
			i++
			break
		}
		switch {
		case name == "cd" && strings.Trim(a.s[1:], "L") == "":
			// -L (logical, the default) keeps the meaning.
		case name == "pushd" && a.s == "-n":
			return cdNone, "" // adds to the stack without changing directory
		default:
			return cdUnknown, "" // -P, -e, -@, cd -, pushd -N
		}
	}
	ops := args[i:]
	if len(ops) > 0 && ops[0].s == "-" && !ops[0].dyn {
		return cdUnknown, "" // cd -: the previous directory
	}
	switch {
	case len(ops) == 0 && name == "cd":
		return cdTo, "~"
	case len(ops) != 1:
		return cdUnknown, "" // pushd alone swaps; cd a b fails or substitutes (zsh)
	}
	op := ops[0]
	if name == "pushd" && strings.HasPrefix(op.s, "+") && !op.dyn {
		return cdUnknown, ""
	}
	s, ok := cdOperand(op)
	if !ok {
		return cdUnknown, ""
	}
	if cdpath && s != "~" && !strings.HasPrefix(s, "~/") && !strings.HasPrefix(s, "/") &&
		s != "." && s != ".." && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
		return cdUnknown, "" // CDPATH may send it elsewhere
	}
	return cdTo, s
}

// cdOperand returns the operand as Dirs holds it, or false when it is not
// static: empty, a pattern, ~user, ~+, ~-, or any expansion but a leading
// $HOME or ${HOME}. A literal "$" (from single quotes) is refused too, so
// that no reader of Dirs mistakes it for an expansion.
func cdOperand(op word) (string, bool) {
	s := op.s
	if s == "" || op.glob || strings.ContainsAny(s, "*?[") {
		return "", false
	}
	rest, home := homeRest(s, op.dyn)
	switch {
	case home:
		s = "~" + rest
	case strings.HasPrefix(s, "~"):
		return "", false // ~user, ~+, ~-
	default:
		rest = s
	}
	if hasExpansion(rest) {
		return "", false
	}
	return s, true
}

// homeRest splits a leading "~", "$HOME" or "${HOME}" (the last two only
// when expand: the word was an expansion, not literal text) from what
// follows it, which is "" or starts with "/".
func homeRest(s string, expand bool) (string, bool) {
	for _, p := range []string{"~", "$HOME", "${HOME}"} {
		if p != "~" && !expand {
			continue
		}
		if rest, ok := strings.CutPrefix(s, p); ok && (rest == "" || rest[0] == '/') {
			return rest, true
		}
	}
	return "", false
}

// hasExpansion reports text that a shell would expand: a parameter, a
// command, arithmetic or process substitution.
func hasExpansion(s string) bool {
	return strings.ContainsAny(s, "$`") || strings.Contains(s, "<(") || strings.Contains(s, ">(")
}

// inShell reports a command that runs in the shell itself: its program is
// a name, not a path, and its only wrappers are command and builtin.
func inShell(c *Command) bool {
	if len(c.Argv) == 0 || c.Path != c.Argv[0] {
		return false
	}
	for _, l := range c.Layers[:len(c.Layers)-1] {
		if l[0] != "command" && l[0] != "builtin" {
			return false
		}
	}
	return true
}

// setsCDPATH reports an assignment to CDPATH.
func setsCDPATH(assigns []string) bool {
	for _, a := range assigns {
		if strings.HasPrefix(a, "CDPATH=") || strings.HasPrefix(a, "CDPATH+=") {
			return true
		}
	}
	return false
}

// compound walks a compound command, keeping track of the directory: a
// subshell or coproc is a scope of its own; a block leaks its cd's like a
// list; if, case and loops continue in the one directory all their paths
// agree on, else in an unknown one; a function's body runs where it is
// called, which is not known here.
func (w *walker) compound(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.Subshell, *syntax.CoprocClause:
		w.scoped().substs(c)
	case *syntax.IfClause:
		w.ifClause(c)
	case *syntax.WhileClause:
		w.loop(nil, c.Cond, c.Do)
	case *syntax.ForClause:
		w.loopAssigns(c.Loop)
		w.loop(c.Loop, nil, c.Do)
	case *syntax.CaseClause:
		w.caseClause(c)
	case *syntax.FuncDecl:
		w.scopedAt(unknownDir).substs(c)
		if c.Body != nil && w.changesDir([]*syntax.Stmt{c.Body}) {
			*w.cd = unknownDir // any later command may follow a call
		}
	default:
		w.substs(c)
	}
}

func (w *walker) ifClause(c *syntax.IfClause) {
	var ends []dirState
	hasElse := false
	for cl := c; cl != nil; cl = cl.Else {
		if !cl.ThenPos.IsValid() && len(cl.Cond) == 0 {
			hasElse = true
		}
		w.stmts(cl.Cond)
		afterCond := *w.cd
		w.stmts(cl.Then)
		ends = append(ends, *w.cd)
		*w.cd = afterCond // the next elif or else runs when this condition failed
	}
	if !hasElse {
		ends = append(ends, *w.cd)
	}
	*w.cd = joinDirs(ends...)
}

// loop walks a for loop's words (head) or a while loop's condition, then
// its body. A loop that changes directory runs its later iterations
// elsewhere than its first, so its commands start from an unknown one; a
// loop may also run no iteration at all.
func (w *walker) loop(head syntax.Node, cond, body []*syntax.Stmt) {
	start := *w.cd
	if head != nil {
		w.substs(head)
	}
	if w.changesDir(cond) || w.changesDir(body) {
		*w.cd = unknownDir
	}
	w.stmts(cond)
	w.stmts(body)
	*w.cd = joinDirs(start, *w.cd)
}

// loopAssigns records `for NAME in WORDS` as the assignments NAME=WORD it
// makes, one per word, among the line's Assigns: a loop sets its variable
// for its body and after it (for PATH in /tmp/x; do npm test; done).
func (w *walker) loopAssigns(head syntax.Loop) {
	wi, ok := head.(*syntax.WordIter)
	if !ok || wi.Name == nil {
		return
	}
	for _, it := range wi.Items {
		w.st.line.Assigns = append(w.st.line.Assigns, wi.Name.Value+"="+w.word(it).s)
	}
}

func (w *walker) caseClause(c *syntax.CaseClause) {
	if c.Word != nil {
		w.substs(c.Word)
	}
	start := *w.cd
	ends := make([]dirState, 0, len(c.Items)+1)
	catchAll := false
	prev := start
	for i, it := range c.Items {
		*w.cd = start
		if i > 0 && c.Items[i-1].Op != syntax.Break { // ;& and ;;& may come from the item before
			*w.cd = joinDirs(start, prev)
		}
		for _, p := range it.Patterns {
			if p != nil {
				w.substs(p)
				catchAll = catchAll || p.Lit() == "*"
			}
		}
		w.stmts(it.Stmts)
		prev = *w.cd
		ends = append(ends, prev)
	}
	if !catchAll {
		ends = append(ends, start)
	}
	*w.cd = joinDirs(ends...)
}

// andOr walks a && b || c ..., left to right. Each operand starts where
// the one before it left the directory, except that an operand after ||
// runs when something before it failed: if the chain changed directory
// before it, where it runs is not known. After it, the chain goes on from
// the directory of either path, unless it ends the shell (exit, return).
func (w *walker) andOr(s *syntax.Stmt) {
	chain, ops := andOrOps(s)
	changed := false
	for i, x := range chain {
		before := *w.cd
		if i > 0 && ops[i-1] == syntax.OrStmt {
			if changed {
				*w.cd = unknownDir
			}
			w.stmt(x)
			if terminates(x) {
				*w.cd = before
			} else {
				*w.cd = joinDirs(before, *w.cd)
			}
			continue
		}
		w.stmt(x)
		changed = changed || !before.equal(*w.cd)
	}
}

// andOrOps is andOrChain with the operator before each operand but the
// first.
func andOrOps(s *syntax.Stmt) ([]*syntax.Stmt, []syntax.BinCmdOperator) {
	var rev []*syntax.Stmt
	var ops []syntax.BinCmdOperator
	for s != nil {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op == syntax.Pipe || b.Op == syntax.PipeAll || len(rev) > 0 && (len(s.Redirs) > 0 || s.Negated) {
			rev = append(rev, s)
			break
		}
		rev = append(rev, b.Y)
		ops = append(ops, b.Op)
		s = b.X
	}
	slices.Reverse(rev)
	slices.Reverse(ops)
	if n := len(rev) - 1; len(ops) > n { // a left operand missing (parse error): the first op has none
		ops = ops[len(ops)-max(n, 0):]
	}
	return rev, ops
}

// terminates reports a statement after which the shell goes no further:
// exit or return, or a block that ends with one.
func terminates(s *syntax.Stmt) bool {
	if s == nil || s.Background {
		return false
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			switch c.Args[0].Lit() {
			case "exit", "return":
				return true
			}
		}
	case *syntax.Block:
		return len(c.Stmts) > 0 && terminates(c.Stmts[len(c.Stmts)-1])
	}
	return false
}

// changesDir reports statements that may change the directory of the
// shell that runs them: a cd, pushd or popd (maybe behind command or
// builtin), an eval or source (whose script may), a function whose body
// does, in any list, block, if, case or loop; not in a subshell, pipeline,
// substitution or background job.
func (w *walker) changesDir(list []*syntax.Stmt) bool {
	return w.changesDirAt(list, 0)
}

func (w *walker) changesDirAt(list []*syntax.Stmt, depth int) bool {
	if depth > maxNest {
		return true // too deep to tell: say it may
	}
	depth++
	for _, s := range list {
		if s == nil || s.Background {
			continue
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			wrapped := false
			for _, a := range c.Args {
				if a == nil {
					break
				}
				x := w.word(a)
				switch {
				case x.s == "command" || x.s == "builtin":
					wrapped = true
					continue
				case wrapped && strings.HasPrefix(x.s, "-"):
					continue
				case x.s == "cd" || x.s == "pushd" || x.s == "popd" || x.s == "eval" || x.s == "source" || x.s == ".":
					return true
				}
				break
			}
		case *syntax.BinaryCmd:
			if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
				continue
			}
			if chain, _ := andOrOps(s); w.changesDirAt(chain, depth) {
				return true
			}
		case *syntax.Block:
			if w.changesDirAt(c.Stmts, depth) {
				return true
			}
		case *syntax.IfClause:
			for cl := c; cl != nil; cl = cl.Else {
				if w.changesDirAt(cl.Cond, depth) || w.changesDirAt(cl.Then, depth) {
					return true
				}
			}
		case *syntax.WhileClause:
			if w.changesDirAt(c.Cond, depth) || w.changesDirAt(c.Do, depth) {
				return true
			}
		case *syntax.ForClause:
			if w.changesDirAt(c.Do, depth) {
				return true
			}
		case *syntax.CaseClause:
			for _, it := range c.Items {
				if w.changesDirAt(it.Stmts, depth) {
					return true
				}
			}
		case *syntax.TimeClause:
			if w.changesDirAt([]*syntax.Stmt{c.Stmt}, depth) {
				return true
			}
		case *syntax.FuncDecl:
			if w.changesDirAt([]*syntax.Stmt{c.Body}, depth) {
				return true
			}
		}
	}
	return false
}

// MaxCwds bounds the directories a command line's cd's are followed to
// (the one it starts in among them), for the guard and the effects alike.
const MaxCwds = 16

// CdTarget reads a cd or pushd command (argv, as normalized): the directory
// it changes to, "~" for the home (cd alone), and ok false when it changes
// to none that can be told from the words (cd -, pushd alone or +N or -N,
// which rotate the stack, pushd -n, which does not change directory) or is
// no cd. Options are the words that start with "-" before the first
// operand or "--" (bash's -L, -P, -e, -@; with any other letter cd fails,
// and the directory it names is followed anyway: one candidate more).
func CdTarget(argv []string) (dir string, ok bool) {
	if len(argv) == 0 || argv[0] != "cd" && argv[0] != "pushd" {
		return "", false
	}
	pushd := argv[0] == "pushd"
	args := argv[1:]
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if pushd && (a == "-n" || allDigits(a[1:])) {
			return "", false
		}
		args = args[1:]
	}
	switch {
	case len(args) == 0 && pushd:
		return "", false
	case len(args) == 0:
		return "~", true
	case args[0] == "-" || pushd && len(args[0]) > 1 && args[0][0] == '+' && allDigits(args[0][1:]):
		return "", false
	}
	return args[0], true
}

// FollowCd adds to cwds (the directories a command may run in) the one a
// cd leads to from each of them, as resolve says ("" for none), new ones
// only and up to MaxCwds in all. The directories before stay: a subshell
// or a failed cd leaves them in force.
func FollowCd(cwds []string, resolve func(cwd string) string) []string {
	n := len(cwds)
	for i := 0; i < n && len(cwds) < MaxCwds; i++ {
		if next := resolve(cwds[i]); next != "" && !slices.Contains(cwds, next) {
			cwds = append(cwds, next)
		}
	}
	return cwds
}
