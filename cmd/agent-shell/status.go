package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/enforce"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/setup"
	"github.com/agent-shell/agent-shell/telemetry"
)

func registrationExists(root, host string) bool {
	for _, f := range setup.RegistrationFiles(host) {
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil {
			return true
		}
	}
	return false
}

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Check agent-shell's state here: authorization, hook registrations, the event log, grants",
		Long: `Prints one line per check, marked ok, FAIL, or -- (for information):

  configuration  the digest of the configuration in force, whether it is
                 the one last authorized with ` + "`agent-shell authorize`" + `, and
                 who confirmed that authorization, from where; compiled
                 programs in the cache that are not the ones authorized
  host NAME      each agent whose registration file exists: whether it still
                 runs agent-shell for every event agent-shell registers
  events         each session file's hash chain (as ` + "`agent-shell log verify`" + `)
  grants         approval grants in force

It exits 1 when something is wrong, so that it can run in CI: the
configuration changed since it was authorized (or does not load, or its
authorization cannot be checked, or does not say who confirmed it), a cached
program is not the one authorized, an agent registered at authorization no
longer runs agent-shell, or a session file's chain is broken. A configuration
never authorized is reported, not failed.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runStatus(asJSON)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print the checks as one JSON object: {"checks": [{"status": "ok"|"fail"|"info", "check", "detail"}], "problems"}`)
	return cmd
}

type statusReport struct {
	a        *app
	problems int
	checks   []statusCheck // kept for --json, else printed as they come
	asJSON   bool
	name     string         // the command: status or doctor
	level    *enforce.Level // what the kernel gives, once probed
}

// statusCheck is one line of status: "host claude: .claude/settings.json
// runs agent-shell" is check "host claude", its detail after the colon.
type statusCheck struct {
	Status string `json:"status"`
	Check  string `json:"check"`
	Detail string `json:"detail"`
}

func (r *statusReport) ok(format string, args ...any)   { r.line("ok", format, args...) }
func (r *statusReport) info(format string, args ...any) { r.line("info", format, args...) }
func (r *statusReport) fail(format string, args ...any) {
	r.problems++
	r.line("fail", format, args...)
}

// statusMarks are the text marks of the statuses.
var statusMarks = map[string]string{"ok": "ok  ", "info": "--  ", "fail": "FAIL"}

func (r *statusReport) line(status, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if !r.asJSON {
		fmt.Fprintf(r.a.stdout, "%s  %s\n", statusMarks[status], text)
		return
	}
	check, detail, _ := strings.Cut(text, ": ")
	r.checks = append(r.checks, statusCheck{Status: status, Check: check, Detail: detail})
}

func (a *app) runStatus(asJSON bool) error {
	h, err := a.here()
	if err != nil {
		return err
	}
	root, ok := h.Root, h.InRepo
	if !ok {
		return errors.New("run agent-shell status inside a git repository")
	}
	return a.finishStatus(&statusReport{a: a, asJSON: asJSON, name: "status"}, root)
}

// finishStatus runs status's checks after those r holds already, prints
// them as JSON when asked, and fails when one failed.
func (a *app) finishStatus(r *statusReport, root string) error {
	au := r.configuration(root)
	r.hosts(root, au)
	r.events(root)
	r.exportBacklog()
	r.grants(root)
	if r.asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			Checks   []statusCheck `json:"checks"`
			Problems int           `json:"problems"`
		}{r.checks, r.problems}); err != nil {
			return err
		}
	}
	if r.problems > 0 {
		a.errorf("%s: %d %s", r.name, r.problems, plural(r.problems, "problem", "problems"))
		return exitCode(exitError)
	}
	return nil
}

// grants reports the approval grants in force; an unreadable grant file is
// a problem (decisions fail closed on it).
func (r *statusReport) grants(root string) {
	store, err := policy.GrantStore(root, r.a.getenv)
	if err != nil {
		r.info("grants: none can be kept: %v", err)
		return
	}
	all, err := store.ListGrants(context.Background())
	if err != nil {
		r.fail("grants: %v", err)
		return
	}
	now := r.a.now()
	live := 0
	for i := range all {
		if all[i].Live(now) {
			live++
			g := &all[i]
			where := "durable"
			if g.SessionID != "" {
				where = "session " + g.SessionID
			}
			r.info("grant %s: %s, %s, by %s: %s", g.ID, g.Scope, where, g.Reviewer, quoteArgv(g.Argv))
		}
	}
	if live == 0 {
		r.ok("grants: none in force")
		return
	}
	r.ok("grants: %d in force (agent-shell grants revoke ID ends one)", live)
}

