// Package telemetry is the flight recorder: the event schema (event.go),
// redaction of secrets (redact.go) and the project's audit filter
// (filter.go), actor detection (context.go, process.go), the append-only,
// hash-chained session files (writer.go), their reader and the queries of
// `log` (reader.go, query.go), and chain verification (verify.go). Every
// line of a session file is one JSON event that carries its seq and the
// SHA-256 of the line before it, so a line deleted, moved or changed
// breaks the chain where it happened.
//
// # Torn lines
//
// A write cut short (a crash, a full disk) leaves a torn line: the start of
// an event, without its end or its newline. The next writer, under the
// lock, finds the file ending in damaged lines, ends them with a newline
// and first appends a repair event that names each (offset, length,
// SHA-256) and chains from the last intact line before them. Verify skips
// exactly the lines a repair names, so the chain verifies across them and
// each repair is reported once.
//
// # Reading
//
// The reader (reader.go) is the hot path of `log`: a hand-written scanner that checks a
// line is one well-formed JSON object and pulls out the few top-level fields
// a query looks at, without building any value. It accepts exactly what
// encoding/json's Valid accepts for an object (FuzzScanLine holds it to
// that), so a line it passes always decodes, and a damaged line is caught
// even when no filter would have looked at it.
//
// # The processes above a command
//
// An agent that takes its markers out of a command's environment (env -u
// CLAUDECODE, env -i) still runs that command from a shell it started with
// them, so the processes above a command tell whose session it runs in.
// They are read from /proc (Linux); where /proc cannot be read the list is
// empty, and another user's process shows no environment.
package telemetry
