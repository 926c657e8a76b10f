// Package mcpserver is agent-shell's MCP server: read-only tools over stdio
// that let an agent (or a refiner) ask before it acts: how the policy
// decides a command, what the flight recorder holds, and what the project's
// feedback loops and environment are.
//
// It lives in the helper binary agent-shell-net, because the MCP SDK links
// net/http and crypto/tls, whose initialisation every hook call of the
// agent-shell binary would otherwise pay.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/policy/discover"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Limits of query_log's answer.
const (
	DefaultLogLimit = 50
	MaxLogLimit     = 500
)

// Server answers the tools for the repository that holds Dir.
type Server struct {
	Dir     string // the directory the server was started in
	Getenv  func(string) string
	Version string
	Now     func() time.Time
}

// Main runs the server over stdin/stdout until the client goes away.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fl := flag.NewFlagSet("agent-shell-net mcp", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", "", "the directory whose repository the tools answer about (default: the current directory)")
	version := fl.String("version", "dev", "the version to report to clients")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "agent-shell-net mcp: %v\n", err)
			return 1
		}
		*dir = wd
	}
	s := &Server{Dir: *dir, Getenv: getenv, Version: *version, Now: time.Now}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := s.MCP().Run(context.Background(), t); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "agent-shell-net mcp: %v\n", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ExplainIn is explain_policy's input.
type ExplainIn struct {
	Command string `json:"command" jsonschema:"the shell command line to explain"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"the directory it would run in (default: the server's)"`
	Agent   string `json:"agent,omitempty" jsonschema:"the agent whose call it would be (claude, codex, gemini, copilot...)"`
}

// LogIn is query_log's input: the filters of agent-shell log.
type LogIn struct {
	Last     string `json:"last,omitempty" jsonschema:"only events from the last DURATION (30s, 15m, 2h, 7d)"`
	Failures bool   `json:"failures,omitempty" jsonschema:"only failed scripts, denied decisions and shim errors"`
	Actor    string `json:"actor,omitempty" jsonschema:"only events by this actor (an agent's hook name, claude, finds claude-code)"`
	Script   string `json:"script,omitempty" jsonschema:"only script_end events of this npm script"`
	Session  string `json:"session,omitempty" jsonschema:"only this session id"`
	Event    string `json:"event,omitempty" jsonschema:"only events of this type"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many events, the most recent (default 50, at most 500)"`
}

type none struct{}

// MCP builds the MCP server with its tools.
func (s *Server) MCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "agent-shell", Version: s.Version}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(srv, &mcp.Tool{Name: "explain_policy", Annotations: ro,
		Description: "How agent-shell's policy decides a shell command, before running it: the decision (allow, ask, deny), " +
			"what decided it (guard or rule), each simple command's effects and matching rules, the scripts that ran. " +
			"Nothing is run or recorded."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ExplainIn) (*mcp.CallToolResult, any, error) {
			out, err := s.Explain(in)
			return nil, out, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "query_log", Annotations: ro,
		Description: "Events of agent-shell's flight recorder (the filters of `agent-shell log`), oldest first, " +
			"the most recent `limit` of them (default 50, at most 500); `truncated` says when more matched."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in LogIn) (*mcp.CallToolResult, any, error) {
			out, err := s.QueryLog(in)
			return nil, out, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "discover_feedback_loops", Annotations: ro,
		Description: "The project's test, build, lint, install and task commands, as `agent-shell policy --init` finds them, " +
			"each with where it was found; commands found but not proposed say why."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			out, err := s.FeedbackLoops()
			return nil, out, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "discover_environment", Annotations: ro,
		Description: "The project's toolchains, package manager and lockfile, workspaces, task runners and CI workflows."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			out, err := s.Environment()
			return nil, out, err
		})
	return srv
}

func (s *Server) getenv(k string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(k)
}

