package taskfile

import (
	"strings"
)

// ComposeFiles are the files docker compose reads, in its order.
var ComposeFiles = []string{"compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// maxComposeVolumes bounds the mounts read from one compose file.
const maxComposeVolumes = 256

// ComposeVolumes reads the bind mounts of a compose file, as docker run's
// -v takes them (SRC:DST[:MODE]): the items of every volumes list in it,
// short (./data:/data) or long (source: and target:). Reading every list,
// a service's, an anchor's or an extension field's, is reading at least
// what any service mounts. ok is false past maxComposeVolumes.
func ComposeVolumes(text string) (volumes []string, ok bool) {
	lines := yamlLines(text)
	for i := 0; i < len(lines); i++ {
		key, v, isKey := yamlKey(strings.TrimPrefix(lines[i].text, "- "))
		if !isKey || key != "volumes" || strings.TrimSpace(v) != "" {
			if isKey && key == "volumes" && strings.HasPrefix(strings.TrimSpace(v), "[") {
				volumes = append(volumes, splitFlow(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "["), "]"))...)
			}
			continue
		}
		col := lines[i].col
		if strings.HasPrefix(lines[i].text, "- ") {
			col += 2
		}
		// Its items: deeper, or at its own column (YAML allows both).
		for j := i + 1; j < len(lines) && (lines[j].col > col || lines[j].col == col && strings.HasPrefix(lines[j].text, "- ")); j++ {
			item, isItem := strings.CutPrefix(lines[j].text, "- ")
			if !isItem {
				continue
			}
			item = strings.TrimSpace(item)
			if k, val, isMap := yamlKey(item); isMap && (k == "type" || k == "source" || k == "target" || k == "read_only") {
				// The long syntax: the item's keys, here and under it.
				src, dst := "", ""
				fields := []string{k + ": " + val}
				for _, l := range lines[j+1 : blockEnd(lines, j, lines[j].col)] {
					fields = append(fields, l.text)
				}
				for _, f := range fields {
					fk, fv, _ := yamlKey(f)
					switch fk {
					case "source":
						src = yamlScalar(strings.TrimSpace(fv))
					case "target":
						dst = yamlScalar(strings.TrimSpace(fv))
					}
				}
				if src != "" {
					volumes = append(volumes, src+":"+dst)
				}
				continue
			}
			volumes = append(volumes, yamlScalar(item))
		}
		if len(volumes) > maxComposeVolumes {
			return nil, false
		}
	}
	return volumes, len(volumes) <= maxComposeVolumes
}
