package shellcmd

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxDepth bounds how many shell bodies (bash -c, eval, trap, su -c, parallel,
// a heredoc fed to a shell, ...) may nest inside one another. A body that would
// be parsed deeper makes the command that carries it unknown.
const MaxDepth = 8

// Limits that keep a hostile line from costing more than a hook can afford.
// Going past one never drops a command: it makes the line or the command
// unknown.
const (
	maxNest       = 200     // syntax nesting (subshells, substitutions, ...) walked
	maxCommands   = 10000   // commands reported for one line
	maxBodyBytes  = 4 << 20 // bytes of nested bodies parsed for one line
	maxBraceWords = 1024    // words a brace expansion may produce
	maxLayers     = 32      // wrappers unwrapped around one command
)

// ErrInternal marks a bug in this package caught at run time: Parse turns a
// panic into a [Line] with this error rather than crash the hook.
var ErrInternal = errors.New("shellcmd: internal error")

// ErrTooLarge marks a line cut short because it holds more commands than
// are examined: what follows the cut was never seen, so a caller must not
// treat the line as merely unknown.
var ErrTooLarge = errors.New("command line too large to check")

// Line is a parsed command line.
type Line struct {
	// Commands holds every simple command found anywhere in the line, in
	// source order: an enclosing command comes before the commands found in
	// its arguments, its shell body or its find -exec.
	Commands []Command

	// Pipelines holds every pipeline of two or more stages, in source order.
	Pipelines []Pipeline

	// Assigns holds assignments that stand alone (X=1; cmd), and those a
	// for loop makes (for X in a b: X=a and X=b). They run nothing but
	// change variables for the commands after them (PATH, LD_PRELOAD,
	// IFS...). Entries are NAME=value, normalized.
	Assigns []string

	// Err is non-nil when the line could not be analysed: a parse error
	// (unbalanced quotes or parentheses...) or a line nested too deeply.
	// Commands then holds what a best-effort reading found, which may be
	// incomplete; a caller may use it to deny, never to allow.
	Err error
}

// Pipeline lists the stages of one pipeline (a | b | c), in order. Each
// stage holds the indexes into [Line.Commands] of every command found in
// that stage; the stage's own command comes first, followed by commands
// nested in it (substitutions, shell bodies, find -exec). A stage that is a
// compound command ({ a; b; }, a subshell, a loop) lists all its commands.
type Pipeline [][]int

// Command is one simple command, normalized.
type Command struct {
	// Argv is the command as it runs, after unwrapping wrappers: quotes and
	// escapes removed, brace expansions expanded, and Argv[0] reduced to its
	// basename. Parts that are not static (a parameter expansion, a
	// substitution) keep their source text, e.g. "$HOME" or "$(date)".
	Argv []string

	// Path is the program of Argv[0] as written (quotes removed), e.g.
	// "/bin/rm", for executable identity. For an implied command it is
	// Argv[0].
	Path string

	// Layers holds each layer of a wrapped command, outermost first; the
	// last layer is Argv. "sudo -u root env FOO=1 rm -rf /" gives
	// [sudo -u root env FOO=1 rm -rf /], [env FOO=1 rm -rf /], [rm -rf /].
	// Each layer's program word is reduced to its basename. A command with
	// no wrapper has one layer. Layers may share storage with Argv: do not
	// modify them.
	Layers [][]string

	// Assigns lists the environment assignments the command runs with, as
	// NAME=value: leading VAR=val words, then those given to env or sudo.
	Assigns []string

	// Redirects lists the redirections that apply to the command: its own,
	// then those of every enclosing compound command ({ a; } > f).
	Redirects []Redirect

	// Unknown is non-empty when what runs cannot be known statically; it
	// says why ("program is not static: $X", "bash -c script is not
	// static", ...). A caller must never allow an unknown command.
	Unknown string

	// Implied is non-empty when the command was not written as such but
	// stands for what another command does; it says what implies it.
	// "find / -delete" implies [rm -r -f /] (Implied "find -delete"), "xargs"
	// alone implies [echo], "sudo -s" implies [sh].
	Implied string

	// Guessed reports a command that a program agent-shell does not know
	// may run, read from its arguments (faketime now rm -rf ~ may run rm -rf
	// ~; see the package documentation), or a script of package.json that a
	// package manager may run, or a command inside one. A rule
	// that denies or asks judges it as any other; nothing needs to allow
	// it, so a policy's default and allow list leave it alone. Guessed
	// commands follow the command they are read from.
	Guessed bool

	// Substitution reports a command substitution ($( ) or backticks) or a
	// process substitution anywhere in the command's words, assignments or
	// redirections.
	Substitution bool

	// Dynamic reports that some word of Argv (or of a wrapper layer) is not
	// known statically: it holds a parameter expansion, a substitution, or
	// an argument that xargs, parallel or find -exec supply at run time.
	Dynamic bool

	// Shapes holds, when Dynamic is set, what each layer may be at run
	// time: one shape per word of Layers[i], the word's text with each part
	// known only at run time replaced by [Hole] or [Spread] ("-r\x01" for
	// -r$F, "\x00" for "$F"; a static word is its text). A layer whose
	// command gets arguments appended at run time (xargs rm, a GNU parallel
	// command, an alias's body) ends with one more shape, a lone Spread.
	// Nil when the command is not dynamic. Shapes may share storage with
	// each other: do not modify them.
	Shapes [][]string

	// Depth is 0 at top level and one more inside each shell body (bash -c,
	// eval, ...).
	Depth int

	// Dirs lists the directory changes in force when the command runs: the
	// operand of each earlier static cd or pushd of the same list, or of an
	// enclosing group, subshell or shell body, in order; "~" stands for
	// HOME (cd with no operand, cd ~, cd ~/x keeps "~/x"; $HOME and
	// ${HOME} read as "~"). A cd inside ( … ) ends with the subshell; a cd
	// in a pipeline stage, a substitution or a background job does not
	// outlive it; a cd in { …; }, if, case or a loop body leaks forward as
	// in bash, and where paths through them disagree the directory is
	// unknown. An operand after || runs when something before it failed,
	// so a cd earlier in the same && / || chain makes its directory
	// unknown. Resolve the operands in order against the line's working
	// directory: an absolute one (or one under "~") starts afresh. Dirs is
	// nil when DirUnknown is set, and shares storage between commands: do
	// not modify it.
	//
	// DirUnknown reports an earlier cd whose operand is not static (cd
	// "$X", cd $(…), a pattern, ~user), cd -, popd, pushd without an
	// operand or with +N/-N, cd with options that change meaning (-P, -e,
	// -@), a relative cd after a CDPATH assignment, a loop or function
	// body that changes directory, more than 64 changes, or a command that
	// runs elsewhere: behind a wrapper that changes directory (env -C,
	// sudo -D/-i/-R, chroot, pkexec without --keep-cwd), run by find
	// -execdir or -okdir, or the scripts of trap (run later), su -l and
	// parallel --wd (the command itself is marked too). A later cd to an
	// absolute path or under "~" makes the directory known again.
	Dirs       []string
	DirUnknown bool

	// Code is what the program of an interpreter one-liner does, or nil
	// when the command is none (see [ScanCode]). It is set also for a
	// program fed on standard input by a heredoc, a here-string or a static
	// echo or printf (python3 - <<'EOF'). The command lines the program
	// runs are reported as commands one level deeper, like a bash -c body,
	// and a Code.Unknown makes the command unknown.
	Code *CodeScan
}

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator with its file descriptor as written: ">", "2>",
	// ">>", "&>", "<", "<>", ">|", "2>&", "<<", "<<<", ...
	Op string
	// Target is the normalized target word: a file name, a descriptor
	// number for duplications, and empty for heredocs and here-strings.
	Target string
	// File reports that Target names a file. It is false for descriptor
	// duplications and closings (2>&1, >&-), heredocs and here-strings.
	File bool
	// Write reports that the file is opened for writing (>, >>, >|, &>,
	// &>>, <>, >&file). A File redirection that does not write reads.
	Write bool
	// Dynamic reports that the target is not known statically.
	Dynamic bool
}

