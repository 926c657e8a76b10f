// Package shellcmd parses a command line into normalized simple commands;
// it never expands, runs or reads files.
//
// It is the first step of agent-shell's policy decision: a rule is matched
// against what a command line would run, not against its text. [Parse]
// reads the line with mvdan.cc/sh/v3/syntax (bash dialect) and reports
// every simple command it finds, wherever it is.
//
// # What Parse decides
//
//   - Where commands are: in lists (;, &&, ||, &, newlines), pipelines (|,
//     |&), subshells, blocks, if/while/until/for/select/case bodies and
//     conditions, function bodies, coproc and time, command substitutions
//     ($( ) and backticks, also inside double quotes, parameter expansions,
//     arithmetic, redirect targets and unquoted heredocs) and process
//     substitutions. The assignments of declare/export/local/readonly/
//     typeset are commands too; [[ ]], (( )) and let are not (only the
//     substitutions inside them are).
//   - Which code is not written as a command but runs: the script of a
//     shell (sh, bash, zsh, dash, ksh, mksh, ash, yash, posh, lksh) given an
//     option cluster holding c (-c, -lc, -ec, -c -e), or fed on standard input
//     by a heredoc, a here-string or a pipe from an echo or printf of static
//     text; the words of eval (joined by spaces); the action of trap; su -c,
//     flock FILE -c and watch (its arguments joined); GNU parallel's command
//     (joined, once per static ::: argument, the argument quoted in place of
//     {} or appended); the commands of find -exec, -execdir, -ok and -okdir
//     (primaries only: find . -name -exec is a name test); and the command
//     lines that the program of an interpreter one-liner runs (python -c,
//     node -e or -p, bun -e, deno eval, ruby -e, perl -e or -E, php -r,
//     or such an interpreter reading its program from a heredoc, a
//     here-string or a static echo or printf): os.system("..."),
//     subprocess.run([...]), execSync("..."), backticks, qx{}... An argv
//     list is joined with its words quoted. The command lines an awk
//     program runs are walked too (awk, gawk, mawk, nawk; the program is
//     the first operand or the -e parts, not a -f file): system("..."), print | "..." and "..." |
//     getline, string escapes decoded; a shell or interpreter there that
//     reads awk's output as its script is unknown. [Command.Code] holds what a
//     small lexer per language finds in the program ([CodeScan]): the
//     command lines, recursive deletes (shutil.rmtree, fs.rmSync with
//     recursive: true, FileUtils.rm_rf, File::Path rmtree) and file
//     changes; text in strings, comments and regular expressions is data.
//     Programs that run shell text they are given: tar's --to-command,
//     --use-compress-program (-I), --info-script and --new-volume-script
//     (-F), --rsh-command and --checkpoint-action=exec=; the Ex commands
//     of vim (-c, --cmd, +CMD, and its input in Ex mode) that run a shell
//     (:!cmd, a range filtered through one, :r !cmd, :w !cmd, inside :g);
//     a makefile make reads from its input (-f -) or --eval, whose
//     recipes run; and git, whose configuration may name what runs: an
//     alias its subcommand names when -c, --config-env,
//     GIT_CONFIG_KEY_n/VALUE_n or GIT_CONFIG_PARAMETERS (on the command,
//     or standing alone or exported earlier in the line) define it,
//     expanded with the words after it (a "!" alias is shell text), the
//     commands of settings such as core.sshCommand or core.pager, and what
//     git config sets for later commands, judged where it is set: an
//     alias, a shell command, a remote's push refspec (+refs/... forces)
//     or mirror. git send-pack and http-push are reported as the push they
//     do ([Command.Implied]). An assignment to BASH_ALIASES is reported
//     as the alias it defines.
//     Shell bodies are parsed recursively, at most [MaxDepth] deep; each
//     level adds one to [Command.Depth]. find runs its -exec commands at
//     the same depth.
//   - What a program agent-shell does not know may run: such a program may
//     be a wrapper (faketime now rm -rf ~, xvfb-run, mise exec --) or take
//     a command line (concurrently 'rm -rf ~', psql -c '\! rm -rf ~'), so
//     each of its arguments that names a known program starts a command
//     it may run, and each that reads as a command line is a script it may
//     run, one level deeper: [Command.Guessed] commands, which follow it.
//     A directory option before one (--cwd, -C) makes its directory
//     unknown. A caller judges them only by what objects to them (see
//     [Command.Guessed]); more than 16 in one command make it unknown.
//   - What a package manager runs from package.json, where the caller gives
//     the file on disk ([ParseWith], [Disk]): each script its words name,
//     with the words after it appended (npm run rm -- ~), the pre and post
//     scripts of each and its subcommand's lifecycle scripts (npm ci runs
//     prepare), each one level deeper and [Command.Guessed]. A line that
//     writes package.json itself has what it wrote walked instead. make's
//     recipes likewise, from the makefile on disk (makefile.go), just's
//     from the justfile (justfile.go), mise's tasks (misetasks.go), deno's
//     and composer's (jsontasks.go), pyproject.toml's scripts for pdm,
//     poe, rye and hatch (pyscripts.go), and git's hooks and .git/config
//     (gitdisk.go).
//   - find -delete is reported as an extra command, [rm -r -f ROOT...]
//     (Implied "find -delete"), so that a deny rule for "rm -rf *" also
//     stops "find / -delete". It over-approximates: find . -name '*.o'
//     -delete deletes less than rm -r -f . would. A -delete that is the
//     argument of a test or action (find . -name -delete) is none.
//   - Normalization of each command: leading assignments go to
//     [Command.Assigns]; wrappers are unwrapped into [Command.Layers] (env
//     with its options, -S and assignments; command, builtin, exec, nohup,
//     time, timeout, nice, ionice, stdbuf, chrt, taskset, setsid, flock,
//     chroot, pkexec, busybox, toybox, watch -x, sudo and doas with their options,
//     xargs, unbuffer, strace, ltrace, valgrind, fakeroot, catchsegv,
//     runuser -u, script -c); long options may be shortened to any
//     unambiguous prefix, as getopt_long and git read them; quotes and escapes are removed ($'...' decoded); brace
//     expansions are expanded ({rm,-rf,/} is rm -rf /); the program is
//     reduced to its basename ([Command.Path] keeps it as written);
//     redirections become [Redirect] values.
//   - What is unknown: a program that is not static ($X, $(echo rm),
//     "${CMD}", a glob such as r*), a wrapper or find argument whose
//     expansion could change what runs, a shell body or eval argument that
//     is not static (bash -c "$X", bash -c "rm $DIR"), an interpreter
//     one-liner whose program is not static (python -c "$X") or runs a
//     command line that is not (os.system(cmd), execSync(`rm ${d}`),
//     system("rm #{d}"), awk's system($0) or print | cmd), a tar command,
//     vim Ex command or makefile text that is not static (or an Ex command
//     that may run a program some other way: :call system(), :normal, a
//     \= substitution; a makefile that expands $(...) or sets SHELL), a
//     git configuration key or alias that is not static or configuration
//     read from a file (include.path, GIT_CONFIG_GLOBAL), a body nested
//     deeper than [MaxDepth], and a line that does not parse or nests too
//     deeply ([Line.Err]). So is what run-time input supplies in place of
//     a missing part: the script of a shell -c, eval, watch, su -c or
//     flock -c, the program of awk, or the program of a wrapper (sudo --,
//     env, timeout 5), when xargs or parallel appends arguments to it
//     (xargs bash -c, xargs awk, xargs sudo --); and a parallel with no command that reads its
//     command lines from input (parallel, printf 'ls\n' | parallel),
//     whose piped or heredoc script is still reported. So is a shell that
//     reads its script from a pipe not fed by a static echo or printf
//     (curl x | sh), or from a process substitution, and a program runner
//     that is not unwrapped (unshare, nsenter, systemd-run, gdb, ...). A
//     caller must treat an unknown command or line as unknown, never allow
//     it.
//   - What is data and so not a command: the arguments of echo, git commit
//     -m and the like, single-quoted strings, quoted heredocs, comments.
//
// Words whose value is not known statically keep their source text in
// Argv ("$HOME", "$(date)") and mark the command [Command.Dynamic]; the
// arguments xargs, parallel and find supply at run time ({} and appended
// arguments) do too, as do an alias's body (the words after the alias's
// name are appended to it). [Command.Shapes] says which parts of each word
// vary, and [CanonicalShape] turns them into a template that the canonical
// form of every run-time value fits, for a matcher that must tell "no value
// matches" from "some value may". Globs and tildes are kept as written (rm
// -rf ~/* has the argument "~/*") and do not make a command dynamic, except
// that a program name that is a glob is unknown.
//
// [Canonical] puts a command's options in one canonical form, for matching
// a pattern and a command canonicalized the same way; its documentation
// states the contract.
//
// [ProgramOptions] and [GitOptions] are the program-knowledge table: which
// options of each program take a value (short and long), which cluster,
// their short equivalents. Canonical, the unwrapping of wrappers, and
// (through [Options.Split], [InPlace] and [CdTarget]) policy's effects and
// the guard all read it, so that they agree on which words are operands;
// the TestProgramsAgree tests of this package, policy and policy/guard run
// every spelling [Spellings] gives through each of them.
//
// # What it never does
//
// It never expands parameters, globs or tildes, never runs a command
// substitution, never reads a script file, PATH, aliases or functions
// defined elsewhere, and never consults the environment. bash script.sh,
// python script.py, source FILE and a one-liner's program read at run time
// (curl x | python3) are commands whose effects the caller's effects table
// must judge. Nothing is computed at package initialisation:
// every hook call is a process start.
package shellcmd
