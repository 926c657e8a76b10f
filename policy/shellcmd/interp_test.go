package shellcmd

import (
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// interpParseTests: what Parse finds below an interpreter one-liner (the
// commands after the first, rendered as in parseTests), and a part of the
// one-liner's Unknown ("" when it is known).
var interpParseTests = []struct {
	in      string
	nested  []string
	unknown string
}{
	// Python: shell strings, argv lists, wrappers around the interpreter.
	{`python3 -c "import os; os.system('rm -rf /')"`, []string{"rm -rf / @1"}, ""},
	{`python -c 'import os; os.popen("git reset --hard").read()'`, []string{"git reset --hard @1"}, ""},
	{`python3 -c "import subprocess; subprocess.run(['rm','-rf','/'])"`, []string{"rm -rf / @1"}, ""},
	{`python3 -c "import subprocess as sp; sp.call('rm -rf ~', shell=True)"`, []string{"rm -rf ~ @1"}, ""},
	{`python3 -c "import subprocess; subprocess.Popen(['bash', '-c', 'rm -rf /'])"`, []string{"bash -c \"rm -rf /\" @1", "rm -rf / @2"}, ""},
	{`python3 -uc "import os; os.system('ls')"`, []string{"ls @1"}, ""},
	{`python3 -I -B -c "import os; os.system('ls')"`, []string{"ls @1"}, ""},
	{`python3.12 -W ignore -c "import os; os.system('ls')"`, []string{"ls @1"}, ""},
	{`sudo env python3 -c "import os; os.system('rm -rf /')"`, []string{"rm -rf / @1"}, ""},
	{`bash -c "python3 -c \"import os; os.system('rm -rf /')\""`, []string{"rm -rf / @2"}, ""},
	{`echo ok | xargs python -c 'import os; os.system("rm -rf /")'`, []string{"rm -rf / @1", `python -c "import os; os.system(\"rm -rf /\")" ok =implied`, "rm -rf / @1"}, ""},
	{`find . -exec python3 -c "import os; os.system('rm -rf /')" {} \;`, []string{"rm -rf / @1"}, ""},
	// Programs on standard input.
	{"python3 - <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF", []string{"rm -rf / @1"}, ""},
	{"python3 <<EOF\nimport subprocess\nsubprocess.run([\"rm\", \"-rf\", \"/\"])\nEOF", []string{"rm -rf / @1"}, ""},
	{`python3 <<< "import os; os.system('ls')"`, []string{"ls @1"}, ""},
	{`echo "import os; os.system('rm -rf /')" | python3`, []string{"rm -rf / @1"}, ""},
	{"node <<EOF\nrequire('child_process').execSync('rm -rf /');\nEOF", []string{"rm -rf / @1"}, ""},
	{"ruby <<EOF\nsystem(\"rm -rf /\")\nEOF", []string{"rm -rf / @1"}, ""},
	{"perl <<'EOF'\nsystem(\"rm -rf /\");\nEOF", []string{"rm -rf / @1"}, ""},
	{"php <<'EOF'\n<html><?php system('rm -rf /'); ?> system('ls')\nEOF", []string{"rm -rf / @1"}, ""},
	{"python3 <<EOF\nimport os; os.system('$CMD')\nEOF", nil, "heredoc script is not static"},
	{"cat x.py | python3", nil, ""},
	{"python3 script.py <<'EOF'\nimport os; os.system('ls')\nEOF", nil, ""},
	// Node, Ruby, Perl, PHP.
	{`node -e "require('child_process').execSync('rm -rf /')"`, []string{"rm -rf / @1"}, ""},
	{`node -pe 'require("child_process").execSync("rm -rf /")'`, []string{"rm -rf / @1"}, ""},
	{`node --eval="const {spawnSync} = require('child_process'); spawnSync('rm', ['-rf', '/'])"`, []string{"rm -rf / @1"}, ""},
	{`nodejs -e "child_process.exec('git push --force')"`, []string{"git push --force @1"}, ""},
	{`bun -e "Bun.spawnSync(['rm', '-rf', '/'])"`, []string{"rm -rf / @1"}, ""},
	{`deno eval "new Deno.Command('rm', {args: ['-rf', '/']}).outputSync()"`, []string{"rm -rf / @1"}, ""},
	{`ruby -e 'system("rm", "-rf", "/")'`, []string{"rm -rf / @1"}, ""},
	{"ruby -e '`rm -rf /`'", []string{"rm -rf / @1"}, ""},
	{`perl -we 'system("rm -rf /")'`, []string{"rm -rf / @1"}, ""},
	{`perl -MFile::Path -le 'print qx(git clean -fdx)'`, []string{"git clean -fdx @1"}, ""},
	{`php -r 'shell_exec("rm -rf /");'`, []string{"rm -rf / @1"}, ""},
	// Not static: consistent with bash -c "$X".
	{`python3 -c "$CODE"`, nil, "python3 -c program is not static"},
	{`python3 -c "import os; os.system(cmd)"`, nil, "python3 -c runs a command line that is not static: os.system(cmd)"},
	{`python3 -c "import os; os.system(f'rm -rf {d}')"`, nil, "not static"},
	{`node -e 'require("child_process").execSync(` + "`rm -rf ${d}`" + `)'`, nil, "node -e runs a command line that is not static"},
	{`ruby -e 'system("rm -rf #{d}")'`, nil, "ruby -e runs a command line that is not static"},
	{`perl -e 'system("rm -rf $d")'`, nil, "perl -e runs a command line that is not static"},
	{`python3 $FLAGS -c "print(1)"`, nil, "option or program"},
	// Data only, comments, other programs: no body, not unknown.
	{`python3 -c "print('rm -rf /')"`, nil, ""},
	{`node -e "console.log('rm -rf /')"`, nil, ""},
	{`python3 -c "# os.system('rm -rf /')"`, nil, ""},
	{`node -e "rm -rf /"`, nil, ""},
	{`perl -ne 'print if /rmtree/' f`, nil, ""},
	{`python3 -m pytest -k rmtree`, nil, ""},
	{`pytest -k rmtree`, nil, ""},
	{`python3 "$SCRIPT"`, nil, ""},
}

func TestInterpreterBodies(t *testing.T) {
	for _, tt := range interpParseTests {
		l := Parse(tt.in)
		checkLine(t, tt.in, l)
		if l.Err != nil || len(l.Commands) == 0 {
			t.Errorf("Parse(%q): %v, %d commands", tt.in, l.Err, len(l.Commands))
			continue
		}
		first := firstInterpreter(l)
		got := renderAll(l)[first+1:]
		if !slices.Equal(got, tt.nested) {
			t.Errorf("Parse(%q): nested\n got %q\nwant %q", tt.in, got, tt.nested)
		}
		why := l.Commands[first].Unknown
		if tt.unknown == "" && why != "" || tt.unknown != "" && !strings.Contains(why, tt.unknown) {
			t.Errorf("Parse(%q): Unknown = %q, want %q", tt.in, why, tt.unknown)
		}
	}
}

// firstInterpreter returns the index of the first command that is an
// interpreter (or pytest) in l.
func firstInterpreter(l *Line) int {
	for i, c := range l.Commands {
		switch name := c.Argv[0]; {
		case c.Code != nil, strings.HasPrefix(name, "python"), name == "pytest", name == "node",
			name == "ruby", name == "perl", name == "php":
			return i
		}
	}
	return 0
}

// TestInterpreterCode: Parse puts the scan on the command, heredoc-fed
// programs included.
func TestInterpreterCode(t *testing.T) {
	l := Parse("cd /tmp && python3 - <<'EOF'\nimport shutil as sh\nsh.rmtree('build')\nEOF")
	c := l.Commands[1]
	if c.Code == nil || !c.Code.DeletesRecursively || c.Code.Lang != "python" || !strings.Contains(c.Code.Code, "sh.rmtree") {
		t.Fatalf("Code = %+v", c.Code)
	}
	if l := Parse("python3 script.py"); l.Commands[0].Code != nil {
		t.Errorf("python3 script.py has Code %+v", l.Commands[0].Code)
	}
	if l := Parse(`perl -pi -e 's/a/b/' f`); l.Commands[0].Code == nil || !l.Commands[0].Code.ChangesFiles {
		t.Errorf("perl -pi: Code = %+v", l.Commands[0].Code)
	}
}

func py(code string) []string  { return []string{"python3", "-c", code} }
func js(code string) []string  { return []string{"node", "-e", code} }
func rb(code string) []string  { return []string{"ruby", "-e", code} }
func pl(code string) []string  { return []string{"perl", "-e", code} }
func php(code string) []string { return []string{"php", "-r", code} }
func awk(code string) []string { return []string{"awk", "--", code} }

// Facts expected of a scan: D deletes recursively, C changes files.
const (
	none = iota
	C
	D // implies C
)

// scanTests: ScanCode facts, command lines run, and a part of Unknown.
var scanTests = []struct {
	argv    []string
	facts   int
	runs    []string
	unknown string
}{
	// Python files: each API changes, and a near miss reads.
	{py("open('f', 'w').write('x')"), C, nil, ""},
	{py("open('f', mode='a')"), C, nil, ""},
	{py("with open('f', 'x') as f: pass"), C, nil, ""},
	{py("open('f', 'r+')"), C, nil, ""},
	{py("open('f', m)"), C, nil, ""},
	{py("print(open('f').read())"), none, nil, ""},
	{py("open('f', 'rb').read()"), none, nil, ""},
	{py("import json; json.load(open('f'))"), none, nil, ""},
	{py("import io; io.open('f', 'w')"), C, nil, ""},
	{py("import os; os.open('f', os.O_WRONLY | os.O_CREAT)"), C, nil, ""},
	{py("import os; os.open('f', os.O_RDONLY)"), none, nil, ""},
	{py("from pathlib import Path; Path('f').write_text('x')"), C, nil, ""},
	{py("from pathlib import Path; Path('f').write_bytes(b'x')"), C, nil, ""},
	{py("from pathlib import Path; print(Path('f').read_text())"), none, nil, ""},
	{py("import pathlib; pathlib.Path('d').mkdir(parents=True)"), C, nil, ""},
	{py("p.unlink()"), C, nil, ""},
	{py("p.touch()"), C, nil, ""},
	{py("p.rmdir()"), C, nil, ""},
	{py("p.chmod(0o644)"), C, nil, ""},
	{py("p.rename('g')"), C, nil, ""},
	{py("p.replace('g')"), C, nil, ""},
	{py("print('a-b'.replace('-', '_'))"), none, nil, ""},
	{py("print(p.exists(), p.is_dir())"), none, nil, ""},
	{py("import os; os.remove('f')"), C, nil, ""},
	{py("import os; os.unlink('f')"), C, nil, ""},
	{py("import os; os.rename('f', 'g')"), C, nil, ""},
	{py("import os; os.replace('f', 'g')"), C, nil, ""},
	{py("import os; os.mkdir('d')"), C, nil, ""},
	{py("import os; os.makedirs('d', exist_ok=True)"), C, nil, ""},
	{py("import os; os.rmdir('d')"), C, nil, ""},
	{py("import os; os.chmod('f', 0o755)"), C, nil, ""},
	{py("import os; os.chown('f', 0, 0)"), C, nil, ""},
	{py("import os; os.truncate('f', 0)"), C, nil, ""},
	{py("import os; print(os.listdir('.'), os.path.exists('f'), os.getcwd())"), none, nil, ""},
	{py("import shutil; shutil.copy('a', 'b')"), C, nil, ""},
	{py("import shutil; shutil.copy2('a', 'b')"), C, nil, ""},
	{py("import shutil; shutil.copyfile('a', 'b')"), C, nil, ""},
	{py("import shutil; shutil.copytree('a', 'b')"), C, nil, ""},
	{py("import shutil; shutil.move('a', 'b')"), C, nil, ""},
	{py("import shutil; shutil.rmtree('/')"), D, nil, ""},
	{py("import shutil; print(shutil.which('git'), shutil.disk_usage('/'))"), none, nil, ""},
	// Python aliases.
	{py("import shutil as sh; sh.rmtree('x')"), D, nil, ""},
	{py("from shutil import rmtree; rmtree('x')"), D, nil, ""},
	{py("from shutil import rmtree as r\nr('x')"), D, nil, ""},
	{py("from shutil import (copy,\n  rmtree)\nrmtree('x')"), D, nil, ""},
	{py("from shutil import *; rmtree('x')"), D, nil, ""},
	{py("import shutil; r = shutil.rmtree; r('x')"), D, nil, ""},
	{py("__import__('shutil').rmtree('x')"), D, nil, ""},
	{py("import importlib; importlib.import_module('shutil').rmtree('x')"), D, nil, ""},
	{py("import os.path as p; print(p.join('a', 'b'))"), none, nil, ""},
	{py("rmtree('x')"), none, nil, ""},
	// Python command lines.
	{py("import os; os.system('rm -rf /')"), none, []string{"rm -rf /"}, ""},
	{py(`import os; os.system("rm " + '-rf /')`), none, []string{"rm -rf /"}, ""},
	{py(`import os; os.system("rm " "-rf /")`), none, []string{"rm -rf /"}, ""},
	{py(`import os; os.system(("rm -rf /"))`), none, []string{"rm -rf /"}, ""},
	{py(`import os; os.system("""rm -rf /""")`), none, []string{"rm -rf /"}, ""},
	{py(`import os; os.system('\x72m -rf \'/\'')`), none, []string{"rm -rf '/'"}, ""},
	{py(`import os; os.system(r'rm -rf /\n')`), none, []string{`rm -rf /\n`}, ""},
	{py(`import os; os.system(f'rm -rf /')`), none, []string{"rm -rf /"}, ""},
	{py(`import os; os.system(f'rm -rf {d}')`), none, nil, "python3 -c runs a command line that is not static: os.system(f'rm -rf {d}')"},
	{py(`import os; os.system('rm -rf %s' % d)`), none, nil, "not static"},
	{py(`import os; os.system('rm -rf {}'.format(d))`), none, nil, "not static"},
	{py(`import os; os.system('rm -rf ' + d)`), none, nil, "not static"},
	{py("import os; list(map(os.system, cmds))"), none, nil, "not static"},
	{py("import os; os.popen('ls').read()"), none, []string{"ls"}, ""},
	{py("import subprocess; subprocess.run(['rm', '-rf', '/'])"), none, []string{"rm -rf /"}, ""},
	{py("import subprocess; subprocess.call(['echo', 'a b', \"it's\"])"), none, []string{`echo 'a b' "it's"`}, ""},
	{py("import subprocess; subprocess.check_call('rm -rf /', shell=True)"), none, []string{"rm -rf /"}, ""},
	{py("import subprocess; subprocess.check_output(args='ls -l', shell=True)"), none, []string{"ls -l"}, ""},
	{py("import subprocess; subprocess.Popen(['rm -rf /', 'x'], shell=True)"), none, []string{"rm -rf /"}, ""},
	{py("import subprocess; subprocess.run('rm -rf /')"), none, []string{"'rm -rf /'"}, ""},
	{py("import subprocess; subprocess.run('ls', shell=False)"), none, []string{"ls"}, ""},
	{py("import subprocess; subprocess.run(cmd, shell=True)"), none, nil, "not static"},
	{py("import subprocess; subprocess.run(['rm', '-rf', d])"), none, nil, "not static"},
	{py("import subprocess; subprocess.run(*args)"), none, nil, "not static"},
	{py("from subprocess import run; run(['git', 'reset', '--hard'])"), none, []string{"git reset --hard"}, ""},
	{py("from subprocess import *; check_call(['ls'])"), none, []string{"ls"}, ""},
	{py("import os; os.execv('/bin/rm', ['rm', '-rf', '/'])"), none, []string{"/bin/rm -rf /"}, ""},
	{py("import os; os.execvp('rm', ('rm', '-rf', '/'))"), none, []string{"rm -rf /"}, ""},
	{py("import os; os.execlp('rm', 'rm', '-rf', '/')"), none, []string{"rm -rf /"}, ""},
	{py("import os; os.execle('/bin/rm', 'rm', '-rf', '/', env)"), none, []string{"/bin/rm -rf /"}, ""},
	{py("import os; os.spawnvp(os.P_WAIT, 'rm', ['rm', '-rf', '/'])"), none, []string{"rm -rf /"}, ""},
	{py("import os; os.spawnlp(os.P_WAIT, 'rm', 'rm', '-rf', '/')"), none, []string{"rm -rf /"}, ""},
	{py("import pty; pty.spawn(['rm', '-rf', '/'])"), none, []string{"rm -rf /"}, ""},
	{py("import pty; pty.spawn('bash')"), none, []string{"bash"}, ""},
	{py("exec(\"import os; os.system('id')\")"), none, []string{"id"}, ""},
	{py("exec(open('setup.py').read())"), none, nil, ""},
	{py("print('rm -rf /'); x = 'os.system(\"id\")'"), none, nil, ""},
	{py("# os.system('rm -rf /')\nprint(1)"), none, nil, ""},
	{py("print(f\"{__import__('os').system('id')}\")"), none, []string{"id"}, ""},
	// Node files.
	{js("require('fs').writeFileSync('f', 'x')"), C, nil, ""},
	{js("fs.writeFile('f', 'x', () => {})"), C, nil, ""},
	{js("console.log(require('fs').readFileSync('f', 'utf8'))"), none, nil, ""},
	{js("fs.appendFileSync('f', 'x')"), C, nil, ""},
	{js("fs.unlinkSync('f')"), C, nil, ""},
	{js("fs.renameSync('f', 'g')"), C, nil, ""},
	{js("fs.mkdirSync('d', {recursive: true})"), C, nil, ""},
	{js("fs.copyFileSync('a', 'b')"), C, nil, ""},
	{js("fs.cpSync('a', 'b', {recursive: true})"), C, nil, ""},
	{js("fs.chmodSync('f', 0o755)"), C, nil, ""},
	{js("fs.createWriteStream('f')"), C, nil, ""},
	{js("fs.createReadStream('f').pipe(process.stdout)"), none, nil, ""},
	{js("console.log(fs.existsSync('f'), fs.statSync('f').size)"), none, nil, ""},
	{js("fs.openSync('f', 'w')"), C, nil, ""},
	{js("fs.openSync('f', 'r')"), none, nil, ""},
	{js("fs.rmSync('f')"), C, nil, ""},
	{js("fs.rmSync('d', {recursive: true, force: true})"), D, nil, ""},
	{js("fs.rmSync('d', {recursive: false})"), C, nil, ""},
	{js("fs.rmSync('d', opts)"), D, nil, ""},
	{js("fs.rm('d', {recursive: true}, () => {})"), D, nil, ""},
	{js("fs.rmdirSync('d', {recursive: true})"), D, nil, ""},
	{js("fs.rmdirSync('d')"), C, nil, ""},
	{js("require('fs').promises.rm('d', {recursive: true})"), D, nil, ""},
	{js("require('fs/promises').writeFile('f', 'x')"), C, nil, ""},
	{js("require('node:fs/promises').readFile('f')"), none, nil, ""},
	{js("Deno.removeSync('d', {recursive: true})"), D, nil, ""},
	{js("await Bun.write('f', 'x')"), C, nil, ""},
	// Node aliases.
	{js("const fs = require('fs'); fs.rmSync('d', {recursive: true})"), D, nil, ""},
	{js("const {rmSync: rm} = require('node:fs'); rm('d', {'recursive': true})"), D, nil, ""},
	{js("const {promises: fsp} = require('fs'); fsp.rm('d', {recursive: true})"), D, nil, ""},
	{js("let fsp = require('fs').promises; fsp.writeFile('f', 'x')"), C, nil, ""},
	{js("import {rmSync} from 'fs'; rmSync('d', {recursive: true})"), D, nil, ""},
	{js("import * as fs from 'node:fs'; fs.unlinkSync('f')"), C, nil, ""},
	{js("const rm = (p) => p; rm('x')"), none, nil, ""},
	// Node command lines.
	{js("require('child_process').execSync('rm -rf /')"), none, []string{"rm -rf /"}, ""},
	{js("child_process.exec('ls', (e, out) => console.log(out))"), none, []string{"ls"}, ""},
	{js("const cp = require('child_process'); cp.execFileSync('rm', ['-rf', '/'])"), none, []string{"rm -rf /"}, ""},
	{js("const {spawn} = require('child_process'); spawn('rm', ['-rf', '/'], {stdio: 'inherit'})"), none, []string{"rm -rf /"}, ""},
	{js("const {spawnSync} = require('child_process'); spawnSync('ls')"), none, []string{"ls"}, ""},
	{js("require('child_process').spawn('rm -rf /', {shell: true})"), none, []string{"rm -rf /"}, ""},
	{js("require('child_process').spawn('rm', ['-rf', '/'], {shell: true})"), none, []string{"rm -rf /"}, ""},
	{js("require('child_process').execFile('ls', (e, o) => 0)"), none, []string{"ls"}, ""},
	{js("import {execSync as run} from 'child_process'; run('git clean -fdx')"), none, []string{"git clean -fdx"}, ""},
	{js("require('child_process').execSync(`rm -rf /`)"), none, []string{"rm -rf /"}, ""},
	{js("require('child_process').execSync(`rm -rf ${d}`)"), none, nil, "node -e runs a command line that is not static"},
	{js("require('child_process').execSync('rm -rf ' + d)"), none, nil, "not static"},
	{js("require('child_process').spawn('rm', args)"), none, nil, "not static"},
	{js("[a, b].forEach(child_process.execSync)"), none, nil, "not static"},
	{js("Bun.$`rm -rf /`"), none, []string{"rm -rf /"}, ""},
	{js("console.log('rm -rf /'); // child_process.execSync('rm -rf /')"), none, nil, ""},
	{js("/* child_process.execSync('x') */ let r = /'/; console.log(r)"), none, nil, ""},
	{js("const re = /x/; re.exec('rm -rf /')"), none, nil, ""},
	{js("eval(\"require('child_process').execSync('id')\")"), none, []string{"id"}, ""},
	// Ruby.
	{rb("File.write('f', 'x')"), C, nil, ""},
	{rb("puts File.read('f')"), none, nil, ""},
	{rb("File.delete('f')"), C, nil, ""},
	{rb("File.unlink('f')"), C, nil, ""},
	{rb("File.rename('f', 'g')"), C, nil, ""},
	{rb("File.open('f', 'w') { |f| f.puts 1 }"), C, nil, ""},
	{rb("File.open('f', 'a')"), C, nil, ""},
	{rb("File.open('f', 'r:UTF-8') { |f| puts f.read }"), none, nil, ""},
	{rb("File.open('f').each_line { |l| puts l }"), none, nil, ""},
	{rb("Dir.mkdir('d')"), C, nil, ""},
	{rb("puts Dir.glob('*')"), none, nil, ""},
	{rb("require 'fileutils'; FileUtils.rm_rf('/')"), D, nil, ""},
	{rb("FileUtils.rm_r 'd'"), D, nil, ""},
	{rb("FileUtils.remove_dir('d')"), D, nil, ""},
	{rb("FileUtils::rmtree('d')"), D, nil, ""},
	{rb("FileUtils.cp('a', 'b')"), C, nil, ""},
	{rb("FileUtils.mkdir_p('d')"), C, nil, ""},
	{rb("FileUtils.touch('f')"), C, nil, ""},
	{rb("puts FileUtils.pwd, FileUtils.compare_file('a', 'b')"), none, nil, ""},
	{rb("include FileUtils; rm_rf 'd'"), D, nil, ""},
	{rb("include FileUtils; puts pwd"), none, nil, ""},
	{rb("fu = FileUtils; fu.rm_rf('d')"), D, nil, ""},
	{rb("require 'pathname'; Pathname.new('d').rmtree"), D, nil, ""},
	{rb("system('rm -rf /')"), none, []string{"rm -rf /"}, ""},
	{rb("system 'rm -rf /'"), none, []string{"rm -rf /"}, ""},
	{rb("system('rm', '-rf', '/')"), none, []string{"rm -rf /"}, ""},
	{rb("system({'A' => '1'}, 'rm', '-rf', '/', exception: true)"), none, []string{"rm -rf /"}, ""},
	{rb("exec 'ls'"), none, []string{"ls"}, ""},
	{rb("puts `ls -la`"), none, []string{"ls -la"}, ""},
	{rb("puts %x{rm -rf /}"), none, []string{"rm -rf /"}, ""},
	{rb("puts %x(ls (a))"), none, []string{"ls (a)"}, ""},
	{rb("require 'open3'; o, s = Open3.capture2('git status')"), none, []string{"git status"}, ""},
	{rb("Open3.capture3('rm', '-rf', '/')"), none, []string{"rm -rf /"}, ""},
	{rb("IO.popen('ls').read"), none, []string{"ls"}, ""},
	{rb("IO.popen(['rm', '-rf', '/']).read"), none, []string{"rm -rf /"}, ""},
	{rb("open('|rm -rf /')"), none, []string{"rm -rf /"}, ""},
	{rb("system(\"rm -rf #{dir}\")"), none, nil, "ruby -e runs a command line that is not static"},
	{rb("puts `ls #{dir}`"), none, nil, "not static"},
	{rb("system(cmd)"), none, nil, "not static"},
	{rb("puts 'rm -rf /' # system('rm -rf /')"), none, nil, ""},
	{rb("x = y ? 'a' : \"b\"; puts x % 2"), none, nil, ""},
	// Perl.
	{[]string{"perl", "-pi", "-e", "s/a/b/", "f"}, C, nil, ""},
	{[]string{"perl", "-i.bak", "-pe", "s/a/b/", "f"}, C, nil, ""},
	{[]string{"perl", "-pe", "s/a/b/", "f"}, none, nil, ""},
	{pl("unlink 'f'"), C, nil, ""},
	{pl("unlink glob('/etc/*')"), C, nil, ""},
	{pl("rename 'f', 'g'"), C, nil, ""},
	{pl("mkdir 'd'"), C, nil, ""},
	{pl("rmdir 'd'"), C, nil, ""},
	{pl("open(FH, '>f'); print FH 1"), C, nil, ""},
	{pl("open(my $fh, '>>', $f)"), C, nil, ""},
	{pl("open my $fh, '>', \"$f\""), C, nil, ""},
	{pl("open(FH, \">$f\")"), C, nil, ""},
	{pl("open(my $fh, '<', 'f'); print <$fh>"), none, nil, ""},
	{pl("open(FH, 'f'); print <FH>"), none, nil, ""},
	{pl("print -s 'f'"), none, nil, ""},
	{pl("use File::Path qw(rmtree); rmtree('d')"), D, nil, ""},
	{pl("File::Path::remove_tree('d')"), D, nil, ""},
	{[]string{"perl", "-MFile::Path=rmtree", "-e", "rmtree 'd'"}, D, nil, ""},
	{pl("path('d')->remove_tree"), D, nil, ""},
	{[]string{"perl", "-ne", "print if /rmtree/", "f"}, none, nil, ""},
	{pl("print 'rmtree', q{unlink}, \"rename\" # unlink('f')"), none, nil, ""},
	{pl("my %h = (unlink => 1); print $h{unlink}, $h{s}"), none, nil, ""},
	{pl("system('rm -rf /')"), none, []string{"rm -rf /"}, ""},
	{pl("system 'rm', '-rf', '/'"), none, []string{"rm -rf /"}, ""},
	{pl("system(qw(rm -rf /))"), none, []string{"rm -rf /"}, ""},
	{pl("system('ls', qw(-l -a)) == 0 or die"), none, []string{"ls -l -a"}, ""},
	{pl("exec 'ls'"), none, []string{"ls"}, ""},
	{pl("print `ls`"), none, []string{"ls"}, ""},
	{pl("print qx{rm -rf /}"), none, []string{"rm -rf /"}, ""},
	{pl("print qx(ls)"), none, []string{"ls"}, ""},
	{pl("print qx/ls/"), none, []string{"ls"}, ""},
	{pl("open(my $p, '-|', 'git', 'log'); print <$p>"), none, []string{"git log"}, ""},
	{pl("open(P, 'ls -l |'); print <P>"), none, []string{"ls -l "}, ""},
	{pl("$_ = 'x'; s/x/system('id')/e"), none, []string{"id"}, ""},
	{pl("system(\"rm -rf $dir\")"), none, nil, "perl -e runs a command line that is not static"},
	{pl("print `ls $dir`"), none, nil, "not static"},
	{pl("system(@cmd)"), none, nil, "not static"},
	{pl("print 'rm -rf /'"), none, nil, ""},
	{pl("# system('rm -rf /')\nprint 1"), none, nil, ""},
	{pl("my $x = $#a; print \"a\" =~ /'/ ? 1 : 0"), none, nil, ""},
	// PHP.
	{php("file_put_contents('f', 'x');"), C, nil, ""},
	{php("echo file_get_contents('f');"), none, nil, ""},
	{php("unlink('f');"), C, nil, ""},
	{php("rename('f', 'g');"), C, nil, ""},
	{php("mkdir('d');"), C, nil, ""},
	{php("rmdir('d');"), C, nil, ""},
	{php("copy('a', 'b');"), C, nil, ""},
	{php("$f = fopen('f', 'w');"), C, nil, ""},
	{php("$f = fopen('f', 'a+');"), C, nil, ""},
	{php("$f = fopen('f', 'r'); echo fgets($f);"), none, nil, ""},
	{php("echo is_file('f') ? 1 : 0;"), none, nil, ""},
	{php("system('rm -rf /');"), none, []string{"rm -rf /"}, ""},
	{php("SYSTEM('ls');"), none, []string{"ls"}, ""},
	{php("exec('ls', $out);"), none, []string{"ls"}, ""},
	{php("echo shell_exec('ls');"), none, []string{"ls"}, ""},
	{php("passthru('ls');"), none, []string{"ls"}, ""},
	{php("$p = popen('ls', 'r');"), none, []string{"ls"}, ""},
	{php("proc_open('ls', [], $pipes);"), none, []string{"ls"}, ""},
	{php("proc_open(['rm', '-rf', '/'], [], $pipes);"), none, []string{"rm -rf /"}, ""},
	{php("echo `ls`;"), none, []string{"ls"}, ""},
	{php("\\system('rm -rf /');"), none, []string{"rm -rf /"}, ""},
	{php("system(\"rm -rf $d\");"), none, nil, "php -r runs a command line that is not static"},
	{php("system('rm -rf ' . $d);"), none, nil, "not static"},
	{php("system('rm ' . '-rf /');"), none, []string{"rm -rf /"}, ""},
	{php("$db->exec('DELETE FROM t');"), none, nil, ""},
	{php("echo 'rm -rf /'; // system('rm -rf /')"), none, nil, ""},
	{php("# system('x')\necho 1;"), none, nil, ""},
	// awk: print > FILE writes, print | CMD and CMD | getline run.
	{awk(`{ print > "out" }`), C, nil, ""},
	{awk(`{ print $1 | "sort" }`), none, []string{"sort"}, ""},
	{awk(`BEGIN { "date" | getline d }`), none, []string{"date"}, ""},
	{awk(`BEGIN { system("rm" " -rf /") }`), none, []string{"rm -rf /"}, ""},
	{awk(`BEGIN { system("rm" + " -rf /") }`), none, nil, "not static"},
	// Everyday read-only one-liners.
	{py("import sys, json; print(json.load(sys.stdin)['version'])"), none, nil, ""},
	{py("import os, subprocess; print(os.environ['HOME'], subprocess.PIPE)"), none, nil, ""},
	{py("from subprocess import run"), none, nil, ""},
	{py("import re; print(re.sub(r'\\d+', '', open('f').read()))"), none, nil, ""},
	{py("import sqlite3; sqlite3.connect('db').cursor().execute('select 1')"), none, nil, ""},
	{js("console.log(require('./package.json').version)"), none, nil, ""},
	{[]string{"node", "-p", "process.versions.node"}, none, nil, ""},
	{rb("puts ENV['PATH'].split(':').map { |p| p.upcase }"), none, nil, ""},
	{[]string{"perl", "-lane", "print $F[0]", "f"}, none, nil, ""},
	{pl("print join(',', map { $_ * 2 } 1..3), \"\\n\""), none, nil, ""},
	{php("echo \"Hello $name\\n\"; echo json_encode([1, 2]);"), none, nil, ""},

	// Names reached through reflection (these passed): a literal name is
	// the member itself, any other is unknown; so is code built at run time.
	{py(`getattr(__import__("shutil"), "rmtree")("/")`), D, nil, ""},
	{py(`import os; getattr(os, "system")("rm -rf ~")`), none, []string{"rm -rf ~"}, ""},
	{py(`import shutil as s; getattr(s, "rm" + "tree")("/")`), none, nil, "reaches a function by a name chosen at run time"},
	{py(`m = "shutil"; __import__(m).rmtree("/")`), none, nil, "chosen at run time"},
	{py(`import base64; exec(base64.b64decode("aW1wb3J0IG9z"))`), none, nil, "evaluates code that is not static"},
	{py(`exec(open("setup.py").read())`), none, nil, ""},
	{py(`import sys; print(getattr(sys, "version"))`), none, nil, ""},
	{js(`require("child_" + "process").execSync("rm -rf ~")`), none, nil, "chosen at run time"},
	{js(`require("child_process")["execSync"]("rm -rf ~")`), none, []string{"rm -rf ~"}, ""},
	{js(`require("child_process")["exec" + "Sync"]("rm -rf ~")`), none, nil, "reaches a member of child_process"},
	{js(`const cp = require("child_process"); cp[process.argv[1]]("ls")`), none, nil, "reaches a member of child_process"},
	{js(`eval(Buffer.from("cmVxdWlyZQ==", "base64").toString())`), none, nil, "evaluates code that is not static"},
	{js(`new Function("return process")()`), none, nil, "chosen at run time"},
	{js(`process.binding("spawn_sync")`), none, nil, "chosen at run time"},
	{js(`console.log(require("./package.json")["version"], [1, 2][0])`), none, nil, ""},
	{rb(`send(:system, "rm -rf ~")`), none, nil, "chosen at run time"},
	{rb(`Kernel.public_send(:system, "ls")`), none, nil, "chosen at run time"},
	{pl(`&{"sys" . "tem"}("rm -rf ~")`), none, nil, "calls a function by a name chosen at run time"},
	{pl(`print 1 if $a && $b`), none, nil, ""},

	// Languages this reading does not parse (these passed): a command line
	// given as one literal is walked, a recursive delete is one, any other
	// use of an API that runs, changes or evaluates is unknown.
	{[]string{"lua", "-e", `os.execute("rm -rf ~")`}, none, []string{"rm -rf ~"}, ""},
	{[]string{"lua5.4", "-e", `os.execute "rm -rf ~"`}, none, []string{"rm -rf ~"}, ""},
	{[]string{"lua", "-e", `local f = io.popen('ls', 'r')`}, none, []string{"ls"}, ""},
	{[]string{"lua", "-e", `os["execute"]("rm -rf ~")`}, none, nil, "lua -e uses execute"},
	{[]string{"lua", "-e", `local c = "rm -rf ~"; os.execute(c)`}, none, nil, "uses execute"},
	{[]string{"lua", "-e", `os.execute("rm -rf " .. d)`}, none, nil, "uses execute"},
	{[]string{"lua", "-e", `print(1 + 1)`}, none, nil, ""},
	{[]string{"Rscript", "-e", `system("rm -rf ~")`}, none, []string{"rm -rf ~"}, ""},
	{[]string{"Rscript", "-e", `unlink("~", recursive = TRUE)`}, D, nil, "uses unlink"},
	{[]string{"Rscript", "-e", `do.call("system", list("ls"))`}, none, nil, "uses do.call"},
	{[]string{"Rscript", "-e", `devtools::test(); write.csv(x, "out.csv"); Sys.time()`}, none, nil, ""},
	{[]string{"julia", "-e", "run(`rm -rf /home/dev`)"}, none, []string{"rm -rf /home/dev"}, ""},
	{[]string{"julia", "-e", "run(c)"}, none, nil, "uses run"},
	{[]string{"julia", "-e", "run(`rm -rf $d`)"}, none, nil, "not a plain literal"},
	{[]string{"julia", "-e", `rm(homedir(), recursive=true)`}, D, nil, "uses rm"},
	{[]string{"julia", "-e", `using Pkg; Pkg.test()`}, none, nil, ""},
	{[]string{"expect", "-c", `spawn rm -rf ~`}, none, []string{"rm -rf ~"}, ""},
	{[]string{"expect", "-c", `spawn $cmd`}, none, nil, "uses spawn"},
	{[]string{"osascript", "-e", `do shell script "rm -rf ~"`}, none, []string{"rm -rf ~"}, ""},
	{[]string{"osascript", "-e", `display notification "done"`}, none, nil, ""},
	{[]string{"pypy3", "-c", "import shutil; shutil.rmtree('/')"}, D, nil, ""},
}

func TestScanCode(t *testing.T) {
	for _, tt := range scanTests {
		got, ok := ScanCode(tt.argv)
		if !ok {
			t.Errorf("ScanCode(%q): not a one-liner", tt.argv)
			continue
		}
		facts := none
		switch {
		case got.DeletesRecursively && got.ChangesFiles:
			facts = D
		case got.DeletesRecursively:
			facts = -1 // a recursive delete that does not change files: a bug
		case got.ChangesFiles:
			facts = C
		}
		if facts != tt.facts {
			t.Errorf("ScanCode(%q): DeletesRecursively %v, ChangesFiles %v; want facts %d", tt.argv, got.DeletesRecursively, got.ChangesFiles, tt.facts)
		}
		if !slices.Equal(got.Runs, tt.runs) {
			t.Errorf("ScanCode(%q): Runs %q, want %q", tt.argv, got.Runs, tt.runs)
		}
		if tt.unknown == "" && got.Unknown != "" || tt.unknown != "" && !strings.Contains(got.Unknown, tt.unknown) {
			t.Errorf("ScanCode(%q): Unknown %q, want %q", tt.argv, got.Unknown, tt.unknown)
		}
	}
}

// interpreters are the one-liner forms FuzzScanCode and TestScanCodeBounded
// feed code to.
var interpreters = [][]string{
	{"python3", "-c"}, {"node", "-e"}, {"ruby", "-e"}, {"perl", "-e"}, {"php", "-r"}, {"awk", "--"},
	{"lua", "-e"}, {"Rscript", "-e"}, {"julia", "-e"}, {"expect", "-c"}, {"osascript", "-e"},
}

// FuzzScanCode checks that ScanCode never panics and keeps its
// invariants, and that Parse keeps its own on a one-liner of the code.
// Seeds: the codes of scanTests, and testdata/fuzz/FuzzScanCode.
func FuzzScanCode(f *testing.F) {
	for _, tt := range scanTests {
		for k, in := range interpreters {
			if in[0] == tt.argv[0] {
				f.Add(uint8(k), tt.argv[len(tt.argv)-1])
			}
		}
	}
	f.Fuzz(func(t *testing.T, lang uint8, code string) {
		argv := append(slices.Clone(interpreters[int(lang)%len(interpreters)]), code)
		scan, ok := ScanCode(argv)
		if !ok || scan.Code != code || scan.Lang == "" {
			t.Fatalf("ScanCode(%q) = %+v, %v", argv, scan, ok)
		}
		if scan.DeletesRecursively && !scan.ChangesFiles {
			t.Fatalf("ScanCode(%q): deletes recursively without changing files", argv)
		}
		if scan.DeletesOnly != nil && !scan.DeletesRecursively {
			t.Fatalf("ScanCode(%q): deletes only %q without deleting recursively", argv, scan.DeletesOnly)
		}
		if len(scan.Writes) > 0 && !scan.ChangesFiles {
			t.Fatalf("ScanCode(%q): writes %q without changing files", argv, scan.Writes)
		}
		for _, r := range scan.Runs {
			if strings.TrimSpace(r) == "" {
				t.Fatalf("ScanCode(%q): empty command line in %q", argv, scan.Runs)
			}
		}
		if q, err := syntax.Quote(code, syntax.LangBash); err == nil {
			src := argv[0] + " " + argv[1] + " " + q
			checkLine(t, src, Parse(src))
		}
	})
}

// DeletesOnly holds the folders of the recursive deletes when every one
// is a literal, and nothing when one is not, whatever the order.
func TestScanCodeDeletesOnly(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		only []string
	}{
		{py(`import shutil; shutil.rmtree("dist", ignore_errors=True)`), []string{"dist"}},
		{py(`import shutil; shutil.rmtree("a"); shutil.rmtree("b")`), []string{"a", "b"}},
		{py(`import shutil, os; shutil.rmtree("a"); shutil.rmtree(os.path.expanduser("~"))`), []string{"a", "~"}}, // HOME, by its usual spelling
		{py(`import shutil, os; shutil.rmtree(os.environ["HOME"]); shutil.rmtree("a")`), []string{"~", "a"}},
		{py(`import shutil; d = "dist"; shutil.rmtree(d)`), nil},
		{py(`import shutil; f = shutil.rmtree; f("x")`), []string{"x"}}, // the alias is followed
		{py(`import shutil, sys; shutil.rmtree(*sys.argv)`), nil},
		{py(`open("x", "w")`), nil},
		{js(`require("fs").rmSync("dist", {recursive: true})`), []string{"dist"}},
		{js(`require("fs").rmSync(process.env.HOME, {recursive: true})`), []string{"~"}},
		{rb(`require "fileutils"; FileUtils.rm_rf("tmp/cache")`), []string{"tmp/cache"}},
		{[]string{"lua", "-e", `os.execute("rm -rf x")`}, nil},
	} {
		got, ok := ScanCode(tt.argv)
		if !ok || !slices.Equal(got.DeletesOnly, tt.only) {
			t.Errorf("ScanCode(%q): DeletesOnly %q (%v), want %q", tt.argv, got.DeletesOnly, ok, tt.only)
		}
		if got.DeletesOnly != nil && !got.DeletesRecursively {
			t.Errorf("ScanCode(%q): DeletesOnly %q without DeletesRecursively", tt.argv, got.DeletesOnly)
		}
	}
}

