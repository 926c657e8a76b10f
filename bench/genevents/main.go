// Command genevents writes a synthetic flight recorder for benchmarks: N
// events spread over F session files, each a valid seq/SHA-256 chain in time
// order, with a realistic mix of event types, commands and env maps (lines of
// roughly 300-600 bytes).
//
//	go run ./bench/genevents -dir /tmp/ev -files 100 -events 1000000 -actors 5
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

func main() {
	dir := flag.String("dir", "", "directory to write <session>.jsonl files into (created)")
	files := flag.Int("files", 100, "number of session files")
	events := flag.Int("events", 1000000, "total number of events")
	actors := flag.Int("actors", 5, "number of distinct actors")
	seed := flag.Uint64("seed", 1, "random seed (same seed, same files)")
	span := flag.Duration("span", 7*24*time.Hour, "time the sessions cover, ending now")
	flag.Parse()
	if *dir == "" || *files < 1 || *events < 0 || *actors < 1 {
		fmt.Fprintln(os.Stderr, "usage: genevents -dir DIR [-files N] [-events N] [-actors N] [-seed N] [-span D]")
		os.Exit(2)
	}
	if err := generate(*dir, *files, *events, *actors, *seed, *span); err != nil {
		fmt.Fprintln(os.Stderr, "genevents:", err)
		os.Exit(1)
	}
}

var actorNames = []string{"claude-code", "copilot", "codex", "cursor", "human", "gemini-cli", "amp", "opencode", "github-actions"}

func actorName(i int) string {
	if i < len(actorNames) {
		return actorNames[i]
	}
	return fmt.Sprintf("agent-%d", i)
}

var (
	scripts  = []string{"test", "build", "lint", "typecheck", "dev", "format", "prepare", "postinstall"}
	tools    = []string{"bash", "edit", "write", "read", "web_fetch", "glob", "grep"}
	commands = []string{
		"npm run test -- --coverage --reporter=dot",
		"git status --porcelain=v1 --untracked-files=all",
		"git diff --stat HEAD~1 -- src/components",
		"rg -n \"useEffect\\(\" src/ --glob '!*.test.tsx'",
		"npx tsc --noEmit -p tsconfig.build.json",
		"eslint --max-warnings=0 'src/**/*.{ts,tsx}'",
		"cat package.json | jq '.scripts'",
		"docker compose up -d postgres redis",
		"curl -fsSL https://registry.npmjs.org/left-pad | head -c 200",
		"rm -rf node_modules/.cache dist coverage",
		"go test ./... -run TestParse -count=1",
		"python3 -m pytest tests/unit -q -x --maxfail=1",
	}
	rules   = []string{"no-force-push", "network-needs-review", "no-rm-rf-root", "allow-readonly-git"}
	signals = []string{"SIGTERM", "SIGKILL", "SIGINT"}
)

func generate(dir string, files, events, actors int, seed uint64, span time.Duration) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	end := time.Now().UTC()
	start := end.Add(-span)
	for f := 0; f < files; f++ {
		n := events / files
		if f < events%files {
			n++
		}
		sid := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xfff, rng.Uint32()&0xfff, rng.Uint64()&0xffffffffffff)
		if err := writeSession(filepath.Join(dir, sid+".jsonl"), sid, n, actors, start, span, rng); err != nil {
			return err
		}
	}
	return nil
}

func writeSession(path, sid string, n, actors int, start time.Time, span time.Duration, rng *rand.Rand) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	// Sessions overlap in time (the hardest case for the merge): each one
	// starts in the first tenth of the span and covers most of it, its
	// events at random (sorted) moments, so equal timestamps happen too.
	first := start.Add(time.Duration(rng.Int64N(int64(span / 10))))
	offsets := make([]int64, n)
	for i := range offsets {
		offsets[i] = rng.Int64N(int64(span * 8 / 10))
	}
	slices.Sort(offsets)
	t := first
	sessionActor := rng.IntN(actors)
	var prev string
	buf := make([]byte, 0, 1024)
	for i := 1; i <= n; i++ {
		t = first.Add(time.Duration(offsets[i-1])).Truncate(time.Millisecond)
		e := randomEvent(rng, sid, actors, sessionActor, t)
		e.Seq = int64(i)
		e.PrevSHA256 = prev
		buf = e.AppendJSON(buf[:0])
		sum := sha256.Sum256(buf)
		prev = hex.EncodeToString(sum[:])
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chtimes(path, t, t)
}

func randomEvent(rng *rand.Rand, sid string, actors, sessionActor int, t time.Time) *telemetry.Event {
	actor := sessionActor
	if rng.IntN(4) == 0 { // sessions are mostly one actor, with some mixing
		actor = rng.IntN(actors)
	}
	e := &telemetry.Event{
		SessionID: sid,
		Command:   commands[rng.IntN(len(commands))],
		Actor:     actorName(actor),
		Timestamp: t,
		Env: map[string]string{
			"CI":       []string{"true", "false"}[rng.IntN(2)],
			"NODE_ENV": "development",
			"SHELL":    "/bin/bash",
			"PWD":      "/home/dev/web-app",
		},
		Tags:  map[string]string{"branch": fmt.Sprintf("feature/ticket-%d", rng.IntN(5000))},
		Agent: actorName(actor),
	}
	switch r := rng.IntN(100); {
	case r < 45:
		e.Event = telemetry.EventToolUse
		e.ToolName = tools[rng.IntN(len(tools))]
		code := rng.IntN(3) / 2
		e.ToolResult = &telemetry.ToolResult{Type: "success", ExitCode: &code, Length: rng.IntN(20000)}
	case r < 75:
		e.Event = telemetry.EventScriptEnd
		s := scripts[rng.IntN(len(scripts))]
		e.Command = "npm run " + s + " -- " + e.Command
		e.Script = s
		e.Package = "web-app"
		e.PackageVersion = "1.4.2"
		e.Env["npm_lifecycle_event"] = s
		if rng.IntN(10) == 0 {
			e.ExitCode = 1 + rng.IntN(2)
		}
		if rng.IntN(200) == 0 {
			e.Signal = signals[rng.IntN(len(signals))]
		}
		e.DurationMS = telemetry.Millis(rng.IntN(90000))
	case r < 97:
		e.Event = telemetry.EventPolicyDecision
		e.Decision = "allow"
		if rng.IntN(8) == 0 {
			e.Decision = "deny"
			e.MatchedRule = rules[rng.IntN(len(rules))]
			e.Rule = e.MatchedRule
			e.Reason = "blocked by project policy: " + e.MatchedRule
			e.Effects = []string{"network", "write:."}
		}
	default:
		e.Event = telemetry.EventShimError
		e.Error = "spawn /bin/sh: resource temporarily unavailable"
	}
	return e
}
