// Package logtable renders recorded events as the table agent-shell log
// prints: columns sized on the first rows, then streamed, every cell
// terminal-safe (termtext.Line), rows coloured by outcome on a terminal.
package logtable

import (
	"bufio"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/internal/textcut"
	"github.com/agent-shell/agent-shell/telemetry"
)

const (
	colorRed    = "\x1b[31m"
	colorYellow = "\x1b[33m"
	colorBold   = "\x1b[1m"
	colorReset  = "\x1b[0m"
)

// Column caps: a long actor or tool name is cut rather than pushing the
// command off the screen.
var eventColumns = [...]struct {
	name string
	max  int
}{{"TIME", 25}, {"EVENT", 15}, {"ACTOR", 20}, {"SCRIPT/TOOL", 24}, {"RESULT", 16}, {"DURATION", 8}, {"COMMAND", 0}}

// commandRunes is how much of a command the table shows.
const commandRunes = 60

// tableSample is how many rows size the columns. The rest are streamed
// with the same widths, so memory does not grow with the result.
const tableSample = 500

// Events is the table of events log prints.
type Events struct {
	w       *bufio.Writer
	color   bool
	wide    bool // whole commands
	pending []row
	widths  []int
}

type row struct {
	cells []string
	color string
}

// New is a table written to w, coloured with color, with whole commands
// when wide.
func New(w *bufio.Writer, color, wide bool) *Events {
	return &Events{w: w, color: color, wide: wide}
}

// Add adds one event's row: held while the columns are sized, then written.
func (t *Events) Add(e *telemetry.Event) error {
	r := eventRow(e, t.wide)
	if t.widths == nil {
		t.pending = append(t.pending, r)
		if len(t.pending) < tableSample {
			return nil
		}
		return t.Flush()
	}
	t.write(r)
	return nil
}

// Flush writes the rows held, sizing the columns on them if not yet sized.
func (t *Events) Flush() error {
	if t.widths == nil {
		t.widths = make([]int, len(eventColumns))
		for i, c := range eventColumns {
			t.widths[i] = len(c.name)
		}
		for _, r := range t.pending {
			for i, c := range r.cells {
				t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
			}
		}
		for i, c := range eventColumns {
			if c.max > 0 {
				t.widths[i] = min(t.widths[i], c.max)
			}
		}
		header := make([]string, len(eventColumns))
		for i, c := range eventColumns {
			header[i] = c.name
		}
		t.write(row{cells: header, color: t.boldIf()})
		for _, r := range t.pending {
			t.write(r)
		}
		t.pending = nil
	}
	return nil
}

// FixWidths sizes the columns at their caps and writes the header: for a
// stream whose rows are not known ahead (log --follow).
func (t *Events) FixWidths() {
	t.widths = make([]int, len(eventColumns))
	header := make([]string, len(eventColumns))
	for i, c := range eventColumns {
		t.widths[i] = max(c.max, len(c.name))
		header[i] = c.name
	}
	t.write(row{cells: header, color: t.boldIf()})
}

func (t *Events) boldIf() string {
	if t.color {
		return colorBold
	}
	return ""
}

func (t *Events) write(r row) {
	for i, c := range r.cells {
		if m := eventColumns[i].max; m > 0 {
			r.cells[i] = textcut.Runes(c, t.widths[i])
		}
	}
	if t.color && r.color != "" {
		t.w.WriteString(r.color)
		writeCells(t.w, r.cells, t.widths)
		t.w.WriteString(colorReset + "\n")
		return
	}
	writeCells(t.w, r.cells, t.widths)
	t.w.WriteByte('\n')
}

// WriteRow writes one line of a table whose columns are widths wide.
func WriteRow(w *bufio.Writer, cells []string, widths []int) {
	writeCells(w, cells, widths)
	w.WriteByte('\n')
}

// writeCells writes cells padded to widths, two spaces apart, the last cell
// unpadded (no trailing spaces).
func writeCells(w *bufio.Writer, cells []string, widths []int) {
	for i, c := range cells {
		if i > 0 {
			w.WriteString("  ")
		}
		w.WriteString(c)
		if i < len(cells)-1 {
			for n := utf8.RuneCountInString(c); n < widths[i]; n++ {
				w.WriteByte(' ')
			}
		}
	}
}

func eventRow(e *telemetry.Event, wide bool) row {
	// A hook event's tool (Bash, Edit, ...); an npm script's name below.
	tool, result, dur := Dash(termtext.Line(e.ToolName, 0)), "-", "-"
	color := ""
	switch e.Event {
	case telemetry.EventScriptEnd, telemetry.EventCommandEnd:
		if e.Event == telemetry.EventScriptEnd {
			tool = Dash(termtext.Line(e.Script, 0))
		}
		result = strconv.Itoa(e.ExitCode)
		if e.Signal != "" {
			result += " " + termtext.Line(e.Signal, 0)
		}
		dur = Millis(int64(e.DurationMS))
		if e.ExitCode != 0 || e.Signal != "" {
			color = colorRed
		}
	case telemetry.EventPolicyDecision:
		result = Dash(termtext.Line(e.Decision, 0))
		switch e.Decision {
		case "deny":
			color = colorRed
		case "ask":
			color = colorYellow
		}
	case telemetry.EventGuard:
		result, color = "deny", colorRed
	case telemetry.EventConfigUnauthorized:
		result, color = "unauth", colorYellow
	case telemetry.EventShimError:
		result = "error"
		color = colorRed
	case telemetry.EventRepair:
		result, color = "torn", colorYellow
	}
	command := termtext.Line(e.Command, commandRunes)
	if wide {
		command = termtext.Line(e.Command, 0)
	}
	return row{
		cells: []string{
			Time(e.Timestamp), Dash(termtext.Line(e.Event, 0)), Dash(termtext.Line(e.Actor, 0)),
			tool, result, dur, command,
		},
		color: color,
	}
}

// Time is an event's time in the local zone, which it names.
func Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}

// Dash is s, or "-" for nothing.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Millis shows a duration as Nms below a second, N.Ns below a minute,
// else N.Nm (tenths truncated, never rounded up into the next unit).
func Millis(ms int64) string {
	switch {
	case ms < 0:
		return "-"
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + "ms"
	case ms < 60_000:
		return fmt.Sprintf("%d.%ds", ms/1000, ms%1000/100)
	default:
		return fmt.Sprintf("%d.%dm", ms/60_000, ms%60_000/6000)
	}
}

// Fit writes rows (the first the header) with every column as wide as its
// widest cell: for a table whose rows are all known.
func Fit(w *bufio.Writer, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		WriteRow(w, r, widths)
	}
}
