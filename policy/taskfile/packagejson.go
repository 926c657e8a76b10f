package taskfile

import (
	"encoding/json"
	"strings"
)

// ReadPackageScripts reads the string-valued scripts of a package.json,
// after a byte order mark, which Node reads past too. ok is false when it
// does not read as JSON, or its scripts are not an object: npm then runs
// none of them.
func ReadPackageScripts(text string) (scripts map[string]string, ok bool) {
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if json.Unmarshal([]byte(strings.TrimPrefix(text, "\uFEFF")), &pkg) != nil {
		return nil, false
	}
	scripts = map[string]string{}
	for k, v := range pkg.Scripts {
		if s, ok := v.(string); ok {
			scripts[k] = s
		}
	}
	return scripts, true
}
