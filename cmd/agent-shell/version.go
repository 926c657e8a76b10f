package main

import (
	"runtime/debug"
	"strings"
)

// version reports what the Go toolchain recorded about this build: the module
// version for `go install module@vX`, else the VCS revision of a local build.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	var rev, when string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var b strings.Builder
	if v == "" {
		v = "(devel)"
	}
	b.WriteString(v)
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		b.WriteString(" " + rev)
		if dirty {
			b.WriteString("-dirty")
		}
		if when != "" {
			b.WriteString(" " + when)
		}
	}
	b.WriteString(" " + info.GoVersion)
	return b.String()
}
