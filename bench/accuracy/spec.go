package main

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
	"github.com/agent-shell/agent-shell/policy"
)

// specCasesTSV are commands written to the safety pack's specification
// alone, each with its cwd and its verdict at each level: a set the pack
// was not tuned on, to see whether the rules generalize.
//
//go:embed testdata/spec-cases.tsv
var specCasesTSV string

// specCase is one row of spec-cases.tsv.
type specCase struct {
	command, cwd, rule string
	want               map[string]verdict // by level
}

// readSpecCases parses spec-cases.tsv: command, cwd, standard, strict,
// rule, note; escaped as the corpora are.
func readSpecCases(r io.Reader) ([]specCase, error) {
	var out []specCase
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 5 {
			return nil, fmt.Errorf("spec-cases.tsv:%d: want 6 columns, got %d", n+1, len(f))
		}
		c := specCase{command: corpustsv.Unescape(f[0]), cwd: f[1], rule: f[4], want: map[string]verdict{}}
		for i, level := range []string{"standard", "strict"} {
			switch f[2+i] {
			case "block":
				c.want[level] = stop
			case "allow":
				c.want[level] = allow
			default:
				return nil, fmt.Errorf("spec-cases.tsv:%d: %s verdict %q: want block or allow", n+1, level, f[2+i])
			}
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// specResult is one level's figures on the spec cases.
type specResult struct {
	Level  string           `json:"level"`
	All    tally            `json:"all"`
	ByRule map[string]tally `json:"by_rule"`
	misses []specMiss
}

type specMiss struct {
	c specCase
	d policy.Decision
}

// measureSpec decides every spec case at each level, in its own cwd.
func measureSpec(cases []specCase, configs []config) ([]*specResult, error) {
	var out []*specResult
	for _, c := range configs {
		e, done, err := openEngine(c)
		if err != nil {
			return nil, err
		}
		res := &specResult{Level: c.name, ByRule: map[string]tally{}}
		for _, sc := range cases {
			want, ok := sc.want[c.level]
			if !ok {
				continue
			}
			d := e.DecideRequest(sc.command, policy.Request{Cwd: sc.cwd, Home: home, Agent: "claude", Tool: "bash", DryRun: true})
			got := verdictOf(string(d.Action))
			res.All.add(want, got)
			t := res.ByRule[sc.rule]
			t.add(want, got)
			res.ByRule[sc.rule] = t
			if got != want {
				res.misses = append(res.misses, specMiss{sc, d})
			}
		}
		done()
		out = append(out, res)
	}
	return out, nil
}

// writeSpecText prints each level's recall and false blocks, per rule, and
// every miss.
func writeSpecText(w io.Writer, results []*specResult, showMisses bool) {
	fmt.Fprintln(w, "spec cases (bench/accuracy/testdata/spec-cases.tsv), decided in each row's cwd with HOME=/home/dev")
	for _, r := range results {
		fmt.Fprintf(w, "%-9s blocked %s of the rows to block, and %s of the rows to allow\n", r.Level, share(r.All.StopStopped, r.All.Stop), share(r.All.AllowStopped, r.All.Allow))
		rules := make([]string, 0, len(r.ByRule))
		for k := range r.ByRule {
			rules = append(rules, k)
		}
		sort.Strings(rules)
		for _, k := range rules {
			t := r.ByRule[k]
			fmt.Fprintf(w, "    %-8s blocked %-16s allowed-row blocks %s\n", k, share(t.StopStopped, t.Stop), share(t.AllowStopped, t.Allow))
		}
		if showMisses {
			for _, m := range r.misses {
				fmt.Fprintf(w, "    miss %s: want %s, got %s by %q: %s (cwd %s)\n", m.c.rule, verdictName(m.c.want[r.Level]), m.d.Action, m.d.Rule, corpustsv.Escape(m.c.command), m.c.cwd)
			}
		}
	}
}

func share(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(of), n, of)
}

func verdictName(v verdict) string {
	if v == stop {
		return "block"
	}
	return "allow"
}
