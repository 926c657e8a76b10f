package shellcmd

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variables the line sets itself. f=.env; cat $f reads .env, and
// d=dist; rm -rf $d deletes dist: a word that uses a variable the line
// assigns is read with the values the line gives it.
//
// Every assignment anywhere in the line counts, whatever its order or
// scope (a loop runs later text first, a function runs where it is
// called), so a command is walked once with each value its variables may
// hold, and once more as written (the value is then not known statically)
// unless the values are all it can hold there: assignments at the line's
// top level that always run before the command (f=.env; …, f=.env && …,
// f=.e; f+=nv, followed in order), a top-level for loop's items in its
// body, a shell body's positional parameters in it. eval and source may
// set anything, so a line that uses them has no certain values.

const (
	maxVarCombos = 32 // combinations of the values of a command's variables
	maxVarDepth  = 3  // variables read inside the values of others (b=$a/x)
	// maxVarBytes bounds the text values add to one line's words: past it
	// (a=<100 KB>; echo $a$a$a...), a variable reads as written.
	maxVarBytes = 256 << 10
)

// lineVars are the values a line (and the bodies in it) gives variables.
type lineVars struct {
	byName    map[string]*varDefs
	uncertain bool // the line runs eval or source: any variable may hold anything
}

// varDefs are the values of one variable.
type varDefs struct {
	values []varValue
	// opaque: the variable is also set in a way not read statically (read,
	// arithmetic, an array element, +=, a substitution).
	opaque bool
	// arrays are the element lists the line assigns it (a=(x y), a+=(z)),
	// in order; values holds each element too, as one value the variable
	// may give (for f in "${a[@]}", $a).
	arrays [][]varValue
}

// varValue is one value: a word of some source text, or one already read.
type varValue struct {
	node *syntax.Word
	word *word // read already: a positional parameter, mktemp's path, a text followed in order
	src  string
	main bool   // in the line itself, not in a body
	in   string // a shell body's positional parameter: the body (its text) in which it is certain
	glob bool   // a for loop's item, which pathname expansion already expanded
	// from and to bound the text (offsets in the line) where the variable
	// certainly holds this value or another of its certain ones; to is 0
	// when it is never certain.
	from, to uint
}

