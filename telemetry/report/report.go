// Package report renders recorded sessions as one self-contained HTML file:
// a timeline per session, with filters, that works opened from disk with no
// network, and stays small and fast for sessions of 100,000 events.
//
// The page is static HTML, CSS and JavaScript (page.html, page.css,
// page.js, inlined); the events go in as one JSON document, gzipped and
// base64-encoded into a non-executable script element, which the page
// decompresses (DecompressionStream) and renders a screenful at a time. The
// event text is attacker-controlled (a command, a prompt): it never meets
// the HTML parser, since base64 has no markup characters, and the page puts
// it in the document as text nodes only. A Content-Security-Policy allows
// nothing but the page's own inline script and style, by hash.
package report

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// Limits on the text kept per event: the page shows a timeline, not the
// full record (agent-shell log --json has it).
const (
	maxText   = 2000 // a command or a prompt, in bytes
	maxReason = 1000 // a reason or an error
)

// Options says what goes in a report.
type Options struct {
	Files []string  // the session files
	Since time.Time // when set, only events at or after it
	// Generated and Generator are shown in the page's header.
	Generated time.Time
	Generator string
	// Title names the report (the repository, say).
	Title string
}

// Summary is what Write put in the report.
type Summary struct {
	Sessions int
	Events   int
	Damaged  int   // damaged lines, counted in the report too
	Bytes    int64 // the size of the HTML written
}

// Write renders the report of the files' events to w.
func Write(w io.Writer, o Options) (*Summary, error) {
	d, err := collect(o)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode the report's data: %w", err)
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := writePage(bw, o.Title, raw); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("write the report: %w", err)
	}
	s := &Summary{Sessions: len(d.Sessions), Events: len(d.Cols.T), Bytes: cw.n}
	for _, ss := range d.Sessions {
		s.Damaged += ss.Damaged.Count
	}
	return s, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// The page's placeholders.
const (
	slotTitle = "{{TITLE}}"
	slotCSP   = "{{CSP}}"
	slotCSS   = "{{CSS}}"
	slotJS    = "{{JS}}"
	slotData  = "{{DATA}}"
)

// writePage fills page.html: the title (escaped), the CSP, the inline
// style and script, and the data, gzipped and in base64.
func writePage(w *bufio.Writer, title string, data []byte) error {
	csp := fmt.Sprintf("default-src 'none'; script-src '%s'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'",
		cspHash(pageJS), cspHash(pageCSS))
	before, after, ok := strings.Cut(pageHTML, slotData)
	if !ok {
		return fmt.Errorf("page.html has no %s", slotData)
	}
	fill := strings.NewReplacer(slotTitle, escapeText(title), slotCSP, csp, slotCSS, pageCSS, slotJS, pageJS)
	if _, err := fill.WriteString(w, before); err != nil {
		return err
	}
	b64 := base64.NewEncoder(base64.StdEncoding, w)
	// Level 5: within 6% of the best compression, at a tenth of its time
	// (100,000 events: 1.2 MB in half a second, against 1.1 MB in seven).
	gz, err := gzip.NewWriterLevel(b64, 5)
	if err != nil {
		return err
	}
	if _, err := gz.Write(data); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	if err := b64.Close(); err != nil {
		return err
	}
	_, err = fill.WriteString(w, after)
	return err
}

// cspHash is the CSP source of an inline element's text.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// escapeText escapes text for an HTML element's content or a quoted
// attribute.
func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// data is the JSON document the page reads. Strings are interned in
// Strings (index 0 is ""), and events are stored by column, each value a
// small number, so that a large session stays small.
type data struct {
	V         int       `json:"v"`
	Title     string    `json:"title"`
	Generated string    `json:"generated"`
	Generator string    `json:"generator"`
	Since     string    `json:"since,omitempty"`
	T0        int64     `json:"t0"` // the first event's time, in Unix milliseconds
	Strings   []string  `json:"strings"`
	Sessions  []session `json:"sessions"`
	Cols      columns   `json:"cols"`
	// Truncated says how text was cut: the limits, in bytes.
	MaxText   int `json:"max_text"`
	MaxReason int `json:"max_reason"`

	index map[string]int
}

