package shellcmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testRepo is a repository at /r (git folder /r/.git), its files by path.
func testRepo(files map[string]string) Disk {
	return Disk{
		GitDir: func(dirs []string, unknown bool) (string, string) { return "/r/.git", "/r" },
		File: func(dirs []string, unknown bool, names []string) (string, string, string) {
			dir := "/r" // where the line runs
			if len(dirs) > 0 {
				dir = dirs[len(dirs)-1]
			}
			for _, n := range names {
				if text, ok := files[dir+"/"+n]; ok {
					return text, dir, ""
				}
			}
			return "", "", ""
		},
	}
}

// git runs its repository's hooks and what its .git/config says: each is
// walked as a command it may run.
func TestParseGitOnDisk(t *testing.T) {
	files := map[string]string{
		"/r/.git/config": "[core]\n\trepositoryformatversion = 0\n[alias]\n\tst = !cat .env\n\tnuke = reset --hard # a comment\n" +
			"[remote \"origin\"]\n\turl = https://x\n\tpush = +refs/heads/*:refs/heads/*\n[include]\n\tpath = other\n",
		"/r/.git/hooks/pre-commit":    "#!/bin/sh\nrm -rf ~/x\n",
		"/r/.git/hooks/commit-msg":    "#!/usr/bin/env python3\nimport os\nos.system('git reset --hard')\n",
		"/r/.git/hooks/post-checkout": "#!/usr/bin/perl\nprint 1\n",
		"/r/.git/hooks/pre-push":      "#!/usr/bin/env bash\ncat ~/.netrc\n",
		"/r/.git/hooks/other":         "rm -rf /",
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"git status", []string{"git status"}},
		{"git st", []string{"git st", "cat .env @1 ?guess"}},
		{"git nuke", []string{"git nuke", "git reset --hard @1 ?guess"}},
		{"git commit -m x", []string{"git commit -m x", "rm -rf ~/x @1 ?guess"}}, // a python hook is not read
		{"git commit --no-verify -m x", []string{"git commit --no-verify -m x"}},
		{"git push", []string{"git push", "git push origin +refs/heads/*:refs/heads/* @1 ?guess", "cat ~/.netrc @1 ?guess"}},
		{"git checkout main", []string{"git checkout main"}},
		{"GIT_DIR=/x git st", []string{"git st"}},
		{"git --git-dir=/x st", []string{"git --git-dir=/x st"}},
	} {
		l := ParseWith(tt.in, testRepo(files))
		var got []string
		for _, c := range l.Commands {
			got = append(got, render(c))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if l.Unknown() {
			t.Errorf("Parse(%q): unknown %q", tt.in, l.UnknownReason())
		}
	}
}

// core.hooksPath moves the hooks, and husky 9's stubs in .husky/_ run the
// hook of the same name in .husky.
func TestParseGitHooksPath(t *testing.T) {
	files := map[string]string{
		"/r/.git/config":         "[core]\n\thooksPath = .husky/_\n",
		"/r/.husky/_/pre-commit": "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"",
		"/r/.husky/pre-commit":   "npm test\ncat .env\n",
		"/r/.git/hooks/pre-push": "rm -rf ~\n",
	}
	l := ParseWith("git commit -m x && git push", testRepo(files))
	r := renderAll(l)
	if !slices.Contains(r, "cat .env @1 ?guess") || slices.Contains(r, "rm -rf ~ @1 ?guess") {
		t.Errorf("hooks from core.hooksPath: %q", r)
	}
}

// What .git/config says is read as git reads it.
func TestGitConfigSettings(t *testing.T) {
	got := gitConfigSettings("[Alias]\n  Co = checkout\n[remote \"Up\"]\n\tpush = \"+refs/x\" ; comment\n[core.x]\nflag\n[a] b = \"c\\\"d\\\\e\"\nbroken line\n")
	var kv []string
	for _, s := range got {
		kv = append(kv, s.key+"="+s.value)
	}
	want := []string{"alias.co=checkout", "remote.Up.push=+refs/x", "core.x.flag=true", "a.b=c\"d\\e", "a.broken line=true"}
	if !slices.Equal(kv, want) {
		t.Errorf("settings:\n got %q\nwant %q", kv, want)
	}
	if n := len(gitConfigSettings(strings.Repeat("[a]\nb=c\n", maxGitConfig+10))); n != maxGitConfig {
		t.Errorf("%d settings read, want at most %d", n, maxGitConfig)
	}
}

