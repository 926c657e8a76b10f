package taskfile

import (
	"encoding/json"
	"strings"
)

// PackageIdentity reads a package.json's name and the workspace patterns
// of its "workspaces" (an array, or an object's "packages", as npm, yarn
// and bun take them). Patterns that exclude ("!x") are left out: reading
// more workspaces than run can only add scripts a rule may object to.
func PackageIdentity(text string) (name string, workspaces []string) {
	var pkg struct {
		Name       any `json:"name"`
		Workspaces any `json:"workspaces"`
	}
	if json.Unmarshal([]byte(strings.TrimPrefix(text, "\uFEFF")), &pkg) != nil {
		return "", nil
	}
	name, _ = pkg.Name.(string)
	ws := pkg.Workspaces
	if obj, ok := ws.(map[string]any); ok {
		ws = obj["packages"]
	}
	return name, patterns(ws)
}

// LernaPackages reads lerna.json's "packages" patterns.
func LernaPackages(text string) []string {
	var l struct {
		Packages any `json:"packages"`
	}
	if json.Unmarshal([]byte(strings.TrimPrefix(text, "\uFEFF")), &l) != nil {
		return nil
	}
	return patterns(l.Packages)
}

// patterns keeps the strings of a JSON array that include.
func patterns(v any) []string {
	list, _ := v.([]any)
	return includes(Strings(list))
}

// PnpmWorkspaces reads the "packages:" list of a pnpm-workspace.yaml: the
// one key pnpm takes workspaces from, a block of "- pattern" items (or a
// flow list on the key's line). It reads no other YAML: a file it cannot
// read this way gives no patterns.
func PnpmWorkspaces(text string) []string {
	var out []string
	in := false
	for _, l := range yamlLines(text) {
		if l.col == 0 { // a top-level key
			rest, isList := strings.CutPrefix(l.text, "packages:")
			in = isList
			if flow, isFlow := strings.CutPrefix(strings.TrimSpace(rest), "["); isList && isFlow {
				return includes(splitFlow(strings.TrimSuffix(flow, "]")))
			}
			continue
		}
		if item, isItem := strings.CutPrefix(l.text, "-"); isItem && in {
			out = append(out, yamlScalar(strings.TrimSpace(item)))
		}
	}
	return includes(out)
}

// includes keeps the patterns that include: not "!x", not empty.
func includes(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		if p != "" && !strings.HasPrefix(p, "!") {
			out = append(out, p)
		}
	}
	return out
}
