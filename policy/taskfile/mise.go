package taskfile

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// MiseFiles are mise's project configuration files, lowest precedence
// first.
var MiseFiles = []string{".config/mise.toml", "mise/config.toml", ".mise.toml", "mise.toml"}

// MiseTask is one task of a mise configuration file.
type MiseTask struct {
	Name    string
	Run     []string // its run commands, as written
	Depends []string // the tasks it depends on, each "NAME [ARGS]"
	Private bool     // hidden, or named _x
}

// ReadMiseTasks reads the tasks of a mise configuration file: [tasks.NAME]
// tables with run (a string or a list), depends or file, and the short
// form NAME = "cmd" or NAME = ["cmd", ...] under [tasks], by name. A task
// with nothing to run is left out. It is an error if the text is not TOML
// (mise then runs nothing) or tasks is not a table.
func ReadMiseTasks(data []byte) ([]MiseTask, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(err.Error(), "toml: ")), "\n")
		return nil, fmt.Errorf("not valid TOML (%s)", strings.TrimSpace(first))
	}
	raw, ok := doc["tasks"]
	if !ok {
		return nil, nil
	}
	tasks, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("tasks is not a table")
	}
	var out []MiseTask
	for name, v := range tasks {
		t := MiseTask{Name: name}
		switch v := v.(type) {
		case string, []any:
			t.Run = Strings(v)
		case map[string]any:
			t.Run, t.Depends = Strings(v["run"]), Strings(v["depends"])
			_, depends := v["depends"]
			_, file := v["file"]
			if len(t.Run) == 0 && !depends && !file {
				continue
			}
			t.Private, _ = v["hide"].(bool)
		default:
			continue
		}
		if strings.HasPrefix(name, "_") {
			t.Private = true
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Strings reads a decoded TOML or JSON value that is a string or a list
// of strings; what else it holds is left out.
func Strings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
