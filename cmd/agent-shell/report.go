package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
	"github.com/agent-shell/agent-shell/telemetry"
	"github.com/agent-shell/agent-shell/telemetry/report"
)

func newReportCmd(a *app) *cobra.Command {
	var session, last, output string
	cmd := &cobra.Command{
		Use:   "report -o FILE",
		Short: "Write the recorded sessions as one self-contained HTML page",
		Long: `Writes one HTML file that shows each session as a timeline: prompts, tool
calls with their decision and rule, npm scripts and sandboxed commands with
exit status and duration, denials and asks highlighted, failures, extension
runs, and each session's hash-chain verification. It filters by session,
agent, decision, event type, failures and text, and prints the filtered
events. The file needs no network and no other file: open it from disk.

Every session is included unless --session or --last narrows it. Commands
and prompts are cut to 2000 bytes, reasons to 1000 (log --json has them
whole). Damaged lines are counted in the page and on stderr.`,
		Example: `  agent-shell report -o report.html
  agent-shell report --last 7d -o week.html
  agent-shell report --session 8f1c0e4a-... -o - > session.html`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.runReport(cmd, session, last, output)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "only session `ID`")
	f.StringVar(&last, "last", "", "only events from the last `DURATION` (30s, 15m, 2h, 7d)")
	f.StringVarP(&output, "output", "o", "", "write the page to `FILE` (- for stdout)")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func (a *app) runReport(cmd *cobra.Command, session, last, output string) error {
	var since time.Time
	if cmd.Flags().Changed("last") {
		d, err := telemetry.ParseDuration(last)
		if err != nil {
			return &runtimeError{err: fmt.Errorf("--last: %w", err), code: exitUsage}
		}
		since = a.now().Add(-d)
	}
	dir, err := a.eventsDir()
	if err != nil {
		return err
	}
	var ids []string
	if session != "" {
		ids = []string{session}
	}
	out := a.stdout
	a.stdout = a.stderr // sessionFiles' notes: stdout may be the page
	files, skipped, _, err := a.sessionFiles(dir, ids)
	a.stdout = out
	if err != nil {
		return err
	}
	for _, s := range skipped {
		a.errorf("skipped %s: %s, not a regular file", displayPath(s.Path), s.Kind())
	}
	h, _ := a.here()
	o := report.Options{Files: files, Since: since, Generated: a.now(), Generator: version(),
		Title: filepath.Base(h.Root)}

	var sum *report.Summary
	if output == "-" {
		if sum, err = report.Write(a.stdout, o); err != nil {
			return err
		}
	} else {
		// Written whole or not at all: a reader never sees half a page.
		var page bytes.Buffer
		if sum, err = report.Write(&page, o); err != nil {
			return err
		}
		if err := atomicfile.Write(output, page.Bytes(), 0); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "wrote %s: %d %s in %d %s, %s\n", displayPath(output), sum.Events, plural(sum.Events, "event", "events"),
			sum.Sessions, plural(sum.Sessions, "session", "sessions"), formatBytes(sum.Bytes))
	}
	if sum.Damaged > 0 {
		a.errorf("%d damaged line(s) could not be read; the report counts them per session", sum.Damaged)
	}
	return nil
}

func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
