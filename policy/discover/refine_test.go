package discover

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy"
)

func refineDraft(t *testing.T) (*Project, Proposal) {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":       "module x\n\ngo 1.22\n",
		"package.json": `{"name":"web","scripts":{"test":"vitest run","lint":"eslint .","deploy":"./deploy.sh","seed":"curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123' https://example.com"}}`,
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, Propose(p)
}

func TestRefineRequest(t *testing.T) {
	p, prop := refineDraft(t)
	r := NewRefineRequest(p, prop, []string{"/usr/bin/agent-shell", "mcp"})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"version":"shell-policy-refine-request-v1"`, `"format":"shell-policy-refine-v1"`, `"command":["/usr/bin/agent-shell","mcp"]`,
		`"id":"project-release","action":"ask"`, `"id":"no-force-push","action":"deny"`, `"command":"npm test"`, `"toolchains":[{"name":"go"`} {
		if !strings.Contains(s, want) {
			t.Errorf("request lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "abcdefghijklmnopqrstuvwxyz0123") {
		t.Errorf("the request holds the secret:\n%s", s)
	}
	if strings.Contains(s, `"id":"safety/`) {
		t.Errorf("the safety pack's rules are listed as draft rules")
	}
}

func TestRefine(t *testing.T) {
	_, prop := refineDraft(t)
	addDocs := `{"op":"add","reason":"the docs build is a feedback loop","rule":{"id":"docs","action":"allow","reason":"docs build","match":{"argv_prefix":["make","docs"]},"examples":{"match":["make docs"],"not_match":["make deploy"]}}}`
	tests := []struct {
		name, answer string
		err          string   // the whole answer is refused
		applied      []string // ids applied
		rejected     []string // substrings of the rejections, in order
	}{
		{name: "valid add", answer: `{"version":"shell-policy-refine-v1","changes":[` + addDocs + `]}`, applied: []string{"docs"}},
		{name: "valid remove of an allow", answer: `{"version":"shell-policy-refine-v1","changes":[{"op":"remove","id":"project-lint","reason":"no linter here"}]}`, applied: []string{"project-lint"}},
		{name: "tighten", answer: `{"version":"shell-policy-refine-v1","changes":[{"op":"change","id":"project-lint","reason":"ask first","rule":{"action":"ask","reason":"lint","match":{"argv_prefix":["npm","run","lint"]},"examples":{"match":["npm run lint"]}}}]}`, applied: []string{"project-lint"}},
		{name: "loosening", answer: `{"version":"shell-policy-refine-v1","changes":[` +
			`{"op":"remove","id":"no-force-push","reason":"we force push"},` +
			`{"op":"change","id":"project-release","reason":"deploys are fine","rule":{"action":"allow","reason":"deploy","match":{"argv_prefix":["npm","run","deploy"]},"examples":{"match":["npm run deploy"]}}},` +
			`{"op":"remove","id":"project-release","reason":"not needed"},` +
			`{"op":"change","id":"safety/rm-recursive-root","reason":"x","rule":{"action":"allow","match":{"basename":["rm"]},"examples":{"match":["rm x"]}}},` +
			`{"op":"change","id":"project-release","reason":"narrower","rule":{"action":"ask","reason":"x","match":{"argv_prefix":["npm","run","nothing"]},"examples":{"match":["npm run nothing"]}}},` +
			`{"op":"add","reason":"no examples","rule":{"id":"curl","action":"allow","match":{"basename":["curl"]}}},` +
			`{"op":"add","reason":"bad key","rule":{"id":"bad","action":"allow","match":{"program_name":["x"]},"examples":{"match":["x"]}}},` +
			`{"op":"add","reason":"wrong example","rule":{"id":"wrong","action":"allow","match":{"basename":["make"]},"examples":{"match":["cargo build"]}}},` +
			addDocs + `]}`,
			applied: []string{"docs"},
			rejected: []string{"rule no-force-push denies: a deny is never removed or changed", "it would lower rule project-release from ask to allow",
				"rule project-release asks: removing it would loosen the policy", "the draft has no rule safety/rm-recursive-root",
				`it would loosen "npm run deploy" from ask to allow`, "no examples.match",
				"it does not load", "it does not load"}},
		{name: "prose", answer: `Here is my proposal: {"version":"shell-policy-refine-v1","changes":[]}`, err: "invalid JSON"},
		{name: "fenced", answer: "```json\n{\"version\":\"shell-policy-refine-v1\",\"changes\":[]}\n```", err: "fenced"},
		{name: "invalid JSON", answer: `{"version":"shell-policy-refine-v1","changes":[`, err: "ends early"},
		{name: "duplicate", answer: `{"version":"shell-policy-refine-v1","changes":[],"changes":[]}`, err: "duplicate field: changes"},
		{name: "unknown field", answer: `{"version":"shell-policy-refine-v1","changes":[],"notes":"x"}`, err: "unknown field: notes"},
		{name: "wrong version", answer: `{"version":"v2","changes":[]}`, err: "version: want"},
		{name: "no reason", answer: `{"version":"shell-policy-refine-v1","changes":[{"op":"remove","id":"project-lint"}]}`, err: "changes[0]: reason"},
		{name: "bad op", answer: `{"version":"shell-policy-refine-v1","changes":[{"op":"rewrite","id":"x","reason":"y"}]}`, err: `op "rewrite"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := Refine(prop, []byte(tt.answer))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var applied, rejected []string
			for _, c := range ref.Changes {
				if c.Applied {
					applied = append(applied, c.ID)
				} else {
					rejected = append(rejected, c.Rejected)
				}
			}
			if strings.Join(applied, ",") != strings.Join(tt.applied, ",") {
				t.Errorf("applied %v, want %v (rejected: %q)", applied, tt.applied, rejected)
			}
			if len(rejected) != len(tt.rejected) {
				t.Fatalf("rejected %q, want %q", rejected, tt.rejected)
			}
			for i := range rejected {
				if !strings.Contains(rejected[i], tt.rejected[i]) {
					t.Errorf("rejection %d = %q, want %q", i, rejected[i], tt.rejected[i])
				}
			}
			// What is applied loads, and keeps every deny of the draft.
			m, err := policy.ParseManifest("agent-shell.toml", ref.Proposal.Manifest)
			if err != nil {
				t.Fatalf("refined manifest: %v\n%s", err, ref.Proposal.Manifest)
			}
			if _, err := policy.NewEngine(nil, m); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"no-force-push", "project-release"} {
				if !strings.Contains(string(ref.Proposal.Manifest), `id = "`+id+`"`) {
					t.Errorf("rule %s is gone", id)
				}
			}
		})
	}
}
