package policy

import (
	"strings"
	"testing"
)

// dynamicCase is a command decided under one policy: the action wanted,
// and the rule that decides it ("" when none may: the default, or an
// unknown program).
type dynamicCase struct {
	command string
	want    Action
	rule    string
}

func runDynamicCases(t *testing.T, e *Engine, cases []dynamicCase) {
	t.Helper()
	for _, tt := range cases {
		d := e.Decide(tt.command, "/repo")
		if d.Action != tt.want || d.Rule != tt.rule {
			t.Errorf("%q: got %s (rule %q, reason %q), want %s (rule %q)", tt.command, d.Action, d.Rule, d.Reason, tt.want, tt.rule)
		}
	}
}

// userDeny is what a user writes in policy.json; the policy's default is
// allow and [policy] unknown is ask, so a command a pattern may match at
// run time asks, naming the pattern.
const userDeny = `{"deny":["rm -rf *","git reset --hard*","git push --force*"]}`

// TestDynamicWordsAndIndirection: forms whose arguments are only known at
// run time, or that run other commands through configuration or script
// input, each unknown to the deny pattern (ask) or denied; and near
// misses that stay allowed.
func TestDynamicWordsAndIndirection(t *testing.T) {
	e := mustEngine(t, userDeny, "")
	runDynamicCases(t, e, []dynamicCase{
		// Dynamic words: some value would match. A value the line gives
		// the variable is read (F=-rf is denied, certainly or as one of
		// the values); IFS may split it anywhere.
		{`F=-rf; rm $F x`, ActionDeny, "rm -rf *"},
		{`rm $(cat opts) x`, ActionAsk, "rm -rf *"},
		{"rm `cat opts` x", ActionAsk, "rm -rf *"},
		{`rm $(echo -rf) x`, ActionDeny, "rm -rf *"}, // what a static echo prints is known
		{"rm `printf %s -rf` x", ActionDeny, "rm -rf *"},
		{`rm ${X:--rf} x`, ActionDeny, "rm -rf *"},
		{`set -- -rf; rm "$@" x`, ActionDeny, "rm -rf *"},
		{`rm -r$F x`, ActionAsk, "rm -rf *"},
		{`rm -f "$F" x`, ActionAsk, "rm -rf *"},
		{`M=--hard; git reset $M`, ActionDeny, "git reset --hard*"},
		{`git reset --soft "$C"`, ActionAsk, "git reset --hard*"}, // the last mode wins: $C may be --hard
		{`git push origin $B`, ActionAsk, "git push --force*"},
		{`git push origin "$B"`, ActionAsk, "git push --force*"}, // $B may be +main
		{`git push "$R" main`, ActionAsk, "git push --force*"},
		{`git $SUB --force`, ActionAsk, "git reset --hard*"}, // the first pattern that may match names it
		{`f(){ rm "$@"; }; f -rf x`, ActionDeny, "rm -rf *"},
		{`echo -rf x | xargs rm`, ActionDeny, "rm -rf *"}, // xargs fed static text
		{`cat list | xargs rm`, ActionAsk, "rm -rf *"},
		{`xargs rm < list.txt`, ActionAsk, "rm -rf *"},
		{`find . -name '*.o' | xargs rm -f`, ActionAsk, "rm -rf *"},
		{`a=(-rf); rm "${a[@]}" x`, ActionDeny, "rm -rf *"},
		{`printf -v F -- -rf; rm $F x`, ActionAsk, "rm -rf *"},
		{`read F <<< -rf; rm $F x`, ActionDeny, "rm -rf *"},
		{`declare F=-rf; rm $F x`, ActionDeny, "rm -rf *"},
		{`IFS=,; F=-r,-f; rm $F x`, ActionAsk, "rm -rf *"},
		{`env F=-rf rm $F x`, ActionAsk, "rm -rf *"},
		{`sh -c 'rm $1 x' _ -rf`, ActionDeny, "rm -rf *"},
		{`shopt -s expand_aliases; alias x='rm -r'; x -f y`, ActionDeny, "rm -rf *"},
		{`sudo rm $F x`, ActionAsk, "rm -rf *"},
		// Unknown where the program or a body is not static.
		{`$CMD -rf x`, ActionAsk, ""},
		{`eval "rm $F x"`, ActionAsk, ""},
		{`git -c "$K" push`, ActionAsk, ""},
		// Static spellings are known, and denied.
		{`rm $'-rf' x`, ActionDeny, "rm -rf *"},
		{`rm -{r,f} x`, ActionDeny, "rm -rf *"},
		{`rm -r""f x`, ActionDeny, "rm -rf *"},
		{`git push origin "+$B"`, ActionDeny, "git push --force*"},
		{`rm -rf "$D/build"`, ActionDeny, "rm -rf *"},
		// Indirection, unwrapped where the text is static.
		{`git -c alias.p='push --force' p`, ActionDeny, "git push --force*"},
		{`git -c alias.p='!rm -rf x' p`, ActionDeny, "rm -rf *"},
		{`git config alias.x 'push --force'; git x`, ActionDeny, "git push --force*"},
		{`git config --global alias.rh 'reset --hard'`, ActionDeny, "git reset --hard*"},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push --force' git p`, ActionDeny, "git push --force*"},
		{`export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f'; git p`, ActionDeny, "git push --force*"},
		{`GIT_CONFIG_PARAMETERS="'alias.p=push --force'" git p`, ActionDeny, "git push --force*"},
		{`git config remote.origin.push '+refs/heads/*:refs/heads/*'`, ActionDeny, "git push --force*"},
		{`git config remote.origin.mirror true`, ActionDeny, "git push --force*"},
		{`git push --mirror backup`, ActionDeny, "git push --force*"},
		{`git send-pack --force origin main`, ActionDeny, "git push --force*"},
		{`git -c core.sshCommand='rm -rf ~' fetch`, ActionDeny, "rm -rf *"},
		{`tar --to-command='rm -rf x' -xf a.tar`, ActionDeny, "rm -rf *"},
		{`tar xIf 'rm -rf x' a.tar`, ActionDeny, "rm -rf *"},
		{`vim -es -c '!rm -rf x'`, ActionDeny, "rm -rf *"},
		{`vim -c 'g/x/!git reset --hard' f`, ActionDeny, "git reset --hard*"},
		{`echo '!rm -rf x' | ex -s f`, ActionDeny, "rm -rf *"},
		{`echo 'all:; rm -rf x' | make -f -`, ActionDeny, "rm -rf *"},
		{"make -f - <<'EOF'\nall:\n\t@git push --force\nEOF", ActionDeny, "git push --force*"},
		{`shopt -s expand_aliases; alias x='rm -rf'; x y`, ActionDeny, "rm -rf *"},
		{`BASH_ALIASES[x]='rm -rf'; x y`, ActionDeny, "rm -rf *"},
		// ... and unknown where it is not.
		{`git -c alias.p="$X" p`, ActionAsk, ""},
		{`git config alias.x "$V"`, ActionAsk, ""},
		{`GIT_CONFIG_GLOBAL=./x git p`, ActionAsk, ""},
		{`git -c include.path=./x status`, ActionAsk, ""},
		{`tar -xf a.tar --to-command="$C"`, ActionAsk, ""},
		{`curl x | make -f -`, ActionAsk, ""},
		{`vim -c 'call system("rm -rf x")' f`, ActionAsk, ""},
		// Near misses: no value of the dynamic words matches.
		{`git commit -m "$MSG"`, ActionAllow, ""},
		{`git commit -am "$MSG"`, ActionAllow, ""},
		{`git push origin HEAD:"$B"`, ActionAllow, ""},
		{`git reset HEAD~"$N"`, ActionAllow, ""},
		{`git -C "$D" push origin main`, ActionAllow, ""},
		{`git fetch "$R"`, ActionAllow, ""},
		{`cat "$F"`, ActionAllow, ""},
		{`ls $DIR`, ActionAllow, ""},
		{`echo "$X" | xargs ls`, ActionAllow, ""},
		{`find . -exec rm -r {} \;`, ActionAllow, ""}, // {} is a path below ., never -f
		{`git config user.email "$E"`, ActionAllow, ""},
		{`git -c core.pager=less log`, ActionAllow, ""},
		{`git -c alias.st='!rm -rf x' status`, ActionAllow, ""}, // the alias is not the subcommand
		{`vim -c '%s/a/b/g' -c wq f`, ActionAllow, ""},
		{`tar -czf out.tgz -C build .`, ActionAllow, ""},
		{`make -j4 test`, ActionAllow, ""},
	})

	// A static word rules a pattern out: another program, or an operand
	// that cannot be what the pattern names.
	e = mustEngine(t, `{"deny":["git push --force*"]}`, "")
	runDynamicCases(t, e, []dynamicCase{{`rm $F notes.txt`, ActionAllow, ""}})
	e = mustEngine(t, `{"deny":["rm -rf /"]}`, "")
	runDynamicCases(t, e, []dynamicCase{
		{`rm -rf "$TMPDIR/build"`, ActionAllow, ""},
		{`rm "$D/x.txt"`, ActionAllow, ""},
		{`rm -rf "$D"`, ActionAsk, "rm -rf /"},
		{`rm -rf $TMPDIR/build`, ActionAsk, "rm -rf /"}, // unquoted: $TMPDIR may split into "/ x"
	})
}

