// Package packs fetches, vendors and pins script packs: what `agent-shell
// pack add|update|remove|verify|list|show` do to a project's configuration
// folder. Loading a vendored pack (and refusing one that does not match its
// lock) is policy's job; this package is the only one that fetches, and it
// never runs on the hook path.
package packs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/policy"
)

// gitTimeout bounds every git command a fetch runs.
const gitTimeout = 2 * time.Minute

// Source is where a pack comes from: a git repository (git+https://,
// git+ssh://, git+file://) at a rev, or a local folder, copied as it is.
type Source struct {
	Spec string // as the manifest records it
	Git  string // the URL git clones, "" for a local folder
	Dir  string // the local folder, "" for git
}

// ParseSource reads SOURCE[@REV] as `pack add` takes it. A rev follows the
// last "@" of a git source's path; a local folder has no rev.
func ParseSource(arg, cwd string) (Source, string, error) {
	if arg == "" || strings.ContainsFunc(arg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Source{}, "", fmt.Errorf("%q is not a pack source", arg)
	}
	if url, ok := strings.CutPrefix(arg, "git+"); ok {
		scheme, rest, ok := strings.Cut(url, "://")
		if !ok || (scheme != "https" && scheme != "ssh" && scheme != "file") {
			return Source{}, "", fmt.Errorf("%s: a git source is git+https://, git+ssh:// or git+file://", arg)
		}
		rev := ""
		if slash := strings.IndexByte(rest, '/'); slash >= 0 {
			if at := strings.LastIndexByte(rest[slash:], '@'); at >= 0 {
				rev = rest[slash+at+1:]
				rest = rest[:slash+at]
			}
		}
		if strings.Trim(rest, "/") == "" {
			return Source{}, "", fmt.Errorf("%s: no repository", arg)
		}
		if rev == "" && strings.HasSuffix(arg, "@") {
			return Source{}, "", fmt.Errorf("%s: an empty rev", arg)
		}
		url = scheme + "://" + rest
		return Source{Spec: "git+" + url, Git: url}, rev, nil
	}
	if strings.Contains(arg, "://") {
		return Source{}, "", fmt.Errorf("%s: a git source starts with git+ (git+https://...), a local folder is a path", arg)
	}
	dir := arg
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return Source{}, "", fmt.Errorf("pack source %s: %w", arg, err)
	}
	if !fi.IsDir() {
		return Source{}, "", fmt.Errorf("pack source %s is not a folder", arg)
	}
	return Source{Spec: filepath.Clean(dir), Dir: filepath.Clean(dir)}, "", nil
}

// sourceOf reads a source as the manifest records it.
func sourceOf(spec string) (Source, error) {
	if url, ok := strings.CutPrefix(spec, "git+"); ok {
		return Source{Spec: spec, Git: url}, nil
	}
	if !filepath.IsAbs(spec) {
		return Source{}, fmt.Errorf("source %q: want git+URL or an absolute folder", spec)
	}
	return Source{Spec: spec, Dir: spec}, nil
}

// fetched is a pack's files as fetched, with the commit rev resolved to.
type fetched struct {
	files  policy.PackFiles
	commit string
}

// fetch gets the pack's files at rev: a shallow-free clone into a
// temporary folder, checked out at the commit rev names (a tag, branch or
// commit; "" for the default branch), or a local folder's files.
func fetch(ctx context.Context, src Source, rev string) (*fetched, error) {
	if src.Dir != "" {
		if rev != "" {
			return nil, fmt.Errorf("%s is a local folder, which has no revs; use git+file://%s to pin one", src.Dir, src.Dir)
		}
		files, err := policy.ReadPackTree(src.Dir)
		if err != nil {
			return nil, err
		}
		return &fetched{files: files}, nil
	}
	tmp, err := os.MkdirTemp("", "agent-shell-pack-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	checkout := filepath.Join(tmp, "pack")
	if _, err := git(ctx, "", "clone", "--quiet", "--no-checkout", "--", src.Git, checkout); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", src.Spec, err)
	}
	want := "HEAD"
	if rev != "" {
		want = rev
	}
	commit, err := git(ctx, checkout, "rev-parse", "--verify", "--quiet", "--end-of-options", want+"^{commit}")
	if err != nil && rev != "" {
		// A branch exists in the clone as a remote-tracking ref only.
		commit, err = git(ctx, checkout, "rev-parse", "--verify", "--quiet", "--end-of-options", "origin/"+rev+"^{commit}")
	}
	if err != nil {
		return nil, fmt.Errorf("%s has no rev %q", src.Spec, rev)
	}
	if _, err := git(ctx, checkout, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit); err != nil {
		return nil, fmt.Errorf("check out %s at %s: %w", src.Spec, commit, err)
	}
	files, err := policy.ReadPackTree(checkout)
	if err != nil {
		return nil, err
	}
	return &fetched{files: files, commit: commit}, nil
}

// git runs git with no terminal prompts and no system or global
// configuration that could run programs, and returns its trimmed stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", errors.New("git is not installed; a git source needs it")
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New(msg)
	}
	return strings.TrimSpace(string(out)), nil
}