// Written counts the line's commands that are not [Command.Guessed]: those
// it spells out, or that they stand for.
func (l *Line) Written() int {
	n := 0
	for i := range l.Commands {
		if !l.Commands[i].Guessed {
			n++
		}
	}
	return n
}

// Unknown reports whether the line must be treated as unknown: it did not
// parse, or some command in it is unknown.
func (l *Line) Unknown() bool {
	return l.UnknownReason() != ""
}

// UnknownReason says why the line is unknown, or returns "" when it is
// not: the parse error, or the reason of the first unknown command that
// is not [Command.Guessed].
func (l *Line) UnknownReason() string {
	if l.Err != nil {
		return l.Err.Error()
	}
	for i := range l.Commands {
		if r := l.Commands[i].Unknown; r != "" && !l.Commands[i].Guessed {
			return fmt.Sprintf("%s: %s", strings.Join(l.Commands[i].Argv, " "), r)
		}
	}
	return ""
}

// commandsHint is how many commands src's separators (; & | && || and
// newlines) suggest it holds, at least 8 and at most maxCommandsHint.
func commandsHint(src string) int {
	and, or := strings.Count(src, "&&"), strings.Count(src, "||")
	n := 1 + strings.Count(src, ";") + strings.Count(src, "\n") + and + or +
		strings.Count(src, "&") - 2*and + strings.Count(src, "|") - 2*or
	return min(max(n, 8), maxCommandsHint)
}

