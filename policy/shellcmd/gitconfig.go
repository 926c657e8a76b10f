package shellcmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitSetting is one configuration setting a git command is given (-c,
// --config-env, GIT_CONFIG_KEY_n, GIT_CONFIG_PARAMETERS) or that git
// config writes.
type gitSetting struct {
	key, value string
	keyDyn     bool   // the key is only known at run time
	valueDyn   bool   // the value is
	where      string // how it is given, for reasons
}

// gitIndirect walks what a git command runs besides git: the alias its
// subcommand names when its own configuration defines it, the shell
// commands of configuration it is given, what git config sets for later
// commands (judged where it is set: an alias, a forced push refspec, a
// mirror remote, a shell command), and the push of git send-pack and
// http-push. Configuration that is not static, or read from a file
// (include.path, GIT_CONFIG_GLOBAL), makes the command unknown.
func (w *walker) gitIndirect(idx int, l []word) {
	args := l[1:]
	var settings []gitSetting
	i := 0
	if len(args) > 0 && strings.HasPrefix(args[0].s, "-") { // global options: most git commands have none
		texts := strs(args)
		for i < len(args) {
			n, _ := gitGlobal(texts[i:])
			if n == 0 {
				break
			}
			if s, ok := gitOptionSetting(args[i : i+n]); ok {
				settings = append(settings, s)
			}
			i += n
		}
	}
	c := &w.st.line.Commands[idx]
	env := c.Assigns
	if len(w.st.gitEnv) > 0 {
		env = append(slices.Clip(w.st.gitEnv), env...)
	}
	settings = append(settings, gitEnvSettings(env)...)
	var sub word
	var rest []word
	if i < len(args) {
		sub, rest = args[i], args[i+1:]
	}
	// The repository it works in: -C folders, unless --git-dir or
	// GIT_DIR names another.
	var dirs []string
	elsewhere := slices.ContainsFunc(c.Assigns, func(a string) bool {
		return strings.HasPrefix(a, "GIT_DIR=") || strings.HasPrefix(a, "GIT_WORK_TREE=")
	})
	for k := 0; k < i; k++ {
		switch a := args[k]; {
		case a.s == "-C" && k+1 < i:
			k++
			elsewhere = elsewhere || args[k].dyn
			dirs = append(dirs, args[k].s)
		case strings.HasPrefix(a.s, "--git-dir") || strings.HasPrefix(a.s, "--work-tree"):
			elsewhere = true
		}
	}
	w.gitOnDisk(idx, &sub, rest, dirs, elsewhere)
	if w.st.line.Commands[idx].Unknown != "" {
		return
	}
	for _, s := range settings {
		if why := w.gitApply(idx, s, &sub, rest, settings); why != "" {
			w.st.line.Commands[idx].Unknown = why
			return
		}
	}
	if sub.dyn {
		return
	}
	switch sub.s {
	case "config":
		s, ok, why := gitConfigWrite(rest)
		if why == "" && ok {
			why = w.gitApply(idx, s, nil, nil, nil)
		}
		if why != "" {
			w.st.line.Commands[idx].Unknown = why
		}
	default:
		w.gitRuns(idx, sub.s, rest)
	case "send-pack", "http-push":
		// Plumbing that pushes: --force, --mirror and +refspecs as push's.
		implied := Command{Assigns: c.Assigns, Redirects: c.Redirects, Substitution: c.Substitution, Depth: c.Depth,
			Implied: "git " + sub.s + " pushes"}
		w.simple(append([]word{{s: "git"}, {s: "push"}}, rest...), implied, outerLayers{}, nil)
	}
}

// gitRuns walks the shell commands a git subcommand is given on its
// command line and runs: git submodule foreach CMD (in each submodule),
// git bisect run CMD ARGS, git rebase -x/--exec CMD, git difftool
// -x/--extcmd CMD, and the programs run in place of git-upload-pack and
// git-receive-pack (--upload-pack, clone -u, --receive-pack, --exec),
// which get arguments at run time. A command that is not static makes the
// git command unknown.
func (w *walker) gitRuns(idx int, sub string, rest []word) {
	var scripts []script
	elsewhere := false
	why := ""
	add := func(what string, v word, runtime bool) {
		if why != "" {
			return
		}
		if v.dyn {
			why = fmt.Sprintf("git %s: the command %q is not static", what, v.s)
			return
		}
		sc := script{src: v.s}
		if runtime {
			sc.runtime, sc.appendBy = true, "git"
		}
		scripts = append(scripts, sc)
	}
	// opt finds the options named (a short letter, long names that may be
	// abbreviated to at least minLong letters) whose value is a command; a
	// short cluster ends at the first of valueLetters, which takes the rest
	// of the word or the next one.
	opt := func(what string, short byte, valueLetters string, minLong int, runtime bool, longs ...string) {
		for i := 0; i < len(rest); i++ {
			x := rest[i]
			if x.s == "--" && !x.dyn {
				return
			}
			if strings.HasPrefix(x.s, "--") {
				name, v, eq := strings.Cut(x.s[2:], "=")
				for _, l := range longs {
					if name == l || len(name) >= minLong && strings.HasPrefix(l, name) {
						val := word{s: v, dyn: x.dyn}
						if !eq && i+1 < len(rest) {
							i++
							val = rest[i]
						}
						add(what+" --"+l, val, runtime)
						break
					}
				}
				continue
			}
			if short == 0 || len(x.s) < 2 || x.s[0] != '-' {
				continue
			}
			for j := 1; j < len(x.s); j++ {
				c := x.s[j]
				if c != short && strings.IndexByte(valueLetters, c) < 0 {
					continue
				}
				v := word{s: x.s[j+1:], dyn: x.dyn}
				if v.s == "" && i+1 < len(rest) {
					i++
					v = rest[i]
				}
				if c == short {
					add(what+" -"+string(short), v, runtime)
				}
				break
			}
		}
	}
	switch sub {
	case "submodule":
		// git submodule [--quiet] foreach [--recursive] CMD...: one word is
		// shell text, more are joined.
		for i, x := range rest {
			if x.s != "foreach" || x.dyn {
				continue
			}
			j := i + 1
			for j < len(rest) && strings.HasPrefix(rest[j].s, "-") && !rest[j].dyn {
				if rest[j].s == "--" {
					j++
					break
				}
				j++
			}
			if j < len(rest) {
				if r := allStatic("git submodule foreach", rest[j:]); r != "" {
					why = r
				} else {
					scripts = append(scripts, script{src: join(rest[j:])})
				}
			}
			elsewhere = true // in each submodule's folder
			break
		}
	case "bisect":
		if len(rest) > 1 && rest[0].s == "run" && !rest[0].dyn {
			if r := allStatic("git bisect run", rest[1:]); r != "" {
				why = r
			} else {
				scripts = append(scripts, script{src: joinQuoted(rest[1:], true)})
			}
		}
	case "rebase":
		opt("rebase", 'x', "sXCS", 3, false, "exec")
	case "difftool", "mergetool":
		opt(sub, 'x', "tO", 3, true, "extcmd")
	case "fetch", "pull", "ls-remote":
		opt(sub, 0, "", 3, true, "upload-pack")
	case "clone":
		opt(sub, 'u', "obcj", 3, true, "upload-pack")
	case "archive":
		opt(sub, 0, "", 3, true, "exec")
	case "push":
		opt(sub, 0, "", 3, true, "receive-pack", "exec")
	}
	// A remote URL ext::CMD makes git run CMD (git-remote-ext), wherever a
	// subcommand takes a URL.
	for _, x := range rest {
		if !strings.HasPrefix(strings.TrimPrefix(x.s, "--url="), "ext::") {
			continue
		}
		if x.dyn {
			why = fmt.Sprintf("git %s: the ext:: remote %q is not static", sub, x.s)
			break
		}
		scripts = append(scripts, script{src: extCommand(strings.TrimPrefix(x.s, "--url="))})
	}
	c := &w.st.line.Commands[idx]
	if why != "" {
		c.Unknown = why
		return
	}
	if elsewhere && len(scripts) > 0 {
		c.Dirs, c.DirUnknown = nil, true
	}
	for _, sc := range scripts {
		w.body(idx, sc)
	}
}

// gitApply walks what one setting makes git run, or says why that cannot
// be known. sub and rest are the subcommand that uses it and its
// arguments, or nil for a setting git config writes, which is judged as
// used by any later command with any arguments; aliases are the settings
// given with it, carried into an alias's expansion.
func (w *walker) gitApply(idx int, s gitSetting, sub *word, rest []word, aliases []gitSetting) string {
	if s.keyDyn {
		return fmt.Sprintf("git: configuration %s is not static", s.where)
	}
	section, subsection, name := gitKey(s.key)
	static := func(run func()) string {
		if s.valueDyn {
			return fmt.Sprintf("git: %s is not static", s.where)
		}
		run()
		return ""
	}
	switch {
	case section == "alias" && subsection == "":
		if sub != nil && !sub.dyn && strings.ToLower(sub.s) != name {
			return "" // defines an alias this command does not use
		}
		return static(func() { w.body(idx, gitAliasScript(s.value, aliases, sub, rest)) })
	case section == "include" || section == "includeif":
		return fmt.Sprintf("git: %s reads configuration from %s, which may define what runs", s.where, s.value)
	case section == "remote" && name == "push":
		return static(func() { w.body(idx, script{src: "git push " + Quote(subsection) + " " + Quote(s.value)}) })
	case section == "remote" && name == "mirror":
		return static(func() {
			if b, ok := gitBool(s.value); b || !ok {
				w.body(idx, script{src: "git push --mirror " + Quote(subsection)})
			}
		})
	case (section == "remote" && (name == "url" || name == "pushurl") || section == "url" && (name == "insteadof" || name == "pushinsteadof")) &&
		strings.HasPrefix(strings.TrimSpace(s.value), "ext::") || section == "url" && strings.HasPrefix(subsection, "ext::"):
		// A remote, or a rewrite of URLs, that runs a command.
		return static(func() {
			v := s.value
			if section == "url" {
				v = subsection
			}
			w.body(idx, script{src: extCommand(strings.TrimSpace(v))})
		})
	case gitRunsValue(section, subsection, name):
		return static(func() {
			src, ok := gitCommandValue(section, name, s.value)
			if ok {
				w.body(idx, script{src: src, runtime: true, appendBy: "git"})
			}
		})
	}
	return ""
}

// gitKey splits a configuration key into its section and name, lower
// case, and its subsection as written (remote.Origin.push).
func gitKey(key string) (section, subsection, name string) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key), "", ""
	}
	section, name = strings.ToLower(key[:first]), strings.ToLower(key[last+1:])
	if last > first {
		subsection = key[first+1 : last]
	}
	return section, subsection, name
}

