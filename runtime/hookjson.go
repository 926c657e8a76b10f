package runtime

// The shell-hook-json-v1 codec: the one request an executable extension
// reads and the one response it writes (docs/hook-protocol.md). The
// decoder is strict: anything it does not know is a failure, never ignored.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agent-shell/agent-shell/builtins"

	"github.com/agent-shell/agent-shell/internal/textcut"

	"github.com/agent-shell/agent-shell/internal/jsonstr"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// HookVersion is the protocol version every request carries and every
// response must echo.
const HookVersion = 1

// Limits of one exchange (docs/hook-protocol.md, "Transport"): a 1 MiB
// request, 256 KiB of reply, 64 KiB of stderr kept.
const (
	MaxHookRequest  = 1 << 20   // bytes of the encoded request
	MaxHookResponse = 256 << 10 // bytes of stdout
	MaxHookStderr   = 64 << 10  // bytes of stderr kept; the rest is read and dropped
)

// The error codes of shell-hook-json-v1 (docs/hook-protocol.md, "Error
// codes").
const (
	CodeInputLimit  = "shell.hook_input_limit"  // the request is over MaxHookRequest, or not data
	CodeOutputLimit = "shell.hook_output_limit" // stdout is over MaxHookResponse
	CodeNonzeroExit = "shell.hook_nonzero_exit" // the hook exited nonzero or was killed by a signal
	CodeProtocol    = "shell.hook_protocol"     // not exactly one well-formed response object
	CodeRequestID   = "shell.hook_request_id"   // the response answers another request
	CodeExecution   = "shell.hook_execution"    // pin mismatch, could not start, timeout, cancellation
	CodeRewrite     = "shell.hook_rewrite"      // a rewrite to an empty or invalid argv
	CodeScope       = "shell.hook_scope"        // an approval scope or expiry we do not accept
	CodeAction      = "shell.hook_action"       // an action of another kind, or one whose values its kind refuses
)

// HookError is a shell-hook-json-v1 failure: its message starts with the
// protocol's error code, e.g. "shell.hook_protocol: unknown field: extra".
type HookError struct {
	Code string
	Msg  string
}

func (e *HookError) Error() string { return e.Code + ": " + e.Msg }

