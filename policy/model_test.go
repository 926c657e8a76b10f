package policy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestModelReviewerManifest(t *testing.T) {
	rv := "\n[[script]]\nid = \"rv\"\nkind = \"shell_reviewer\"\nsource = \"def on_event(ctx, state):\\n    return Review.defer()\\n\"\n"
	model := "\n[[reviewer]]\nkind = \"model\"\nid = \"llm\"\ncommand = [\"./ask-model\", \"--json\"]\n"
	tests := []struct {
		body, want string
	}{
		{"\n[[reviewer]]\nkind = \"model\"\ncommand = [\"x\"]\n", `agent-shell.toml:3: reviewer[1].id: a model reviewer needs an id`},
		{"\n[[reviewer]]\nkind = \"model\"\nid = \"a b\"\ncommand = [\"x\"]\n", `reviewer[1].id: "a b": use letters, digits, -, _ and . only`},
		{"\n[[reviewer]]\nkind = \"model\"\nid = \"llm\"\n", `reviewer[1].command: a model reviewer needs command = ["program", "arg", ...]`},
		{"\n[[reviewer]]\nkind = \"model\"\nid = \"llm\"\ncommand = []\n", `reviewer[1].command: a model reviewer needs command`},
		{"\n[[reviewer]]\nkind = \"model\"\nid = \"llm\"\ncommand = [\"\"]\n", `reviewer[1].command: a model reviewer needs command`},
		{"\n[[reviewer]]\nkind = \"model\"\nid = \"llm\"\ncommand = \"x\"\n", `reviewer.command`},
		{model + "timeout = \"soon\"\n", `reviewer[1].timeout: "soon": want a duration above 0 and at most 10m0s`},
		{model + "timeout = \"-1s\"\n", `reviewer[1].timeout: "-1s": want a duration`},
		{model + "timeout = \"1h\"\n", `reviewer[1].timeout: "1h": want a duration`},
		{model + "max_prompt_bytes = 100\n", `reviewer[1].max_prompt_bytes: 100: want 1024 to 1048576`},
		{model + "max_prompt_bytes = 2000000\n", `reviewer[1].max_prompt_bytes: 2000000: want 1024 to 1048576`},
		{model + "failure = \"approve\"\n", `reviewer[1].failure: "approve": want deny or defer (a failure never approves)`},
		{model + "tools = [\"bash\"]\n", `tools: unknown key`},
		{model + "script = \"rv\"\n", `reviewer[1].script: a model reviewer runs its command, not a script`},
		{"\n[[reviewer]]\nkind = \"oracle\"\n", `reviewer[1].kind: "oracle": want script or model`},
		{rv + "\n[[reviewer]]\nscript = \"rv\"\ncommand = [\"x\"]\n", `reviewer[1].command: command is a key of kind = "model" reviewers`},
		{rv + "\n[[reviewer]]\nscript = \"rv\"\ntimeout = \"1s\"\n", `reviewer[1].timeout: timeout is a key of kind = "model" reviewers`},
		{rv + "\n[[reviewer]]\nkind = \"model\"\nid = \"rv\"\ncommand = [\"x\"]\n", `reviewer[1].id: "rv" is also a [[script]] id`},
		{model + model, `reviewer[2].id: reviewer "llm" is listed twice`},
	}
	for _, tt := range tests {
		_, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"+tt.body))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.body, err, tt.want)
		}
		var me *ManifestError
		if err != nil && !errors.As(err, &me) {
			t.Errorf("%q: %T, want a *ManifestError", tt.body, err)
		}
	}
	m, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"+rv+"\n[[reviewer]]\nscript = \"rv\"\n"+model))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Reviewers[1]
	if r.Name() != "llm" || r.timeout != 30*time.Second || r.MaxPromptBytes != 32<<10 || r.Failure != "deny" || m.Reviewers[0].Name() != "rv" {
		t.Errorf("defaults: %+v", r)
	}
}

// A pack cannot declare a model reviewer.
func TestModelReviewerNotInPack(t *testing.T) {
	_, err := ParsePackFile("pack.toml", []byte("version = \"1.0.0\"\nname = \"team\"\n\n[[reviewer]]\nkind = \"model\"\nid = \"llm\"\ncommand = [\"x\"]\n"))
	if err == nil || !strings.Contains(err.Error(), "a pack cannot declare a model reviewer") {
		t.Fatalf("err = %v", err)
	}
}
