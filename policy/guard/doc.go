// Package guard is agent-shell's built-in guard rules.
//
// The guards are part of the binary, not of the manifest: they run on every
// pre-tool event before the project's policy is even looked at, and no rule,
// reviewer, grant, interceptor or load error can overturn them. They deny
//
//   - agent-shell-files: any write to agent-shell's own files,
//     .github/hooks/agent-shell/** and .agent-shell/**;
//   - hook-registration: any write to a host's hook registration, as each
//     host's hostapi.Descriptor states them: in the repository
//     (.claude/settings.json, .claude/settings.local.json,
//     .codex/hooks.json, .codex/config.toml, .gemini/settings.json,
//     .cursor/hooks.json, .github/hooks/*.json,
//     .opencode/plugins/agent-shell.js, .amp/settings.json) and in the
//     user's home (~/.claude/settings.json, ~/.codex/hooks.json,
//     ~/.codex/config.toml, ~/.gemini/settings.json, ~/.cursor/hooks.json,
//     ~/.copilot/hooks/*.json, ~/.config/amp/settings.json);
//   - npm-script-shell: a change to npm's script-shell setting, which sends
//     npm scripts through agent-shell (the script-shell line of any .npmrc
//     under the root or of ~/.npmrc, `npm config set|delete script-shell`,
//     `npm config edit` of a file that sets it, the per-command overrides
//     --script-shell and npm_config_script_shell, and --userconfig or
//     npm_config_userconfig where ~/.npmrc sets it);
//   - agentshell-env: a command that sets AGENTSHELL_PASSTHROUGH,
//     AGENTSHELL_POLICY_PATH, AGENTSHELL_LOG_DIR, AGENTSHELL_ACTOR,
//     AGENTSHELL_RECORD_FD, or CLAUDE_CODE_SIMPLE or CLAUDE_CODE_SAFE_MODE
//     (which start Claude Code without hooks) (or writes one into a shell
//     startup file, or sources a file that sets one), or that exports or
//     sets a variable whose name is known only at run time (export $V=1).
//
// hook-registration also covers a nested Claude Code session started
// without the project's hooks: claude --setting-sources without project,
// --settings that change hooks, claude config set of a hooks key.
//
// Reads stay allowed. A write is seen through an edit or write tool (by the
// path fields of its input, or the headers of an apply_patch patch) or
// through a shell command's write effects: redirections, and the operands
// of the programs that write their arguments (see guardLayer).
//
// Paths are matched relative to the root (or the home), cleaned, in ASCII
// lower case (a case-insensitive file system reaches the same file), both
// as written and through the symbolic links that exist when the hook runs
// (the deepest existing ancestor is resolved, and the file itself for a
// write that follows a link). A relative path is taken from the event's cwd
// (the root when it has none, as Amp's calls do), and from every folder a
// static cd or pushd earlier in the line may have moved to. A glob is
// matched against the files that exist, as the shell would. An operand
// that holds a protected path counts for removals, moves, permission
// changes, find -delete/-exec and recursive copies (for a copy, only where
// its source holds the part below; for rsync, scp -r and git clone from
// another host, whose folder may hold anything, wherever a protected path
// could land, whether it exists yet or not). A path outside the root and
// the home is not protected (it is another repository).
//
// What is NOT caught (the policy's own rules and its unknown handling are
// the line there):
//   - writes by interpreters and by programs the guard does not know
//     (python -c, node -e, awk without -i inplace, make, tar -x, unzip,
//     formatters, editors' scripts...);
//   - targets only known at run time ($X, xargs input, cd $X), unless the
//     static part already lies in .agent-shell/ or
//     .github/hooks/agent-shell/ (.agent-shell/$X, $HOME/..., $PWD/...,
//     $(pwd)/..., $(git rev-parse --show-toplevel)/... and a host's
//     project folder variable, $CLAUDE_PROJECT_DIR/..., are resolved, and
//     so is a variable the line sets itself, d=.claude; echo > $d/x, an
//     array's element, a for loop's variable or set -- .claude; echo >
//     $1/x, with every value the line gives it, vars.go);
//   - git operations that rewrite the work tree as a whole: a branch
//     checkout, `git checkout .`/`git restore .`/`git stash` (pathspecs
//     that name a protected path, or a folder below the root holding one,
//     count), reset, merge, pull, rebase, switch, and git clean without -x
//     (both keep ignored files; untracked new files in
//     .github/hooks/agent-shell/ would go);
//   - links the line makes other than by ln -s with static words (cp -s,
//     an interpreter, ln -s $X); those that exist when the hook runs are
//     resolved, and one the line makes with ln -s is followed (ln -s
//     .github g && rm -rf g/hooks, vars.go); hard links made before the
//     call; Unicode normalization on file systems that apply it;
//   - variables set by `source`, `set -a` with a file, or a
//     file written now and read by a later command (except shell startup
//     files: .bashrc, .profile, .zshrc, .envrc, .env, ...);
//   - home-level registrations other than those listed, and system-wide
//     ones (/etc/...).
//
// The files split by concern: guard.go holds the guard names, the [guard]
// table, the entry points and the guarder with its budget and denials;
// protected.go the protected paths (the hosts' registrations from the
// hostapi registry) and the list the kernel makes read-only; settings.go
// the guarded variables and npm's script-shell; paths.go resolves and classifies paths; tools.go reads edit
// tools' inputs and patches.go the patches they or a command apply;
// shell.go walks a command line (vars.go the variables it sets); writers.go knows each program's write
// operands; find.go tells which finds spare the protected files; and
// self.go guards runs of agent-shell itself.
//
// The guard imports policy/shellcmd to read command lines and hostapi for
// the event it checks, never policy: policy calls it first.
package guard
