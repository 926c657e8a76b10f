package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/runtime"
)

// writeRepo makes a repository in a temp folder: .git, the manifest, and
// files named relative to the manifest's folder.
func writeRepo(t testing.TB, manifest string, files map[string]string) (root, manifestPath string) {
	t.Helper()
	root = t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifestPath = filepath.Join(root, ManifestSubpath)
	writeFile(t, manifestPath, manifest)
	for name, text := range files {
		writeFile(t, filepath.Join(filepath.Dir(manifestPath), name), text)
	}
	return root, manifestPath
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func noEnv(string) string { return "" }

// configEnv is an environment whose XDG_CONFIG_HOME is a new folder: where
// a loaded engine keeps grants and script state (StateDir).
func configEnv(t *testing.T) func(string) string {
	cfg := t.TempDir()
	return func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}
}

// loadRejected loads the repository's policy, checks that the engine
// denies every command, and returns the located manifest error.
func loadRejected(t *testing.T, root string) *ManifestError {
	t.Helper()
	e := Load(root, noEnv)
	if e.LoadErr == nil {
		t.Fatalf("Load: no error; manifest:\n%s", readFileT(t, filepath.Join(root, ManifestSubpath)))
	}
	for _, cmd := range []string{"ls", "git status", "terraform destroy"} {
		if d := e.Decide(cmd, root); d.Action != ActionDeny || d.Reason != ErrLoad.Error() {
			t.Errorf("Decide(%q) with a load error: %s %q, want deny %q", cmd, d.Action, d.Reason, ErrLoad.Error())
		}
	}
	if f := e.AuditFilter(); f != nil {
		t.Errorf("an engine that failed to load has an audit filter")
	}
	var me *ManifestError
	if !errors.As(e.LoadErr, &me) {
		t.Fatalf("LoadErr %T %v, want a *ManifestError", e.LoadErr, e.LoadErr)
	}
	return me
}

