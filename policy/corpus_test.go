package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
)

// The peer corpora test: the default-context rows of the cc-safety-net and
// destructive_command_guard (dcg) test suites (testdata/corpus/*.tsv,
// copied from ../shared/corpus/, whose README describes the format) are
// decided by the engine under one written-down policy that expresses the
// intent of those tools' default rules (testdata/corpus/policy.json and
// agent-shell.toml). A row passes when our verdict, mapped to stop (deny or
// ask) or allow, equals its label (block or ask = stop).
//
// Rows that disagree must be listed, with a reason, in
// testdata/corpus/known-differences.tsv; the test fails on a disagreement
// that is not listed and on a listed row that now agrees, so the list stays
// exact. Set CORPUS_SHOW=1 to log every row's verdict.

const (
	corpusDir = "testdata/corpus"
	// corpusDataDir holds the labelled commands, shared with the parser's
	// own corpus test.
	corpusDataDir = "shellcmd/testdata/corpus"
	// corpusCwd is where the commands run: the project root the policy's
	// effect globs name.
	corpusCwd = "/home/user/project"
	// corpusMinRows is the floor of rows the issue asks for.
	corpusMinRows = 300
)

// corpusFiles are the corpora checked. bash-gates.tsv is left out: its
// default-context rows are end-to-end cases of a tool that asks on every
// ordinary write (git add, npm install), a different intent from the
// destructive-only guards this policy expresses.
var corpusFiles = []string{"cc-safety-net.tsv", "dcg.tsv"}

// corpusCategories are the reason categories of known differences, and
// whether a row in the category is one the policy language can express
// (the difference is a choice of this policy, or a parser bug) or not (the
// matchers lack what it would take).
var corpusCategories = map[string]bool{
	// Expressible: the difference is a choice, or a bug below the policy.
	"corpora-disagree":  true, // the corpora label it differently; this policy follows the other one
	"policy-choice":     true, // our rule is deliberately broader or narrower than the peer's
	"peer-conservative": true, // the peer stops a command that cannot do what it fears (git rejects it, nothing runs)
	"unknown-stop":      true, // we deliberately stop: the program or the line is not known statically
	"engine-bug":        true, // the rule expresses it, the parse or the effects get it wrong (reported, not fixed here)
	// Not expressible: the matchers lack what it would take.
	"interpreter-code": false, // judging code an interpreter runs (python -c beyond a few substrings, a heredoc to python)
	"operands":         false, // operand semantics: a ref from a pathspec, option values and order, "--", refspec prefixes
	"abbreviation":     false, // option spellings canonicalization does not know: git's unique prefixes (--forc), unsplit clusters
	"environment":      false, // what git takes from the environment: variables matchers do not read (GIT_SSH), or a command they walk that the policy allows
	"case-and-names":   false, // program names are matched exactly; the label assumes a case-insensitive file system or git.exe
	"effects-any":      false, // an effect matcher holds when some effect matches; "every target is inside" cannot be said
	"dynamic-args":     false, // matchers cannot see that xargs/parallel append run-time arguments to a command
}

type corpusRow struct {
	file     string
	line     int
	command  string
	label    string // block, ask or allow
	category string
}

// corpusVerdict maps a label or an action to stop or allow.
func corpusVerdict(s string) string {
	switch s {
	case "block", "ask", "deny":
		return "stop"
	case "allow":
		return "allow"
	}
	return "?" + s
}

// corpusDefaultContext reports whether a row needs no mode or fixture: its
// category does not end with a " {…}" suffix.
func corpusDefaultContext(category string) bool {
	return !(strings.HasSuffix(category, "}") && strings.Contains(category, " {"))
}

// corpusReadTSV reads a corpus TSV, unescaping every field, and appends
// each row's line number as a last field. want is the number of columns
// each line must have.
func corpusReadTSV(t *testing.T, path string, want int) [][]string {
	t.Helper()
	rows, err := corpustsv.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		if len(r.Fields) != want {
			t.Fatalf("%s:%d: %d columns, want %d", path, r.Line, len(r.Fields), want)
		}
		out = append(out, append(r.Fields, fmt.Sprint(r.Line)))
	}
	return out
}

func corpusRows(t *testing.T, file string) []corpusRow {
	t.Helper()
	var rows []corpusRow
	for _, f := range corpusReadTSV(t, filepath.Join(corpusDataDir, file), 4) {
		if !corpusDefaultContext(f[2]) {
			continue
		}
		if corpusVerdict(f[1])[0] == '?' {
			t.Fatalf("%s:%s: unknown label %q", file, f[4], f[1])
		}
		var line int
		fmt.Sscan(f[4], &line)
		rows = append(rows, corpusRow{file: file, line: line, command: f[0], label: f[1], category: f[2]})
	}
	return rows
}

