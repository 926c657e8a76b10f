package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("u", false, "rewrite testscript files with the actual output of cmp")

// TestMain turns the test binary into the agent-shell binary when a script
// runs `exec agent-shell`, so the CLI tests run the real main in a real process.
func TestMain(m *testing.M) {
	// Tests that need a terminal start this binary as agent-shell itself.
	if os.Getenv(runAsMainEnv) == "1" {
		main()
	}
	testscript.Main(m, map[string]func(){"agent-shell": main})
}

const runAsMainEnv = "AGENT_SHELL_TEST_RUN_MAIN"

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
	})
}