// gitRunsValue reports configuration whose value is a command git runs
// with a shell.
func gitRunsValue(section, subsection, name string) bool {
	switch section + "." + name {
	case "core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.fsmonitor", "core.gitproxy",
		"sequence.editor", "diff.external", "diff.textconv", "diff.command", "filter.clean", "filter.smudge",
		"filter.process", "merge.driver", "mergetool.cmd", "difftool.cmd", "credential.helper", "gpg.program",
		"uploadpack.packobjectshook", "core.alternaterefscommand", "interactive.difffilter":
		return true
	}
	if section == "remote" && subsection != "" && (name == "uploadpack" || name == "receivepack") {
		return true // the program run in place of git-upload-pack, -receive-pack
	}
	return section == "pager" && subsection == ""
}

// gitCommandValue is the shell command of such a value: none for a
// boolean (pager.log=false, core.fsmonitor=true) or a credential helper
// that names a git-credential-* program; a "!" helper is shell text.
func gitCommandValue(section, name, value string) (string, bool) {
	if _, isBool := gitBool(value); isBool && (section == "pager" || name == "fsmonitor") {
		return "", false
	}
	if name == "helper" {
		src, shell := strings.CutPrefix(value, "!")
		return src, shell
	}
	return value, value != ""
}

// gitBool reads a configuration boolean; ok is false when v is none.
func gitBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1", "":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// gitAliasScript is what an alias runs: a "!" alias its shell text, else
// git with the alias's words (and, when they start with another alias
// given with it, the aliases given with it), followed by the arguments
// after the alias's name: static ones written in, else (or for an alias
// git config defines) arguments given at run time.
func gitAliasScript(value string, aliases []gitSetting, sub *word, rest []word) script {
	var b strings.Builder
	if src, shell := strings.CutPrefix(value, "!"); shell {
		b.WriteString(src)
	} else {
		b.WriteString("git")
		first, _, _ := strings.Cut(strings.TrimSpace(value), " ")
		if slices.ContainsFunc(aliases, func(a gitSetting) bool { return aliasName(a) == strings.ToLower(first) }) {
			for _, a := range aliases {
				if aliasName(a) != "" {
					b.WriteString(" -c " + Quote(a.key+"="+a.value))
				}
			}
		}
		b.WriteString(" " + value)
	}
	if sub == nil || sub.dyn || slices.ContainsFunc(rest, func(x word) bool { return x.dyn }) {
		return script{src: b.String(), runtime: true, appendBy: "git alias"}
	}
	for _, x := range rest {
		b.WriteString(" " + Quote(x.s))
	}
	return script{src: b.String()}
}

