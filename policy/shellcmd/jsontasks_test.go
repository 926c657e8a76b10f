package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

// deno task and composer run their configuration's tasks and scripts: the
// one the words name, with the words after it, what it refers to first,
// and composer's events.
func TestParseConfigTasks(t *testing.T) {
	files := map[string]string{
		"/p/deno.jsonc": `{
  // a comment
  "tasks": {
    "wipe": "rm -rf", /* another */
    "build": {"command": "deno compile main.ts", "dependencies": ["leak"]},
    "leak": "cat .env"
  }
}`,
		"/p/composer.json": `{"scripts": {
  "test": ["@lint", "phpunit"],
  "lint": "phpcs",
  "post-install-cmd": ["App\\Hooks::install", "@php artisan key:generate", "git reset --hard"],
  "nuke": "rm -rf"
}}`,
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"deno task wipe ~", []string{"deno task wipe ~", "rm -rf ~ @1 ?guess"}},
		{"deno task build", []string{"deno task build", "cat .env @1 ?guess", "deno compile main.ts @1 ?guess"}},
		{"composer test", []string{"composer test", "phpcs @1 ?guess", "phpunit @1 ?guess"}},
		{"composer run-script nuke -- ~", []string{"composer run-script nuke -- ~", "rm -rf ~ @1 ?guess"}},
		{"composer install", []string{"composer install", "php artisan key:generate @1 ?guess", "git reset --hard @1 ?guess"}},
		{"composer require x/y", []string{"composer require x/y"}},
		{"deno run main.ts", []string{"deno run main.ts"}},
	} {
		l := ParseWith(tt.in, testJustfiles(files))
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// FuzzConfigTasks: whatever deno.json or composer.json says and whatever
// line runs it, the parse holds its invariants, and the commands the line
// spells out are the ones it spells out without it.
func FuzzConfigTasks(f *testing.F) {
	f.Add("deno task a x", `{"tasks": {"a": {"command": "rm -rf", "dependencies": ["a", "b"]}, "b": "@"}}`)
	f.Add("composer a", `{"scripts": {"a": ["@", "@a", "@php x", "X::y"]}} // c`)
	f.Fuzz(func(t *testing.T, src, text string) {
		l := ParseWith(src, testJustfiles(map[string]string{"/p/deno.json": text, "/p/composer.json": text}))
		checkWithDisk(t, src, l, fmt.Sprintf("config %q", text))
	})
}
