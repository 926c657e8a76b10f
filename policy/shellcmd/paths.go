package shellcmd

import (
	"path"
	"strings"
)

// ResolvePath resolves a path word, as [Command.Argv] holds it (quotes
// removed), to an absolute, lexically cleaned path: "//" is "/", trailing
// slashes go, "." and ".." are resolved without the filesystem and never
// climb above "/". "~", "$HOME" and "${HOME}", alone or followed by
// "/...", stand for home; a relative path is joined to dir. Pattern
// characters are kept as written. ok is false when the path cannot be
// known statically: p is empty, starts with ~user, ~+ or ~-, holds any
// other expansion ($, `, <(, >(), or needs home or dir and that is not an
// absolute path ("" included).
func ResolvePath(p, dir, home string) (resolved string, ok bool) {
	if p == "" {
		return "", false
	}
	base := dir
	if rest, isHome := homeRest(p, true); isHome {
		base, p = home, "."+rest
	} else if strings.HasPrefix(p, "~") {
		return "", false
	}
	if hasExpansion(p) {
		return "", false
	}
	if path.IsAbs(p) {
		return path.Clean(p), true
	}
	if !path.IsAbs(base) {
		return "", false
	}
	return path.Join(base, p), true
}

// Dir returns the directory the command runs in, given the working
// directory of its line and HOME: cwd with each of [Command.Dirs]
// resolved in turn by [ResolvePath]. It is "" when DirUnknown is set, when
// cwd is not absolute ("" included), or when a change needs home and home
// is not absolute.
func (c *Command) Dir(cwd, home string) string {
	if c.DirUnknown || !path.IsAbs(cwd) {
		return ""
	}
	dir := path.Clean(cwd)
	for _, d := range c.Dirs {
		next, ok := ResolvePath(d, dir, home)
		if !ok {
			return ""
		}
		dir = next
	}
	return dir
}
