package shellcmd

import (
	"slices"
	"strings"
	"testing"
)

// canon canonicalizes a space-separated command for table tests.
func canon(s string) string {
	return strings.Join(Canonical(strings.Fields(s)), " ")
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		// rm: every spelling of a recursive forced removal is one form.
		{"rm -rf /", "rm -f -r /"},
		{"rm -fr /", "rm -f -r /"},
		{"rm -r -f /", "rm -f -r /"},
		{"rm -Rf /", "rm -f -r /"},
		{"rm -R -f /", "rm -f -r /"},
		{"rm --recursive --force /", "rm -f -r /"},
		{"rm --force -R /", "rm -f -r /"},
		{"rm / -rf", "rm -f -r /"},
		{"rm -rf -- /", "rm -f -r /"},
		{"rm -rf *", "rm -f -r *"},
		{"rm -rfv /", "rm -f -r -v /"},
		{"rm -r -r -f /", "rm -f -r /"},
		{"rm --no-preserve-root -rf /", "rm -f -r --no-preserve-root /"},
		{"rm -- -rf", "rm -- -rf"},
		{"rm --interactive=once x", "rm -I x"},
		{"rm --interactive=never x", "rm --interactive=never x"},
		{"rm -rfX /", "rm -rfX /"}, // an unknown letter: the cluster is kept whole
		{"rm -", "rm -"},
		{"/bin/rm -Rf /", "rm -f -r /"},

		// Wrappers are kept, the wrapped command canonicalized.
		{"sudo rm -fr /", "sudo rm -f -r /"},
		{"sudo -u root /bin/rm -R -f /", "sudo -u root rm -f -r /"},
		{"env FOO=1 nice -n 5 rm -fr /", "env FOO=1 nice -n 5 rm -f -r /"},
		{"xargs -0 rm -fr", "xargs -0 rm -f -r"},
		{"xargs", "xargs"},
		{"timeout 5 git push --force", "timeout 5 git push -f"},

		// git: global options, subcommand options, long forms.
		{"git push --force", "git push -f"},
		{"git push -f", "git push -f"},
		{"git push origin main --force", "git push -f origin main"},
		{"git push --force-with-lease", "git push --force-with-lease"},
		{"git push origin +main", "git push -f origin +main"},
		{"git push --mirror backup", "git push -f --mirror backup"},
		{"git push --mir backup", "git push -f --mirror backup"},
		{"git -C dir push --force", "git push -f"},
		{"git --git-dir=.git --work-tree=. --no-pager push --force", "git push -f"},
		{"git -c core.pager=evil push --force", "git -c core.pager=evil push -f"},
		{"git reset --hard", "git reset --hard"},
		{"git reset --hard -q", "git reset -q --hard"},
		{"git clean -fdx", "git clean -d -f -x"},
		{"git clean -xdf", "git clean -d -f -x"},
		{"git clean --force -d -x", "git clean -d -f -x"},
		{"git commit -am msg", "git commit -a -m msg"},
		{"git commit -a -m msg", "git commit -a -m msg"},
		{"git commit --message=msg --all", "git commit -a -m msg"},
		{"git commit --message msg", "git commit -m msg"},
		{"git commit -mfoo", "git commit -m foo"},
		{"git commit -m", "git commit -m"},
		{"git branch -D x", "git branch -d -f x"},
		{"git branch --delete --force x", "git branch -d -f x"},
		{"git checkout -b new main", "git checkout -b new main"},
		{"git checkout -fb new", "git checkout -f -b new"},
		{"git status --short", "git status --short"},
		{"git --version", "git --version"},
		{"git", "git"},

		// Other table programs.
		{"cp --recursive a b", "cp -r a b"},
		{"cp -R a b", "cp -r a b"},
		{"chmod --recursive 777 /", "chmod -R 777 /"},
		{"chmod -R 777 /", "chmod -R 777 /"},
		{"chmod -x file", "chmod -x file"}, // a mode, not a flag
		{"chmod -rwx file", "chmod -rwx file"},
		{"chown -R user /", "chown -R user /"},
		{"grep -rn foo .", "grep -n -r foo ."},
		{"grep -e a -e b f", "grep -e a -e b f"},
		{"grep -A3 x", "grep -A 3 x"},
		{"curl -fsSL x", "curl -L -S -f -s x"},
		{"curl --silent --location -o out x", "curl -L -s -o out x"},
		{"ls -la", "ls -a -l"},
		{"mkdir -p -m 755 d", "mkdir -p -m 755 d"},

		// Programs outside the table are left alone.
		{"tar -xzf a.tgz", "tar -xzf a.tgz"},
		{"npm test -- --coverage", "npm test -- --coverage"},
		{"head -n5 f", "head -n5 f"},

		// Patterns: glob-suffixed long options.
		{"git push --force*", "git push -f*"},
		{"git push -f*", "git push -f*"},
		{"git push --force-with*", "git push --force-with*"},
		{"rm -rf /*", "rm -f -r /*"},

		// Unambiguous prefixes of long options, as getopt_long and git read them.
		{"rm --rec --for /", "rm -f -r /"},
		{"rm -r --for /", "rm -f -r /"},
		{"rm --no-p /", "rm --no-preserve-root /"},
		{"rm --inter=once x", "rm -I x"},
		{"cp --rec a b", "cp -r a b"},
		{"git reset --har HEAD~1", "git reset --hard HEAD~1"},
		{"git push --force-w", "git push --force-with-lease"},
		{"git push --del x", "git push -d x"},
		{"git commit --mess=hi", "git commit -m hi"},
		{"git commit --mess hi", "git commit -m hi"},
		{"git push --forc", "git push --forc"},   // ambiguous: --force, --force-with-lease, --force-if-includes
		{"git rebase --for", "git rebase --for"}, // ambiguous: --force-rebase, --fork-point
		{"ls --rec", "ls --rec"},                 // no table of ls's long options: kept
	}
	for _, tt := range tests {
		if got := canon(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalEquivalences(t *testing.T) {
	// Each group is one command spelled several ways.
	groups := [][]string{
		{"rm -rf /", "rm -fr /", "rm -r -f /", "rm -Rf /", "rm --recursive --force /", "/bin/rm -fR /", "rm / -r -f"},
		{"git push --force", "git push -f", "git -C x push --force", "git --no-pager push -f"},
		{"git clean -fd", "git clean -df", "git clean -f -d", "git clean --force -d"},
		{"cp -r a b", "cp -R a b", "cp --recursive a b"},
	}
	for _, g := range groups {
		want := canon(g[0])
		for _, s := range g[1:] {
			if got := canon(s); got != want {
				t.Errorf("Canonical(%q) = %q, want %q (as %q)", s, got, want, g[0])
			}
		}
	}
	// And these stay apart.
	apart := [][2]string{
		{"git push --force", "git push --force-with-lease"},
		{"git reset --hard", "git reset --soft"},
		{"ls -R", "ls -r"},
		{"grep -r x", "grep -R x"},
		{"git status", "git -c core.fsmonitor=evil status"},
	}
	for _, p := range apart {
		if canon(p[0]) == canon(p[1]) {
			t.Errorf("Canonical makes %q and %q equal", p[0], p[1])
		}
	}
}

// TestCanonicalMatchesParse checks the contract end to end: the canonical
// forms of the deny pattern "rm -rf *" and of each parsed command share
// the prefix "rm -f -r".
func TestCanonicalMatchesParse(t *testing.T) {
	pattern := canon("rm -rf *")
	prefix := strings.TrimSuffix(pattern, "*")
	for _, in := range []string{
		"rm -rf /", "rm -fr /", "rm -r -f /", "/bin/rm -Rf /", "rm --recursive --force /",
		"bash -lc 'rm -rf /'", "FOO=1 rm -rf /", "cd / && rm -rf .", "sudo rm -rf /",
		"sudo\trm -rf /", "command rm -rf /", "env -i FOO=1 rm -rf /", "timeout 5 rm -rf /",
		"find / -delete", "{rm,-rf,/}", "eval 'rm -rf /'", "echo / | parallel rm -rf {}",
	} {
		l := Parse(in)
		hit := false
		for _, c := range l.Commands {
			if strings.HasPrefix(strings.Join(Canonical(c.Argv), " "), prefix) {
				hit = true
			}
		}
		if !hit {
			t.Errorf("%q: no command canonicalizes to %q...; commands %q", in, prefix, renderAll(l))
		}
	}
}

func TestCanonicalPure(t *testing.T) {
	in := []string{"rm", "-rf", "/"}
	orig := slices.Clone(in)
	out := Canonical(in)
	if !slices.Equal(in, orig) {
		t.Errorf("Canonical modified its input: %q", in)
	}
	out[0] = "x"
	if in[0] != "rm" {
		t.Errorf("Canonical's result aliases its input")
	}
	if got := Canonical(nil); got == nil || len(got) != 0 {
		t.Errorf("Canonical(nil) = %#v, want an empty slice", got)
	}
}

func TestGitSplit(t *testing.T) {
	tests := []struct{ in, globals, sub, rest string }{
		{"", "", "", ""},
		{"status", "", "status", ""},
		{"reset --hard HEAD~2", "", "reset", "--hard HEAD~2"},
		{"-C dir push --force", "-C dir", "push", "--force"},
		{"-Cdir push", "-Cdir", "push", ""},
		{"-c core.pager=less -c x=y log", "-c core.pager=less -c x=y", "log", ""},
		{"--git-dir=.git --work-tree=. status", "--git-dir=.git --work-tree=.", "status", ""},
		{"--git-dir .git --work-tree . --namespace ns status", "--git-dir .git --work-tree . --namespace ns", "status", ""},
		{"--no-pager -p -P --paginate --bare log", "--no-pager -p -P --paginate --bare", "log", ""},
		{"--exec-path=/x --exec-path --config-env=a=B --config-env c=D st", "--exec-path=/x --exec-path --config-env=a=B --config-env c=D", "st", ""},
		{"--super-prefix=p --super-prefix q x", "--super-prefix=p --super-prefix q", "x", ""},
		{"--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs add", "--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs", "add", ""},
		{"--no-optional-locks --no-replace-objects --no-advice --no-lazy-fetch fetch", "--no-optional-locks --no-replace-objects --no-advice --no-lazy-fetch", "fetch", ""},
		{"--version", "", "", "--version"},
		{"-C", "", "", "-C"},
		{"-C dir -c", "-C dir", "", "-c"},
		{"-C dir", "-C dir", "", ""},
		{"push origin -f", "", "push", "origin -f"},
		{"stash drop -q stash@{0}", "", "stash", "drop -q stash@{0}"},
	}
	for _, tt := range tests {
		args := strings.Fields(tt.in)
		g, sub, rest := GitSplit(args)
		if strings.Join(g, " ") != tt.globals || sub != tt.sub || strings.Join(rest, " ") != tt.rest {
			t.Errorf("GitSplit(%q) = %q, %q, %q; want %q, %q, %q", tt.in, g, sub, rest, tt.globals, tt.sub, tt.rest)
		}
		// Canonical reads the same table: it drops or keeps the globals and
		// starts the subcommand at the same word.
		kept, from := gitGlobals(args)
		want := len(rest)
		if sub != "" {
			want++
		}
		if len(from) != want {
			t.Errorf("gitGlobals(%q) stops at %q, GitSplit at %q %q", tt.in, from, sub, rest)
		}
		for _, k := range kept {
			if !slices.Contains(g, k) {
				t.Errorf("gitGlobals(%q) keeps %q, not a global of GitSplit", tt.in, k)
			}
		}
	}
}
