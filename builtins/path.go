package builtins

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Limits of path.match. doublestar keeps one backtracking point per kind of star, so one
// match costs about len(pattern) * len(name) steps, and each combination of {a,b}
// alternatives is matched separately.
const (
	maxGlobPattern = 1 << 10
	maxGlobName    = 4 << 10
	maxGlobAlts    = 256     // combinations of {a,b} alternatives
	maxGlobWork    = 1 << 25 // combinations * len(pattern) * len(name)
)

func pathModule() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "path", Members: starlark.StringDict{
		"clean":  starlark.NewBuiltin("path.clean", pathUnary(path.Clean)),
		"base":   starlark.NewBuiltin("path.base", pathUnary(path.Base)),
		"dir":    starlark.NewBuiltin("path.dir", pathUnary(path.Dir)),
		"is_abs": starlark.NewBuiltin("path.is_abs", pathIsAbs),
		"join":   starlark.NewBuiltin("path.join", pathJoin),
		"rel":    starlark.NewBuiltin("path.rel", pathRel),
		"match":  starlark.NewBuiltin("path.match", pathMatch),

		"resolve":     starlark.NewBuiltin("path.resolve", pathResolve),
		"inside":      starlark.NewBuiltin("path.inside", pathInside),
		"glob_prefix": starlark.NewBuiltin("path.glob_prefix", pathUnary(globPrefix)),
		"has_glob":    starlark.NewBuiltin("path.has_glob", pathHasGlob),
	}}
	m.Freeze()
	return m
}

func pathArg(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	var p string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "p", &p); err != nil {
		return "", err
	}
	return p, checkString(b.Name(), "path", p, MaxString)
}

func pathUnary(f func(string) string) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		p, err := pathArg(b, args, kwargs)
		if err != nil {
			return nil, err
		}
		return starlark.String(f(p)), nil
	}
}

func pathIsAbs(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, err := pathArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(path.IsAbs(p)), nil
}

func pathJoin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: unexpected keyword arguments", b.Name())
	}
	parts, err := stringList(b.Name(), "parts", args)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, p := range parts {
		total += len(p) + 1
	}
	if total > MaxOutput {
		return nil, fmt.Errorf("%s: parts total %d bytes, more than %d", b.Name(), total, MaxOutput)
	}
	return starlark.String(path.Join(parts...)), nil
}

// pathRel returns a relative path that is lexically equivalent to target when joined to
// base, like filepath.Rel on slash paths: it may start with "..". It fails when one path is
// absolute and the other is not, or when base climbs above its start ("../x" relative to
// "y" cannot be known without the filesystem).
func pathRel(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var basePath, target string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "base", &basePath, "target", &target); err != nil {
		return nil, err
	}
	if err := checkString(b.Name(), "base", basePath, MaxString); err != nil {
		return nil, err
	}
	if err := checkString(b.Name(), "target", target, MaxString); err != nil {
		return nil, err
	}
	rel, err := relPath(basePath, target)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.String(rel), nil
}

// relPath is filepath.Rel for slash paths.
func relPath(basePath, target string) (string, error) {
	base := path.Clean(basePath)
	targ := path.Clean(target)
	if targ == base {
		return ".", nil
	}
	if base == "." {
		base = ""
	}
	if path.IsAbs(base) != path.IsAbs(targ) {
		return "", fmt.Errorf("cannot make %s relative to %s: one is absolute and the other is not", clip(target), clip(basePath))
	}
	bl, tl := len(base), len(targ)
	var b0, bi, t0, ti int
	for {
		for bi < bl && base[bi] != '/' {
			bi++
		}
		for ti < tl && targ[ti] != '/' {
			ti++
		}
		if targ[t0:ti] != base[b0:bi] {
			break
		}
		if bi < bl {
			bi++
		}
		if ti < tl {
			ti++
		}
		b0, t0 = bi, ti
	}
	if base[b0:bi] == ".." {
		return "", fmt.Errorf("cannot make %s relative to %s: base climbs above its start", clip(target), clip(basePath))
	}
	if b0 != bl {
		seps := strings.Count(base[b0:bl], "/")
		var buf strings.Builder
		buf.WriteString("..")
		for range seps {
			buf.WriteString("/..")
		}
		if t0 != tl {
			buf.WriteByte('/')
			buf.WriteString(targ[t0:])
		}
		return path.Clean(buf.String()), nil
	}
	return targ[t0:], nil
}

