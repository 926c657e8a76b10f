package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/agent-shell/agent-shell/internal/plainfile"
)

// Limits on policy.json, as in the reference tool.
const (
	maxPolicyFileBytes = 512 << 10
	maxPolicyRules     = 10000
	maxPolicyRuleChars = 1024
)

// PolicyFileSubpath is where policy.json lives under the repository root.
const PolicyFileSubpath = ".github/hooks/agent-shell/policy.json"

// PolicyFile is the compatible allow/deny lists of policy.json.
type PolicyFile struct {
	Path     string
	Allow    []string
	HasAllow bool // an allow list is present, even empty: then it is an allow list policy
	Deny     []string
}

// ErrNoPolicyFile is returned when the default policy.json does not exist,
// which (as in the reference tool) is not an error: there is no list.
var ErrNoPolicyFile = errors.New("no policy.json")

// LoadPolicyFile reads policy.json under root, or AGENTSHELL_POLICY_PATH
// (relative to root) when set. A missing default file gives ErrNoPolicyFile;
// a missing override, a file outside root, behind a symbolic link, with more
// than one hard link, too large, or not matching the schema is an error, and
// the caller must fail closed.
func LoadPolicyFile(root string, getenv func(string) string) (*PolicyFile, error) {
	path := filepath.Join(root, PolicyFileSubpath)
	override := getenv("AGENTSHELL_POLICY_PATH")
	if override != "" {
		path = override
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
	}
	data, err := readConfined(root, path, maxPolicyFileBytes)
	if err != nil {
		if override == "" && errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoPolicyFile
		}
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	pf, err := parsePolicyFile(data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	pf.Path = path
	return pf, nil
}

// readConfined reads path, which must be inside root with no symbolic link
// in any segment below root, and must not be hard-linked elsewhere.
func readConfined(root, path string, maxBytes int64) ([]byte, error) {
	rel, err := filepath.Rel(root, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("is outside the repository root %s", root)
	}
	cur := root
	var size int64
	parts := strings.Split(rel, string(filepath.Separator))
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link", cur)
		}
		if i == len(parts)-1 {
			if !fi.Mode().IsRegular() {
				return nil, fmt.Errorf("is not a regular file")
			}
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
				return nil, fmt.Errorf("has %d hard links", st.Nlink)
			}
			size = fi.Size()
		}
	}
	f, err := plainfile.Open(cur, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readSized(f, size, maxBytes)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("is larger than %d bytes", maxBytes)
	}
	return data, nil
}

// readSized reads f whole, up to maxBytes+1 bytes, into a buffer sized once
// from the length it had (size): io.ReadAll's doublings copy a large file
// several times.
func readSized(f *os.File, size, maxBytes int64) ([]byte, error) {
	var buf bytes.Buffer
	// MinRead more, or ReadFrom grows the buffer before the read that
	// finds the end.
	buf.Grow(int(min(max(size, 0), maxBytes)) + bytes.MinRead)
	_, err := buf.ReadFrom(io.LimitReader(f, maxBytes+1))
	return buf.Bytes(), err
}

// parsePolicyFile decodes {"allow"?: [string], "deny"?: [string]} strictly:
// any other key, a repeated key, null, or a non-string rule is an error.
func parsePolicyFile(data []byte) (*PolicyFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("must be a JSON object with \"allow\" and/or \"deny\" lists")
	}
	pf := &PolicyFile{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		var list *[]string
		switch key {
		case "allow":
			list, pf.HasAllow = &pf.Allow, true
		case "deny":
			list = &pf.Deny
		default:
			return nil, fmt.Errorf("unknown key %q (only \"allow\" and \"deny\" are allowed)", key)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		if err := decodeRules(raw, list); err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the object")
	}
	return pf, nil
}

func decodeRules(raw json.RawMessage, list *[]string) error {
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		return errors.New("must be a list of strings")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("must be a list of strings: %w", err)
	}
	if len(items) > maxPolicyRules {
		return fmt.Errorf("has %d rules, at most %d are allowed", len(items), maxPolicyRules)
	}
	rules := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if !bytes.HasPrefix(bytes.TrimSpace(it), []byte(`"`)) || json.Unmarshal(it, &s) != nil {
			return fmt.Errorf("rule %d is not a string", i+1)
		}
		if utf8.RuneCountInString(s) > maxPolicyRuleChars {
			return fmt.Errorf("rule %d is longer than %d characters", i+1, maxPolicyRuleChars)
		}
		rules = append(rules, s)
	}
	*list = rules
	return nil
}
