package shellcmd

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, never hides a parse error, and
// keeps its invariants (see checkLine); Canonical stays idempotent on
// every command it reports, and its shapes fit their layers. Seeds: the
// tables of TestParse, TestParseDirs, TestParseIndirect and
// TestParseShapes.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, tt := range dirTests {
		f.Add(tt.in)
	}
	for _, tt := range indirectTests {
		f.Add(tt.in)
	}
	for _, tt := range shapeTests {
		f.Add(tt.in)
	}
	for _, s := range []string{
		"echo 'abc", "(ls", "cat <<EOF\nx", "a |", "$(", "${x", "case x in", "{a,b}{c,d}",
		"sudo -u", "env -S", "xargs -I", "find . -exec", "parallel :::", "bash -c", "eval",
		"git -C", "timeout", "trap", "su -c", "flock f -c", "watch", "echo x | sh",
		"echo x > a; sh a", "curl -o a u; ./a", "wget -qO a u; python3 a", "PS4=", "BASH_ENV=<(", "export PROMPT_COMMAND=", "bash --rcfile", "npx", "npx -c", "npm exec --", "pnpm -r --filter", "npm --prefix", "uv --directory x", "pnpm -C", "uv tool run", "pnpm exec -c", "yarn exec", "cross-env A=1", "cross-env-shell", "npx @s", "rimraf --", "tar --remove-files -C$D -cf x a", "tar --directory=$D --remove-f -cf x a", "f=.env; cat $f", "for d in a b; do rm -rf $d; done", "cat ${f:-x} ${g=y}", "sh -c 'cat $1 \"$@\"' _ x", "a=(x y); b=$a/$c; $b", "IFS=,; f=a,b; $f", "declare -u f=x; f+=y; ((f++)); $f", "PAGER=x man", "LESSOPEN='|x %s' less", "at now <<< x", "at -f", "at -qa", "tmux -c", "tmux new -d x \\; send-keys -l y Enter", "tmux send-keys C-c", "tmux -Lx new -c", "screen -dmS", "screen -X", "ssh h -p", "ssh -- h", "ssh h -- x", "curl -OJ x; ./a", "wget -P d u/x.sh; sh d/x.sh", "aria2c -d", "http -d u; sh x", "curl --output-dir", "alias a=b b=a; a x", "f(){ cat $1; }; f x", "read -r f <<< x; $f", "echo x | xargs -I{} c {}", "printf '%s %s' a | xargs c", "d=$(mktemp -d); rm $d", "f=ab; $f ${f/a/b} ${f//a} ${f#a} ${f%%b} ${f:1:9} ${f:9} ${f^^} ${f,}", "a=(x); a+=(y); for f in \"${a[@]}\"; do $f; done", "D=a; D=\"$D b\"; $D",
		"a=(rm -rf ~); \"${a[@]}\" ${a[1]} ${a[*]} ${a[9]}", "NODE_OPTIONS='--import=\"data:,x\\\" y\"' node", "MAKEFLAGS='--eval=x:;a\\ b' make", "PERL5OPT=-Mx;y perl",
		"LESS='+!x$' less", "env 'BASH_FUNC_f%%=() { x; }' bash -c f", "node --import data:;base64,!! x", "npm test --node-options=", "tar -xPf a -C d m", "unzip a -x b -d c",
		"deno run -A npm:x@1 y", "npx shx@1 rm x", "cp /dev/stdin x <<< y && sh x",
		"crontab - <<< '@reboot x % y'", "echo '* * * * *' | crontab -", "crontab <<'E'\nA=b\n1 2 3 4 5 x\\%y\nE", "sqlite3 d <<< '.shell x'", "python3 /dev/stdin <<< x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkLine(t, src, Parse(src))
	})
}

// FuzzCanonical checks that Canonical never panics, never modifies its
// input, and is idempotent; and that GitSplit loses no word. Words are separated by spaces in the input.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", "rm --recursive --force /", "git -C d push --force", "git commit -am m",
		"git commit -m", "sudo -u root rm -fR /", "env -S 'rm -rf' x", "xargs", "xargs -I{} rm {}",
		"git push --force*", "rm -- -x", "grep -A3 x -e", "git branch -D x", "curl -fsSLo out u",
		"chmod -rwx f", "git -c a=b -C x push -f +m", "timeout 5 nice -n 1 rm -rf /", "",
		"git rebase --onto x y", "git rebase --ont=x -Sk", "git commit -uno --untracked-files=all -S",
		"git tag -n3 --sort v", "cp --sparse always a b", "chmod --reference -r f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Split(s, " ")
		orig := slices.Clone(argv)
		once := Canonical(argv)
		if !slices.Equal(argv, orig) {
			t.Fatalf("Canonical modified its input: %q -> %q", orig, argv)
		}
		if len(once) == 0 {
			t.Fatalf("Canonical(%q) is empty", argv)
		}
		if twice := Canonical(once); !slices.Equal(once, twice) {
			t.Fatalf("Canonical is not idempotent on %q: %q then %q", argv, once, twice)
		}
		// GitSplit loses no word and leaves its input alone.
		g, sub, rest := GitSplit(argv[1:])
		if !slices.Equal(argv, orig) {
			t.Fatalf("GitSplit modified its input: %q -> %q", orig, argv)
		}
		var back []string
		back = append(back, g...)
		if sub != "" || len(g)+len(rest) < len(argv)-1 {
			back = append(back, sub)
		}
		if back = append(back, rest...); !slices.Equal(back, argv[1:]) {
			t.Fatalf("GitSplit(%q) = %q, %q, %q", argv[1:], g, sub, rest)
		}
	})
}

// FuzzParseBudget repeats a fuzzed fragment into long or deeply nested lines:
// parsing one stays under a memory budget, and a line refused for its size
// says so as ErrTooLarge (a caller denies it) rather than looking clean.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"( ", "$(", "{ ", "if true; then ", "$((", "`", "echo x; ", "a && ", "\"$(", "'("} {
		f.Add(s, uint16(20000))
	}
	f.Fuzz(func(t *testing.T, frag string, n uint16) {
		if len(frag) == 0 || len(frag) > 16 {
			return
		}
		src := "rm -rf x; " + strings.Repeat(frag, int(n))
		// The fuzzing engine allocates too, now and then: the least of two
		// parses is the parser's own cost.
		var l *Line
		grown := uint64(1 << 62)
		for range 2 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			l = Parse(src)
			runtime.ReadMemStats(&after)
			grown = min(grown, after.TotalAlloc-before.TotalAlloc+max(0, after.StackInuse-before.StackInuse))
		}
		if grown > 64<<20 {
			t.Errorf("%d × %q: parsing cost %d MiB", n, frag, grown>>20)
		}
		if l.Err == nil && (len(l.Commands) == 0 || l.Commands[0].Argv[0] != "rm") {
			t.Errorf("%d × %q: no error, yet rm -rf x is not the first command", n, frag)
		}
	})
}
