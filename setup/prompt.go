package setup

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/agent-shell/agent-shell/policy"
)

// ErrCanceled is returned when the user leaves the prompt (q, Esc, Ctrl-C,
// Ctrl-D): nothing was written.
var ErrCanceled = errors.New("canceled; nothing changed")

// Terminal is the terminal init asks on: stdin and stdout, both terminals.
type Terminal struct {
	In  *os.File
	Out *os.File
}

// Ask runs the interactive prompt: the agents to hook into, the features
// to set up (only what is missing), then a confirmation. ok is false when
// the user declined or selected nothing.
//
// The terminal is in raw mode for the whole prompt, so that single keys
// (arrows, j/k, space, enter) are read as they are pressed; it is restored
// on every way out, a signal included.
func (t *Terminal) Ask(s *State) (plan Plan, ok bool, err error) {
	fd := int(t.In.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return Plan{}, false, fmt.Errorf("init prompt: put the terminal in raw mode: %w", err)
	}
	restore := sync.OnceFunc(func() {
		_ = term.Restore(fd, old)
		fmt.Fprint(t.Out, showCursor)
	})
	defer restore()

	// In raw mode Ctrl-C is a key, read below; these are signals sent from
	// elsewhere (kill, a closed terminal), which must not leave the terminal
	// raw behind.
	defer ExitOnSignal(func() {
		restore()
		fmt.Fprint(t.Out, "\r\n")
	})()

	p := &prompter{in: bufio.NewReader(t.In), out: t.Out}
	return p.run(s)
}

const (
	hideCursor = "\x1b[?25l"
	showCursor = "\x1b[?25h"
)

// prompter draws the prompt on a raw terminal (every newline is written as
// CRLF) and reads its keys. It needs no terminal itself, so tests drive it
// with bytes too.
type prompter struct {
	in  *bufio.Reader
	out io.Writer
}

func (p *prompter) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	io.WriteString(p.out, strings.ReplaceAll(s, "\n", "\r\n"))
}

// choice is one line of a checklist.
type choice struct {
	id     string
	label  string
	detail string
	on     bool
}

func (p *prompter) run(s *State) (Plan, bool, error) {
	p.header(s)
	agents := s.DetectedAgents()
	if s.hooksMissing(agents) {
		var items []choice
		for _, a := range s.Agents {
			if a.Registered {
				continue
			}
			detail := ""
			switch {
			case a.Err != nil:
				detail = "invalid registration, see above"
			case a.Detected != "":
				detail = "found " + a.Detected
			}
			items = append(items, choice{id: a.Name, label: a.Name, detail: detail, on: a.Err == nil && slices.Contains(agents, a.Name)})
		}
		if err := p.checklist("Which agents should agent-shell hook into?", items); err != nil {
			return Plan{}, false, err
		}
		agents = nil
		for _, it := range items {
			if it.on {
				agents = append(agents, it.id)
			}
		}
	}

	hooks := len(agents) > 0 && s.hooksMissing(agents)
	var items []choice
	if hooks {
		items = append(items, choice{id: "fr", label: "flight recording", detail: "record every tool call (the agents' hooks)", on: true})
	}
	if hooks || len(s.PolicyFiles) == 0 {
		detail := "check commands before they run (the hooks)"
		switch {
		case len(s.PolicyFiles) == 0 && hooks:
			detail = "the hooks, and the built-in safety pack"
		case len(s.PolicyFiles) == 0:
			detail = "the built-in safety pack"
		}
		items = append(items, choice{id: "policy", label: "policy", detail: detail, on: true})
	}
	if !s.NPM.Set && (s.HasPackageJSON || s.NPM.Other != "") {
		if s.NPM.Other != "" {
			items = append(items, choice{id: "npm", label: "npm scripts", detail: "replace script-shell=" + cut(s.NPM.Other, 20) + " in .npmrc"})
		} else {
			items = append(items, choice{id: "npm", label: "npm scripts", detail: "record them: script-shell=agent-shell in .npmrc", on: true})
		}
	}
	if !s.Gitignore {
		items = append(items, choice{id: "gitignore", label: ".gitignore", detail: "ignore .agent-shell/ (the local event log)", on: true})
	}
	if len(items) == 0 {
		p.printf("\nNothing to set up for the selected agents; nothing changed.\n")
		return Plan{}, false, nil
	}
	if err := p.checklist("Which features should agent-shell set up?", items); err != nil {
		return Plan{}, false, err
	}
	plan := Plan{Agents: agents}
	for _, it := range items {
		switch it.id {
		case "fr":
			plan.FlightRecorder = it.on
		case "policy":
			plan.Policy = it.on
		case "npm":
			plan.NPM = it.on
			plan.ReplaceScriptShell = it.on && s.NPM.Other != ""
		case "gitignore":
			plan.Gitignore = it.on
		}
	}
	if plan.Empty() {
		p.printf("\nNothing selected; nothing changed.\n")
		return Plan{}, false, nil
	}
	p.summary(s, plan)
	ok, err := p.confirm("Write these files? [y/N] ")
	if err != nil {
		return Plan{}, false, err
	}
	if !ok {
		p.printf("Nothing changed.\n")
	}
	return plan, ok, nil
}