type session struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Events int    `json:"events"`
	Chain  chain  `json:"chain"`
	// Damaged are the file's damaged lines: not in the timeline, counted
	// here.
	Damaged damage `json:"damaged"`
}

type chain struct {
	OK      bool   `json:"ok"`
	Checked bool   `json:"checked"` // false when the file could not be read to check it
	Events  int    `json:"events"`
	Line    int    `json:"line,omitempty"`
	Problem string `json:"problem,omitempty"`
	Repairs int    `json:"repairs,omitempty"`
}

type damage struct {
	Count     int    `json:"count"`
	FirstLine int    `json:"first_line,omitempty"`
	FirstErr  string `json:"first_error,omitempty"`
}

// columns hold one value per event, in time order. Strings are indexes
// into data.Strings.
type columns struct {
	T  []int64 `json:"t"`  // milliseconds since the previous event (the first: since T0)
	S  []int   `json:"s"`  // the session (index into Sessions)
	Ln []int   `json:"ln"` // the line in the session's file, less the previous event's of that session
	Ev []int   `json:"ev"` // event type
	Ac []int   `json:"ac"` // actor
	Ag []int   `json:"ag"` // agent
	Ne []int   `json:"ne"` // the agent's own event name
	Tl []int   `json:"tl"` // tool (a hook's) or npm script name
	Dc []int   `json:"dc"` // decision
	Ru []int   `json:"ru"` // rule
	Tx []int   `json:"tx"` // the command, prompt or error
	Rs []int   `json:"rs"` // reason (or error)
	Ex []int   `json:"ex"` // exit code (see flagExit)
	Du []int64 `json:"du"` // duration, milliseconds
	Sg []int   `json:"sg"` // signal
	Ef []int   `json:"ef"` // effects, comma-separated
	Xr []int   `json:"xr"` // extension runs, one per line: script kind outcome[: error]
	Cw []int   `json:"cw"` // cwd
	Fl []int   `json:"fl"` // flags
}

// Flags of an event.
const (
	flagFailure = 1 << iota // telemetry.LineFields.IsFailure
	flagExit                // the event has an exit code (script_end, command_end)
	flagExtFail             // an extension run failed
	flagNoTime              // the line has no readable timestamp
	flagCut                 // text was cut to the limits
)

func (d *data) str(s string) int {
	if s == "" {
		return 0
	}
	if i, ok := d.index[s]; ok {
		return i
	}
	i := len(d.Strings)
	d.Strings = append(d.Strings, s)
	d.index[s] = i
	return i
}

// cut keeps at most max bytes of s, on a character boundary, marked.
func cut(s string, max int) (string, bool) {
	if t, cut := textcut.Cut(s, max); cut {
		return t + "…", true
	}
	return s, false
}