// collectVars adds the assignments of one parsed source to the state's
// variables; main is true for the line itself.
func (w *walker) collectVars(f *syntax.File, main bool) {
	if !strings.Contains(w.src, "$") {
		return // nothing in it reads a variable; its assignments only matter to text that does
	}
	v := w.st.vars
	if v == nil {
		v = &lineVars{byName: map[string]*varDefs{}}
		w.st.vars = v
	}
	certain := map[*syntax.Assign][2]uint{}
	loops := map[*syntax.ForClause]bool{}
	var computed map[*syntax.Assign]string
	if main {
		certainAssigns(f.Stmts, certain, loops)
		computed = appendedTexts(certain)
	}
	add := func(name string, val varValue) {
		d := v.def(name)
		// A value from a substitution is what a command prints: as
		// written, the command's text says more than the substitution's.
		// But mktemp prints the new temporary file or folder it made.
		if wordHasSubst(val.node) {
			if !isMktemp(val.node) {
				d.opaque = true
				return
			}
			val.word = &word{s: mktempPath}
		}
		d.values = append(d.values, val)
	}
	assign := func(a *syntax.Assign) {
		if a == nil || a.Name == nil || a.Naked {
			return
		}
		name := a.Name.Value
		switch {
		case a.Append && a.Array != nil: // a+=(x y): more elements
			d := v.def(name)
			for _, e := range a.Array.Elems {
				if e != nil && e.Value != nil {
					add(name, varValue{node: e.Value, src: w.src, main: main})
				}
			}
			if len(d.arrays) == 1 { // a=(x); a+=(y z): its elements, certain only if those values are
				d.arrays[0] = append(slices.Clip(d.arrays[0]), d.values[len(d.values)-len(a.Array.Elems):]...)
			}
		case a.Append && a.Index == nil && computed[a] != "":
			// f=.e; f+=nv: the text it now holds.
			span := certain[a]
			add(name, varValue{word: &word{s: computed[a]}, main: main, from: span[0], to: span[1]})
		case a.Append || a.Index != nil:
			v.def(name).opaque = true
		case a.Array != nil:
			// Each element is one of the values ${a[i]} and "${a[@]}" give,
			// and together (arrays) what "${a[@]}" and ${a[N]} are in a
			// command's words.
			span, certainArray := certain[a]
			var elems []varValue
			plain := true // no [i]=v element
			for _, e := range a.Array.Elems {
				if e != nil && e.Value != nil {
					val := varValue{node: e.Value, src: w.src, main: main}
					if certainArray && e.Index == nil {
						val.from, val.to = span[0], span[1]
					}
					plain = plain && e.Index == nil
					elems = append(elems, val)
					add(name, val)
				}
			}
			if d := v.def(name); plain {
				d.arrays = append(d.arrays, elems)
			}
		default:
			val := varValue{node: a.Value, src: w.src, main: main}
			if span, ok := certain[a]; ok {
				val.from, val.to = span[0], span[1]
			}
			if t, ok := computed[a]; ok && refersTo(a.Value, name) {
				val.word = &word{s: t} // f="${f}nv": read with what f held before
			}
			add(name, val)
		}
	}
	funcs := map[string]bool{}
	var calls []*syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n.Name != nil {
				funcs[n.Name.Value] = true
			}
		case *syntax.Stmt:
			// read [-r] NAME <<< WORD: NAME holds WORD's first line.
			if name := readName(n); name != "" {
				for _, r := range n.Redirs {
					if r != nil && r.Op == syntax.WordHdoc && r.Word != nil {
						add(name, varValue{node: r.Word, src: w.src, main: main})
					}
				}
			}
		case *syntax.CallExpr:
			for _, a := range n.Assigns {
				assign(a)
			}
			if len(n.Args) > 0 {
				w.setters(v, n.Args, add)
				calls = append(calls, n)
			}
		case *syntax.DeclClause:
			changes := false // -n, -i, -l, -u: the value is not what is written
			for _, a := range n.Args {
				if a == nil {
					continue
				}
				if a.Name == nil {
					if s := a.Value.Lit(); strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
						changes = changes || strings.Trim(s[1:], "aAxrgtf") != ""
					} else {
						v.uncertain = true // declare "$x", declare "$n=v": names known at run time
					}
					continue
				}
				assign(a)
				if changes {
					v.def(a.Name.Value).opaque = true
				}
			}
		case *syntax.ForClause:
			wi, ok := n.Loop.(*syntax.WordIter)
			if !ok || wi.Name == nil {
				return true
			}
			if n.Select || len(wi.Items) == 0 {
				v.def(wi.Name.Value).opaque = true
				return true
			}
			for _, it := range wi.Items {
				for _, alt := range braceWords(it) {
					val := varValue{node: alt, src: w.src, main: main, glob: isGlob(alt.Lit())}
					if loops[n] {
						val.from, val.to = uint(n.DoPos.Offset()), uint(n.DonePos.Offset())
					}
					add(wi.Name.Value, val)
				}
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				if n.Exp.Word != nil {
					add(n.Param.Value, varValue{node: n.Exp.Word, src: w.src, main: main})
				}
				v.def(n.Param.Value).opaque = true
			}
		case *syntax.BinaryArithm:
			if n.Op >= syntax.Assgn && n.Op <= syntax.PowAssgn {
				if x, ok := n.X.(*syntax.Word); ok {
					v.def(x.Lit()).opaque = true
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if x, ok := n.X.(*syntax.Word); ok {
					v.def(x.Lit()).opaque = true
				}
			}
		}
		return true
	})
	// A function's positional parameters are the arguments of its calls.
	for _, c := range calls {
		if !funcs[c.Args[0].Lit()] {
			continue
		}
		vals := make([]varValue, len(c.Args)-1)
		for i, a := range c.Args[1:] {
			vals[i] = varValue{node: a, src: w.src, main: main}
		}
		addPositional(add, vals, 1)
	}
}

