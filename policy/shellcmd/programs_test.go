package shellcmd

import (
	"slices"
	"strings"
	"testing"
)

// agreeOps are the operands of every spelling TestProgramsAgree runs.
var agreeOps = []string{"a.txt", "b.txt", "c.txt"}

// TestProgramsAgree holds Split (the guard's and the effects' reading of
// the table) and Canonical to every program of the table: every spelling
// of a group has the same operands and option values, and, for the
// programs Canonical rewrites, the same canonical form. policy's and
// policy/guard's TestProgramsAgree run the same groups through the
// effects and the guard's write targets.
func TestProgramsAgree(t *testing.T) {
	for _, prog := range TablePrograms() {
		groups := Spellings(prog, agreeOps)
		if len(groups) == 0 && prog != "unlink" {
			t.Errorf("%s: no spellings", prog)
		}
		for _, g := range groups {
			first := g[0]
			want := split(first)
			wantCanon := strings.Join(Canonical(first), " ")
			for _, l := range g[1:] {
				got := split(l)
				if !slices.Equal(got.Operands, want.Operands) {
					t.Errorf("%q: operands %q, but %q: %q", l, got.Operands, first, want.Operands)
				}
				if !slices.Equal(values(got), values(want)) {
					t.Errorf("%q: values %q, but %q: %q", l, values(got), first, values(want))
				}
				if canonical(l) {
					if c := strings.Join(Canonical(l), " "); c != wantCanon {
						t.Errorf("Canonical(%q) = %q, but Canonical(%q) = %q", l, c, first, wantCanon)
					}
				}
			}
			// Canonical ends with the operands Split reads (after "--" when
			// one starts with "-").
			if canonical(first) {
				c := Canonical(first)
				if ops := want.Operands; len(c) < len(ops) || !slices.Equal(c[len(c)-len(ops):], ops) {
					t.Errorf("Canonical(%q) = %q, not ending with the operands %q", first, c, ops)
				}
			}
			// A value is never an operand, nor an operand a value.
			if slices.Contains(want.Operands, "VAL") {
				t.Errorf("%q: VAL read as an operand: %q", first, want.Operands)
			}
		}
	}
}

func split(argv []string) Args {
	if argv[0] == "git" {
		return GitOptions(argv[1]).Split(argv[2:])
	}
	return ProgramOptions(argv[0]).Split(argv[1:])
}

func values(p Args) []string {
	var v []string
	for _, o := range p.Opts {
		if o.Value != "" {
			v = append(v, o.Value)
		}
	}
	slices.Sort(v)
	return v
}

func canonical(argv []string) bool {
	if argv[0] == "git" {
		return gitSpec(argv[1]) != nil
	}
	return specFor(argv[0]) != nil
}

// The interpreters' one-liner reader (interp.go's perlOpts and rubyOpts)
// and the table agree on which of perl's and ruby's letters take a value.
func TestInterpretersAgree(t *testing.T) {
	for _, c := range []struct {
		in  *interpOpts
		tab *Options
	}{{&perlOpts, &perlArgs}, {&rubyOpts, &rubyArgs}} {
		for _, l := range c.in.code + c.in.arg {
			if c.tab.shortKind(byte(l)) != shortValue {
				t.Errorf("%s -%c: a value for the one-liner reader, not in the table", c.in.lang, l)
			}
		}
		for _, l := range c.in.rest + c.in.octal {
			if c.tab.shortKind(byte(l)) != shortOpt {
				t.Errorf("%s -%c: an attached value for the one-liner reader, not in the table", c.in.lang, l)
			}
		}
	}
}
