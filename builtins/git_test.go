package builtins

import "testing"

func TestGitParse(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`git.parse(["git", "status"])`, `git_command(args = (), globals = (), sub = "status")`},
		{`git.parse(("/usr/bin/git", "reset", "HEAD~2", "--hard"))`, `git_command(args = ("HEAD~2", "--hard"), globals = (), sub = "reset")`},
		{`git.parse(["git", "-C", "dir", "-c", "a=b", "--no-pager", "push", "origin", "x", "--force"])`,
			`git_command(args = ("origin", "x", "--force"), globals = ("-C", "dir", "-c", "a=b", "--no-pager"), sub = "push")`},
		{`git.parse(["git", "--git-dir=.git", "--work-tree=.", "clean", "-fdx"])`,
			`git_command(args = ("-fdx",), globals = ("--git-dir=.git", "--work-tree=."), sub = "clean")`},
		{`git.parse(["git"])`, `git_command(args = (), globals = (), sub = "")`},
		{`git.parse(["git", "--version"])`, `git_command(args = ("--version",), globals = (), sub = "")`},
		{`git.parse(["git", "-C"])`, `git_command(args = ("-C",), globals = (), sub = "")`},
		{`git.parse(["git", "-P", "stash", "drop"]).args[0]`, `"drop"`},
	}
	for _, tt := range tests {
		if got := mustEval(t, tt.expr); got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	errs := []struct{ expr, want string }{
		{`git.parse([])`, `git.parse: argv must be a git command, starting with git, not ""`},
		{`git.parse(["reset", "--hard"])`, `git.parse: argv must be a git command, starting with git, not "reset"`},
		{`git.parse("git status")`, `git.parse: argv is string, want list or tuple of strings`},
		{`git.parse(["git", 1])`, `git.parse: argv[1] is int, want string`},
		{`git.parse(["git"] * 257)`, `git.parse: argv has 257 items, more than 256`},
		{`git.parse(["git", "x" * 16385])`, `git.parse: an argv item is 16385 bytes, more than 16384`},
		{`git.parse(["git", "status"]).sub.x`, `has no .x field or method`},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}