// aliasName is the alias a static setting defines, in lower case, or "".
func aliasName(a gitSetting) string {
	section, subsection, name := gitKey(a.key)
	if section != "alias" || subsection != "" || a.keyDyn || a.valueDyn {
		return ""
	}
	return name
}

// Quote quotes s as one word for bash (and, where s is printable, any
// POSIX shell).
func Quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

// gitOptionSetting reads one global option of git that gives it
// configuration: -c KEY=VALUE (a KEY alone is true) or --config-env
// KEY=ENVVAR (its value is the environment's).
func gitOptionSetting(ws []word) (gitSetting, bool) {
	opt := ws[0].s
	var kv word
	switch {
	case len(ws) == 2 && (opt == "-c" || opt == "--config-env"):
		kv = ws[1]
	case strings.HasPrefix(opt, "--config-env="):
		kv = word{s: opt[len("--config-env="):], dyn: ws[0].dyn, shape: strings.TrimPrefix(shapeOf(ws[0]), "--config-env=")}
	case strings.HasPrefix(opt, "-c") && len(opt) > 2:
		kv = word{s: opt[2:], dyn: ws[0].dyn, shape: strings.TrimPrefix(shapeOf(ws[0]), "-c")}
	default:
		return gitSetting{}, false
	}
	s := settingOf(kv, opt+" "+kv.s)
	if strings.HasPrefix(opt, "--config-env") {
		s.valueDyn = true // read from the environment
	}
	return s, true
}

