package guard

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// TestProgramsAgree runs every spelling group of shellcmd's table
// (shellcmd.Spellings, which shellcmd's TestProgramsAgree holds Split and
// Canonical to) through the guard's write-target extraction: every
// spelling of a group makes the guard check the same operations, and for
// the programs that write each operand, those are the operands Split
// reads.
func TestProgramsAgree(t *testing.T) {
	root, _ := guardRoot(t)
	ops := []string{"a.txt", "b.txt", "c.txt"}
	for _, prog := range shellcmd.TablePrograms() {
		for _, g := range shellcmd.Spellings(prog, ops) {
			want, words := guardTargets(root, g[0])
			for _, l := range g[1:] {
				if got, _ := guardTargets(root, l); !slices.Equal(got, want) {
					t.Errorf("%q: the guard checks\n\t%q\nbut for %q\n\t%q", l, got, g[0], want)
				}
			}
			if writesOperands(g[0][0]) {
				split := shellcmd.ProgramOptions(g[0][0]).Split(g[0][1:]).Operands
				if !slices.Equal(words, split) {
					t.Errorf("%q: the guard checks %q, Split reads the operands %q", g[0], words, split)
				}
			}
		}
	}
}

// writesOperands: programs whose every operand the guard checks.
func writesOperands(prog string) bool {
	switch prog {
	case "rm", "unlink", "rmdir", "touch", "truncate", "mkdir", "tee", "shred", "chmod", "chown", "chgrp", "chattr":
		return true
	}
	return false
}

// guardTargets lists what the guard would check for one layer, and the
// patch files it would read; words are the words it checks.
func guardTargets(root string, argv []string) (out, words []string) {
	g := newGuarder(root, root, nil)
	g.shell = true
	g.seen = func(op guardOp, cwds []string) {
		words = append(words, op.word)
		out = append(out, fmt.Sprintf("%s %s tree=%v src=%s in %q", op.verb, op.word, op.tree, op.src, cwds))
	}
	if d := g.layerOps(argv, []string{root}, false); d != nil {
		out = append(out, "denied: "+d.Reason)
	}
	for _, pf := range g.patchFiles {
		out = append(out, "patch file "+pf.path+" in "+pf.base)
	}
	out = append(out, g.patchBases...)
	return out, words
}

// The arities settled when the guard's option table became shellcmd's:
// each line's write targets, by the program's real options.
func TestGuardSettledArities(t *testing.T) {
	root, _ := guardRoot(t)
	for _, c := range []struct {
		line  string
		words []string
	}{
		{"yq -i -P .a=1 f.yml", []string{"f.yml"}},                  // -P is --prettyPrint, no value
		{"yq -i --expression .a=1 f.yml", []string{"f.yml"}},        // the expression is no operand
		{"yq -i -f process .a=1 f.yml", []string{"f.yml"}},          // -f is --front-matter, with a value
		{"uniq --group in.txt out.txt", []string{"out.txt"}},        // --group[=METHOD]: optional, attached
		{"uniq --all-repeated in.txt out.txt", []string{"out.txt"}}, // likewise
		{"mkdir --context d", []string{"d"}},                        // --context[=CTX]
		{"awk -i inplace -e {print} f", []string{"f"}},              // -e gives the program
		{"gawk -i inplace.awk {print} f", []string{"f"}},            // the extension's other name
		{"perl -I lib -i -pe s/a/b/ f", []string{"f"}},              // perl -I DIR takes the next word
		{"chmod --reference ref f", []string{"f"}},                  // --reference=RFILE
		{"shred --random-source r f", []string{"f"}},                // --random-source=FILE
		{"sd -f i a b f", []string{"f"}},                            // -f FLAGS
		{"cp --sparse always a b", []string{"b"}},                   // --sparse=WHEN
		{"cp --target a b", []string{"a/b"}},                        // an abbreviation of --target-directory
		{"curl -Ho x https://example.com/", nil},                    // -H takes "o" as its value
		{"curl -so out https://example.com/", []string{"out"}},      // -o clustered after a flag
	} {
		_, words := guardTargets(root, strings.Fields(c.line))
		if !slices.Equal(words, c.words) {
			t.Errorf("%q: the guard checks %q, want %q", c.line, words, c.words)
		}
	}
}

