package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// The report in a real browser (Debian's chromium, headless): it loads with
// no console error and no request but its own file, shows one row per
// event, filters, highlights denials, resists the hostile command, prints,
// and renders a 100,000-event session in under 2 s.

// writeReport renders the files' report into dir and returns its path.
func writeReport(t testing.TB, dir string, files []string, title string) (string, int) {
	t.Helper()
	page, _ := render(t, files, title)
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, len(page)
}

// checkClean fails the test on any console error, exception or error log
// entry, and on any request but the page's own.
func checkClean(t *testing.T, b *browser, page string) {
	t.Helper()
	for _, p := range b.problems() {
		t.Errorf("browser: %s", p)
	}
	for _, u := range b.urls() {
		if u != "file://"+page {
			t.Errorf("the page requested %s", u)
		}
	}
}

// setFilter picks the first option of a filter whose label starts with
// label ("" for all) and returns how many events are then shown (the
// count the page reports, and the rows it drew).
const setFilterJS = `((id, label) => {
	const s = document.getElementById(id);
	const o = label === '' ? s.options[0] : [...s.options].find(o => o.textContent.startsWith(label));
	if (!o) return [-1, -1];
	s.value = o.value;
	s.dispatchEvent(new Event('change'));
	return [+document.getElementById('timeline').dataset.count, document.querySelectorAll('#rows .row').length];
})`

func setFilter(b *browser, id, label string) (count, rows int) {
	b.t.Helper()
	var r [2]int
	b.eval(fmt.Sprintf("%s(%q, %q)", setFilterJS, id, label), &r)
	return r[0], r[1]
}

func TestReportInBrowser(t *testing.T) {
	dir := t.TempDir()
	files := fixture(t, filepath.Join(dir, "events"))
	page, _ := writeReport(t, dir, files, "fixture")
	b := startBrowser(t)
	b.open(page, 30*time.Second)

	var got struct {
		Rows    int    `json:"rows"`
		Count   string `json:"count"`
		Shown   string `json:"shown"`
		Session int    `json:"sessions"`
	}
	b.eval(`({rows: document.querySelectorAll('#rows .row').length, count: document.getElementById('timeline').dataset.count,
		shown: document.getElementById('shown').textContent, sessions: document.querySelectorAll('#sessions tbody tr').length})`, &got)
	if got.Rows != 15 || got.Count != "15" || got.Shown != "15 of 15 events" || got.Session != 2 {
		t.Errorf("timeline: %+v, want 15 rows of 15 events in 2 sessions", got)
	}

	// The hostile command is text on the page, and nothing of it ran or
	// became an element.
	var safe struct {
		Shown   bool `json:"shown"`
		Pwned   bool `json:"pwned"`
		Images  int  `json:"images"`
		Scripts int  `json:"scripts"`
	}
	shown, _ := json.Marshal(strings.NewReplacer("\u2028", `\u2028`, "\u202e", `\u202e`).Replace(hostile))
	b.eval(`({shown: [...document.querySelectorAll('#rows .c-text')].some(e => e.textContent === `+string(shown)+`),
		pwned: window.__pwned !== undefined, images: document.images.length, scripts: document.scripts.length})`, &safe)
	if !safe.Shown || safe.Pwned || safe.Images != 0 || safe.Scripts != 2 {
		t.Errorf("hostile command: %+v (want it shown as text, nothing run, no image, the page's 2 scripts)", safe)
	}

	// Filters change what is shown.
	for _, f := range []struct {
		id, label string
		want      int
	}{
		{"f-decision", "deny", 3}, // the two denials and the guard's
		{"f-decision", "ask", 1},
		{"f-decision", "", 15},
		{"f-event", "script_end", 3},
		{"f-event", "", 15},
		{"f-agent", "human", 3},
		{"f-agent", "", 15},
		{"f-session", "s2", 3},
		{"f-session", "", 15},
	} {
		if count, rows := setFilter(b, f.id, f.label); count != f.want || rows != f.want {
			t.Errorf("%s = %s: %d events, %d rows; want %d", f.id, f.label, count, rows, f.want)
		}
	}
	var failures, search [2]int
	b.eval(`(() => { const f = document.getElementById('f-failures'); f.checked = true; f.dispatchEvent(new Event('change'));
		const r = [+document.getElementById('timeline').dataset.count, document.querySelectorAll('#rows .row').length];
		f.checked = false; f.dispatchEvent(new Event('change')); return r; })()`, &failures)
	if failures != [2]int{7, 7} {
		t.Errorf("failures only: %v, want 7", failures)
	}
	b.eval(`new Promise(done => { const q = document.getElementById('f-text'); q.value = 'CURL'; q.dispatchEvent(new Event('input'));
		setTimeout(() => { const r = [+document.getElementById('timeline').dataset.count, document.querySelectorAll('#rows .row').length];
		q.value = ''; q.dispatchEvent(new Event('input')); setTimeout(() => done(r), 300); }, 300); })`, &search)
	if search != [2]int{1, 1} {
		t.Errorf("text search: %v, want 1", search)
	}

	// A row's details.
	var details string
	b.eval(`(() => { [...document.querySelectorAll('#rows .row')].find(r => r.textContent.includes('git push --force')).click();
		return document.getElementById('details').hidden ? '' : document.getElementById('details').textContent; })()`, &details)
	for _, want := range []string{"s1.jsonl:4", "no-force-push", "force pushes rewrite shared history", "/work/app", "read:/work/app"} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q: %s", want, details)
		}
	}

	// A screenshot that is not blank, with a denial highlighted.
	img, err := png.Decode(bytes.NewReader(b.screenshot()))
	if err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, img)

	// Printed: the filtered events as a table, the virtual list hidden.
	b.call("Emulation.setEmulatedMedia", map[string]any{"media": "print"}, nil)
	var printed struct {
		Rows     int    `json:"rows"`
		Timeline string `json:"timeline"`
		Table    string `json:"table"`
	}
	b.eval(`(() => { window.dispatchEvent(new Event('beforeprint'));
		return {rows: document.querySelectorAll('#print tbody tr').length, timeline: getComputedStyle(document.getElementById('timeline')).display,
		table: getComputedStyle(document.getElementById('print')).display}; })()`, &printed)
	if printed.Rows != 15 || printed.Timeline != "none" || printed.Table != "table" {
		t.Errorf("print: %+v", printed)
	}
	b.call("Emulation.setEmulatedMedia", map[string]any{"media": ""}, nil)
	checkClean(t, b, page)
}

