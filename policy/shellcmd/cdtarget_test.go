package shellcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// CdTarget is the one reading of cd and pushd that the guard and the
// effects follow; FollowCd their one limit.
func TestCdTarget(t *testing.T) {
	for _, c := range []struct {
		line string
		dir  string
		ok   bool
	}{
		{"cd web", "web", true},
		{"cd", "~", true},
		{"cd -P", "~", true},
		{"cd -L -- -x", "-x", true},
		{"cd -P web", "web", true},
		{"cd -Pe web", "web", true},
		{"cd -- web", "web", true},
		{"cd -", "", false},
		{"pushd web", "web", true},
		{"pushd", "", false},
		{"pushd -n web", "", false},
		{"pushd +2", "", false},
		{"pushd -1", "", false},
		{"ls web", "", false},
	} {
		dir, ok := CdTarget(strings.Fields(c.line))
		if dir != c.dir || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.line, dir, ok, c.dir, c.ok)
		}
	}
}

func TestFollowCdLimit(t *testing.T) {
	cwds := []string{"/r"}
	for i := range 2 * MaxCwds {
		dir := fmt.Sprint("d", i)
		cwds = FollowCd(cwds, func(c string) string { return path.Join(c, dir) })
	}
	if len(cwds) != MaxCwds {
		t.Errorf("%d directories, want %d", len(cwds), MaxCwds)
	}
	// No directory twice.
	again := FollowCd(slices.Clone(cwds[:2]), func(c string) string { return "/r" })
	if len(again) != 2 {
		t.Errorf("FollowCd added a directory already there: %v", again)
	}
}