// addPositional gives vals to the positional parameters from $first ($0 or
// $1) up to $9, and each of those from $1 on to "$@" and "$*".
func addPositional(add func(string, varValue), vals []varValue, first int) {
	for i, val := range vals {
		n := first + i
		if n <= 9 {
			add(strconv.Itoa(n), val)
		}
		if n > 0 {
			add("@", val)
			add("*", val)
		}
	}
}

// setters notes what a simple command's builtins set: read, mapfile and
// the like set the names they are given at run time; set -- sets the
// positional parameters; eval and source may set anything.
func (w *walker) setters(v *lineVars, args []*syntax.Word, add func(string, varValue)) {
	switch args[0].Lit() {
	case "eval", "source", ".":
		v.uncertain = true
	case "shift":
		for _, name := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*"} {
			v.def(name).opaque = true
		}
	case "read", "mapfile", "readarray", "getopts", "printf", "let", "wait", "unset":
		for _, a := range args[1:] {
			name, _, _ := strings.Cut(a.Lit(), "=")
			if validName(name) {
				v.def(name).opaque = true
			}
		}
	case "set":
		if len(args) < 2 {
			return
		}
		ops := args[1:]
		switch s := ops[0].Lit(); {
		case s == "--":
			ops = ops[1:]
		case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
			return
		}
		vals := make([]varValue, len(ops))
		for i, a := range ops {
			vals[i] = varValue{node: a, src: w.src}
		}
		addPositional(add, vals, 1)
	}
}

// positional gives a shell body's positional parameters their values
// ($0, $1, ..., and each of them for "$@" and "$*").
func (w *walker) positional(params []word) {
	if len(params) == 0 || !strings.Contains(w.src, "$") {
		return
	}
	v := w.st.vars
	if v == nil {
		v = &lineVars{byName: map[string]*varDefs{}}
		w.st.vars = v
	}
	vals := make([]varValue, len(params))
	for i := range params {
		vals[i] = varValue{word: &params[i], in: w.src}
	}
	addPositional(func(name string, val varValue) {
		d := v.def(name)
		d.values = append(d.values, val)
	}, vals, 0)
	for _, name := range []string{"@", "*"} { // together, what "$@" is in a command's words
		d := v.def(name)
		d.arrays = append(d.arrays, slices.Clip(d.values[len(d.values)-(len(vals)-1):]))
	}
}

// readName is the one variable a read statement sets, or "".
func readName(s *syntax.Stmt) string {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) < 2 || ce.Args[0].Lit() != "read" {
		return ""
	}
	name := ""
	for _, a := range ce.Args[1:] {
		switch l := a.Lit(); {
		case l == "-r" || l == "-e" || l == "-s":
		case validName(l) && name == "":
			name = l
		default:
			return "" // other options, or more names: the line is split
		}
	}
	return name
}

func (v *lineVars) def(name string) *varDefs {
	d := v.byName[name]
	if d == nil {
		d = &varDefs{}
		v.byName[name] = d
	}
	return d
}

// mktempPath stands for the path mktemp prints, in the default temporary
// folder: d=$(mktemp -d); ...; rm -rf "$d" deletes only what it made.
const mktempPath = "/tmp/tmp.XXXXXXXXXX"

// isMktemp reports a word that is only $(mktemp [-d] [-q]) (or in
// backquotes), which makes a new file or folder in the default temporary
// folder and prints its path. -u only prints a name; -p, --tmpdir and a
// template choose the folder, not known here.
func isMktemp(x *syntax.Word) bool {
	parts := x.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	cs, ok := parts[0].(*syntax.CmdSubst)
	if !ok {
		return false
	}
	ce := soleCall(cs)
	if ce == nil || ce.Args[0].Lit() != "mktemp" {
		return false
	}
	for _, a := range ce.Args[1:] {
		switch a.Lit() {
		case "-d", "--directory", "-q", "--quiet", "-dq", "-qd":
		default:
			return false
		}
	}
	return true
}

