package guard

import (
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-shell/agent-shell/internal/lazy"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Patches, applied by an edit tool (Codex's apply_patch) or a command
// (patch, git apply): the files their headers name.

// patchHeader is one file a patch touches.
type patchHeader struct {
	path string
	op   string // "add", "update", "delete", "move", "diff"
}

var (
	codexHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?mi)^[ \t]*\*\*\*[ \t]*(add file|update file|delete file|move to)[ \t]*:[ \t]*(.*?)[ \t\r]*$`)
	})
	diffHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:(?:\+\+\+|---)[ \t]+([^\t\r\n]+)|diff --git[ \t]+(\S+)[ \t]+(\S+)|(?:rename|copy) (?:from|to) ([^\r\n]+?)|Index: ([^\r\n]+?))[ \t\r]*$`)
	})
)

// patchHeaders reads the files a patch touches: Codex's apply_patch
// headers and unified diff headers.
func patchHeaders(text string) []patchHeader {
	var out []patchHeader
	for _, m := range codexHeaderRE().FindAllStringSubmatch(text, -1) {
		if m[2] == "" {
			continue
		}
		op := strings.Fields(strings.ToLower(m[1]))[0]
		if op == "move" && len(out) > 0 && out[len(out)-1].op == "update" {
			out[len(out)-1].op = "movefrom" // the updated file moves away
		}
		out = append(out, patchHeader{path: m[2], op: op})
	}
	for _, m := range diffHeaderRE().FindAllStringSubmatch(text, -1) {
		for _, p := range m[1:] {
			p = strings.Trim(strings.TrimSpace(p), `"`)
			if p != "" && p != "/dev/null" {
				out = append(out, patchHeader{path: p, op: "diff"})
			}
		}
	}
	return out
}

// checkPatch checks the files of a patch. Paths are relative to the
// command's directory or, for git apply, to the root; a unified diff's may
// carry leading components to strip (a/, b/, -pN), so each is tried.
func (g *guarder) checkPatch(hdrs []patchHeader, cwds []string) *Denial {
	bases := append([]string(nil), cwds...)
	if g.root != "" {
		bases = append(bases, g.root)
	}
	saved := g.whole
	defer func() { g.whole = saved }()
	for _, h := range hdrs {
		op := guardOp{verb: "patches", follow: true, literal: true}
		g.whole = saved
		switch h.op {
		case "delete":
			op.verb, op.removal, op.follow = "deletes by a patch", true, false
		case "movefrom":
			op.verb, op.removal, op.follow = "moves away by a patch", true, false
		case "add":
			op.verb = "creates by a patch"
			g.whole = true // the file's text is replaced as a whole
		case "move":
			op.verb = "moves a file by a patch onto"
			g.whole = true
		}
		forms := []string{h.path}
		if h.op == "diff" {
			p := h.path
			for i := 0; i < 3; i++ {
				j := strings.IndexByte(p, '/')
				if j < 0 {
					break
				}
				p = p[j+1:]
				forms = append(forms, p)
			}
		}
		for _, f := range forms {
			op.word = f
			if d := g.checkOp(op, bases); d != nil {
				return d
			}
		}
	}
	return nil
}

// protectedMarkers are the names whose mention in an unreadable patch
// counts as touching a protected path: agent-shell's folders, every host's
// registrations (up to a pattern's first wildcard), npm's script-shell
// and the guarded variables.
var protectedMarkers = lazy.Value[[]string]{New: func() []string {
	list := []string{".github/hooks/agent-shell", ".agent-shell/"}
	for _, e := range rootGuarded.Get() {
		if e.guard == HookRegistration {
			list = append(list, e.path[:strings.IndexAny(e.path+"*", "*?[")])
		}
	}
	list = append(list, "script-shell", "script_shell")
	return append(list, slices.Sorted(maps.Keys(guardedEnv))...)
}}

func protectedMention(text string) string {
	lower := strings.ToLower(text)
	for _, m := range protectedMarkers.Get() {
		if strings.Contains(lower, strings.ToLower(m)) {
			return m
		}
	}
	return ""
}

func guardOf(marker string) string {
	switch {
	case strings.HasPrefix(marker, ".github/hooks/agent-shell") || strings.HasPrefix(marker, ".agent-shell"):
		return AgentShellFiles
	case guardedEnv[marker] != "":
		return AgentShellEnv
	case strings.HasPrefix(marker, "script"):
		return NpmScriptShell
	}
	return HookRegistration
}

func fixFor(marker string) string {
	switch guardOf(marker) {
	case AgentShellFiles:
		return fixConfig
	case NpmScriptShell:
		return fixNpm
	case AgentShellEnv:
		return "A human sets it in their own shell."
	}
	return "A human edits it, or runs 'agent-shell hook install'."
}

// checkPatchFile reads a patch file a command applies (from cwds, or its
// own base) and checks the files it touches (from bases).
func (g *guarder) checkPatchFile(pf patchFile, cwds, bases []string) *Denial {
	from := cwds
	if pf.base != "" {
		from = []string{pf.base}
	}
	if pf.path == "" || pf.path == "-" || shellcmd.DynamicWord(pf.path) {
		return nil
	}
	for _, b := range from {
		for _, p := range g.expand(pf.path, b, true) {
			data, ok := g.readRegular(filepath.Clean(p), guardMaxPatch)
			if !ok {
				continue
			}
			if d := g.checkPatch(patchHeaders(string(data)), bases); d != nil {
				return d
			}
		}
	}
	return nil
}
