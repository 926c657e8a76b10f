package taskfile

import (
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Script is one script or task of a configuration file: the command
// lines it runs, and the other scripts it runs first.
type Script struct {
	Run  []string
	Refs []string
}

// ReadPyScripts reads the scripts a Python task runner finds in
// pyproject.toml (or hatch.toml, whose tables have no tool.hatch prefix):
// runner is "pdm" ([tool.pdm.scripts]), "poe" ([tool.poe.tasks]), "rye"
// ([tool.rye.scripts]), "pipenv" (a Pipfile's [scripts]) or "hatch"
// ([tool.hatch.envs.ENV.scripts], by
// ENV:NAME, and by NAME for the default environment). A script is a
// command line, a list of them (hatch; a first word that names another
// script runs it), or a table: cmd, shell (a command line or a list of
// words), composite, sequence and chain (other scripts, each "NAME
// ARGS"); a call of Python code is left out. nil when the text is not
// TOML.
func ReadPyScripts(text, runner string, hatchTOML bool) map[string]Script {
	var doc map[string]any
	if toml.Unmarshal([]byte(text), &doc) != nil {
		return nil
	}
	table := func(path ...string) map[string]any {
		cur := doc
		for _, p := range path {
			next, ok := cur[p].(map[string]any)
			if !ok {
				return nil
			}
			cur = next
		}
		return cur
	}
	out := map[string]Script{}
	read := func(scripts map[string]any, prefix string) {
		for name, v := range scripts {
			out[prefix+name] = pyTask(v, runner)
		}
	}
	switch runner {
	case "pdm":
		read(table("tool", "pdm", "scripts"), "")
	case "poe":
		read(table("tool", "poe", "tasks"), "")
	case "rye":
		read(table("tool", "rye", "scripts"), "")
	case "pipenv": // the Pipfile's
		read(table("scripts"), "")
	case "hatch":
		envs := table("tool", "hatch", "envs")
		if hatchTOML {
			envs = table("envs")
		}
		for env, e := range envs {
			if e, ok := e.(map[string]any); ok {
				if s, ok := e["scripts"].(map[string]any); ok {
					read(s, env+":")
					if env == "default" {
						read(s, "")
					}
				}
			}
		}
	}
	return out
}

// pyTask reads one script.
func pyTask(v any, runner string) Script {
	var t Script
	words := func(v any) string { // a command line, or a list of its words
		if l, ok := v.([]any); ok {
			return strings.Join(Strings(l), " ")
		}
		s, _ := v.(string)
		return s
	}
	switch v := v.(type) {
	case string:
		t.Run = []string{v}
	case []any:
		if runner == "poe" {
			t.Refs = Strings(v) // a sequence of other tasks
		} else {
			t.Run = Strings(v)
		}
	case map[string]any:
		for _, k := range []string{"cmd", "shell"} {
			if s := words(v[k]); s != "" {
				t.Run = append(t.Run, s)
			}
		}
		for _, k := range []string{"composite", "sequence", "chain"} {
			t.Refs = append(t.Refs, Strings(v[k])...)
		}
	}
	return t
}
