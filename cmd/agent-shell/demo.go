package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/scripts"
)

func newDemoCmd(a *app) *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show what agent-shell does, in a throwaway repository, in a few seconds",
		Long: `Sets up agent-shell for Copilot and Claude Code in a temporary repository with
the embedded demo policy, runs two npm-style scripts through the shim, feeds
real hook payloads through ` + "`agent-shell hook`" + `, and shows the flight recorder
and its verification. Needs no network and nothing but this binary.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runDemo(keep)
		}),
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the demo repository and print where it is")
	return cmd
}

// demoStep is one thing the demo does with the agent-shell binary.
type demoStep struct {
	say   string   // what the step shows
	args  []string // agent-shell's arguments
	stdin string   // a hook payload
	env   []string // NAME=value
}

func (a *app) runDemo(keep bool) error {
	// Run the steps with the program as it was invoked (its name on PATH,
	// or the path given), which is this binary.
	self, err := exec.LookPath(os.Args[0])
	if err != nil {
		if self, err = os.Executable(); err != nil {
			return fmt.Errorf("find the agent-shell binary: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "agent-shell-demo-")
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Fprintf(a.stdout, "\nThe demo repository is kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	w := a.stdout
	say := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }

	say("agent-shell demo: a throwaway repository in %s\n", dir)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	say("1. The demo policy, then agent-shell init for Copilot and Claude Code (it keeps the policy)")
	policyDir := filepath.Dir(policy.PolicyFileSubpath)
	if err := os.MkdirAll(filepath.Join(dir, policyDir), 0o755); err != nil {
		return err
	}
	for _, name := range []string{"policy.json", "agent-shell.toml", "scripts/tf.star", "scripts/tf_test.star"} {
		data, err := scripts.Demo(name)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, policyDir, filepath.Dir(name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, policyDir, name), data, 0o644); err != nil {
			return err
		}
		say("   wrote %s", filepath.Join(policyDir, name))
	}
	initStep := demoStep{args: []string{"init", "--agent", "copilot,claude", "--yes"}}
	say("   $ agent-shell %s", strings.Join(initStep.args, " "))
	if err := a.demoRun(self, dir, initStep); err != nil {
		return err
	}

	pre := func(command string) string {
		return `{"session_id":"demo","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` +
			jsonQuote(command) + `},"tool_use_id":"toolu_demo"}`
	}
	steps := []demoStep{
		{say: "2. npm runs a script through the shim (script-shell=agent-shell): it passes",
			args: []string{"-c", "echo compiled 12 files"}, env: []string{"npm_lifecycle_event=build", "npm_package_name=demo"}},
		{say: "3. ... and one that fails: its exit code comes through unchanged",
			args: []string{"-c", "echo '1 test failed' >&2; exit 1"}, env: []string{"npm_lifecycle_event=test", "npm_package_name=demo"}},
		{say: "4. Claude Code asks to run `git status --short`: nothing objects, so agent-shell abstains (no output)",
			args: []string{"hook", "--agent=claude"}, stdin: pre("git status --short")},
		{say: "5. ... `bash -c 'cd ~ && rm -fr .cache'`: the rm hides in a shell string, with its flags swapped; the parsed command is denied",
			args: []string{"hook", "--agent=claude"}, stdin: pre("bash -c 'cd ~ && rm -fr .cache'")},
		{say: "6. Copilot asks to force-push: the manifest rule no-force-push denies it",
			args:  []string{"hook", "--agent=copilot"},
			stdin: `{"sessionId":"demo","cwd":"` + dir + `","toolName":"bash","toolArgs":"{\"command\":\"git push -f origin main\"}"}`},
		{say: "7. Claude Code asks to `cat .env`: the built-in safety pack denies it, and says what to do instead",
			args: []string{"hook", "--agent=claude"}, stdin: pre("cat .env")},
		{say: "8. Claude Code asks to download something: network access needs a human, so agent-shell asks",
			args: []string{"hook", "--agent=claude"}, stdin: pre("curl -fsSL https://example.com/install.sh -o install.sh")},
		{say: "9. Claude Code tries to edit the policy itself: a built-in guard denies it, whatever the policy says",
			args: []string{"hook", "--agent=claude"},
			stdin: `{"session_id":"demo","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"` +
				filepath.Join(dir, policyDir, "agent-shell.toml") + `","old_string":"action = \"deny\"","new_string":"action = \"allow\""},"tool_use_id":"toolu_edit"}`},
		{say: "10. A Starlark matcher (scripts/tf.star) knows `terraform apply -destroy` destroys too; rule no-terraform-destroy denies it",
			args: []string{"hook", "--agent=claude"}, stdin: pre("terraform -chdir=infra apply -destroy")},
		{say: "11. The matcher has tests beside it, run in its real sandbox",
			args: []string{"script", "test"}},
		{say: "12. The flight recorder: every step above, one hash-chained line each",
			args: []string{"log", "--session", "demo"}},
		{say: "13. Nothing was edited, deleted or reordered",
			args: []string{"log", "verify"}},
	}
	for _, s := range steps {
		say("\n%s", s.say)
		say("   $ agent-shell %s", strings.Join(quoteWords(s.args), " "))
		if err := a.demoRun(self, dir, s); err != nil {
			return err
		}
	}
	say("\nThat is agent-shell: one binary, one policy, every agent. Next: agent-shell hook install --agent claude (or copilot, codex, gemini, cursor, amp, opencode) in your repository.")
	return nil
}

// demoRun runs one step with this binary, in the demo repository, and
// shows what the agent (or npm) would see.
func (a *app) demoRun(self, dir string, s demoStep) error {
	cmd := exec.Command(self, s.args...)
	cmd.Dir = dir
	cmd.Env = append(demoEnv(), append([]string{"AGENTSHELL_SESSION_ID=demo", "NO_COLOR=1"}, s.env...)...)
	cmd.Stdin = strings.NewReader(s.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return fmt.Errorf("run agent-shell %s: %w", strings.Join(s.args, " "), err)
	}
	indent := func(label, text string) {
		text = strings.TrimRight(text, "\n")
		if text == "" {
			return
		}
		for i, line := range strings.Split(text, "\n") {
			if i == 0 {
				fmt.Fprintf(a.stdout, "   %s %s\n", label, line)
			} else {
				fmt.Fprintf(a.stdout, "   %s %s\n", strings.Repeat(" ", len(label)), line)
			}
		}
	}
	if s.stdin != "" && out.Len() == 0 {
		indent("answer:", "(none: the agent's own permission rules decide)")
	}
	indent("stdout:", out.String())
	indent("stderr:", errOut.String())
	fmt.Fprintf(a.stdout, "   exit:   %d\n", code)
	return nil
}

// demoEnv is the environment of the demo's steps: this process's, without
// the variables that would redirect or switch off what the demo shows.
func demoEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "AGENTSHELL_PASSTHROUGH", "AGENTSHELL_LOG_DIR", "AGENTSHELL_POLICY_PATH", "AGENTSHELL_SESSION_ID":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func quoteWords(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " '\"$&;|<>()*") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return out
}
