// Command accuracy measures how a configuration of agent-shell decides the
// peer corpora (../shared/corpus/*.jsonl, described in its README.md): on
// each corpus's default-context rows, the recall on the rows labelled stop
// (block or ask) and the rate of false blocks on the rows labelled allow,
// beside the same figures for the peer tools' verdicts recorded on the
// same rows. The commands go through the real decision path: the
// configuration is written into a scratch repository, loaded by
// policy.Load and asked through Engine.DecideRequest, as if the project
// were at /home/dev/project with HOME=/home/dev.
//
//	go run ./bench/accuracy                        # the safety pack, -levels standard,strict
//	go run ./bench/accuracy -config DIR            # DIR's policy.json / agent-shell.toml instead
//	    [-corpus DIR] [-by-category] [-misses FILE] [-exclude-known] [-json]
//
// The rows known-differences.tsv lists are disagreed with on purpose: they
// are counted apart, and left out of the figures with -exclude-known.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
}

// run parses the flags, measures and writes the report.
func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("accuracy", flag.ContinueOnError)
	corpusDir := fs.String("corpus", "", "the peer corpora folder (default: shared/corpus in the working directory or a folder above it)")
	levels := fs.String("levels", "standard,strict", "the safety pack's levels to measure, comma-separated")
	configDir := fs.String("config", "", "measure this folder's policy.json / agent-shell.toml instead of the safety pack")
	asJSON := fs.Bool("json", false, "write the figures as JSON")
	byCategory := fs.Bool("by-category", false, "add the figures of each category group of a corpus")
	missesFile := fs.String("misses", "", "write every row decided against its label to this TSV file")
	excludeKnown := fs.Bool("exclude-known", false, "leave the rows known-differences.tsv lists out of the figures")
	spec := fs.Bool("spec", false, "measure the spec cases (testdata/spec-cases.tsv) instead of the peer corpora, listing every miss")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	configs, err := chosenConfigs(fs, *configDir, *levels)
	if err != nil {
		return err
	}
	if *spec {
		cases, err := readSpecCases(strings.NewReader(specCasesTSV))
		if err != nil {
			return err
		}
		results, err := measureSpec(cases, configs)
		if err != nil {
			return err
		}
		writeSpecText(stdout, results, true)
		return nil
	}
	dir, err := corpusFolder(*corpusDir)
	if err != nil {
		return err
	}
	corpora, err := readCorpora(dir)
	if err != nil {
		return err
	}
	known, err := parseKnownDifferences(knownDifferencesName, knownDifferencesTSV)
	if err != nil {
		return err
	}
	opts := options{excludeKnown: *excludeKnown, byCategory: *byCategory}
	results, err := measure(corpora, configs, known, opts)
	if err != nil {
		return err
	}
	if *missesFile != "" {
		if err := writeMissesFile(*missesFile, results); err != nil {
			return err
		}
	}
	rep := newReport(dir, results, known, opts)
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	return writeText(stdout, rep)
}

// chosenConfigs is -config's folder, or the pack at each of -levels; not
// both.
func chosenConfigs(fs *flag.FlagSet, dir, levels string) ([]config, error) {
	if dir == "" {
		return packConfigs(strings.Split(levels, ",")), nil
	}
	levelsGiven := false
	fs.Visit(func(f *flag.Flag) { levelsGiven = levelsGiven || f.Name == "levels" })
	if levelsGiven {
		return nil, errors.New("-config and -levels exclude each other: a folder's configuration has no levels")
	}
	return []config{dirConfig(dir)}, nil
}

// corpusFolder is -corpus, or shared/corpus found above the working
// directory.
func corpusFolder(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return findCorpusDir(wd)
}

func writeMissesFile(path string, results []*result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeMisses(f, results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