func hookErr(code, format string, args ...any) *HookError {
	return &HookError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// HookCode returns the shell-hook-json-v1 error code in err's chain, or "".
func HookCode(err error) string {
	var he *HookError
	if errors.As(err, &he) {
		return he.Code
	}
	return ""
}

// HookKind returns the wire name of a kind ("reviewer", "before_interceptor",
// ...), and false for a kind with no executable form (matchers, unknown
// kinds).
func HookKind(k builtins.Kind) (string, bool) {
	spec, _ := Spec(k)
	return spec.Hook, spec.Hook != ""
}

// maxHookDepth bounds the nesting of a request payload and of a response.
// Responses are at most three deep; payloads are the shapes of
// docs/hook-protocol.md, "Payloads".
const maxHookDepth = builtins.MaxDepth

// encodeRequest encodes the request: every object's keys sorted, compact,
// UTF-8, strings escaped only where JSON requires it. It fails on a payload
// that is not JSON-like data (see writeJSON) or is over MaxHookRequest.
func encodeRequest(hookID string, kind builtins.Kind, requestID string, payload map[string]any) ([]byte, error) {
	wire, ok := HookKind(kind)
	if !ok {
		return nil, hookErr(CodeExecution, "kind %s has no executable form", kind)
	}
	if payload == nil {
		payload = map[string]any{}
	}
	w := &limitedBuffer{max: MaxHookRequest}
	req := map[string]any{"hook_id": hookID, "kind": wire, "payload": payload, "request_id": requestID, "version": int64(HookVersion)}
	if err := writeJSON(w, req, 0); err != nil {
		if w.over {
			return nil, hookErr(CodeInputLimit, "request is over %d bytes", MaxHookRequest)
		}
		return nil, hookErr(CodeInputLimit, "request payload: %v", err)
	}
	return w.buf.Bytes(), nil
}

// limitedBuffer fails a write that would take it over max bytes.
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

var errOverLimit = errors.New("over the size limit")

func (b *limitedBuffer) WriteString(s string) error {
	if b.buf.Len()+len(s) > b.max {
		b.over = true
		return errOverLimit
	}
	b.buf.WriteString(s)
	return nil
}

// writeJSON writes v, JSON-like Go data: nil, bool, int, int64, float64
// (finite), string (valid UTF-8), []any, []string, map[string]any,
// map[string]string. Anything else, or nesting deeper than maxHookDepth
// (which also stops a map that contains itself), is an error.
func writeJSON(w *limitedBuffer, v any, depth int) error {
	if depth > maxHookDepth {
		return fmt.Errorf("nested deeper than %d", maxHookDepth)
	}
	switch v := v.(type) {
	case nil:
		return w.WriteString("null")
	case bool:
		return w.WriteString(strconv.FormatBool(v))
	case int:
		return w.WriteString(strconv.Itoa(v))
	case int64:
		return w.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("float %v is not data", v)
		}
		b, err := json.Marshal(v) // the shortest round-tripping form, as JSON spells it
		if err != nil {
			return err
		}
		return w.WriteString(string(b))
	case string:
		return writeJSONString(w, v)
	case []string:
		if err := w.WriteString("["); err != nil {
			return err
		}
		for i, s := range v {
			if i > 0 {
				if err := w.WriteString(","); err != nil {
					return err
				}
			}
			if err := writeJSONString(w, s); err != nil {
				return err
			}
		}
		return w.WriteString("]")
	case []any:
		if err := w.WriteString("["); err != nil {
			return err
		}
		for i, x := range v {
			if i > 0 {
				if err := w.WriteString(","); err != nil {
					return err
				}
			}
			if err := writeJSON(w, x, depth+1); err != nil {
				return err
			}
		}
		return w.WriteString("]")
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return writeJSON(w, m, depth)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys) // byte order, as the protocol's encoding vector has it
		if err := w.WriteString("{"); err != nil {
			return err
		}
		for i, k := range keys {
			if i > 0 {
				if err := w.WriteString(","); err != nil {
					return err
				}
			}
			if err := writeJSONString(w, k); err != nil {
				return err
			}
			if err := w.WriteString(":"); err != nil {
				return err
			}
			if err := writeJSON(w, v[k], depth+1); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return w.WriteString("}")
	}
	return fmt.Errorf("Go type %T is not data", v)
}

// writeJSONString quotes s. A string that is not valid UTF-8 is an error:
// the hook must see exactly what the caller meant, never a silently
// replaced character.
func writeJSONString(w *limitedBuffer, s string) error {
	b, err := jsonstr.AppendExact(nil, s)
	if err != nil {
		return fmt.Errorf("string %q is not valid UTF-8", clipString(s))
	}
	return w.WriteString(string(b))
}

// hookStatus is a process status on the wire: {"exited":N} or {"signaled":N}.
type hookStatus struct {
	Signaled bool
	Code     int64
}

func (s hookStatus) String() string {
	if s.Signaled {
		return fmt.Sprintf(`{"signaled":%d}`, s.Code)
	}
	return fmt.Sprintf(`{"exited":%d}`, s.Code)
}

// payloadStatus reads the after-interceptor payload's status, the one a
// replace_result must keep. The payload is the caller's Go data, so numbers
// may be int, int64 or an integral float64.
func payloadStatus(payload map[string]any) (hookStatus, error) {
	m, ok := payload["status"].(map[string]any)
	if !ok || len(m) != 1 {
		return hookStatus{}, errors.New(`payload status must be {"exited":N} or {"signaled":N}`)
	}
	for k, v := range m {
		var n int64
		switch v := v.(type) {
		case int:
			n = int64(v)
		case int64:
			n = v
		case float64:
			if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
				return hookStatus{}, fmt.Errorf("payload status %s is %v, want an integer", k, v)
			}
			n = int64(v)
		default:
			return hookStatus{}, fmt.Errorf("payload status %s is %T, want an integer", k, v)
		}
		s := hookStatus{Code: n}
		switch k {
		case "exited":
		case "signaled":
			s.Signaled = true
		default:
			return hookStatus{}, fmt.Errorf("payload status has field %q, want exited or signaled", k)
		}
		if err := s.check(); err != nil {
			return hookStatus{}, fmt.Errorf("payload %v", err)
		}
		return s, nil
	}
	return hookStatus{}, errors.New("payload status is empty") // not reached: len(m) == 1
}