// settingOf reads KEY=VALUE from a word: its key is not static when a
// run-time part comes before the "=".
func settingOf(kv word, where string) gitSetting {
	shape := shapeOf(kv)
	eq, dyn := strings.IndexByte(shape, '='), strings.IndexAny(shape, markers)
	s := gitSetting{where: where}
	s.keyDyn = dyn >= 0 && (eq < 0 || dyn < eq)
	s.valueDyn = dyn >= 0 && !s.keyDyn
	if eq < 0 {
		s.key, s.value = kv.s, "true"
		return s
	}
	s.key, s.value, _ = strings.Cut(kv.s, "=")
	return s
}

// gitEnvSettings reads the configuration that environment assignments
// give git: GIT_CONFIG_KEY_n with GIT_CONFIG_VALUE_n, GIT_CONFIG_PARAMETERS,
// and the variables that name commands (GIT_SSH_COMMAND, GIT_PAGER,
// ...: see gitEnvKey); GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and
// GIT_CONFIG name files to read, as an include does. A value holding an
// expansion is not static.
func gitEnvSettings(assigns []string) []gitSetting {
	if !slices.ContainsFunc(assigns, func(a string) bool {
		name, _, _ := strings.Cut(a, "=")
		return strings.HasPrefix(a, "GIT_") || gitEnvKey(name) != ""
	}) {
		return nil
	}
	keys, values := map[int]string{}, map[int]string{}
	var out []gitSetting
	for _, a := range assigns {
		name, v, _ := strings.Cut(a, "=")
		dyn := hasExpansion(v)
		switch {
		case strings.HasPrefix(name, "GIT_CONFIG_KEY_"):
			if n, err := strconv.Atoi(name[len("GIT_CONFIG_KEY_"):]); err == nil {
				keys[n] = v
			}
		case strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
			if n, err := strconv.Atoi(name[len("GIT_CONFIG_VALUE_"):]); err == nil {
				values[n] = v
			}
		case name == "GIT_CONFIG_PARAMETERS":
			out = append(out, gitParameters(v, dyn)...)
		case gitEnvKey(name) != "":
			out = append(out, gitSetting{key: gitEnvKey(name), value: v, valueDyn: dyn, where: name + "=" + v})
		case name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM" || name == "GIT_CONFIG":
			if v != "/dev/null" {
				out = append(out, gitSetting{key: "include.path", value: v, where: name})
			}
		}
	}
	ns := make([]int, 0, len(keys))
	for n := range keys {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	for _, n := range ns {
		where := fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, keys[n])
		out = append(out, gitSetting{key: keys[n], value: values[n], keyDyn: hasExpansion(keys[n]),
			valueDyn: hasExpansion(values[n]), where: where})
	}
	return out
}

