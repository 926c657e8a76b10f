// Package builtins is the Starlark surfaces scripts see: the action constructors of each kind,
// the pure modules, bridge values and codecs, and the test assertions.
//
// Each of the six script kinds compiles with its own action module (Match, Review, Intercept,
// Result, Effect, Audit) plus the pure modules struct, json, re, path, shell and git; see
// [Surface]. The package imports one package of agent-shell's, the pure policy/shellcmd, so
// that git.parse and path.resolve read git's options and resolve paths exactly as the
// policy does.
// Loaded library modules compile with the pure modules only ([Library]), so a library can
// compute data but cannot mint actions. An [Action] is the one value a script returns; only
// the constructors here make one.
//
// Every builtin is bounded: strings, lists, dicts, nesting and regular-expression work are
// capped (see [MaxString], [MaxOutput], [MaxList], [MaxDepth]), because a builtin running in
// Go cannot be interrupted by the runtime's timer. Nothing here touches the filesystem,
// network, environment, processes or clock.
//
// The package does no work at initialisation: modules, surfaces and regular expressions are
// built on first use and then shared, frozen, by every thread.
package builtins