// configuration reports the configuration's digest and authorization.
func (r *statusReport) configuration(root string) policy.Authorization {
	cfgDir, cfgErr := authority.ConfigDir(r.a.getenv)
	_, au := policy.LoadAuthorized(root, r.a.getenv, cfgDir)
	digest := "(does not load)"
	if au.Digest != "" {
		digest = au.Digest
	}
	when := au.AuthorizedAt.UTC().Format(time.RFC3339)
	switch {
	case au.State == policy.AuthAuthorized:
		r.ok("configuration %s: authorized %s%s", digest, when, confirmedBy(au.By))
		if au.CacheUnpinned > 0 {
			r.info("compiled programs: %d not pinned by the authorization (it predates pins, or another agent-shell version compiles them): compiled from source on every call until `agent-shell authorize`", au.CacheUnpinned)
		}
		if err := policy.CheckAuthorizedCopy(root, au.AuthorizedDigest, r.a.getenv); err != nil {
			r.fail("configuration: %s: were the configuration to change, every call would be denied (`agent-shell authorize` writes it again)", termtext.Escape(err.Error()))
		}
	case au.State == policy.AuthUnauthorized && au.AuthorizedDigest == "":
		r.fail("configuration %s: %s", digest, au.Problem)
	case au.State == policy.AuthUnauthorized:
		r.fail("configuration %s: changed since it was authorized %s (authorized digest %s)", digest, when, au.AuthorizedDigest)
		if au.Problem != "" {
			r.fail("configuration: %s: every call is denied", au.Problem)
		} else {
			r.info("configuration: until `agent-shell authorize`, %s", map[string]string{
				policy.UnauthorizedLastAuthorized: "the last authorized configuration decides",
				policy.UnauthorizedDeny:           "every call is denied ([policy] unauthorized = \"deny\")",
				policy.UnauthorizedWarn:           "the changed configuration decides ([policy] unauthorized = \"warn\")",
			}[au.Mode])
		}
	case cfgErr != nil:
		r.info("configuration %s: authorization unknown: %v", digest, cfgErr)
	default:
		r.info("configuration %s: never authorized: it decides as it is; run `agent-shell authorize` to review and pin it", digest)
	}
	if au.AuthorizedDigest != "" && au.By == nil {
		r.fail("configuration: its authorization does not say who confirmed it (an agent-shell that took `authorize --yes` without a terminal wrote it, so an agent may have; or something else did): a human runs `agent-shell authorize` on their terminal to confirm it")
	}
	for _, p := range au.CacheRejected {
		r.fail("compiled programs: %s is not the program authorized for its source, so it was not used (something other than agent-shell wrote it)", relRoot(root, p))
	}
	if au.LoadErr != nil {
		// It decides unless an authorized copy does instead.
		denied := ""
		if au.State == policy.AuthNever || au.Mode == policy.UnauthorizedWarn {
			denied = " (every call is denied)"
		}
		r.fail("configuration does not load%s: %s", denied, termtext.Escape(au.LoadErr.Error()))
	}
	return au
}

// confirmedBy says who confirmed an authorization and from where, as the
// record has it.
func confirmedBy(by *authority.Provenance) string {
	if by == nil {
		return ""
	}
	who := by.User
	if who == "" {
		who = "uid " + strconv.Itoa(by.UID)
	}
	s := fmt.Sprintf(" by %s (%s) on %s", who, by.Actor, by.Host)
	if by.Claimed != "" {
		s += ", claiming " + by.Claimed
	}
	if by.Terminal != "" {
		s += ", terminal " + by.Terminal
	}
	if len(by.Via) > 0 {
		s += ", under " + strings.Join(by.Via[:min(len(by.Via), 3)], " < ")
	}
	return termtext.Escape(s)
}

