package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
)

// report is everything one run measured, as -json writes it.
type report struct {
	CorpusDir    string            `json:"corpus_dir"`
	Project      string            `json:"project"`
	Home         string            `json:"home"`
	Skipped      map[string]string `json:"skipped"`
	ExcludeKnown bool              `json:"exclude_known"`
	Results      []*result         `json:"results"`
	// UnseenKnown are the rows known-differences.tsv lists that no
	// configuration of the run decided as it says.
	UnseenKnown []string `json:"unseen_known_differences"`
}

func newReport(corpusDir string, results []*result, known knownDifferences, opts options) report {
	r := report{CorpusDir: corpusDir, Project: project, Home: home, Skipped: skippedCorpora, ExcludeKnown: opts.excludeKnown, Results: results, UnseenKnown: []string{}}
	for _, k := range known.unseen() {
		r.UnseenKnown = append(r.UnseenKnown, fmt.Sprintf("%s:%d: %s %q labelled %s", knownDifferencesName, k.line, k.corpus, k.command, k.label))
	}
	return r
}

// MarshalJSON adds the two rates to the counts, null when undefined.
func (t tally) MarshalJSON() ([]byte, error) {
	type counts tally
	return json.Marshal(struct {
		counts
		Recall     *float64 `json:"recall"`
		FalseBlock *float64 `json:"false_block"`
	}{counts(t), rate(t.StopStopped, t.Stop), rate(t.AllowStopped, t.Allow)})
}

// rate is n/d to four decimals, nil when d is 0.
func rate(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := math.Round(float64(n)/float64(d)*1e4) / 1e4
	return &r
}

func writeJSON(w io.Writer, r report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeText writes the figures as a table, a line per corpus and level,
// and one per category group under it when the results have them.
func writeText(w io.Writer, r report) error {
	fmt.Fprintf(w, "corpus %s: default-context rows (empty ctx) of every *.jsonl\n", r.CorpusDir)
	for _, name := range sortedKeys(r.Skipped) {
		fmt.Fprintf(w, "skipped %s: %s\n", name, r.Skipped[name])
	}
	fmt.Fprintf(w, "decided as claude's bash calls in %s with HOME=%s\n", r.Project, r.Home)
	fmt.Fprintln(w, "stop = deny or ask (labels block, ask; peers block, ask, deny); recall = stopped/labelled stop; false-block = stopped/labelled allow")
	fmt.Fprintln(w, "peers: recall/false-block on the same rows; a peer's error or empty verdict is left out of its figures")
	if r.ExcludeKnown {
		fmt.Fprintf(w, "rows disagreed on purpose (%s) are left out of the figures\n", knownDifferencesName)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "corpus\tlevel\t rows\t recall\t false-block\ton purpose\t%s\n", strings.Join(peers, " recall/fb\t")+" recall/fb")
	for _, res := range r.Results {
		textLine(tw, res.Corpus, res.Level, res.figures)
		for _, g := range sortedKeys(res.Categories) {
			textLine(tw, "  "+g, "", res.Categories[g])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.UnseenKnown) > 0 {
		fmt.Fprintf(w, "\n%d listed differences no configuration of this run decided as listed:\n", len(r.UnseenKnown))
		for _, u := range r.UnseenKnown {
			fmt.Fprintln(w, "  "+u)
		}
	}
	return nil
}

func textLine(w io.Writer, name, level string, f *figures) {
	fmt.Fprintf(w, "%s\t%s\t%5d\t%s\t%s\t%10d", name, level, f.Rows,
		ratio(f.Ours.StopStopped, f.Ours.Stop), ratio(f.Ours.AllowStopped, f.Ours.Allow), f.OnPurpose)
	for _, p := range peers {
		t := f.Peers[p]
		fmt.Fprintf(w, "\t%6s/%6s", percent(t.StopStopped, t.Stop), percent(t.AllowStopped, t.Allow))
	}
	fmt.Fprintln(w)
}

// ratio is a percentage with its counts.
func ratio(n, d int) string {
	return fmt.Sprintf("%6s %9s", percent(n, d), fmt.Sprintf("%d/%d", n, d))
}

func percent(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// writeMisses writes every row decided against its label, escaped as in
// the corpus TSVs.
func writeMisses(w io.Writer, results []*result) error {
	fmt.Fprintln(w, "corpus\tlevel\tcommand\tlabel\tverdict\trule\treason")
	for _, res := range results {
		for _, m := range res.misses {
			fields := []string{m.corpus, m.level, m.row.command, m.row.label, string(m.decision.Action), m.decision.Rule, m.decision.Reason}
			for i := range fields {
				fields[i] = corpustsv.Escape(fields[i])
			}
			if _, err := fmt.Fprintln(w, strings.Join(fields, "\t")); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