func validName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// certainAssigns finds the assignments of the line's top level that always
// run, with the text after them where nothing else ran first: a statement
// of its own holds for the rest of the line, one in a && chain for the
// rest of the chain (the chain's first command always runs, so it too
// holds for the rest of the line). loops gets the for loops at the top
// level, whose variable holds one of its items inside the loop's body.
func certainAssigns(stmts []*syntax.Stmt, out map[*syntax.Assign][2]uint, loops map[*syntax.ForClause]bool) {
	const rest = ^uint(0)
	note := func(s *syntax.Stmt, to uint) {
		if s.Negated || s.Background || s.Coprocess || len(s.Redirs) > 0 {
			return
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				for _, a := range c.Assigns {
					out[a] = [2]uint{uint(s.End().Offset()), to}
				}
			}
		case *syntax.DeclClause:
			for _, a := range c.Args {
				if a != nil && a.Name != nil {
					out[a] = [2]uint{uint(s.End().Offset()), to}
				}
			}
		case *syntax.ForClause:
			loops[c] = true
		}
	}
	for _, s := range stmts {
		if s == nil {
			continue
		}
		var chain []*syntax.Stmt
		for x := s; ; {
			b, ok := x.Cmd.(*syntax.BinaryCmd)
			if !ok || b.Op != syntax.AndStmt || x.Negated || x.Background || len(x.Redirs) > 0 {
				chain = append(chain, x)
				break
			}
			chain = append(chain, b.Y)
			x = b.X
		}
		if len(chain) == 1 {
			note(s, rest)
			continue
		}
		// chain holds the && list last command first.
		end := uint(s.End().Offset())
		for i := len(chain) - 1; i >= 0; i-- {
			if i == len(chain)-1 {
				note(chain[i], rest)
			} else {
				note(chain[i], end)
			}
		}
	}
}

// appendedTexts follows the line's certain assignments in order and gives
// each whose text is static, reading the variables it uses with what they
// hold at that point (f=.e; f+=nv; g="${f}x"), that text. An assignment it
// cannot read makes its variable unknown from there on.
func appendedTexts(certain map[*syntax.Assign][2]uint) map[*syntax.Assign]string {
	assigns := make([]*syntax.Assign, 0, len(certain))
	for a := range certain {
		assigns = append(assigns, a)
	}
	slices.SortFunc(assigns, func(a, b *syntax.Assign) int { return cmp.Compare(a.Pos().Offset(), b.Pos().Offset()) })
	cur := map[string]string{}
	out := map[*syntax.Assign]string{}
	for _, a := range assigns {
		if a.Name == nil || a.Naked || a.Index != nil {
			continue
		}
		name := a.Name.Value
		t, ok := staticText(a.Value, cur)
		if a.Array != nil || !ok || certain[a][1] != ^uint(0) {
			delete(cur, name) // (one later in a && chain may not run: either value then)
			continue
		}
		if a.Append {
			prev, known := cur[name]
			if !known {
				continue
			}
			t = prev + t
		}
		cur[name], out[a] = t, t
	}
	return out
}

// staticText is the text of a word of literals and of variables in cur.
func staticText(x *syntax.Word, cur map[string]string) (string, bool) {
	if x == nil {
		return "", true
	}
	var b strings.Builder
	var parts func(ps []syntax.WordPart, quoted bool) bool
	parts = func(ps []syntax.WordPart, quoted bool) bool {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(unescapeDquote(p.Value))
				} else {
					s, _ := unescape(p.Value)
					b.WriteString(s)
				}
			case *syntax.SglQuoted:
				if p.Dollar {
					b.WriteString(ansiC(p.Value))
				} else {
					b.WriteString(p.Value)
				}
			case *syntax.DblQuoted:
				if !parts(p.Parts, true) {
					return false
				}
			case *syntax.ParamExp:
				v, ok := cur[varParam(p)]
				if !ok || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil {
					return false
				}
				b.WriteString(v)
			default:
				return false
			}
		}
		return true
	}
	if !parts(x.Parts, false) {
		return "", false
	}
	return b.String(), true
}

