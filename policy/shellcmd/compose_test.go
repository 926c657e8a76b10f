package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

// docker compose up (run, create, start) starts its compose file's
// containers: their bind mounts are walked as the docker run they amount
// to; other subcommands start none.
func TestParseCompose(t *testing.T) {
	files := map[string]string{
		"/p/compose.yaml":    "services:\n  app:\n    image: alpine\n    volumes:\n      - ~:/h\n      - ./data:/data\n",
		"/p/ops/compose.yml": "services:\n  x:\n    volumes:\n      - type: bind\n        source: /\n        target: /host\n",
	}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"docker compose up -d", []string{"docker compose up -d", "docker run -v ~:/h -v ./data:/data compose-service @1 ?guess"}},
		{"docker-compose run app", []string{"docker-compose run app", "docker run -v ~:/h -v ./data:/data compose-service @1 ?guess"}},
		{"docker compose -f ops/compose.yml up", []string{"docker compose -f ops/compose.yml up", "docker run -v /:/host compose-service @1 ?guess"}},
		{"docker compose ps", []string{"docker compose ps"}},
		{"docker compose exec app sh", []string{"docker compose exec app sh"}},
	} {
		l := ParseWith(tt.in, testWorkspaces(files, ""))
		checkWithDisk(t, tt.in, l, "compose.yaml")
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"docker compose -f \"$F\" up", "echo x > compose.yaml && docker compose up"} {
		if l := ParseWith(in, testWorkspaces(files, "")); !l.Unknown() {
			t.Errorf("%s: known, commands %q", in, renderAll(l))
		}
	}
}

// FuzzCompose: any compose line over any compose file parses to a line
// whose invariants hold and whose spelled-out commands are its own.
func FuzzCompose(f *testing.F) {
	f.Add("docker compose up", "services:\n  a:\n    volumes:\n      - ~:/h\n")
	f.Fuzz(func(t *testing.T, src, file string) {
		l := ParseWith(src, testWorkspaces(map[string]string{"/p/compose.yaml": file}, ""))
		checkWithDisk(t, src, l, fmt.Sprintf("compose.yaml %q", file))
	})
}
