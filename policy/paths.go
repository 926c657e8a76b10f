package policy

import "github.com/agent-shell/agent-shell/internal/project"

// The policy's paths under the repository root (slash-separated), as
// package project names them.
const (
	// ConfigFolder is the folder of the configuration's files.
	ConfigFolder = project.ConfigDir
	// StateSubpath is where compiled programs and the authorized copies live.
	StateSubpath = project.StateDir
	// AuthorizedSubpath holds the authorized copies, one folder per
	// configuration digest.
	AuthorizedSubpath = StateSubpath + "/authorized"
	// cacheSubpath holds compiled programs and parsed manifests.
	cacheSubpath = project.CacheDir
)