func readFileT(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestManifestScriptErrors(t *testing.T) {
	const head = "version = 1\n" // line 1
	tests := []struct {
		name     string
		manifest string            // after head
		files    map[string]string // beside the manifest
		line     int               // the located line
		key      string            // the ManifestError's key
		msg      string            // in the message
	}{
		{
			name:     "unknown key",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\nfuel_limit = 5\n",
			line:     6, key: "script.fuel_limit", msg: "unknown key",
		},
		{
			name:     "missing src file",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/missing.star\"\n",
			line:     2, key: "script[1].src", msg: "no such file",
		},
		{
			name:     "src leaves the folder",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"../x.star\"\n",
			files:    map[string]string{"../x.star": "def on_event(ctx, state):\n    return Match.yes()\n"},
			line:     2, key: "script[1].src", msg: "inside the manifest's folder",
		},
		{
			name:     "src leaves the folder after cleaning",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/../../x.star\"\n",
			files:    map[string]string{"../x.star": "def on_event(ctx, state):\n    return Match.yes()\n"},
			line:     2, key: "script[1].src", msg: "inside the manifest's folder",
		},
		{
			name:     "absolute src",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"/etc/passwd\"\n",
			line:     2, key: "script[1].src", msg: "inside the manifest's folder",
		},
		{
			name:     "duplicate id",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			line:     7, key: "script[2].id", msg: `duplicate script id "a"`,
		},
		{
			name:     "id with a slash",
			manifest: "[[script]]\nid = \"../a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			line:     2, key: "script[1].id", msg: `"../a": a script id is 1 to 64 letters`,
		},
		{
			name:     "id with a space",
			manifest: "[[script]]\nid = \"my script\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			line:     2, key: "script[1].id", msg: "a script id is",
		},
		{
			name:     "id starting with a dot",
			manifest: "[[script]]\nid = \".hidden\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			line:     2, key: "script[1].id", msg: "a script id is",
		},
		{
			name:     "empty id",
			manifest: "[[script]]\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			line:     2, key: "script[1].id", msg: "a script id is",
		},
		{
			name:     "id too long",
			manifest: "[[script]]\nid = \"" + strings.Repeat("a", 65) + "\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			line:     2, key: "script[1].id", msg: "a script id is",
		},
		{
			name:     "unknown kind",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_linter\"\nsource = \"x = 1\"\n",
			line:     2, key: "script[1].kind", msg: `kind "shell_linter": want one of shell_matcher, shell_reviewer`,
		},
		{
			name:     "both src and source",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\nsource = \"x = 1\"\n",
			files:    map[string]string{"a.star": "x = 1\n"},
			line:     2, key: "script[1].src", msg: "more than one of src, source and executable",
		},
		{
			name:     "neither src nor source",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\n",
			line:     2, key: "script[1].src", msg: "needs src (a file), source (inline) or executable (a pinned program)",
		},
		{
			name:     "bad function name",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfunction = \"on event\"\n",
			line:     2, key: "script[1].function", msg: "not a function name",
		},
		{
			name:     "rule names a reviewer",
			manifest: "[[script]]\nid = \"rev\"\nkind = \"shell_reviewer\"\nsource = \"x = 1\"\n\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"rev\" }\n",
			line:     10, key: "rule[1].match.script", msg: `script "rev" is a shell_reviewer, not a shell_matcher`,
		},
		{
			name:     "rule names an analyzer inside not",
			manifest: "[[script]]\nid = \"fx\"\nkind = \"shell_effect_analyzer\"\nsource = \"x = 1\"\n\n[[rule]]\nid = \"r\"\naction = \"allow\"\nmatch = { basename = \"ls\", not = { any = [{ script = \"fx\" }] } }\n",
			line:     10, key: "rule[1].match.script", msg: `script "fx" is a shell_effect_analyzer, not a shell_matcher`,
		},
		{
			name:     "rule names no script",
			manifest: "[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"ghost\" }\n",
			line:     5, key: "rule[1].match.script", msg: `no [[script]] has id "ghost"`,
		},
		{
			name:     "analyzer names a matcher",
			manifest: "[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n\n[[analyzer]]\nscript = \"m\"\n",
			line:     7, key: "analyzer[1].script", msg: `script "m" is a shell_matcher, not a shell_effect_analyzer`,
		},
		{
			name:     "analyzer names no script",
			manifest: "[[analyzer]]\nscript = \"ghost\"\n",
			line:     2, key: "analyzer[1].script", msg: `no [[script]] has id "ghost"`,
		},
		{
			name:     "analyzer listed twice",
			manifest: "[[script]]\nid = \"fx\"\nkind = \"shell_effect_analyzer\"\nsource = \"x = 1\"\n\n[[analyzer]]\nscript = \"fx\"\n\n[[analyzer]]\nscript = \"fx\"\n",
			line:     10, key: "analyzer[2].script", msg: "listed twice",
		},
		{
			name:     "audit filter names a matcher",
			manifest: "[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n\n[audit]\nfilter = \"m\"\n",
			line:     8, key: "audit.filter", msg: `script "m" is a shell_matcher, not a shell_audit_filter`,
		},
		{
			name:     "matcher with session lifecycle",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nlifecycle = \"session\"\n",
			line:     2, key: "script[1].lifecycle", msg: "a matcher is always invocation-scoped",
		},
		{
			name:     "unknown lifecycle",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_reviewer\"\nsource = \"x = 1\"\nlifecycle = \"forever\"\n",
			line:     2, key: "script[1].lifecycle", msg: `lifecycle "forever"`,
		},
		{
			name:     "matcher failing into no match",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfailure = \"no_match\"\n",
			line:     2, key: "script[1].failure", msg: `failure "no_match": a shell_matcher may fail with conservative or deny`,
		},
		{
			name:     "reviewer failing into approval",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_reviewer\"\nsource = \"x = 1\"\nfailure = \"approve\"\n",
			line:     2, key: "script[1].failure", msg: "may fail with deny or defer",
		},
		{
			name:     "analyzer failing into keep",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_effect_analyzer\"\nsource = \"x = 1\"\nfailure = \"keep\"\n",
			line:     2, key: "script[1].failure", msg: "may fail with unknown or deny",
		},
		{
			name:     "audit filter failing into deny",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_audit_filter\"\nsource = \"x = 1\"\nfailure = \"deny\"\n",
			line:     2, key: "script[1].failure", msg: "may fail with keep",
		},
		{
			name:     "negative fuel",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfuel = -1\n",
			line:     2, key: "script[1].fuel", msg: "fuel -1",
		},
		{
			name:     "too much fuel",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfuel = 100000001\n",
			line:     2, key: "script[1].fuel", msg: "fuel 100000001",
		},
		{
			name:     "zero timeout",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\ntimeout = \"0s\"\n",
			line:     2, key: "script[1].timeout", msg: `timeout "0s"`,
		},
		{
			name:     "timeout too long",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\ntimeout = \"31s\"\n",
			line:     2, key: "script[1].timeout", msg: `timeout "31s"`,
		},
		{
			name:     "timeout not a duration",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\ntimeout = \"soon\"\n",
			line:     2, key: "script[1].timeout", msg: `timeout "soon"`,
		},
		{
			// The message says the shortest timeout is 1ms; a shorter one
			// would fail every call.
			name:     "timeout under 1ms",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\ntimeout = \"500us\"\n",
			line:     2, key: "script[1].timeout", msg: `timeout "500us": want a duration from 1ms to 30s`,
		},
		{
			name:     "negative timeout",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\ntimeout = \"-5ms\"\n",
			line:     2, key: "script[1].timeout", msg: `timeout "-5ms"`,
		},
		{
			name:     "negative max_output",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nmax_output = -1\n",
			line:     2, key: "script[1].max_output", msg: "max_output -1",
		},
		{
			name:     "max_output too large",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nmax_output = 1048577\n",
			line:     2, key: "script[1].max_output", msg: "max_output 1048577",
		},
		{
			name:     "fuel of the wrong type",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfuel = \"lots\"\n",
			line:     6, key: "script.fuel", msg: "cannot decode",
		},
		{
			// The second script is the broken one: the error points at its
			// [[script]] and at the name in its file.
			name:     "undefined name",
			manifest: "[[script]]\nid = \"ok\"\nkind = \"shell_matcher\"\nsrc = \"scripts/ok.star\"\n\n[[script]]\nid = \"bad\"\nkind = \"shell_matcher\"\nsrc = \"scripts/bad.star\"\n",
			files: map[string]string{
				"scripts/ok.star":  "def on_event(ctx, state):\n    return Match.no()\n",
				"scripts/bad.star": "def on_event(ctx, state):\n    if ctx.basename == \"rm\":\n        return Match.yes(reson)\n    return Match.no()\n",
			},
			line: 7, msg: `script "bad": scripts/bad.star:3:26: undefined: reson`,
		},
		{
			name:     "undefined name inline",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = '''\ndef on_event(ctx, state):\n    return Mtch.yes()\n'''\n",
			line:     2, msg: "inline:a.star:2:12: undefined: Mtch",
		},
		{
			name:     "syntax error",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "def on_event(ctx, state)\n    return Match.yes()\n"},
			line:     2, msg: "a.star:2:1: got newline, want ':'",
		},
		{
			name:     "matcher names Review",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "def on_event(ctx, state):\n    return Review.approve()\n"},
			line:     2, msg: "a.star:2:12: undefined: Review",
		},
		{
			name:     "audit filter names Match",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_audit_filter\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "def on_event(ev, state):\n    return Match.yes()\n"},
			line:     2, msg: "a.star:2:12: undefined: Match",
		},
		{
			name:     "analyzer names Intercept",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_effect_analyzer\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "def on_event(ctx, state):\n    return Intercept.proceed()\n"},
			line:     2, msg: "a.star:2:12: undefined: Intercept",
		},
		{
			name:     "library module mints an action",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files: map[string]string{
				"a.star":   "load(\"./lib.star\", \"verdict\")\ndef on_event(ctx, state):\n    return verdict()\n",
				"lib.star": "def verdict():\n    return Match.yes()\n",
			},
			line: 2, msg: "lib.star:2:12: undefined: Match",
		},
		{
			name:     "load cycle",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/a.star\"\n",
			files: map[string]string{
				"scripts/a.star": "load(\"./b.star\", \"b\")\ndef on_event(ctx, state):\n    return Match.yes()\n",
				"scripts/b.star": "load(\"./c.star\", \"c\")\nb = 1\n",
				"scripts/c.star": "load(\"./b.star\", \"b\")\nc = 1\n",
			},
			line: 2, msg: "cycle: scripts/b.star -> scripts/c.star -> scripts/b.star",
		},
		{
			name:     "module loads itself",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files: map[string]string{
				"a.star":   "load(\"./lib.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.yes()\n",
				"lib.star": "load(\"./lib.star\", y = \"x\")\nx = 1\n",
			},
			line: 2, msg: "lib.star:1:6: load \"./lib.star\": cycle: lib.star -> lib.star",
		},
		{
			name:     "load leaves the folder",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/a.star\"\n",
			files: map[string]string{
				"scripts/a.star": "load(\"../../lib.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.yes()\n",
				"../lib.star":    "x = 1\n",
			},
			line: 2, msg: "the path leaves the manifest folder",
		},
		{
			name:     "load of a missing module",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "load(\"./nope.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.yes()\n"},
			line:     2, msg: `a.star:1:6: load "./nope.star"`,
		},
		{
			name:     "load of a missing library module",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "load(\"@agent-shell//nope.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.yes()\n"},
			line:     2, msg: "the @agent-shell// library has no nope.star",
		},
		{
			name:     "load of an undeclared pack",
			manifest: "[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "load(\"@corp//x.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.yes()\n"},
			line:     2, msg: `no pack named "corp"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, path := writeRepo(t, head+tt.manifest, tt.files)
			me := loadRejected(t, root)
			if me.Path != path || me.Line != tt.line || me.Key != tt.key || !strings.Contains(me.Msg, tt.msg) {
				t.Errorf("got %s\n(path %q line %d key %q)\nwant %s:%d, key %q, message containing %q", me, me.Path, me.Line, me.Key, path, tt.line, tt.key, tt.msg)
			}
			want := path + ":" + strconv.Itoa(tt.line) + ": "
			if !strings.HasPrefix(me.Error(), want) {
				t.Errorf("error %q does not start with %q", me.Error(), want)
			}
		})
	}
}

// A src or a loaded module that is a symbolic link to a file outside the
// manifest's folder is refused, however the link is written.
func TestManifestScriptSymlinksOutside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.star")
	writeFile(t, outside, "def on_event(ctx, state):\n    return Match.yes()\n")
	tests := []struct {
		name, manifest, link, target, msg string
		files                             map[string]string
	}{
		{
			name:     "src, absolute link",
			manifest: "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/a.star\"\n",
			link:     "scripts/a.star", target: outside,
		},
		{
			name:     "src, relative link",
			manifest: "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/a.star\"\n",
			link:     "scripts/a.star", target: "../../../../x.star",
			files: map[string]string{"../../../x.star": "def on_event(ctx, state):\n    return Match.yes()\n"},
		},
		{
			name:     "src in a linked folder",
			manifest: "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"scripts/outside.star\"\n",
			link:     "scripts", target: filepath.Dir(outside),
		},
		{
			name:     "loaded module",
			manifest: "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n",
			files:    map[string]string{"a.star": "load(\"./lib.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.yes()\n"},
			link:     "lib.star", target: outside,
			msg: `load "./lib.star"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, path := writeRepo(t, tt.manifest, tt.files)
			link := filepath.Join(filepath.Dir(path), tt.link)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tt.target, link); err != nil {
				t.Fatal(err)
			}
			// The link works: only the confinement refuses it.
			if _, err := os.Stat(link); err != nil {
				t.Fatalf("the link does not resolve: %v", err)
			}
			me := loadRejected(t, root)
			if me.Line != 2 || !strings.Contains(me.Error(), "escapes") && !strings.Contains(me.Error(), "outside") && !strings.Contains(me.Error(), "leaves") {
				t.Errorf("got %v, want an error at line 2 saying the file is outside the folder", me)
			}
			if tt.msg != "" && !strings.Contains(me.Error(), tt.msg) {
				t.Errorf("got %v, want it to contain %q", me, tt.msg)
			}
			if tt.msg == "" && me.Key != "script[1].src" {
				t.Errorf("key %q, want script[1].src", me.Key)
			}
		})
	}
}