// gitEnvKey is the configuration key an environment variable stands in
// for, when its value is a command git runs with a shell.
func gitEnvKey(name string) string {
	switch name {
	case "GIT_SSH_COMMAND":
		return "core.sshCommand"
	case "GIT_PAGER":
		return "core.pager"
	case "GIT_EDITOR":
		return "core.editor"
	case "GIT_ASKPASS":
		return "core.askPass"
	case "GIT_PROXY_COMMAND":
		return "core.gitProxy"
	case "GIT_SEQUENCE_EDITOR":
		return "sequence.editor"
	case "GIT_EXTERNAL_DIFF":
		return "diff.external"
	case "EDITOR", "VISUAL": // git's editor when neither GIT_EDITOR nor core.editor is set
		return "core.editor"
	case "PAGER": // its pager likewise
		return "core.pager"
	case "SSH_ASKPASS":
		return "core.askPass"
	}
	return ""
}

// gitParameters reads GIT_CONFIG_PARAMETERS, 'KEY=VALUE' words as git
// quotes them; one that is not static may hold any key.
func gitParameters(v string, dyn bool) []gitSetting {
	if dyn {
		return []gitSetting{{keyDyn: true, where: "GIT_CONFIG_PARAMETERS=" + v}}
	}
	words, ok := splitString(v)
	if !ok {
		return []gitSetting{{keyDyn: true, where: "GIT_CONFIG_PARAMETERS=" + v}}
	}
	out := make([]gitSetting, 0, len(words))
	for _, kv := range words {
		out = append(out, settingOf(word{s: kv}, "GIT_CONFIG_PARAMETERS "+kv))
	}
	return out
}

// gitConfigWrite reads the setting a git config command writes (git
// config [options] NAME VALUE, git config set NAME VALUE); ok is false
// when it writes none (it reads, lists, removes or edits). A name that is
// not static may be any.
func gitConfigWrite(rest []word) (s gitSetting, ok bool, why string) {
	var operands []word
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		if x.dyn || !strings.HasPrefix(x.s, "-") || x.s == "-" {
			operands = append(operands, x)
			continue
		}
		name, _, eq := strings.Cut(x.s, "=")
		switch name {
		case "-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url":
			if !eq {
				i++ // the option's value
			}
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
			"--unset", "--unset-all", "--rename-section", "--remove-section", "-l", "--list", "-e", "--edit":
			return s, false, ""
		}
	}
	if len(operands) > 0 && !operands[0].dyn {
		switch operands[0].s {
		case "set":
			operands = operands[1:]
		case "get", "list", "unset", "rename-section", "remove-section", "edit":
			return s, false, ""
		}
	}
	if len(operands) < 2 {
		return s, false, ""
	}
	key, value := operands[0], operands[1]
	where := "git config " + key.s
	if key.dyn {
		return s, false, fmt.Sprintf("git config: name %q is not static", key.s)
	}
	return gitSetting{key: key.s, value: value.s, valueDyn: value.dyn, where: where}, true, ""
}

// extCommand is the command line git runs for the remote URL ext::CMD
// (git-remote-ext): words separated by spaces, where "% " is a space
// inside a word and "%%" a %; %s, %S and %G, which git fills in, are
// read as git-upload-pack. The words are quoted for the shell.
func extCommand(url string) string {
	cmd := strings.TrimPrefix(url, "ext::")
	var words []word
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '%' && i+1 < len(cmd):
			i++
			switch cmd[i] {
			case ' ', '%':
				b.WriteByte(cmd[i])
			case 's', 'S', 'G':
				b.WriteString("git-upload-pack")
			}
		case c == ' ':
			if b.Len() > 0 {
				words = append(words, word{s: b.String()})
				b.Reset()
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		words = append(words, word{s: b.String()})
	}
	return joinQuoted(words, true)
}
