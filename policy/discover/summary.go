package discover

// Summaries of a scan as data: what the MCP server's discovery tools answer
// and what a refiner (policy --init --refine-with) is sent.

// FeedbackLoop is one project command the scan found (FeedbackLoopsOf).
type FeedbackLoop struct {
	Command  string   `json:"command"`
	Argv     []string `json:"argv"`
	Category string   `json:"category,omitempty"` // test, build, lint, install, task, risky; "" when not proposed
	Proposed bool     `json:"proposed"`
	Why      string   `json:"why,omitempty"` // why it is not proposed
	Sources  []string `json:"sources"`
}

// FeedbackLoops is the project's commands, as policy --init considers them.
type FeedbackLoops struct {
	Root     string         `json:"root"`
	Commands []FeedbackLoop `json:"commands"`
	Notes    []string       `json:"notes,omitempty"`
}

// Environment is the project's toolchains, package manager, workspaces, task runners and CI.
type Environment struct {
	Root           string       `json:"root"`
	Toolchains     []Toolchain  `json:"toolchains"`
	PackageManager *PackageMgr  `json:"package_manager,omitempty"`
	Workspaces     []Workspace  `json:"workspaces"`
	TaskRunners    []TaskRunner `json:"task_runners"`
	CI             []CIWorkflow `json:"ci"`
	Notes          []string     `json:"notes,omitempty"`
}

// Toolchain is a language found at the root.
type Toolchain struct {
	Name     string   `json:"name"`
	Evidence string   `json:"evidence"`
	Commands []string `json:"commands"`
}

// PackageMgr is the package manager that runs package.json scripts.
type PackageMgr struct {
	Name     string `json:"name"`
	From     string `json:"from"` // the packageManager field, a lockfile, or "default"
	Lockfile string `json:"lockfile,omitempty"`
}

// Workspace is one package.json.
type Workspace struct {
	Dir     string   `json:"dir"`
	File    string   `json:"file"`
	Name    string   `json:"name,omitempty"`
	Scripts []string `json:"scripts"`
}

// TaskRunner is a task runner's configuration and its public tasks.
type TaskRunner struct {
	Name  string   `json:"name"` // make, just, mise, nox, tox
	Tasks []string `json:"tasks"`
}

// CIWorkflow is one CI workflow file and how many commands its run steps hold.
type CIWorkflow struct {
	File     string `json:"file"`
	Commands int    `json:"commands"`
}

// FeedbackLoopsOf lists the commands of a proposal: test, build, lint,
// install and task commands, with their sources.
func FeedbackLoopsOf(p *Project, prop Proposal) FeedbackLoops {
	out := FeedbackLoops{Root: p.Root, Commands: []FeedbackLoop{}, Notes: p.Notes}
	for _, c := range prop.Commands {
		out.Commands = append(out.Commands, FeedbackLoop{Command: c.Text, Argv: c.Argv, Category: string(c.Category),
			Proposed: c.Category != "", Why: c.Why, Sources: c.Sources})
	}
	return out
}

// EnvironmentOf reports a scan's toolchains, package manager, workspaces,
// task runners and CI.
func EnvironmentOf(p *Project) Environment {
	out := Environment{Root: p.Root, Toolchains: []Toolchain{}, Workspaces: []Workspace{}, TaskRunners: []TaskRunner{}, CI: []CIWorkflow{}, Notes: p.Notes}
	for _, l := range p.Languages {
		cmds := l.Commands
		if cmds == nil {
			cmds = []string{}
		}
		out.Toolchains = append(out.Toolchains, Toolchain{Name: l.Name, Evidence: l.Evidence, Commands: cmds})
	}
	if p.PackageManager != "" {
		out.PackageManager = &PackageMgr{Name: p.PackageManager, From: p.PackageManagerFrom, Lockfile: p.Lockfile}
	}
	for _, pk := range p.Packages {
		w := Workspace{Dir: pk.Dir, File: pk.File, Name: pk.Name, Scripts: []string{}}
		for _, sc := range pk.Scripts {
			w.Scripts = append(w.Scripts, sc.Name)
		}
		out.Workspaces = append(out.Workspaces, w)
	}
	runner := func(name string, tasks []Task) {
		if len(tasks) == 0 {
			return
		}
		r := TaskRunner{Name: name, Tasks: []string{}}
		for _, t := range tasks {
			if !t.Private {
				r.Tasks = append(r.Tasks, t.Name)
			}
		}
		out.TaskRunners = append(out.TaskRunners, r)
	}
	runner("make", p.MakeTargets)
	runner("just", p.JustRecipes)
	runner("mise", p.MiseTasks)
	runner("nox", p.NoxSessions)
	runner("tox", p.ToxEnvs)
	idx := map[string]int{}
	for _, w := range p.Workflows {
		i, ok := idx[w.File]
		if !ok {
			i = len(out.CI)
			idx[w.File] = i
			out.CI = append(out.CI, CIWorkflow{File: w.File})
		}
		out.CI[i].Commands++
	}
	return out
}
