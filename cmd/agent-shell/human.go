package main

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Only a human authorizes.
//
// An agent runs commands too, and can run `agent-shell authorize` in forms
// no guard reads (a variable, a copy of the binary, python's subprocess).
// So authorize asks for what only a person at the terminal can give: a
// code it shows on its controlling terminal, new each time, typed back
// there. Nothing replaces it (--yes no longer does), and it refuses before
// asking when
//   - an agent marker (telemetry.AgentMarker) is set in its environment or
//     in that of a process above it: a marker taken out with env -u or
//     env -i is still set in the shell the agent started;
//   - it has no controlling terminal (an agent's tool call usually has none;
//     a redirection from /dev/tty does not give it one);
//   - it is not in the foreground of that terminal (a background job).
// A pseudo-terminal made by the agent (script -q, python's pty) is a
// terminal, but what is typed ahead into it cannot be the code. What is
// left is an agent that drives a terminal it made, reading the code and
// typing it, from a process outside its own tree: on one user account
// that cannot be told from a person, which is why every authorization
// records who and from where (authority.Provenance) for status to show.

// agentSession says why this process runs in an agent's session; "" when
// nothing says it does.
func agentSession(getenv func(string) string) string {
	if name, actor := telemetry.AgentMarker(getenv, hostapi.ActorMarkers()); name != "" {
		return fmt.Sprintf("%s is set: %s", name, actor)
	}
	for _, p := range telemetry.Ancestors(os.Getpid(), hostapi.ActorMarkers()) {
		if p.Marker != "" {
			return fmt.Sprintf("%s is set for %s (process %d), which runs it: %s", p.Marker, printable(p.Name), p.PID, p.Actor)
		}
	}
	return ""
}

var (
	errNoTerminal = errors.New("authorize needs a human at a terminal, and this process has no controlling terminal: run it in a terminal of your own")
	errBackground = errors.New("authorize needs a human at a terminal, and this process is not in its terminal's foreground: run it there, not as a background job")
)

// controllingTerminal opens the process's controlling terminal, which it
// must be in the foreground of.
func controllingTerminal() (*os.File, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, errNoTerminal
	}
	fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	if err != nil || fg != unix.Getpgrp() {
		tty.Close()
		return nil, errBackground
	}
	return tty, nil
}

// codeAlphabet has no characters that are easily mistaken for another.
const codeAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// confirmationCode is a new code for one confirmation: eight characters of
// codeAlphabet (about 40 bits), shown in two groups of four.
func confirmationCode() string {
	var b [8]byte
	rand.Read(b[:]) //nolint:errcheck // never fails on Linux
	code := make([]byte, 0, 9)
	for i, c := range b {
		if i == 4 {
			code = append(code, '-')
		}
		code = append(code, codeAlphabet[int(c)%len(codeAlphabet)])
	}
	return string(code)
}

// typedCode reports whether line is code as typed: case, spaces and the
// dash do not count.
func typedCode(line, code string) bool {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '-' || r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, strings.ToLower(s))
	}
	return norm(line) == norm(code)
}

// askCode shows a new code on the terminal and reports whether the line
// typed there is it; the end of input is no.
func askCode(tty *os.File, question string) bool {
	code := confirmationCode()
	fmt.Fprintf(tty, "%s type %s and press Enter (anything else declines): ", question, code)
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(tty)
		return false
	}
	return typedCode(line, code)
}

// provenance is who is authorizing, and from where, for the record.
func provenance(getenv func(string) string) *authority.Provenance {
	user := getenv("USER")
	if user == "" {
		user = getenv("LOGNAME")
	}
	host, _ := os.Hostname()
	actor, claimed := telemetry.DetectActor(getenv, hostapi.ActorMarkers())
	var via []string
	for _, p := range telemetry.Ancestors(os.Getpid(), hostapi.ActorMarkers()) {
		if len(via) == maxVia {
			break
		}
		via = append(via, printable(p.Name))
	}
	return &authority.Provenance{User: printable(user), UID: os.Getuid(), Actor: printable(actor), Claimed: printable(claimed),
		Host: printable(host), Terminal: terminalName(), Via: via}
}

// maxVia bounds the processes a provenance names.
const maxVia = 8

// printable keeps at most 64 bytes of s, without control, line-breaking
// or invisible characters (termtext.Classify).
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if termtext.Classify(r) != termtext.Plain {
			return -1
		}
		return r
	}, s)
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:64], "")
	}
	return s
}

// terminalName names the controlling terminal's device from the tty_nr of
// /proc/self/stat: /dev/pts/N for a pseudo-terminal, else "tty
// MAJOR:MINOR"; "" when unknown.
func terminalName() string {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return ""
	}
	end := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[end+1:]))
	if end < 0 || len(fields) < 5 {
		return ""
	}
	nr, err := strconv.ParseUint(fields[4], 10, 32)
	if err != nil || nr == 0 {
		return ""
	}
	major, minor := unix.Major(nr), unix.Minor(nr)
	if major >= 136 && major <= 143 { // UNIX98 pseudo-terminal slaves
		return "/dev/pts/" + strconv.FormatUint(uint64((major-136)*256+minor), 10)
	}
	return fmt.Sprintf("tty %d:%d", major, minor)
}