// header says what init found.
func (p *prompter) header(s *State) {
	p.printf("agent-shell init  %s\n", s.Root)
	var pms, found, done []string
	for _, pm := range s.PackageManagers {
		pms = append(pms, pm.Name+" ("+pm.Evidence+")")
	}
	for _, a := range s.Agents {
		if a.Detected != "" {
			found = append(found, a.Name+" ("+a.Detected+")")
		}
		if a.Registered {
			done = append(done, a.Name+" hooks")
		}
	}
	if len(s.PolicyFiles) > 0 {
		done = append(done, "policy ("+strings.Join(s.PolicyFiles, ", ")+")")
	}
	if s.NPM.Set {
		done = append(done, "npm script-shell")
	}
	if s.Gitignore {
		done = append(done, ".gitignore entry")
	}
	p.printf("  package managers: %s\n", joinOr(pms, "none"))
	p.printf("  agents found:     %s\n", joinOr(found, "none (Copilot is suggested)"))
	p.printf("  already set up:   %s\n", joinOr(done, "nothing"))
	for _, a := range s.Agents {
		if a.Err != nil {
			p.printf("  %s: %v\n", a.Name, a.Err)
		}
	}
}

// checklist lets the user toggle items: up/down or k/j move, space (or x,
// or the item's number) toggles, enter accepts; q, Esc, Ctrl-C and Ctrl-D
// cancel. The list is redrawn in place.
func (p *prompter) checklist(title string, items []choice) error {
	width := 0
	for _, it := range items {
		width = max(width, len(it.label))
	}
	cur := 0
	draw := func(again bool) {
		var b strings.Builder
		if again {
			fmt.Fprintf(&b, "\x1b[%dA", len(items))
		}
		for i, it := range items {
			pointer, box := "  ", "[ ]"
			if i == cur {
				pointer = "> "
			}
			if it.on {
				box = "[x]"
			}
			line := fmt.Sprintf("%s%s %-*s  %s", pointer, box, width, it.label, it.detail)
			fmt.Fprintf(&b, "\r\x1b[2K%s\r\n", strings.TrimRight(line, " "))
		}
		io.WriteString(p.out, b.String())
	}
	p.printf("\n%s\n  (up/down or j/k move, space toggles, enter accepts, q quits)\n%s", title, hideCursor)
	draw(false)
	defer io.WriteString(p.out, showCursor)
	for {
		k, b, err := p.readKey()
		if err != nil {
			return err
		}
		switch k {
		case keyUp:
			cur = (cur + len(items) - 1) % len(items)
		case keyDown:
			cur = (cur + 1) % len(items)
		case keyToggle:
			items[cur].on = !items[cur].on
		case keyEnter:
			return nil
		case keyCancel:
			return ErrCanceled
		default:
			if n := int(b - '1'); b >= '1' && b <= '9' && n < len(items) {
				cur = n
				items[cur].on = !items[cur].on
			} else {
				continue
			}
		}
		draw(true)
	}
}

