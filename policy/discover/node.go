package discover

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// lockfiles tell which package manager a project uses, in the order they are
// tried when the packageManager field is absent.
var lockfiles = []struct{ file, pm string }{
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"bun.lock", "bun"},
	{"bun.lockb", "bun"},
	{"package-lock.json", "npm"},
	{"npm-shrinkwrap.json", "npm"},
}

func (s *scanner) scanNode() {
	root, workspaces, ok := s.readPackage(".")
	if !ok {
		if s.exists("package.json") {
			// Unreadable, but still a Node project: its lockfile says how.
			s.detectPackageManager("")
		}
		return
	}
	s.p.Packages = append(s.p.Packages, root.Package)
	s.detectPackageManager(root.packageManager)

	if data, ok := s.read("pnpm-workspace.yaml"); ok {
		var ws struct {
			Packages []string `yaml:"packages"`
		}
		if err := yaml.Unmarshal(data, &ws); err != nil {
			s.notef("pnpm-workspace.yaml: not valid YAML (%s); skipped", firstLine(err.Error()))
		} else {
			workspaces = append(workspaces, ws.Packages...)
		}
	}
	for _, dir := range s.expandWorkspaces(workspaces) {
		if pkg, _, ok := s.readPackage(dir); ok {
			s.p.Packages = append(s.p.Packages, pkg.Package)
		}
	}
}

type packageJSON struct {
	Package
	packageManager string
}

// readPackage reads dir/package.json: its name, string-valued scripts,
// dependencies, packageManager and workspace patterns.
func (s *scanner) readPackage(dir string) (pkg packageJSON, workspaces []string, ok bool) {
	file := path.Join(dir, "package.json")
	data, ok := s.read(file)
	if !ok {
		return pkg, nil, false
	}
	// Node reads a package.json that starts with a byte order mark.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		s.notef("%s: not valid JSON (%v); skipped", file, err)
		return pkg, nil, false
	}
	if raw == nil {
		s.notef("%s: not a JSON object; skipped", file)
		return pkg, nil, false
	}
	pkg.Dir, pkg.File, pkg.Deps = dir, file, map[string]bool{}
	_ = json.Unmarshal(raw["name"], &pkg.Name)
	_ = json.Unmarshal(raw["packageManager"], &pkg.packageManager)
	if v, ok := raw["scripts"]; ok {
		pkg.Scripts = s.scripts(file, v)
	}
	for _, key := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		var deps map[string]json.RawMessage
		if json.Unmarshal(raw[key], &deps) == nil {
			for name := range deps {
				pkg.Deps[name] = true
			}
		}
	}
	if v, ok := raw["workspaces"]; ok && dir == "." {
		// An array of globs, or Yarn's {"packages": [...]}.
		var list []string
		var obj struct {
			Packages []string `json:"packages"`
		}
		switch {
		case json.Unmarshal(v, &list) == nil:
			workspaces = list
		case json.Unmarshal(v, &obj) == nil:
			workspaces = obj.Packages
		default:
			s.notef("%s: workspaces is neither a list of globs nor {\"packages\": [...]}; ignored", file)
		}
	}
	return pkg, workspaces, true
}

// scripts keeps the string-valued scripts, in name order, and notes the rest.
func (s *scanner) scripts(file string, v json.RawMessage) []Script {
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		s.notef("%s: scripts is not an object; ignored", file)
		return nil
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Script
	for _, name := range names {
		var body string
		if err := json.Unmarshal(m[name], &body); err != nil {
			s.notef("%s: script %q is not a string; skipped", file, name)
			continue
		}
		out = append(out, Script{Name: name, Body: body})
	}
	return out
}