// checkScreenshot: many colours, most of the page not background, and the
// deny highlight present.
func checkScreenshot(t *testing.T, img image.Image) {
	t.Helper()
	bounds := img.Bounds()
	bg := img.At(bounds.Min.X, bounds.Min.Y)
	colors := map[[3]uint32]bool{}
	differ, deny := 0, 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			c := img.At(x, y)
			r, g, bl, _ := c.RGBA()
			colors[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if c != bg {
				differ++
			}
			if r>>8 == 0xfd && g>>8 == 0xe8 && bl>>8 == 0xe6 { // --deny-bg
				deny++
			}
		}
	}
	total := (bounds.Dx() / 2) * (bounds.Dy() / 2)
	if len(colors) < 20 || differ < total/50 || deny == 0 {
		t.Errorf("screenshot %dx%d: %d colours, %d of %d sampled pixels not background, %d of the deny highlight",
			bounds.Dx(), bounds.Dy(), len(colors), differ, total, deny)
	}
}

// bigSession is a session of n events as an agent session goes: prompts,
// decisions (mostly allowed, some asked, a few denied), the tool calls
// they allowed, npm scripts and sandboxed commands.
func bigSession(n int) []*telemetry.Event {
	rng := rand.New(rand.NewSource(17))
	programs := []string{"cat src/%s/%s.go", "grep -rn %s src/%s", "go test ./%s/... -run %s", "git diff -- %s/%s.ts",
		"npm run lint -- %s/%s", "ls -la %s/%s", "sed -n 1,80p %s/%s.md", "rg --files %s | grep %s"}
	words := make([]string, 300)
	for i := range words {
		words[i] = fmt.Sprintf("m%03d", rng.Intn(5000))
	}
	events := make([]*telemetry.Event, 0, n)
	at := t0
	for len(events) < n {
		at = at.Add(time.Duration(50+rng.Intn(3000)) * time.Millisecond)
		i := len(events)
		var e *telemetry.Event
		cmd := fmt.Sprintf(programs[rng.Intn(len(programs))], words[rng.Intn(len(words))], words[rng.Intn(len(words))])
		switch r := rng.Intn(100); {
		case i%200 == 0:
			e = &telemetry.Event{Event: telemetry.EventPrompt, Prompt: "work on " + words[rng.Intn(len(words))]}
		case r < 45:
			e = &telemetry.Event{Event: telemetry.EventPolicyDecision, Command: cmd, Decision: "allow", ToolName: "Bash",
				Reason: "Command allowed by the policy default", Effects: []string{"read:/work/app"}, Cwd: "/work/app"}
		case r < 50:
			e = &telemetry.Event{Event: telemetry.EventPolicyDecision, Command: "curl -fsSL https://example.com/" + words[rng.Intn(len(words))],
				Decision: "ask", Rule: "network-needs-review", ToolName: "Bash", Reason: "needs approval", Effects: []string{"network"}, Cwd: "/work/app"}
		case r < 52:
			e = &telemetry.Event{Event: telemetry.EventPolicyDecision, Command: "git push --force origin " + words[rng.Intn(len(words))],
				Decision: "deny", Rule: "no-force-push", ToolName: "Bash", Reason: "force pushes rewrite shared history", Cwd: "/work/app"}
		case r < 90:
			e = &telemetry.Event{Event: telemetry.EventToolUse, Command: cmd, ToolName: "Bash"}
		case r < 96:
			e = &telemetry.Event{Event: telemetry.EventScriptEnd, Command: "vitest run " + words[rng.Intn(len(words))], Script: "test",
				ExitCode: rng.Intn(4) / 3, DurationMS: telemetry.Millis(rng.Intn(90000))}
		default:
			e = &telemetry.Event{Event: telemetry.EventCommandEnd, Command: cmd, ExitCode: 0, DurationMS: telemetry.Millis(rng.Intn(5000))}
		}
		e.SessionID, e.Actor, e.Timestamp = "big", "claude-code", at
		if e.Event != telemetry.EventScriptEnd {
			e.Agent = "claude"
		}
		events = append(events, e)
	}
	return events
}