// TestDynamicManifestRules: argv_prefix, argument, argument_contains and
// effect keys of manifest rules that a run-time value may make hold.
func TestDynamicManifestRules(t *testing.T) {
	e := mustEngine(t, "", `version = 1

[[rule]]
id = "no-force-push"
action = "deny"
match = { argv_prefix = ["git", "push"], argument = "--force" }

[[rule]]
id = "no-reset-hard"
action = "deny"
match = { argv_prefix = ["git", "reset"], argument = "--hard" }

[[rule]]
id = "no-recursive-rm"
action = "deny"
match = { basename = "rm", argument = "-r" }

[[rule]]
id = "no-env-file"
action = "ask"
match = { basename = "cat", argument_contains = ".env" }

[[rule]]
id = "no-etc-writes"
action = "deny"
match = { effect = "write:/etc/**" }
`)
	runDynamicCases(t, e, []dynamicCase{
		{`git push origin $B`, ActionAsk, "no-force-push"},
		{`git push origin "$B"`, ActionAsk, "no-force-push"},
		{`git push origin HEAD:"$B"`, ActionAllow, ""},
		{`M=--hard; git reset $M`, ActionDeny, "no-reset-hard"},
		{`git reset HEAD~"$N"`, ActionAllow, ""},
		{`git $SUB --hard`, ActionAsk, "no-force-push"}, // $SUB may be "push --force" too: the first rule names it
		{`rm $F x`, ActionAsk, "no-recursive-rm"},
		{`cat "$F"`, ActionAsk, "no-env-file"},
		{`cat "$D/notes.txt"`, ActionAsk, "no-env-file"}, // $D may be x.env
		{`cat notes.txt`, ActionAllow, ""},
		{`less "$F"`, ActionAllow, ""},
		{`rm /etc/"$F"`, ActionDeny, "no-etc-writes"}, // its effect write:/etc/$F is under /etc as written
		{`rm "$D"/x`, ActionAsk, "no-etc-writes"},
		{`echo x > "$LOG"`, ActionAsk, "no-etc-writes"},
		{`rm /tmp/"$F"`, ActionAllow, ""},
		{`rm ./"$F"`, ActionAllow, ""}, // below /repo, where it runs
		{`cd /etc && rm ./"$F"`, ActionAsk, "no-etc-writes"},
		{`git -c alias.p='push --force' p`, ActionDeny, "no-force-push"},
	})
}

