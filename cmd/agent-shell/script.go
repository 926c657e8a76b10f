package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/scripts"
)

func newScriptCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "script",
		Short: "Work with the Starlark extension scripts",
	}
	test := &cobra.Command{
		Use:   "test [-run REGEX] [-v] [-json] [PATH|@PACK...]",
		Short: "Run *_test.star files (files or folders; the project's scripts by default)",
		Long: `Run the *_test.star files under each PATH (a file or a folder), or under
the project's .github/hooks/agent-shell/ when none is given. Each test file
runs against the scripts of the agent-shell.toml nearest to it (in its own
folder or a parent), else the project's manifest; a test file inside a pack
(a folder with pack.toml, such as a vendored packs/NAME/) runs against that
pack's own declarations, with its default options. @NAME runs the tests of
a pack built into agent-shell.

Flags, as go test spells them:
  -run REGEX   run only tests whose file/name matches
  -v           show each test as it starts, and what tests print
  -json        print test2json events`,
		// Flags are parsed below, Go-style: -run, -v, -json.
		DisableFlagParsing: true,
		RunE: runE(func(c *cobra.Command, args []string) error {
			return a.runScriptTest(c, args)
		}),
	}
	cmd.AddCommand(test)
	return cmd
}

func (a *app) runScriptTest(c *cobra.Command, args []string) error {
	fset := flag.NewFlagSet("script test", flag.ContinueOnError)
	fset.SetOutput(a.stderr)
	run := fset.String("run", "", "run only tests whose file/name matches `regex`")
	verbose := fset.Bool("v", false, "verbose output")
	jsonOut := fset.Bool("json", false, "test2json output")
	fset.Usage = func() { fmt.Fprintln(a.stderr, c.Long) }
	// Flags may come before or after the paths, as with go test.
	var paths []string
	for {
		if err := fset.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usageError(err)
		}
		args = fset.Args()
		if len(args) == 0 {
			break
		}
		paths, args = append(paths, args[0]), args[1:]
	}
	opts := runtime.TestOptions{Verbose: *verbose, JSON: *jsonOut}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return usageError(fmt.Errorf("-run: %v", err))
		}
		opts.Run = re
	}
	h, err := a.here()
	if err != nil {
		return err
	}
	root := h.Root
	var builtinPacks []string
	paths = slices.DeleteFunc(paths, func(p string) bool {
		if name, ok := strings.CutPrefix(p, "@"); ok {
			builtinPacks = append(builtinPacks, name)
			return true
		}
		return false
	})
	if len(paths) == 0 && len(builtinPacks) == 0 {
		paths = []string{filepath.Join(root, filepath.Dir(policy.ManifestSubpath))}
	}
	files, err := findTestFiles(paths)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(builtinPacks) == 0 {
		return fmt.Errorf("no *_test.star files under %s", strings.Join(paths, ", "))
	}
	// Group the files by the manifest or pack whose scripts they test.
	var order []string
	groups := map[string][]string{}
	for _, f := range files {
		m := nearestManifest(f, root)
		if _, ok := groups[m]; !ok {
			order = append(order, m)
		}
		groups[m] = append(groups[m], f)
	}
	var sum runtime.TestSummary
	for _, target := range order {
		m, err := loadTestTarget(target)
		if err != nil {
			fmt.Fprintf(a.stdout, "FAIL\t%s\n    %v\n", rel(target), err)
			sum.Failed += len(groups[target])
			continue
		}
		pack := ""
		if ps := m.LoadedPacks(); len(ps) > 0 {
			pack = ps[0].Decl.Name
		}
		var tests []runtime.TestFile
		for _, f := range groups[target] {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			tf := runtime.TestFile{Name: rel(f), Source: src, Pack: pack}
			abs, _ := filepath.Abs(f)
			if r, err := filepath.Rel(filepath.Dir(target), abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				tf.Path = filepath.ToSlash(r)
			}
			tests = append(tests, tf)
		}
		sum.Add(m.Runtime().RunTests(tests, opts, a.stdout))
	}
	for _, name := range builtinPacks {
		m, tests, err := builtinPackTests(name)
		if err != nil {
			fmt.Fprintf(a.stdout, "FAIL\t@%s\n    %v\n", name, err)
			sum.Failed++
			continue
		}
		sum.Add(m.Runtime().RunTests(tests, opts, a.stdout))
	}
	if !opts.JSON {
		fmt.Fprintln(a.stdout, sum)
	}
	if sum.Failed > 0 {
		return exitCode(1)
	}
	return nil
}

// loadTestTarget loads a manifest, or a pack on its own when path is its
// pack.toml, and compiles its scripts (examples checked).
func loadTestTarget(path string) (*policy.Manifest, error) {
	var m *policy.Manifest
	var err error
	if filepath.Base(path) == policy.PackFileName {
		if err := checkVendored(filepath.Dir(path)); err != nil {
			return nil, err
		}
		m, err = policy.LoadPackDir(filepath.Dir(path))
	} else {
		m, err = policy.LoadManifestFile(path)
	}
	if err != nil {
		return nil, err
	}
	e, err := policy.NewEngine(nil, m)
	if err == nil {
		err = e.CheckPackExamples()
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// checkVendored checks a vendored pack (packs/NAME/ beside a manifest)
// against the lock, as loading it for a hook would: its tests must not run
// on files the hook path would refuse.
func checkVendored(dir string) error {
	if filepath.Base(filepath.Dir(dir)) != policy.PacksSubdir {
		return nil // a pack's own checkout
	}
	return policy.CheckVendored(dir)
}

// builtinPackTests loads a built-in pack on its own with its test files.
func builtinPackTests(name string) (*policy.Manifest, []runtime.TestFile, error) {
	m, err := policy.LoadBuiltinPack(name)
	if err != nil {
		return nil, nil, err
	}
	e, err := policy.NewEngine(nil, m)
	if err == nil {
		err = e.CheckPackExamples()
	}
	if err != nil {
		return nil, nil, err
	}
	files, _ := scripts.Pack(name)
	var tests []runtime.TestFile
	err = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.star") {
			return err
		}
		src, err := fs.ReadFile(files, p)
		tests = append(tests, runtime.TestFile{Name: "@" + name + "//" + p, Path: p, Pack: name, Source: src})
		return err
	})
	return m, tests, err
}

// findTestFiles lists the *_test.star files named or under the folders
// named, in walk order.
func findTestFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), "_test.star") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nearestManifest is the pack.toml or agent-shell.toml in the test file's
// folder or the closest parent up to the repository root, else the
// project's manifest.
func nearestManifest(file, root string) string {
	dir, _ := filepath.Abs(filepath.Dir(file))
	for {
		for _, name := range []string{policy.PackFileName, filepath.Base(policy.ManifestSubpath)} {
			m := filepath.Join(dir, name)
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
				return m
			}
		}
		parent := filepath.Dir(dir)
		if dir == root || parent == dir {
			break
		}
		dir = parent
	}
	return filepath.Join(root, policy.ManifestSubpath)
}

// usageError is a bad flag or argument found by a command's own parsing.
func usageError(err error) error { return &runtimeError{err: err, code: exitUsage} }
