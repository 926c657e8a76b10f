package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/atomicfile"
	"github.com/agent-shell/agent-shell/policy"
)

// Result is what Apply did.
type Result struct {
	Files []string // the files written, root-relative, in order
	Notes []string // things the user should know, one line each
}

// Apply carries out the plan. Every agent's registration is checked before
// anything is written, so an invalid file stops init with nothing changed;
// each file is written atomically (a temporary file renamed over it).
func Apply(s *State, p Plan) (*Result, error) {
	res := &Result{}
	var install []hostapi.Adapter
	if p.hooks() {
		for _, name := range p.Agents {
			a := s.Agent(name)
			if a.Err != nil {
				return res, fmt.Errorf("%s hooks: %w", name, a.Err)
			}
			ad, ok := hostapi.ByName(name, s.getenv)
			if !ok {
				return res, &UsageError{fmt.Sprintf("unknown agent %q", name)}
			}
			if !a.Registered {
				install = append(install, ad)
			}
		}
	}
	for _, ad := range install {
		files, err := ad.Install(s.Root)
		res.add(s.Root, files...)
		if err != nil {
			return res, fmt.Errorf("install %s hooks: %w", ad.Name(), err)
		}
		if note := ad.Describe().InstallNote; note != "" {
			res.Notes = append(res.Notes, note)
		}
	}
	if len(install) > 0 && p.Policy && !p.FlightRecorder {
		res.Notes = append(res.Notes, "the hooks record each tool call too: one registration serves policy and flight recording")
	}

	if p.Policy && len(s.PolicyFiles) == 0 {
		err := atomicfile.Create(filepath.Join(s.Root, policy.ManifestSubpath), []byte(StarterManifest), 0o644)
		switch {
		case errors.Is(err, fs.ErrExist):
			// Created since Detect looked: it is the user's, keep it.
			res.Notes = append(res.Notes, policy.ManifestSubpath+" appeared meanwhile; it was left as it is")
		case err != nil:
			return res, err
		default:
			res.add(s.Root, filepath.Join(s.Root, policy.ManifestSubpath))
		}
	} else if p.Policy && !s.SafetyPack {
		res.Notes = append(res.Notes, "your policy is kept as it is; to add the built-in safety pack, add to "+policy.ManifestSubpath+":\n    [[pack]]\n    name = \"safety\"\n    options = { level = \"standard\" }")
	}

	if s.NPM.Tracked && s.HasPackageJSON && !s.NPM.Set {
		// A committed script-shell=agent-shell breaks npm (ENOENT) on every
		// machine without agent-shell: a contributor's, a CI runner's.
		res.Notes = append(res.Notes, ".npmrc is committed, so it was left alone: script-shell=agent-shell there would break npm for everyone without agent-shell. To record npm scripts on this machine: npm config set script-shell agent-shell --location=user")
	}
	if p.NPM {
		changed, err := mergeFile(filepath.Join(s.Root, ".npmrc"), func(b []byte) ([]byte, bool) {
			return mergeNpmrc(b, p.ReplaceScriptShell)
		})
		if err != nil {
			return res, err
		}
		if changed {
			res.add(s.Root, filepath.Join(s.Root, ".npmrc"))
		}
		// This machine's setting: kept out of commits, so that a clone
		// without agent-shell runs npm as before.
		if excluded, err := excludeFromGit(s.Root, "/.npmrc"); err != nil {
			return res, err
		} else if excluded {
			res.add(s.Root, filepath.Join(s.Root, ".git", "info", "exclude"))
		}
		if s.NPM.Other != "" && p.ReplaceScriptShell {
			res.Notes = append(res.Notes, fmt.Sprintf(".npmrc: script-shell=%s was replaced and kept as a comment", s.NPM.Other))
		}
	}
	if s.NPM.Other != "" && !p.ReplaceScriptShell && !s.NPM.Set {
		res.Notes = append(res.Notes, fmt.Sprintf(".npmrc sets script-shell=%s, which was kept: agent-shell init --npm replaces it", s.NPM.Other))
	}
	for _, pm := range s.PackageManagers {
		if (p.NPM || s.NPM.Set) && (pm.Name == "bun" || pm.Name == "yarn berry") {
			res.Notes = append(res.Notes, pm.Name+" does not read script-shell from .npmrc: its scripts are not recorded (the agents' hooks still are)")
		}
	}

	if p.Gitignore {
		changed, err := mergeFile(filepath.Join(s.Root, ".gitignore"), mergeGitignore)
		if err != nil {
			return res, err
		}
		if changed {
			res.add(s.Root, filepath.Join(s.Root, ".gitignore"))
		}
	}
	return res, nil
}

func (r *Result) add(root string, files ...string) {
	for _, f := range files {
		if rel, err := filepath.Rel(root, f); err == nil {
			f = rel
		}
		r.Files = append(r.Files, filepath.ToSlash(f))
	}
}

// mergeFile applies merge to a line file (empty when missing) and writes it
// back atomically when merge changed it. A symbolic link is refused rather
// than replaced by a file or followed out of the repository.
func mergeFile(path string, merge func([]byte) ([]byte, bool)) (bool, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return false, fmt.Errorf("%s is a symbolic link; it was left unchanged: edit it yourself", path)
	}
	data, err := readSmall(path)
	if err != nil {
		return false, err
	}
	out, changed := merge(data)
	if !changed {
		return false, nil
	}
	return true, atomicfile.Write(path, out, 0)
}
