#!/usr/bin/env bash
# Times the real agent-shell binary as a whole process, beside the floors it is
# judged against, and runs the Go benchmarks of the hot paths.
#
#   bench/run.sh [startup|log|append|policy|scripts|safety|hostile|enforce|all]     (default: all)
#
# Needs hyperfine (Debian: apt-get install hyperfine) and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
runs=${RUNS:-200}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export CGO_ENABLED=0

command -v hyperfine >/dev/null || { echo "bench: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
go build -o "$out/agent-shell" ./cmd/agent-shell
go build -o "$out/hello" ./bench/hello
as=$out/agent-shell

# median FILE NAME: the median wall time in ms of the named command in a hyperfine JSON export.
median() {
  python3 -c 'import json,sys; r={x["command"]:x for x in json.load(open(sys.argv[1]))["results"]}; print("%.3f" % (r[sys.argv[2]]["median"]*1000))' "$1" "$2"
}

# interleaved RUNS BASE_NAME BASE_CMD NAME CMD...: runs the base and each
# command in turn, round after round (so a drift in the machine's speed
# touches all alike), each with stdin from the file after its '<', and
# prints every command's median wall ms and the median of its per-round
# ratio to the base.
interleaved() {
  python3 - "$@" <<'PY'
import shlex, statistics, subprocess, sys, time
runs = int(sys.argv[1]); args = sys.argv[2:]
cmds = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
def run(cmd):
    words = shlex.split(cmd)
    stdin = None
    if "<" in words:
        i = words.index("<"); stdin = open(words[i + 1], "rb"); words = words[:i]
    t = time.perf_counter()
    subprocess.run(words, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
for _ in range(10):
    for _, c in cmds: run(c)
times = {n: [] for n, _ in cmds}
for _ in range(runs):
    for n, c in cmds: times[n].append(run(c))
base = cmds[0][0]
for n, _ in cmds:
    ratio = statistics.median(a / b for a, b in zip(times[n], times[base]))
    print("%-12s median %7.3f ms   per-round ratio to %s %.2f" % (n, statistics.median(times[n]) * 1000, base, ratio))
PY
}

startup() {
  echo "== start-up: shim overhead over the hello-world floor ($runs runs each) =="
  local work; work=$(mktemp -d); mkdir "$work/.git"
  (cd "$work" && AGENTSHELL_SESSION_ID=bench hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/startup.json" \
    -n hello "$out/hello" \
    -n sh "/bin/sh -c true" \
    -n shim "$as -c true" \
    -n version "$as --version" \
    -n passthrough "env AGENTSHELL_PASSTHROUGH=1 $as -c true" >/dev/null)
  local hello sh shim version pass
  hello=$(median "$out/startup.json" hello); sh=$(median "$out/startup.json" sh)
  shim=$(median "$out/startup.json" shim); version=$(median "$out/startup.json" version)
  pass=$(median "$out/startup.json" passthrough)
  printf 'median ms: hello %s  /bin/sh -c true %s  agent-shell -c true %s  agent-shell --version %s  passthrough (via env) %s\n' "$hello" "$sh" "$shim" "$version" "$pass"
  python3 -c 'import sys; h,s,m=map(float,sys.argv[1:]); print("shim overhead (shim - sh) / hello = %.2f   (goal <= 1.3)" % ((m-s)/h))' "$hello" "$sh" "$shim"
  rm -rf "$work"
}

logquery() {
  local events=${EVENTS:-1000000} files=${FILES:-100}
  echo "== log --actor X --json over $events events in $files files =="
  local work; work=$(mktemp -d); mkdir "$work/.git"
  go run ./bench/genevents -dir "$work/.agent-shell/events" -files "$files" -events "$events" -actors 5
  du -sh "$work/.agent-shell/events"
  # --output=pipe: GNU grep stops at its first match when it writes to /dev/null.
  (cd "$work" && hyperfine -N --output=pipe --warmup 2 --runs "${LOGRUNS:-10}" --export-json "$out/log.json" \
    -n grep "grep -h '\"actor\":\"codex\"' -r .agent-shell/events" \
    -n log "$as log --actor codex --json" >/dev/null)
  local g l
  g=$(median "$out/log.json" grep); l=$(median "$out/log.json" log)
  printf 'median ms: grep %s  agent-shell log %s\n' "$g" "$l"
  python3 -c 'import sys; g,l=map(float,sys.argv[1:]); print("log / grep = %.2f   (goal <= 3)" % (l/g))' "$g" "$l"
  (cd "$work" && /usr/bin/time -f 'peak RSS %M KiB   (goal < 100 MB)' "$as" log --actor codex --json >/dev/null)
  rm -rf "$work"
}

policycheck() {
  echo "== policy-check on a 20-pattern policy.json + 30-rule manifest, 5-command line ($runs runs each) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git" "$work/.github/hooks/agent-shell"
  cp policy/testdata/bench/policy.json policy/testdata/bench/agent-shell.toml "$work/.github/hooks/agent-shell/"
  printf '%s' '{"sessionId":"bench","cwd":"/repo","toolName":"bash","toolArgs":"{\"command\":\"cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short\"}"}' >"$work/payload.json"
  printf '%s' '{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"/repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short"},"tool_use_id":"toolu_bench"}' >"$work/claude.json"
  "$as" policy-check <"$work/payload.json" | grep -q permissionDecision
  # hyperfine runs each command through a shell (for the < redirection) and
  # subtracts the shell's own start-up from every figure.
  (cd "$work" && hyperfine --warmup 20 --runs "$runs" --export-json "$out/policy.json" \
    -n hello "$out/hello < payload.json" \
    -n version "$as --version < payload.json" \
    -n policy-check "$as policy-check < payload.json" \
    -n hook-claude "$as hook --agent claude < claude.json" >/dev/null)
  local hello version check claude
  hello=$(median "$out/policy.json" hello); version=$(median "$out/policy.json" version)
  check=$(median "$out/policy.json" policy-check); claude=$(median "$out/policy.json" hook-claude)
  printf 'median ms: hello %s  agent-shell --version %s  agent-shell policy-check %s  agent-shell hook --agent claude %s\n' "$hello" "$version" "$check" "$claude"
  python3 -c 'import sys; h,v,c=map(float,sys.argv[1:]); print("policy-check / --version = %.2f (goal <= 1.25)   policy-check / hello = %.2f (goal <= 1.6)" % (c/v, c/h))' "$hello" "$version" "$check"
  python3 -c 'import sys; h,v,c=map(float,sys.argv[1:]); print("hook --agent claude / --version = %.2f (goal <= 1.25)   hook --agent claude / hello = %.2f (goal <= 1.6)" % (c/v, c/h))' "$hello" "$version" "$claude"
  echo "== Go benchmarks: normalize + decide =="
  go test ./policy -run '^$' -bench 'Decide' -benchtime 2s
  go test ./policy/shellcmd -run '^$' -bench . -benchtime 2s
  rm -rf "$work"
}

scripts() {
  echo "== policy-check with the same policy plus a matcher, an effect analyzer and an audit filter ($runs runs each) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git" "$work/.github/hooks/agent-shell"
  cp -r policy/testdata/bench-scripts/. "$work/.github/hooks/agent-shell/"
  printf '%s' '{"sessionId":"bench","cwd":"/repo","toolName":"bash","toolArgs":"{\"command\":\"cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short\"}"}' >"$work/payload.json"
  (cd "$work" && "$as" policy-check <payload.json | grep -q permissionDecision && grep -q '"extensions"' .agent-shell/events/bench.jsonl)
  # One --prepare per command (a single one would apply to all three): only
  # the cold runs start with an empty compile cache.
  (cd "$work" && hyperfine --warmup 20 --runs "$runs" --export-json "$out/scripts.json" \
    --prepare true -n version "$as --version < payload.json" \
    --prepare true -n warm "$as policy-check < payload.json" \
    --prepare 'rm -rf .agent-shell/state/cache' -n cold "$as policy-check < payload.json" >/dev/null)
  local version warm cold
  version=$(median "$out/scripts.json" version); warm=$(median "$out/scripts.json" warm); cold=$(median "$out/scripts.json" cold)
  printf 'median ms: agent-shell --version %s  policy-check (cache warm) %s  policy-check (cache empty) %s\n' "$version" "$warm" "$cold"
  python3 -c 'import sys; v,w,c=map(float,sys.argv[1:]); print("warm / --version = %.2f (goal <= 1.35)   cold / --version = %.2f" % (w/v, c/v))' "$version" "$warm" "$cold"
  echo "== Go benchmarks: one warm matcher call =="
  go test ./runtime -run '^$' -bench 'MatcherWarm' -benchtime 2s
  rm -rf "$work"
}

safety() {
  echo "== hook --agent claude with the safety pack at level standard, as init writes it ($runs runs each) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git"
  (cd "$work" && "$as" init --agent claude --yes >/dev/null)
  # The policy benchmark's line (no pack script runs for it: the static
  # matches spare them), and one whose rm -rf runs the pack's matchers.
  local line1='cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short'
  local line2='git status && rm -rf ./dist && npm test -- --grep x | tee log.txt'
  printf '%s' "{\"session_id\":\"bench\",\"cwd\":\"$work\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"$line1\"},\"tool_use_id\":\"toolu_bench\"}" >"$work/line1.json"
  printf '%s' "{\"session_id\":\"bench\",\"cwd\":\"$work\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"$line2\"},\"tool_use_id\":\"toolu_bench\"}" >"$work/line2.json"
  # A first call of each fills the compile cache: the figures are for a warm cache.
  (cd "$work" && "$as" hook --agent claude <line1.json && "$as" hook --agent claude <line2.json && test -s .agent-shell/events/bench.jsonl)
  echo "(interleaved rounds; goal: hook / --version <= 1.5 on each line)"
  (cd "$work" && interleaved "$runs" version "$as --version < line1.json" \
    hook-line1 "$as hook --agent claude < line1.json" \
    hook-line2 "$as hook --agent claude < line2.json")
  echo "== Go benchmarks: loading the pack, deciding with it =="
  go test ./policy -run '^$' -bench 'SafetyPack' -benchtime 2s
  rm -rf "$work"
}

hostile() {
  echo "== hostile input: peak RSS and answer time of each resource bomb (cmd/agent-shell/testdata/script/bombs.txtar) =="
  go test ./cmd/agent-shell -count=1 -run 'TestScripts/bombs$' -v 2>&1 | grep -E '^ +bomb ' | sed 's/^ *//'
  echo "== a 200 KB command line of nested ( … ) after rm -rf x, through hook --agent claude =="
  local work; work=$(mktemp -d); mkdir "$work/.git"
  python3 -c 'import json; n=50000; print(json.dumps({"session_id":"bench","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf x; "+"( "*n+"true"+" )"*n},"tool_use_id":"t"}))' >"$work/nested.json"
  (cd "$work" && wc -c <nested.json && /usr/bin/time -f 'peak RSS %M KiB, %e s' prlimit --as=3221225472 "$as" hook --agent claude <nested.json | cut -c1-160)
  rm -rf "$work"
}

enforce() {
  echo "== agent-shell exec: a command in the sandbox, beside the command alone and one agent-shell start ($runs rounds) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git"
  (cd "$work" && "$as" init --agent claude --yes >/dev/null && touch .npmrc && mkdir -p .agent-shell/events)
  if ! (cd "$work" && "$as" exec -- true); then echo "enforce: no sandbox on this machine (agent-shell doctor says why)"; rm -rf "$work"; return; fi
  (cd "$work" && interleaved "$runs" true "$(command -v true)" version "$as --version" exec-true "$as exec -- $(command -v true)")
  echo "== Go benchmark: true in a sandbox of 8 protected paths (the sandbox's first process is the test binary) =="
  go test ./enforce -run '^$' -bench SandboxTrue -benchtime 200x
  rm -rf "$work"
}

append() {
  echo "== Go benchmarks: append throughput =="
  go test ./telemetry -run '^$' -bench 'Append' -benchtime 2s
}

case $what in
  startup) startup ;;
  log) logquery ;;
  append) append ;;
  hostile) hostile ;;
  policy) policycheck ;;
  scripts) scripts ;;
  safety) safety ;;
  enforce) enforce ;;
  all) startup; logquery; append; policycheck; scripts; safety; hostile; enforce ;;
  *) echo "usage: bench/run.sh [startup|log|append|policy|scripts|safety|hostile|enforce|all]" >&2; exit 2 ;;
esac
