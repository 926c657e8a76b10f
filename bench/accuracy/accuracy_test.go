package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// sampleConfigs are the configurations TestAccuracySample measures: the
// safety pack at each level, as init writes it.
var sampleConfigs = packConfigs([]string{"standard", "strict"})

const figuresFile = "testdata/figures.json"

// sampleEvery keeps every Nth default-context row of the two large corpora
// (the 1st, the 8th, ...), in file order. Every row of the others counts:
// all of opencode-destructive-check, and bash-gates's default-context rows,
// which are its 39 end-to-end cases.
var sampleEvery = map[string]int{"dcg": 7, "cc-safety-net": 7}

func sample(corpora []corpus) []corpus {
	out := make([]corpus, len(corpora))
	for i, c := range corpora {
		out[i], out[i].rows = c, nil
		for j := 0; j < len(c.rows); j += max(sampleEvery[c.name], 1) {
			out[i].rows = append(out[i].rows, c.rows[j])
		}
	}
	return out
}

// sampleFigures are our figures on the sample, by corpus and level: what
// testdata/figures.json commits.
type sampleFigures map[string]map[string]tally

// TestAccuracySample measures the sample and compares it with the
// committed figures: it fails when recall drops or false blocks rise on a
// corpus, and logs the new figures when they improve.
// ACCURACY_UPDATE=1 rewrites testdata/figures.json with them.
func TestAccuracySample(t *testing.T) {
	// The corpora's copies in testdata, so that the test runs in any clone.
	dir := "testdata/corpus"
	corpora, err := readCorpora(dir)
	if err != nil {
		t.Fatal(err)
	}
	known, err := parseKnownDifferences(knownDifferencesName, knownDifferencesTSV)
	if err != nil {
		t.Fatal(err)
	}
	results, err := measure(sample(corpora), sampleConfigs, known, options{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := writeText(&text, newReport(dir, results, known, options{})); err != nil {
		t.Fatal(err)
	}
	t.Logf("the sample:\n%s", text.String())
	got := sampleFigures{}
	for _, r := range results {
		if got[r.Corpus] == nil {
			got[r.Corpus] = map[string]tally{}
		}
		got[r.Corpus][r.Level] = r.Ours
	}
	// Every spec case too: the commands written to the pack's
	// specification, in their own cwd.
	cases, err := readSpecCases(strings.NewReader(specCasesTSV))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := measureSpec(cases, sampleConfigs)
	if err != nil {
		t.Fatal(err)
	}
	got["spec-cases"] = map[string]tally{}
	for _, r := range specs {
		got["spec-cases"][r.Level] = r.All
		for _, m := range r.misses {
			t.Logf("spec case %s at %s: want %s, got %s: %q", m.c.rule, r.Level, verdictName(m.c.want[r.Level]), m.d.Action, m.c.command)
		}
	}
	if os.Getenv("ACCURACY_UPDATE") == "1" {
		writeFigures(t, got)
		return
	}
	if compareFigures(t, readFigures(t), got) {
		t.Logf("the figures improved; ACCURACY_UPDATE=1 go test ./bench/accuracy/ -run TestAccuracySample commits them")
	}
}

// compareFigures reports every drop in recall and rise in false blocks
// against the committed figures, and whether some figure improved.
func compareFigures(t *testing.T, want, got sampleFigures) (improved bool) {
	t.Helper()
	for corpus, levels := range got {
		for level, g := range levels {
			w, ok := want[corpus][level]
			if !ok {
				t.Errorf("%s, %s: no committed figures in %s; ACCURACY_UPDATE=1 writes them", corpus, level, figuresFile)
				continue
			}
			switch {
			case below(g.StopStopped, g.Stop, w.StopStopped, w.Stop):
				t.Errorf("%s, %s: recall dropped from %s to %s", corpus, level, rateText(w.StopStopped, w.Stop), rateText(g.StopStopped, g.Stop))
			case below(w.StopStopped, w.Stop, g.StopStopped, g.Stop):
				t.Logf("%s, %s: recall rose from %s to %s", corpus, level, rateText(w.StopStopped, w.Stop), rateText(g.StopStopped, g.Stop))
				improved = true
			}
			switch {
			case below(w.AllowStopped, w.Allow, g.AllowStopped, g.Allow):
				t.Errorf("%s, %s: false blocks rose from %s to %s", corpus, level, rateText(w.AllowStopped, w.Allow), rateText(g.AllowStopped, g.Allow))
			case below(g.AllowStopped, g.Allow, w.AllowStopped, w.Allow):
				t.Logf("%s, %s: false blocks fell from %s to %s", corpus, level, rateText(w.AllowStopped, w.Allow), rateText(g.AllowStopped, g.Allow))
				improved = true
			}
		}
	}
	for corpus, levels := range want {
		for level := range levels {
			if _, ok := got[corpus][level]; !ok {
				t.Errorf("%s has figures for %s, %s, which the sample no longer measures; ACCURACY_UPDATE=1 rewrites it", figuresFile, corpus, level)
			}
		}
	}
	return improved && !t.Failed()
}

// below reports whether n1/d1 < n2/d2, exactly; an empty denominator's
// rate is below nothing and nothing is below it.
func below(n1, d1, n2, d2 int) bool { return n1*d2 < n2*d1 }

func rateText(n, d int) string { return fmt.Sprintf("%s (%d/%d)", percent(n, d), n, d) }

func readFigures(t *testing.T) sampleFigures {
	t.Helper()
	data, err := os.ReadFile(figuresFile)
	if err != nil {
		t.Fatalf("%v; ACCURACY_UPDATE=1 writes it", err)
	}
	var f sampleFigures
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", figuresFile, err)
	}
	return f
}

func writeFigures(t *testing.T, f sampleFigures) {
	t.Helper()
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(figuresFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", figuresFile)
}

// TestKnownDifferencesCountApart checks that a listed row decided as
// listed counts as disagreed on purpose, and is left out of the figures
// only with excludeKnown; a listed row decided otherwise stays unseen.
func TestKnownDifferencesCountApart(t *testing.T) {
	c := corpus{name: "toy", categorySep: " > ", rows: []row{
		{line: 1, command: "rm -rf build", label: "allow", category: "rm > inside"},
		{line: 2, command: "ls", label: "allow", category: "read"},
		{line: 3, command: "git reset --hard", label: "block", category: "git > reset"},
	}}
	list := "corpus\tcommand\tlabel\tour_verdict\treason\n" +
		"toy\trm -rf build\tallow\tstop\tevery rm -r is denied\n" +
		"toy\tls\tallow\tstop\tnever decided so\n"
	for _, exclude := range []bool{false, true} {
		t.Run(fmt.Sprint("exclude=", exclude), func(t *testing.T) {
			known, err := parseKnownDifferences("list", []byte(list))
			if err != nil {
				t.Fatal(err)
			}
			results, err := measure([]corpus{c}, []config{dirConfig("testdata/config")}, known, options{excludeKnown: exclude, byCategory: true})
			if err != nil {
				t.Fatal(err)
			}
			res := results[0]
			want := figures{Rows: 3, Ours: tally{Stop: 1, StopStopped: 1, Allow: 2, AllowStopped: 1}, OnPurpose: 1}
			if exclude {
				want = figures{Rows: 2, Ours: tally{Stop: 1, StopStopped: 1, Allow: 1}, OnPurpose: 1}
			}
			if res.Rows != want.Rows || res.Ours != want.Ours || res.OnPurpose != want.OnPurpose {
				t.Errorf("got rows %d, ours %+v, on purpose %d; want %d, %+v, %d", res.Rows, res.Ours, res.OnPurpose, want.Rows, want.Ours, want.OnPurpose)
			}
			if g := res.Categories["rm"]; g == nil || g.OnPurpose != 1 {
				t.Errorf("category rm: %+v, want one row disagreed on purpose", g)
			}
			if len(res.misses) != 1 || res.misses[0].row.command != "rm -rf build" {
				t.Errorf("misses %+v, want rm -rf build alone", res.misses)
			}
			if u := known.unseen(); len(u) != 1 || u[0].command != "ls" {
				t.Errorf("unseen %+v, want ls alone", u)
			}
		})
	}
}
