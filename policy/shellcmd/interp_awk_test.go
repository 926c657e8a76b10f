package shellcmd

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// awkParseTests: what Parse finds below an awk command (the commands
// after it, rendered as in parseTests), and a part of its Unknown ("" when
// it is known).
var awkParseTests = []struct {
	in      string
	nested  []string
	unknown string
}{
	// system(), print | and getline run static command lines one level deeper.
	{`awk 'BEGIN { system("rm -rf /") }'`, []string{"rm -rf / @1"}, ""},
	{`gawk 'BEGIN { system("git reset --hard") }'`, []string{"git reset --hard @1"}, ""},
	{`mawk 'BEGIN { system("git reset --hard") }'`, []string{"git reset --hard @1"}, ""},
	{`nawk 'BEGIN { system("git reset --hard") }'`, []string{"git reset --hard @1"}, ""},
	{`awk 'BEGIN { system("ls") }'`, []string{"ls @1"}, ""},
	{`awk 'BEGIN { system("echo " "hi") }'`, []string{"echo hi @1"}, ""},
	{`awk 'BEGIN { system(("rm -rf /")) }'`, []string{"rm -rf / @1"}, ""},
	{`awk '{ n = $1 / 2; system("ls"); m = n/4 }' f`, []string{"ls @1"}, ""},
	{`awk 'length / 2 > 1 { system("ls") } /x/'`, []string{"ls @1"}, ""},
	{`awk 'BEGIN { "date" | getline d; print d }'`, []string{"date @1"}, ""},
	{`awk 'BEGIN { "printf ok" | getline line; print line }'`, []string{"printf ok @1"}, ""},
	{`awk 'BEGIN { while (("ls" | getline f) > 0) print f }'`, []string{"ls @1"}, ""},
	{`awk 'BEGIN { if (x) "date" | getline d }'`, []string{"date @1"}, ""},
	{`awk 'BEGIN { ("echo " "date") | getline }'`, []string{"echo date @1"}, ""},
	{`gawk 'BEGIN { "date" |& getline }'`, []string{"date @1"}, ""},
	{`awk '{ printf "%s\n", $1 | "sort -u" }'`, []string{"sort -u @1"}, ""},
	{`awk '{ print | "sort" } END { close("sort") }'`, []string{"sort @1"}, ""},
	{`awk 'BEGIN { print "x" | "cat >/tmp/f" }'`, []string{"cat @1 w:/tmp/f"}, ""},
	{`gawk '{ print |& "cat" }'`, []string{"cat @1"}, ""},
	// Escapes decode before the command line is parsed.
	{`awk 'BEGIN { system("rm\x20-rf\x20/") }'`, []string{"rm -rf / @1"}, ""},
	{`awk 'BEGIN { system("rm\040-rf\040/") }'`, []string{"rm -rf / @1"}, ""},
	{`awk 'BEGIN { system("rm -rf \/") }'`, []string{"rm -rf / @1"}, ""},
	{`awk 'BEGIN { system("echo \"a b\"") }'`, []string{"echo \"a b\" @1"}, ""},
	// Options, wrappers, awk inside other bodies.
	{`awk -F: -v x=1 -- 'BEGIN { system("ls") }' f`, []string{"ls @1"}, ""},
	{`gawk -e 'BEGIN { system("ls") }' -e 'END { system("pwd") }'`, []string{"ls @1", "pwd @1"}, ""},
	{`gawk --so='BEGIN { system("rm -rf /") }' f`, []string{"rm -rf / @1"}, ""},
	{`gawk -W source='BEGIN { system("rm -rf /") }'`, []string{"rm -rf / @1"}, ""},
	{`busybox awk 'BEGIN { system("rm -rf /") }'`, []string{"rm -rf / @1"}, ""},
	{`sudo awk 'BEGIN { system("rm -rf /") }'`, []string{"rm -rf / @1"}, ""},
	{`echo ok | xargs awk 'BEGIN { system("rm -rf /") }'`, []string{"rm -rf / @1", `awk "BEGIN { system(\"rm -rf /\") }" ok =implied`, "rm -rf / @1"}, ""},
	{`echo ok | xargs -S 4096 awk 'BEGIN { system("rm -rf /") }'`, []string{"rm -rf / @1", `awk "BEGIN { system(\"rm -rf /\") }" ok =implied`, "rm -rf / @1"}, ""},
	{`find . -exec awk 'BEGIN { system("rm -rf /") }' \;`, []string{"rm -rf / @1"}, ""},
	{`bash -c "awk 'BEGIN { system(\"rm -rf /\") }'"`, []string{"rm -rf / @2"}, ""},
	{`awk 'BEGIN { system("bash -c \"rm -rf /\"") }'`, []string{`bash -c "rm -rf /" @1`, "rm -rf / @2"}, ""},
	// A shell or interpreter reading awk's output reads a script not static.
	{`awk 'BEGIN { print "x" | "sh" }'`, []string{"sh @1 !unknown"}, ""},
	{`awk 'BEGIN { printf "import os" | "python3" }'`, []string{"python3 @1 !unknown"}, ""},
	{`awk 'BEGIN { print "x" | "bash -c sh" }'`, []string{"bash -c sh @1", "sh @2 !unknown"}, ""},
	{`awk 'BEGIN { print "x" | "echo ls | sh" }'`, []string{"echo ls @1", "sh @1", "ls @2"}, ""},
	// Not static: consistent with bash -c "$X".
	{`awk '{ system($0) }'`, nil, "awk runs a command line that is not static: system($0)"},
	{`awk 'BEGIN { system(cmd) }'`, nil, "awk runs a command line that is not static: system(cmd)"},
	{`echo ok | xargs awk '{ system($0) }'`, nil, "not static"},
	{`awk -v cmd=ls 'BEGIN { system(cmd) }'`, nil, "not static"},
	{`awk '{ print | $1 }'`, nil, "awk runs a command line that is not static: print | $1"},
	{`awk 'BEGIN { cmd = "ls"; while ((cmd | getline f) > 0) print f }'`, nil, "not static: cmd | getline"},
	{`awk 'BEGIN { "echo " "date" | getline }'`, nil, "not static"}, // gawk and other awks split it differently
	{`awk 'BEGIN { system("rm \q") }'`, nil, "not static"},          // \q is q to gawk, \q to mawk
	{`awk 'BEGIN { system("a\x2dbc") }'`, nil, "not static"},        // old gawk reads every hex digit
	{`awk 'BEGIN { system("ls\0; rm -rf /") }'`, nil, "not static"}, // a NUL ends the line early
	{"awk 'BEGIN { system(\"ls\n\") }'", nil, "not static"},         // a line break ends the string: awk rejects it
	{`gawk 'BEGIN { f = "system"; @f("rm -rf /") }'`, nil, "not static: @f("},
	{`awk '/[/]/ { system("rm -rf /") }'`, []string{"rm -rf / @1"}, "awks read differently"},
	{`awk "$PROG" f`, nil, "not static"},
	{`gawk -e "$PROG"`, nil, "program is not static"},
	{`awk -X '{}'`, nil, "unknown option -X"},
	{`awk -W "$X" '{}'`, nil, "not static"},
	{`echo x | xargs awk`, nil, "awk program supplied at run time by xargs"},
	// Programs that run nothing, and programs in files: no body, not unknown.
	{`awk '{print $1}' file`, nil, ""},
	{`awk -F: '{print $1}' /etc/passwd`, nil, ""},
	{`awk 'BEGIN{print "rm -rf /"}'`, nil, ""},
	{`awk '/rm -rf/ {print}' log.txt`, nil, ""},
	{`awk '$1 ~ /system\(/ {print}'`, nil, ""},
	{`awk '{ a = "system(\"x\")"; print a }'`, nil, ""},
	{"awk '# system(\"rm -rf /\")\n{print}'", nil, ""},
	{`awk '{ print > "/dev/stderr" }'`, nil, ""},
	{`awk 'BEGIN { system("") }'`, nil, ""},
	{"awk '{print $1}' <<EOF\nrm -rf /home/user\nEOF", nil, ""},
	{`echo ok | xargs awk '{ print }'`, []string{`awk "{ print }" ok =implied`}, ""}, // xargs fed static text
	{`awk -f prog.awk file`, nil, ""},
	{`awk -f prog.awk 'BEGIN { system("rm -rf /") }'`, nil, ""}, // the operand is a data file
	{`mawk -W exec prog.awk`, nil, ""},
	{`awk --version`, nil, ""},
	{`awk`, nil, ""},
}