// corpusEngine loads the corpus policy the way a project's files would be.
func corpusEngine(t *testing.T) *Engine {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parsePolicyFile(data)
	if err != nil {
		t.Fatalf("policy.json: %v", err)
	}
	pf.Path = filepath.Join(corpusDir, "policy.json")
	mpath := filepath.Join(corpusDir, "agent-shell.toml")
	src, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(mpath, src)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(pf, m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type corpusKnown struct {
	line     int
	ours     string
	category string
	reason   string
	seen     int
}

// corpusKnownKey identifies a known difference: the same command under the
// same stop/allow label is decided alike wherever it appears.
func corpusKnownKey(command, label string) string {
	return corpusVerdict(label) + "\x00" + command
}

func corpusKnownDifferences(t *testing.T) map[string]*corpusKnown {
	t.Helper()
	path := filepath.Join(corpusDir, "known-differences.tsv")
	known := map[string]*corpusKnown{}
	for _, f := range corpusReadTSV(t, path, 4) {
		var line int
		fmt.Sscan(f[4], &line)
		command, label, ours, reason := f[0], f[1], f[2], f[3]
		if corpusVerdict(label)[0] == '?' || (ours != "stop" && ours != "allow") {
			t.Errorf("%s:%d: bad label %q or verdict %q", path, line, label, ours)
			continue
		}
		if corpusVerdict(label) == ours {
			t.Errorf("%s:%d: %q: label %s and our verdict %s agree: not a difference", path, line, command, label, ours)
		}
		cat, detail, ok := strings.Cut(reason, ": ")
		if _, known := corpusCategories[cat]; !ok || !known || strings.TrimSpace(detail) == "" {
			t.Errorf("%s:%d: reason %q: want \"CATEGORY: detail\" with a category of corpusCategories", path, line, reason)
			continue
		}
		key := corpusKnownKey(command, label)
		if prev, dup := known[key]; dup {
			t.Errorf("%s:%d: %q listed twice (first at line %d)", path, line, command, prev.line)
			continue
		}
		known[key] = &corpusKnown{line: line, ours: ours, category: cat, reason: reason}
	}
	return known
}

func TestCorpusPolicy(t *testing.T) {
	e := corpusEngine(t)
	known := corpusKnownDifferences(t)
	show := os.Getenv("CORPUS_SHOW") != ""

	type counts struct {
		rows, expressible, passing, known int
		stops, stopsStopped               int // rows labelled stop, and those we stop (recall)
		allows, allowsStopped             int // rows labelled allow, and those we stop (false positives)
		byCategory                        map[string]int
	}
	total := counts{byCategory: map[string]int{}}
	var missing []string
	for _, file := range corpusFiles {
		c := counts{byCategory: map[string]int{}}
		for _, row := range corpusRows(t, file) {
			d := e.Decide(row.command, corpusCwd)
			got, want := corpusVerdict(string(d.Action)), corpusVerdict(row.label)
			if show {
				t.Logf("%s:%d %s/%s %q rule=%q", file, row.line, want, got, row.command, d.Rule)
			}
			c.rows++
			if want == "stop" {
				c.stops++
				if got == "stop" {
					c.stopsStopped++
				}
			} else {
				c.allows++
				if got == "stop" {
					c.allowsStopped++
				}
			}
			k := known[corpusKnownKey(row.command, row.label)]
			switch {
			case got == want && k == nil:
				c.passing++
				c.expressible++
			case got == want:
				k.seen++
				c.passing++
				c.expressible++
				t.Errorf("%s:%d: %q (%s) now agrees (%s, rule %q): remove it from known-differences.tsv (line %d)",
					file, row.line, row.command, row.label, got, d.Rule, k.line)
			case k == nil:
				t.Errorf("%s:%d: %q: labelled %s, got %s (rule %q, reason %q), and not a known difference",
					file, row.line, row.command, row.label, string(d.Action), d.Rule, d.Reason)
				missing = append(missing, fmt.Sprintf("%s\t%s\t%s\tTODO: %s", corpustsv.Escape(row.command), row.label, got, row.category))
			default:
				k.seen++
				if k.ours != got {
					t.Errorf("%s:%d: %q: known-differences.tsv line %d says we %s, we now %s (rule %q)",
						file, row.line, row.command, k.line, k.ours, got, d.Rule)
				}
				c.known++
				c.byCategory[k.category]++
				if corpusCategories[k.category] {
					c.expressible++
				}
			}
		}
		t.Logf("%s: %d default-context rows, %d expressible, %d passing, %d known differences %v; stopped %d/%d labelled stop, %d/%d labelled allow",
			file, c.rows, c.expressible, c.passing, c.known, corpusCounts(c.byCategory), c.stopsStopped, c.stops, c.allowsStopped, c.allows)
		total.rows += c.rows
		total.expressible += c.expressible
		total.passing += c.passing
		total.known += c.known
		for k, v := range c.byCategory {
			total.byCategory[k] += v
		}
	}
	t.Logf("total: %d rows, %d expressible, %d passing, %d known differences %v",
		total.rows, total.expressible, total.passing, total.known, corpusCounts(total.byCategory))
	if total.rows < corpusMinRows {
		t.Errorf("only %d corpus rows checked, want at least %d", total.rows, corpusMinRows)
	}
	for key, k := range known {
		if k.seen == 0 {
			_, command, _ := strings.Cut(key, "\x00")
			t.Errorf("known-differences.tsv:%d: %q matches no default-context corpus row: remove it", k.line, command)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Logf("unlisted differences, as known-differences.tsv lines:\n%s", strings.Join(missing, "\n"))
	}
}

// TestCorpusExplain shows how the corpus policy decides one command, with
// the corpus cwd: CORPUS_EXPLAIN='cmd' go test ./policy -run CorpusExplain -v
func TestCorpusExplain(t *testing.T) {
	cmd := os.Getenv("CORPUS_EXPLAIN")
	if cmd == "" {
		t.Skip("set CORPUS_EXPLAIN to a command")
	}
	d := corpusEngine(t).Decide(cmd, corpusCwd)
	for _, c := range d.Commands {
		t.Logf("layer %d %q effects=%q action=%s", c.Layer, c.Argv, c.Effects, c.Action)
		for _, m := range c.Matches {
			t.Logf("    %s %s %s", m.Action, m.Source, m.Rule)
		}
	}
	t.Logf("decision %s, rule %q, unknown %q: %s", d.Action, d.Rule, d.Unknown, d.Reason)
}

func corpusCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}
