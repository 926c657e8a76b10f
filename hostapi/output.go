package hostapi

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ToolOutput is a shell command's result as its host reports it on a
// post-tool event, read by the host's own adapter (each host shapes it
// differently: see docs/host-protocols.md, "Tool output"). Fields the host
// does not report are zero.
type ToolOutput struct {
	// Output is the text the host hands the model as the command's output:
	// its stdout, or the one text it makes of the run (which may hold
	// stderr and the exit code too).
	Output string
	// Stderr is the command's stderr, where the host reports it apart.
	Stderr string
	// Exit is the command's exit status; ExitKnown says the host reported
	// one.
	Exit      int
	ExitKnown bool
	// Failed says the host reports the call as failed; Error is its
	// message for that, where it is apart from Output.
	Failed bool
	Error  string
}

// outputReader reads one host's tool result (Event.Result, valid JSON) of a
// shell post-tool event.
type outputReader func(nativeEvent string, result json.RawMessage) *ToolOutput

// readOutput sets e.Output on a shell post-tool event with a result, with
// the dialect's reader or, for a host whose shape is not established, the
// combined reading.
func (d dialect) readOutput(e *Event) {
	if e.Kind != KindPostTool || !e.IsShell() || len(e.Result) == 0 {
		return
	}
	read := d.output
	if read == nil {
		read = combinedOutput
	}
	e.Output = read(e.NativeEvent, e.Result)
}

// combinedOutput is the reading for a result of unknown shape: a JSON
// string is the output (or, when it holds a JSON object, that object); an
// object gives the first text among the fields any host is known to use,
// stderr, and an exit code, also under metadata.
func combinedOutput(_ string, result json.RawMessage) *ToolOutput {
	o := &ToolOutput{}
	var v any
	if json.Unmarshal(result, &v) != nil {
		return o
	}
	if s, ok := v.(string); ok {
		var inner map[string]any
		if json.Unmarshal([]byte(s), &inner) != nil || inner == nil {
			o.Output = s
			return o
		}
		v = inner
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return o
	}
	for _, k := range []string{"stdout", "output", "textResultForLlm", "text_result_for_llm", "llmContent", "returnDisplay", "content", "result", "error"} {
		if s, ok := obj[k].(string); ok {
			o.Output = s
			break
		}
	}
	o.Stderr, _ = obj["stderr"].(string)
	o.Exit, o.ExitKnown = exitField(obj, "exitCode", "exit_code", "returncode", "exit")
	if !o.ExitKnown {
		if meta, ok := obj["metadata"].(map[string]any); ok {
			o.Exit, o.ExitKnown = exitField(meta, "exitCode", "exit_code", "returncode", "exit")
		}
	}
	return o
}

// exitField is the first of keys holding a whole number.
func exitField(obj map[string]any, keys ...string) (int, bool) {
	for _, k := range keys {
		if f, ok := obj[k].(float64); ok && f == float64(int(f)) {
			return int(f), true
		}
	}
	return 0, false
}

// jsonObject decodes raw as an object; nil when it is none.
func jsonObject(raw json.RawMessage) map[string]any {
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj
}

// exitLine reads the status of the last line of text that is prefix and a
// whole number ("Exit code 1", "Exit Code: 0").
func exitLine(text, prefix string, first bool) (int, bool) {
	lines := strings.Split(text, "\n")
	if first {
		lines = lines[:1]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		rest, ok := strings.CutPrefix(strings.TrimRight(lines[i], "\r"), prefix)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
			return n, true
		}
	}
	return 0, false
}
