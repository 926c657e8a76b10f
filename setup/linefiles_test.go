package setup

import "testing"

func TestMergeNpmrc(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		replace   bool
		want      string
		changed   bool
		set       bool
		otherWant string
	}{
		{name: "missing file", in: "", want: "script-shell=agent-shell\n", changed: true},
		{name: "keeps every line", in: "registry=https://r.example/\n; a comment\nsave-exact=true\n",
			want: "registry=https://r.example/\n; a comment\nsave-exact=true\nscript-shell=agent-shell\n", changed: true},
		{name: "no final newline", in: "save-exact=true", want: "save-exact=true\nscript-shell=agent-shell\n", changed: true},
		{name: "crlf stays crlf", in: "save-exact=true\r\n", want: "save-exact=true\r\nscript-shell=agent-shell\r\n", changed: true},
		{name: "before the first section", in: "a=1\n[section]\nb=2\n", want: "a=1\nscript-shell=agent-shell\n[section]\nb=2\n", changed: true},
		{name: "already set", in: "a=1\nscript-shell = agent-shell\n", want: "a=1\nscript-shell = agent-shell\n", set: true},
		{name: "already set by path", in: "script-shell=\"/usr/local/bin/agent-shell\"\n", want: "script-shell=\"/usr/local/bin/agent-shell\"\n", set: true},
		{name: "commented out is not set", in: "# script-shell=agent-shell\n", want: "# script-shell=agent-shell\nscript-shell=agent-shell\n", changed: true},
		{name: "another shell is kept", in: "script-shell=/bin/bash\n", want: "script-shell=/bin/bash\n", otherWant: "/bin/bash"},
		{name: "another shell is replaced when asked", in: "a=1\nscript_shell=/bin/bash\nb=2\n", replace: true,
			want: "a=1\n# script_shell=/bin/bash  (replaced by agent-shell init)\nb=2\nscript-shell=agent-shell\n", changed: true, otherWant: "/bin/bash"},
		{name: "the last setting wins", in: "script-shell=agent-shell\nscript-shell=zsh\n", want: "script-shell=agent-shell\nscript-shell=zsh\n", otherWant: "zsh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := npmrcState([]byte(tc.in))
			if st.Set != tc.set || st.Other != tc.otherWant {
				t.Errorf("state = %+v, want set %v other %q", st, tc.set, tc.otherWant)
			}
			out, changed := mergeNpmrc([]byte(tc.in), tc.replace)
			if string(out) != tc.want || changed != tc.changed {
				t.Errorf("merge = %q, %v; want %q, %v", out, changed, tc.want, tc.changed)
			}
			if changed {
				if again, ch := mergeNpmrc(out, tc.replace); ch || string(again) != string(out) {
					t.Errorf("second merge changed %q to %q", out, again)
				}
			}
		})
	}
}

func TestGitignore(t *testing.T) {
	for _, line := range []string{".agent-shell/", ".agent-shell", "/.agent-shell/", "/.agent-shell", ".agent-shell/*",
		"/.agent-shell/**", "**/.agent-shell/", ".agent-shell/   "} {
		if !gitignoreHas([]byte("node_modules\n" + line + "\n")) {
			t.Errorf("%q does not count as ignoring .agent-shell/", line)
		}
	}
	for _, line := range []string{"# .agent-shell/", "!.agent-shell/", ".agent-shell-other/", "sub/.agent-shell/", ".agent-shell/events/"} {
		if gitignoreHas([]byte(line + "\n")) {
			t.Errorf("%q counts as ignoring .agent-shell/", line)
		}
	}

	const entry = "# agent-shell's local flight recorder (events) and helpers\n.agent-shell/\n"
	for _, tc := range []struct{ in, want string }{
		{"", entry},
		{"node_modules/\n", "node_modules/\n" + entry},
		{"node_modules/", "node_modules/\n" + entry},
		{"dist\r\n", "dist\r\n# agent-shell's local flight recorder (events) and helpers\r\n.agent-shell/\r\n"},
	} {
		out, changed := mergeGitignore([]byte(tc.in))
		if !changed || string(out) != tc.want {
			t.Errorf("mergeGitignore(%q) = %q, %v; want %q", tc.in, out, changed, tc.want)
		}
		if _, again := mergeGitignore(out); again {
			t.Errorf("mergeGitignore(%q) is not idempotent", tc.in)
		}
	}
}