// A src that is not a regular file is refused: a folder, a file over the
// size limit, and a named pipe, which must not make Load wait for a writer
// that never comes (a hook that hangs stalls the agent).
func TestManifestScriptSrcNotARegularFile(t *testing.T) {
	manifest := "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n"
	t.Run("folder", func(t *testing.T) {
		root, path := writeRepo(t, manifest, nil)
		if err := os.Mkdir(filepath.Join(filepath.Dir(path), "a.star"), 0o755); err != nil {
			t.Fatal(err)
		}
		if me := loadRejected(t, root); me.Line != 2 || me.Key != "script[1].src" || !strings.Contains(me.Msg, "not a regular file") {
			t.Errorf("got %v", me)
		}
	})
	t.Run("too long", func(t *testing.T) {
		body := "def on_event(ctx, state):\n    return Match.yes()\n" + strings.Repeat("# padding\n", 30<<10)
		root, _ := writeRepo(t, manifest, map[string]string{"a.star": body})
		if me := loadRejected(t, root); me.Line != 2 || me.Key != "script[1].src" || !strings.Contains(me.Msg, "longer than") {
			t.Errorf("got %v", me)
		}
	})
	t.Run("named pipe", func(t *testing.T) {
		root, path := writeRepo(t, manifest, nil)
		fifo := filepath.Join(filepath.Dir(path), "a.star")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan *Engine, 1)
		go func() { done <- Load(root, noEnv) }()
		var e *Engine
		select {
		case e = <-done:
		case <-time.After(2 * time.Second):
			t.Errorf("Load has waited 2s on a named pipe as a script's src; it should refuse it as not a regular file")
			// Unblock the reader so the goroutine ends.
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			e = <-done
		}
		if e.LoadErr == nil || !strings.Contains(e.LoadErr.Error(), "script[1].src") {
			t.Errorf("LoadErr %v, want a script[1].src error", e.LoadErr)
		}
	})
}

