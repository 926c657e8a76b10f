package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The conformance suite runs every adapter over its golden fixtures under
// testdata/<adapter>/, in both directions:
//
//   - <NativeEvent>-<n>.json is a payload as the host sends it, and
//     <NativeEvent>-<n>.want.json the Event fields it must parse to (every
//     key present is asserted: kind, native_event, tool, native_tool,
//     command, command_err, session_id, cwd, prompt, has_result,
//     meta_keys, output). A shell post-tool payload with a result must
//     assert its output: the ToolOutput the adapter reads, every field
//     (output, stderr, exit, exit_known, failed, error).
//   - render/<case>.json renders a verdict for one payload and holds the
//     exact answer: stdout (a JSON value, compared as JSON; null or absent
//     for no output), stdout_text (compared as text), stderr (text), exit.
//
// It fails when an adapter claims an event with no payload fixture, when a
// fixture asserts nothing, when a claimed pre-tool event has no render case
// for allow, deny and ask, and when an answer carries a verdict field the
// adapter's coverage says the host cannot carry (or drops one it says it
// can).

var noGetenv = func(string) string { return "" }

func TestConformance(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			ad, _ := ByName(name, noGetenv)
			conformance(t, ad)
		})
	}
}

type wantEvent struct {
	Kind        *string     `json:"kind"`
	NativeEvent *string     `json:"native_event"`
	Tool        *string     `json:"tool"`
	NativeTool  *string     `json:"native_tool"`
	Command     *string     `json:"command"`
	CommandErr  *string     `json:"command_err"`
	SessionID   *string     `json:"session_id"`
	Cwd         *string     `json:"cwd"`
	Prompt      *string     `json:"prompt"`
	HasResult   *bool       `json:"has_result"`
	MetaKeys    []string    `json:"meta_keys"`
	Output      *wantOutput `json:"output"`
}

type wantOutput struct {
	Output    string `json:"output"`
	Stderr    string `json:"stderr"`
	Exit      int    `json:"exit"`
	ExitKnown bool   `json:"exit_known"`
	Failed    bool   `json:"failed"`
	Error     string `json:"error"`
}

type renderCase struct {
	Payload string `json:"payload"`
	Verdict struct {
		Decision     Decision        `json:"decision"`
		Reason       string          `json:"reason"`
		UpdatedInput json.RawMessage `json:"updated_input"`
		Context      string          `json:"context"`
		SoleGate     bool            `json:"sole_gate"`
	} `json:"verdict"`
	Stdout     json.RawMessage `json:"stdout"`
	StdoutText *string         `json:"stdout_text"`
	Stderr     string          `json:"stderr"`
	Exit       int             `json:"exit"`
}

func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func conformance(t *testing.T, ad Adapter) {
	dir := filepath.Join("testdata", ad.Name())
	payloads, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	parsed := map[string]*Event{} // payload file name -> event
	covered := map[string]bool{}  // native events with a payload fixture
	for _, p := range payloads {
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".want.json") || strings.HasPrefix(base, "config") {
			continue
		}
		wantPath := strings.TrimSuffix(p, ".json") + ".want.json"
		if _, err := os.Stat(wantPath); err != nil {
			t.Errorf("%s has no %s", p, filepath.Base(wantPath))
			continue
		}
		var want wantEvent
		decodeStrict(t, wantPath, &want)
		data, _ := os.ReadFile(p)
		e, err := ad.Parse(data, nativeEventOf(base))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		parsed[base] = e
		covered[e.NativeEvent] = true
		if n := checkEvent(t, p, e, want); n == 0 {
			t.Errorf("%s asserts nothing", wantPath)
		}
	}
	for _, ev := range ad.Events() {
		if !covered[ev] {
			t.Errorf("%s claims %s but no payload fixture parses to it", ad.Name(), ev)
		}
	}

	cases, _ := filepath.Glob(filepath.Join(dir, "render", "*.json"))
	decisions := map[string]map[Decision]bool{} // pre-tool native event -> decisions rendered
	for _, c := range cases {
		var rc renderCase
		decodeStrict(t, c, &rc)
		e := parsed[rc.Payload]
		if e == nil {
			t.Errorf("%s: payload %q is not a parsed fixture", c, rc.Payload)
			continue
		}
		v := Verdict{Decision: rc.Verdict.Decision, Reason: rc.Verdict.Reason, UpdatedInput: rc.Verdict.UpdatedInput,
			Context: rc.Verdict.Context, SoleGate: rc.Verdict.SoleGate}
		got := ad.Render(e, v)
		checkResponse(t, c, got, rc)
		checkCoverage(t, c, ad.Coverage(e.Kind), v, got)
		if e.Kind == KindPreTool {
			if decisions[e.NativeEvent] == nil {
				decisions[e.NativeEvent] = map[Decision]bool{}
			}
			decisions[e.NativeEvent][v.Decision] = true
		}
	}
	for base, e := range parsed {
		if e.Kind != KindPreTool {
			continue
		}
		for _, d := range []Decision{Allow, Deny, Ask} {
			if !decisions[e.NativeEvent][d] {
				t.Errorf("%s: no render case renders %s for %s (%s)", ad.Name(), d, e.NativeEvent, base)
			}
		}
		// An internal error is the host's own deny.
		err := errors.New("internal error: something broke")
		if f, d := ad.Failure(e, err), ad.Render(e, Verdict{Decision: Deny, Reason: err.Error()}); !sameResponse(f, d) {
			t.Errorf("%s: Failure renders %+v, a deny renders %+v", base, f, d)
		}
	}
}