func TestAwkBodies(t *testing.T) {
	for _, tt := range awkParseTests {
		l := Parse(tt.in)
		checkLine(t, tt.in, l)
		first := slices.IndexFunc(l.Commands, func(c Command) bool { return isAwk(c.Argv[0]) })
		if first < 0 {
			t.Errorf("Parse(%q): no awk command in %q", tt.in, renderAll(l))
			continue
		}
		if got := renderAll(l)[first+1:]; !slices.Equal(got, tt.nested) {
			t.Errorf("Parse(%q): nested\n got %q\nwant %q", tt.in, got, tt.nested)
		}
		why := l.Commands[first].Unknown
		if tt.unknown == "" && why != "" || tt.unknown != "" && !strings.Contains(why, tt.unknown) {
			t.Errorf("Parse(%q): Unknown = %q, want %q", tt.in, why, tt.unknown)
		}
	}
}

// TestAwkCode: the scan is on the command, with its file changes.
func TestAwkCode(t *testing.T) {
	tests := []struct {
		in      string
		changes bool
	}{
		{`awk '{ print > "out.txt" }' f`, true},
		{`awk '{ print $1 >> "log" }' f`, true},
		{`awk '{ print $1 > $2 }' f`, true},
		{`awk '{ printf "%s", $1 > "/dev/fd/2" }' f`, false},
		{`awk '{ print ($1 > $2) }' f`, false},
		{`awk '{ print > "/dev/null" }' f`, false},
		{`gawk -i inplace '{ sub(/a/, "b") } 1' f`, true},
		{`gawk --include=inplace '1' f`, true},
		{`gawk '@include "inplace"; { sub(/a/, "b") } 1' f`, true},
		{`gawk -i lib '1' f`, false},
	}
	for _, tt := range tests {
		c := Parse(tt.in).Commands[0]
		if c.Code == nil || c.Code.Lang != "awk" || c.Code.ChangesFiles != tt.changes || c.Code.Unknown != "" {
			t.Errorf("Parse(%q): Code %+v, want ChangesFiles %v", tt.in, c.Code, tt.changes)
		}
	}
	for _, argv := range [][]string{{"awk"}, {"awk", "-f", "p.awk"}, {"gawk", "--version"}, {"awk", "-E", "p.awk", "x"}} {
		if scan, ok := ScanCode(argv); ok {
			t.Errorf("ScanCode(%q) = %+v: no program to scan", argv, scan)
		}
	}
}

