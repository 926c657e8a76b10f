// Package policy decides on hook events and shell commands from the
// project's policy: policy.json's allow and deny lists (the compatible seed
// format) and the manifest, agent-shell.toml, with its rules, packs,
// scripts, interceptors, reviewers, analyzers and audit filter. The scripts
// run in package runtime; the command line is parsed by policy/shellcmd.
//
// # The pipeline
//
// Every decision passes the same stages, in the order Engine.decide lists
// them (pipeline.go), and a stage that completes the decision ends it:
//
//  1. The built-in guard (guard.go): writes to agent-shell's own files and
//     to the hosts' hook registrations are denied, whatever the
//     configuration says.
//  2. Authorization (authorized.go): a configuration in force that no human
//     authorized denies everything, or has every reason say so.
//  3. The command: a policy that does not load denies, a tool call that is
//     not a shell command is allowed, and the command line is parsed.
//  4. The rules (rules.go): policy.json's lists and the manifest's rules
//     and packs, with matcher scripts and effect analyzers; every match
//     counts, and the most severe decides (deny beats ask beats allow).
//  5. The before-interceptors (intercept_before.go): a rewrite restarts the
//     pipeline from the top on the new command, at most 8 times.
//  6. Review (review.go): on an ask, approval grants and reviewers.
//
// # Manifest authorization
//
// A human authorizes the configuration (policy.json, the manifest and every
// script and module it runs) with `agent-shell authorize`: its digest is
// recorded in the user's configuration directory (package authority) and a
// copy of its files is kept under AuthorizedSubpath/<digest>/, laid out as
// under the repository root. Every decision checks the digest of the
// configuration in force against the record; when they differ, the
// authorized copy's own [policy] unauthorized says what decides.
//
// # Dynamic words
//
// Dynamic words are not known words. A command whose words are only known
// at run time (rm $F x, git push origin "$B", echo x | xargs rm) is matched
// against every value they may take, through its shapes (see
// shellcmd.Command.Shapes): a deny or ask rule that some value would match,
// and no static word rules out, matches maybe, and the command is unknown
// to it: [policy] unknown decides, as for a command whose program is not
// static. An allow rule that only maybe matches does not allow.
//
// # Interceptors
//
// Interceptors: [[interceptor]] script = "ID", phase = "before" | "after".
//
// Before-interceptors run after the rules, only when the rules (and the
// guard before them) did not deny, and before grants and reviewers. Each
// simple command of the line goes, in line order, through the
// before-interceptors in declaration order. An interceptor's optional match
// (the rule matcher syntax) is tested against the command's layers,
// outermost first, with the rule matcher code: the first layer it holds for
// is the one the interceptor sees (a matcher script that fails counts as a
// match, so the interceptor runs; one whose declared failure is deny denies
// the line); without a match the interceptor sees the outermost layer. The
// script gets shell-context-v1 with phase "shell_before" and the line's
// policy decision (action, reason, and the matches of that command), or,
// for an executable, the before_command payload of shell-hook-json-v1.
//
//   - Intercept.proceed(): the next interceptor (then the next command).
//   - Intercept.reject(reason): deny "<id>: <reason>".
//   - Intercept.rewrite(argv): the argv, quoted as one simple command,
//     replaces the whole line, and the decision restarts from the top with
//     it: the guard (not on the npm shim), the rules, the interceptors and
//     the reviewers again. At most 8 restarts; the 9th rewrite denies. A
//     line that is not one simple command (several commands, a pipeline, a
//     substitution, a redirection or an environment assignment, which the
//     argv cannot carry) is denied naming the rewrite instead.
//   - Intercept.respond(stdout, stderr, exit): nothing runs; the synthetic
//     result (finalized: terminal escapes stripped, redacted, bounded)
//     stands for the command. On a line that is not one simple command it
//     is denied naming the answer, as a rewrite is.
//   - A failure (fuel, timeout, error, malformed answer, state, input) takes
//     the script's declared failure: deny (the default) names the
//     interceptor and the failure; proceed goes on to the next.
//
// How a path uses the outcome (Decision.Intercept): on the hook path a
// reject, a respond (its output in the reason) and a failure are denies, and
// a rewrite that the rules then allow is rendered by HookVerdict as the
// host's input rewrite where the adapter can carry one, else as a deny
// naming it. The npm shim (DecideShim) runs the rewritten command, prints a
// synthetic result without running anything, or refuses to run; it does
// not enforce the rules' own allow/ask/deny (they only decide whether the
// interceptors run), and it never runs reviewers.
//
// After-interceptors (no match) see every finished command's finalized
// output as shell-result-v1 (phase "shell_after"), in declaration order:
// Result.keep(), Result.replace(stdout, stderr) (re-finalized; the exit
// status never changes), Result.reject_disclosure(reason) (the output is
// withheld). A failure is the declared failure: deny (the default)
// withholds the output, keep keeps it. See After.
//
// # Reviewers and approval grants
//
// Reviewers and approval grants: the last step of a decision, run only when
// the rules say ask (a deny never gets here, so no reviewer or grant can
// overturn one).
//
//  1. Grants. Each simple command that asked is looked up among the live
//     grants of the request's session, then the durable ones. When every
//     one of them is covered, the line is allowed without running any
//     reviewer. A grant store that cannot be read denies (fail closed).
//  2. Reviewers. The commands no grant covers are reviewed one by one, each
//     by the [[reviewer]] chain in declaration order (strategy
//     first_terminal): defer (or a failure declared "defer") passes the
//     command to the next reviewer, any other answer ends its chain.
//     Reviewing stops at the first command denied. A reviewer sees its
//     command as shell-context-v1 with phase "shell_reviewer", the policy
//     decision (action, reason, matches) and offered_scopes.
//  3. The line: any command denied -> deny (the first denial's reason);
//     else any command whose reviewers all deferred -> ask stays, for the
//     host ("all reviewers deferred: <reason>"); else allow, and only then
//     are the grants the reviewers asked for stored (a store error denies).
//
// A reviewer reviews one simple command, not the line: "curl x && rm y"
// asks about curl and rm separately (when both asked), so that an answer,
// and a grant, is about one command whose identity can be checked later; a
// line is allowed only when every command that asked is approved or covered
// by a grant. The same command twice in one line is reviewed once.
//
// Answers: Review.approve() approves once (the scope "once", which must be
// offered too); Review.approve_for(scope) approves and leaves a grant of a
// scope the manifest offers ([approvals] scopes), and denies for a scope it
// does not offer, never downgrading silently; Review.deny(reason) denies
// "<script>: <reason>"; Review.rewrite(argv) denies, naming the suggested
// command (the hook path cannot run another command); Review.defer() passes.
// A failure (fuel, timeout, error, malformed answer, state) takes the
// script's declared failure: deny (the default) or defer. No failure
// approves.
//
// Grant identity (the original runtime's length-prefixed command hash,
// docs/README.md, "Terms", with what the hook path knows): the scope
// parts are the manifest digest, the request kind ("shell"), the program
// identity, the cwd (cleaned) and a digest of what else changes what the
// command does: its environment assignments (PATH=... cmd) and
// redirections, in order (our stand-in for the original's environment and
// stdin digests). The exact hash is GrantHash(scope parts ++ argv), where
// argv is the command's outermost layer (wrappers included, so a grant for
// `rm x` does not cover `sudo rm x`). The program identity is the innermost
// layer's program as written, shellcmd's Path: "name:<word>" for a word
// looked up in PATH, "path:<filepath.Clean(path)>" for one with a slash (a
// relative path is relative to the cwd, which is part of the identity).
// The hook path does not see the host's PATH or files, so the executable is
// not resolved or fingerprinted; a wrapper's own path is not kept by
// shellcmd either (its basename is in argv). exact_session: the same
// session and hash. prefix_session: the same session and scope hash, and an
// argv that starts with the approved request's full argv. durable_exact:
// the same hash, in any session, until it expires ([approvals]
// durable_days, default 30, at most 365) or is revoked.
//
// A command that is not static (an unknown program, a parameter
// expansion, a substitution, a dynamic redirection) has no identity a
// later request could be checked against: it is never looked up, and a
// reviewer's approve_for on it approves this request only (the review
// record says the grant was not stored).
//
// # Manifest snapshots
//
// A manifest snapshot is the validated manifest in a binary form that
// decodes without reflection: every string is a slice of one copy of the
// file, every rule and matcher a slot of one array. It sits in the compile
// cache, named by a key over the manifest's text and this build, and is
// trusted as a compiled program is (issue 14): while no authorization is
// recorded, on its key; once one is, only when the record pins its
// SHA-256 under its key (authorize pins it with the scripts' programs).
// Without one that may be used, the manifest is decoded and checked in
// full, and its snapshot written for the next call. Only manifests of
// [policy], rules and the plain tables are snapshotted: scripts and packs
// read other files, which the key does not cover.
package policy