// rsync, scp and git clone from another host bring what that host holds: a
// destination that is, holds or could come to hold a protected path is
// denied (rsync's and scp's were not checked at all, git clone's neither).
func TestGuardCopyFromAnotherHost(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, ".claude/settings.json", "{}")
	for _, cmd := range []string{
		"rsync -a host:evil/ .claude/",
		"rsync -a host:evil/ .",
		"rsync host:settings.json .claude/settings.json",
		"rsync -a host:a/ src/ .github/hooks/agent-shell/",
		"rsync -a host:skill/ .claude/skills/new/",
		"scp host:evil.json .claude/settings.json",
		"scp -P 2222 host:settings.json .claude/",
		"scp -r host:evil .claude/skills/x",
		"scp -r user@host:agents .claude",
		"git clone https://example.com/evil .claude/skills/evil",
		"git clone --depth 1 https://example.com/p .opencode/plugins/p",
		"git -C .claude clone https://example.com/x agents",
	} {
		if g := Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("%q: not denied", cmd)
		}
	}
	for _, cmd := range []string{"rsync -a host:site/ public/", "rsync -a dist/ host:www/", "scp host:notes.txt docs/",
		"scp -r host:assets static/", "git clone https://example.com/lib vendor/lib", "git clone https://example.com/lib"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
}

// A registration is reached by the spellings that name it indirectly: cp
// --parents, a name known only at run time in a registration's folder, a
// work tree checked out into one.
func TestGuardRegistrationsReachedIndirectly(t *testing.T) {
	root, _ := guardRoot(t)
	for _, cmd := range []string{
		"cp --parents skills/x/SKILL.md .claude/",
		"cp --parents agents/a.md .claude",
		"echo x > .claude/agents/$(date +%s).md",
		"X=evil; echo x > .claude/agents/$X.md",
		"cp evil.js .opencode/plugins/$NAME",
		"echo x > ~/.claude/agents/$N.md",
		"mkdir -p .claude/skills/$S && cp evil .claude/skills/$S/SKILL.md",
		"git worktree add .claude/skills/w",
		"git worktree add -b evil .opencode/plugins/wt main",
	} {
		if g := Command(root, root, cmd, nil, nil); g == nil || g.Guard != HookRegistration {
			t.Errorf("%q: %+v, want a hook-registration deny", cmd, g)
		}
	}
	for _, cmd := range []string{"echo x > out/$X.txt", "cp --parents src/a.go build/", "git worktree add ../wt", "echo x > ./$OUT"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
}

// An agent may not have agent-shell change its own configuration or a hook
// registration for it: what the guard denies as a write, it denies as a
// run of agent-shell that makes the write. Reading and the hook's own call
// stay allowed.
func TestGuardAgentShellChangingItsSetup(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, ".github/hooks/agent-shell/agent-shell.toml", "version = 1\n")
	for _, cmd := range []string{
		"agent-shell hook uninstall --agent claude",
		"agent-shell hook --agent claude install",
		"agent-shell init --agent claude --yes",
		"agent-shell pack remove safety",
		"agent-shell pack add ./evil",
		"agent-shell pack update safety --rev main",
		"agent-shell policy --init --write --yes",
		"env X=1 agent-shell pack remove safety",
	} {
		if g := Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("%q: not denied", cmd)
		}
	}
	for _, cmd := range []string{
		"agent-shell hook --agent claude < payload.json",
		"agent-shell policy --init",
		"agent-shell pack list",
		"agent-shell pack show safety",
		"agent-shell status",
		"agent-shell log --last 1h",
		"agent-shell policy explain 'rm -rf /'",
	} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
	// Where no manifest exists, policy --init writes one.
	bare := t.TempDir()
	writeGuardFile(t, bare, ".git/HEAD", "ref: refs/heads/main\n")
	if g := Command(bare, bare, "agent-shell policy --init", nil, nil); g == nil {
		t.Error("policy --init without a manifest: not denied")
	}
}

// git stash --all takes ignored files away, as git clean -x does:
// agent-shell's folders are among them.
func TestGuardGitStashAll(t *testing.T) {
	root, _ := guardRoot(t)
	for _, cmd := range []string{"git stash --all", "git stash push -a -m wip", "git stash -ua", "git stash push --all -- .agent-shell", "git stash save -a", "git stash save -a wip"} {
		if g := Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("%q: not denied", cmd)
		}
	}
	for _, cmd := range []string{"git stash", "git stash -u", "git stash push -m all", "git stash pop", "git stash list", "git stash push -a -- src/", "git stash -m a"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
}

