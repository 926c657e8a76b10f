package logtable

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

func TestMillis(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "0ms"}, {999, "999ms"}, {1000, "1.0s"}, {1234, "1.2s"}, {59999, "59.9s"},
		{60000, "1.0m"}, {85000, "1.4m"}, {3600000, "60.0m"}, {-5, "-"},
	}
	for _, tt := range tests {
		if got := Millis(tt.ms); got != tt.want {
			t.Errorf("Millis(%d) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}

func TestEventRow(t *testing.T) {
	// Times show in the local zone, named: here UTC, whatever the machine's.
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
	ts := time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.UTC)
	tests := []struct {
		e     telemetry.Event
		cells string
		color string
	}{
		{telemetry.Event{Event: "script_end", Actor: "human", Script: "test", ExitCode: 2, DurationMS: 1500, Command: "npm test", Timestamp: ts},
			"2026-01-02 03:04:05 UTC|script_end|human|test|2|1.5s|npm test", colorRed},
		{telemetry.Event{Event: "script_end", Actor: "human", Signal: "SIGKILL", ExitCode: 137, Timestamp: ts},
			"2026-01-02 03:04:05 UTC|script_end|human|-|137 SIGKILL|0ms|", colorRed},
		{telemetry.Event{Event: "script_end", Actor: "human", Script: "build"},
			"-|script_end|human|build|0|0ms|", ""},
		{telemetry.Event{Event: "tool_use", Actor: "claude-code", ToolName: "bash", Command: "ls"},
			"-|tool_use|claude-code|bash|-|-|ls", ""},
		{telemetry.Event{Event: "policy_decision", Decision: "deny", Command: "rm -rf /"},
			"-|policy_decision|-|-|deny|-|rm -rf /", colorRed},
		{telemetry.Event{Event: "policy_decision", Decision: "ask"},
			"-|policy_decision|-|-|ask|-|", colorYellow},
		{telemetry.Event{Event: "policy_decision", Decision: "allow", ToolName: "Bash", Command: "ls"},
			"-|policy_decision|-|Bash|allow|-|ls", ""},
		{telemetry.Event{Event: "guard", ToolName: "Edit"},
			"-|guard|-|Edit|deny|-|", colorRed},
		{telemetry.Event{Event: "shim_error", Actor: "a\x1b]0;x\x07"},
			`-|shim_error|a\x1b]0;x\x07|-|error|-|`, colorRed},
		{telemetry.Event{Event: "future_event"},
			"-|future_event|-|-|-|-|", ""},
	}
	for _, tt := range tests {
		r := eventRow(&tt.e, false)
		if got := strings.Join(r.cells, "|"); got != tt.cells || r.color != tt.color {
			t.Errorf("eventRow(%+v) = %q %q, want %q %q", tt.e, got, r.color, tt.cells, tt.color)
		}
	}
	// A long command is cut, unless the table is wide.
	long := telemetry.Event{Event: "tool_use", Command: strings.Repeat("x", commandRunes+10)}
	if c := eventRow(&long, false).cells[6]; len([]rune(c)) > commandRunes+1 {
		t.Errorf("narrow: %d runes", len([]rune(c)))
	}
	if c := eventRow(&long, true).cells[6]; c != long.Command {
		t.Errorf("wide: %q", c)
	}
	// In another zone, the time is that zone's, and says so.
	time.Local = time.FixedZone("CET", 3600)
	if got := eventRow(&telemetry.Event{Event: "x", Timestamp: ts}, false).cells[0]; got != "2026-01-02 04:04:05 CET" {
		t.Errorf("CET: %q", got)
	}
}

// The table sizes its columns from the first rows, then streams the rest
// with the same widths, cutting cells that would not fit.
func TestEventTableStreams(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	tw := New(w, false, false)
	for i := 0; i < tableSample+2; i++ {
		actor := "a"
		if i == tableSample+1 {
			actor = "a-much-longer-actor-name-than-before"
		}
		if err := tw.Add(&telemetry.Event{Event: "tool_use", Actor: actor, ToolName: "bash", Command: "ls"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != tableSample+3 {
		t.Fatalf("%d lines, want %d", len(lines), tableSample+3)
	}
	if lines[0] != "TIME  EVENT     ACTOR  SCRIPT/TOOL  RESULT  DURATION  COMMAND" {
		t.Errorf("header %q", lines[0])
	}
	if last := lines[len(lines)-1]; last != "-     tool_use  a-mu…  bash         -       -         ls" {
		t.Errorf("last row %q", last)
	}
}

func TestEventTableColor(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	tw := New(w, true, false)
	tw.Add(&telemetry.Event{Event: "shim_error", Actor: "x"})
	tw.Add(&telemetry.Event{Event: "tool_use", Actor: "x"})
	tw.Flush()
	w.Flush()
	want := colorBold + "TIME  EVENT       ACTOR  SCRIPT/TOOL  RESULT  DURATION  COMMAND" + colorReset + "\n" +
		colorRed + "-     shim_error  x      -            error   -         " + colorReset + "\n" +
		"-     tool_use    x      -            -       -         \n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestFit(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	Fit(w, [][]string{{"ID", "WHO"}, {"1", "ünïcode"}, {"22", "-"}})
	w.Flush()
	want := "ID  WHO\n1   ünïcode\n22  -\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}