// A src that is a symbolic link inside the folder is read: only escaping is
// refused.
func TestManifestScriptSymlinkInside(t *testing.T) {
	root, path := writeRepo(t, "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"a\" }\n",
		map[string]string{"real/a.star": "def on_event(ctx, state):\n    return Match.yes(\"linked\")\n"})
	if err := os.Symlink("real/a.star", filepath.Join(filepath.Dir(path), "a.star")); err != nil {
		t.Fatal(err)
	}
	e := Load(root, noEnv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	if d := e.Decide("ls", root); d.Action != ActionDeny || d.Rule != "r" {
		t.Errorf("got %s %q, want deny by r", d.Action, d.Rule)
	}
}

// The manifest digest names what the scripts are: it changes when a
// script's source or a module it loads changes, and only then (or when the
// manifest's own text changes).
func TestManifestDigest(t *testing.T) {
	manifest := `version = 1

[[script]]
id = "tf"
kind = "shell_matcher"
src = "scripts/tf.star"

[[rule]]
id = "no-tf-destroy"
action = "deny"
match = { script = "tf" }
`
	tf := "load(\"./lib.star\", \"is_destroy\")\ndef on_event(ctx, state):\n    return Match.yes() if is_destroy(ctx.argv) else Match.no()\n"
	lib := "load(\"@agent-shell//helpers.star\", \"subcommand\")\nload(\"./deep/names.star\", \"PROGRAM\")\ndef is_destroy(argv):\n    return argv[0] == PROGRAM and subcommand(argv) == \"destroy\"\n"
	deep := "PROGRAM = \"terraform\"\n"
	root, path := writeRepo(t, manifest, map[string]string{"scripts/tf.star": tf, "scripts/lib.star": lib, "scripts/deep/names.star": deep, "README.md": "scripts\n"})
	dir := filepath.Dir(path)
	digest := func() string {
		t.Helper()
		e := Load(root, noEnv)
		if e.LoadErr != nil {
			t.Fatal(e.LoadErr)
		}
		if d := e.Decide("terraform destroy", root); d.Action != ActionDeny {
			t.Fatalf("terraform destroy: %s (%s)", d.Action, d.Reason)
		}
		if len(e.Manifest.Digest) != 64 {
			t.Fatalf("digest %q is not a SHA-256", e.Manifest.Digest)
		}
		return e.Manifest.Digest
	}
	base := digest()
	if again := digest(); again != base {
		t.Errorf("loading twice (the second time from the compile cache): digest %s, then %s", base, again)
	}
	// Without a cache, from the same text, the digest is the same.
	m, err := ParseManifest(path, []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(nil, m); err != nil {
		t.Fatal(err)
	}
	if m.Digest != base {
		t.Errorf("NewEngine without a cache: digest %s, Load: %s", m.Digest, base)
	}

	writeFile(t, filepath.Join(dir, "README.md"), "something else\n")
	writeFile(t, filepath.Join(dir, "scripts/unused.star"), "x = 1\n")
	if got := digest(); got != base {
		t.Errorf("a file no script uses changed the digest")
	}

	writeFile(t, filepath.Join(dir, "scripts/tf.star"), tf+"# a comment\n")
	changedScript := digest()
	if changedScript == base {
		t.Errorf("changing the script's source kept the digest")
	}
	writeFile(t, filepath.Join(dir, "scripts/tf.star"), tf)
	if got := digest(); got != base {
		t.Errorf("restoring the script's source: digest %s, want the original %s", got, base)
	}

	writeFile(t, filepath.Join(dir, "scripts/lib.star"), lib+"# a comment\n")
	changedModule := digest()
	if changedModule == base || changedModule == changedScript {
		t.Errorf("changing a loaded module: digest %s (original %s, script changed %s)", changedModule, base, changedScript)
	}
	writeFile(t, filepath.Join(dir, "scripts/lib.star"), lib)

	// A module loaded by a module.
	writeFile(t, filepath.Join(dir, "scripts/deep/names.star"), deep+"# a comment\n")
	if got := digest(); got == base || got == changedModule || got == changedScript {
		t.Errorf("changing a module loaded by a module kept the digest or matched another")
	}
	writeFile(t, filepath.Join(dir, "scripts/deep/names.star"), deep)

	writeFile(t, path, manifest+"# a comment\n")
	if got := digest(); got == base {
		t.Errorf("changing the manifest's text kept the digest")
	}
	writeFile(t, path, manifest)
	if got := digest(); got != base {
		t.Errorf("restoring everything: digest %s, want %s", got, base)
	}
}

// Fuzzed [[script]] sections appended to a valid manifest never make
// parsing or compiling panic, and whatever loads has only valid, complete
// script declarations.
func FuzzManifestScripts(f *testing.F) {
	dir := f.TempDir()
	writeFile(f, filepath.Join(dir, "scripts/ok.star"), "load(\"./lib.star\", \"yes\")\ndef on_event(ctx, state):\n    return Match.yes() if yes(ctx) else Match.no()\n")
	writeFile(f, filepath.Join(dir, "scripts/lib.star"), "def yes(ctx):\n    return ctx.basename == \"rm\"\n")
	writeFile(f, filepath.Join(dir, "scripts/fx.star"), "def on_event(ctx, state):\n    return Effect.network()\n")
	writeFile(f, filepath.Join(dir, "scripts/audit.star"), "def on_event(ev, state):\n    return Audit.drop_field(\"env\")\n")
	const base = "version = 1\n[policy]\ndefault = \"allow\"\n\n[[rule]]\nid = \"base\"\naction = \"deny\"\nmatch = { basename = \"rm\" }\n\n"
	for _, seed := range []string{
		"[[script]]\nid = \"ok\"\nkind = \"shell_matcher\"\nsrc = \"scripts/ok.star\"\n",
		"[[script]]\nid = \"ok\"\nkind = \"shell_matcher\"\nsrc = \"scripts/ok.star\"\nfuel = 1000\ntimeout = \"50ms\"\nfailure = \"deny\"\n[[rule]]\nid = \"s\"\naction = \"ask\"\nmatch = { script = \"ok\" }\n",
		"[[script]]\nid = \"fx\"\nkind = \"shell_effect_analyzer\"\nsrc = \"scripts/fx.star\"\n[[analyzer]]\nscript = \"fx\"\nreplace = true\n",
		"[[script]]\nid = \"audit\"\nkind = \"shell_audit_filter\"\nsrc = \"scripts/audit.star\"\nlifecycle = \"runtime\"\n[audit]\nfilter = \"audit\"\n",
		"[[script]]\nid = \"rev\"\nkind = \"shell_reviewer\"\nsource = '''\ndef on_event(ctx, state):\n    return Review.defer()\n'''\nfailure = \"defer\"\n",
		"[[script]]\nid = \"b\"\nkind = \"shell_before_interceptor\"\nsource = \"def on_event(ctx, state):\\n    return Intercept.proceed()\\n\"\nfunction = \"on_event\"\n",
		"[[script]]\nid = \"a\"\nkind = \"shell_after_interceptor\"\nsource = \"def after(r, s):\\n    return Result.keep()\\n\"\nfunction = \"after\"\nmax_output = 100\n",
		"[[script]]\nid = \"x\"\nkind = \"shell_matcher\"\nsrc = \"../x.star\"\n",
		"[[script]]\nid = \"x\"\nkind = \"nope\"\nsource = \"x = 1\"\n",
		"[[script]]\nid = \"x\"\nkind = \"shell_matcher\"\nsource = \"load('./scripts/lib.star', 'yes')\\nx = yes\"\n",
		"[[script]]\nid = \"x\"\nkind = \"shell_matcher\"\nsource = \"def on_event(ctx, state):\\n    return Review.approve()\"\n",
		"[[script]]\nid = \"x\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nlifecycle = \"session\"\n",
		"[[script]]\nid = \"\"\n",
		"[[script]]\n",
		"[script]\nid = 1\n",
		"[[script]]\nid = \"x\"\nkind = \"shell_matcher\"\nsource = \"\"\"\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, section string) {
		m, err := ParseManifest(filepath.Join(dir, "agent-shell.toml"), []byte(base+section))
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("ParseManifest: %T %v, want a *ManifestError", err, err)
			}
			return
		}
		if _, err := NewEngine(nil, m); err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("NewEngine: %T %v, want a *ManifestError", err, err)
			}
			return
		}
		ids := map[string]bool{}
		for _, s := range m.Scripts {
			kind := builtins.Kind(s.Kind)
			if !kind.Valid() {
				t.Fatalf("script %q loaded with kind %q", s.ID, s.Kind)
			}
			if !validID(s.ID) || ids[s.ID] {
				t.Fatalf("script id %q loaded (invalid or duplicate)", s.ID)
			}
			ids[s.ID] = true
			if (s.Src == "") == (s.Source == "") {
				t.Fatalf("script %q loaded with src %q and source %q", s.ID, s.Src, s.Source)
			}
			if spec, _ := runtime.Spec(kind); !slices.Contains(spec.Failures, s.Failure) {
				t.Fatalf("script %q (%s) loaded with failure %q", s.ID, kind, s.Failure)
			}
			if kind == builtins.KindMatcher && s.Lifecycle != "invocation" {
				t.Fatalf("matcher %q loaded with lifecycle %q", s.ID, s.Lifecycle)
			}
			if got, ok := m.Runtime().Kind(s.ID); !ok || got != kind {
				t.Fatalf("script %q: runtime has kind %q (%v), manifest %q", s.ID, got, ok, kind)
			}
		}
		if len(m.Digest) != 64 {
			t.Fatalf("digest %q", m.Digest)
		}
	})
}