// refersTo reports a word that reads the variable name.
func refersTo(x *syntax.Word, name string) bool {
	if x == nil {
		return false
	}
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == name {
			found = true
		}
		return !found
	})
	return found
}

// soleCall is the one simple command a command substitution runs, with
// no assignments or redirections, or nil.
func soleCall(cs *syntax.CmdSubst) *syntax.CallExpr {
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 || cs.Stmts[0].Negated || cs.Stmts[0].Background {
		return nil
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return nil
	}
	return ce
}

// echoed is the output of a command substitution that only runs echo or
// printf with static arguments, without its trailing newlines.
func (w *walker) echoed(cs *syntax.CmdSubst) (string, bool) {
	ce := soleCall(cs)
	if ce == nil {
		return "", false
	}
	if name := ce.Args[0].Lit(); name != "echo" && name != "printf" {
		return "", false
	}
	argv := make([]string, 0, len(ce.Args))
	for _, a := range ce.Args {
		x := w.word(a)
		if x.dyn || x.glob || hasBrace(a) {
			return "", false
		}
		argv = append(argv, x.s)
	}
	t, ok := echoData(argv)
	if !ok || len(t) > maxBodyBytes {
		return "", false
	}
	return strings.TrimRight(t, "\n"), true
}

// braceWords is the words a brace expansion of x makes, or x itself.
func braceWords(x *syntax.Word) []*syntax.Word {
	if !hasBrace(x) {
		return []*syntax.Word{x}
	}
	alts, split, ok := splitBraces(x)
	if !split || !ok {
		return []*syntax.Word{x}
	}
	out := make([]*syntax.Word, len(alts))
	for i, parts := range alts {
		out[i] = &syntax.Word{Parts: parts}
	}
	return out
}

// varChoice is what a variable holds in one walk of a command: one of its
// values; unset, so that ${f:-default} is its default; or (neither) what
// it holds at run time, as written.
type varChoice struct {
	value *varValue
	unset bool
}

// known reports whether the values the line gives name are all it can
// hold at offset at of the line (for a walker at depth 0).
func (w *walker) known(d *varDefs, at uint) bool {
	if w.st.vars.uncertain || d.opaque || len(d.values) == 0 {
		return false
	}
	for i := range d.values {
		val := &d.values[i]
		if val.in != "" {
			if val.in != w.src {
				return false
			}
			continue
		}
		if w.depth != 0 || !val.main || val.to == 0 || at < val.from || at > val.to {
			return false
		}
	}
	return true
}

// certain is the one value name certainly holds at offset at, or nil.
func (w *walker) certain(name string, at uint) *varValue {
	if w.st.vars == nil {
		return nil
	}
	d := w.st.vars.byName[name]
	if d == nil || len(d.values) != 1 || !w.known(d, at) {
		return nil
	}
	return &d.values[0]
}

// varParam is the variable a parameter expansion reads whole ($f, ${f},
// "${a[@]}", ${f:-default}), or "".
func varParam(p *syntax.ParamExp) string {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Names != 0 {
		return ""
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
			syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix,
			syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		default:
			return ""
		}
	}
	return p.Param.Value
}

