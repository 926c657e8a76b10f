package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/internal/textcut"
	"github.com/agent-shell/agent-shell/internal/udiff"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/policy/discover"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/setup"
	"github.com/agent-shell/agent-shell/telemetry"
)

// maxCompareBytes bounds how much of an existing file is read to show how it
// differs from the proposal.
const maxCompareBytes = 1 << 20

// runPolicyInit is `agent-shell policy --init`: it scans the project at root
// (the repository root), prints what it found and the proposed
// agent-shell.toml, and writes it when it does not exist yet. An
// existing file is never touched: its differences from the proposal are
// printed instead.
func (a *app) runPolicyInit(root string, write, yes bool, rf refiner) error {
	w := a.stdout
	fmt.Fprintln(w, "Scanning project...")
	p, err := discover.Scan(root)
	if err != nil {
		return fmt.Errorf("policy init: %w", err)
	}
	fmt.Fprintln(w, p.Summary())
	for _, n := range p.Notes {
		fmt.Fprintf(a.stderr, "agent-shell: note: %s\n", n)
	}
	// The proposal is one manifest: the safety pack, the project's rules and
	// default ask. No policy.json: its patterns would overrule the pack's
	// finer rules (rm -rf * denies rm -rf ./dist).
	prop := discover.Propose(p)
	sub := policy.ManifestSubpath
	fmt.Fprintf(w, "\n--- Proposed %s ---\n", sub)
	w.Write(prop.Manifest)
	fmt.Fprintln(w)
	// The draft is what is written unless a refinement applies (--write).
	if rf.cmd != "" {
		if refined, ok := a.refine(rf, p, prop); ok {
			if write {
				prop = refined
			} else {
				fmt.Fprintln(w, "(the refinement is applied with --write; the draft stands)")
			}
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("policy init: %w", err)
	}
	defer r.Close()
	existing, exists, err := readExisting(r, sub)
	if err != nil {
		return fmt.Errorf("policy init: %s: %w", sub, err)
	}
	switch {
	case !exists:
		written, err := writeNew(r, sub, prop.Manifest)
		if err != nil {
			return fmt.Errorf("policy init: write %s: %w", sub, err)
		}
		if written {
			fmt.Fprintf(w, "Wrote %s\n", sub)
		} else {
			fmt.Fprintf(w, "Skipping %s: it appeared while writing, nothing written.\n", sub)
		}
	case existing == nil:
		fmt.Fprintf(w, "Skipping %s: it is larger than %d bytes or not a regular file: not compared.\n", sub, maxCompareBytes)
	case !write:
		fmt.Fprintf(w, "Skipping %s: it already exists, nothing written.\n", sub)
		if d := udiff.Unified(sub+" (existing)", sub+" (proposed)", existing, prop.Manifest); d == "" {
			fmt.Fprintln(w, "(it is the same as the proposal)")
		} else {
			io.WriteString(w, d)
			fmt.Fprintln(w, "(agent-shell policy --init --write merges the proposal into it)")
		}
	default:
		if err := a.mergeProposal(r, root, sub, existing, prop, yes); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nVerify with: agent-shell policy check")
	return nil
}

// mergeProposal is policy --init --write on an existing manifest: init's
// unedited starter is replaced by the proposal, anything else gets what
// the proposal has and it lacks (discover.Merge). The change is shown, and
// written after a yes on the terminal, or with --yes.
func (a *app) mergeProposal(r *os.Root, root, sub string, existing []byte, prop discover.Proposal, yes bool) error {
	w := a.stdout
	next := prop.Manifest
	if string(existing) != setup.StarterManifest {
		merged, notes, err := discover.Merge(filepath.Join(root, sub), existing, prop)
		if err != nil {
			return fmt.Errorf("policy init: %w", err)
		}
		next = merged
		for _, n := range notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	d := udiff.Unified(sub+" (existing)", sub+" (merged)", existing, next)
	if d == "" {
		fmt.Fprintf(w, "%s has everything the proposal has: nothing to write.\n", sub)
		return nil
	}
	io.WriteString(w, d)
	if !yes {
		tty := a.initTerminal()
		if tty == nil {
			fmt.Fprintf(w, "Not written: run agent-shell policy --init --write --yes to write it, or run it on a terminal to be asked.\n")
			return nil
		}
		fmt.Fprintf(w, "Write %s? [y/N] ", sub)
		answer, _ := bufio.NewReader(tty.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(w, "Nothing written.")
			return nil
		}
	}
	tmp := sub + ".tmp-policy-init"
	if err := r.WriteFile(tmp, next, 0o644); err != nil {
		return fmt.Errorf("policy init: write %s: %w", sub, err)
	}
	if err := r.Rename(tmp, sub); err != nil {
		r.Remove(tmp)
		return fmt.Errorf("policy init: write %s: %w", sub, err)
	}
	fmt.Fprintf(w, "Wrote %s\n", sub)
	return nil
}

// readExisting reads a file under the root without following a symbolic
// link anywhere on its path (the policy loader refuses those too). data is
// nil when the file exists but is not compared (not a regular file, or too
// large).
func readExisting(r *os.Root, sub string) (data []byte, exists bool, err error) {
	parts := strings.Split(sub, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := r.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, false, fmt.Errorf("%s is a symbolic link; agent-shell does not follow it", p)
		}
		if i == len(parts)-1 && (!fi.Mode().IsRegular() || fi.Size() > maxCompareBytes) {
			return nil, true, nil
		}
	}
	f, err := r.Open(sub)
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxCompareBytes+1))
	if err != nil || len(data) > maxCompareBytes {
		return nil, true, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, true, nil
}

// writeNew writes data to sub atomically and only if sub does not exist:
// the content goes to a temporary file in the same directory, which is then
// linked into place (link fails if the name is taken, unlike rename, so a
// file that appears meanwhile is never replaced). Where links are not
// supported it falls back to rename after checking again. Directories on
// the way are created; a symbolic link among them is refused.
func writeNew(r *os.Root, sub string, data []byte) (written bool, err error) {
	dir := path.Dir(sub)
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := r.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := r.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return false, err
			}
			continue
		}
		if err != nil {
			return false, err
		}
		if !fi.IsDir() {
			return false, fmt.Errorf("%s is not a directory", p)
		}
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, "."+path.Base(sub)+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false, err
	}
	defer r.Remove(tmp) // after a link, or after a failure; a rename leaves nothing
	if _, err := f.Write(data); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	err = r.Link(tmp, sub)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	}
	if _, lerr := r.Lstat(sub); lerr == nil {
		return false, nil
	}
	if err := r.Rename(tmp, sub); err != nil {
		return false, err
	}
	return true, nil
}

