package setup

// The starter policy init writes when the repository has none. It only
// denies: an allow list would deny everything not on it (the reference
// tool's footgun, which turned a deny-only policy into a two-entry allow
// list), and a useful one comes from the project itself, which is what
// `agent-shell policy --init` proposes.

const starterPolicyJSON = `{
  "deny": [
    "rm -rf *",
    "sudo *",
    "git push --force*",
    "git reset --hard*"
  ]
}
`

const starterManifest = `# agent-shell's rules for this project: before an agent runs a shell command,
# they decide whether it is allowed, asked about, or denied. Written by
# ` + "`agent-shell init`" + ` as a starter: edit it freely.
#
#   agent-shell policy check                      load and check this file
#   agent-shell policy explain 'git clean -fdx'   show how a command is decided
#   agent-shell policy --init                     propose rules from this project
#
# This starter only denies; every other command is allowed. policy.json next
# to it holds the compatible deny list (simple patterns) and is read too.

version = 1

[policy]
# When no rule matches a command.
default = "allow"
# When what a command runs cannot be known before it runs, e.g. "$CMD args".
unknown = "ask"

# A rule matches the parsed command, not its text: option order and bundling
# (-fdx), paths (/usr/bin/git) and wrappers (sudo, env, bash -c '...') do not
# get around it. Its examples are checked whenever the policy loads, so a
# rule that stops matching them is an error instead of a silent hole.
[[rule]]
id = "git-clean-force"
action = "deny"
reason = "git clean -f deletes untracked files, which git cannot bring back"
match = { argv_prefix = ["git", "clean"], argument = "-f", not = { argument = "-n" } }
examples = { match = ["git clean -fdx", "git clean --force", "bash -c 'git clean -f'"], not_match = ["git clean -n", "git clean --dry-run -f", "git status"] }
`