// TestScanCodeBounded feeds each language programs shaped to make a
// careless reader quadratic, or recurse without end: each must be read in
// time linear in its size (a generous bound here), or be given up as
// unknown.
func TestScanCodeBounded(t *testing.T) {
	const n = 1 << 16 // quadratic work on this many bytes takes far longer than the bound
	shapes := []string{
		"os.system(", "(", "[", "{", "system ", "/[", "'", "\"", "`", "f'{", "f\"{", "`${", "\"#{", "s{", "s/x/",
		"%x{", "qx(", "q(", "?", "$'", "from a import *\n", "x = os.system\n", "eval(\"", "<?php ", "?>",
		"exec(\"", "s/x/s\\/x\\/y\\/e/e;", "require('child_process').execSync('ls');", "a, ", "=begin\n",
		"print ", "x | getline ", "\"a\" ", "/[[:", "@f(", "$(", "print > (",
	}
	for _, sh := range shapes {
		code := strings.Repeat(sh, n/len(sh))
		for _, in := range interpreters {
			start := time.Now()
			ScanCode(append(slices.Clone(in), code))
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s %q x %d took %v", in[0], sh, n/len(sh), d)
			}
		}
	}
	deep := strings.Repeat(`f"{`, maxLexDepth+2) + strings.Repeat(`}"`, maxLexDepth+2)
	if scan, _ := ScanCode(py("print(" + deep + ")")); !strings.Contains(scan.Unknown, "nests too deeply") {
		t.Errorf("deep f-strings: Unknown %q", scan.Unknown)
	}
	huge := strings.Repeat("x", maxBodyBytes+1)
	if scan, _ := ScanCode(py(huge)); !strings.Contains(scan.Unknown, "exceeds") {
		t.Errorf("huge program: Unknown %q", scan.Unknown)
	}
	evals := strings.Repeat(`eval("`, maxEvalDepth+2) + "1" + strings.Repeat(`")`, maxEvalDepth+2)
	if scan, _ := ScanCode(js(evals)); !strings.Contains(scan.Unknown, "evaluates code that is not static") {
		t.Errorf("nested eval with escapes missing is code built of parts: Unknown %q", scan.Unknown)
	}
}