// transform applies what a parameter expansion does to a static value:
// ${f/a/b} and ${f//a/b}, ${f#a} and ${f%a} (and ## %%) with literal
// patterns, ${f:n:m} with literal numbers, and the case changes. ok is
// false when it does more than that (a pattern with wildcards, a value
// known at run time).
func (w *walker) transform(p *syntax.ParamExp, v string) (string, bool) {
	literal := func(x *syntax.Word) (string, bool) {
		if x == nil {
			return "", true
		}
		lw := w.word(x)
		return lw.s, !lw.dyn && !lw.glob
	}
	switch {
	case p.Repl != nil:
		from, ok1 := literal(p.Repl.Orig)
		to, ok2 := literal(p.Repl.With)
		if !ok1 || !ok2 || from == "" || strings.HasPrefix(from, "#") || strings.HasPrefix(from, "%") {
			return "", false
		}
		if p.Repl.All {
			return strings.ReplaceAll(v, from, to), true
		}
		return strings.Replace(v, from, to, 1), true
	case p.Slice != nil:
		off, ok1 := sliceNumber(p.Slice.Offset)
		length, ok2 := sliceNumber(p.Slice.Length)
		if !ok1 || !ok2 || off < 0 || off > len(v) {
			return "", false
		}
		v = v[off:]
		if p.Slice.Length != nil {
			if length < 0 || length > len(v) {
				return "", false
			}
			v = v[:length]
		}
		return v, true
	case p.Exp == nil || hasDefault(p):
		return v, true
	}
	pat, ok := literal(p.Exp.Word)
	if !ok {
		return "", false
	}
	switch p.Exp.Op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		return strings.TrimSuffix(v, pat), true
	case syntax.RemSmallPrefix, syntax.RemLargePrefix:
		return strings.TrimPrefix(v, pat), true
	case syntax.UpperAll:
		return strings.ToUpper(v), pat == ""
	case syntax.LowerAll:
		return strings.ToLower(v), pat == ""
	case syntax.UpperFirst, syntax.LowerFirst:
		if pat != "" || v == "" {
			return v, pat == ""
		}
		if p.Exp.Op == syntax.UpperFirst {
			return strings.ToUpper(v[:1]) + v[1:], true
		}
		return strings.ToLower(v[:1]) + v[1:], true
	}
	return "", false
}

// sliceNumber reads a literal number of ${f:n:m}; a missing one is 0.
func sliceNumber(x syntax.ArithmExpr) (int, bool) {
	if x == nil {
		return 0, true
	}
	lw, ok := x.(*syntax.Word)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(lw.Lit()))
	return n, err == nil
}

// hasDefault reports ${f-default}, ${f:-default}, ${f=default} and
// ${f:=default}, which are their default when f is unset.
func hasDefault(p *syntax.ParamExp) bool {
	if p.Exp == nil || p.Exp.Word == nil {
		return false
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		return true
	}
	return false
}