// FuzzGitOnDisk: whatever .git/config and a hook say, and whatever git
// line runs them, the parse holds its invariants, and the commands the
// line spells out are the ones it spells out without them.
func FuzzGitOnDisk(f *testing.F) {
	f.Add("git commit -m x", "[alias]\n\tx = !rm -rf ~\n", "#!/bin/sh\nrm -rf ~")
	f.Add("git x", "[alias]\n\tx = x\n", "")
	f.Add("git push", "[remote \"o\"]\npush = +a:b\n[core]\nhooksPath = /h\n", "#!/usr/bin/env node\nrequire('child_process').execSync('rm -rf ~')")
	f.Add("git -C a log", "[\n\"\\", "#!")
	f.Fuzz(func(t *testing.T, src, config, hook string) {
		files := map[string]string{"/r/.git/config": config, "/r/.git/hooks/pre-commit": hook, "/r/.git/hooks/pre-push": hook, "/h/pre-push": hook}
		l := ParseWith(src, testRepo(files))
		checkWithDisk(t, src, l, fmt.Sprintf("config %q and hook %q", config, hook))
	})
}

// The user's configuration gives aliases (not its other settings, which
// run for every repository), and a configuration's includes are read
// too: an alias in a file .git/config includes, or in ~/.gitconfig, runs
// what it says.
func TestParseGitConfigFiles(t *testing.T) {
	files := map[string]string{
		"/r/.git/config":       "[include]\n\tpath = ../x.cfg\n[includeIf \"gitdir:~/w/\"]\n\tpath = /etc/y.cfg\n",
		"/r/x.cfg":             "[alias]\n\tst = !cat .env\n",
		"/etc/y.cfg":           "[alias]\n\tnuke = reset --hard\n",
		"~/.gitconfig":         "[core]\n\tpager = rm -rf ~/p\n[alias]\n\twipe = !rm -rf ~/x\n[include]\n\tpath = ~/.gitconfig.local\n",
		"~/.gitconfig.local":   "[alias]\n\tpf = push --force\n",
		"~/.config/git/config": "[alias]\n\tleak = !cat ~/.ssh/id_rsa\n",
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"git st", []string{"git st", "cat .env @1 ?guess"}},
		{"git nuke", []string{"git nuke", "git reset --hard @1 ?guess"}},
		{"git wipe", []string{"git wipe", "rm -rf ~/x @1 ?guess"}},
		{"git pf", []string{"git pf", "git push --force @1 ?guess"}},
		{"git leak", []string{"git leak", "cat ~/.ssh/id_rsa @1 ?guess"}},
		{"git log", []string{"git log"}}, // the user's pager is not judged
	} {
		l := ParseWith(tt.in, testRepo(files))
		checkWithDisk(t, tt.in, l, "git configuration")
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	// The user's core.hooksPath counts too (these passed: git config
	// --global core.hooksPath /tmp/h made later commits run /tmp/h's
	// hooks, and .git/hooks was read instead); the repository's wins.
	for _, tt := range []struct {
		user, repo string
		want       []string
	}{
		{"/h", "", []string{"git commit -m x", "rm -rf ~ @1 ?guess"}},
		{"~/hooks", "", []string{"git commit -m x", "rm -rf ~ @1 ?guess"}},
		{"/h", "[core]\n\thooksPath = .husky\n", []string{"git commit -m x", "npm test @1 ?guess"}},
	} {
		files := map[string]string{
			"~/.gitconfig": "[core]\n\thooksPath = " + tt.user + "\n", "/r/.git/config": tt.repo,
			"/h/pre-commit": "#!/bin/sh\nrm -rf ~\n", "~/hooks/pre-commit": "rm -rf ~\n", "/r/.husky/pre-commit": "npm test\n",
		}
		l := ParseWith("git commit -m x", testRepo(files))
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("hooksPath %q (repository %q):\n got %q\nwant %q", tt.user, tt.repo, got, tt.want)
		}
	}
	// A configuration that includes itself ends, not known.
	loop := map[string]string{"/r/.git/config": "[include]\n\tpath = config\n"}
	if l := ParseWith("git status", testRepo(loop)); !l.Unknown() {
		t.Errorf("an include loop: known, %q", renderAll(l))
	}
}
