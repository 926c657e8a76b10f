package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy"
)

// The commands are decided as if run in a project at /home/dev/project
// with HOME=/home/dev, the layout the safety pack's specification uses, so
// that absolute paths in the corpora resolve as it says.
const (
	home    = "/home/dev"
	project = home + "/project"
)

// hooksSubpath is where a repository keeps its agent-shell configuration.
const hooksSubpath = ".github/hooks/agent-shell"

// config is one configuration measured.
type config struct {
	name  string // what the figures call it: the level, or the folder
	level string // the safety pack's level, when dir is ""
	dir   string // a folder whose policy files are used as they are
}

// packConfigs are the safety pack at each level.
func packConfigs(levels []string) []config {
	out := make([]config, len(levels))
	for i, l := range levels {
		out[i] = config{name: l, level: l}
	}
	return out
}

// dirConfig is the configuration in a folder.
func dirConfig(dir string) config { return config{name: dir, dir: dir} }

// packManifest turns the safety pack on at a level, and nothing else.
func packManifest(level string) string {
	return fmt.Sprintf("version = 1\n\n[[pack]]\nname = \"safety\"\noptions = { level = %q }\n", level)
}

// install writes the configuration into a repository's hooks folder: the
// pack's manifest, or a copy of the folder (its scripts come along).
func (c config) install(hooks string) error {
	if c.dir != "" {
		return os.CopyFS(hooks, os.DirFS(c.dir))
	}
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(hooks, "agent-shell.toml"), []byte(packManifest(c.level)), 0o644)
}

// openEngine loads a configuration the way a hook would, from a scratch
// repository, and points the engine at the project. done removes the
// scratch repository, which keeps the scripts' state until then.
func openEngine(c config) (e *policy.Engine, done func(), err error) {
	root, err := os.MkdirTemp("", "agent-shell-accuracy-")
	if err != nil {
		return nil, nil, err
	}
	done = func() { os.RemoveAll(root) }
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		done()
		return nil, nil, err
	}
	if err := c.install(filepath.Join(root, hooksSubpath)); err != nil {
		done()
		return nil, nil, fmt.Errorf("%s: %w", c.name, err)
	}
	e = policy.Load(root, func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	switch {
	case e.LoadErr != nil:
		done()
		return nil, nil, fmt.Errorf("%s: the configuration does not load: %w", c.name, e.LoadErr)
	case e.File == nil && e.Manifest == nil:
		done()
		return nil, nil, fmt.Errorf("%s: no policy.json or agent-shell.toml", c.name)
	}
	// Only the guards and the grants use Root after loading, and both
	// must see the project the commands name.
	e.Root = project
	return e, done, nil
}

// decide decides one command as an agent's bash call in the project.
// DryRun stores no
// approval grant, so the project folder is never written.
func decide(e *policy.Engine, command string) policy.Decision {
	return e.DecideRequest(command, policy.Request{Cwd: project, Home: home, Agent: "claude", Tool: "bash", DryRun: true})
}

// tally counts one verdict source's stops among the rows labelled stop and
// among those labelled allow.
type tally struct {
	Stop         int `json:"stop"`
	StopStopped  int `json:"stop_stopped"`
	Allow        int `json:"allow"`
	AllowStopped int `json:"allow_stopped"`
}

func (t *tally) add(label, got verdict) {
	if got == unmeasured {
		return
	}
	stopped := 0
	if got == stop {
		stopped = 1
	}
	if label == stop {
		t.Stop++
		t.StopStopped += stopped
	} else {
		t.Allow++
		t.AllowStopped += stopped
	}
}

// figures are one configuration's figures on a set of rows, beside the
// peers' on the same rows.
type figures struct {
	Rows      int              `json:"rows"`
	Ours      tally            `json:"ours"`
	Peers     map[string]tally `json:"peers"`
	OnPurpose int              `json:"disagreed_on_purpose"` // rows known-differences.tsv lists, as it says
}

func newFigures() *figures { return &figures{Peers: map[string]tally{}} }

// add counts a row our verdict on which is got; a row decided as
// known-differences.tsv says counts as disagreed on purpose, and is left
// out of the rest when leaveOut.
func (f *figures) add(r row, got verdict, onPurpose, leaveOut bool) {
	if onPurpose {
		f.OnPurpose++
		if leaveOut {
			return
		}
	}
	label := verdictOf(r.label)
	f.Rows++
	f.Ours.add(label, got)
	for _, p := range peers {
		t := f.Peers[p]
		t.add(label, verdictOf(r.peers[p]))
		f.Peers[p] = t
	}
}

// miss is a row the configuration decides against its label.
type miss struct {
	corpus, level string
	row           row
	decision      policy.Decision
}

// result is one configuration's figures on one corpus.
type result struct {
	Corpus string `json:"corpus"`
	Level  string `json:"level"`
	*figures
	// Categories holds the figures of each category group (corpus.group),
	// with -by-category.
	Categories map[string]*figures `json:"categories,omitempty"`
	misses     []miss
}

// options are what the flags change in a measurement.
type options struct {
	excludeKnown bool // leave the rows known-differences.tsv lists out of the figures
	byCategory   bool
}

// measure decides every row of every corpus under every configuration.
func measure(corpora []corpus, configs []config, known knownDifferences, opts options) ([]*result, error) {
	var out []*result
	for _, c := range configs {
		e, done, err := openEngine(c)
		if err != nil {
			return nil, err
		}
		for _, cp := range corpora {
			out = append(out, measureCorpus(e, c.name, cp, known, opts))
		}
		done()
	}
	// By corpus, and within one in the order of the configurations.
	slices.SortStableFunc(out, func(a, b *result) int { return strings.Compare(a.Corpus, b.Corpus) })
	return out, nil
}

func measureCorpus(e *policy.Engine, level string, c corpus, known knownDifferences, opts options) *result {
	res := &result{Corpus: c.name, Level: level, figures: newFigures()}
	if opts.byCategory {
		res.Categories = map[string]*figures{}
	}
	for _, r := range c.rows {
		d := decide(e, r.command)
		got := verdictOf(string(d.Action))
		onPurpose := false
		if got != verdictOf(r.label) {
			res.misses = append(res.misses, miss{corpus: c.name, level: level, row: r, decision: d})
			if k := known.onPurpose(c.name, r, got); k != nil {
				k.seen, onPurpose = true, true
			}
		}
		res.add(r, got, onPurpose, opts.excludeKnown)
		if res.Categories != nil {
			res.group(c.group(r.category)).add(r, got, onPurpose, opts.excludeKnown)
		}
	}
	return res
}

// group returns the figures of a category group, made on first use.
func (res *result) group(name string) *figures {
	if res.Categories[name] == nil {
		res.Categories[name] = newFigures()
	}
	return res.Categories[name]
}
