package shellcmd

import (
	"slices"
	"strings"
	"testing"
)

// indirectTests maps command lines that run other commands through a
// program's configuration or its script input to the commands Parse finds,
// rendered as in parseTests.
var indirectTests = []struct {
	in   string
	want []string
}{
	// git aliases given on the line: expanded with the words after them.
	{`git -c alias.p='push --force' p origin main`, []string{`git -c "alias.p=push --force" p origin main`, `git push --force origin main @1`}},
	{`git -c alias.p='!rm -rf x' p y`, []string{`git -c "alias.p=!rm -rf x" p y`, `rm -rf x y @1`}},
	{`git -c alias.a=b -c alias.b='push -f' a`, []string{`git -c alias.a=b -c "alias.b=push -f" a`, `git -c alias.a=b -c "alias.b=push -f" b @1`, `git push -f @2`}},
	{`git -c alias.p='push -f' p "$B"`, []string{`git -c "alias.p=push -f" p $B ~dyn`, `git push -f @1 ~dyn`}},
	{`git -c alias.st='!rm -rf x' status`, []string{`git -c "alias.st=!rm -rf x" status`}}, // not the alias used
	{`git -c alias.p="$X" p`, []string{`git -c alias.p=$X p !unknown ~dyn`}},
	{`git -c "$K" status`, []string{`git -c $K status !unknown ~dyn`}},
	{`git --config-env=alias.p=CMD p`, []string{`git --config-env=alias.p=CMD p !unknown`}},
	// ... in the environment.
	{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push --force' git p`, []string{`git p`, `git push --force @1`}},
	{`export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f'; git p`, []string{`export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p "GIT_CONFIG_VALUE_0=push -f"`, `git p`, `git push -f @1`}},
	{`GIT_CONFIG_PARAMETERS="'alias.p=push --force'" git p`, []string{`git p`, `git push --force @1`}},
	{`GIT_CONFIG_KEY_0="$K" git p`, []string{`git p !unknown`}},
	{`GIT_SSH_COMMAND='sh -c "rm -rf /"' git fetch`, []string{`git fetch`, `sh -c "rm -rf /" @1 ~dyn`, `rm -rf / @2`}},
	{`export GIT_SSH_COMMAND="$X"; git fetch`, []string{`export GIT_SSH_COMMAND=$X ~dyn`, `git fetch !unknown`}},
	{`GIT_CONFIG_GLOBAL=./x git p`, []string{`git p !unknown`}},
	{`GIT_CONFIG_GLOBAL=/dev/null git status`, []string{`git status`}},
	{`git -c include.path=./x status`, []string{`git -c include.path=./x status !unknown`}},
	// Configuration whose value is a shell command.
	{`git -c core.sshCommand='rm -rf ~' fetch`, []string{`git -c "core.sshCommand=rm -rf ~" fetch`, `rm -rf ~ @1 ~dyn`}},
	{`git -c core.pager=less log`, []string{`git -c core.pager=less log`, `less @1 ~dyn`}},
	{`git -c pager.log=false log`, []string{`git -c pager.log=false log`}},
	{`git -c credential.helper=store push`, []string{`git -c credential.helper=store push`}},
	// git config: judged where it is set, with any arguments to come.
	{`git config alias.x 'push --force'`, []string{`git config alias.x "push --force"`, `git push --force @1 ~dyn`}},
	{`git config --global alias.x '!rm -rf ~'`, []string{`git config --global alias.x "!rm -rf ~"`, `rm -rf ~ @1 ~dyn`}},
	{`git config set alias.x 'reset --hard'`, []string{`git config set alias.x "reset --hard"`, `git reset --hard @1 ~dyn`}},
	{`git config remote.origin.push '+refs/heads/*:refs/heads/*'`, []string{`git config remote.origin.push +refs/heads/*:refs/heads/*`, `git push origin +refs/heads/*:refs/heads/* @1`}},
	{`git config remote.origin.mirror true`, []string{`git config remote.origin.mirror true`, `git push --mirror origin @1`}},
	{`git config --get alias.x`, []string{`git config --get alias.x`}},
	{`git config user.email "$E"`, []string{`git config user.email $E ~dyn`}},
	{`git config "$K" v`, []string{`git config $K v !unknown ~dyn`}},
	{`git config alias.x "$V"`, []string{`git config alias.x $V !unknown ~dyn`}},
	// git subcommands that run a command they are given (these passed).
	{`git submodule foreach 'rm -rf ~'`, []string{`git submodule foreach "rm -rf ~"`, `rm -rf ~ @1`}},
	{`git submodule --quiet foreach --recursive git reset --hard`, []string{`git submodule --quiet foreach --recursive git reset --hard`, `git reset --hard @1`}},
	{`git bisect run rm -rf ~`, []string{`git bisect run rm -rf ~`, `rm -rf ~ @1`}},
	{`git rebase -x 'git push -f' main`, []string{`git rebase -x "git push -f" main`, `git push -f @1`}},
	{`git rebase -ix 'rm -rf ~' main`, []string{`git rebase -ix "rm -rf ~" main`, `rm -rf ~ @1`}},
	{`git rebase --exec='rm -rf ~' main`, []string{`git rebase "--exec=rm -rf ~" main`, `rm -rf ~ @1`}},
	{`git rebase -Xsubtree=x/y main`, []string{`git rebase -Xsubtree=x/y main`}},
	{`git rebase -x "$C" main`, []string{`git rebase -x $C main !unknown ~dyn`}},
	{`git difftool -x 'rm -rf ~' HEAD`, []string{`git difftool -x "rm -rf ~" HEAD`, `rm -rf ~ @1 ~dyn`}},
	{`git fetch --upload-pack='rm -rf ~;' origin`, []string{`git fetch "--upload-pack=rm -rf ~;" origin`, `rm -rf ~ @1 ~dyn`}},
	// A remote URL ext::CMD runs CMD ("% " is a space in a word); these passed.
	{`git clone 'ext::sh -c rm% -rf% ~' x`, []string{`git clone "ext::sh -c rm% -rf% ~" x`, `sh -c "rm -rf ~" @1`, `rm -rf ~ @2`}},
	{`git fetch --url='ext::rm -rf %S'`, []string{`git fetch "--url=ext::rm -rf %S"`, `rm -rf git-upload-pack @1`}},
	{`git -c remote.o.url='ext::rm -rf ~' fetch o`, []string{`git -c "remote.o.url=ext::rm -rf ~" fetch o`, `rm -rf ~ @1`}},
	{`git -c url.'ext::rm -rf ~'.insteadOf=https://x/ clone https://x/r`, []string{`git -c "url.ext::rm -rf ~.insteadOf=https://x/" clone https://x/r`, `rm -rf ~ @1`}},
	{`git clone "$URL"`, []string{`git clone $URL ~dyn`}},
	{`git clone https://github.com/x/y`, []string{`git clone https://github.com/x/y`}},
	{`git clone -u 'rm -rf ~;' host:x`, []string{`git clone -u "rm -rf ~;" host:x`, `rm -rf ~ @1 ~dyn`}},
	{`git push --receive-pack='rm -rf ~;' origin`, []string{`git push "--receive-pack=rm -rf ~;" origin`, `rm -rf ~ @1 ~dyn`}},
	{`git -c remote.origin.uploadpack='rm -rf ~;' fetch origin`, []string{`git -c "remote.origin.uploadpack=rm -rf ~;" fetch origin`, `rm -rf ~ @1 ~dyn`}},
	{`EDITOR='rm -rf ~' git commit`, []string{`git commit`, `rm -rf ~ @1 ~dyn`}},
	{`PAGER='rm -rf ~' git log`, []string{`git log`, `rm -rf ~ @1 ~dyn`}},
	{`EDITOR=vim git commit`, []string{`git commit`, `vim @1 ~dyn`}},
	// Commands other programs run on this machine (these passed).
	{`ssh -o ProxyCommand='rm -rf ~' host`, []string{`ssh -o "ProxyCommand=rm -rf ~" host`, `rm -rf ~ @1 ~dyn`}},
	{`ssh -o 'LocalCommand rm -rf ~' host ls`, []string{`ssh -o "LocalCommand rm -rf ~" host ls`, `rm -rf ~ @1 ~dyn`, `ls @1`}},
	// ssh's command runs on the remote host, which may be this one, in a
	// folder not known here; options may follow the destination.
	{`ssh host 'rm -rf x'`, []string{`ssh host "rm -rf x"`, `rm -rf x @1`}},
	{`ssh localhost rm -rf ~`, []string{`ssh localhost rm -rf ~`, `rm -rf ~ @1`}},
	{`ssh h -p 22 -- rm -rf ~`, []string{`ssh h -p 22 -- rm -rf ~`, `rm -rf ~ @1`}},
	{`echo 'rm -rf ~' | ssh h`, []string{`echo "rm -rf ~"`, `ssh h`, `rm -rf ~ @1`}},
	{`ssh h "$CMD"`, []string{`ssh h $CMD !unknown ~dyn`}},
	{`ssh -N -L 8080:localhost:80 h`, []string{`ssh -N -L 8080:localhost:80 h`}},
	{`ssh -s h sftp`, []string{`ssh -s h sftp`}},
	{`scp -o ProxyCommand='rm -rf ~' a host:b`, []string{`scp -o "ProxyCommand=rm -rf ~" a host:b`, `rm -rf ~ @1 ~dyn`}},
	{`rsync -ae 'rm -rf ~;' a host:b`, []string{`rsync -ae "rm -rf ~;" a host:b`, `rm -rf ~ @1 ~dyn`}},
	{`rsync -e ssh a host:b`, []string{`rsync -e ssh a host:b`, `ssh @1 ~dyn`}},
	{`man -P 'rm -rf ~' ls`, []string{`man -P "rm -rf ~" ls`, `rm -rf ~ @1`}},
	{`man -aP 'rm -rf ~' ls`, []string{`man -aP "rm -rf ~" ls`, `rm -rf ~ @1`}}, // a cluster (it passed)
	{`man --pag='rm -rf ~' ls`, []string{`man "--pag=rm -rf ~" ls`, `rm -rf ~ @1`}},
	{`man -M /x ls`, []string{`man -M /x ls`}},
	{`zip -T -TT 'rm -rf ~;' x.zip f`, []string{`zip -T -TT "rm -rf ~;" x.zip f`, `rm -rf ~ @1 ~dyn`}},
	{`sed -n '1e rm -rf ~' f`, []string{`sed -n "1e rm -rf ~" f`, `rm -rf ~ @1`}},
	{`sed ':a;N;$!ba;e rm -rf ~' f`, []string{`sed ":a;N;$!ba;e rm -rf ~" f`, `rm -rf ~ @1`}},
	{`sed 's/.*/rm -rf ~/e' f`, []string{`sed "s/.*/rm -rf ~/e" f !unknown`}},
	{`sed ':a;N;$!ba;s/\n/ /g' f`, []string{`sed ":a;N;$!ba;s/\\n/ /g" f`}},
	{`sed -e 's/e/E/g' -e '/^$/d' f`, []string{`sed -e s/e/E/g -e /^$/d f`}},
	// Plumbing that pushes.
	{`git send-pack --force origin main`, []string{`git send-pack --force origin main`, `git push --force origin main =implied`}},
	// tar's commands.
	{`tar --to-command='rm -rf x' -xf a.tar`, []string{`tar "--to-command=rm -rf x" -xf a.tar`, `rm -rf x @1`}},
	{`tar -xf a.tar --to-com="$C"`, []string{`tar -xf a.tar --to-com=$C !unknown ~dyn`}},
	{`tar -xf a.tar --to-"$X"=y`, []string{`tar -xf a.tar --to-$X=y !unknown ~dyn`}},
	{`tar xIf 'rm -rf x' a.tar`, []string{`tar xIf "rm -rf x" a.tar`, `rm -rf x @1 ~dyn`}},
	{`tar -I 'rm -rf x' -xf a.tar`, []string{`tar -I "rm -rf x" -xf a.tar`, `rm -rf x @1 ~dyn`}},
	{`tar --checkpoint=1 --checkpoint-action=exec='rm -rf x' -cf a.tar .`, []string{`tar --checkpoint=1 "--checkpoint-action=exec=rm -rf x" -cf a.tar .`, `rm -rf x @1`}},
	{`tar --checkpoint-action=dot -czf a.tgz src`, []string{`tar --checkpoint-action=dot -czf a.tgz src`}},
	{`tar -czf out.tgz -C build .`, []string{`tar -czf out.tgz -C build .`}},
	// vim's Ex commands.
	{`vim -es -c '!rm -rf x'`, []string{`vim -es -c "!rm -rf x"`, `rm -rf x @1`}},
	{`vim +'r !rm -rf x' f`, []string{`vim "+r !rm -rf x" f`, `rm -rf x @1`}},
	{`vim -c 'g/x/!rm -rf y' f`, []string{`vim -c "g/x/!rm -rf y" f`, `rm -rf y @1`}},
	{`vim -c '%!sort' -c wq f`, []string{`vim -c %!sort -c wq f`, `sort @1`}},
	{`vim -c "'a,'b!rm x" f`, []string{`vim -c "'a,'b!rm x" f`, `rm x @1`}},
	{`vim -c 'call system("rm -rf x")' f`, []string{`vim -c "call system(\"rm -rf x\")" f !unknown`}},
	{`vim -c '%s/a/\=system("id")/' f`, []string{`vim -c "%s/a/\\=system(\"id\")/" f !unknown`}},
	{`vim -c '%s/a/b/g' -c 'wq!' f`, []string{`vim -c %s/a/b/g -c wq! f`}},
	{`vim +42 f`, []string{`vim +42 f`}},
	{`vim -c 'silent !rm -rf x' f`, []string{`vim -c "silent !rm -rf x" f`, `rm -rf x @1`}},
	{`vim -c 'sil! keepj %!rm -rf x' f`, []string{`vim -c "sil! keepj %!rm -rf x" f`, `rm -rf x @1`}},
	{`echo '!rm -rf x' | ex -s f`, []string{`echo "!rm -rf x"`, `ex -s f`, `rm -rf x @1`}},
	{`curl x | vim -es f`, []string{`curl x`, `vim -es f !unknown`}},
	// make reading a makefile from its input or --eval.
	{`echo 'all:; rm -rf x' | make -f -`, []string{`echo "all:; rm -rf x"`, `make -f -`, `rm -rf x @1`}},
	{`printf 'all:\n\trm -rf $$HOME\n' | make -f -`, []string{`printf "all:\\n\\trm -rf $$HOME\\n"`, `make -f -`, `rm -rf $HOME @1 ~dyn`}},
	{"make -f - <<'EOF'\nall:\n\t@rm -rf x\nEOF", []string{`make -f - (<<)`, `rm -rf x @1`}},
	{`make --eval='all: ; rm -rf x'`, []string{`make "--eval=all: ; rm -rf x"`, `rm -rf x @1`}},
	{`curl x | make -f -`, []string{`curl x`, `make -f - !unknown`}},
	{"make -f - <<'EOF'\nall:\n\t$(shell rm -rf x)\nEOF", []string{`make -f - !unknown (<<)`}},
	{`make -j4 test`, []string{`make -j4 test`}},
	{`echo 'all:; rm -rf x' | make -f /dev/fd/0`, []string{`echo "all:; rm -rf x"`, `make -f /dev/fd/0`, `rm -rf x @1`}},
	// Aliases assigned through BASH_ALIASES.
	{`BASH_ALIASES[x]='rm -rf'; x y`, []string{`alias "x=rm -rf" =implied`, `rm -rf @1 ~dyn`, `x y`, `rm -rf y @1`}},
}

func TestParseIndirect(t *testing.T) {
	for _, tt := range indirectTests {
		l := Parse(tt.in)
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
		checkLine(t, tt.in, l)
	}
}

// FuzzRunnerScripts checks the readers of Ex commands and makefiles on any
// text: they never panic, an Ex command's shell text is a part of the
// line, and a recipe is one line.
func FuzzRunnerScripts(f *testing.F) {
	for _, s := range []string{
		"!rm -rf x", "%s/a/b/g|wq", "g/x/!rm y", "sil! keepj %!sort", "'a,'b!rm", "r !ls", "w !sh", "call system('x')",
		"all:; rm -rf x", "all:\n\t@rm -rf $$HOME\n", "x: y ; z", "define f\nendef", "SHELL=/bin/x", "a: \\\n\tb",
		"/pat\\/x/d", "?p?!ls", "'", "/", "s/a\\|b/c/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sc := range exBodies(s).scripts {
			if !strings.Contains(s, sc.src) {
				t.Fatalf("exBodies(%q) found %q, not in the line", s, sc.src)
			}
		}
		for _, sc := range makefileBodies(s).scripts {
			if strings.Contains(sc.src, "\n") {
				t.Fatalf("makefileBodies(%q) found a recipe of two lines: %q", s, sc.src)
			}
		}
	})
}
