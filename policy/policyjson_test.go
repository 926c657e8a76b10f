package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

func writePolicy(t *testing.T, root, content string) string {
	t.Helper()
	p := filepath.Join(root, PolicyFileSubpath)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParsePolicyFile(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantErr  string
		allow    []string
		hasAllow bool
		deny     []string
	}{
		{name: "deny only", content: `{"deny":["rm -rf *"]}`, deny: []string{"rm -rf *"}},
		{name: "both", content: `{"allow":["npm test"],"deny":[]}`, allow: []string{"npm test"}, hasAllow: true, deny: []string{}},
		{name: "empty allow is an allow list", content: `{"allow":[]}`, allow: []string{}, hasAllow: true},
		{name: "empty object", content: `{}`},
		{name: "unknown key", content: `{"deny":[],"comment":"x"}`, wantErr: `unknown key "comment"`},
		{name: "proto key", content: `{"__proto__":{}}`, wantErr: `unknown key "__proto__"`},
		{name: "repeated key", content: `{"deny":["rm -rf *"],"deny":[]}`, wantErr: `appears twice`},
		{name: "not json", content: `not valid json {{`, wantErr: "JSON object"},
		{name: "array", content: `["rm"]`, wantErr: "JSON object"},
		{name: "null list", content: `{"deny":null}`, wantErr: "list of strings"},
		{name: "string list", content: `{"deny":"rm"}`, wantErr: "list of strings"},
		{name: "non-string rule", content: `{"deny":[1]}`, wantErr: "rule 1 is not a string"},
		{name: "null rule", content: `{"deny":["a",null]}`, wantErr: "rule 2 is not a string"},
		{name: "trailing data", content: `{"deny":[]} {}`, wantErr: "after the object"},
		{name: "truncated", content: `{"deny":["a"`, wantErr: "invalid JSON"},
		{name: "rule too long", content: `{"deny":["` + strings.Repeat("x", 1025) + `"]}`, wantErr: "longer than 1024"},
		{name: "too many rules", content: `{"deny":[` + strings.Repeat(`"x",`, 10000) + `"x"]}`, wantErr: "at most 10000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pf, err := parsePolicyFile([]byte(tt.content))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pf.Allow, "|") != strings.Join(tt.allow, "|") || pf.HasAllow != tt.hasAllow || strings.Join(pf.Deny, "|") != strings.Join(tt.deny, "|") {
				t.Errorf("got %+v", pf)
			}
		})
	}
}

