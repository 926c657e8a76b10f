package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/state"
)

// ErrNoGrant is wrapped by the error of revoking an unknown grant.
var ErrNoGrant = state.ErrNoGrant

// StateDir is where the approval grants and the script state of the
// repository at root are kept: in the user's configuration directory
// (authority.ConfigDir), beside the record of what a human authorized, in
// a folder named after the repository's key. What is in it approves
// commands, so it lives outside the repository, where an agent that writes
// files there cannot forge a grant or a snapshot, and where the guard
// keeps shell commands from writing.
func StateDir(root string, getenv func(string) string) (string, error) {
	cfg, err := authority.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	key, err := authority.Key(root)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(cfg, "state", hex.EncodeToString(sum[:16])), nil
}

// GrantStore is the store of the approval grants (and script state) of the
// repository at root, in its StateDir.
func GrantStore(root string, getenv func(string) string) (*state.Store, error) {
	dir, err := StateDir(root, getenv)
	if err != nil {
		return nil, fmt.Errorf("approval grants and script state: %w", err)
	}
	return state.Open(dir), nil
}

// stateStore is GrantStore, nil when there is no configuration directory:
// then no grant is kept and every script starts from empty state.
func stateStore(root string, getenv func(string) string) *state.Store {
	s, _ := GrantStore(root, getenv)
	return s
}

// grantStore is where the engine keeps grants: the StateDir of the
// repository it was loaded for, or the store it was built with; nil when it
// has none, and then no grant is found or stored.
func (e *Engine) grantStore() *state.Store { return e.store }

// newGrant is the grant a reviewer gives one command.
// A reviewer's own expiry (an executable's expires_at) can only shorten the
// grant, never make a durable one outlast [approvals] durable_days.
func (e *Engine) newGrant(it *askItem, ev *evaluation, reviewer, scope string, expires time.Time) *state.Grant {
	g := &state.Grant{
		ID: state.NewGrantID(), Scope: scope, Hash: it.query.Hash, ScopeHash: it.query.ScopeHash,
		Argv: it.argv, Program: it.program, Cwd: cleanCwd(ev.req.Cwd), ManifestSHA256: e.Manifest.Digest,
		Reviewer: reviewer, CreatedAt: ev.req.Time,
	}
	if state.SessionScope(scope) {
		g.SessionID = ev.req.SessionID
	}
	if scope == state.ScopeDurableExact {
		exp := ev.req.Time.Add(time.Duration(e.Manifest.Approvals.DurableDays) * 24 * time.Hour)
		g.ExpiresAt = &exp
	}
	if !expires.IsZero() && (g.ExpiresAt == nil || expires.Before(*g.ExpiresAt)) {
		g.ExpiresAt = &expires
	}
	return g
}

// programIdentity is the program of a command's innermost layer as
// written: "name:git" for a word looked up in PATH, "path:/usr/bin/git"
// (cleaned) for a path.
func programIdentity(c *shellcmd.Command) string {
	p := c.Path
	if p == "" && len(c.Argv) > 0 {
		p = c.Argv[0]
	}
	if strings.Contains(p, "/") {
		return "path:" + filepath.Clean(p)
	}
	return "name:" + p
}

// commandContext digests what changes a command's meaning beside its argv:
// its environment assignments and redirections, in order.
func commandContext(c *shellcmd.Command) string {
	if len(c.Assigns) == 0 && len(c.Redirects) == 0 {
		return ""
	}
	parts := make([]string, 0, len(c.Assigns)+len(c.Redirects))
	for _, a := range c.Assigns {
		parts = append(parts, "assign "+a)
	}
	for _, r := range c.Redirects {
		parts = append(parts, "redirect "+r.Op+" "+r.Target)
	}
	return state.GrantHash(parts...)
}

func cleanCwd(cwd string) string {
	if cwd == "" {
		return ""
	}
	return filepath.Clean(cwd)
}
