// Package hostapi is the edge where agents' hook calls come in and answers go
// out: one Event and Verdict shape for every agent, and an Adapter per agent
// that parses its native payload and renders a verdict in the signal that
// agent really enforces. It decides nothing and records nothing.
package hostapi
