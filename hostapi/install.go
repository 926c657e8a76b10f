package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
)

// HookCommand is the command every host's registration runs, with the
// host's name appended as --agent=NAME.
const HookCommand = "agent-shell hook --agent="

// maxConfigBytes bounds a host configuration file read for merging.
const maxConfigBytes = 4 << 20

// mergeJSONFile applies edit to the JSON object in path (an empty object
// when the file does not exist) and writes it back atomically when edit
// reports a change. A file that is not a JSON object is an error and is
// never overwritten. Keys keep their values; the file is re-indented.
func mergeJSONFile(path string, edit func(doc map[string]any) bool) (bool, error) {
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case len(data) > maxConfigBytes:
		return false, fmt.Errorf("%s: larger than %d bytes", path, maxConfigBytes)
	case len(bytes.TrimSpace(data)) > 0:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil || doc == nil {
			return false, fmt.Errorf("%s is not a JSON object; fix or move it, it was left unchanged", path)
		}
	}
	if !edit(doc) {
		return false, nil
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, err
	}
	return true, atomicfile.Write(path, append(out, '\n'), 0)
}

// object returns doc[key] as an object, creating it when absent. ok is false
// when the key holds something else, which is left alone.
func object(doc map[string]any, key string) (map[string]any, bool) {
	v, present := doc[key]
	if !present {
		m := map[string]any{}
		doc[key] = m
		return m, true
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// hookLists returns doc["hooks"] after checking that it is an object whose
// entries for events are lists, or absent: appending to anything else
// would replace what the user wrote there.
func hookLists(path string, doc map[string]any, events []string) (map[string]any, error) {
	hooks, ok := object(doc, "hooks")
	if !ok {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object; fix or move it, it was left unchanged", path)
	}
	for _, ev := range events {
		if v, ok := hooks[ev]; ok {
			if _, isList := v.([]any); !isList {
				return nil, fmt.Errorf("%s: hooks.%s is not a list; fix or move it, it was left unchanged", path, ev)
			}
		}
	}
	return hooks, nil
}

// appendOnce appends entry to the list at doc[key] unless some element
// already satisfies has; it reports whether it appended.
func appendOnce(doc map[string]any, key string, entry any, has func(any) bool) bool {
	list, _ := doc[key].([]any)
	for _, it := range list {
		if has(it) {
			return false
		}
	}
	doc[key] = append(list, entry)
	return true
}