// FuzzAwkProgram checks that scanning an awk program never panics and
// stays bounded: each command line it runs is decoded from literals of the
// program, each literal read at most once, so all of them together are
// no longer than the program; and Parse keeps its invariants on it.
func FuzzAwkProgram(f *testing.F) {
	for _, tt := range awkParseTests {
		if i, j := strings.IndexByte(tt.in, '\''), strings.LastIndexByte(tt.in, '\''); i < j {
			f.Add(tt.in[i+1 : j])
		}
	}
	f.Fuzz(func(t *testing.T, prog string) {
		scan, ok := ScanCode([]string{"awk", "--", prog})
		if !ok || scan.Code != prog || scan.Lang != "awk" || scan.DeletesRecursively {
			t.Fatalf("ScanCode(awk %q) = %+v, %v", prog, scan, ok)
		}
		n := 0
		for _, r := range scan.Runs {
			if strings.TrimSpace(r) == "" {
				t.Fatalf("ScanCode(awk %q): empty command line in %q", prog, scan.Runs)
			}
			n += len(r)
		}
		if n > len(prog) {
			t.Fatalf("ScanCode(awk %q): runs %q are longer than the program", prog, scan.Runs)
		}
		for _, k := range scan.fed {
			if k < 0 || k >= len(scan.Runs) {
				t.Fatalf("ScanCode(awk %q): fed %v out of %d runs", prog, scan.fed, len(scan.Runs))
			}
		}
		if q, err := syntax.Quote(prog, syntax.LangBash); err == nil {
			src := "awk -- " + q
			checkLine(t, src, Parse(src))
		}
	})
}

// TestAwkBounded: a program that runs a command line in every statement
// is read, and its command lines walked, in time linear in its size.
func TestAwkBounded(t *testing.T) {
	for _, stmt := range []string{`print | "sh";`, `"x" | getline;`, `system("x");`, `print > "f";`, "print print print "} {
		prog := strings.Repeat(stmt, (1<<18)/len(stmt))
		start := time.Now()
		l := Parse("awk " + strconv.Quote(prog))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("awk %q x %d took %v", stmt, len(prog)/len(stmt), d)
		}
		checkLine(t, stmt, l)
	}
}
