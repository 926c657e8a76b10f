package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// corpusSubpath is where the peer corpora live, relative to a folder above
// the repository (CI has ../shared beside it).
const corpusSubpath = "shared/corpus"

// skippedCorpora are the JSONL files left out, and why.
var skippedCorpora = map[string]string{
	"cc-allow.jsonl": "a matrix of commands under user-written rulesets, not a safety corpus",
}

// peers are the peer tools whose verdicts the JSONL files record, in the
// order they are shown.
var peers = []string{"ccsn", "dc", "odc", "hm"}

// row is one labelled command of a corpus.
type row struct {
	line     int // in the JSONL file, from 1
	command  string
	label    string // block, ask or allow
	category string
	// peers holds each peer's verdict as the JSONL spells it: "allow",
	// "block", "ask", or "error"/"" when it was not measured.
	peers map[string]string
}

// corpus is the default-context rows of one JSONL file.
type corpus struct {
	name string // the file name without .jsonl
	rows []row
	// categorySep separates the levels of its categories: " > " where the
	// source project names tests by describe blocks (cc-safety-net,
	// opencode-destructive-check), "/" where it names them by path (dcg,
	// bash-gates).
	categorySep string
}

// findCorpusDir walks up from dir to the first folder holding
// shared/corpus.
func findCorpusDir(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		c := filepath.Join(d, corpusSubpath)
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no %s in %s or any folder above it (CI has ../shared beside the repository; or give -corpus DIR)", corpusSubpath, dir)
		}
	}
}

// readCorpora reads every *.jsonl file of dir but the skipped ones, in
// name order.
func readCorpora(dir string) ([]corpus, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []corpus
	for _, f := range files {
		if _, skip := skippedCorpora[filepath.Base(f)]; skip {
			continue
		}
		c, err := readCorpus(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no corpus *.jsonl files in %s", dir)
	}
	return out, nil
}

// readCorpus reads the default-context rows of one JSONL file. A row is
// default context when its ctx is empty: the JSONL keeps in ctx what the
// TSV writes as the category's " {…}" suffix, the mode or fixture the
// source test needed.
func readCorpus(path string) (corpus, error) {
	c := corpus{name: strings.TrimSuffix(filepath.Base(path), ".jsonl"), categorySep: "/"}
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		r, ctx, err := parseRow(sc.Bytes())
		if err != nil {
			return c, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if strings.Contains(r.category, " > ") {
			c.categorySep = " > "
		}
		if ctx == "" {
			r.line = n
			c.rows = append(c.rows, r)
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	return c, nil
}

// parseRow decodes one JSONL line, and returns its ctx beside it.
func parseRow(line []byte) (row, string, error) {
	var fields map[string]any
	if err := json.Unmarshal(line, &fields); err != nil {
		return row{}, "", err
	}
	str := func(k string) string { s, _ := fields[k].(string); return s }
	r := row{command: str("command"), label: str("expected"), category: str("category"), peers: map[string]string{}}
	if verdictOf(r.label) == unmeasured {
		return r, "", fmt.Errorf("label %q: want block, ask or allow", r.label)
	}
	if _, ok := fields["command"].(string); !ok {
		return r, "", errors.New("no command") // "" is one, which dcg labels allow
	}
	for _, p := range peers {
		r.peers[p] = str(p)
	}
	return r, str("ctx"), nil
}

// group is the part of a category before its first separator: the test
// suite or file family a row comes from (dcg: regression-corpus, enforced
// by its cargo tests, or e2e-fixture, checked by a script only;
// cc-safety-net: "git push", "rm -rf blocked", "edge cases", ...).
func (c corpus) group(category string) string {
	g, _, _ := strings.Cut(category, c.categorySep)
	return g
}

// verdict is stop or allow, whoever gives it.
type verdict string

const (
	stop       verdict = "stop"
	allow      verdict = "allow"
	unmeasured verdict = "" // a peer's "error" or no value: left out of its figures
)

// verdictOf maps a label, an engine action or a peer's verdict to stop or
// allow: block, ask and deny stop the command without a human's approval.
func verdictOf(s string) verdict {
	switch s {
	case "block", "ask", "deny":
		return stop
	case "allow":
		return allow
	}
	return unmeasured
}
