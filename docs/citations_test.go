package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// mdName is a cited Markdown file, such as docs/host-protocols.md.
	mdName = regexp.MustCompile(`[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.md\b`)
	url    = regexp.MustCompile(`[a-z]+://\S+`)
)

// TestCitationsResolve checks every comment of every Go file in the
// repository, and the comment that opens every testscript: a Markdown file it names must exist, relative to the
// repository root or to the commented file's folder, and a section sign
// may only appear in a comment that names such a file. A comment that
// cites a document the repository does not have (a section of a design
// note kept elsewhere) fails: bring the fact into the comment or into
// docs/, and cite that.
func TestCitationsResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	// check reports what the comment at path:line cites that the
	// repository does not have.
	check := func(path string, line int, comment string) {
		rel, _ := filepath.Rel(root, path)
		text := url.ReplaceAllString(comment, "")
		resolved := false
		for _, at := range mdName.FindAllStringIndex(text, -1) {
			if at[0] > 0 && text[at[0]-1] == '*' {
				continue // a file pattern (.claude/skills/*/SKILL.md), not a citation
			}
			name := text[at[0]:at[1]]
			name = strings.TrimPrefix(name, "./")
			if exists(filepath.Join(root, filepath.FromSlash(name))) || exists(filepath.Join(filepath.Dir(path), filepath.FromSlash(name))) {
				resolved = true
				continue
			}
			t.Errorf("%s:%d: cites %s, which is not in the repository", rel, line, name)
		}
		if strings.ContainsRune(text, '\u00a7') && !resolved {
			t.Errorf("%s:%d: a section sign in a comment that names no document of the repository", rel, line)
		}
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".txtar") {
			// A testscript's comment is what comes before its first file.
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			comment, _, _ := strings.Cut(string(data), "\n-- ")
			check(path, 1, comment)
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil // not ours to judge (testdata); the build checks real code
		}
		for _, group := range f.Comments {
			check(path, fset.Position(group.Pos()).Line, group.Text())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: not the repository", files, root)
	}
}
