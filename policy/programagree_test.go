package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// TestProgramsAgree runs every spelling group of shellcmd's table
// (shellcmd.Spellings; shellcmd's TestProgramsAgree holds Split and
// Canonical to them, policy/guard's the guard's write targets) through
// the effects: every spelling of a group has the same effects, and for the
// programs that read or write each operand, those are the operands Split
// reads.
func TestProgramsAgree(t *testing.T) {
	ops := []string{"a.txt", "b.txt", "c.txt"}
	for _, prog := range shellcmd.TablePrograms() {
		for _, g := range shellcmd.Spellings(prog, ops) {
			want := commandEffects(g[0], &shellcmd.Command{Argv: g[0]}, "/r")
			for _, l := range g[1:] {
				if got := commandEffects(l, &shellcmd.Command{Argv: l}, "/r"); !slices.Equal(got, want) {
					t.Errorf("%q: effects %q, but %q: %q", l, got, g[0], want)
				}
			}
			class, _ := programClass(g[0][0])
			if g[0][0] == "sed" || class != classReader && class != classWriter {
				continue
			}
			var paths []string
			for _, e := range want {
				if p, ok := strings.CutPrefix(e, "/r/"); ok {
					paths = append(paths, p)
				} else if _, p, ok := strings.Cut(e, ":/r/"); ok {
					paths = append(paths, p)
				}
			}
			if split := shellcmd.ProgramOptions(g[0][0]).Split(g[0][1:]).Operands; !slices.Equal(paths, split) {
				t.Errorf("%q: effects on %q, Split reads the operands %q", g[0], paths, split)
			}
		}
	}
}

// The effects read operands by the table as the guard does (they once
// took every word not starting with "-" for one).
func TestEffectsSettledArities(t *testing.T) {
	for _, c := range []struct {
		line      string
		want, not []string
	}{
		{"cp -t /dst a b", []string{"read:/r/a", "read:/r/b", "write:/dst"}, []string{"write:/r/b"}},
		{"sed -e s/a/b/ -i f", []string{"write:/r/f"}, []string{"write:/r/s/a/b"}},
		{"grep -e pat f", []string{"read:/r/f"}, []string{"read:/r/pat"}},
		{"touch -d yesterday f", []string{"write:/r/f"}, []string{"write:/r/yesterday"}},
		{"curl -so out https://example.com/", []string{"write:/r/out"}, nil},
		// Copy roles, shellcmd.CopyRoles as the guard reads them too.
		{"install -d a b", []string{"write:/r/a", "write:/r/b"}, []string{"read:/r/a"}},
		{"rsync -a src/ host:backup/", []string{"read:/r/src", "network"}, []string{"write:/r/host:backup"}},
		{"rsync -a host:backup/ dst", []string{"write:/r/dst", "network"}, []string{"read:/r/host:backup"}},
		{"mv -t /dst a b", []string{"write:/dst", "write:/r/a", "write:/r/b"}, nil},
	} {
		argv := strings.Fields(c.line)
		got := commandEffects(argv, &shellcmd.Command{Argv: argv}, "/r")
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: effects %q, without %q", c.line, got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("%q: effects %q, with %q", c.line, got, n)
			}
		}
	}
}