// The files a one-liner reads, where their paths are literals.
func TestScanCodeReads(t *testing.T) {
	for _, tt := range []struct {
		argv  []string
		reads []string
	}{
		{py(`print(open(".env").read())`), []string{".env"}},
		{py(`import io; print(io.open("/home/dev/.ssh/id_rsa", "rb").read())`), []string{"/home/dev/.ssh/id_rsa"}},
		{py(`open("out.txt", "w").write("x")`), nil},
		{py(`p = ".env"; print(open(p).read())`), nil}, // not a literal: not seen
		{js(`console.log(require("fs").readFileSync(".env", "utf8"))`), []string{".env"}},
		{js(`const fs = require('fs'); fs.createReadStream('.aws/credentials').pipe(process.stdout)`), []string{".aws/credentials"}},
		{js(`require("fs").writeFileSync("x", "y")`), nil},
		{rb(`puts File.read(".env.local")`), []string{".env.local"}},
		{rb(`File.foreach("a") { |l| puts l }; puts IO.readlines("b")`), []string{"a", "b"}},
		{pl(`open(my $f, "<", ".env"); print <$f>`), []string{".env"}},
		{pl(`open(F, ".env"); print <F>`), []string{".env"}},
		{pl(`open(F, ">out"); print F 1`), nil},
		{php(`echo file_get_contents(".env");`), []string{".env"}},
		{php(`readfile("/home/dev/.aws/credentials");`), []string{"/home/dev/.aws/credentials"}},
		{py(`from dotenv import load_dotenv; load_dotenv(".env")`), nil}, // loading configuration is not reading it out
		{py(`import pathlib; print(pathlib.Path(".env").read_text())`), []string{".env"}},
		{py(`from pathlib import Path; print(Path("/home/dev/.ssh/id_rsa").read_bytes())`), []string{"/home/dev/.ssh/id_rsa"}},
		{py(`print(Path("/home/dev/.ssh", "id_rsa").read_text(), x.read_text(), f(y).read_text(), Path(d, "x").read_text())`), []string{"/home/dev/.ssh/id_rsa"}},
		// The operands of a program that loops over its input (perl -n,
		// -p; ruby -n, -p) or reads <>, ARGF or fileinput are files it reads.
		{[]string{"perl", "-ne", "print", ".env"}, []string{".env"}},
		{[]string{"perl", "-lpe", "", ".env", "-", "b"}, []string{".env", "b"}},
		{[]string{"perl", "-e", "print while <>", ".env"}, []string{".env"}},
		{[]string{"ruby", "-ne", "puts $_", ".env"}, []string{".env"}},
		{[]string{"ruby", "-e", "puts ARGF.read", ".env"}, []string{".env"}},
		{[]string{"python3", "-c", "import fileinput\nfor l in fileinput.input(): print(l)", ".env"}, []string{".env"}},
		{[]string{"perl", "-e", "print $ARGV[0]", ".env"}, nil}, // an argument, not read
		{[]string{"python3", "-c", "import sys; print(sys.argv[1])", ".env"}, nil},
	} {
		got, ok := ScanCode(tt.argv)
		if !ok || !slices.Equal(got.Reads, tt.reads) {
			t.Errorf("ScanCode(%q): Reads %q (%v), want %q", tt.argv, got.Reads, ok, tt.reads)
		}
	}
}