// pathMatch reports whether name matches the glob pattern, where "**" matches any number of
// path segments (github.com/bmatcuk/doublestar/v4 syntax: *, **, ?, [class], {a,b}).
func pathMatch(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "name", &name); err != nil {
		return nil, err
	}
	if err := checkString(b.Name(), "pattern", pattern, maxGlobPattern); err != nil {
		return nil, err
	}
	if err := checkString(b.Name(), "name", name, maxGlobName); err != nil {
		return nil, err
	}
	alts := globAlternatives(pattern)
	if alts > maxGlobAlts {
		return nil, fmt.Errorf("%s: pattern has more than %d combinations of {alternatives}", b.Name(), maxGlobAlts)
	}
	if alts*max(len(pattern), 1)*max(len(name), 1) > maxGlobWork {
		return nil, fmt.Errorf("%s: too much work: the pattern is too complex for this long a name", b.Name())
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("%s: bad pattern %s", b.Name(), clip(pattern))
	}
	ok, err := doublestar.Match(pattern, name)
	if errors.Is(err, doublestar.ErrBadPattern) {
		return nil, fmt.Errorf("%s: bad pattern %s", b.Name(), clip(pattern))
	} else if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.Bool(ok), nil
}

// globAlternatives bounds the number of patterns the {a,b} groups of pattern expand to: the
// product over groups (nested ones included) of their alternatives, capped just above
// maxGlobAlts. Escaped characters are skipped.
func globAlternatives(pattern string) int {
	product := 1
	var commas []int // per open group, commas at its level
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '{':
			commas = append(commas, 0)
		case ',':
			if len(commas) > 0 {
				commas[len(commas)-1]++
			}
		case '}':
			if len(commas) > 0 {
				product = min(product*(commas[len(commas)-1]+1), maxGlobAlts+1)
				commas = commas[:len(commas)-1]
			}
		}
	}
	return product
}

// pathResolve is path.resolve(p, dir, home = ""): p as a shell word after quote removal (an
// argv item) made an absolute, lexically cleaned path, or None when it cannot be known
// statically. "~", "~/x", "$HOME", "${HOME}" and "$HOME/x" are below home (None when home is
// ""); a relative path joins dir (None when dir is ""); an empty path, ~user, ~+, ~- and any
// other $, ` or <( ) part give None. "//" is "/", trailing slashes go, ".." is resolved
// without the filesystem and never climbs above "/". dir and home, when given, must be
// absolute. It is shellcmd.ResolvePath, which ctx.dir is built with.
func pathResolve(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p, dir, home string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "p", &p, "dir", &dir, "home?", &home); err != nil {
		return nil, err
	}
	for _, a := range [...]struct{ what, s string }{{"path", p}, {"dir", dir}, {"home", home}} {
		if err := checkString(b.Name(), a.what, a.s, MaxString); err != nil {
			return nil, err
		}
		if a.what != "path" && a.s != "" && !path.IsAbs(a.s) {
			return nil, fmt.Errorf("%s: %s %s is not absolute", b.Name(), a.what, clip(a.s))
		}
	}
	r, ok := shellcmd.ResolvePath(p, dir, home)
	if !ok {
		return starlark.None, nil
	}
	return starlark.String(r), nil
}

// pathInside is path.inside(p, root): whether p lies strictly below root, both cleaned
// lexically. root itself is not inside, nor is a sibling that shares its prefix (/a/b-old is
// not inside /a/b). Both must be absolute.
func pathInside(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p, root string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "p", &p, "root", &root); err != nil {
		return nil, err
	}
	for _, a := range [...]struct{ what, s string }{{"path", p}, {"root", root}} {
		if err := checkString(b.Name(), a.what, a.s, MaxString); err != nil {
			return nil, err
		}
		if !path.IsAbs(a.s) {
			return nil, fmt.Errorf("%s: %s %s is not absolute", b.Name(), a.what, clip(a.s))
		}
	}
	return starlark.Bool(inside(path.Clean(p), path.Clean(root))), nil
}

// inside reports whether the clean absolute path p lies strictly below the clean absolute
// root.
func inside(p, root string) bool {
	if p == root {
		return false
	}
	if root == "/" {
		return true
	}
	return strings.HasPrefix(p, root) && p[len(root)] == '/'
}

func pathHasGlob(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, err := pathArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(globComponent(p)), nil
}

// globComponent reports a path part a shell may expand as a pattern: one holding *, ? or [,
// or an extended glob @( +( !( (which bash reads with extglob on). Quoting is gone from an
// argv item, so a quoted "*" counts too.
func globComponent(s string) bool {
	return strings.ContainsAny(s, "*?[") || strings.Contains(s, "@(") || strings.Contains(s, "+(") ||
		strings.Contains(s, "!(")
}

// globPrefix is path.glob_prefix(p): p up to, not including, its first component that is a
// pattern (see globComponent), with trailing slashes dropped; "." when that is the first
// component of a relative path, "/" of an absolute one. A path without a pattern is returned
// as it is. dist/* gives dist, packages/*/dist packages, * and ./* and .* give ., /* gives /,
// ~/* gives ~. Nothing is cleaned: "$X/../*" stays "$X/..", for path.resolve to judge.
func globPrefix(p string) string {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if globComponent(p[start:i]) {
			prefix := strings.TrimRight(p[:start], "/")
			switch {
			case prefix != "":
				return prefix
			case strings.HasPrefix(p, "/"):
				return "/"
			}
			return "."
		}
		start = i + 1
	}
	return p
}
