package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/packs"
)

func newPackCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pack",
		Short: "Add, update, remove, verify and show script packs",
		Long: `A pack is a folder of rules and Starlark scripts with a pack.toml, shared
between repositories. pack add vendors one into .github/hooks/agent-shell/packs/NAME/
and pins every file in .github/hooks/agent-shell/agent-shell.lock; the hook path loads
only those files and denies every call when they do not match the lock.`,
		Example: `  agent-shell pack add git+https://example.com/acme/agent-rules.git@v1.2.0
  agent-shell pack add ../agent-rules --name team
  agent-shell pack update team --rev v1.3.0
  agent-shell pack verify
  agent-shell pack show safety`,
	}
	var name string
	var trust []string
	add := &cobra.Command{
		Use:   "add SOURCE[@REV]",
		Short: "Fetch a pack (git+https://, git+ssh://, git+file:// or a folder), check it, vendor and pin it",
		Args:  cobra.ExactArgs(1),
		RunE: runE(func(_ *cobra.Command, args []string) error {
			p, cwd, err := a.packProject()
			if err != nil {
				return err
			}
			return p.Add(context.Background(), args[0], name, cwd, trust)
		}),
	}
	add.Flags().StringVar(&name, "name", "", "the `NAME` to declare it under (default: its pack.toml's name)")
	add.Flags().StringSliceVar(&trust, "trust", nil, "grant the pack reviewers, interceptors or replace (effect analyzers that replace), which can loosen the project's decisions")
	var rev string
	update := &cobra.Command{
		Use:   "update NAME",
		Short: "Fetch a pack again (at --rev), show what changed in its rules, vendor and pin it",
		Args:  cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			p, _, err := a.packProject()
			if err != nil {
				return err
			}
			return p.Update(context.Background(), args[0], rev, c.Flags().Changed("rev"))
		}),
	}
	update.Flags().StringVar(&rev, "rev", "", "the tag, branch or commit to move to")
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Take a pack out of the manifest, the lock and the vendored files",
		Args:  cobra.ExactArgs(1),
		RunE: runE(func(_ *cobra.Command, args []string) error {
			p, _, err := a.packProject()
			if err != nil {
				return err
			}
			return p.Remove(args[0])
		}),
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the packs the manifest takes in",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			p, _, err := a.packProject()
			if err != nil {
				return err
			}
			infos, err := p.List()
			if err != nil {
				return err
			}
			if len(infos) == 0 {
				fmt.Fprintln(a.stdout, "no packs")
			}
			for _, in := range infos {
				from := "built in"
				if !in.Builtin {
					from = in.Source
					if in.Rev != "" {
						from += "@" + in.Rev
					}
					if in.Commit != "" {
						from += " (" + in.Commit[:min(12, len(in.Commit))] + ")"
					}
				}
				fmt.Fprintf(a.stdout, "%-12s %-8s %3d rules  %s\n", in.Name, in.Version, in.Rules, from)
			}
			return nil
		}),
	}
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Re-hash the vendored packs against the lock; exit 1 naming every mismatch",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			p, _, err := a.packProject()
			if err != nil {
				return err
			}
			problems, err := p.Verify()
			if err != nil {
				return err
			}
			for _, pr := range problems {
				fmt.Fprintf(a.stdout, "%s: %s\n", pr.Pack, pr.What)
			}
			if len(problems) > 0 {
				return exitCode(1)
			}
			fmt.Fprintln(a.stdout, "ok")
			return nil
		}),
	}
	show := &cobra.Command{
		Use:   "show NAME [FILE]",
		Short: "Print a pack's files (a built-in pack's too), or one of them",
		Args:  cobra.RangeArgs(1, 2),
		RunE: runE(func(_ *cobra.Command, args []string) error {
			p, _, err := a.packProject()
			if err != nil {
				// Outside a repository there are still the built-in packs.
				p = &packs.Project{Getenv: a.getenv, Out: a.stdout}
			}
			files, err := p.ShowFiles(args[0])
			if err != nil {
				return err
			}
			if len(args) == 2 {
				data, ok := files[args[1]]
				if !ok {
					return fmt.Errorf("pack %s has no file %s (files: %s)", args[0], args[1], strings.Join(sortedKeys(files), ", "))
				}
				a.stdout.Write(data)
				return nil
			}
			for _, f := range sortedKeys(files) {
				fmt.Fprintf(a.stdout, "==> %s <==\n%s", f, files[f])
				if data := files[f]; len(data) > 0 && data[len(data)-1] != '\n' {
					fmt.Fprintln(a.stdout)
				}
				fmt.Fprintln(a.stdout)
			}
			return nil
		}),
	}
	cmd.AddCommand(add, update, remove, list, verify, show)
	return cmd
}

// packProject is the repository the pack commands work on.
func (a *app) packProject() (*packs.Project, string, error) {
	h, err := a.here()
	if err != nil {
		return nil, "", err
	}
	root, ok := h.Root, h.InRepo
	if !ok {
		return nil, "", fmt.Errorf("%s is not inside a git repository", h.Cwd)
	}
	return &packs.Project{Root: root, Getenv: a.getenv, Out: a.stdout}, h.Cwd, nil
}

func sortedKeys[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
