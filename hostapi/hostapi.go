package hostapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Kind is what an event is about, the same for every agent.
type Kind string

const (
	KindPreTool      Kind = "pre_tool"
	KindPostTool     Kind = "post_tool"
	KindPrompt       Kind = "prompt"
	KindSessionStart Kind = "session_start"
	KindSessionEnd   Kind = "session_end"
	KindStop         Kind = "stop" // the agent finished a turn
	KindUnknown      Kind = "unknown"
)

// Normalized tool names. Any other tool keeps its native name.
const (
	ToolBash     = "bash"
	ToolEdit     = "edit"
	ToolWrite    = "write"
	ToolRead     = "read"
	ToolWebFetch = "web_fetch"
)

// Event is one hook call, whatever agent sent it.
type Event struct {
	Agent       string
	Kind        Kind
	NativeEvent string
	Tool        string // normalized; see the Tool* constants
	NativeTool  string
	// Command is the shell command of a shell tool. When the payload names a
	// shell tool but its command cannot be read, CommandErr says why, and a
	// pre-tool call must be denied with that reason.
	Command    string
	CommandErr error
	Input      json.RawMessage // the tool input as sent, every field kept
	Result     json.RawMessage // post-tool: the tool's result as sent
	// Output is a shell post-tool event's Result read in the host's shape
	// (nil on any other event, or without a result).
	Output    *ToolOutput
	Prompt    string
	SessionID string
	Cwd       string
	Meta      map[string]json.RawMessage // every top-level field not modelled above
}

// IsShell reports whether the event is a call of a shell tool.
func (e *Event) IsShell() bool { return e.Tool == ToolBash }

// Decision is a verdict's outcome.
type Decision string

const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
)

// Verdict is agent-shell's answer to one event.
type Verdict struct {
	Decision     Decision
	Reason       string
	UpdatedInput json.RawMessage
	Context      string
	// SoleGate renders an allow as an explicit allow, which makes most hosts
	// skip their own permission prompt; otherwise an allow abstains.
	SoleGate bool
	// Sandbox says UpdatedInput runs the allowed command through agent-shell
	// exec (SandboxCommand). A host that drops such a rewrite runs the
	// command the policy allowed, so it is sent where other rewrites are
	// not trusted; sending it takes an explicit allow.
	Sandbox bool
}

// Response is what the hook process writes and how it exits.
type Response struct {
	Stdout []byte
	Stderr []byte
	Exit   int
}

// Coverage says which verdict fields a host can carry for one kind of event.
type Coverage struct {
	Deny         bool
	NativeAsk    bool // the host's pre-tool gate can ask a human
	UpdatedInput bool
	Context      bool
}

// Adapter speaks one agent's native hook protocol.
type Adapter interface {
	Name() string
	// Events lists the native event names the adapter handles; the
	// conformance suite holds it to a fixture for each.
	Events() []string
	// Parse reads one payload. nativeEvent names the hook event when the
	// registration says which it is (the payload may not); "" infers it.
	Parse(payload []byte, nativeEvent string) (*Event, error)
	Render(e *Event, v Verdict) Response
	// Failure is the answer to a call that could not be decided: on a
	// pre-tool event, the host's own deny, never something it reads as allow.
	Failure(e *Event, err error) Response
	Coverage(k Kind) Coverage
	// Install writes or merges the host's hook registration under the
	// repository root, keeping every other entry and key. It returns the
	// files it changed (none when the registration is already there).
	Install(root string) ([]string, error)
	// Describe states what the rest of agent-shell knows of the host.
	Describe() Descriptor
}

// DefaultMaxPayload caps how much of stdin a hook call reads.
const DefaultMaxPayload = 1 << 20

// ErrPayloadTooLarge is returned for a payload over the cap.
var ErrPayloadTooLarge = errors.New("payload too large")

// ReadPayload reads all of r, failing with ErrPayloadTooLarge past max bytes.
func ReadPayload(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read hook payload: %w", err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: over %d bytes", ErrPayloadTooLarge, max)
	}
	return b, nil
}

// WriteResponse writes the response's streams completely. The answer must
// be out before anything else (telemetry) runs, since a host that sees a
// half-written deny treats it as an allow.
func WriteResponse(stdout, stderr io.Writer, r Response) error {
	if len(r.Stdout) > 0 {
		if _, err := stdout.Write(r.Stdout); err != nil {
			return fmt.Errorf("write hook answer: %w", err)
		}
	}
	if len(r.Stderr) > 0 {
		if _, err := stderr.Write(r.Stderr); err != nil {
			return fmt.Errorf("write hook answer: %w", err)
		}
	}
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync() // pipes cannot be synced; a plain Write to them is already complete
	}
	return nil
}

// rewriteAsDeny turns an allow that carries a rewrite into a deny naming
// the suggested input, for hosts that cannot apply a rewrite: dropping it
// would silently run the original command.
func rewriteAsDeny(v Verdict) Verdict {
	if v.Decision != Allow || len(v.UpdatedInput) == 0 || v.Sandbox {
		return v
	}
	suggestion := string(v.UpdatedInput)
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(v.UpdatedInput, &in) == nil && in.Command != "" {
		suggestion = in.Command
	}
	return Verdict{Decision: Deny, Reason: "agent-shell suggests running instead: " + suggestion}
}

// askAsDeny turns an ask into a deny for a host that cannot ask a human,
// saying why, so that the agent can tell the user how to get approval.
func askAsDeny(v Verdict, host string) Verdict {
	if v.Decision != Ask {
		return v
	}
	return Verdict{Decision: Deny, Reason: "needs approval, and " + host + " cannot ask: " + v.Reason}
}
