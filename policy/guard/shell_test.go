package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// writeForms write the path P (other files: /tmp/agent-shell-guard-src).
var writeForms = []string{
	"echo x > P",
	"echo x >> P",
	"echo x &> P",
	"echo x &>> P",
	"echo x >| P",
	"echo x 1> P",
	"ls 2> P",
	"cat <> P",
	"cat <<EOF > P\nx\nEOF",
	"exec > P",
	"rm P",
	"rm -f P",
	"rm -rf P",
	"rm -- P",
	"unlink P",
	"shred -u P",
	"truncate -s 0 P",
	"touch P",
	"chmod 000 P",
	"chown nobody P",
	"ln -sf /tmp/agent-shell-guard-src P",
	"tee P",
	"tee -a P",
	"sed -i s/a/b/ P",
	"sed -i.bak -e s/a/b/ P",
	"sed --in-place s/a/b/ P",
	"sed -Ei s/a/b/ P",
	"perl -pi -e s/a/b/ P",
	"perl -i.bak -pe s/a/b/ P",
	"dd if=/dev/zero of=P",
	"mv P /tmp/agent-shell-guard-dst",
	"mv /tmp/agent-shell-guard-src P",
	"cp /tmp/agent-shell-guard-src P",
	"cp -f /tmp/agent-shell-guard-src P",
	"install -m 644 /tmp/agent-shell-guard-src P",
	"rsync -a /tmp/agent-shell-guard-src P",
	"git checkout -- P",
	"git checkout HEAD P",
	"git checkout HEAD~3 -- P",
	"git restore P",
	"git restore --source=HEAD~1 -- P",
	"git restore -s HEAD~1 P",
	"git rm P",
	"git rm --cached P",
	"git mv P moved",
	"vim P",
	"sort -o P /tmp/agent-shell-guard-src",
	"curl -o P https://example.com/x",
	"wget -O P https://example.com/x",
	"curl -D P https://example.com/x",
	"curl --cookie-jar P https://example.com/x",
	"curl --trace P https://example.com/x",
	"wget -o P https://example.com/x",
	"aria2c -o P https://example.com/x",
	"http --download -o P https://example.com/x",
	"gzip P",
	"tar -xf /tmp/agent-shell-guard-src.tar -C P",
	"tar xzf /tmp/agent-shell-guard-src.tgz --directory=P",
	"tar -cf P src",
	"tar --absolute-names -xf /tmp/agent-shell-guard-src.tar P",
	"unzip -o /tmp/agent-shell-guard-src.zip -d P",
}

// wrappers put a command inside another: wrapped, compound, in a body.
var wrappers = []string{
	"%s",
	"sudo %s",
	"sudo -u root %s",
	"env X=1 %s",
	"env -i PATH=/bin %s",
	"nice -n 5 %s",
	"timeout 5 %s",
	"command %s",
	"nohup %s",
	"bash -c '%s'",
	"sh -c '%s'",
	"bash -lc '%s'",
	"eval '%s'",
	"true && %s",
	"false || %s",
	"echo a; %s",
	"echo a | %s",
	"(%s)",
	"{ %s; }",
	"echo $(%s)",
	"x=`%s`",
	"if true; then %s; fi",
	"for i in 1 2; do %s; done",
	"f() { %s; }; f",
	"bash <<'SH'\n%s\nSH",
}

func wrap(w, cmd string) string {
	if strings.Contains(w, "'%s'") && strings.Contains(cmd, "'") || strings.Contains(w, "<<'SH'") && strings.Contains(cmd, "<<") ||
		(strings.Contains(w, "$(") || strings.Contains(w, "`")) && strings.Contains(cmd, "<<") ||
		strings.Contains(w, "'%s'") && strings.Contains(cmd, "\n") {
		return ""
	}
	if strings.Contains(cmd, "\n") {
		// A heredoc's terminator must end its line.
		w = strings.ReplaceAll(w, "%s;", "%s\n")
		if i := strings.Index(w, "%s"); i+2 < len(w) && w[i+2] != '\n' {
			w = w[:i+2] + "\n" + w[i+2:]
		}
	}
	return strings.ReplaceAll(w, "%s", cmd)
}

