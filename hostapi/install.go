package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	return true, WriteFileAtomic(path, append(out, '\n'))
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, keeping path's permissions (0644 for a new file),
// so a reader never sees half a file.
func WriteFileAtomic(path string, data []byte) error {
	// Renaming over a symbolic link would replace the link with a file and
	// leave its target as it was.
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; it was left unchanged (edit the file it points to)", path)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing to remove
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(f.Name(), mode); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
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