// An error points at the declaration it is about, however its table header
// is written: TOML allows a comment after the header and spaces inside the
// brackets.
func TestManifestScriptErrorLines(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		key       string
	}{
		{"comment after the header",
			"version = 1\n\n[[script]] # the terraform matcher\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfuel = -1\n\n[[script]]\nid = \"b\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n",
			3, "script[1].fuel"},
		{"spaces in the header",
			"version = 1\n\n[[ script ]]\nid = \"a\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\nfuel = -1\n",
			3, "script[1].fuel"},
		{"comment after [audit]",
			"version = 1\n[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n\n[audit] # where events go\nfilter = \"m\"\n",
			8, "audit.filter"},
		{"comment after [[analyzer]]",
			"version = 1\n[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n\n[[analyzer]] # first\nscript = \"m\"\n",
			7, "analyzer[1].script"},
		// The second declaration of each kind, after declarations of others.
		{"second rule",
			"version = 1\n[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"x = 1\"\n[[rule]]\nid = \"a\"\naction = \"deny\"\nmatch = { script = \"m\" }\n[[rule]]\nid = \"b\"\naction = \"deny\"\n\nmatch = { script = \"nope\" }\n",
			14, "rule[2].match.script"},
		{"duplicate rule id",
			"version = 1\n[[rule]]\nid = \"a\"\naction = \"deny\"\nmatch = { program = \"x\" }\n[[rule]]\nid = \"a\"\naction = \"deny\"\nmatch = { program = \"y\" }\n",
			6, "rule[2].id"},
		{"second analyzer",
			"version = 1\n[[script]]\nid = \"e\"\nkind = \"shell_effect_analyzer\"\nsource = \"x = 1\"\n[[analyzer]]\nscript = \"e\"\n[[analyzer]]\nscript = \"e\"\n",
			8, "analyzer[2].script"},
		{"second reviewer",
			"version = 1\n[[script]]\nid = \"r\"\nkind = \"shell_reviewer\"\nsource = \"x = 1\"\n[[reviewer]]\nscript = \"r\"\n[[reviewer]]\nscript = \"nope\"\n",
			8, "reviewer[2].script"},
		{"second interceptor",
			"version = 1\n[[script]]\nid = \"i\"\nkind = \"shell_before_interceptor\"\nsource = \"x = 1\"\n[[interceptor]]\nscript = \"i\"\nphase = \"before\"\nmatch = { program = \"x\" }\n[[interceptor]]\nscript = \"i\"\nphase = \"sideways\"\n",
			10, "interceptor[2].phase"},
		{"second pack",
			"version = 1\n[[pack]]\nname = \"safety\"\n[[pack]]\nname = \"safety\"\n",
			4, "pack[2].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseManifest("agent-shell.toml", []byte(tt.src))
			var me *ManifestError
			if !errors.As(err, &me) || me.Key != tt.key || me.Line != tt.line {
				t.Errorf("err %v, want it at agent-shell.toml:%d, key %s", err, tt.line, tt.key)
			}
		})
	}
}