func TestGuardDeniesEveryShellWriteForm(t *testing.T) {
	root, _ := guardRoot(t)
	sub := filepath.Join(root, "sub")
	n := 0
	check := func(pp protectedCase, cwd, cmd string) {
		t.Helper()
		n++
		d := Command(root, cwd, cmd, nil, nil)
		switch {
		case d == nil:
			t.Errorf("%q (cwd %s): allowed, want %s", cmd, cwd, pp.guard)
		case d.Guard != pp.guard:
			t.Errorf("%q: guard %s (%s), want %s", cmd, d.Guard, d.Reason, pp.guard)
		case !strings.HasPrefix(d.Reason, "agent-shell guard "+d.Guard+": "):
			t.Errorf("%q: reason %q does not name the guard", cmd, d.Reason)
		}
	}
	for _, pp := range protectedPaths {
		for _, form := range writeForms {
			for _, w := range wrappers {
				if cmd := wrap(w, strings.ReplaceAll(form, "P", pp.rel)); cmd != "" {
					check(pp, root, cmd)
				}
			}
			for _, p := range []struct{ cwd, path string }{
				{root, "./" + pp.rel},
				{root, filepath.Join(root, pp.rel)},
				{root, "sub/../" + pp.rel},
				{root, "src/../sub/../" + pp.rel},
				{sub, "../" + pp.rel},
				{sub, filepath.Join(sub, "..", pp.rel)},
				{"", pp.rel},
			} {
				cmd := strings.ReplaceAll(form, "P", p.path)
				check(pp, p.cwd, cmd)
				if w := wrap("bash -c '%s'", cmd); w != "" {
					check(pp, p.cwd, w)
				}
			}
			check(pp, root, "cd sub && "+strings.ReplaceAll(form, "P", "../"+pp.rel))
		}
	}
	t.Logf("%d shell commands denied", n)
}