func (s hookStatus) check() error {
	if s.Signaled {
		if s.Code < 1 || s.Code > 127 {
			return fmt.Errorf("status signaled %d out of range 1..127", s.Code)
		}
	} else if s.Code < 0 || s.Code > 255 {
		return fmt.Errorf("status exited %d out of range 0..255", s.Code)
	}
	return nil
}

// decoded is an accepted response.
type decoded struct {
	Action    *builtins.Action
	ExpiresAt time.Time // approve_scope's expires_at, zero when absent
}

// hookObject is a decoded JSON object: its fields, and its path for errors.
type hookObject struct {
	path   string // "" at the top level, else e.g. "status."
	fields map[string]any
}

// decodeResponse decodes one response of kind to the request requestID,
// strictly. orig is the after-interceptor's original status (nil for other
// kinds, or when the request carried none: then replace_result fails).
// Every failure is a *HookError.
func decodeResponse(kind builtins.Kind, requestID string, orig *hookStatus, data []byte) (decoded, error) {
	wire, ok := HookKind(kind)
	if !ok {
		return decoded{}, hookErr(CodeExecution, "kind %s has no executable form", kind)
	}
	top, err := parseResponse(data)
	if err != nil {
		return decoded{}, err
	}
	if err := top.version(); err != nil {
		return decoded{}, err
	}
	rid, err := top.str("request_id")
	if err != nil {
		return decoded{}, err
	}
	if rid != requestID {
		return decoded{}, hookErr(CodeRequestID, "response request_id %q, want %q", clipString(rid), clipString(requestID))
	}
	disc := "action"
	if kind == builtins.KindReviewer {
		disc = "decision"
	}
	op, err := top.str(disc)
	if err != nil {
		return decoded{}, err
	}
	spec, ok := hookActions.Get()[kind][op]
	if !ok {
		return decoded{}, hookErr(CodeAction, "%s %q is not one a %s may answer (want %s)", disc, clipString(op), wire, strings.Join(actionNames(kind), ", "))
	}
	allowed := append([]string{"version", "request_id", disc}, spec.required...)
	allowed = append(allowed, spec.optional...)
	if err := top.only(allowed...); err != nil {
		return decoded{}, err
	}
	for _, f := range spec.required {
		if _, ok := top.fields[f]; !ok {
			return decoded{}, hookErr(CodeProtocol, "missing field: %s", f)
		}
	}
	return spec.decode(top, orig)
}

// An actionSpec is one accepted response: the fields it needs beyond
// version, request_id and the action (or decision), and how it maps to an
// action value.
type actionSpec struct {
	required, optional []string
	decode             func(o hookObject, orig *hookStatus) (decoded, error)
}