// refiner is --refine-with: the program and how long it may take.
type refiner struct {
	cmd     string
	timeout time.Duration
}

// refine runs the refiner on the draft and shows what it proposed, what
// was applied and rejected and why, and the diff. ok is false when the
// refinement failed or changed nothing: then the draft stands.
func (a *app) refine(rf refiner, p *discover.Project, draft discover.Proposal) (discover.Proposal, bool) {
	w := a.stdout
	fmt.Fprintf(w, "\n--- Refinement by %s ---\n", rf.cmd)
	failed := func(format string, args ...any) (discover.Proposal, bool) {
		fmt.Fprintf(w, "Refinement failed: %s\nNothing of it is used: the draft stands.\n", fmt.Sprintf(format, args...))
		return draft, false
	}
	mcp := []string{"agent-shell", "mcp"}
	if self, err := os.Executable(); err == nil {
		mcp[0] = self
	}
	req, err := json.Marshal(discover.NewRefineRequest(p, draft, mcp))
	if err != nil {
		return failed("the request: %v", err)
	}
	prog := &runtime.Program{Label: "refiner", Argv: []string{"/bin/sh", "-c", rf.cmd}, Dir: p.Root,
		Env: append(os.Environ(), "AGENTSHELL_MCP_COMMAND="+shellJoin(mcp)), Timeout: rf.timeout, MaxOutput: discover.MaxRefineResponse}
	out, stderr, err := prog.Run(context.Background(), append(req, '\n'))
	if err != nil {
		return failed("%s", telemetry.Redact(err.Error()))
	}
	if s := strings.TrimSpace(stderr); s != "" {
		if t, cut := textcut.Cut(s, 2000); cut {
			s = t + "..."
		}
		fmt.Fprintf(a.stderr, "agent-shell: refiner stderr: %s\n", telemetry.Redact(s))
	}
	ref, err := discover.Refine(draft, out)
	if err != nil {
		return failed("%s", err)
	}
	applied := 0
	for _, c := range ref.Changes {
		sign := map[string]string{"add": "+", "change": "~", "remove": "-"}[c.Op]
		if c.Applied {
			applied++
			fmt.Fprintf(w, "%s %s rule %s: %s\n", sign, c.Op, c.ID, c.Reason)
		} else {
			fmt.Fprintf(w, "x rejected: %s rule %s: %s (the refiner's reason: %s)\n", c.Op, c.ID, c.Rejected, c.Reason)
		}
	}
	if applied == 0 {
		fmt.Fprintln(w, "No change applies: the draft stands.")
		return draft, false
	}
	sub := policy.ManifestSubpath
	io.WriteString(w, udiff.Unified(sub+" (draft)", sub+" (refined)", draft.Manifest, ref.Proposal.Manifest))
	return ref.Proposal, true
}

// shellJoin quotes argv for a shell.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