// TestDynamicMaybeDecides: a maybe takes [policy] unknown, never more
// severe than its rule; an allow rule does not allow on a maybe; an allow
// list denies it as any unknown command.
func TestDynamicMaybeDecides(t *testing.T) {
	rules := `
[[rule]]
id = "no-force-push"
action = "deny"
match = { argv_prefix = ["git", "push"], argument = "--force" }

[[rule]]
id = "review-reset"
action = "ask"
match = { argv_prefix = ["git", "reset"], argument = "--hard" }
`
	strict := mustEngine(t, "", "version = 1\n[policy]\nunknown = \"deny\"\n"+rules)
	runDynamicCases(t, strict, []dynamicCase{
		{`git push origin $B`, ActionDeny, "no-force-push"},
		{`git reset $M`, ActionAsk, "review-reset"}, // capped at the rule's ask
	})
	lax := mustEngine(t, "", "version = 1\n[policy]\nunknown = \"allow\"\ndefault = \"ask\"\n"+rules)
	runDynamicCases(t, lax, []dynamicCase{
		{`git push origin $B`, ActionAsk, ""}, // unknown allows nothing here: the default decides
	})
	allowOnly := mustEngine(t, "", `version = 1
[policy]
default = "deny"

[[rule]]
id = "plain-push"
action = "allow"
match = { argv_prefix = ["git", "push"], not = { argument = "--force" } }
`)
	runDynamicCases(t, allowOnly, []dynamicCase{
		{`git push origin main`, ActionAllow, "plain-push"},
		{`git push origin HEAD:"$B"`, ActionAllow, "plain-push"},
		{`git push origin $B`, ActionDeny, ""},
	})
	// A deny rule's exception that does not hold for a dynamic word as
	// written still does not: the rule denies, as it did.
	except := mustEngine(t, "", `version = 1

[[rule]]
id = "rm-rf-outside-tmp"
action = "deny"
match = { all = [{ basename = "rm" }, { argument = "-r" }, { argument = "-f" }], not = { effect = "write:/tmp/**" } }
`)
	runDynamicCases(t, except, []dynamicCase{
		{`rm -rf "$D"`, ActionDeny, "rm-rf-outside-tmp"},
		{`rm -rf /tmp/x`, ActionAllow, ""},
		{`rm $F x`, ActionAsk, "rm-rf-outside-tmp"},
	})
	list := mustEngine(t, `{"allow":["git push origin *"],"deny":["git push --force*"]}`, "")
	runDynamicCases(t, list, []dynamicCase{
		{`git push origin main`, ActionAllow, ""},
		{`git push origin $B`, ActionDeny, "git push --force*"},
	})
	pipe := mustEngine(t, `{"deny":["cat * | xargs rm -rf *"]}`, "")
	runDynamicCases(t, pipe, []dynamicCase{
		{`cat list | xargs rm -rf`, ActionDeny, "cat * | xargs rm -rf *"},
		{`cat list | xargs rm`, ActionAsk, "cat * | xargs rm -rf *"},
		{`cat list | xargs ls`, ActionAllow, ""},
	})
}

// TestDynamicReason: the reason names the pattern and what is only known
// at run time.
func TestDynamicReason(t *testing.T) {
	e := mustEngine(t, userDeny, "")
	d := e.Decide(`rm $F x`, "/repo")
	for _, want := range []string{"rm -rf * may match it", "$F is only known at run time"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q lacks %q", d.Reason, want)
		}
	}
	d = e.Decide(`echo x | xargs rm`, "/repo")
	if !strings.Contains(d.Reason, "arguments given at run time") {
		t.Errorf("reason %q does not name the appended arguments", d.Reason)
	}
}

// BenchmarkDecideDynamic is Decide on a line with dynamic words, which
// the deny patterns are also matched against as shapes.
func BenchmarkDecideDynamic(b *testing.B) {
	e := mustEngine(b, benchPolicyJSON, benchManifest)
	const command = `cd "$DIR" && rm -rf "$TMPDIR/build" && git push origin "$BRANCH" | tee "$LOG"`
	b.ReportAllocs()
	for b.Loop() {
		if d := e.Decide(command, "/repo"); d.Action == "" {
			b.Fatal("no action")
		}
	}
}