var hookActions = lazy.Value[map[builtins.Kind]map[string]actionSpec]{New: func() map[builtins.Kind]map[string]actionSpec {
	return map[builtins.Kind]map[string]actionSpec{
		builtins.KindBefore: {
			"continue": {decode: bare(builtins.KindBefore, builtins.OpProceed)},
			"rewrite":  {required: []string{"program", "arguments"}, decode: decodeRewrite(builtins.KindBefore)},
			"respond":  {required: []string{"status", "stdout", "stderr"}, decode: decodeRespond},
			"reject":   {required: []string{"reason"}, decode: withReason(builtins.KindBefore, builtins.OpReject)},
		},
		builtins.KindAfter: {
			"continue":       {decode: bare(builtins.KindAfter, builtins.OpKeep)},
			"replace_result": {required: []string{"status", "stdout", "stderr"}, decode: decodeReplaceResult},
			"reject":         {required: []string{"reason"}, decode: withReason(builtins.KindAfter, builtins.OpRejectDisclosure)},
		},
		builtins.KindReviewer: {
			"defer":         {decode: bare(builtins.KindReviewer, builtins.OpDefer)},
			"approve_once":  {decode: bare(builtins.KindReviewer, builtins.OpApprove)},
			"approve_scope": {required: []string{"scope"}, optional: []string{"expires_at"}, decode: decodeApproveScope},
			"deny":          {required: []string{"reason"}, decode: withReason(builtins.KindReviewer, builtins.OpDeny)},
			"rewrite":       {required: []string{"program", "arguments"}, decode: decodeRewrite(builtins.KindReviewer)},
		},
		builtins.KindEffect: {
			"add_effects":     {required: []string{"effects"}, decode: decodeEffects(builtins.OpAdd)},
			"replace_effects": {required: []string{"effects"}, decode: decodeEffects(builtins.OpReplace)},
		},
		builtins.KindAudit: {
			"keep":           {decode: bare(builtins.KindAudit, builtins.OpKeep)},
			"drop_field":     {required: []string{"field"}, decode: decodeDropField},
			"replace_fields": {required: []string{"fields"}, decode: decodeReplaceFields},
		},
	}
}}