// nativeEventOf is the event name a fixture's file name starts with, for
// hosts whose payloads do not name their event.
func nativeEventOf(base string) string {
	name := strings.TrimSuffix(base, ".json")
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[:i]
	}
	return name
}

func checkEvent(t *testing.T, path string, e *Event, w wantEvent) int {
	t.Helper()
	n := 0
	str := func(field string, got string, want *string) {
		if want == nil {
			return
		}
		n++
		if got != *want {
			t.Errorf("%s: %s = %q, want %q", path, field, got, *want)
		}
	}
	str("kind", string(e.Kind), w.Kind)
	str("native_event", e.NativeEvent, w.NativeEvent)
	str("tool", e.Tool, w.Tool)
	str("native_tool", e.NativeTool, w.NativeTool)
	str("command", e.Command, w.Command)
	cerr := ""
	if e.CommandErr != nil {
		cerr = e.CommandErr.Error()
	}
	str("command_err", cerr, w.CommandErr)
	str("session_id", e.SessionID, w.SessionID)
	str("cwd", e.Cwd, w.Cwd)
	str("prompt", e.Prompt, w.Prompt)
	if w.HasResult != nil {
		n++
		if (e.Result != nil) != *w.HasResult {
			t.Errorf("%s: result %s, want present=%v", path, e.Result, *w.HasResult)
		}
	}
	switch {
	case w.Output != nil:
		n++
		got := wantOutput{}
		if e.Output != nil {
			o := e.Output
			got = wantOutput{Output: o.Output, Stderr: o.Stderr, Exit: o.Exit, ExitKnown: o.ExitKnown, Failed: o.Failed, Error: o.Error}
		}
		if e.Output == nil || got != *w.Output {
			t.Errorf("%s: output %+v (present %v), want %+v", path, got, e.Output != nil, *w.Output)
		}
	case e.Output != nil:
		t.Errorf("%s: a shell post-tool result whose output the fixture does not assert", path)
	}
	if w.MetaKeys != nil {
		n++
		var keys []string
		for k := range e.Meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := append([]string{}, w.MetaKeys...)
		sort.Strings(want)
		if strings.Join(keys, ",") != strings.Join(want, ",") {
			t.Errorf("%s: meta keys %v, want %v", path, keys, want)
		}
	}
	return n
}

func checkResponse(t *testing.T, path string, got Response, rc renderCase) {
	t.Helper()
	switch {
	case rc.StdoutText != nil:
		if string(got.Stdout) != *rc.StdoutText {
			t.Errorf("%s: stdout %q, want %q", path, got.Stdout, *rc.StdoutText)
		}
	case len(rc.Stdout) == 0 || string(rc.Stdout) == "null":
		if len(bytes.TrimSpace(got.Stdout)) != 0 {
			t.Errorf("%s: stdout %q, want none", path, got.Stdout)
		}
	default:
		var g, w any
		if err := json.Unmarshal(got.Stdout, &g); err != nil {
			t.Errorf("%s: stdout %q is not JSON: %v", path, got.Stdout, err)
			return
		}
		_ = json.Unmarshal(rc.Stdout, &w)
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: stdout %s, want %s", path, gj, wj)
		}
	}
	if string(got.Stderr) != rc.Stderr {
		t.Errorf("%s: stderr %q, want %q", path, got.Stderr, rc.Stderr)
	}
	if got.Exit != rc.Exit {
		t.Errorf("%s: exit %d, want %d", path, got.Exit, rc.Exit)
	}
}

// checkCoverage holds an answer to the adapter's coverage: a rewrite or a
// context the host cannot carry must not appear in the answer (a rewrite
// becomes a deny naming it instead), and one it can carry must.
func checkCoverage(t *testing.T, path string, cov Coverage, v Verdict, got Response) {
	t.Helper()
	out := string(got.Stdout) + string(got.Stderr)
	if v.Context != "" {
		if cov.Context != strings.Contains(out, v.Context) {
			t.Errorf("%s: context in the answer is %v, coverage says %v", path, !cov.Context, cov.Context)
		}
	}
	if len(v.UpdatedInput) > 0 && v.Decision == Allow {
		var in map[string]any
		_ = json.Unmarshal(v.UpdatedInput, &in)
		cmd, _ := in["command"].(string)
		if cmd == "" {
			t.Errorf("%s: a rewrite case needs updated_input with a command", path)
			return
		}
		carried := strings.Contains(out, cmd)
		if !carried {
			t.Errorf("%s: the rewrite %q is neither applied nor named in the answer", path, cmd)
		}
		if !cov.UpdatedInput && !strings.Contains(strings.ToLower(out), "deny") && got.Exit == 0 {
			t.Errorf("%s: a rewrite the host cannot apply must become a deny: %s", path, out)
		}
	}
}

func sameResponse(a, b Response) bool {
	return bytes.Equal(a.Stdout, b.Stdout) && bytes.Equal(a.Stderr, b.Stderr) && a.Exit == b.Exit
}

// FuzzParse runs every adapter's Parse: it never panics, and a parsed
// pre-tool event renders a deny that its host reads as a deny.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		files, _ := filepath.Glob(filepath.Join("testdata", name, "*.json"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(name, data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		ad, ok := ByName(name, noGetenv)
		if !ok {
			return
		}
		for _, native := range append([]string{""}, ad.Events()...) {
			e, err := ad.Parse(payload, native)
			if err != nil {
				continue
			}
			r := ad.Render(e, Verdict{Decision: Deny, Reason: "fuzz"})
			if e.Kind == KindPreTool && len(r.Stdout) == 0 && r.Exit == 0 {
				t.Fatalf("%s %s: a deny renders as nothing", name, native)
			}
		}
	})
}
