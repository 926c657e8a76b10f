package hostapi

import (
	"encoding/json"
	"strings"
)

// Detect names the host that sent a payload from unambiguous markers
// (docs/host-protocols.md, "Rules for every host"), or "" when none is
// certain. Registrations should pass --agent; this is the fallback for the
// compatible policy-check and record entries, whose payloads may come from
// a Claude-style registration.
func Detect(payload []byte) string {
	var f map[string]json.RawMessage
	if json.Unmarshal(payload, &f) != nil {
		return ""
	}
	has := func(k string) bool { _, ok := f[k]; return ok }
	event := stringField(f["hook_event_name"])
	switch {
	case has("cursor_version"):
		return "cursor"
	case has("toolName") || has("toolArgs") || has("sessionId"):
		if !has("hook_event_name") {
			return "copilot"
		}
	case has("turn_id") && has("model"):
		return "codex"
	case event == "BeforeTool" || event == "AfterTool" || event == "BeforeAgent" || event == "AfterAgent" ||
		event == "BeforeModel" || event == "AfterModel" || event == "BeforeToolSelection":
		return "gemini"
	case has("prompt_id") || has("effort") || strings.HasPrefix(stringField(f["tool_use_id"]), "toolu_"):
		return "claude"
	}
	return ""
}