// Load keeps compiled programs under .agent-shell/state/cache. A cache
// entry is only reused for the same source on the same surface: the same
// file declared as another kind compiles again (and fails where that kind
// lacks a name), and a damaged entry is ignored.
func TestLoadCompileCache(t *testing.T) {
	src := "def on_event(ctx, state):\n    return Match.yes(\"cached\")\n"
	matcher := "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_matcher\"\nsrc = \"a.star\"\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = { script = \"a\" }\n"
	root, path := writeRepo(t, matcher, map[string]string{"a.star": src})
	cache := filepath.Join(root, StateSubpath, "cache")
	decide := func() Decision {
		t.Helper()
		e := Load(root, noEnv)
		if e.LoadErr != nil {
			t.Fatal(e.LoadErr)
		}
		return e.Decide("ls", root)
	}
	if d := decide(); d.Action != ActionDeny || d.Extensions[0].Reason != "cached" {
		t.Fatalf("%s %+v", d.Action, d.Extensions)
	}
	entries, err := os.ReadDir(cache)
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache %s: %v %v, want one entry", cache, entries, err)
	}
	if d := decide(); d.Action != ActionDeny || d.Extensions[0].Reason != "cached" {
		t.Errorf("from the cache: %s %+v", d.Action, d.Extensions)
	}

	// The same source as an audit filter: Match is not defined there.
	writeFile(t, path, "version = 1\n[[script]]\nid = \"a\"\nkind = \"shell_audit_filter\"\nsrc = \"a.star\"\n")
	if me := loadRejected(t, root); !strings.Contains(me.Msg, "a.star:2:12: undefined: Match") {
		t.Errorf("the same source as another kind: %v", me)
	}

	// A damaged entry is compiled again and replaced.
	writeFile(t, path, matcher)
	entry := filepath.Join(cache, entries[0].Name())
	header, _, _ := strings.Cut(readFileT(t, entry), "\n")
	writeFile(t, entry, header+"\ngarbage\x00\x01")
	if d := decide(); d.Action != ActionDeny || d.Extensions[0].Reason != "cached" {
		t.Errorf("with a damaged cache entry: %s %+v", d.Action, d.Extensions)
	}
	if data := readFileT(t, entry); strings.Contains(data, "garbage") {
		t.Errorf("the damaged cache entry was not replaced")
	}
	// A changed source is not served from the old entry.
	writeFile(t, filepath.Join(filepath.Dir(path), "a.star"), strings.Replace(src, "cached", "changed", 1))
	if d := decide(); d.Extensions[0].Reason != "changed" {
		t.Errorf("after changing the source: %+v", d.Extensions)
	}
}