// varAlternatives is the walks a command needs for the variables its words
// read: nil when it reads none whose values the line gives (one walk, as
// written), else one binding per walk. A variable with a certain value is
// not among them: it reads that value in every walk.
func (w *walker) varAlternatives(args []*syntax.Word, redirs []*syntax.Redirect) []map[string]varChoice {
	v := w.st.vars
	if v == nil || !slices.ContainsFunc(args, w.readsVar) &&
		!slices.ContainsFunc(redirs, func(r *syntax.Redirect) bool { return r != nil && w.readsVar(r.Word) }) {
		return nil // most commands read no variable: no maps, no walk
	}
	var names []string
	asWritten := map[string]bool{} // a name that may also hold what it holds at run time
	inner := map[string]bool{}     // certain names whose values were read for more names
	unset := map[string]bool{}     // a name with a ${name:-default} that may be unset
	inArgs := true                 // a simple command's words, where arrayElems reads "${a[@]}" whole
	var visit func(n syntax.Node) bool
	visit = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			return false // walked as commands of their own
		case *syntax.ParamExp:
			name := varParam(n)
			if name == "" {
				return true
			}
			if elems, _, ok := w.arrayElems(n, name); ok && inArgs {
				inArgs = false
				for _, e := range elems {
					if e.node != nil && len(inner) < maxVarCombos {
						syntax.Walk(e.node, visit) // its elements may read variables that are not certain
					}
				}
				inArgs = true
				return true
			}
			d := v.byName[name]
			at := uint(n.Pos().Offset())
			if c := w.certain(name, at); c != nil {
				if c.node != nil && !inner[name] && len(inner) < maxVarCombos {
					inner[name] = true
					was := inArgs
					inArgs = false             // a value's words are not the command's
					syntax.Walk(c.node, visit) // its value may read variables that are not certain
					inArgs = was
				}
				return true
			}
			if d == nil || len(d.values) == 0 {
				if !hasDefault(n) {
					return true
				}
				d = &varDefs{}
			}
			if _, seen := asWritten[name]; !seen {
				names = append(names, name)
			}
			asWritten[name] = asWritten[name] || !w.known(d, at)
			unset[name] = unset[name] || hasDefault(n) && !w.known(d, at)
		}
		return true
	}
	for _, a := range args {
		if w.readsVar(a) {
			syntax.Walk(a, visit)
		}
	}
	inArgs = false
	for _, r := range redirs {
		if r != nil && w.readsVar(r.Word) {
			syntax.Walk(r.Word, visit)
		}
	}
	// The variables read inside those variables' values (a=(.env); for f
	// in "${a[@]}" ...; b=$a/x) take part in the combinations too.
	for i := 0; i < len(names) && len(names) <= maxVarCombos; i++ {
		if d := v.byName[names[i]]; d != nil {
			for k := range d.values {
				if n := d.values[k].node; n != nil && d.values[k].word == nil && d.values[k].main == (w.depth == 0) {
					syntax.Walk(n, visit)
				}
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	choices := make([][]varChoice, len(names))
	combos := 1
	for i, name := range names {
		if d := v.byName[name]; d != nil {
			for k := range d.values {
				choices[i] = append(choices[i], varChoice{value: &d.values[k]})
			}
		}
		if unset[name] {
			choices[i] = append(choices[i], varChoice{unset: true})
		}
		if asWritten[name] {
			choices[i] = append(choices[i], varChoice{})
		}
		combos *= len(choices[i])
		if combos > maxVarCombos {
			combos = maxVarCombos + 1
		}
	}
	var out []map[string]varChoice
	if combos <= maxVarCombos {
		out = []map[string]varChoice{{}}
		for i, name := range names {
			var next []map[string]varChoice
			for _, b := range out {
				for _, c := range choices[i] {
					nb := make(map[string]varChoice, len(b)+1)
					for k, x := range b {
						nb[k] = x
					}
					nb[name] = c
					next = append(next, nb)
				}
			}
			out = next
		}
		return out
	}
	// Too many combinations: each value once, the other variables as
	// written, then all as written.
	for i, name := range names {
		for _, c := range choices[i] {
			if c.value != nil || c.unset {
				out = append(out, map[string]varChoice{name: c})
			}
		}
	}
	return append(out, map[string]varChoice{})
}

// readsVar reports a word whose text holds a $.
func (w *walker) readsVar(x *syntax.Word) bool {
	return x != nil && strings.Contains(w.text(x), "$")
}

// value renders the value val of variable name as the word it is, reading
// in it the variables bound in this walk or certain there.
func (w *walker) value(name string, val *varValue) word {
	if val.word != nil {
		return *val.word
	}
	if w.varDepth >= maxVarDepth {
		return word{s: "?", dyn: true, multi: true, shape: string(Spread)}
	}
	bind := w.bind
	if _, ok := bind[name]; ok {
		// In its own value (D="$D x"), a variable is what it held before.
		bind = maps.Clone(bind)
		delete(bind, name)
	}
	vw := &walker{st: w.st, src: val.src, depth: w.depth, nest: w.nest, cd: w.cd, varDepth: w.varDepth + 1, bind: bind, guessed: w.guessed}
	if !val.main {
		vw.depth = w.depth + 1 // a body's value: none certain in it
	}
	out := vw.word(val.node)
	out.glob = out.glob || val.glob
	return out
}

// inline writes, for a parameter expansion of a variable that has a value
// in this walk (bound, or certain), that value, and reports whether it did.
func (w *walker) inline(b, shape *strings.Builder, out *word, p *syntax.ParamExp, quoted bool) bool {
	name := varParam(p)
	if name == "" || w.st.vars == nil || !quoted && w.st.vars.byName["IFS"] != nil {
		return false // unquoted, a value splits where IFS says, which the line changes
	}
	val := w.certain(name, uint(p.Pos().Offset()))
	if c, ok := w.bind[name]; ok {
		if c.unset && hasDefault(p) {
			w.parts(b, shape, out, p.Exp.Word.Parts, quoted)
			return true
		}
		val = c.value
	}
	if elems, all, ok := w.arrayElems(p, name); ok && w.splice {
		// "${a[@]}" and ${a[N]} of an array the line certainly assigns,
		// in a command's words: all its elements, as words (rm
		// "${a[@]}"), or the one at N, whatever the combination binds.
		if !all {
			val = elems[0]
		} else {
			for k := range elems {
				v := w.value(name, elems[k])
				if w.st.varBytes += len(v.s) + 1; v.dyn || w.st.varBytes > maxVarBytes {
					return false
				}
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(v.s)
				out.glob = out.glob || isGlob(v.s)
			}
			out.split = true // elements with blanks split too: more words, never fewer
			return true
		}
	}
	if val == nil || w.st.varBytes > maxVarBytes {
		return false
	}
	v := w.value(name, val)
	if w.st.varBytes += len(v.s); w.st.varBytes > maxVarBytes {
		return false
	}
	if p.Exp != nil && p.Exp.Word != nil && v.s == "" && !v.dyn &&
		(p.Exp.Op == syntax.DefaultUnsetOrNull || p.Exp.Op == syntax.AssignUnsetOrNull) {
		w.parts(b, shape, out, p.Exp.Word.Parts, quoted)
		return true
	}
	if p.Repl != nil || p.Slice != nil || p.Exp != nil && !hasDefault(p) {
		t, ok := w.transform(p, v.s)
		if !ok || v.dyn {
			return false
		}
		v.s = t
	}
	if v.dyn {
		if !out.dyn {
			shape.WriteString(b.String())
		}
		b.WriteString(v.s)
		shape.WriteString(v.shape)
		out.dyn = true
		out.multi = out.multi || v.multi || !quoted
	} else {
		b.WriteString(v.s)
		if out.dyn {
			shape.WriteString(v.s)
		}
		if !quoted {
			out.glob = out.glob || isGlob(v.s)
			out.split = out.split || strings.ContainsAny(v.s, " \t\n")
		}
	}
	out.glob = out.glob || val.glob
	return true
}

// arrayElems reads an array expansion of name, as a simple command's
// words have it (w.splice): for "${a[@]}" or ${a[*]} (all) every element,
// for ${a[N]} the one at N, when the line assigns the array once, with no
// [i]=v element, certainly before this word. ok is false otherwise: the
// variable is then read as any of its values, and as written.
func (w *walker) arrayElems(p *syntax.ParamExp, name string) (elems []*varValue, all, ok bool) {
	params := (name == "@" || name == "*") && p.Index == nil // "$@": the positional parameters, all of them
	if p.Index == nil && !params || p.Repl != nil || p.Slice != nil || p.Exp != nil || w.st.vars == nil {
		return nil, false, false
	}
	d := w.st.vars.byName[name]
	if d == nil || len(d.arrays) != 1 || len(d.arrays[0]) != len(d.values) || !w.known(d, uint(p.Pos().Offset())) {
		return nil, false, false
	}
	lit := "@"
	if !params {
		ix, isWord := p.Index.(*syntax.Word)
		if !isWord {
			return nil, false, false
		}
		lit = ix.Lit()
	}
	switch lit {
	case "@", "*":
		for k := range d.values {
			elems = append(elems, &d.values[k])
		}
		return elems, true, true
	default:
		n, err := strconv.Atoi(lit)
		if err != nil || n < 0 || n >= len(d.values) {
			return nil, false, false
		}
		return []*varValue{&d.values[n]}, false, true
	}
}

// splitWord appends x to out, or the fields it splits into when it holds
// a variable whose value has blanks (c='rm -rf'; $c ~).
func (w *walker) splitWord(x word, out []word) []word {
	if !x.split {
		return append(out, x)
	}
	if x.dyn {
		x.multi = true
		return append(out, x)
	}
	for _, f := range strings.Fields(x.s) {
		out = append(out, word{s: f, glob: x.glob && isGlob(f)})
	}
	return out
}
