package builtins

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{``, []string{}},
		{`   `, []string{}},
		{`# just a comment`, []string{}},
		{`ls`, []string{"ls"}},
		{`ls -l 'a b' "c d"`, []string{"ls", "-l", "a b", "c d"}},
		{`a\ b`, []string{"a b"}},
		{`"a\"b\$c\x\\"`, []string{`a"b$c\x\`}},
		{`'a\b"c'`, []string{`a\b"c`}},
		{`"a"'b'c`, []string{"abc"}},
		{`''`, []string{""}},
		{`echo '' ""`, []string{"echo", "", ""}},
		{"echo a\\\nb", []string{"echo", "ab"}},
		{"echo 'a\nb'", []string{"echo", "a\nb"}},
		{`FOO=1 BAR+=2 cmd`, []string{"FOO=1", "BAR+=2", "cmd"}},
		{`FOO= cmd`, []string{"FOO=", "cmd"}},
		{`export FOO=1 BAR`, []string{"export", "FOO=1", "BAR"}},
		{`declare -x FOO`, []string{"declare", "-x", "FOO"}},
		{`[ -f x ]`, []string{"[", "-f", "x", "]"}},
		{`echo {a} {} a{b}c`, []string{"echo", "{a}", "{}", "a{b}c"}},
		{`find . -name '*.go' -exec rm {} \;`, []string{"find", ".", "-name", "*.go", "-exec", "rm", "{}", ";"}},
		{`echo \{a,b} '{a,b}' "{a..b}" {a\,b}`, []string{"echo", "{a,b}", "{a,b}", "{a..b}", "{a,b}"}},
		{`ls a~b http://h:~x`, []string{"ls", "a~b", "http://h:~x"}},
		{`\~/x "~"/y`, []string{"~/x", "~/y"}},
		{`\* '*' "?" \[a]`, []string{"*", "*", "?", "[a]"}},
		{`echo # comment`, []string{"echo"}},
		{`git push --force origin main`, []string{"git", "push", "--force", "origin", "main"}},
		{`echo é`, []string{"echo", "é"}},
		{`echo a\`, []string{"echo", `a\`}},
		{"echo 'a\r\nb' c\rd\r", []string{"echo", "a\r\nb", "c\rd\r"}},
		{"echo \"\r\"\\\r\n", []string{"echo", "\r\r"}},
		{"echo \ue000\r", []string{"echo", "\ue000\r"}},
	}
	for _, tt := range tests {
		got, err := SplitWords(tt.in)
		if err != nil {
			t.Errorf("SplitWords(%q): %v", tt.in, err)
			continue
		}
		if !slices.Equal(got, tt.want) || got == nil {
			t.Errorf("SplitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	errs := []struct{ in, want string }{
		{`echo $X`, `"$X" cannot be split statically`},
		{`echo ${X:-y}`, `"${X:-y}" cannot be split statically`},
		{`echo "a $X"`, `"$X" cannot be split statically`},
		{`echo $(id)`, `"$(id)" cannot be split statically`},
		{"echo `id`", "\"`id`\" cannot be split statically"},
		{`echo $((1+2))`, `"$((1+2))" cannot be split statically`},
		{`ls *.go`, `"*.go" cannot be split statically`},
		{`ls a?`, `"a?" cannot be split statically`},
		{`ls [ab]`, `"[ab]" cannot be split statically`},
		{`echo {a,b}`, `"{a,b}" cannot be split statically`},
		{`echo x{1..3}`, `"x{1..3}" cannot be split statically`},
		{`echo {{}},00}`, `"{{}},00}" cannot be split statically`},
		{`echo {a',b'}`, `cannot be split statically`},
		{`ls ~/x`, `"~/x" cannot be split statically`},
		{`ls ~`, `"~" cannot be split statically`},
		{`x=~/y cmd`, `"~/y" cannot be split statically`},
		{`PATH=a:~/b cmd`, `"a:~/b" cannot be split statically`},
		{`echo $'a\n'`, `"$'a\\n'" cannot be split statically`},
		{`echo $"a"`, `"$\"a\"" cannot be split statically`},
		{`echo <(ls)`, `"<(ls)" cannot be split statically`},
		{`echo @(a|b)`, `"@(a|b)" cannot be split statically`},
		{`x=(1 2)`, `"x=(1 2)" cannot be split statically`},
		{`a; b`, `2 commands; want one simple command`},
		{"a\nb", `2 commands; want one simple command`},
		{`a | b`, `"a | b" is not a simple command`},
		{`a && b`, `"a && b" is not a simple command`},
		{`a || b`, `"a || b" is not a simple command`},
		{`a &`, `background command`},
		{`a > f`, `redirection "> f"`},
		{`a 2>&1`, `redirection "2>&1"`},
		{`a <<EOF` + "\nx\nEOF\n", `redirection`},
		{`(a)`, `"(a)" is not a simple command`},
		{`{ a; }`, `"{ a; }" is not a simple command`},
		{`if a; then b; fi`, `is not a simple command`},
		{`! a`, `'!' negation`},
		{`time ls`, `"time ls" is not a simple command`},
		{`[[ -f x ]]`, `is not a simple command`},
		{`let x=1`, `is not a simple command`},
		{`'unterminated`, `reached EOF without closing quote`},
		{"a\x00b", `NUL byte at offset 1`},
		{"\xff", `invalid UTF-8`},
		{"a\r; b", `2 commands`},
		{"echo {a,\rb}", `"{a,\rb}" cannot be split statically`},
		{strings.Repeat("a", MaxString+1), `input is 16385 bytes, more than 16384`},
		{strings.Repeat("a ", MaxList+1), `more than 256 words`},
	}
	for _, tt := range errs {
		got, err := SplitWords(tt.in)
		if err == nil {
			t.Errorf("SplitWords(%q) = %q, want error %q", clipRaw(tt.in), got, tt.want)
			continue
		}
		wantErr(t, clipRaw(tt.in), err, tt.want)
	}
}

