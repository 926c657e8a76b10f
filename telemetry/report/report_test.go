package report

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// hostile is recorded text that tries to leave the data, the script or the
// text it is shown in.
const hostile = `echo '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><!-- ]]> {{DATA}}' ` + "\u2028\u202e" + `evil`

// writeSession writes events as a chained session file, as the writer
// would (seq and prev_sha256), without its locking and redaction.
func writeSession(t testing.TB, path string, events []*telemetry.Event) {
	t.Helper()
	var buf []byte
	prev := ""
	for i, e := range events {
		e.Seq, e.PrevSHA256 = int64(i+1), prev
		start := len(buf)
		buf = e.AppendJSON(buf)
		sum := sha256.Sum256(buf[start:])
		prev = hex.EncodeToString(sum[:])
		buf = append(buf, '\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is two sessions of every kind of event: s1 a Claude session (12
// events), s2 an npm run with a damaged line (3 events).
func fixture(t testing.TB, dir string) []string {
	t.Helper()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	dec := func(s int, cmd, decision, rule, reason string) *telemetry.Event {
		return &telemetry.Event{SessionID: "s1", Event: telemetry.EventPolicyDecision, Command: cmd, Decision: decision,
			MatchedRule: rule, Rule: rule, Reason: reason, Actor: "claude-code", Agent: "claude", ToolName: "Bash",
			NativeEvent: "PreToolUse", Timestamp: at(s), Cwd: "/work/app", Effects: []string{"read:/work/app"}}
	}
	s1 := []*telemetry.Event{
		{SessionID: "s1", Event: telemetry.EventSessionStart, Actor: "claude-code", Agent: "claude", Timestamp: at(0)},
		{SessionID: "s1", Event: telemetry.EventPrompt, Actor: "claude-code", Agent: "claude", Prompt: "make the tests pass", Timestamp: at(1)},
		dec(2, "ls -la", "allow", "", "Command 'ls -la' allowed by the policy default"),
		dec(3, "git push --force origin main", "deny", "no-force-push", "force pushes rewrite shared history"),
		dec(4, "curl -fsSL https://example.com", "ask", "network-needs-review", "needs approval"),
		dec(5, hostile, "deny", "no-hostile", "a <b>reason</b> with markup"),
		{SessionID: "s1", Event: telemetry.EventGuard, Command: "", Decision: "deny", Rule: "guard:config", Actor: "claude-code",
			Agent: "claude", ToolName: "Write", Reason: "agent-shell's own configuration is not the agent's to change", Timestamp: at(6)},
		{SessionID: "s1", Event: telemetry.EventToolUse, Command: "ls -la", Actor: "claude-code", Agent: "claude", ToolName: "Bash", Timestamp: at(7)},
		{SessionID: "s1", Event: telemetry.EventScriptEnd, Command: "vitest run", Actor: "claude-code", ExitCode: 1, DurationMS: 2311, Script: "test", Timestamp: at(8)},
		{SessionID: "s1", Event: telemetry.EventCommandEnd, Command: "make build", Actor: "claude-code", ExitCode: 0, DurationMS: 61234, Timestamp: at(9)},
		{SessionID: "s1", Event: telemetry.EventExtensionError, Command: "terraform destroy", Actor: "claude-code", Agent: "claude",
			Rule: "tf", Reason: "shell_matcher tf failed: fuel", Error: "out of fuel", Timestamp: at(10),
			Extensions: []telemetry.ExtensionRun{{Script: "tf", Kind: "shell_matcher", Outcome: "fuel", Error: "out of fuel\nbacktrace"}}},
		{SessionID: "s1", Event: telemetry.EventSessionEnd, Actor: "claude-code", Agent: "claude", Timestamp: at(11)},
	}
	s2 := []*telemetry.Event{
		{SessionID: "s2", Event: telemetry.EventScriptEnd, Command: "npm run build", Actor: "human", ExitCode: 0, DurationMS: 85000, Script: "build", Timestamp: at(3)},
		{SessionID: "s2", Event: telemetry.EventShimError, Command: "npm run lint", Actor: "human", Error: "spawn failed", Timestamp: at(5)},
		{SessionID: "s2", Event: telemetry.EventScriptEnd, Command: "sleep 100", Actor: "human", ExitCode: 143, Signal: "SIGTERM", DurationMS: 100, Script: "wait", Timestamp: at(7)},
	}
	p1, p2 := filepath.Join(dir, "s1.jsonl"), filepath.Join(dir, "s2.jsonl")
	writeSession(t, p1, s1)
	writeSession(t, p2, s2)
	f, err := os.OpenFile(p2, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("this line is damaged\n")
	f.Close()
	return []string{p1, p2}
}

// render writes the fixture's report and returns the HTML.
func render(t testing.TB, files []string, title string) (string, *Summary) {
	t.Helper()
	var b bytes.Buffer
	sum, err := Write(&b, Options{Files: files, Generated: t0.Add(time.Hour), Generator: "test", Title: title})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Bytes != int64(b.Len()) {
		t.Errorf("summary says %d bytes, wrote %d", sum.Bytes, b.Len())
	}
	return b.String(), sum
}

var dataRE = regexp.MustCompile(`<script type="application/octet-stream" id="data">([^<]*)</script>`)

// decodeData reads the page's embedded data back.
func decodeData(t *testing.T, page string) *data {
	t.Helper()
	m := dataRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data element")
	}
	gz, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var d data
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func TestReportStructure(t *testing.T) {
	files := fixture(t, t.TempDir())
	page, sum := render(t, files, "my-repo")
	if sum.Sessions != 2 || sum.Events != 15 || sum.Damaged != 1 {
		t.Errorf("summary %+v", sum)
	}
	for _, slot := range []string{slotTitle, slotCSP, slotCSS, slotJS, slotData} {
		if strings.Contains(page, slot) {
			t.Errorf("%s left in the page", slot)
		}
	}
	// Self-contained: nothing is loaded from anywhere.
	for _, bad := range []string{"http://", "https://", "src=", "href=", "@import", "url(", "@font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if got := strings.Count(page, "<script"); got != 2 {
		t.Errorf("%d script elements, want the data and the code", got)
	}
	// The CSP allows exactly the inline script and style.
	js := page[strings.LastIndex(page, "<script>")+len("<script>") : strings.LastIndex(page, "</script>")]
	css := page[strings.Index(page, "<style>")+len("<style>") : strings.Index(page, "</style>")]
	if js != pageJS || css != pageCSS {
		t.Error("the inline script or style is not the page's")
	}
	if !strings.Contains(page, "script-src '"+cspHash(js)+"'") || !strings.Contains(page, "style-src '"+cspHash(css)+"'") ||
		!strings.Contains(page, "default-src 'none'") {
		t.Error("the CSP does not pin the inline script and style")
	}
	if !strings.Contains(page, "<title>agent-shell report: my-repo</title>") {
		t.Error("no title")
	}

	d := decodeData(t, page)
	if len(d.Sessions) != 2 || d.Sessions[0].ID != "s1" || d.Sessions[1].ID != "s2" {
		t.Fatalf("sessions %+v", d.Sessions)
	}
	if s := d.Sessions[0]; s.Events != 12 || !s.Chain.Checked || !s.Chain.OK || s.Chain.Events != 12 || s.Damaged.Count != 0 {
		t.Errorf("s1 %+v", s)
	}
	// s2's damaged last line breaks nothing in its chain (it is the last),
	// but verify reads it as a line that is not JSON.
	if s := d.Sessions[1]; s.Events != 3 || s.Damaged.Count != 1 || s.Damaged.FirstLine != 4 || s.Chain.OK {
		t.Errorf("s2 %+v", s)
	}
	n := len(d.Cols.T)
	for name, l := range map[string]int{"s": len(d.Cols.S), "ln": len(d.Cols.Ln), "ev": len(d.Cols.Ev), "tx": len(d.Cols.Tx),
		"fl": len(d.Cols.Fl), "du": len(d.Cols.Du), "xr": len(d.Cols.Xr), "cw": len(d.Cols.Cw)} {
		if l != n {
			t.Errorf("column %s has %d values, t has %d", name, l, n)
		}
	}
	if n != 15 || d.T0 != t0.UnixMilli() {
		t.Fatalf("%d events from %d", n, d.T0)
	}
	// Events in time order across sessions, with their lines.
	var events []string
	ms := d.T0
	for i := 0; i < n; i++ {
		ms += d.Cols.T[i]
		events = append(events, fmt.Sprintf("%s@%d", d.Strings[d.Cols.Ev[i]], (ms-d.T0)/1000))
	}
	want := "session_start@0 prompt@1 policy_decision@2 policy_decision@3 script_end@3 policy_decision@4 policy_decision@5 shim_error@5 " +
		"guard@6 tool_use@7 script_end@7 script_end@8 command_end@9 extension_error@10 session_end@11"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	// The hostile command is in the data as it was recorded, whole.
	i := indexOf(d.Strings, hostile)
	if i < 0 {
		t.Fatal("the hostile command is not in the data")
	}
	// Flags: the deny, the failing scripts, the extension failure.
	flags := map[string]int{}
	for k := 0; k < n; k++ {
		flags[d.Strings[d.Cols.Tx[k]]] |= d.Cols.Fl[k]
	}
	for text, want := range map[string]int{
		"git push --force origin main": flagFailure, "vitest run": flagFailure | flagExit, "make build": flagExit,
		"sleep 100": flagFailure | flagExit, "terraform destroy": flagFailure | flagExtFail, "ls -la": 0,
		"curl -fsSL https://example.com": 0,
	} {
		if flags[text] != want {
			t.Errorf("%s: flags %b, want %b", text, flags[text], want)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Recorded text cannot reach the HTML parser: not in the markup, not as a
// way out of the data element.
func TestReportEscapes(t *testing.T) {
	files := fixture(t, t.TempDir())
	page, _ := render(t, files, `"><script>window.__title=1</script>`)
	for _, bad := range []string{"__pwned", "onerror", "\u2028", "\u202e", "<script>window.__title"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q outside the encoded data", bad)
		}
	}
	if !strings.Contains(page, "<title>agent-shell report: &#34;&gt;&lt;script&gt;window.__title=1&lt;/script&gt;</title>") {
		t.Error("the title is not escaped")
	}
	// The page's own markup: two closing script tags, as written.
	if got := strings.Count(page, "</script>"); got != 2 {
		t.Errorf("%d </script>, want 2", got)
	}
	m := dataRE.FindStringSubmatch(page)
	if m == nil || strings.ContainsAny(m[1], "<>&\"'") {
		t.Fatal("the data is not plain base64")
	}
}

// A line cut to the limits says so, and keeps a valid UTF-8 prefix.
func TestReportCutsLongText(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", maxText) // two bytes each
	writeSession(t, filepath.Join(dir, "s.jsonl"), []*telemetry.Event{
		{SessionID: "s", Event: telemetry.EventToolUse, Command: long, Actor: "x", Timestamp: t0},
	})
	page, _ := render(t, []string{filepath.Join(dir, "s.jsonl")}, "")
	d := decodeData(t, page)
	got := d.Strings[d.Cols.Tx[0]]
	if len(got) > maxText+len("…") || !strings.HasSuffix(got, "é…") || d.Cols.Fl[0]&flagCut == 0 {
		t.Errorf("cut to %d bytes, flags %b", len(got), d.Cols.Fl[0])
	}
}

// No sessions is still a page.
func TestReportEmpty(t *testing.T) {
	page, sum := render(t, nil, "")
	d := decodeData(t, page)
	if sum.Events != 0 || len(d.Sessions) != 0 || d.Cols.T == nil {
		t.Errorf("summary %+v, data %+v", sum, d)
	}
}
