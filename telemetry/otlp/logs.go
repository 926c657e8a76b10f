package otlp

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// The OTLP/HTTP JSON encoding of logs (opentelemetry-proto's
// ExportLogsServiceRequest, in its JSON mapping: camelCase names, 64-bit
// integers as decimal strings, enums as numbers).

// ExportLogsRequest is the body POSTed to /v1/logs.
type ExportLogsRequest struct {
	ResourceLogs []ResourceLogs `json:"resourceLogs"`
}

// ResourceLogs are the logs of one resource.
type ResourceLogs struct {
	Resource  Resource    `json:"resource"`
	ScopeLogs []ScopeLogs `json:"scopeLogs"`
}

// Resource is what produced the logs: this host and repository.
type Resource struct {
	Attributes []KeyValue `json:"attributes"`
}

// ScopeLogs are the logs of one instrumentation scope.
type ScopeLogs struct {
	Scope      Scope       `json:"scope"`
	LogRecords []LogRecord `json:"logRecords"`
}

// Scope names the instrumentation: agent-shell itself.
type Scope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// LogRecord is one event.
type LogRecord struct {
	TimeUnixNano         string     `json:"timeUnixNano,omitempty"`
	ObservedTimeUnixNano string     `json:"observedTimeUnixNano"`
	SeverityNumber       int        `json:"severityNumber"`
	SeverityText         string     `json:"severityText"`
	Body                 AnyValue   `json:"body"`
	Attributes           []KeyValue `json:"attributes"`
}

// KeyValue is one attribute.
type KeyValue struct {
	Key   string   `json:"key"`
	Value AnyValue `json:"value"`
}

// AnyValue holds one of a string, an integer (as a decimal string) or a
// boolean.
type AnyValue struct {
	StringValue *string `json:"stringValue,omitempty"`
	IntValue    *string `json:"intValue,omitempty"`
	BoolValue   *bool   `json:"boolValue,omitempty"`
}

func str(k, v string) KeyValue { return KeyValue{Key: k, Value: AnyValue{StringValue: &v}} }
func num(k string, v int64) KeyValue {
	s := strconv.FormatInt(v, 10)
	return KeyValue{Key: k, Value: AnyValue{IntValue: &s}}
}
func boolean(k string, v bool) KeyValue { return KeyValue{Key: k, Value: AnyValue{BoolValue: &v}} }

// Severity numbers of the OpenTelemetry log data model.
const (
	SeverityInfo  = 9
	SeverityWarn  = 13
	SeverityError = 17
)

// ResourceInfo is what is known of the machine and repository.
type ResourceInfo struct {
	ServiceVersion string
	HostName       string
	RepositoryURL  string // the origin remote, without credentials
	Branch         string
}

// Attributes are the resource's attributes, semantic conventions' names.
func (ri ResourceInfo) Attributes() []KeyValue {
	attrs := []KeyValue{str("service.name", "agent-shell")}
	if ri.ServiceVersion != "" {
		attrs = append(attrs, str("service.version", ri.ServiceVersion))
	}
	if ri.HostName != "" {
		attrs = append(attrs, str("host.name", ri.HostName))
	}
	if ri.RepositoryURL != "" {
		attrs = append(attrs, str("vcs.repository.url.full", ri.RepositoryURL))
	}
	if ri.Branch != "" {
		attrs = append(attrs, str("vcs.ref.head.name", ri.Branch))
	}
	return attrs
}

// DetectResource finds the host name and, with git, the repository's origin
// URL (any user and password in it removed) and current branch. What
// cannot be found is left empty.
func DetectResource(root string) ResourceInfo {
	var ri ResourceInfo
	ri.HostName, _ = os.Hostname()
	git := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	ri.RepositoryURL = stripCredentials(git("remote", "get-url", "origin"))
	if b := git("symbolic-ref", "--short", "-q", "HEAD"); b != "" {
		ri.Branch = b
	}
	return ri
}

// stripCredentials removes the user information of a URL remote; scp-like
// remotes (git@host:path) keep their user, which is not a secret.
func stripCredentials(remote string) string {
	if remote == "" || !strings.Contains(remote, "://") {
		return remote
	}
	u, err := url.Parse(remote)
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}

// Record maps one line to a log record. The body is the line as recorded
// (already redacted and audit-filtered by the writer); the attributes
// repeat what a backend indexes. A damaged line keeps its raw text as the
// body and is flagged agent_shell.damaged.
func Record(l *Line, observed time.Time) LogRecord {
	r := LogRecord{
		ObservedTimeUnixNano: strconv.FormatInt(observed.UnixNano(), 10),
		SeverityNumber:       SeverityInfo,
		SeverityText:         "INFO",
	}
	body := string(l.Raw)
	r.Body = AnyValue{StringValue: &body}
	session := telemetry.SessionIDOf(l.File)
	ev := l.Event
	if ev == nil {
		r.SeverityNumber, r.SeverityText = SeverityError, "ERROR"
		r.Attributes = []KeyValue{
			str("agent_shell.session_id", session),
			boolean("agent_shell.damaged", true),
			str("agent_shell.damage", l.Damage),
			num("agent_shell.offset", l.Start),
		}
		return r
	}
	if !ev.Timestamp.IsZero() {
		r.TimeUnixNano = strconv.FormatInt(ev.Timestamp.UnixNano(), 10)
	}
	switch {
	case ev.Event == telemetry.EventShimError || ev.Event == telemetry.EventExtensionError || ev.Event == telemetry.EventRepair:
		r.SeverityNumber, r.SeverityText = SeverityError, "ERROR"
	case l.Fields.IsFailure():
		r.SeverityNumber, r.SeverityText = SeverityWarn, "WARN"
	}
	if ev.SessionID != "" {
		session = ev.SessionID
	}
	a := []KeyValue{str("agent_shell.event", ev.Event), str("agent_shell.session_id", session)}
	if ev.Seq > 0 {
		a = append(a, num("agent_shell.seq", ev.Seq))
	}
	opt := func(k, v string) {
		if v != "" {
			a = append(a, str(k, v))
		}
	}
	opt("agent_shell.prev_sha256", ev.PrevSHA256)
	opt("agent_shell.actor", ev.Actor)
	opt("agent_shell.agent", ev.Agent)
	opt("agent_shell.command", ev.Command)
	opt("agent_shell.decision", ev.Decision)
	rule := ev.MatchedRule
	if rule == "" {
		rule = ev.Rule
	}
	opt("agent_shell.rule", rule)
	opt("agent_shell.request_id", ev.RequestID)
	opt("agent_shell.tool_name", ev.ToolName)
	if l.Fields.HasExitCode {
		a = append(a, num("process.exit.code", int64(ev.ExitCode)))
		opt("agent_shell.signal", ev.Signal)
		a = append(a, num("agent_shell.duration_ms", int64(ev.DurationMS)))
	}
	if u := ev.Env["USER"]; u != "" {
		a = append(a, str("user.name", u))
	}
	r.Attributes = a
	return r
}
