package taskfile

import (
	"encoding/json"
	"strings"
)

// NxTargets reads the command lines of the targets of an nx project.json
// (or of nx.json's targetDefaults, with defaults): a target's command, or
// the command or commands of its options (nx:run-commands, strings or
// {command: ...}), and the project's name. A target run by another
// executor runs that program's code, which is not read. nil when the text
// is not JSON.
func NxTargets(text string, defaults bool) (targets map[string][]string, name string) {
	var doc map[string]any
	if json.Unmarshal([]byte(strings.TrimPrefix(text, "\uFEFF")), &doc) != nil {
		return nil, ""
	}
	name, _ = doc["name"].(string)
	key := "targets"
	if defaults {
		key = "targetDefaults"
	}
	all, _ := doc[key].(map[string]any)
	out := map[string][]string{}
	for target, v := range all {
		t, _ := v.(map[string]any)
		var cmds []string
		add := func(c any) {
			switch c := c.(type) {
			case string:
				cmds = append(cmds, c)
			case map[string]any:
				if s, ok := c["command"].(string); ok {
					cmds = append(cmds, s)
				}
			}
		}
		add(t["command"])
		if opts, ok := t["options"].(map[string]any); ok {
			add(opts["command"])
			if list, ok := opts["commands"].([]any); ok {
				for _, c := range list {
					add(c)
				}
			}
		}
		if len(cmds) > 0 {
			out[target] = cmds
		}
	}
	return out, name
}