// Explain decides command as the hook would (a pre-tool shell call, guards
// first), without running, recording or storing anything.
func (s *Server) Explain(in ExplainIn) (policy.Explanation, error) {
	if in.Command == "" {
		return policy.Explanation{}, errors.New("command is empty")
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd = s.Dir
	} else if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(s.Dir, cwd)
	}
	var e *policy.Engine
	if root, ok := project.RepoRoot(cwd); !ok {
		e = &policy.Engine{LoadErr: fmt.Errorf("%s is not inside a git repository", cwd)}
	} else {
		cfgDir, _ := authority.ConfigDir(s.getenv)
		e, _ = policy.LoadAuthorized(root, s.getenv, cfgDir)
		e.Home = s.getenv("HOME")
	}
	e.DryRun = true
	ev := &hostapi.Event{Agent: in.Agent, Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Command: in.Command, Cwd: cwd}
	return policy.Explain(in.Command, e, e.DecideEvent(ev)), nil
}

// LogResult is query_log's answer.
type LogResult struct {
	Events    []json.RawMessage `json:"events"`
	Matched   int               `json:"matched"`
	Truncated bool              `json:"truncated"`
	Damaged   int               `json:"damaged_lines,omitempty"`
}

// QueryLog runs telemetry's query with the log filters and keeps the last
// Limit events.
func (s *Server) QueryLog(in LogIn) (LogResult, error) {
	res := LogResult{Events: []json.RawMessage{}}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultLogLimit
	case limit < 0 || limit > MaxLogLimit:
		return res, fmt.Errorf("limit: want 1 to %d", MaxLogLimit)
	}
	var flt telemetry.Filter
	if in.Last != "" {
		d, err := telemetry.ParseDuration(in.Last)
		if err != nil {
			return res, fmt.Errorf("last: want a duration (2h): %w", err)
		}
		now := time.Now
		if s.Now != nil {
			now = s.Now
		}
		flt.Since = now().Add(-d)
	}
	flt.Failures = in.Failures
	if in.Actor != "" {
		a := hostapi.Actor(in.Actor)
		flt.Actor = &a
	}
	if in.Script != "" {
		flt.Script = &in.Script
	}
	if in.Event != "" {
		flt.Event = &in.Event
	}
	dir, err := telemetry.EventsDirForRead(project.FindRoot(s.Dir), s.getenv)
	if err != nil {
		return res, err
	}
	var files []string
	if in.Session != "" {
		p, err := telemetry.SessionFile(dir, in.Session)
		if err != nil {
			return res, err
		}
		files = []string{p}
	} else {
		files, _, err = telemetry.ListFiles(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("read events: %w", err)
		}
	}
	q := &telemetry.Query{Files: files, Filter: flt, Validate: true}
	ring := make([]json.RawMessage, 0, limit)
	damage, err := q.Run(func(r *telemetry.Record) error {
		raw := json.RawMessage(append([]byte(nil), r.Raw...))
		if len(ring) < limit {
			ring = append(ring, raw)
		} else {
			ring[res.Matched%limit] = raw
		}
		res.Matched++
		return nil
	})
	if err != nil {
		return res, err
	}
	if res.Matched > limit {
		res.Truncated = true
		k := res.Matched % limit
		ring = append(ring[k:], ring[:k]...)
	}
	res.Events = ring
	for _, d := range damage {
		res.Damaged += d.Count
	}
	return res, nil
}

func (s *Server) scan() (*discover.Project, error) {
	root, ok := project.RepoRoot(s.Dir)
	if !ok {
		return nil, fmt.Errorf("%s is not inside a git repository", s.Dir)
	}
	return discover.Scan(root)
}

// FeedbackLoops is the policy --init scan's commands.
func (s *Server) FeedbackLoops() (discover.FeedbackLoops, error) {
	p, err := s.scan()
	if err != nil {
		return discover.FeedbackLoops{}, err
	}
	return discover.FeedbackLoopsOf(p, discover.Propose(p)), nil
}

// Environment reports the scan's toolchains, package manager, workspaces,
// task runners and CI.
func (s *Server) Environment() (discover.Environment, error) {
	p, err := s.scan()
	if err != nil {
		return discover.Environment{}, err
	}
	return discover.EnvironmentOf(p), nil
}
