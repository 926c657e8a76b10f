package setup

// StarterManifest is the configuration init writes when the repository has
// none: the built-in safety pack at level standard, and nothing else. It
// never writes an allow list: one would deny everything not on it (the
// reference tool's footgun, which turned a deny-only policy into a
// two-entry allow list), and a useful one comes from the project itself,
// which is what `agent-shell policy --init` proposes; its --write replaces
// this starter whole while it is unedited.
const StarterManifest = `# agent-shell's rules for this project: before an agent runs a shell command,
# they decide whether it is allowed, asked about, or denied. Written by
# ` + "`agent-shell init`" + ` as a starter: edit it freely.
#
#   agent-shell policy check                      load and check this file
#   agent-shell policy explain 'git clean -fdx'   show how a command is decided
#   agent-shell pack show safety                  read the safety pack's rules
#   agent-shell policy --init                     propose rules from this project

version = 1

[policy]
# When no rule matches a command.
default = "allow"
# When what a command runs cannot be known before it runs, e.g. "$CMD args".
unknown = "ask"

# The built-in safety pack blocks destructive and secret-leaking commands:
# discarding uncommitted work and rewriting shared git history, recursive
# deletes outside the project, writing to disks, recursive permission
# changes of system folders, running downloaded code, showing or sending
# secret files, and interpreter one-liners that do any of these. Each denial
# names the rule and a safer way. Level "strict" adds more (recursive deletes
# only of build outputs, one-liners that change files, ...). Turn one rule
# off by its id, e.g. disable = ["safety/git-history"].
[[pack]]
name = "safety"
options = { level = "standard" }
`
