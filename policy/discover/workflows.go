package discover

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/agent-shell/agent-shell/policy/shellcmd"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

const workflowsDir = ".github/workflows"

func (s *scanner) scanWorkflows() {
	var files []string
	for _, e := range s.readDir(workflowsDir) {
		name := e.Name()
		if !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".yaml") {
			continue
		}
		switch {
		case e.Type().IsRegular():
			files = append(files, path.Join(workflowsDir, name))
		case e.Type()&fs.ModeSymlink != 0:
			s.notef("%s: %v; skipped", path.Join(workflowsDir, name), errSymlink)
		}
	}
	if len(files) > maxWorkflowFiles {
		s.notef("%s: %d workflow files, only the first %d were read", workflowsDir, len(files), maxWorkflowFiles)
		files = files[:maxWorkflowFiles]
	}
	seen := map[string]bool{}
	for _, f := range files {
		data, ok := s.read(f)
		if !ok {
			continue
		}
		cmds, notes, err := WorkflowCommands(f, data)
		s.p.Notes = append(s.p.Notes, notes...)
		if err != nil {
			s.notef("%v; skipped", err)
			continue
		}
		for _, c := range cmds {
			key := strings.Join(append([]string{c.Path}, c.Argv[1:]...), " ")
			if seen[key] {
				continue
			}
			if len(s.p.Workflows) >= maxCommands {
				s.notef("%s: more than %d workflow commands; the rest were not read", f, maxCommands)
				return
			}
			seen[key] = true
			s.p.Workflows = append(s.p.Workflows, c)
		}
	}
}

// WorkflowCommands reads one GitHub Actions workflow: every run step of
// every job (jobs in name order, steps in file order) is parsed as shell, and
// each simple command in it is returned. Steps for another shell (pwsh,
// python, cmd) are left out, as are shell builtins that run nothing (echo,
// cd, set...). A step that does not parse as shell is a note. A file that
// is not a YAML mapping is an error.
func WorkflowCommands(file string, data []byte) (cmds []WorkflowCommand, notes []string, err error) {
	defer func() {
		// The YAML library is large; whatever it does with hostile input,
		// the scan must go on.
		if r := recover(); r != nil {
			cmds, err = nil, fmt.Errorf("%s: YAML reader failed: %v", file, r)
		}
	}()
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: not valid YAML (%s)", file, firstLine(err.Error()))
	}
	if doc == nil {
		return nil, nil, nil
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a YAML mapping", file)
	}
	jobs, _ := top["jobs"].(map[string]any)
	names := make([]string, 0, len(jobs))
	for name := range jobs {
		names = append(names, name)
	}
	sort.Strings(names)
	topShell := defaultShell(top)
	steps := 0
	parsed := map[string]*shellcmd.Line{} // a step repeated through an alias is parsed once
	for _, name := range names {
		job, _ := jobs[name].(map[string]any)
		if job == nil {
			continue
		}
		shell := defaultShell(job)
		if shell == "" {
			shell = topShell
		}
		if shell == "" && runsOnWindows(job["runs-on"]) {
			shell = "pwsh"
		}
		list, _ := job["steps"].([]any)
		for i, st := range list {
			if steps++; steps > maxSteps {
				return cmds, append(notes, fmt.Sprintf("%s: more than %d steps; the rest were not read", file, maxSteps)), nil
			}
			step, _ := st.(map[string]any)
			run, _ := step["run"].(string)
			if run == "" {
				continue
			}
			stepShell := shell
			if sh, ok := step["shell"].(string); ok {
				stepShell = sh
			}
			if !posixShell(stepShell) {
				continue
			}
			label, _ := step["name"].(string)
			if label == "" {
				label = fmt.Sprintf("step %d", i+1)
			}
			line, ok := parsed[run]
			if !ok {
				line = shellcmd.Parse(replaceExpressions(run))
				parsed[run] = line
				if line.Err != nil {
					notes = append(notes, fmt.Sprintf("%s: job %s, %s: does not parse as shell (%s); its commands are not proposed", file, name, label, firstLine(line.Err.Error())))
				}
			}
			cmds = append(cmds, lineCommands(line, file, name, label)...)
		}
	}
	return cmds, notes, nil
}

// lineCommands turns a parsed step into workflow commands.
func lineCommands(line *shellcmd.Line, file, job, step string) []WorkflowCommand {
	var out []WorkflowCommand
	for i := range line.Commands {
		c := &line.Commands[i]
		if c.Implied != "" || c.Guessed || len(c.Argv) == 0 || noise.Get()[c.Argv[0]] {
			continue
		}
		wc := WorkflowCommand{File: file, Job: job, Step: step, Argv: c.Argv, Path: c.Path}
		if argv, runs := writtenArgv(c); runs != nil { // npx eslint ., as the step writes it
			if c.Path != runs[0] { // uv run ./scripts/docs.py: its program's path, not only its name
				argv = slices.Clone(argv)
				argv[len(argv)-len(runs)] = c.Path
			}
			wc.Argv, wc.Path = argv, argv[0]
		}
		if wc.Path == "" {
			wc.Path = c.Argv[0]
		}
		switch {
		case line.Err != nil:
			wc.Why = "its step does not parse as shell"
		case c.Unknown != "":
			wc.Why = c.Unknown
		case c.Substitution:
			wc.Why = "it holds a command substitution"
		case c.Dynamic:
			wc.Why = "it holds a variable or a GitHub expression"
		case strings.Contains(strings.Join(c.Argv, " "), expressionVar):
			wc.Why = "it holds a GitHub expression"
		}
		out = append(out, wc)
	}
	return out
}

// noise are shell builtins and trivial commands that run nothing of the
// project's: not worth counting or allowing.
var noise = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"echo": true, "printf": true, "set": true, "cd": true, "export": true, "exit": true,
		"true": true, "false": true, ":": true, "test": true, "[": true, "unset": true,
		"shift": true, "sleep": true, "pwd": true, "read": true, "local": true, "declare": true,
		"return": true, "shopt": true, "trap": true, "wait": true,
	}
}}

// replaceExpressions replaces each ${{ ... }} GitHub expression with a
// variable, so the step parses as shell and the words holding one count as
// dynamic (their value is only known in the runner).
func replaceExpressions(run string) string {
	if !strings.Contains(run, "${{") {
		return run
	}
	var b strings.Builder
	for {
		i := strings.Index(run, "${{")
		if i < 0 {
			break
		}
		j := strings.Index(run[i:], "}}")
		if j < 0 {
			break
		}
		b.WriteString(run[:i])
		b.WriteString(expressionVar)
		run = run[i+j+2:]
	}
	b.WriteString(run)
	return b.String()
}

// expressionVar stands for a GitHub expression in a parsed step.
const expressionVar = "${GITHUB_EXPRESSION}"

func defaultShell(m map[string]any) string {
	d, _ := m["defaults"].(map[string]any)
	r, _ := d["run"].(map[string]any)
	sh, _ := r["shell"].(string)
	return sh
}

// runsOnWindows: a Windows runner's default shell is pwsh.
func runsOnWindows(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(strings.ToLower(v), "windows")
	case []any:
		for _, x := range v {
			if runsOnWindows(x) {
				return true
			}
		}
	}
	return false
}

// posixShell reports whether a step's shell is one this scan reads: the
// default (bash), bash or sh, possibly as a template ("bash -e {0}").
func posixShell(sh string) bool {
	f := strings.Fields(sh)
	if len(f) == 0 {
		return true
	}
	return f[0] == "bash" || f[0] == "sh"
}
