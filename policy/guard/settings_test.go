package guard

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestGuardNpmrcEdits(t *testing.T) {
	root, _ := guardRoot(t)
	bare := filepath.Join(t.TempDir(), "bare")
	writeGuardFile(t, bare, ".npmrc", "registry=https://registry.npmjs.org/\n")
	for _, tt := range []struct {
		name   string
		root   string
		tool   string
		input  map[string]any
		denied bool
	}{
		{"edit of another setting", root, "Edit", map[string]any{"file_path": ".npmrc", "old_string": "registry=https://registry.npmjs.org/", "new_string": "registry=https://npm.example.com/"}, false},
		{"edit that drops script-shell", root, "Edit", map[string]any{"file_path": ".npmrc", "old_string": "script-shell=agent-shell\n", "new_string": ""}, true},
		{"edit that changes script_shell", root, "Edit", map[string]any{"file_path": ".npmrc", "old_string": "x", "new_string": "SCRIPT_SHELL=bash"}, true},
		{"whole-file write over a script-shell line", root, "Write", map[string]any{"file_path": ".npmrc", "content": "registry=https://npm.example.com/\n"}, true},
		{"whole-file write without script-shell anywhere", bare, "Write", map[string]any{"file_path": ".npmrc", "content": "registry=https://npm.example.com/\n"}, false},
		{"whole-file write adding script-shell", bare, "Write", map[string]any{"file_path": ".npmrc", "content": "script-shell=bash\n"}, true},
		{"new .npmrc in a package setting script-shell", root, "Write", map[string]any{"file_path": "packages/a/.npmrc", "content": "script-shell=/bin/sh\n"}, true},
		{"new .npmrc in a package without it", root, "Write", map[string]any{"file_path": "packages/a/.npmrc", "content": "save-exact=true\n"}, false},
		{"another file mentioning script-shell", root, "Write", map[string]any{"file_path": "docs/npm.md", "content": "set script-shell=agent-shell\n"}, false},
	} {
		ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": tt.root, "hook_event_name": "PreToolUse", "tool_name": tt.tool, "tool_input": tt.input}), "")
		d := Check(tt.root, ev, nil, nil)
		if (d != nil) != tt.denied || d != nil && d.Guard != NpmScriptShell {
			t.Errorf("%s: got %+v, want denied=%v", tt.name, d, tt.denied)
		}
	}
}

