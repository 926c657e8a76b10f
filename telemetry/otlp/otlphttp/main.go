package otlphttp

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agent-shell/agent-shell/telemetry/otlp"
)

// Main is the helper mode (agent-shell-net otlp) `agent-shell export` runs: it
// sends the events of --events past the cursor at --cursor to the endpoint
// the environment names, and returns the exit status (0 all sent, 1 not,
// 2 usage).
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdout, stderr, getenv)
}

// maxFollowWait bounds the wait between passes of --follow after failures.
const maxFollowWait = 5 * time.Minute

// run is Main until ctx ends (--follow stops then, with status 0).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("agent-shell-net otlp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	events := fs.String("events", "", "the events folder")
	cursor := fs.String("cursor", "", "the cursor file")
	root := fs.String("root", "", "the repository root (for the vcs.* resource attributes)")
	version := fs.String("service-version", "", "service.version")
	follow := fs.Bool("follow", false, "keep running")
	asJSON := fs.Bool("json", false, "print each pass as JSON")
	interval := fs.Duration("interval", 2*time.Second, "with --follow, how often to look")
	attempts := fs.Int("attempts", DefaultRetry().Attempts, "tries per batch")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	errorf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "agent-shell: "+format+"\n", args...)
	}
	if *events == "" || *cursor == "" || fs.NArg() > 0 {
		errorf("usage: agent-shell-net otlp --events DIR --cursor FILE [--root DIR] [--follow] [--json] (run it as agent-shell export)")
		return 2
	}
	cfg, ok, err := otlp.ConfigFromEnv(getenv)
	if err == nil && !ok {
		err = errors.New("no OTLP endpoint: set AGENTSHELL_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_ENDPOINT), e.g. http://localhost:4318")
	}
	var client *http.Client
	if err == nil {
		client, err = HTTPClient(cfg)
	}
	if err != nil {
		errorf("export: %v", err)
		return 1
	}
	unlock, err := otlp.Lock(*cursor)
	if err != nil {
		errorf("export: %v", err)
		return 1
	}
	defer unlock()
	retry := DefaultRetry()
	retry.Attempts = max(*attempts, 1)
	res := otlp.ResourceInfo{}
	if *root != "" {
		res = otlp.DetectResource(*root)
	} else {
		res.HostName, _ = os.Hostname()
	}
	res.ServiceVersion = *version
	x := &otlp.Exporter{
		Dir:        *events,
		CursorPath: *cursor,
		Endpoint:   cfg.URL,
		Sender:     &Sender{URL: cfg.URL, Headers: cfg.Headers, Client: client, Retry: retry},
		Resource:   res,
	}
	wait := *interval
	for {
		r, err := x.Run(ctx)
		if *follow && ctx.Err() != nil {
			return 0
		}
		report(stdout, errorf, cfg.URL, r, err, *asJSON, *follow)
		if !*follow {
			if err != nil {
				return 1
			}
			return 0
		}
		// A Collector that keeps failing is asked less and less often.
		if err != nil {
			wait = min(max(wait*2, *interval), maxFollowWait)
		} else {
			wait = *interval
		}
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(wait):
		}
	}
}

func report(stdout io.Writer, errorf func(string, ...any), url string, r otlp.Result, err error, asJSON, follow bool) {
	quiet := follow && err == nil && r.Sent == 0 && len(r.Restarts) == 0
	if asJSON && !quiet {
		out := struct {
			otlp.Result
			Error string `json:"error,omitempty"`
		}{Result: r}
		if err != nil {
			out.Error = err.Error()
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(out)
	}
	for _, rs := range r.Restarts {
		errorf("export: %s %s; sending it again from its start", quote(rs.File), rs.Why)
	}
	if r.Rejected > 0 {
		errorf("export: the Collector accepted the requests but dropped %d records: %s", r.Rejected, quote(strings.Join(r.Messages, "; ")))
	}
	if !asJSON && (r.Sent > 0 || !follow) {
		damaged := ""
		if r.Damaged > 0 {
			damaged = fmt.Sprintf(" (%d damaged %s, flagged agent_shell.damaged)", r.Damaged, plural(r.Damaged, "line", "lines"))
		}
		fmt.Fprintf(stdout, "exported %d %s to %s in %d %s%s\n", r.Sent, plural(r.Sent, "event", "events"), url, r.Requests, plural(r.Requests, "request", "requests"), damaged)
	}
	if err != nil {
		what := "export failed"
		var perm *PermanentError
		if errors.As(err, &perm) {
			what = "export stopped"
		}
		errorf("%s: %s; the events not sent stay for the next export", what, quote(err.Error()))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quote makes text from a server or a file name safe to print on a
// terminal: control characters are escaped.
func quote(s string) string {
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}