// maxCommandsHint bounds the commands Parse makes room for before it
// reads the line: separators inside strings only promise commands.
const maxCommandsHint = 4096

// Parse parses a command line (bash syntax) into its normalized simple
// commands. It never panics, never expands, runs or reads anything, and
// never returns a Line that hides a failure: see [Line.Unknown].
func Parse(src string) *Line { return ParseWith(src, Disk{}) }

// Disk gives a parse what programs read from disk, for it to follow.
type Disk struct {
	// File returns the text of the first of names (relative to the folder
	// or absolute) in the folder a program runs in with the directory
	// changes dirs in force (see [Command.Dirs]; unknown: they are not
	// known), and that absolute folder; "" when there is none. why says,
	// when one is there but cannot be read (too large, not a file), why:
	// the command is then unknown. Nil: makefiles and git's hooks are not
	// followed.
	File func(dirs []string, unknown bool, names []string) (text, dir, why string)
	// FindUp is File for the nearest file called name in that folder or
	// one above it, as npm finds package.json; dir is the folder that
	// holds it. Nil: package.json's scripts are not followed.
	FindUp func(dirs []string, unknown bool, name string) (text, dir, why string)
	// GitDir returns the git folder and the work tree (absolute) of the
	// repository a git command run with dirs in force works in; "" when
	// there is none. Nil: hooks and .git/config are not followed.
	GitDir func(dirs []string, unknown bool) (gitDir, workTree string)
	// Workspaces returns the folders under dir (absolute) that hold the
	// file (package.json, nx's project.json) and match one of patterns
	// (relative to dir; * matches in one folder, ** in up to three),
	// sorted; why says why they cannot be known (too many folders to look
	// through). Nil: a package manager's workspaces are read only where
	// node_modules links them.
	Workspaces func(dir string, patterns []string, file string) (folders []string, why string)
}

// ParseWith is Parse, reading through disk what programs read from it.
func ParseWith(src string, disk Disk) (line *Line) {
	line = &Line{}
	defer func() {
		if r := recover(); r != nil {
			line.Err = fmt.Errorf("%w: %v", ErrInternal, r)
		}
	}()
	if nestsDeeper(src, maxParseNest) {
		line.Err = fmt.Errorf("%w: it nests deeper than %d levels", ErrTooLarge, maxParseNest)
		return line
	}
	// Size for the commands the line's separators promise: a line of 3,000
	// commands grew its slice a dozen times, each growth a copy into fresh
	// memory (an eighth of the hook's time on such a line).
	n := commandsHint(src)
	line.Commands = make([]Command, 0, n)
	st := &state{line: line, meta: make([]cmdMeta, 0, n), parser: syntax.NewParser(syntax.Variant(syntax.LangBash)), disk: disk}
	w := &walker{st: st, src: src, cd: &dirState{}}
	f, err := st.parser.Parse(strings.NewReader(src), "")
	if err != nil {
		line.Err = fmt.Errorf("parse command line: %w", err)
	}
	if f != nil {
		w.collectVars(f, true)
		w.stmts(f.Stmts)
	}
	if line.Err == nil && st.err != nil {
		line.Err = st.err
	}
	return line
}