func TestGuardNpmCommands(t *testing.T) {
	root, _ := guardRoot(t)
	bare := filepath.Join(t.TempDir(), "bare")
	writeGuardFile(t, bare, ".npmrc", "registry=https://registry.npmjs.org/\n")
	for _, c := range []string{
		"npm config set script-shell bash",
		"npm config set script-shell=bash",
		"npm set script-shell bash",
		"npm config set script-shell bash --location=project",
		"npm config set --location project script-shell=bash",
		"npm config set registry=https://x script_shell=bash",
		"npm config delete script-shell",
		"npm config rm script-shell",
		"npm config edit --location=project",
		"pnpm config set script-shell bash",
		"yarn config set script-shell bash",
		"sudo npm config set script-shell bash",
		"bash -c 'npm config set script-shell bash'",
		"npm_config_script_shell=bash npm test",
		"NPM_CONFIG_SCRIPT_SHELL=bash npm test",
		"env npm_config_script_shell=bash npm run build",
		"export npm_config_script_shell=bash",
		"npm run build --script-shell=bash",
		"npm test --script-shell bash",
		"npx --script-shell=sh something",
		"sed -i /script-shell/d .npmrc",
		"echo registry=https://x >> .npmrc",
		"rm .npmrc",
		"mv .npmrc .npmrc.off",
		"git checkout -- .npmrc",
		"echo script-shell=bash > packages/a/.npmrc",
		"echo save-exact=true > packages/a/.npmrc",
		"cd packages/a && printf 'script-shell=sh' > .npmrc",
	} {
		d := Command(root, root, c, nil, nil)
		if d == nil || d.Guard != NpmScriptShell {
			t.Errorf("%q: got %+v, want %s", c, d, NpmScriptShell)
		}
	}
	for _, c := range []string{
		"npm config get script-shell",
		"npm config list",
		"npm config set registry https://npm.example.com/",
		"npm test",
		"npm run build",
		"cat .npmrc",
		"grep script-shell .npmrc",
		"cp .npmrc /tmp/npmrc.bak",
	} {
		if d := Command(root, root, c, nil, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
	// Without a script-shell line anywhere, an .npmrc is any other file.
	for _, c := range []string{"echo registry=https://x >> .npmrc", "rm .npmrc", "echo a=b > packages/a/.npmrc"} {
		if d := Command(bare, bare, c, nil, nil); d != nil {
			t.Errorf("bare repo: %q: denied: %s", c, d.Reason)
		}
	}
}

func TestGuardEnvironment(t *testing.T) {
	root, _ := guardRoot(t)
	forms := []string{
		"NAME=1 npm test",
		"NAME=1",
		"NAME=1; npm test",
		"NAME+=1 npm test",
		"env NAME=/tmp/x npm test",
		"env -i NAME=/tmp/x npm test",
		"sudo NAME=x npm test",
		"sudo -E env NAME=x npm test",
		"export NAME=1",
		"export PATH=/usr/bin NAME=1",
		"export NAME",
		"export -- NAME=1",
		"declare -x NAME=1",
		"typeset -gx NAME=1",
		"local NAME=1",
		"readonly NAME=1",
		"declare -n ref=NAME",
		"read NAME <<< x",
		"read -r NAME < /tmp/x",
		"printf -v NAME %s x",
		"bash -c 'export NAME=1; npm test'",
		"sh -c 'NAME=1 npm test'",
		"true && NAME=1 npm test",
		"(export NAME=1; npm test)",
		"echo $(NAME=1 npm test)",
		"echo 'export NAME=1' >> ~/.bashrc",
		"echo NAME=1 >> .envrc",
		"printf 'NAME=1\\n' | tee -a ~/.zshrc",
		"for NAME in 1; do npm test; done",
	}
	for name := range guardedEnv {
		for _, f := range forms {
			c := strings.ReplaceAll(f, "NAME", name)
			d := Command(root, root, c, nil, nil)
			if d == nil || d.Guard != AgentShellEnv || d.Target != name {
				t.Errorf("%q: got %+v, want %s on %s", c, d, AgentShellEnv, name)
				continue
			}
			if !strings.Contains(d.Reason, "a human sets it in their own shell") {
				t.Errorf("%q: reason %q", c, d.Reason)
			}
		}
		for _, f := range []string{"unset NAME", "echo $NAME", "env -u NAME ls", "printenv NAME", "grep -r NAME= .",
			"echo NAME=1 >> notes.md", "NAME_EXTRA=1 ls", "X_NAME=1 ls"} {
			c := strings.ReplaceAll(f, "NAME", name)
			if d := Command(root, root, c, nil, nil); d != nil {
				t.Errorf("%q: denied: %s", c, d.Reason)
			}
		}
	}
	if d := Command(root, root, "AGENTSHELL_SESSION_ID=x ls", nil, nil); d != nil {
		t.Errorf("AGENTSHELL_SESSION_ID: denied: %s", d.Reason)
	}
	// The same through the hook: a Claude Bash call.
	ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "AGENTSHELL_PASSTHROUGH=1 npm test"}}), "")
	if d := Check(root, ev, nil, nil); d == nil || d.Guard != AgentShellEnv {
		t.Errorf("Claude Bash: got %+v", d)
	}
	// An edit tool writing the variable into a startup file.
	ev = parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": "~/.bashrc", "old_string": "", "new_string": "export AGENTSHELL_PASSTHROUGH=1"}}), "")
	if d := Check(root, ev, nil, nil); d == nil || d.Guard != AgentShellEnv {
		t.Errorf("Edit of ~/.bashrc: got %+v", d)
	}
}

// The guard's pre-checks agree with the regexps they spare.
func TestGuardPrechecksAgreeWithRegexps(t *testing.T) {
	for _, s := range []string{
		"", "npm test", "npm config set script-shell x", "SCRIPT_SHELL=1", "ſcript-sHELL", "script shell",
		"AGENTSHELL_PASSTHROUGH=1 npm test", "export AGENTSHELL_LOG_DIR+=x", "AGENTSHELL_OTHER=1", "agentshell_passthrough=1",
	} {
		if got, want := mentionsScriptShell(s), scriptShellRE().MatchString(s); got != want {
			t.Errorf("mentionsScriptShell(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := guardedEnvWrite(s), envWriteRE().FindString(s); got != want {
			t.Errorf("guardedEnvWrite(%q) = %q, the regexp says %q", s, got, want)
		}
	}
}

// A guarded variable set by a name known only at run time, or by a file
// the command sources, is set all the same.
func TestGuardDynamicVariableNames(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, "evil.env", "X=1\nAGENTSHELL_PASSTHROUGH=1\n")
	writeGuardFile(t, root, "ok.env", "NODE_ENV=production\n")
	for _, cmd := range []string{
		"V=AGENTSHELL_PASSTHROUGH; export $V=1",
		`V=AGENTSHELL_PASSTHROUGH; export "$V"`,
		`declare -x "${V}=1"`,
		`typeset -x $(echo AGENTSHELL_ACTOR)=me`,
		`printf -v "$V" 1`,
		"for v in AGENTSHELL_PASSTHROUGH; do export $v=1; done",
		"set -a; . ./evil.env; npm test",
		"source evil.env && npm test",
	} {
		if g := Command(root, root, cmd, nil, nil); g == nil || g.Guard != AgentShellEnv {
			t.Errorf("%q: %+v, want an agentshell-env deny", cmd, g)
		}
	}
	for _, cmd := range []string{"set -a; . ./ok.env; npm test", "export PATH=$PATH:/x", "export NODE_ENV=production", `printf -v out "%s" x`, "source ./missing.env"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
}