// hosts reports each host whose registration file exists, and each host
// registered at the last authorization.
func (r *statusReport) hosts(root string, au policy.Authorization) {
	s, err := setup.Detect(root, r.a.getenv)
	if err != nil {
		r.fail("hosts: %v", err)
		return
	}
	for _, name := range hostapi.Names() {
		files := setup.RegistrationFiles(name)
		if len(files) == 0 {
			continue
		}
		file := files[0]
		recorded := slices.Contains(au.Hosts, name)
		ag := s.Agent(name)
		switch {
		case !registrationExists(root, name):
			if recorded {
				r.fail("host %s: %s is missing (it ran agent-shell when the configuration was authorized)", name, file)
			}
		case ag.Err != nil:
			msg := fmt.Sprintf("host %s: %s cannot be read: %s", name, file, termtext.Escape(ag.Err.Error()))
			if recorded {
				r.fail("%s", msg)
			} else {
				r.info("%s", msg)
			}
		case ag.Registered:
			r.ok("host %s: %s runs agent-shell", name, file)
			r.info("enforcement %s: %s", name, r.enforcementOf(name))
			if d, ok := hostapi.Describe(name); ok {
				if beside := d.HooksBeside(root, r.a.getenv("HOME")); len(beside) > 0 {
					r.info("host %s: hooks run beside agent-shell's, and one that runs after it can change a command it judged: %s",
						name, termtext.Escape(strings.Join(beside, ", ")))
				}
			}
		case recorded:
			r.fail("host %s: %s no longer runs agent-shell for every event (it did when the configuration was authorized; `agent-shell hook install --agent=%s` registers it again)", name, file, name)
		default:
			r.info("host %s: %s does not run agent-shell (`agent-shell hook install --agent=%s` registers it)", name, file, name)
		}
	}
	r.npm(s)
}

// npm reports what .npmrc's script-shell=agent-shell needs: agent-shell on
// the PATH npm runs with, and the line kept out of commits, since npm fails
// (ENOENT) wherever agent-shell is not installed.
func (r *statusReport) npm(s *setup.State) {
	if !s.NPM.Set {
		return
	}
	if s.NPM.Tracked {
		r.fail("npm: .npmrc is committed with script-shell=agent-shell, so npm fails on every machine without agent-shell; keep it out of commits (git rm --cached .npmrc; agent-shell init lists it in .git/info/exclude)")
	}
	path, err := exec.LookPath("agent-shell")
	if err != nil {
		r.fail("npm: .npmrc runs scripts with agent-shell, which is not on PATH here: npm fails (spawn agent-shell ENOENT); put agent-shell on PATH")
		return
	}
	r.ok("npm: .npmrc runs scripts with agent-shell (%s)", path)
	r.info("enforcement npm: %s", r.enforcementOf("npm"))
}

// enforcementOf says what holds below the text of host's commands ("npm"
// for npm's scripts): the sandbox, or only the text guards and why.
func (r *statusReport) enforcementOf(host string) string {
	e := r.a.loadPolicy()
	if e.Manifest == nil || !e.Manifest.Enforce.Sandbox() {
		return `text guard only ([enforce] mode = "sandbox" is not set in agent-shell.toml)`
	}
	if r.level == nil {
		l := enforce.Probe()
		r.level = &l
	}
	if !r.level.Sandbox() {
		return r.level.String()
	}
	if host == "npm" {
		return r.level.String()
	}
	d, _ := hostapi.Describe(host)
	switch wrap, why := hostapi.Sandbox(host); {
	case wrap == hostapi.SandboxNone:
		return "text guard only (its commands are not wrapped: " + why + ")"
	case d.SandboxCaveat != "":
		return r.level.String() + "; " + d.SandboxCaveat
	}
	return r.level.String()
}

// events verifies every session file's chain.
func (r *statusReport) events(root string) {
	dir, err := telemetry.EventsDirForRead(root, r.a.getenv)
	if err != nil {
		r.fail("events: %v", err)
		return
	}
	files, skipped, err := telemetry.ListFiles(dir)
	if errors.Is(err, fs.ErrNotExist) {
		r.info("events: none recorded yet in %s", relRoot(root, dir))
		return
	}
	if err != nil {
		r.fail("events: %v", err)
		return
	}
	for _, s := range skipped {
		r.fail("events: %s is %s, not a regular file", relRoot(root, s.Path), s.Kind())
	}
	intact, events := 0, 0
	for _, f := range files {
		res, err := telemetry.VerifyFile(f)
		switch {
		case err != nil:
			r.fail("events: %s: %s", relRoot(root, f), termtext.Escape(err.Error()))
		case !res.OK():
			r.fail("events: %s:%d: %s", relRoot(root, f), res.Line, termtext.Escape(res.Problem))
		default:
			intact++
			events += res.Events
		}
		for _, rep := range res.Repairs {
			r.info("events: %s:%d: %s", relRoot(root, f), rep.FirstTorn, rep)
		}
	}
	if len(files) == 0 {
		r.info("events: none recorded yet in %s", relRoot(root, dir))
		return
	}
	if intact > 0 {
		r.ok("events: %d of %d session %s intact (%d %s)", intact, len(files), plural(len(files), "file", "files"),
			events, plural(events, "event", "events"))
	}
}
