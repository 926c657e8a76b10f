package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
)

// knownDifferencesTSV lists the corpus rows the safety pack disagrees with
// on purpose. Columns: corpus (the JSONL file's name without .jsonl),
// command (escaped as in the corpus TSVs), label, our_verdict (stop or
// allow) and reason. It is embedded so that the command and its test read
// the same list from wherever they run.
//
//go:embed known-differences.tsv
var knownDifferencesTSV []byte

const knownDifferencesName = "known-differences.tsv"

// knownDifference is one row of known-differences.tsv.
type knownDifference struct {
	line                   int
	corpus, command, label string
	ours                   verdict
	reason                 string
	seen                   bool // a row of this run disagreed as it says
}

// knownKey identifies a listed row: the same command with the same
// stop/allow label is decided alike wherever it appears in a corpus.
type knownKey struct {
	corpus, command string
	label           verdict
}

type knownDifferences map[knownKey]*knownDifference

// parseKnownDifferences reads a known-differences list: every row must say
// that our verdict differs from its label, and appear once.
func parseKnownDifferences(name string, data []byte) (knownDifferences, error) {
	rows, err := corpustsv.ReadFrom(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	known := knownDifferences{}
	for _, r := range rows {
		if len(r.Fields) != 5 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 5", name, r.Line, len(r.Fields))
		}
		k := &knownDifference{line: r.Line, corpus: r.Fields[0], command: r.Fields[1], label: r.Fields[2], ours: verdict(r.Fields[3]), reason: r.Fields[4]}
		label := verdictOf(k.label)
		switch {
		case label == unmeasured || (k.ours != stop && k.ours != allow):
			return nil, fmt.Errorf("%s:%d: label %q or our_verdict %q: want block/ask/allow and stop/allow", name, r.Line, k.label, k.ours)
		case label == k.ours:
			return nil, fmt.Errorf("%s:%d: label %s and our_verdict %s agree: not a difference", name, r.Line, k.label, k.ours)
		case k.reason == "":
			return nil, fmt.Errorf("%s:%d: no reason", name, r.Line)
		}
		key := knownKey{k.corpus, k.command, label}
		if prev, dup := known[key]; dup {
			return nil, fmt.Errorf("%s:%d: listed already at line %d", name, r.Line, prev.line)
		}
		known[key] = k
	}
	return known, nil
}

// onPurpose returns the listed difference a row's verdict matches, if any.
func (k knownDifferences) onPurpose(corpus string, r row, got verdict) *knownDifference {
	d := k[knownKey{corpus, r.command, verdictOf(r.label)}]
	if d == nil || d.ours != got {
		return nil
	}
	return d
}

// unseen lists the differences no row of the run showed, in file order.
func (k knownDifferences) unseen() []*knownDifference {
	var out []*knownDifference
	for _, d := range k {
		if !d.seen {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *knownDifference) int { return a.line - b.line })
	return out
}