// summary lists the files the plan writes, for the confirmation.
func (p *prompter) summary(s *State, plan Plan) {
	type row struct{ file, what string }
	var rows []row
	if plan.hooks() {
		for _, name := range s.unregistered(plan.Agents) {
			for _, f := range RegistrationFiles(name) {
				rows = append(rows, row{f, name + " hooks"})
			}
		}
	}
	if plan.Policy && len(s.PolicyFiles) == 0 {
		rows = append(rows, row{policy.ManifestSubpath, "the safety pack, level standard"})
	}
	if plan.NPM {
		rows = append(rows, row{".npmrc", scriptShellLine})
	}
	if plan.Gitignore {
		rows = append(rows, row{".gitignore", ".agent-shell/"})
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r.file))
	}
	p.printf("\nagent-shell init will write:\n")
	for _, r := range rows {
		p.printf("  %-*s  %s\n", width, r.file, r.what)
	}
	if plan.Policy && !plan.FlightRecorder && plan.hooks() && s.hooksMissing(plan.Agents) {
		p.printf("  (the hooks also record each tool call: one registration serves both)\n")
	}
}

// confirm asks a yes/no question whose default is no: only y answers yes.
func (p *prompter) confirm(question string) (bool, error) {
	p.printf("%s", question)
	k, b, err := p.readKey()
	if err != nil {
		return false, err
	}
	if k == keyCancel && b != 'q' {
		p.printf("\n")
		return false, ErrCanceled
	}
	yes := b == 'y' || b == 'Y'
	if yes {
		p.printf("yes\n")
	} else {
		p.printf("no\n")
	}
	return yes, nil
}

type key int

const (
	keyOther key = iota
	keyUp
	keyDown
	keyToggle
	keyEnter
	keyCancel
)

// readKey reads one key press. The end of input cancels.
func (p *prompter) readKey() (key, byte, error) {
	b, err := p.in.ReadByte()
	if err != nil {
		return keyCancel, 0, ErrCanceled
	}
	switch b {
	case 3, 4: // Ctrl-C, Ctrl-D
		return keyCancel, b, nil
	case 'q':
		return keyCancel, b, nil
	case '\r', '\n':
		return keyEnter, b, nil
	case ' ', 'x':
		return keyToggle, b, nil
	case 'k':
		return keyUp, b, nil
	case 'j':
		return keyDown, b, nil
	case 0x1b:
		// An arrow is ESC [ A (or ESC O A) and arrives in one read; an Esc
		// with nothing after it is the Esc key.
		if p.in.Buffered() == 0 {
			return keyCancel, b, nil
		}
		b2, _ := p.in.ReadByte()
		if b2 != '[' && b2 != 'O' {
			return keyOther, b2, nil
		}
		b3, _ := p.in.ReadByte()
		// Skip the parameters of a longer sequence (ESC [ 1 ; 5 A).
		for b3 >= '0' && b3 <= '9' || b3 == ';' {
			if b3, err = p.in.ReadByte(); err != nil {
				return keyCancel, 0, ErrCanceled
			}
		}
		switch b3 {
		case 'A':
			return keyUp, b3, nil
		case 'B':
			return keyDown, b3, nil
		}
		return keyOther, b3, nil
	}
	return keyOther, b, nil
}

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// ExitOnSignal makes SIGINT, SIGTERM or SIGHUP run cleanup and end the
// process with 128+N while a prompt waits on the terminal; the returned
// func stops it.
func ExitOnSignal(cleanup func()) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cleanup()
			n, _ := sig.(syscall.Signal)
			os.Exit(128 + int(n))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
