package shellcmd

import (
	"path"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// docker compose (and docker-compose, podman compose) runs containers as
// its compose file describes them: where the caller gives the file, its
// bind mounts are walked as the docker run they amount to
// ([Command.Guessed]), for the rules that judge what a container may
// mount (a compose file's ~:/h is docker run -v ~:/h).

// runsCompose walks what a compose command starts. name is the program;
// args its words.
func (w *walker) runsCompose(idx int, name string, args []word) {
	d := w.st.disk
	if d.FindUp == nil || d.File == nil {
		return
	}
	i := 0
	if name != "docker-compose" && name != "podman-compose" {
		for i < len(args) && strings.HasPrefix(args[i].s, "-") { // the engine's own options
			i++
		}
		if i >= len(args) || args[i].s != "compose" {
			return
		}
		i++
	}
	c := &w.st.line.Commands[idx]
	if w.writesAny(taskfile.ComposeFiles) {
		c.Unknown = "compose starts the containers of its compose file, which the line writes earlier"
		return
	}
	var files []string
	dirs, unknown := c.Dirs, c.DirUnknown
	sub := ""
	for ; i < len(args); i++ {
		a := args[i]
		opt, v, eq := strings.Cut(a.s, "=")
		switch {
		case opt == "-f" || opt == "--file" || opt == "--project-directory":
			if !eq && i+1 < len(args) {
				i++
				v, a = args[i].s, args[i]
			}
			if a.dyn || v == "" {
				c.Unknown = "compose: its file is only known at run time"
				return
			}
			if opt == "--project-directory" {
				dirs = append(dirs[:len(dirs):len(dirs)], v)
			} else {
				files = append(files, v)
			}
		case opt == "-p" || opt == "--project-name" || opt == "--env-file" || opt == "--profile" || opt == "--ansi" || opt == "--progress":
			if !eq {
				i++ // its value
			}
		case strings.HasPrefix(a.s, "-"):
		default:
			if sub == "" {
				sub = a.s
			}
		}
		if sub != "" {
			break
		}
	}
	switch sub {
	case "up", "run", "create", "start", "restart":
	default:
		return // ps, logs, down, build, pull, config, exec (a command in a running container)
	}
	var volumes []string
	read := func(text, why string) bool {
		if why != "" {
			c.Unknown = why
			return false
		}
		v, ok := taskfile.ComposeVolumes(text)
		if !ok {
			c.Unknown = "its compose file has more mounts than are read"
			return false
		}
		volumes = append(volumes, v...)
		return true
	}
	dir := ""
	if len(files) == 0 {
		for _, n := range taskfile.ComposeFiles {
			text, at, why := d.FindUp(dirs, unknown, n)
			if text != "" || why != "" {
				if !read(text, why) {
					return
				}
				dir = at
				break
			}
		}
	}
	for _, f := range files {
		text, at, why := d.File(dirs, unknown, []string{f})
		if !read(text, why) {
			return
		}
		dir = path.Dir(path.Join(at, f)) // its relative paths are from its folder
	}
	if len(volumes) == 0 {
		return
	}
	run := "docker run"
	for _, v := range volumes {
		run += " -v " + Quote(v)
	}
	if unknown {
		dir = ""
	}
	w.mayRun(idx, []string{run + " compose-service"}, dir)
}