// Spellings that passed: a variable the line itself sets to a protected
// folder (also by a for loop), a symbolic link the line makes to one, git
// stash or checkout of a protected folder (or stash of a protected file),
// the user's ~/.npmrc.
func TestGuardLineVariablesStashAndUserNpmrc(t *testing.T) {
	root, home := guardRoot(t)
	for _, cmd := range []string{
		"d=.claude; echo x > $d/settings.json", `d=.claude; cp /tmp/x "$d/settings.json"`, "d=.claude && echo x > ${d}/settings.json",
		"f=.claude/settings.json; : > $f", "d=.c; echo x > ${d}laude/settings.json", "export d=$HOME/.claude; echo x > $d/settings.json",
		"a=.github; b=$a/hooks; rm -rf $b",
		"git stash -- .claude", "git stash push .claude/settings.json", "git stash push -u -- .github/hooks", "git stash push -m wip -- .claude",
		"git checkout -- .claude", "git checkout HEAD~3 -- .github", "git restore .github/hooks", "cd .claude && git checkout .",
		"for f in .claude/settings.json; do echo x > $f; done", "for d in src .github; do rm -rf $d/hooks; done",
		"ln -s .claude c; echo x > c/settings.json", "ln -sf .github g && rm -rf g/hooks", "mkdir l && ln -s ../.claude l/c && cp /tmp/x l/c/settings.json",
		"ln -s .github g; ln -s g/hooks h; rm -rf h/agent-shell", "arr=(src .claude); echo x > ${arr[1]}/settings.json",
		"set -- .claude; echo x > $1/settings.json", "declare -a a=(.claude); echo x > ${a[@]}/settings.json",
		"setfacl -m u:nobody:0 .claude/settings.json", "setfacl -R --set u::0 .github", "setfacl -b -M acl.txt .agent-shell", "ln -s $PWD/.claude c; sed -i d c/settings.json", "ln -s -t links ../.claude; echo x > links/.claude/settings.json",
		// A program agent-shell does not know may write what it is
		// given; a formatter rewrites its files when asked to.
		"mytool -o .claude/settings.json", "mytool --out=.github/hooks/agent-shell/agent-shell.toml", "faketime now .agent-shell/events",
		"prettier --write .claude/settings.json", "eslint --fix .github/hooks/agent-shell/agent-shell.toml", "black .agent-shell",
		"gofmt -w .agent-shell/x.go",
	} {
		if g := Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("%q: not denied", cmd)
		}
	}
	for _, cmd := range []string{"d=dist; echo x > $d/out.txt", "d=.claude; echo x > $e/settings.json", "git stash -- src", "git stash push -m .claude", "git stash save .claude",
		"git checkout .", "git checkout -- .", "git stash -- .", "git restore src", "cd src && git checkout .",
		"ln -s src s; echo x > s/out.txt", "ln -s .claude c; cat c/settings.json", "ln .claude/x y; echo > c/settings.json",
		"setfacl -m u:nobody:r src/main.go", "getfacl .claude/settings.json",
		"mytool build --out dist", "prettier --check .claude/settings.json", "black --check .agent-shell", "eslint .github/hooks/agent-shell/x.js"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
	// ~/.npmrc sends npm scripts through agent-shell when the project's
	// .npmrc is committed (npm config set script-shell --location=user).
	for _, cmd := range []string{"printf x > ~/.npmrc", "echo x >> ~/.npmrc", "sed -i d ~/.npmrc", "cp /tmp/x $HOME/.npmrc",
		"npm config edit", "EDITOR='sed -i d' npm config edit --location=user", "NPM_CONFIG_USERCONFIG=/tmp/x npm test",
		"export npm_config_userconfig=/tmp/npmrc", "npm test --userconfig /tmp/x", "npm run build --userconfig=/tmp/x"} {
		writeGuardFile(t, home, ".npmrc", "script-shell=agent-shell\n")
		if g := Command(root, root, cmd, nil, nil); g == nil || g.Guard != NpmScriptShell {
			t.Errorf("%q with script-shell in ~/.npmrc: %+v", cmd, g)
		}
	}
	writeGuardFile(t, home, ".npmrc", "save-exact=true\n")
	for _, cmd := range []string{"echo registry=x >> ~/.npmrc", "npm config edit", "npm test --userconfig /tmp/x"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q with a ~/.npmrc without script-shell: %+v", cmd, g)
		}
	}
}
