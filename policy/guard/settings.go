package guard

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The settings that route commands through agent-shell or change what it
// records: the AGENTSHELL_ variables and npm's script-shell.

// guardedEnv are the variables no command may set, and what setting each
// would do.
var guardedEnv = map[string]string{
	"AGENTSHELL_PASSTHROUGH": "would switch agent-shell off for the commands it runs",
	"AGENTSHELL_POLICY_PATH": "would make agent-shell read another policy",
	"AGENTSHELL_LOG_DIR":     "would move agent-shell's flight recorder",
	"AGENTSHELL_ACTOR":       "would make the flight recorder name another actor",
	"AGENTSHELL_RECORD_FD":   "would send what agent-shell records to a descriptor of the command's choosing instead of the flight recorder",
	// Reported to start Claude Code without hooks, plugins and skills: a
	// nested session whose tool calls agent-shell would not see.
	"CLAUDE_CODE_SIMPLE":    "would start Claude Code without its hooks, agent-shell's among them",
	"CLAUDE_CODE_SAFE_MODE": "would start Claude Code without its hooks, agent-shell's among them",
}

// The guard's regexps are compiled on first use, not at start-up: every
// process pays its package initialisation, most never reach the guard.
var (
	scriptShellRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)script[-_]shell`) })
	npmrcLineRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?im)^[ \t]*["']?script[-_]shell["']?[ \t]*=`) })
	// envWriteRE finds an assignment of one of guardedEnv's variables.
	envWriteRE = sync.OnceValue(func() *regexp.Regexp {
		names := slices.Sorted(maps.Keys(guardedEnv))
		return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)[ \t]*\+?=`)
	})
)

// mentionsScriptShell is scriptShellRE's match, its regexp compiled only
// for text that holds "hell" (h, e and l have no non-ASCII case folds).
func mentionsScriptShell(s string) bool {
	return hasFoldASCII(s, "hell") && scriptShellRE().MatchString(s)
}

// guardedEnvWrite is envWriteRE's first match in s, its regexp compiled
// only for text that names an AGENTSHELL_ or CLAUDE_CODE_ variable.
func guardedEnvWrite(s string) string {
	if !strings.Contains(s, "AGENTSHELL_") && !strings.Contains(s, "CLAUDE_CODE_") {
		return ""
	}
	return envWriteRE().FindString(s)
}

// hasFoldASCII reports whether s holds lower (ASCII lower-case letters)
// in any mix of cases.
func hasFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) && s[i+j]|0x20 == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// shellStartupFiles are files a shell or an environment loader reads at
// start: writing a guarded variable into one sets it for later commands.
var shellStartupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true, ".zshrc": true,
	".zshenv": true, ".zprofile": true, ".zlogin": true, ".kshrc": true, ".mkshrc": true,
	".envrc": true, ".env": true, "config.fish": true, "environment": true, "bash.bashrc": true,
}