func collect(o Options) (*data, error) {
	d := &data{V: 1, Title: o.Title, Generator: o.Generator, Strings: []string{""}, index: map[string]int{},
		Sessions: []session{}, MaxText: maxText, MaxReason: maxReason}
	if !o.Generated.IsZero() {
		d.Generated = o.Generated.UTC().Format(time.RFC3339)
	}
	if !o.Since.IsZero() {
		d.Since = o.Since.UTC().Format(time.RFC3339)
	}
	sessionOf := map[string]int{}
	for i, f := range o.Files {
		sessionOf[f] = i
		s := session{ID: telemetry.SessionIDOf(f), File: filepath.Base(f)}
		if res, err := telemetry.VerifyFile(f); err == nil {
			s.Chain = chain{OK: res.OK(), Checked: true, Events: res.Events, Line: res.Line, Problem: res.Problem, Repairs: len(res.Repairs)}
		} else {
			s.Chain = chain{Problem: err.Error()}
		}
		d.Sessions = append(d.Sessions, s)
	}
	d.Cols = columns{T: []int64{}, S: []int{}, Ln: []int{}, Ev: []int{}, Ac: []int{}, Ag: []int{}, Ne: []int{}, Tl: []int{},
		Dc: []int{}, Ru: []int{}, Tx: []int{}, Rs: []int{}, Ex: []int{}, Du: []int64{}, Sg: []int{}, Ef: []int{}, Xr: []int{},
		Cw: []int{}, Fl: []int{}}
	lastLine := make([]int, len(o.Files))
	var prev int64
	first := true
	var sc telemetry.Scanner
	var lf telemetry.LineFields
	q := &telemetry.Query{Files: o.Files, Filter: telemetry.Filter{Since: o.Since}, Decode: true}
	damage, err := q.Run(func(r *telemetry.Record) error {
		e := r.Event
		si := sessionOf[r.File]
		d.Sessions[si].Events++
		c := &d.Cols
		flags := 0
		var ms int64
		if e.Timestamp.IsZero() {
			flags |= flagNoTime
			ms = prev
		} else {
			ms = e.Timestamp.UnixMilli()
		}
		if first {
			d.T0, prev, first = ms, ms, false
		}
		c.T = append(c.T, ms-prev)
		prev = ms
		c.S = append(c.S, si)
		c.Ln = append(c.Ln, r.Line-lastLine[si])
		lastLine[si] = r.Line

		if sc.Scan(r.Raw, &lf) == nil && lf.IsFailure() {
			flags |= flagFailure
		}
		text := e.Command
		reason := e.Reason
		switch e.Event {
		case telemetry.EventPrompt:
			text = e.Prompt
		case telemetry.EventShimError, telemetry.EventExtensionError:
			if text == "" {
				text = e.Error
			}
			if reason == "" {
				reason = e.Error
			}
		case telemetry.EventRepair:
			text = fmt.Sprintf("%d torn line(s) ended by this repair", len(e.Torn))
		}
		if reason == "" && e.Error != "" {
			reason = e.Error
		}
		if reason == "" && e.FilterError != "" {
			reason = "audit filter failed: " + e.FilterError
		}
		text, cutText := cut(text, maxText)
		reason, cutReason := cut(reason, maxReason)
		if cutText || cutReason {
			flags |= flagCut
		}
		tool := e.ToolName
		exit := 0
		decision := e.Decision
		switch e.Event {
		case telemetry.EventScriptEnd, telemetry.EventCommandEnd:
			flags |= flagExit
			exit = e.ExitCode
			if e.Event == telemetry.EventScriptEnd && e.Script != "" {
				tool = e.Script
			}
		case telemetry.EventGuard:
			if decision == "" {
				decision = "deny"
			}
		}
		rule := e.Rule
		if rule == "" {
			rule = e.MatchedRule
		}
		var runs []string
		for _, x := range e.Extensions {
			line := x.Script + " " + x.Kind + " " + x.Outcome
			if x.Error != "" {
				flags |= flagExtFail
				first, _, _ := strings.Cut(x.Error, "\n")
				line += ": " + first
			} else if x.Reason != "" {
				line += ": " + x.Reason
			}
			line, _ = cut(line, 300)
			runs = append(runs, line)
		}
		c.Ev = append(c.Ev, d.str(e.Event))
		c.Ac = append(c.Ac, d.str(e.Actor))
		c.Ag = append(c.Ag, d.str(e.Agent))
		c.Ne = append(c.Ne, d.str(e.NativeEvent))
		c.Tl = append(c.Tl, d.str(tool))
		c.Dc = append(c.Dc, d.str(decision))
		c.Ru = append(c.Ru, d.str(rule))
		c.Tx = append(c.Tx, d.str(text))
		c.Rs = append(c.Rs, d.str(reason))
		c.Ex = append(c.Ex, exit)
		c.Du = append(c.Du, int64(e.DurationMS))
		c.Sg = append(c.Sg, d.str(e.Signal))
		c.Ef = append(c.Ef, d.str(strings.Join(e.Effects, ", ")))
		c.Xr = append(c.Xr, d.str(strings.Join(runs, "\n")))
		c.Cw = append(c.Cw, d.str(e.Cwd))
		c.Fl = append(c.Fl, flags)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, dm := range damage {
		if i, ok := sessionOf[dm.File]; ok {
			d.Sessions[i].Damaged = damage1(dm)
		}
	}
	return d, nil
}

func damage1(d telemetry.Damage) damage {
	why, _ := cut(d.FirstErr, maxReason)
	return damage{Count: d.Count, FirstLine: d.FirstLine, FirstErr: why}
}
