package shellcmd

import "strings"

// Spellings returns, for a program of TablePrograms ("cp", "git push"),
// groups of command lines (argv, the program first) that getopt_long (or
// git's parse-options) reads alike: each option that takes a value written
// -xV, -x V, --long=V, --long V, as an unambiguous prefix of --long, after
// an operand, and before "--"; each option with an optional value, -xV
// and --long=V; each flag alone, by its long name and after
// an operand; a flag clustered with a value option and apart. Every line
// has the operands ops. The tests that hold canonicalization, the guard
// and the effects to agree on the table run them: each consumer must read
// every line of a group alike.
func Spellings(program string, ops []string) [][][]string {
	head := strings.Fields(program)
	var o *Options
	if len(head) == 2 && head[0] == "git" {
		o = GitOptions(head[1])
	} else {
		o = ProgramOptions(head[0])
	}
	if o == nil {
		return nil
	}
	// The words that put a program in its writing mode.
	switch head[0] {
	case "sed", "perl", "ruby", "yq":
		head = append(head, "-i")
	case "awk", "gawk":
		head = append(head, "-i", "inplace")
	}
	// perl, ruby and awk stop reading options at their first operand.
	permutes := head[0] != "perl" && head[0] != "ruby" && head[0] != "awk" && head[0] != "gawk"
	line := func(words ...string) []string {
		l := append(append([]string(nil), head...), words...)
		return append(l, ops...)
	}
	after := func(words ...string) []string { // the option after the first operand
		l := append(append([]string(nil), head...), ops[0])
		l = append(l, words...)
		return append(l, ops[1:]...)
	}
	const val = "VAL"
	var groups [][][]string
	longs := o.longForms()
	firstFlag := byte(0)
	for i := 0; i < len(o.flags); i++ {
		if c := o.flags[i]; c >= 'a' && c <= 'z' && !strings.ContainsRune("inpqv", rune(c)) {
			firstFlag = c // a flag to cluster, not one that stops the program acting (-n, -p, -i, -q, -v)
			break
		}
	}
	for i := 0; i < len(o.args); i++ {
		c := o.args[i]
		x := "-" + string(c)
		g := [][]string{line(x, val), line(x + val), line(x, val, "--")}
		if permutes && len(ops) > 0 {
			g = append(g, after(x, val))
		}
		for _, l := range longs {
			if l.short == string(c) && l.kind == '=' {
				g = append(g, line("--"+l.name+"="+val), line("--"+l.name, val))
				if p := o.abbrevOf(l.name); p != "" {
					g = append(g, line("--"+p+"="+val))
				}
			}
		}
		groups = append(groups, g)
		if firstFlag != 0 && firstFlag != c {
			f := "-" + string(firstFlag)
			groups = append(groups, [][]string{line(f, x, val), line(f+string(c), val), line(f + string(c) + val)})
		}
	}
	for i := 0; i < len(o.opt); i++ {
		c := o.opt[i]
		x := "-" + string(c) + val
		g := [][]string{line(x)}
		if permutes && len(ops) > 0 {
			g = append(g, after(x))
		}
		for _, l := range longs {
			if l.short == string(c) && l.kind == '?' {
				g = append(g, line("--"+l.name+"="+val))
				if p := o.abbrevOf(l.name); p != "" {
					g = append(g, line("--"+p+"="+val))
				}
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	for i := 0; i < len(o.flags); i++ {
		c := o.flags[i]
		x := "-" + string(c)
		g := [][]string{line(x)}
		if permutes && len(ops) > 0 {
			g = append(g, after(x))
		}
		for _, l := range longs {
			if l.short == string(c) && l.kind == ' ' {
				g = append(g, line("--"+l.name))
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	for _, l := range longs {
		if l.short != "" || l.kind != '=' {
			continue
		}
		g := [][]string{line("--" + l.name + "=" + val), line("--"+l.name, val)}
		if permutes && len(ops) > 0 {
			g = append(g, after("--"+l.name, val))
		}
		if p := o.abbrevOf(l.name); p != "" {
			g = append(g, line("--"+p, val))
		}
		groups = append(groups, g)
	}
	return groups
}

type longForm struct {
	name, short string
	kind        byte
}

// longForms lists the long options of o.
func (o *Options) longForms() []longForm {
	var out []longForm
	for tok := range strings.FieldsSeq(o.long) {
		f, s, _ := strings.Cut(tok, ":")
		k := byte(' ')
		if c := f[len(f)-1]; c == '=' || c == '?' {
			k, f = c, f[:len(f)-1]
		}
		out = append(out, longForm{f, s, k})
	}
	return out
}

// abbrevOf returns the shortest prefix of the long option name that o
// reads as it (none when o takes no abbreviation).
func (o *Options) abbrevOf(name string) string {
	if o.noAbbrev {
		return ""
	}
	for n := 1; n < len(name); n++ {
		if full, _, _ := o.longOpt(name[:n]); full == name {
			return name[:n]
		}
	}
	return ""
}
