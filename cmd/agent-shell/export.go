package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/internal/nethelper"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry"
	// The cursor and the configuration only: no net/http, no init work.
	// Sending is the agent-shell-net helper's (telemetry/otlp/otlphttp):
	// net/http and crypto/tls would cost every hook call their
	// initialisation were they linked here.
	"github.com/agent-shell/agent-shell/telemetry/otlp"
)

func newExportCmd(a *app) *cobra.Command {
	var follow, asJSON bool
	var interval time.Duration
	var attempts int
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Send the recorded events to an OpenTelemetry Collector (OTLP/HTTP JSON logs)",
		Long: `Sends every event recorded in this repository that was not sent yet, as OTLP
log records over HTTP (JSON), to AGENTSHELL_OTLP_ENDPOINT + /v1/logs, else
OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (the full URL), else OTEL_EXPORTER_OTLP_ENDPOINT
+ /v1/logs. Headers come from OTEL_EXPORTER_OTLP_HEADERS (k=v,k=v), an extra CA
from OTEL_EXPORTER_OTLP_CERTIFICATE.

A cursor per endpoint, in the repository's state folder, says how far each
session file was sent; it moves only after the Collector answers 2xx. A 5xx,
a 429 or a connection error is retried with backoff (honouring Retry-After);
any other 4xx is permanent. Either way what was not sent stays for the next
run. It exits 0 when everything was sent, 1 otherwise.

With --follow it keeps running and sends new events as they are recorded.

The sending is done by the agent-shell-net helper, installed beside
agent-shell (go install .../cmd/agent-shell-net), so that the hook and the
shim do not carry an HTTP client.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runExport(follow, asJSON, interval, attempts)
		}),
	}
	cmd.Flags().BoolVar(&follow, "follow", false, "keep running: send new events as they are recorded (stop with SIGINT or SIGTERM)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print each pass as a JSON object: {"sent","damaged","rejected","requests","restarts","messages","error"}`)
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "with --follow, how often to look for new events")
	cmd.Flags().IntVar(&attempts, "attempts", 6, "tries per batch before giving up (5xx, 429, connection errors)")
	return cmd
}

// exportSetup finds the repository, the events folder, the endpoint and the
// cursor. cfg.URL is empty when no endpoint is configured.
func (a *app) exportSetup() (root, dir string, cfg otlp.Config, cursor string, err error) {
	h, err := a.here()
	if err != nil {
		return
	}
	root, ok := h.Root, h.InRepo
	if !ok {
		err = errors.New("run agent-shell export inside a git repository")
		return
	}
	cfg, ok, err = otlp.ConfigFromEnv(a.getenv)
	if err != nil {
		return
	}
	if !ok {
		err = errors.New("no OTLP endpoint: set AGENTSHELL_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_ENDPOINT), e.g. http://localhost:4318")
		return
	}
	if dir, err = telemetry.EventsDirForRead(root, a.getenv); err != nil {
		return
	}
	state, err := policy.StateDir(root, a.getenv)
	if err != nil {
		err = fmt.Errorf("the export cursor has nowhere to live: %w", err)
		return
	}
	return root, dir, cfg, otlp.CursorPath(state, cfg.URL), nil
}

func (a *app) runExport(follow, asJSON bool, interval time.Duration, attempts int) error {
	root, dir, _, cursor, err := a.exportSetup()
	if err != nil {
		return err
	}
	helper, err := findNetHelper("agent-shell export")
	if err != nil {
		return err
	}
	argv := []string{nethelper.Name, nethelper.ModeOTLP, "--events", dir, "--cursor", cursor, "--root", root,
		"--service-version", version(), "--interval", interval.String(), "--attempts", strconv.Itoa(attempts)}
	if follow {
		argv = append(argv, "--follow")
	}
	if asJSON {
		argv = append(argv, "--json")
	}
	// Replace this process: signals (a sidecar's SIGTERM) reach the helper.
	return syscall.Exec(helper, argv, os.Environ())
}

// exportBacklog is status's line about the export, when an endpoint is set.
func (r *statusReport) exportBacklog() {
	_, dir, cfg, cursor, err := r.a.exportSetup()
	if cfg.URL == "" {
		return // no endpoint configured (or not in a repository): nothing to say
	}
	if err != nil {
		r.fail("export: %v", err)
		return
	}
	if _, err := findNetHelper("agent-shell export"); err != nil {
		r.fail("export: %v", err)
	}
	n, files, err := otlp.Backlog(dir, cursor)
	if err != nil {
		r.fail("export: %v", err)
		return
	}
	if n == 0 {
		r.ok("export: every event sent to %s", cfg.URL)
		return
	}
	r.info("export: %d %s in %d session %s not yet sent to %s (agent-shell export)", n, plural(n, "event", "events"), files, plural(files, "file", "files"), cfg.URL)
}

// autoExportEvery is how often, at most, a session's end starts an export.
const autoExportEvery = time.Minute

// exportOnEnd starts the export helper detached when an endpoint is set:
// at the end of an agent's session (session_end, stop) and of an npm
// script. It is rate limited per repository and endpoint (a stamp file's
// age, AGENTSHELL_OTLP_AUTO_EVERY, default 1m) and AGENTSHELL_OTLP_AUTO=0
// turns it off. Nothing here waits for the network: the helper runs in its
// own session with its standard streams on /dev/null, so the host reading
// the hook's output never waits for it either; a failure is left for the
// next export (or status) to report.
func (a *app) exportOnEnd() {
	if a.getenv("AGENTSHELL_OTLP_AUTO") == "0" {
		return
	}
	if a.getenv("AGENTSHELL_OTLP_ENDPOINT") == "" && a.getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") == "" && a.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		return // the common case: three lookups and nothing more
	}
	every := autoExportEvery
	if v := a.getenv("AGENTSHELL_OTLP_AUTO_EVERY"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			every = d
		}
	}
	root, dir, _, cursor, err := a.exportSetup()
	if err != nil {
		return
	}
	stamp := cursor + ".started"
	if fi, err := os.Stat(stamp); err == nil && a.now().Sub(fi.ModTime()) < every {
		return
	}
	helper, err := findNetHelper("agent-shell export")
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(stamp), 0o700); err != nil {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return
	}
	now := a.now()
	_ = os.Chtimes(stamp, now, now)
	cmd := exec.Command(helper, nethelper.ModeOTLP, "--events", dir, "--cursor", cursor, "--root", root, "--service-version", version())
	cmd.Args[0] = nethelper.Name
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Stdin, Stdout and Stderr nil: /dev/null.
	if err := cmd.Start(); err == nil {
		_ = cmd.Process.Release()
	}
}
