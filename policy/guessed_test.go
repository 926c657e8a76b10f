package policy

import (
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// A command an unknown program may run (shellcmd's Command.Guessed) counts
// only where a rule objects to it: a deny or ask rule judges it as it
// would the command written alone, while the default, an allow list and a
// part of it only known at run time leave it alone, so that the program's
// own rule still decides an ordinary line.
func TestGuessedCommands(t *testing.T) {
	manifest := `version = 1
[policy]
default = "ask"
unknown = "ask"

[[rule]]
id = "mise"
action = "allow"
match = { argv_prefix = ["mise", "exec"] }

[[rule]]
id = "no-publish"
action = "deny"
match = { argv_prefix = ["npm", "publish"] }

[[rule]]
id = "curl-asks"
action = "ask"
match = { basename = "curl" }
`
	runDecideCases(t, mustEngine(t, "", manifest), []decideCase{
		{"mise exec -- npm test", ActionAllow, "mise"},
		{"mise exec -- npm publish", ActionDeny, "no-publish"},
		{"mise exec node@20 -- curl https://example.com", ActionAsk, "curl-asks"},
		{"mise exec -- env $X", ActionAllow, "mise"},
		{"faketime now npm publish", ActionDeny, "no-publish"},
		{"faketime now npm test", ActionAsk, ""}, // faketime itself takes the default
	})
	runDecideCases(t, mustEngine(t, `{"allow":["mise exec *"],"deny":["npm publish*"]}`, ""), []decideCase{
		{"mise exec -- npm test", ActionAllow, ""},
		{"mise exec -- npm publish", ActionDeny, "npm publish*"},
	})
}

// Every program a rule of the safety pack names is read as a command an
// unknown program may run (faketime now NAME ...), so that no rule is one
// unknown wrapper away from never seeing its program.
func TestGuessedCoverSafetyPackPrograms(t *testing.T) {
	e, _ := safetyEngine(t, "strict")
	var names []string
	var collect func(m *Matcher)
	collect = func(m *Matcher) {
		if m == nil {
			return
		}
		names = append(names, m.CommandName...)
		for _, sub := range append(append([]*Matcher{m.Not}, m.All...), m.Any...) {
			collect(sub)
		}
	}
	for _, r := range e.Manifest.Rules {
		collect(r.Match)
	}
	if len(names) < 50 {
		t.Fatalf("read %d program names from the pack's rules", len(names))
	}
	written := map[string]string{"r": "R", "rscript": "Rscript"} // command_name is lower case; it matches any case
	for _, name := range names {
		prog := strings.TrimSuffix(name, "*")
		if w, ok := written[prog]; ok {
			prog = w
		}
		if prog == "." {
			continue // a lone dot is a path among arguments, far more often than source
		}
		l := shellcmd.Parse("faketime now " + prog + " x")
		found := false
		for _, c := range l.Commands {
			found = found || c.Guessed && len(c.Layers) > 1 && c.Layers[1][0] == prog
		}
		if !found {
			t.Errorf("faketime now %s x: %s is not read as a command faketime may run", prog, prog)
		}
	}
}