func TestGuardAllowsReadsAndOtherWrites(t *testing.T) {
	root, _ := guardRoot(t)
	reads := []string{
		"cat P", "head -n 5 P", "tail -f P", "grep -n x P", "rg x P", "less P", "wc -l P", "diff P src/main.go",
		"cp P /tmp/agent-shell-guard-copy", "jq . P", "git diff P", "git log -- P", "git show HEAD:P", "git blame P",
		"ls -la P", "stat P", "sed -n 1p P", "sed s/a/b/ P", "perl -ne print P", "cat < P", "tar czf /tmp/agent-shell-guard.tgz P",
		"rsync -a P /tmp/agent-shell-guard-copy", "find P -name x", "md5sum P", "file P", "git add P", "git status P",
		"echo P", "bash -c 'cat P'", "sudo cat P", "cat P | grep x > /tmp/agent-shell-guard-out", "sort P", "uniq P",
		"git checkout main", "git checkout -b feature", "git restore --staged src/main.go",
	}
	for _, pp := range protectedPaths {
		for _, r := range reads {
			c := strings.ReplaceAll(r, "P", pp.rel)
			if d := Command(root, root, c, nil, nil); d != nil {
				t.Errorf("%q: denied: %s", c, d.Reason)
			}
		}
	}
	for _, c := range []string{
		"ls", "go test ./...", "echo x > src/out.txt", "echo x > /tmp/agent-shell-guard-out", "rm -rf src", "rm -rf .github/workflows",
		"rm .github/workflows/ci.yml", "mv src/main.go src/app.go", "cp -r src/. build", "rsync -a src/ build/", "chmod -R 755 src",
		"find src -delete", "git clean -fd", "git clean -fdx src", "mkdir -p .github/hooks", "touch .claude/commands/new.md",
		"echo x > .claude/settings.json.bak", "cp .claude/settings.json .claude/settings.json.bak", "echo x > .github/hooks/README.md",
		"rm -rf *", "echo x > $X", "rm -rf \"$D\"", "echo x > \"$OUT\"/a", "cat x | xargs rm", "find . -name '*.go' -exec gofmt -w {} +",
		"sed -i s/a/b/ src/main.go", "cd .claude && cat settings.json", "ln -s src/main.go main.go", "npm test",
		"git checkout .", "git stash", "echo x > .agent-shellx", "rm -rf .agent-shell-old", "echo x > sub/.agent-shell",
	} {
		if d := Command(root, root, c, nil, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
}

func TestGuardXargsAndFindForms(t *testing.T) {
	root, _ := guardRoot(t)
	checkGuards(t, root, []guardCase{
		{"echo src/main.go | xargs -I{} cp {} .claude/settings.json", HookRegistration},
		{"ls | xargs -I % mv % .agent-shell/state/", AgentShellFiles},
		{"printf x | xargs tee .codex/hooks.json", HookRegistration},
		{"find .agent-shell -name '*.jsonl' -delete", AgentShellFiles},
		{"find .github/hooks -type f -exec chmod 000 {} \\;", AgentShellFiles},
		{"find . -fprint .amp/settings.json", HookRegistration},
		{"sudo find .claude -exec truncate -s 0 {} +", HookRegistration},
		{"find src -exec rm {} +", ""},
		{"git rm -r --cached .claude", HookRegistration}, // the next commit deletes it in other clones
		// A download named after its address, in the folder an option gives.
		{"wget -P .claude https://x/settings.json", HookRegistration},
		{"curl --output-dir .claude -O https://x/settings.json", HookRegistration},
		{"aria2c -d .claude https://x/settings.json", HookRegistration},
		{"curl -O https://x/settings.json", ""},
		// {} is also each protected file under the root (these passed: {}
		// stood for the folder, so cp wrote a file inside it).
		{"find .claude -exec cp /dev/null {} \\;", HookRegistration},
		{"find .github/hooks -name '*.toml' -exec dd if=/dev/null of={} \\;", AgentShellFiles},
		{"find src -exec cp /dev/null {} \\;", ""},
		{"cat list | xargs rm", ""}, // what xargs reads is not known here: the policy's unknown handling decides
	})
}

// An archive extracted: its members named, or, when none is, whatever it
// holds into a folder named, which is not known here (these passed: tar and
// unzip were not read). Extracted whole where it runs, it is left alone,
// as npm install is: enforced mode bounds what it writes.
func TestGuardArchiveForms(t *testing.T) {
	root, _ := guardRoot(t)
	checkGuards(t, root, []guardCase{
		{"tar -xf x.tar", ""},
		{"tar -xf x.tar .claude/settings.json", HookRegistration},
		{"tar xzf x.tgz .claude", HookRegistration},
		{"unzip -o x.zip .claude/settings.json", HookRegistration},
		{"tar -C .claude -xf x.tar", HookRegistration},
		{"tar --directory=.github/hooks -xzf x.tgz", AgentShellFiles},
		{"unzip x.zip", ""},
		{"unzip -o x.zip -d .claude", HookRegistration},
		{"unzip x.zip -x src/a -d .", ""},
		{"unzip x.zip -d .github", AgentShellFiles},
		{"tar -xf x.tar -C vendor", ""},
		{"tar xf x.tar -C build", ""},
		{"tar -xf x.tar src/main.go", ""},
		{"tar -tf x.tar", ""},
		{"tar -xOf x.tar .claude/settings.json", ""}, // to standard output
		{"tar -czf dist.tgz dist", ""},
		{"unzip x.zip -d data", ""},
		{"unzip -l x.zip", ""},
		{"unzip -p x.zip .claude/settings.json", ""},
		{"unzip x.zip -x .claude/settings.json -d out", ""},
	})
}

// A command given a directory argument is guarded where it runs.
func TestGuardShellDirectory(t *testing.T) {
	root := t.TempDir()
	p := `{"session_id":"s","hook_event_name":"BeforeTool","cwd":"` + root + `","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf agent-shell","directory":".github/hooks"}}`
	ad, _ := hostapi.ByName("gemini", func(string) string { return "" })
	ev, err := ad.Parse([]byte(p), "")
	if err != nil {
		t.Fatal(err)
	}
	if g := Check(root, ev, nil, nil); g == nil || g.Guard != AgentShellFiles {
		t.Errorf("guard %+v, want agent-shell-files", g)
	}
}

// Padding cannot carry a command past the guard: a line cut short (too
// many commands) or too long to parse is denied (policy's
// TestPaddingIsDeniedByTheRules holds the rules to the same).
func TestPaddingIsDenied(t *testing.T) {
	root := t.TempDir()
	padded := []string{
		strings.Repeat(":;", 10001) + "rm -rf .agent-shell",
		": " + strings.Repeat("x", 300<<10) + "; rm -rf .agent-shell",
	}
	for _, cmd := range padded {
		if g := Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("guard let a %d-byte padded command through", len(cmd))
		}
	}
}

// A find -delete from the root whose name tests match no protected file
// removes none; one whose tests match one, or that has no name test, or an
// -o, still does.
func TestGuardFindDeleteByName(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{".github/hooks/agent-shell/agent-shell.toml", ".github/hooks/agent-shell/scripts/x.star", ".claude/settings.json", "src/a.pyc", "src/b.orig"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{`find . -name "*.pyc" -delete`, false},
		{`find . -name '*.orig' -type f -delete`, false},
		{`find src -iname '*.PYC' -delete`, false},
		{`find . -path './src/*.pyc' -delete`, true}, // * in a -path test: taken to match
		{`find . -name "*.star" -delete`, true},
		{`find . -name "*.json" -delete`, true},
		{`find . -iname "AGENT-SHELL.TOML" -delete`, true},
		{`find . -delete`, true},
		{`find . -type f -delete`, true},
		{`find . -name "*.pyc" -o -name "*.toml" -delete`, true},
		{`find . ! -name "*.pyc" -delete`, true},
		{`find .. -name "*.pyc" -delete`, true},
		{`find . -type d -empty -delete`, false},
		{`find . -type f -empty -delete`, false}, // the protected files hold a byte each
		{`find . -name __pycache__ -type d -exec rm -rf {} +`, false},
		{`find . -name hooks -exec rm -rf {} +`, true}, // .github/hooks holds the configuration
		{`find . -name agent-shell -type d -exec rm -rf {} +`, true},
		{`find . -exec rm -rf {} +`, true},
		{`git rm -r .`, true},
		{`find . -size +1M -delete`, false}, // the protected files are small
		{`find . -empty -delete`, false},    // and not empty
		{`find . -mmin +60 -delete`, false}, // and new
		{`find . -mmin -60 -delete`, true},
		{`find . -type f -size -2k -delete`, true},
		{`find . -type f -size -1k -delete`, false}, // -1k rounds up: only empty files
		{`find . -regex '.*\.o' -delete`, true},     // not tried: taken to hold
		{`find . -type d -exec rm -rf {} +`, true},  // the root is a folder
	} {
		d := Command(root, root, c.cmd, nil, nil)
		if (d != nil) != c.deny {
			t.Errorf("%s: denied %v, want %v", c.cmd, d != nil, c.deny)
		}
	}
}

// FuzzGuardCommand: the guard never panics, and a write to the flight
// recorder appended to any command is denied whenever the parser reports
// it (a prefix can swallow it into a quote, a comment or a heredoc, and
// then bash would not run it either).
func FuzzGuardCommand(f *testing.F) {
	for _, s := range []string{
		"", "ls", "echo hi", "cd /", "cd sub", "cd $X", "cd ..; cd ..", "rm -rf *", "cp -r src/. .", "git checkout -- .",
		"bash -c 'echo x'", "sudo -u root env A=1 nice ls", "find . -exec rm {} +", "a && b || c | d", "(x; y)", "{ a; }",
		"for i in 1; do echo; done", "echo $(date)", "x=`pwd`", "cat <<EOF\nhi\nEOF", "f() { :; }", "export A=1", "exec > /dev/null",
		"ln -s .agent-shell x", "echo x > .agent-shell/$X", "git -C sub apply p.diff", "patch -p1 < x.diff", "apply_patch",
		"npm config set script-shell bash", "echo '", "echo \"", "# comment", "echo \\", "shopt -s dotglob; rm -rf .*",
		"rm -rf ~/*", "rm -rf /*/*", "cd ~; cd -", "pushd /tmp; popd", "eval \"$X\"", "sh -c \"$Y\"", "xargs -I{} cp {} .",
		"tar -xPf a -C .claude m", "tar xzf a --directory=x -- m", "tar --to-command=x -xf a", "tar -cf", "unzip a -x b -d c", "unzip -o",
	} {
		f.Add(s)
	}
	root, _ := guardRoot(f)
	const suffix = "echo x > .agent-shell/events/a.jsonl"
	f.Fuzz(func(t *testing.T, prefix string) {
		if len(prefix) > 4096 {
			return
		}
		_ = Command(root, root, prefix, nil, nil)
		for _, sep := range []string{"; ", "\n", " && ", " || "} {
			full := prefix + sep + suffix
			d := Command(root, root, full, nil, nil)
			if d == nil && reportsSuffixWrite(full) {
				t.Fatalf("%q: allowed, but the parser sees the write to the flight recorder", full)
			}
		}
	})
}

func reportsSuffixWrite(line string) bool {
	l := shellcmd.Parse(shellcmd.TrimSpace(line))
	for _, c := range l.Commands {
		for _, r := range c.Redirects {
			if r.Write && r.File && r.Target == ".agent-shell/events/a.jsonl" {
				return true
			}
		}
	}
	return false
}

// A file a one-liner changes by a literal path is written as a redirection
// writes it (these passed).
func TestGuardOneLinerWrites(t *testing.T) {
	root, _ := guardRoot(t)
	checkGuards(t, root, []guardCase{
		{`python3 -c "open('.claude/settings.json', 'w').write('{}')"`, HookRegistration},
		{`node -e "require('fs').writeFileSync('.claude/settings.json', '{}')"`, HookRegistration},
		{`python3 -c "import shutil; shutil.copy('x', '.claude/settings.json')"`, HookRegistration},
		{`python3 -c "from pathlib import Path; Path('.github/hooks/agent-shell/agent-shell.toml').unlink()"`, AgentShellFiles},
		{`ruby -e "File.write('.npmrc', 'script-shell=sh')"`, NpmScriptShell},
		{`python3 -c "print(open('.claude/settings.json').read())"`, ""},
		{`python3 -c "open('out.txt', 'w').write('x')"`, ""},
	})
}

// A nested Claude Code session started without the project's hooks
// (these passed).
func TestGuardNestedClaude(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, "quiet.json", `{"disableAllHooks": true}`)
	writeGuardFile(t, root, "perms.json", `{"permissions": {"allow": ["Bash(ls:*)"]}}`)
	checkGuards(t, root, []guardCase{
		{"claude -p 'rm -rf ~' --setting-sources user", HookRegistration},
		{`claude --settings '{"disableAllHooks":true}' -p hi`, HookRegistration},
		{"claude --settings=quiet.json -p hi", HookRegistration},
		{"claude --settings \"$S\" -p hi", HookRegistration},
		{"npx @anthropic-ai/claude-code --setting-sources local -p hi", HookRegistration},
		{"claude config set -g disableAllHooks true", HookRegistration},
		{"CLAUDE_CODE_SIMPLE=1 claude -p hi", AgentShellEnv},
		{"export CLAUDE_CODE_SAFE_MODE=1", AgentShellEnv},
		{"claude -p 'summarize README.md'", ""},
		{"claude --settings perms.json -p hi", ""},
		{"claude --setting-sources user,project,local -p hi", ""},
		{"claude config set theme dark", ""},
	})
}

// Ex commands an editor runs write the files they name (these passed).
func TestGuardEditorCommands(t *testing.T) {
	root, _ := guardRoot(t)
	checkGuards(t, root, []guardCase{
		{"vim -es -c 'r !echo x' -c 'w! .claude/settings.json' -c q /dev/null", HookRegistration},
		{"ex -sc 'wq! .claude/settings.json' x", HookRegistration},
		{"vim +'saveas .github/hooks/agent-shell/agent-shell.toml' x", AgentShellFiles},
		{"vi -c 'set ff=unix | w >> .codex/hooks.json' x", HookRegistration},
		{"vim -es -c '%s/a/b/g' -c wq src/main.go", ""},
		{"vim -es -c 'w !sh' x", ""},
	})
}
