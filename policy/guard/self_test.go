package guard

import (
	"os"
	"path/filepath"
	"testing"
)

// An agent cannot authorize the configuration it may have changed, however
// the command is wrapped, nor run agent-shell with a subcommand the guard
// cannot read; other agent-shell commands stay allowed.
func TestGuardAuthorize(t *testing.T) {
	root := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "as")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"agent-shell authorize --yes",
		"/usr/local/bin/agent-shell authorize",
		"cd sub && agent-shell authorize --yes",
		"bash -c 'agent-shell authorize --yes'",
		"env FOO=1 agent-shell --verbose authorize",
		"env -u CLAUDECODE agent-shell authorize",
		"nohup agent-shell authorize </dev/tty",
		"setsid -f script -qc 'agent-shell authorize' /dev/null",
		`python3 -c "import subprocess; subprocess.run(['agent-shell','authorize','--yes'])"`,
		"agent-shell -c 'agent-shell authorize --yes'",
		// The subcommand known only when it runs.
		"A=authorize; agent-shell $A --yes",
		`agent-shell "$(echo authorize)"`,
		"agent-shell ${CMD:-authorize} --yes",
		"agent-shell `printf authorize`",
		"echo authorize --yes | xargs agent-shell",
		"echo authorize | xargs -n1 agent-shell --yes",
		`sh -c 'agent-shell $0 --yes' authorize`,
		`find . -maxdepth 0 -exec agent-shell {} \;`,
		// The running binary under another name.
		link + " authorize",
		"./as $A",
	} {
		g := Command(root, root, cmd, nil, nil)
		if g == nil || g.Guard != Authorize {
			t.Errorf("%q: %+v, want the authorize guard", cmd, g)
		}
	}
	for _, cmd := range []string{
		"agent-shell status", "agent-shell log --last 1h", "agent-shell policy explain 'authorize'",
		`agent-shell policy explain "$CMD"`, "agent-shell log --session $S", "echo s1 | xargs agent-shell log --session",
		"agent-shell -c 'npm test'", "agent-shell", "./other authorize", link + " status", "gh auth login",
	} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q denied: %s", cmd, g.Reason)
		}
	}
}