// detectPackageManager picks npm, pnpm, yarn or bun: the packageManager field
// wins (it is what corepack enforces), then a lockfile, then npm.
func (s *scanner) detectPackageManager(field string) {
	p := s.p
	for _, l := range lockfiles {
		if s.exists(l.file) {
			p.Lockfile = l.file
			p.PackageManager, p.PackageManagerFrom = l.pm, l.file
			break
		}
	}
	if name, version, ok := strings.Cut(field, "@"); ok {
		switch name {
		case "npm", "pnpm", "yarn", "bun":
			if p.PackageManager != name {
				p.Lockfile = ""
			}
			p.PackageManager, p.PackageManagerFrom = name, "packageManager"
			if name == "yarn" && !strings.HasPrefix(version, "1.") {
				p.YarnBerry = true
			}
		}
	}
	if p.PackageManager == "" {
		p.PackageManager, p.PackageManagerFrom = "npm", "default"
	}
	if p.PackageManager == "yarn" && s.exists(".yarnrc.yml") {
		p.YarnBerry = true
	}
}

// expandWorkspaces turns workspace globs into package directories: one
// path segment per glob segment, ** any number of them (none included), no
// symbolic links, no node_modules or hidden folders; "!" patterns remove.
func (s *scanner) expandWorkspaces(patterns []string) []string {
	found := map[string]bool{}
	for _, pat := range patterns {
		neg := strings.HasPrefix(pat, "!")
		pat = strings.TrimPrefix(strings.TrimPrefix(pat, "!"), "./")
		pat = strings.TrimSuffix(pat, "/")
		if pat == "" || path.IsAbs(pat) || pat == ".." || strings.HasPrefix(pat, "../") || strings.Contains(pat, "/../") {
			continue
		}
		if _, err := path.Match(pat, ""); err != nil {
			s.notef("workspaces: bad glob %q; ignored", pat)
			continue
		}
		for _, dir := range s.glob(pat) {
			if neg {
				delete(found, dir)
			} else if s.exists(path.Join(dir, "package.json")) {
				found[dir] = true
			}
		}
	}
	dirs := make([]string, 0, len(found))
	for d := range found {
		if d != "." {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	if len(dirs) > maxWorkspaces {
		s.notef("workspaces: %d packages, only the first %d were read", len(dirs), maxWorkspaces)
		dirs = dirs[:maxWorkspaces]
	}
	return dirs
}

// maxGlobDirs bounds the folders one workspace glob visits.
const maxGlobDirs = maxWorkspaces * 10

// glob expands a slash-separated pattern segment by segment.
func (s *scanner) glob(pattern string) []string {
	dirs := []string{"."}
	visited := 0
	for _, seg := range strings.Split(pattern, "/") {
		var next []string
		if seg == "**" {
			// Each folder and every folder below it, breadth first.
			seen := map[string]bool{}
			queue := append([]string{}, dirs...)
			for len(queue) > 0 && visited < maxGlobDirs {
				d := queue[0]
				queue = queue[1:]
				if seen[d] {
					continue
				}
				seen[d] = true
				visited++
				next = append(next, d)
				for _, e := range s.readDir(d) {
					if e.IsDir() && e.Name() != "node_modules" && !strings.HasPrefix(e.Name(), ".") {
						queue = append(queue, path.Join(d, e.Name()))
					}
				}
			}
			if len(queue) > 0 {
				s.notef("workspaces: %s reaches more than %d folders; only some were read", pattern, maxGlobDirs)
			}
			dirs = next
			continue
		}
		for _, d := range dirs {
			if !strings.ContainsAny(seg, "*?[") {
				if p := path.Join(d, seg); s.isDir(p) {
					next = append(next, p)
				}
				continue
			}
			for _, e := range s.readDir(d) {
				if !e.IsDir() || e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".") {
					continue
				}
				if ok, _ := path.Match(seg, e.Name()); ok {
					next = append(next, path.Join(d, e.Name()))
				}
			}
		}
		dirs = next
		if len(dirs) > maxWorkspaces*4 {
			dirs = dirs[:maxWorkspaces*4]
		}
	}
	return dirs
}

// scriptByName finds a script in any package.
func (p *Project) scriptByName(name string) bool {
	for _, pkg := range p.Packages {
		for _, sc := range pkg.Scripts {
			if sc.Name == name {
				return true
			}
		}
	}
	return false
}

// hasDep reports whether some package depends on name.
func (p *Project) hasDep(name string) bool {
	for _, pkg := range p.Packages {
		if pkg.Deps[name] {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
