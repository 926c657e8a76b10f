package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/state"
	"github.com/agent-shell/agent-shell/telemetry"
	"github.com/agent-shell/agent-shell/telemetry/logtable"
)

// grantsTimeout bounds the wait for a grants file's lock.
const grantsTimeout = 5 * time.Second

func newGrantsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "grants",
		Short: "List and revoke the approval grants reviewers gave",
		Long: `A reviewer that approves a command for a scope leaves a grant: a later request
with the same identity (manifest, program, cwd, argv...) is then approved
without asking. Session grants (exact_session, prefix_session) live with
their agent session; durable grants (durable_exact) last until they expire.
They are kept outside the repository, with the record of what you authorized:
$XDG_CONFIG_HOME/agent-shell/state/ (an agent that writes files in the
repository cannot forge one).`,
		Example: `  agent-shell grants list
  agent-shell grants list --json | jq .argv
  agent-shell grants revoke g-0123456789abcdef`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every grant of this repository, session and durable, revoked and expired ones too",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runGrantsList(asJSON)
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per grant")
	var reason string
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a grant: requests it approved are reviewed again",
		Args:  cobra.ExactArgs(1),
		RunE: runE(func(_ *cobra.Command, args []string) error {
			return a.runGrantsRevoke(args[0], reason)
		}),
	}
	revoke.Flags().StringVar(&reason, "reason", "revoked with agent-shell grants revoke", "why, kept with the grant")
	cmd.AddCommand(list, revoke)
	return cmd
}

// grantStore is the store of this repository's grants.
func (a *app) grantStore() (*state.Store, error) {
	h, err := a.here()
	if err != nil {
		return nil, err
	}
	return policy.GrantStore(h.Root, a.getenv)
}

func (a *app) runGrantsList(asJSON bool) error {
	store, err := a.grantStore()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), grantsTimeout)
	defer cancel()
	grants, err := store.ListGrants(ctx)
	if err != nil {
		return fmt.Errorf("list grants: %w", err)
	}
	now := a.now()
	out := bufio.NewWriter(a.stdout)
	defer out.Flush()
	if asJSON {
		enc := json.NewEncoder(out)
		stamp := func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return t.UTC().Format(telemetry.TimestampLayout)
		}
		for _, g := range grants {
			created := g.CreatedAt
			v := struct {
				ID               string   `json:"id"`
				Scope            string   `json:"scope"`
				Status           string   `json:"status"`
				SessionID        string   `json:"session_id,omitempty"`
				Argv             []string `json:"argv"`
				Program          string   `json:"program,omitempty"`
				Cwd              string   `json:"cwd,omitempty"`
				Reviewer         string   `json:"reviewer"`
				Created          string   `json:"created_at"`
				Expires          string   `json:"expires_at,omitempty"`
				LastUsed         string   `json:"last_used_at,omitempty"`
				Revoked          string   `json:"revoked_at,omitempty"`
				RevocationReason string   `json:"revocation_reason,omitempty"`
				Manifest         string   `json:"manifest_sha256,omitempty"`
			}{
				ID: g.ID, Scope: g.Scope, Status: grantStatus(g.RevokedAt, g.ExpiresAt, now), SessionID: g.SessionID,
				Argv: g.Argv, Program: g.Program, Cwd: g.Cwd, Reviewer: g.Reviewer, Created: stamp(&created),
				Expires: stamp(g.ExpiresAt), LastUsed: stamp(g.LastUsedAt), Revoked: stamp(g.RevokedAt),
				RevocationReason: g.RevocationReason, Manifest: g.ManifestSHA256,
			}
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		return nil
	}
	if len(grants) == 0 {
		fmt.Fprintln(out, "No approval grants.")
		return nil
	}
	t := func(p *time.Time) string {
		if p == nil {
			return "-"
		}
		return logtable.Time(*p)
	}
	rows := [][]string{{"ID", "SCOPE", "STATUS", "SESSION", "CREATED", "EXPIRES", "LAST USED", "REVIEWER", "COMMAND"}}
	for _, g := range grants {
		rows = append(rows, []string{
			g.ID, g.Scope, grantStatus(g.RevokedAt, g.ExpiresAt, now), logtable.Dash(termtext.Line(g.SessionID, 40)),
			logtable.Time(g.CreatedAt), t(g.ExpiresAt), t(g.LastUsedAt), logtable.Dash(termtext.Line(g.Reviewer, 0)),
			termtext.Line(quoteArgv(g.Argv), 0),
		})
	}
	logtable.Fit(out, rows)
	return nil
}

// grantStatus is "revoked", "expired" or "live".
func grantStatus(revoked, expires *time.Time, now time.Time) string {
	switch {
	case revoked != nil:
		return "revoked"
	case expires != nil && now.After(*expires):
		return "expired"
	}
	return "live"
}

func (a *app) runGrantsRevoke(id, reason string) error {
	store, err := a.grantStore()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), grantsTimeout)
	defer cancel()
	now := a.now()
	g, err := store.RevokeGrant(ctx, id, reason, now)
	if err != nil {
		if errors.Is(err, policy.ErrNoGrant) {
			return fmt.Errorf("no grant has id %q (see agent-shell grants list)", id)
		}
		return fmt.Errorf("revoke grant %s: %w", id, err)
	}
	if g.RevokedAt != nil && !g.RevokedAt.Equal(now) {
		fmt.Fprintf(a.stdout, "%s was already revoked (%s)\n", g.ID, logtable.Time(*g.RevokedAt))
		return nil
	}
	fmt.Fprintf(a.stdout, "revoked %s (%s: %s)\n", g.ID, g.Scope, termtext.Line(quoteArgv(g.Argv), 0))
	return nil
}
