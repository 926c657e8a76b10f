// Package hostapi is the edge where agents' hook calls come in and answers go
// out: one Event and Verdict shape for every agent, and an Adapter per agent
// that parses its native payload and renders a verdict in the signal that
// agent really enforces. It decides nothing and records nothing.
//
// Each adapter's file registers it and describes its host (Descriptor): the
// files its hooks are registered in, the markers of its use, its actor and
// how its commands take the sandbox. The guard, init, status and actor
// detection read those from the registry instead of lists of their own.
//
// Each adapter also reads its host's shell tool output: a post-tool event
// of a shell tool carries the result as the host sent it (Event.Result)
// and read in the host's own shape (Event.Output, a ToolOutput: output,
// stderr, exit code, failure), so that the policy's after-interceptors
// read every host alike.
package hostapi
