// Command agent-shell-otlp is the helper `agent-shell export` runs to send
// the recorded events to an OpenTelemetry Collector. It is a binary of its
// own so that the agent-shell binary, run on every hook call, does not link
// (nor initialise) net/http and crypto/tls. Install it beside agent-shell.
package main

import (
	"os"

	"github.com/agent-shell/agent-shell/telemetry/otlp/otlphttp"
)

func main() {
	os.Exit(otlphttp.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
