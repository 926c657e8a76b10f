package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The effects and the matchers read git's subcommand from the one table of
// its global options (shellcmd.GitSplit), so they agree on every spelling
// of the options before it (guard's TestGitSubcommandAgrees holds the
// guard to the same lines).
func TestGitSubcommandAgrees(t *testing.T) {
	m := mustManifest(t, `version = 1
[[rule]]
id = "network-asks"
action = "ask"
match = { effect = "network" }
[[rule]]
id = "push-denied"
action = "deny"
match = { git_subcommand = "push", argument = "--force" }
`)
	e, err := NewEngine(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	// One push behind each of git's global options.
	rows, err := corpustsv.Read("shellcmd/testdata/git-push-spellings.tsv")
	if err != nil || len(rows) < 10 {
		t.Fatalf("%d spellings: %v", len(rows), err)
	}
	for _, row := range rows {
		line := row.Fields[0]
		argv := strings.Fields(line)
		_, sub, _ := shellcmd.GitSplit(argv[1:])
		if sub != "push" {
			t.Fatalf("%q: GitSplit reads %q", line, sub)
		}
		d := e.Decide(line, "/repo")
		if !slices.Contains(d.Effects, EffectNetwork) {
			t.Errorf("%q: effects %v, without network", line, d.Effects)
		}
		if d.Action != ActionDeny || d.Rule != "push-denied" {
			t.Errorf("%q: %s by %q, want deny by push-denied", line, d.Action, d.Rule)
		}
	}
	// The case: a rule on the effect alone asks for the push
	// behind --namespace, as for the plain one.
	m2 := mustManifest(t, "version = 1\n[[rule]]\nid = \"network-asks\"\naction = \"ask\"\nmatch = { effect = \"network\" }\n")
	e2, err := NewEngine(nil, m2)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"git push --force origin main", "git --namespace foo push --force origin main"} {
		if d := e2.Decide(line, "/repo"); d.Action != ActionAsk {
			t.Errorf("%q: %s, want ask", line, d.Action)
		}
	}
	// -C moves where git writes, relative to the folder before.
	if d := e.Decide("git -C web -C app commit -m x", "/repo"); !slices.Contains(d.Effects, "write:/repo/web/app") {
		t.Errorf("git -C web -C app commit: effects %v", d.Effects)
	}
}