// The files a one-liner changes, where their paths are literals (these
// passed the guard: python3 -c "open('.claude/settings.json', 'w')").
func TestScanCodeWrites(t *testing.T) {
	for _, tt := range []struct {
		argv   []string
		writes []string
	}{
		{py(`open(".claude/settings.json", "w").write("{}")`), []string{".claude/settings.json"}},
		{py(`open("log.txt", mode="a")`), []string{"log.txt"}},
		{py(`print(open("README.md").read())`), nil},
		{py(`import os; os.rename("a", "b"); os.chmod("c", 0o777)`), []string{"a", "b", "c"}},
		{py(`import shutil; shutil.copy(src, ".npmrc")`), []string{".npmrc"}},
		{py(`import shutil; shutil.rmtree(".agent-shell")`), []string{".agent-shell"}},
		{py(`from pathlib import Path; Path(".claude", "settings.json").write_text("{}"); Path("x").unlink()`), []string{".claude/settings.json", "x"}},
		{py(`p = "x"; open(p, "w")`), nil}, // not a literal: not seen (ChangesFiles is)
		{js(`require("fs").writeFileSync(".claude/settings.json", "{}")`), []string{".claude/settings.json"}},
		{js(`require("fs").rmSync("dist", {recursive: true})`), []string{"dist"}},
		{rb(`File.write(".npmrc", "x")`), []string{".npmrc"}},
		{pl(`unlink(".env")`), []string{".env"}},
		{php(`file_put_contents(".claude/settings.json", "{}");`), []string{".claude/settings.json"}},
		{[]string{"awk", `BEGIN { print "x" > ".claude/settings.json"; print "y" > "/dev/stderr" }`}, []string{".claude/settings.json"}},
		// An in-place edit rewrites its file operands (these had no write
		// effect: perl -pi -e ... ~/.bashrc passed the startup-files rule).
		{[]string{"perl", "-pi", "-e", "s/a/b/", "~/.bashrc", "x.txt"}, []string{"~/.bashrc", "x.txt"}},
		{[]string{"ruby", "-i.bak", "-pe", "sub(/a/, 'b')", "notes.md"}, []string{"notes.md"}},
		{[]string{"gawk", "-i", "inplace", "{print}", "x.txt"}, []string{"x.txt"}},
		{[]string{"perl", "-ne", "print", "x.txt"}, nil},
		// HOME written the common ways (these had no write effect).
		{py(`import os; open(os.path.expanduser("~/.bashrc"), "a").write("alias npm=x")`), []string{"~/.bashrc"}},
		{js(`const fs = require("fs"), os = require("os"); fs.appendFileSync(os.homedir() + "/.bashrc", "x")`), []string{"~/.bashrc"}},
		{js(`require("fs").appendFileSync(require("os").homedir() + "/.zshrc", "x")`), []string{"~/.zshrc"}},
		{py(`import os; open(os.path.expanduser(p), "a")`), nil},
		{py(`import os; open(os.environ["HOME"] + "/.profile", "a")`), []string{"~/.profile"}},
		{py(`import os; open(os.getenv("HOME") + "/.zshrc", "w")`), []string{"~/.zshrc"}},
		{py(`import os; open(os.path.join(os.path.expanduser("~"), ".bashrc"), "a")`), []string{"~/.bashrc"}},
		{py(`from pathlib import Path; open(Path.home() / ".ssh" / "authorized_keys", "a")`), []string{"~/.ssh/authorized_keys"}},
		{js(`require("fs").writeFileSync(process.env.HOME + "/.npmrc", "x")`), []string{"~/.npmrc"}},
		{js(`const p = require("path"), os = require("os"); require("fs").appendFileSync(p.join(os.homedir(), ".bashrc"), "x")`), []string{"~/.bashrc"}},
		{py(`import os; open(os.path.join(d, ".bashrc"), "a")`), nil},
	} {
		got, ok := ScanCode(tt.argv)
		if !ok || !slices.Equal(got.Writes, tt.writes) {
			t.Errorf("ScanCode(%q): Writes %q (%v), want %q", tt.argv, got.Writes, ok, tt.writes)
		}
		if len(got.Writes) > 0 && !got.ChangesFiles {
			t.Errorf("ScanCode(%q): writes %q without ChangesFiles", tt.argv, got.Writes)
		}
	}
}