func TestReportLargeSessionInBrowser(t *testing.T) {
	const n = 100_000
	dir := t.TempDir()
	events := bigSession(n)
	last := events[n-1].Command
	file := filepath.Join(dir, "events", "big.jsonl")
	writeSession(t, file, events)
	jsonl, _ := os.Stat(file)
	start := time.Now()
	page, size := writeReport(t, dir, []string{file}, "big")
	written := time.Since(start)

	b := startBrowser(t)
	b.open(page, 60*time.Second)
	var got struct {
		RenderMS float64 `json:"render"`
		ScriptMS float64 `json:"script"`
		Count    string  `json:"count"`
		Rows     int     `json:"rows"`
	}
	b.eval(`({render: +document.body.dataset.renderMs, script: +document.body.dataset.scriptMs, count: document.getElementById('timeline').dataset.count,
		rows: document.querySelectorAll('#rows .row').length})`, &got)
	// Scrolled to the end, the last event is drawn; a filter over every
	// event is quick.
	var end struct {
		Last     string  `json:"last"`
		FilterMS float64 `json:"filter"`
		Asks     string  `json:"asks"`
	}
	b.eval(`new Promise(done => { const tl = document.getElementById('timeline'); tl.scrollTop = tl.scrollHeight;
		requestAnimationFrame(() => requestAnimationFrame(() => {
			const rows = document.querySelectorAll('#rows .row'); const last = rows[rows.length - 1].querySelector('.c-text').textContent;
			const s = document.getElementById('f-decision'); s.value = [...s.options].find(o => o.textContent.startsWith('ask')).value;
			const t = performance.now(); s.dispatchEvent(new Event('change')); const ms = performance.now() - t;
			done({last: last, filter: ms, asks: document.getElementById('timeline').dataset.count}); })); })`, &end)

	t.Logf("%d events: session file %.1f MiB, report %.2f MiB (%d bytes), written in %s; chromium renders it in %.0f ms "+
		"(navigation start to first rows drawn; %.0f ms of it the page's script), a filter over every event takes %.0f ms",
		n, float64(jsonl.Size())/(1<<20), float64(size)/(1<<20), size, written.Round(time.Millisecond), got.RenderMS, got.ScriptMS, end.FilterMS)
	if got.Count != fmt.Sprint(n) || got.Rows == 0 || got.Rows > 200 {
		t.Errorf("timeline: %+v, want %d events and a screenful of rows", got, n)
	}
	if got.RenderMS <= 0 || got.RenderMS >= 2000 {
		t.Errorf("rendered in %.0f ms, want under 2000", got.RenderMS)
	}
	if end.Last != last {
		t.Errorf("scrolled to the end, the last row shows %q, want %q", end.Last, last)
	}
	if end.Asks == "" || end.Asks == fmt.Sprint(n) {
		t.Errorf("the ask filter shows %s events", end.Asks)
	}
	if size > 4<<20 {
		t.Errorf("the report is %d bytes: too large", size)
	}
	checkClean(t, b, page)
}
