package builtins

import (
	"fmt"
	"path"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

func gitModule() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "git", Members: starlark.StringDict{
		"parse": starlark.NewBuiltin("git.parse", gitParse),
	}}
	m.Freeze()
	return m
}

// gitParse is git.parse(argv): a git command line split into a frozen struct of globals (a
// tuple: the global options before the subcommand, as written, values included: -C DIR,
// -c NAME=VALUE, --git-dir=DIR, --no-pager, ...), sub (the subcommand, "" when none: no word
// after the globals, or an option git's table does not know, such as --version) and args (a
// tuple: every word after the subcommand, or after the globals when sub is ""). argv is the
// whole command, argv[0] a path whose base name is git; at most MaxList words of at most
// MaxString bytes. The table of global options is the one the policy's canonical forms use
// (shellcmd.GitSplit).
func gitParse(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &v); err != nil {
		return nil, err
	}
	argv, err := stringList(b.Name(), "argv", v)
	if err != nil {
		return nil, err
	}
	for _, a := range argv {
		if err := checkString(b.Name(), "an argv item", a, MaxString); err != nil {
			return nil, err
		}
	}
	if len(argv) == 0 || path.Base(argv[0]) != "git" {
		prog := ""
		if len(argv) > 0 {
			prog = argv[0]
		}
		return nil, fmt.Errorf("%s: argv must be a git command, starting with git, not %s", b.Name(), clip(prog))
	}
	globals, sub, rest := shellcmd.GitSplit(argv[1:])
	s := starlarkstruct.FromStringDict(starlark.String("git_command"), starlark.StringDict{
		"globals": stringTuple(globals),
		"sub":     starlark.String(sub),
		"args":    stringTuple(rest),
	})
	s.Freeze()
	return s, nil
}
