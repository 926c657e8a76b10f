package shellcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// testMakefiles are makefiles by path under /p, for a parse that reads
// them; it records the folder and names of each read.
type testMakefiles struct {
	files map[string]string
	why   string
	reads []string
}

func (m *testMakefiles) disk() Disk {
	return Disk{File: func(dirs []string, unknown bool, names []string) (string, string, string) {
		m.reads = append(m.reads, fmt.Sprintf("%q %v %q", dirs, unknown, names))
		dir := "/p"
		for _, d := range dirs {
			if path.IsAbs(d) {
				dir = d
			} else {
				dir = path.Join(dir, d)
			}
		}
		for _, n := range names {
			if text, ok := m.files[path.Join(dir, n)]; ok {
				return text, dir, m.why
			}
		}
		return "", "", m.why
	}}
}

const testMakefile = `# variables, once or more
BUILD = build
HOMEDIR := ~
EXE =
ifeq ($(OS),Windows_NT)
EXE = .exe
endif
FLAGS ?= -v
FLAGS += -race
GIT != git rev-parse HEAD
define CANNED
rm -rf ~
endef
export CGO_ENABLED = 0
.PHONY: all clean wipe

all: build test

build:
	go build $(FLAGS) -o $(BUILD)/app .

dist:
	cp $(BUILD)/app$(EXE) dist/

test: ; go test ./...

clean:
	@-rm -rf $(BUILD)

wipe: clean
	rm -rf $(HOMEDIR)

shell:
	rm -rf $(shell echo ~)

sub:
	+$(MAKE) -C sub x

self:
	echo $@ > $@.txt

%.o: %.c
	cc -c $<

include extra.mk
`

