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
	var out []string
	for _, p := range list {
		if s, ok := p.(string); ok && s != "" && !strings.HasPrefix(s, "!") {
			out = append(out, s)
		}
	}
	return out
}

// PnpmWorkspaces reads the "packages:" list of a pnpm-workspace.yaml: the
// one key pnpm takes workspaces from, a block of "- pattern" items (or a
// flow list on the key's line). It reads no other YAML: a file it cannot
// read this way gives no patterns.
func PnpmWorkspaces(text string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if i := strings.Index(trimmed, " #"); i >= 0 {
			trimmed = strings.TrimSpace(trimmed[:i])
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(trimmed, "packages:"); ok && line == strings.TrimLeft(line, " \t") {
			rest = strings.TrimSpace(rest)
			if flow, ok := strings.CutPrefix(rest, "["); ok {
				for _, item := range strings.Split(strings.TrimSuffix(flow, "]"), ",") {
					out = appendPattern(out, item)
				}
				return out
			}
			in = true
			continue
		}
		if line == strings.TrimLeft(line, " \t") {
			in = false // another top-level key
			continue
		}
		if item, ok := strings.CutPrefix(trimmed, "-"); ok && in {
			out = appendPattern(out, item)
		}
	}
	return out
}

// appendPattern adds a YAML scalar, unquoted, when it includes.
func appendPattern(out []string, item string) []string {
	item = strings.TrimSpace(item)
	if len(item) >= 2 && (item[0] == '\'' || item[0] == '"') && item[len(item)-1] == item[0] {
		item = item[1 : len(item)-1]
	}
	if item == "" || strings.HasPrefix(item, "!") {
		return out
	}
	return append(out, item)
}