func actionNames(k builtins.Kind) []string {
	var names []string
	for n := range hookActions.Get()[k] {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func bare(k builtins.Kind, op string) func(hookObject, *hookStatus) (decoded, error) {
	return func(hookObject, *hookStatus) (decoded, error) {
		return decoded{Action: &builtins.Action{Kind: k, Op: op}}, nil
	}
}

// withReason maps reject and deny: a non-empty reason of at most MaxString
// bytes, as the Starlark constructors require.
func withReason(k builtins.Kind, op string) func(hookObject, *hookStatus) (decoded, error) {
	return func(o hookObject, _ *hookStatus) (decoded, error) {
		reason, err := o.str("reason")
		if err != nil {
			return decoded{}, err
		}
		if strings.TrimSpace(reason) == "" {
			return decoded{}, hookErr(CodeAction, "reason must not be empty")
		}
		if len(reason) > builtins.MaxString {
			return decoded{}, hookErr(CodeAction, "reason is %d bytes, more than %d", len(reason), builtins.MaxString)
		}
		return decoded{Action: &builtins.Action{Kind: k, Op: op, Reason: reason}}, nil
	}
}

// decodeRewrite maps rewrite to argv = [program] + arguments.
func decodeRewrite(k builtins.Kind) func(hookObject, *hookStatus) (decoded, error) {
	return func(o hookObject, _ *hookStatus) (decoded, error) {
		program, err := o.str("program")
		if err != nil {
			return decoded{}, err
		}
		args, err := o.strings("arguments")
		if err != nil {
			return decoded{}, err
		}
		if program == "" {
			return decoded{}, hookErr(CodeRewrite, "rewrite to an empty program")
		}
		argv := append([]string{program}, args...)
		if len(argv) > builtins.MaxList {
			return decoded{}, hookErr(CodeRewrite, "rewrite argv has %d items, more than %d", len(argv), builtins.MaxList)
		}
		for i, s := range argv {
			if strings.IndexByte(s, 0) >= 0 {
				return decoded{}, hookErr(CodeRewrite, "rewrite argv[%d] contains a NUL byte", i)
			}
			if len(s) > builtins.MaxString {
				return decoded{}, hookErr(CodeRewrite, "rewrite argv[%d] is %d bytes, more than %d", i, len(s), builtins.MaxString)
			}
		}
		return decoded{Action: &builtins.Action{Kind: k, Op: builtins.OpRewrite, Argv: argv}}, nil
	}
}

// outputs reads stdout and stderr of respond and replace_result.
func outputs(o hookObject) (stdout, stderr string, err error) {
	if stdout, err = o.str("stdout"); err != nil {
		return "", "", err
	}
	if stderr, err = o.str("stderr"); err != nil {
		return "", "", err
	}
	// A response is at most MaxHookResponse bytes, so neither can be over
	// builtins.MaxOutput; the check keeps the two limits independent.
	for _, s := range []string{stdout, stderr} {
		if len(s) > builtins.MaxOutput {
			return "", "", hookErr(CodeAction, "output is %d bytes, more than %d", len(s), builtins.MaxOutput)
		}
	}
	return stdout, stderr, nil
}

// decodeRespond maps respond to Intercept.respond. A synthetic result is
// produced by no process, so it cannot claim to have been killed by a
// signal: {"signaled":N} is refused (a hook that wants a failure answers
// with a nonzero exit).
func decodeRespond(o hookObject, _ *hookStatus) (decoded, error) {
	st, err := o.status("status")
	if err != nil {
		return decoded{}, err
	}
	if st.Signaled {
		return decoded{}, hookErr(CodeAction, "respond status %s: a synthetic result cannot claim a signal", st)
	}
	stdout, stderr, err := outputs(o)
	if err != nil {
		return decoded{}, err
	}
	return decoded{Action: &builtins.Action{Kind: builtins.KindBefore, Op: builtins.OpRespond, Stdout: stdout, Stderr: stderr, Exit: int(st.Code)}}, nil
}

// decodeReplaceResult maps replace_result to Result.replace. The status
// must be the original's: a hook may rewrite what the agent reads, never
// whether the command succeeded (docs/hook-protocol.md, "Where
// agent-shell is stricter").
func decodeReplaceResult(o hookObject, orig *hookStatus) (decoded, error) {
	st, err := o.status("status")
	if err != nil {
		return decoded{}, err
	}
	if orig == nil {
		return decoded{}, hookErr(CodeAction, "replace_result: the request carried no status to keep")
	}
	if st != *orig {
		return decoded{}, hookErr(CodeAction, "replace_result may not change the status (%s to %s)", orig, st)
	}
	stdout, stderr, err := outputs(o)
	if err != nil {
		return decoded{}, err
	}
	return decoded{Action: &builtins.Action{Kind: builtins.KindAfter, Op: builtins.OpReplace, Stdout: stdout, Stderr: stderr}}, nil
}

// The scopes a hook reviewer may approve for; "once" is approve_once.
var hookScopes = []string{"exact_session", "prefix_session", "durable_exact"}

// maxExpiresAt is 9999-12-31T23:59:59Z: a later expiry is no expiry.
const maxExpiresAt = 253402300799

func decodeApproveScope(o hookObject, _ *hookStatus) (decoded, error) {
	scope, err := o.str("scope")
	if err != nil {
		return decoded{}, err
	}
	if !slices.Contains(hookScopes, scope) {
		return decoded{}, hookErr(CodeScope, "scope %q is not one a hook may approve for (want %s)", clipString(scope), strings.Join(hookScopes, ", "))
	}
	d := decoded{Action: &builtins.Action{Kind: builtins.KindReviewer, Op: builtins.OpApproveFor, Scope: scope}}
	if v, ok := o.fields["expires_at"]; ok {
		n, ok := v.(json.Number)
		if !ok {
			return decoded{}, hookErr(CodeProtocol, "wrong type: expires_at is %s, want a number", jsonType(v))
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return decoded{}, hookErr(CodeScope, "expires_at %s is not a finite number", clipString(string(n)))
		}
		if f <= 0 || f > maxExpiresAt {
			return decoded{}, hookErr(CodeScope, "expires_at %s is out of range (seconds since 1970, up to year 9999)", clipString(string(n)))
		}
		sec, frac := math.Modf(f)
		d.ExpiresAt = time.Unix(int64(sec), int64(frac*1e9)).UTC()
	}
	return d, nil
}

func decodeEffects(op string) func(hookObject, *hookStatus) (decoded, error) {
	return func(o hookObject, _ *hookStatus) (decoded, error) {
		effects, err := o.strings("effects")
		if err != nil {
			return decoded{}, err
		}
		if len(effects) > builtins.MaxList {
			return decoded{}, hookErr(CodeAction, "%d effects, more than %d", len(effects), builtins.MaxList)
		}
		for _, e := range effects {
			if err := builtins.CheckEffect(e); err != nil {
				return decoded{}, hookErr(CodeAction, "%v", err)
			}
		}
		return decoded{Action: &builtins.Action{Kind: builtins.KindEffect, Op: op, Effects: effects}}, nil
	}
}

func decodeDropField(o hookObject, _ *hookStatus) (decoded, error) {
	name, err := o.str("field")
	if err != nil {
		return decoded{}, err
	}
	if err := checkFieldName(name); err != nil {
		return decoded{}, err
	}
	return decoded{Action: &builtins.Action{Kind: builtins.KindAudit, Op: builtins.OpDropField, Field: name}}, nil
}

func decodeReplaceFields(o hookObject, _ *hookStatus) (decoded, error) {
	m, err := o.object("fields")
	if err != nil {
		return decoded{}, err
	}
	if len(m.fields) > builtins.MaxList {
		return decoded{}, hookErr(CodeAction, "%d fields, more than %d", len(m.fields), builtins.MaxList)
	}
	fields := make(map[string]string, len(m.fields))
	for name := range m.fields {
		if err := checkFieldName(name); err != nil {
			return decoded{}, err
		}
		v, err := m.str(name)
		if err != nil {
			return decoded{}, err
		}
		if len(v) > builtins.MaxString {
			return decoded{}, hookErr(CodeAction, "field %q is %d bytes, more than %d", clipString(name), len(v), builtins.MaxString)
		}
		fields[name] = v
	}
	return decoded{Action: &builtins.Action{Kind: builtins.KindAudit, Op: builtins.OpReplace, Fields: fields}}, nil
}

func checkFieldName(name string) error {
	if name == "" {
		return hookErr(CodeAction, "field name must not be empty")
	}
	if len(name) > builtins.MaxString {
		return hookErr(CodeAction, "field name is %d bytes, more than %d", len(name), builtins.MaxString)
	}
	return nil
}

// version checks "version": the integer 1, spelled exactly so.
func (o hookObject) version() error {
	v, ok := o.fields["version"]
	if !ok {
		return hookErr(CodeProtocol, "missing field: version")
	}
	n, ok := v.(json.Number)
	if !ok {
		return hookErr(CodeProtocol, "unsupported version %s, want the integer %d", jsonType(v), HookVersion)
	}
	if string(n) != strconv.Itoa(HookVersion) {
		return hookErr(CodeProtocol, "unsupported version %s, want the integer %d", clipString(string(n)), HookVersion)
	}
	return nil
}

// only fails on the first field, in byte order, that is not allowed.
func (o hookObject) only(allowed ...string) error {
	var unknown []string
	for k := range o.fields {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return hookErr(CodeProtocol, "unknown field: %s", clipString(o.path+unknown[0]))
	}
	return nil
}

func (o hookObject) get(name string) (any, error) {
	v, ok := o.fields[name]
	if !ok {
		return nil, hookErr(CodeProtocol, "missing field: %s", o.path+name)
	}
	return v, nil
}

func (o hookObject) str(name string) (string, error) {
	v, err := o.get(name)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", hookErr(CodeProtocol, "wrong type: %s is %s, want a string", clipString(o.path+name), jsonType(v))
	}
	return s, nil
}

func (o hookObject) strings(name string) ([]string, error) {
	v, err := o.get(name)
	if err != nil {
		return nil, err
	}
	xs, ok := v.([]any)
	if !ok {
		return nil, hookErr(CodeProtocol, "wrong type: %s is %s, want an array of strings", o.path+name, jsonType(v))
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		s, ok := x.(string)
		if !ok {
			return nil, hookErr(CodeProtocol, "wrong type: %s[%d] is %s, want a string", o.path+name, i, jsonType(x))
		}
		out[i] = s
	}
	return out, nil
}

func (o hookObject) object(name string) (hookObject, error) {
	v, err := o.get(name)
	if err != nil {
		return hookObject{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return hookObject{}, hookErr(CodeProtocol, "wrong type: %s is %s, want an object", o.path+name, jsonType(v))
	}
	return hookObject{path: o.path + name + ".", fields: m}, nil
}

// isIntLiteral reports whether a JSON number has no fraction and no
// exponent (a hand check: a package-level regexp would cost every process).
func isIntLiteral(n string) bool {
	n = strings.TrimPrefix(n, "-")
	if n == "" || (n[0] == '0' && len(n) > 1) {
		return false
	}
	for _, c := range []byte(n) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// status reads {"exited":N} or {"signaled":N}: exactly one field, an
// integer in range.
func (o hookObject) status(name string) (hookStatus, error) {
	m, err := o.object(name)
	if err != nil {
		return hookStatus{}, err
	}
	if err := m.only("exited", "signaled"); err != nil {
		return hookStatus{}, err
	}
	if len(m.fields) != 1 {
		return hookStatus{}, hookErr(CodeProtocol, `%s must have exactly one of exited and signaled`, name)
	}
	for k, v := range m.fields {
		n, ok := v.(json.Number)
		if !ok || !isIntLiteral(string(n)) {
			return hookStatus{}, hookErr(CodeProtocol, "wrong type: %s%s is %s, want an integer", m.path, k, jsonType(v))
		}
		code, err := strconv.ParseInt(string(n), 10, 64)
		s := hookStatus{Signaled: k == "signaled", Code: code}
		if err == nil {
			err = s.check()
		}
		if err != nil {
			return hookStatus{}, hookErr(CodeProtocol, "%s: %s%s %s out of range", name, m.path, k, clipString(string(n)))
		}
		return s, nil
	}
	return hookStatus{}, hookErr(CodeProtocol, "%s is empty", name) // not reached: len(m.fields) == 1
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// parseResponse parses exactly one JSON object, with whitespace around it
// and nothing else. Invalid UTF-8 anywhere, a duplicate key in any object,
// or nesting deeper than maxHookDepth is an error. Numbers stay
// json.Numbers, spelled as sent.
func parseResponse(data []byte) (hookObject, error) {
	if !utf8.Valid(data) {
		return hookObject{}, hookErr(CodeProtocol, "response is not valid UTF-8")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return hookObject{}, hookErr(CodeProtocol, "empty response")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, "", 0)
	if err != nil {
		return hookObject{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return hookObject{}, hookErr(CodeProtocol, "response is %s, want one JSON object", jsonType(v))
	}
	if _, err := dec.Token(); err != io.EOF {
		return hookObject{}, hookErr(CodeProtocol, "trailing data after the response object")
	}
	return hookObject{fields: m}, nil
}

func parseValue(dec *json.Decoder, path string, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= maxHookDepth {
		return nil, hookErr(CodeProtocol, "response nested deeper than %d", maxHookDepth)
	}
	switch d {
	case '[':
		xs := []any{}
		for dec.More() {
			x, err := parseValue(dec, fmt.Sprintf("%s[%d]", strings.TrimSuffix(path, "."), len(xs))+".", depth+1)
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntaxErr(err)
		}
		return xs, nil
	case '{':
		m := map[string]any{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, syntaxErr(err)
			}
			k, ok := tok.(string)
			if !ok { // the decoder reports a non-string key as a syntax error; be sure
				return nil, hookErr(CodeProtocol, "invalid JSON: object key is not a string")
			}
			if _, dup := m[k]; dup {
				return nil, hookErr(CodeProtocol, "duplicate field: %s", clipString(path+k))
			}
			x, err := parseValue(dec, path+k+".", depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = x
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntaxErr(err)
		}
		return m, nil
	}
	return nil, hookErr(CodeProtocol, "invalid JSON: unexpected %v", d)
}

func syntaxErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return hookErr(CodeProtocol, "invalid JSON: the response ends early (truncated?)")
	}
	return hookErr(CodeProtocol, "invalid JSON: %v", err)
}

// clipString cuts s to 64 bytes (on a rune boundary) for an error message.
func clipString(s string) string {
	if t, cut := textcut.Cut(s, 64); cut {
		return t + "..."
	}
	return s
}