// make runs the recipes of the targets its words name (the default goal
// when none), what they depend on first; each line is walked as a command
// it may run, expanded as far as reading the makefile tells.
func TestParseMakefileRecipes(t *testing.T) {
	files := map[string]string{
		"/p/Makefile":     testMakefile,
		"/p/extra.mk":     "extra:\n\tcat .env\n",
		"/p/sub/Makefile": "x:\n\trm -rf ~/x\n",
		"/p/other.mk":     "o:\n\tgit reset --hard\n",
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"make", []string{"make", "go build -v -race -o build/app . @1 ?guess", "go test ./... @1 ?guess"}},
		{"make dist", []string{"make dist"}}, // EXE is set twice
		{"make clean", []string{"make clean", "rm -rf build @1 ?guess"}},
		{"make wipe", []string{"make wipe", "rm -rf build @1 ?guess", "rm -rf ~ @1 ?guess"}},
		{"make BUILD=~ clean", []string{"make BUILD=~ clean", "rm -rf ~ @1 ?guess"}},
		{"make shell", []string{"make shell", "rm -rf ~ @1 +subst ?guess", "echo ~ @1 ?guess"}}, // $(shell …) is the shell's $(…)
		{"make sub", []string{"make sub", "make -C sub x @1 ?guess", "rm -rf ~/x @2 ?guess"}},
		{"make -C sub x", []string{"make -C sub x", "rm -rf ~/x @1 ?guess"}},
		{"cd sub && make", []string{"cd sub", "make", "rm -rf ~/x @1 ?guess"}},
		{"make -f other.mk o", []string{"make -f other.mk o", "git reset --hard @1 ?guess"}},
		{"make extra", []string{"make extra", "cat .env @1 ?guess"}},
		{"make self", []string{"make self", "echo self @1 ?guess w:self.txt"}},
		{"make -j4 -k wipe", []string{"make -j4 -k wipe", "rm -rf build @1 ?guess", "rm -rf ~ @1 ?guess"}},
		{"make nothing", []string{"make nothing"}},
		// Printed or checked, not run.
		{"make -n wipe", []string{"make -n wipe"}},
		{"make --dry-run wipe", []string{"make --dry-run wipe"}},
		{"make -nB wipe", []string{"make -nB wipe"}},
	} {
		m := &testMakefiles{files: files}
		l := ParseWith(tt.in, m.disk())
		if l.Err != nil {
			t.Errorf("Parse(%q): %v", tt.in, l.Err)
			continue
		}
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// A makefile that cannot be read, one that runs more than the bound, a
// line that writes the makefile itself, and a make whose target or
// makefile is only known at run time.
func TestParseMakefileLimits(t *testing.T) {
	m := &testMakefiles{files: map[string]string{"/p/Makefile": "x:\n\ttrue\n"}, why: "Makefile is not a regular file"}
	if l := ParseWith("make x", m.disk()); !strings.HasSuffix(l.UnknownReason(), "Makefile is not a regular file") {
		t.Errorf("unreadable makefile: unknown %q", l.UnknownReason())
	}
	var b strings.Builder
	b.WriteString("all:")
	for i := range maxMakeRecipes + 1 {
		fmt.Fprintf(&b, " t%d", i)
	}
	b.WriteString("\n")
	for i := range maxMakeRecipes + 1 {
		fmt.Fprintf(&b, "t%d:\n\ttrue\n", i)
	}
	m = &testMakefiles{files: map[string]string{"/p/Makefile": b.String()}}
	if l := ParseWith("make", m.disk()); !strings.Contains(l.UnknownReason(), "more than 256 recipe lines") {
		t.Errorf("%d recipes: unknown %q", maxMakeRecipes+1, l.UnknownReason())
	}
	var doubling strings.Builder
	doubling.WriteString("A0 = " + strings.Repeat("x", 128) + "\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&doubling, "A%d = $(A%d) $(A%d)\n", i, i-1, i-1)
	}
	doubling.WriteString("x:\n\trm -rf ~ $(A9)\n")
	m = &testMakefiles{files: map[string]string{"/p/Makefile": doubling.String()}}
	if l := ParseWith("make x", m.disk()); !strings.Contains(l.UnknownReason(), "longer than 64 KiB") {
		t.Errorf("a recipe that expands past the bound: unknown %q", l.UnknownReason())
	}
	// A line of many targets and many prerequisites costs no copy of the
	// one per the other (it was 900 million appends).
	wide := strings.Repeat("t ", 30000) + ": " + strings.Repeat("p ", 30000) + "\n\tcat .env\n"
	m = &testMakefiles{files: map[string]string{"/p/Makefile": wide}}
	if l := ParseWith("make t", m.disk()); !slices.Contains(renderAll(l), "cat .env @1 ?guess") {
		t.Errorf("a wide rule: %q", renderAll(l))
	}
	m = &testMakefiles{files: map[string]string{"/p/Makefile": "x:\n\techo disk\n"}}
	l := ParseWith("printf 'x:\\n\\tcat .env\\n' > Makefile && make x", m.disk())
	if len(m.reads) != 0 || !slices.Contains(renderAll(l), "cat .env @1") {
		t.Errorf("makefile written by the line: read from disk %q; commands %q", m.reads, renderAll(l))
	}
	for _, in := range []string{"make \"$T\"", "make -f \"$F\" x", "make -f - x"} {
		m := &testMakefiles{files: map[string]string{"/p/Makefile": "x:\n\tcat .env\n"}}
		if l := ParseWith(in, m.disk()); len(m.reads) != 0 || len(l.Commands) != 1 {
			t.Errorf("%s: read %q, commands %q", in, m.reads, renderAll(l))
		}
	}
	m = &testMakefiles{files: map[string]string{"/p/Makefile": "x:\n\tcat .env\n"}}
	ParseWith("make -C \"$D\" x", m.disk())
	if len(m.reads) != 1 || !strings.Contains(m.reads[0], " true ") {
		t.Errorf("make -C $D: read %q, want a read with the directory unknown", m.reads)
	}
}

// FuzzMakefile: whatever a makefile says and whatever make line runs it,
// the parse holds its invariants, and the commands the line spells out
// are the ones it spells out without the makefile.
func FuzzMakefile(f *testing.F) {
	f.Add("make", testMakefile)
	f.Add("make x y", "x: y\n\t$(MAKE) x\ny: x\n\trm -rf $(A)\nA = $(B)\nB = $(A)\n")
	f.Add("make -C a -f b c", "c:\n\t$(\n")
	f.Add("make", "define X\n\ttrue\n")
	f.Add("make", "include Makefile\nx:\n\ttrue\n")
	f.Fuzz(func(t *testing.T, src, text string) {
		m := &testMakefiles{files: map[string]string{"/p/Makefile": text, "/p/b": text}}
		l := ParseWith(src, m.disk())
		checkWithDisk(t, src, l, fmt.Sprintf("makefile %q", text))
	})
}