func TestLoadPolicyFileLocation(t *testing.T) {
	t.Run("missing default file is no policy", func(t *testing.T) {
		if _, err := LoadPolicyFile(t.TempDir(), envOf()); !errors.Is(err, ErrNoPolicyFile) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("default file", func(t *testing.T) {
		root := t.TempDir()
		writePolicy(t, root, `{"deny":["x"]}`)
		pf, err := LoadPolicyFile(root, envOf())
		if err != nil || pf.Deny[0] != "x" {
			t.Fatalf("%+v %v", pf, err)
		}
	})
	t.Run("missing override fails closed", func(t *testing.T) {
		_, err := LoadPolicyFile(t.TempDir(), envOf("AGENTSHELL_POLICY_PATH", "custom.json"))
		if err == nil || errors.Is(err, ErrNoPolicyFile) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("relative override", func(t *testing.T) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "custom.json"), []byte(`{"allow":["ls"]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		pf, err := LoadPolicyFile(root, envOf("AGENTSHELL_POLICY_PATH", "custom.json"))
		if err != nil || !pf.HasAllow {
			t.Fatalf("%+v %v", pf, err)
		}
	})
	t.Run("override outside the root", func(t *testing.T) {
		root, other := t.TempDir(), t.TempDir()
		p := filepath.Join(other, "p.json")
		if err := os.WriteFile(p, []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, o := range []string{p, "../" + filepath.Base(other) + "/p.json"} {
			if _, err := LoadPolicyFile(root, envOf("AGENTSHELL_POLICY_PATH", o)); err == nil || !strings.Contains(err.Error(), "outside") {
				t.Errorf("override %s: err %v", o, err)
			}
		}
	})
	t.Run("symlinked file", func(t *testing.T) {
		root := t.TempDir()
		real := filepath.Join(root, "real.json")
		if err := os.WriteFile(real, []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, PolicyFileSubpath)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, p); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPolicyFile(root, envOf()); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("symlinked directory", func(t *testing.T) {
		root, other := t.TempDir(), t.TempDir()
		if err := os.MkdirAll(filepath.Join(other, "hooks", "agent-shell"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "hooks", "agent-shell", "policy.json"), []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, ".github"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(other, "hooks"), filepath.Join(root, ".github", "hooks")); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPolicyFile(root, envOf()); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("hard link", func(t *testing.T) {
		root := t.TempDir()
		p := writePolicy(t, root, `{}`)
		if err := os.Link(p, filepath.Join(root, "other.json")); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPolicyFile(root, envOf()); err == nil || !strings.Contains(err.Error(), "hard links") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		root := t.TempDir()
		writePolicy(t, root, `{"deny":["`+strings.Repeat("x", 1000)+`"]}`+strings.Repeat(" ", maxPolicyFileBytes))
		if _, err := LoadPolicyFile(root, envOf()); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("err %v", err)
		}
	})
}

func FuzzParsePolicyFile(f *testing.F) {
	for _, s := range []string{`{"deny":["rm -rf *"]}`, `{"allow":[],"deny":[]}`, `{"deny":[],"comment":"x"}`, `{`, `[]`, `{"deny":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := parsePolicyFile(data)
		if err != nil {
			return
		}
		// A file that loads has only string rules within the limits.
		for _, r := range append(append([]string{}, pf.Allow...), pf.Deny...) {
			if utf8Len := len([]rune(r)); utf8Len > maxPolicyRuleChars {
				t.Fatalf("rule of %d chars accepted", utf8Len)
			}
		}
	})
}

// A deny pattern's head only passes over layers it could not match: on
// every layer of every corpus command, each pattern (the corpus and bench
// policies', and edge cases of the head's reading) denies exactly what it
// denies without one.
func TestDenyPatternHeadsOnlySkip(t *testing.T) {
	var raws []string
	for _, f := range []string{"testdata/corpus/policy.json", "testdata/bench/policy.json"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parsePolicyFile(data)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, pf.Deny...)
	}
	raws = append(raws, "*", " *", "-r *", "git*", "sudo", "/usr/bin/rm *", "rm", "'my prog' *", "git -c *", "env *", "bash -c *", "* --force*")
	patterns := compilePatterns(raws)
	files, _ := filepath.Glob("shellcmd/testdata/corpus/*.tsv")
	layers := 0
	for _, file := range files {
		rows, err := corpustsv.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			line := shellcmd.Parse(row.Fields[0])
			for ci := range line.Commands {
				c := &line.Commands[ci]
				for li, layer := range c.Layers {
					layers++
					forms := []*layerForms{newLayerForms(asWritten, layer, shellcmd.Canonical(layer))}
					if shape := layerShape(c, li); shape != nil {
						forms = append(forms, newLayerForms(asShapes, shape, shellcmd.CanonicalShape(shape)))
					}
					for _, f := range forms {
						for _, p := range patterns {
							headless := p.wordGlob
							headless.globHead, headless.plainHead = "", ""
							if got, want := p.deniesLayer(f), headless.deniesLayer(f); got != want {
								t.Errorf("%q on %q (shapes %v): %v with its head, %v without", p.raw, layer, f.r, got, want)
							}
						}
					}
				}
			}
		}
	}
	if layers < 1000 {
		t.Fatalf("only %d layers read from %v", layers, files)
	}
}