func TestShellModule(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`shell.split("git commit -m 'fix: a b'")`, `["git", "commit", "-m", "fix: a b"]`},
		{`shell.split("")`, `[]`},
		{`shell.quote("")`, `"''"`},
		{`shell.quote("abc-_./:=@%+,1")`, `"abc-_./:=@%+,1"`},
		{`shell.quote("a b")`, `"'a b'"`},
		{`shell.quote("it's")`, `"'it'\\''s'"`},
		{`shell.quote("$HOME")`, `"'$HOME'"`},
		{`shell.quote("~")`, `"'~'"`},
		{`shell.quote("FOO=1")`, `"'FOO=1'"`},
		{`shell.quote("--foo=1")`, `"--foo=1"`},
		{`shell.quote("if")`, `"'if'"`},
		{`shell.quote("export")`, `"'export'"`},
		{`shell.quote("é")`, `"'é'"`},
		{`shell.join(["git", "commit", "-m", "it's done"])`, `"git commit -m 'it'\\''s done'"`},
		{`shell.join(("a",))`, `"a"`},
		{`shell.join([])`, `""`},
		{`shell.split(shell.join(["a b", "", "'", "\n", "$x", "FOO=1"]))`, `["a b", "", "'", "\n", "$x", "FOO=1"]`},
	}
	for _, tt := range tests {
		if got := mustEval(t, tt.expr); got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	errs := []struct{ expr, want string }{
		{`shell.split("echo $X")`, `shell.split: "$X" cannot be split statically`},
		{`shell.split("a; b")`, `shell.split: 2 commands; want one simple command`},
		{`shell.split("a" * 16385)`, `shell.split: input is 16385 bytes`},
		{`shell.split(["a"])`, `shell.split: for parameter s: got list, want string`},
		{`shell.quote("a\0b")`, `shell.quote: a shell word cannot contain a NUL byte`},
		{`shell.quote("a" * 16385)`, `shell.quote: s is 16385 bytes`},
		{`shell.join("a b")`, `shell.join: words is string, want list or tuple of strings`},
		{`shell.join([1])`, `shell.join: words[0] is int, want string`},
		{`shell.join(["a"] * 257)`, `shell.join: words has 257 items, more than 256`},
		{`shell.join(["a\0"])`, `shell.join: words[0]: a shell word cannot contain a NUL byte`},
		{`shell.join(["a" * 16385])`, `shell.join: words[0] is 16385 bytes`},
		{`shell.join(["'" * 16384] * 5)`, `shell.join: result is more than 262144 bytes`},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}

// quote then split gives back the words.
func TestQuoteRoundTrip(t *testing.T) {
	words := []string{"", " ", "'", `"`, `\`, "$", "`", "!", "#", "~", "*", "?", "[", "]", "{a,b}", "a=b",
		"if", "then", "[[", "{", "}", "(", ")", ";", "&", "|", "<", ">", "\n", "\t", "é", "-", "--x=~/y",
		"FOO+=1", "time", "declare", "let", "coproc", "function", "!a", "a'b\"c"}
	for _, w := range words {
		for _, argv := range [][]string{{w}, {"cmd", w}, {w, w}} {
			q, err := joinWords(argv)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SplitWords(q)
			if err != nil {
				t.Errorf("SplitWords(%q) (from %q): %v", q, argv, err)
				continue
			}
			if !slices.Equal(got, argv) {
				t.Errorf("SplitWords(%q) = %q, want %q", q, got, argv)
			}
		}
	}
}

func joinWords(words []string) (string, error) {
	qs := make([]string, len(words))
	for i, w := range words {
		q, err := QuoteWord(w)
		if err != nil {
			return "", err
		}
		qs[i] = q
	}
	return strings.Join(qs, " "), nil
}

// The words SplitWords accepts are the words bash passes to a program (skipped without bash
// or with -short).
func TestSplitWordsMatchesBash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	inputs := []string{
		`ls -l 'a b' "c d"`, `a\ b`, `"a\"b\$c\x\\"`, `'a\b"c'`, `"a"'b'c`, `x '' ""`, "x a\\\nb", "x 'a\nb'",
		`FOO=1 BAR+=2 cmd`, `FOO= cmd`, `export FOO=1 BAR`, `[ -f x ]`, `echo {a}`, `ls a~b http://h:~x`,
		`\~/x "~"/y`, `\* '*' "?" \[a]`, `echo é`, "echo 'a\r\nb' c\rd\\\r", `echo a\`, `git commit -m "it's \"done\""`,
		`x "\a\b\c\$\` + "`" + `"`, `find . -exec rm {} \;`, `echo {a} {} a{b}c \{a,b}`, "x \\\\\\\n0", "x \"\\\\\\\n0\"", `x a\'b`, `x "a'b"`, `x 'a"b'`, `x --opt=value -- -x`, `x ]`, `x a[`, `x a]b`,
	}
	for _, in := range inputs {
		want, err := SplitWords(in)
		if err != nil {
			t.Errorf("SplitWords(%q): %v", in, err)
			continue
		}
		out, err := exec.Command(bash, "--norc", "--noprofile", "-c", `printf '%s\0' `+in).Output()
		if err != nil {
			t.Errorf("bash on %q: %v", in, err)
			continue
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !slices.Equal(got, want) {
			t.Errorf("SplitWords(%q) = %q, bash says %q", in, want, got)
		}
	}
}
