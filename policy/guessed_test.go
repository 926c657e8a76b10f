package policy

import "testing"

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
