package discover

import "bytes"

// Language is a toolchain found at the root, with the commands it usually
// runs: test, build, lint and a lockfile-respecting install.
type Language struct {
	Name     string // go, node, python, rust, ruby, java
	Evidence string // the file that shows it
	Commands []string
}

func (s *scanner) scanLanguages() {
	p := s.p
	add := func(name, evidence string, cmds ...string) {
		p.Languages = append(p.Languages, Language{Name: name, Evidence: evidence, Commands: cmds})
	}
	if s.exists("go.mod") {
		add("go", "go.mod", "go build ./...", "go test ./...", "go vet ./...")
	}
	if s.exists("package.json") {
		var cmds []string
		switch {
		case p.Lockfile == "":
		case p.PackageManager == "npm":
			cmds = append(cmds, "npm ci")
		case p.PackageManager == "pnpm":
			cmds = append(cmds, "pnpm install --frozen-lockfile")
		case p.PackageManager == "yarn" && p.YarnBerry:
			cmds = append(cmds, "yarn install --immutable")
		case p.PackageManager == "yarn":
			cmds = append(cmds, "yarn install --frozen-lockfile")
		case p.PackageManager == "bun":
			cmds = append(cmds, "bun install --frozen-lockfile")
		}
		add("node", "package.json", cmds...)
	}
	if ev := s.firstExisting("pyproject.toml", "requirements.txt", "setup.py", "setup.cfg", "Pipfile"); ev != "" {
		s.python(ev)
	}
	if s.exists("Cargo.toml") {
		add("rust", "Cargo.toml", "cargo build", "cargo test", "cargo clippy", "cargo fmt --check")
	}
	if s.exists("Gemfile") {
		gemfile, _ := s.read("Gemfile")
		cmds := []string{"bundle install"}
		if s.exists("Rakefile") {
			cmds = append(cmds, "bundle exec rake")
		}
		if s.isDir("spec") || bytes.Contains(gemfile, []byte("rspec")) {
			cmds = append(cmds, "bundle exec rspec")
		}
		if s.exists(".rubocop.yml") || bytes.Contains(gemfile, []byte("rubocop")) {
			cmds = append(cmds, "bundle exec rubocop")
		}
		add("ruby", "Gemfile", cmds...)
	}
	if s.exists("pom.xml") {
		mvn := "mvn"
		if s.exists("mvnw") {
			mvn = "./mvnw"
		}
		add("java", "pom.xml", mvn+" test", mvn+" verify")
	} else if ev := s.firstExisting("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"); ev != "" {
		gradle := "gradle"
		if s.exists("gradlew") {
			gradle = "./gradlew"
		}
		add("java", ev, gradle+" build", gradle+" test", gradle+" check")
	}
}

// python adds the Python toolchain: pytest, the project's installer (uv,
// poetry or pip with its requirements files), and the linters its
// configuration mentions.
func (s *scanner) python(evidence string) {
	var text []byte
	for _, f := range []string{"pyproject.toml", "setup.cfg", "requirements.txt", "requirements-dev.txt", "tox.ini"} {
		if s.exists(f) {
			if data, ok := s.read(f); ok {
				text = append(append(text, data...), '\n')
			}
		}
	}
	mentions := func(tool string) bool { return bytes.Contains(bytes.ToLower(text), []byte(tool)) }
	var cmds []string
	switch {
	case s.exists("uv.lock"):
		cmds = append(cmds, "uv sync", "uv run pytest")
	case s.exists("poetry.lock"):
		cmds = append(cmds, "poetry install", "poetry run pytest")
	case s.exists("pdm.lock"):
		cmds = append(cmds, "pdm install", "pdm run pytest")
	case mentions("[tool.hatch"):
		cmds = append(cmds, "hatch test")
	default:
		for _, f := range []string{"requirements.txt", "requirements-dev.txt"} {
			if s.exists(f) {
				cmds = append(cmds, "pip install -r "+f)
			}
		}
	}
	cmds = append(cmds, "pytest", "python -m pytest")
	if mentions("ruff") {
		cmds = append(cmds, "ruff check .", "ruff format --check .")
	}
	if mentions("mypy") {
		cmds = append(cmds, "mypy .")
	}
	if mentions("black") {
		cmds = append(cmds, "black --check .")
	}
	// tox and nox run their env_list or default sessions (asked: either
	// alone would be a prefix of every environment and session); each
	// environment and session is proposed by name (see collect).
	if s.p.Tox {
		cmds = append(cmds, "tox")
	}
	if s.exists("noxfile.py") {
		cmds = append(cmds, "nox")
	}
	s.p.Languages = append(s.p.Languages, Language{Name: "python", Evidence: evidence, Commands: cmds})
}

func (s *scanner) firstExisting(files ...string) string {
	for _, f := range files {
		if s.exists(f) {
			return f
		}
	}
	return ""
}
