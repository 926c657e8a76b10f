package runtime

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/agent-shell/agent-shell/builtins"
)

// compileSource parses, bounds and compiles a script's source.
func compileSource(file string, src []byte, isPredeclared func(string) bool) (*starlark.Program, error) {
	f, err := dialect.Parse(file, src, 0)
	if err != nil {
		return nil, err
	}
	if err := boundOperators(f); err != nil {
		return nil, err
	}
	return starlark.FileProgram(f, isPredeclared)
}

// boundOperators rewrites a parsed file so that every operator and string
// method that can build a value much larger than its inputs is checked
// before it does (builtins.MaxValueBytes): x + y becomes
// __bounded_op(PLUS, x, y), s.replace(a, b) becomes
// __bounded_method(s, "replace", a, b). Augmented assignment to an index or
// a field (a[i] += x) would evaluate its target twice once rewritten, so it
// is refused; a script writes a[i] = a[i] + x.
func boundOperators(f *syntax.File) error {
	rw := &rewriter{}
	rw.stmts(f.Stmts)
	return rw.err
}

type rewriter struct{ err error }

var boundedOps = map[syntax.Token]bool{syntax.PLUS: true, syntax.STAR: true, syntax.PERCENT: true, syntax.PIPE: true}

var augmentedOps = map[syntax.Token]syntax.Token{
	syntax.PLUS_EQ: syntax.PLUS_EQ, syntax.STAR_EQ: syntax.STAR, syntax.PERCENT_EQ: syntax.PERCENT, syntax.PIPE_EQ: syntax.PIPE_EQ,
}

func (rw *rewriter) fail(pos syntax.Position, format string, args ...any) {
	if rw.err == nil {
		rw.err = fmt.Errorf("%s: %s", pos, fmt.Sprintf(format, args...))
	}
}

func (rw *rewriter) stmts(list []syntax.Stmt) {
	for _, s := range list {
		rw.stmt(s)
	}
}

func (rw *rewriter) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		if op, ok := augmentedOps[s.Op]; ok {
			id, isIdent := s.LHS.(*syntax.Ident)
			if !isIdent {
				rw.fail(s.OpPos, "%s on an index or a field is not supported here: write x = x %s y", s.Op, strings.TrimSuffix(s.Op.String(), "="))
				return
			}
			s.RHS = call(builtins.BoundedName, s.OpPos, intLit(int(op), s.OpPos), &syntax.Ident{NamePos: id.NamePos, Name: id.Name}, rw.expr(s.RHS))
			s.Op = syntax.EQ
			return
		}
		s.LHS = rw.expr(s.LHS)
		s.RHS = rw.expr(s.RHS)
	case *syntax.DefStmt:
		rw.exprs(s.Params)
		rw.stmts(s.Body)
	case *syntax.ExprStmt:
		s.X = rw.expr(s.X)
	case *syntax.ForStmt:
		s.Vars = rw.expr(s.Vars)
		s.X = rw.expr(s.X)
		rw.stmts(s.Body)
	case *syntax.WhileStmt:
		s.Cond = rw.expr(s.Cond)
		rw.stmts(s.Body)
	case *syntax.IfStmt:
		s.Cond = rw.expr(s.Cond)
		rw.stmts(s.True)
		rw.stmts(s.False)
	case *syntax.ReturnStmt:
		if s.Result != nil {
			s.Result = rw.expr(s.Result)
		}
	}
}

func (rw *rewriter) exprs(list []syntax.Expr) {
	for i := range list {
		list[i] = rw.expr(list[i])
	}
}

func (rw *rewriter) expr(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *syntax.Ident:
		if e.Name == builtins.BoundedName || e.Name == builtins.BoundedMethodName {
			rw.fail(e.NamePos, "%s is a reserved name", e.Name)
		}
	case *syntax.BinaryExpr:
		if e.Op == syntax.EQ { // name=value in a call or a parameter list
			e.Y = rw.expr(e.Y)
			return e
		}
		e.X, e.Y = rw.expr(e.X), rw.expr(e.Y)
		if boundedOps[e.Op] {
			return call(builtins.BoundedName, e.OpPos, intLit(int(e.Op), e.OpPos), e.X, e.Y)
		}
	case *syntax.CallExpr:
		e.Fn = rw.expr(e.Fn)
		rw.exprs(e.Args)
		if dot, ok := e.Fn.(*syntax.DotExpr); ok && builtins.BoundedMethods[dot.Name.Name] {
			args := append([]syntax.Expr{dot.X, strLit(dot.Name.Name, dot.NamePos)}, e.Args...)
			return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: dot.NamePos, Name: builtins.BoundedMethodName}, Lparen: e.Lparen, Args: args, Rparen: e.Rparen}
		}
	case *syntax.Comprehension:
		e.Body = rw.expr(e.Body)
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *syntax.ForClause:
				c.Vars = rw.expr(c.Vars)
				c.X = rw.expr(c.X)
			case *syntax.IfClause:
				c.Cond = rw.expr(c.Cond)
			}
		}
	case *syntax.CondExpr:
		e.Cond, e.True, e.False = rw.expr(e.Cond), rw.expr(e.True), rw.expr(e.False)
	case *syntax.DictEntry:
		e.Key, e.Value = rw.expr(e.Key), rw.expr(e.Value)
	case *syntax.DictExpr:
		rw.exprs(e.List)
	case *syntax.DotExpr:
		e.X = rw.expr(e.X)
	case *syntax.IndexExpr:
		e.X, e.Y = rw.expr(e.X), rw.expr(e.Y)
	case *syntax.LambdaExpr:
		rw.exprs(e.Params)
		e.Body = rw.expr(e.Body)
	case *syntax.ListExpr:
		rw.exprs(e.List)
	case *syntax.ParenExpr:
		e.X = rw.expr(e.X)
	case *syntax.SliceExpr:
		e.X, e.Lo, e.Hi, e.Step = rw.expr(e.X), rw.expr(e.Lo), rw.expr(e.Hi), rw.expr(e.Step)
	case *syntax.TupleExpr:
		rw.exprs(e.List)
	case *syntax.UnaryExpr:
		e.X = rw.expr(e.X)
	}
	return e
}

func call(fn string, pos syntax.Position, args ...syntax.Expr) *syntax.CallExpr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: fn}, Lparen: pos, Args: args, Rparen: pos}
}

func intLit(n int, pos syntax.Position) *syntax.Literal {
	return &syntax.Literal{Token: syntax.INT, TokenPos: pos, Raw: fmt.Sprint(n), Value: int64(n)}
}

func strLit(s string, pos syntax.Position) *syntax.Literal {
	return &syntax.Literal{Token: syntax.STRING, TokenPos: pos, Raw: fmt.Sprintf("%q", s), Value: s}
}
