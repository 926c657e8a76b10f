package shellcmd

import "strings"

// Copy is what a copying program (cp, mv, install, ln, rsync, scp) does
// with its operands, read from its options by the one table
// (ProgramOptions): the guard and the effects both read it.
type Copy struct {
	Args Args // the arguments as the table reads them
	// Sources are what is copied, moved (mv) or linked to (ln), as
	// written; for rsync and scp some may be on another host (see Remote).
	Sources []string
	// Dest is where they go, "" when nothing goes anywhere (mv with one
	// operand, install -d, a copy to another host). ln with one operand
	// links in the current folder: ".".
	Dest string
	// ToDir says the words alone make Dest a folder the sources go into
	// (-t, ln with one operand, several sources). Otherwise Dest may still
	// be a folder at run time, unless NoTargetDir (-T) says it is not.
	ToDir, NoTargetDir bool
	// Parents (cp --parents) says each source lands at its whole path
	// under Dest, not at its name.
	Parents bool
	// Creates are the folders install -d makes.
	Creates []string
	// ToRemote says rsync or scp copies to another host: nothing is
	// written here.
	ToRemote bool
}

// CopyRoles reads the roles of a copying program's operands.
func CopyRoles(prog string, args []string) Copy {
	p := ProgramOptions(prog).Split(args)
	c := Copy{Args: p, NoTargetDir: p.Has("T", "no-target-directory"), Parents: prog == "cp" && p.Has("parents")}
	ops := p.Operands
	if (prog == "rsync" || prog == "scp") && len(ops) > 0 {
		if _, remote := Remote(ops[len(ops)-1]); remote {
			c.Sources, c.ToRemote = ops[:len(ops)-1], true
			return c
		}
	}
	if prog == "install" && p.Has("d", "directory") {
		c.Creates = ops
		return c
	}
	target := p.Values("t", "target-directory")
	switch {
	case len(target) > 0:
		c.Sources, c.Dest, c.ToDir = ops, target[len(target)-1], true
	case prog == "ln" && len(ops) == 1:
		c.Sources, c.Dest, c.ToDir = ops, ".", true
	case len(ops) >= 2:
		c.Sources, c.Dest = ops[:len(ops)-1], ops[len(ops)-1]
		c.ToDir = len(c.Sources) > 1
	default:
		c.Sources = ops
	}
	return c
}

// Remote reads an rsync or scp operand on another host, HOST:PATH (not a
// path that holds a colon further on), or scp://HOST/PATH: its path there.
func Remote(s string) (path string, remote bool) {
	if rest, ok := strings.CutPrefix(s, "scp://"); ok {
		_, path, _ = strings.Cut(rest, "/")
		return path, true
	}
	i := strings.IndexByte(s, ':')
	if i > 0 && !strings.Contains(s[:i], "/") {
		return s[i+1:], true
	}
	return "", false
}

// LocalSources are the sources on this host.
func (c Copy) LocalSources() []string {
	var out []string
	for _, s := range c.Sources {
		if _, remote := Remote(s); !remote {
			out = append(out, s)
		}
	}
	return out
}
