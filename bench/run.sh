#!/usr/bin/env bash
# Times the real agent-shell binary as a whole process, beside the floors it is
# judged against, and runs the Go benchmarks of the hot paths.
#
#   bench/run.sh [startup|log|append|policy|scale|scripts|safety|hostile|enforce|peers|goals|compare|all]   (default: all)
#
# Needs python3, go and /usr/bin/time (no hyperfine): every timing is
# interleaved (round after round of A B C ..., so a drift in the machine's
# speed touches all alike) and reported as medians, ratios as the median of
# the per-round ratios. `goals` runs the sections that carry the goals of
# the lean-hot-path issue (startup, policy, scale, peers) and nothing else.
# `peers` also needs node and npm (it installs cc-safety-net on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
runs=${RUNS:-200}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export CGO_ENABLED=0

# Each binary is timed from fresh copies: one run straight from the file
# `go build -o` wrote measured up to 20% slower than a copy of the same
# bytes, and two fresh copies of one binary differ by up to 7% here (how
# the kernel caches each file's pages). So each binary has COPIES copies
# (default 3), FILE, FILE.1, FILE.2 ..., and round r runs copy r mod COPIES
# (see rotate below).
copies=${COPIES:-3}
fresh() { # fresh SRC DST: DST and its COPIES-1 siblings, each a new copy of SRC
  cp "$1" "$2"
  for ((k = 1; k < copies; k++)); do cp "$1" "$2.$k"; done
}
go build -o "$out/agent-shell.built" ./cmd/agent-shell
go build -o "$out/hello.built" ./bench/hello
# AS_BIN=FILE times that agent-shell binary instead (another revision's).
fresh "${AS_BIN:-$out/agent-shell.built}" "$out/agent-shell"
fresh "$out/hello.built" "$out/hello"
rm -f "$out/agent-shell.built" "$out/hello.built"
as=$out/agent-shell
export BENCH_ROTATE="$out/agent-shell $out/hello" BENCH_COPIES=$copies

# interleaved RUNS [OPTION...] NAME CMD [NAME CMD...]: runs each command in
# turn, round after round, each with stdin from the file after its '<', and
# prints every command's median wall ms and the median of
# its per-round ratio to the first. Options, before the first NAME:
#   --ratio 'LABEL=EXPR<=GOAL'  also print the median over rounds of EXPR (LABEL
#                               holds no '='), a
#                               Python expression of the commands' names
#                               (- read as _) bound to that round's times,
#                               beside its goal (GOAL may be empty; >=GOAL
#                               for a floor instead of a ceiling)
#   --rss 'NAME<=MIB'           print NAME's peak RSS (median of 5 runs under
#                               /usr/bin/time) beside a goal
#   --prepare 'NAME=SHELL'      run SHELL (untimed) before each run of NAME
#   --pipe                      commands write to a pipe that is drained,
#                               not to /dev/null
interleaved() {
  python3 - "$@" <<'PY'
import os, shlex, statistics, subprocess, sys, time
runs = int(sys.argv[1]); args = sys.argv[2:]
ratios, rss_goals, prepare, pipe = [], [], {}, False
while args and args[0].startswith("--"):
    opt = args.pop(0)
    if opt == "--pipe":
        pipe = True; continue
    val = args.pop(0)
    if opt == "--ratio":
        label, rest = val.split("=", 1); cmp = ">=" if ">=" in rest else "<="
        expr, _, goal = rest.partition(cmp)
        ratios.append((label, expr, cmp, goal))
    elif opt == "--rss":
        n, _, goal = val.partition("<="); rss_goals.append((n, float(goal)))
    elif opt == "--prepare":
        n, c = val.split("=", 1); prepare[n] = c
    else:
        sys.exit("interleaved: unknown option " + opt)
cmds = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
# rotate: a word naming one of the binaries in BENCH_ROTATE is, in round r,
# its copy r mod BENCH_COPIES (the file itself, then FILE.1, FILE.2, ...).
rotated = set(os.environ.get("BENCH_ROTATE", "").split())
ncopies = int(os.environ.get("BENCH_COPIES", "1"))
round_no = 0
def rotate(word):
    k = round_no % ncopies
    return word if k == 0 or word not in rotated else "%s.%d" % (word, k)
def run(name, cmd):
    if name in prepare:
        subprocess.run(prepare[name], shell=True, check=True)
    words = [rotate(w) for w in shlex.split(cmd)]
    stdin = None
    if "<" in words:
        i = words.index("<"); stdin = open(words[i + 1], "rb"); words = words[:i]
    out = subprocess.PIPE if pipe else subprocess.DEVNULL
    t = time.perf_counter()
    p = subprocess.Popen(words, stdin=stdin, stdout=out, stderr=subprocess.DEVNULL)
    if pipe:
        while p.stdout.read(1 << 16):
            pass
    p.wait()
    el = time.perf_counter() - t
    if stdin: stdin.close()
    if pipe: p.stdout.close()
    return el
# The peak RSS of one run, through /usr/bin/time: a child of this Python
# process would inherit its high-water mark across exec.
def peak(name, cmd):
    if name in prepare:
        subprocess.run(prepare[name], shell=True, check=True)
    words = shlex.split(cmd)
    stdin = None
    if "<" in words:
        i = words.index("<"); stdin = open(words[i + 1], "rb"); words = words[:i]
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + words, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1])
warm = max(2, min(10, runs // 10))
for round_no in range(warm):
    for n, c in cmds: run(n, c)
times = {n: [] for n, _ in cmds}
for round_no in range(runs):
    for n, c in cmds:
        times[n].append(run(n, c))
base = cmds[0][0]
for n, _ in cmds:
    ratio = statistics.median(a / b for a, b in zip(times[n], times[base]))
    print("%-14s median %8.3f ms   per-round ratio to %s %.2f" % (n, statistics.median(times[n]) * 1000, base, ratio))
for label, expr, cmp, goal in ratios:
    code = compile(expr, label, "eval")
    vals = []
    for i in range(runs):
        env = {n.replace("-", "_"): times[n][i] for n, _ in cmds}
        vals.append(eval(code, {}, env))
    v = statistics.median(vals)
    verdict = ""
    if goal:
        met = v <= float(goal) if cmp == "<=" else v >= float(goal)
        verdict = "(goal %s %s: %s)" % (cmp, goal, "met" if met else "NOT met")
    print("RATIO %-40s %6.2f   %s" % (label, v, verdict))
for n, goal in rss_goals:
    v = statistics.median(peak(n, dict(cmds)[n]) for _ in range(5)) / 1024
    print("RSS   %-40s %6.1f MiB   (goal < %g MiB: %s)" % (n, v, goal, "met" if v < goal else "NOT met"))
PY
}

# claude_payload FILE COMMAND: a Claude Code PreToolUse payload for a Bash call.
claude_payload() {
  python3 -c 'import json,sys; print(json.dumps({"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"/repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":sys.argv[2]},"tool_use_id":"toolu_bench"}), end="", file=open(sys.argv[1], "w"))' "$1" "$2"
}

startup() {
  echo "== start-up: shim overhead over the hello-world floor ($runs interleaved rounds) =="
  local work; work=$(mktemp -d); mkdir "$work/.git"
  (cd "$work" && AGENTSHELL_SESSION_ID=bench interleaved "$runs" \
    --ratio 'shim overhead (shim - sh) / hello=(shim-sh)/hello<=1.6' \
    --ratio '--version / hello=version/hello<=' \
    hello "$out/hello" \
    sh "/bin/sh -c true" \
    shim "$as -c true" \
    version "$as --version" \
    passthrough "env AGENTSHELL_PASSTHROUGH=1 $as -c true")
  rm -rf "$work"
}

logquery() {
  local events=${EVENTS:-1000000} files=${FILES:-100}
  echo "== log --actor X --json over $events events in $files files =="
  local work; work=$(mktemp -d); mkdir "$work/.git"
  go run ./bench/genevents -dir "$work/.agent-shell/events" -files "$files" -events "$events" -actors 5
  du -sh "$work/.agent-shell/events"
  # --pipe: GNU grep stops at its first match when it writes to /dev/null.
  (cd "$work" && interleaved "${LOGRUNS:-10}" --pipe --ratio 'log / grep=log/grep<=3' --rss 'log<=100' \
    grep "grep -h '\"actor\":\"codex\"' -r .agent-shell/events" \
    log "$as log --actor codex --json")
  rm -rf "$work"
}

policycheck() {
  echo "== policy-check on a 20-pattern policy.json + 30-rule manifest, 5-command line ($runs interleaved rounds) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git" "$work/.github/hooks/agent-shell"
  cp policy/testdata/bench/policy.json policy/testdata/bench/agent-shell.toml "$work/.github/hooks/agent-shell/"
  printf '%s' '{"sessionId":"bench","cwd":"/repo","toolName":"bash","toolArgs":"{\"command\":\"cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short\"}"}' >"$work/payload.json"
  claude_payload "$work/claude.json" 'cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short'
  "$as" policy-check <"$work/payload.json" | grep -q permissionDecision
  (cd "$work" && interleaved "$runs" \
    --ratio 'hook --agent claude / hello=hook_claude/hello<=1.8' \
    --ratio 'hook --agent claude / --version=hook_claude/version<=1.15' \
    --ratio 'policy-check / hello=policy_check/hello<=' \
    --ratio 'policy-check / --version=policy_check/version<=' \
    hello "$out/hello < payload.json" \
    version "$as --version < payload.json" \
    policy-check "$as policy-check < payload.json" \
    hook-claude "$as hook --agent claude < claude.json")
  rm -rf "$work"
  [ "${GOBENCH:-1}" = 1 ] || return 0
  echo "== Go benchmarks: normalize + decide =="
  go test ./policy -run '^$' -bench 'Decide' -benchtime 2s
  go test ./policy/shellcmd -run '^$' -bench . -benchtime 2s
}

# gen_manifest FILE N: a manifest of N rules of the kinds the bench policy
# uses (argv prefixes with arguments, basenames, effects; a regexp in one
# rule of 100: each is compiled on every call), none of which matches the bench lines, written tight to stay under the manifest's
# 1 MiB cap.
gen_manifest() {
  python3 - "$1" "$2" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
out = ['version = 1', '', '[policy]', 'default = "allow"', 'unknown = "ask"', '']
for i in range(n):
    k = i % 4
    if i % 100 == 99: m = '{program_regex="^t%d-(a|b)$"}' % i
    elif k == 0: m = '{argv_prefix=["t%d","push"],argument="--force"}' % i
    elif k == 1: m = '{basename="t%d",argument=["/","~"]}' % i
    elif k == 2: m = '{effect="write:/opt/t%d/**"}' % i
    else: m = '{argv_prefix=["t%d"],argument_contains="secret"}' % i
    action = ("deny", "ask", "deny", "deny")[k]
    out += ['[[rule]]', 'id="r%d"' % i, 'action="%s"' % action, 'match=%s' % m]
open(path, "w").write("\n".join(out))
PY
}

scale() {
  echo "== growth: hook --agent claude on the bench policy, 1 vs 3,000 simple commands; 10 vs 10,000 manifest rules ($runs interleaved rounds) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git" "$work/.github/hooks/agent-shell"
  cp policy/testdata/bench/policy.json policy/testdata/bench/agent-shell.toml "$work/.github/hooks/agent-shell/"
  claude_payload "$work/one.json" 'git status --short'
  # 3,000 commands that fit in the 64 KiB the rules read (51 KB): a longer
  # line is denied unread, which would time the refusal, not the check.
  claude_payload "$work/many.json" "$(python3 -c 'print(" && ".join("git status -s" for _ in range(3000)))')"
  local r10 r10k; r10=$(mktemp -d); r10k=$(mktemp -d)
  mkdir -p "$r10/.git" "$r10/.github/hooks/agent-shell" "$r10k/.git" "$r10k/.github/hooks/agent-shell"
  gen_manifest "$r10/.github/hooks/agent-shell/agent-shell.toml" 10
  gen_manifest "$r10k/.github/hooks/agent-shell/agent-shell.toml" 10000
  if (cd "$work" && "$as" hook --agent claude <many.json | grep -q deny); then
    echo "scale: the 3,000-command line is denied, not checked" >&2; exit 1
  fi
  (cd "$r10k" && "$as" hook --agent claude <"$work/one.json" >/dev/null)
  (cd "$r10k" && "$as" policy check >/dev/null) || { echo "scale: the 10,000-rule manifest does not load" >&2; exit 1; }
  (cd "$work" && interleaved "$runs" \
    --ratio '3,000 commands / 1 command=cmds3000/cmds1<=5' \
    --ratio '10,000 rules / 10 rules=rules10000/rules10<=2' \
    --rss 'cmds3000<=32' \
    cmds1 "$as hook --agent claude < one.json" \
    cmds3000 "$as hook --agent claude < many.json" \
    rules10 "env -C $r10 $as hook --agent claude < one.json" \
    rules10000 "env -C $r10k $as hook --agent claude < one.json")
  rm -rf "$work" "$r10" "$r10k"
}

scripts() {
  echo "== policy-check with the same policy plus a matcher, an effect analyzer and an audit filter ($runs interleaved rounds) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git" "$work/.github/hooks/agent-shell"
  cp -r policy/testdata/bench-scripts/. "$work/.github/hooks/agent-shell/"
  printf '%s' '{"sessionId":"bench","cwd":"/repo","toolName":"bash","toolArgs":"{\"command\":\"cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short\"}"}' >"$work/payload.json"
  (cd "$work" && "$as" policy-check <payload.json | grep -q permissionDecision && grep -q '"extensions"' .agent-shell/events/bench.jsonl)
  # Only the cold runs start with an empty compile cache.
  (cd "$work" && interleaved "$runs" \
    --prepare 'cold=rm -rf .agent-shell/state/cache' \
    --ratio 'warm / --version=warm/version<=1.35' \
    --ratio 'cold / --version=cold/version<=' \
    version "$as --version < payload.json" \
    warm "$as policy-check < payload.json" \
    cold "$as policy-check < payload.json")
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

peers() {
  # cc-safety-net, the fastest peer with the same job (a Claude Code
  # PreToolUse hook judging a shell command), installed from npm on demand
  # into a cache folder; PEER_RUNS rounds (it takes ~150 ms a call).
  local version=2.4.5 cache=${XDG_CACHE_HOME:-$HOME/.cache}/agent-shell-bench/cc-safety-net
  local ccsn=$cache/node_modules/cc-safety-net/dist/bin/cc-safety-net.js
  if [ ! -f "$ccsn" ] || ! grep -q "\"version\": \"$version\"" "$cache/node_modules/cc-safety-net/package.json"; then
    mkdir -p "$cache"
    npm install --silent --no-audit --no-fund --prefix "$cache" "cc-safety-net@$version" >/dev/null ||
      { echo "peers: could not install cc-safety-net@$version from npm"; return; }
  fi
  local prounds=${PEER_RUNS:-40}
  echo "== hook for Claude Code: agent-shell (init's safety pack, standard) against cc-safety-net $version ($prounds interleaved rounds) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git"
  (cd "$work" && "$as" init --agent claude --yes >/dev/null)
  local n=0 line
  for line in 'ls -la' 'git status' 'git reset --hard' 'python -c "import os; print(os.getcwd())"'; do
    n=$((n + 1))
    claude_payload "$work/p$n.json" "$line"
    (cd "$work" && "$as" hook --agent claude <"p$n.json" >/dev/null)  # fills the compile cache
    echo "-- $line"
    (cd "$work" && interleaved "$prounds" \
      --ratio "cc-safety-net / agent-shell=ccsn/agent_shell>=25" \
      agent-shell "$as hook --agent claude < p$n.json" \
      ccsn "node $ccsn hook --claude-code < p$n.json")
  done
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
  echo "== Go benchmark: true alone (plain), in a sandbox of 8 protected paths by the fast start, and with the test binary as its first process =="
  go test ./enforce -run '^$' -bench SandboxTrue -benchtime 200x
  rm -rf "$work"
}

compare() {
  # AS_OLD=FILE: another build of agent-shell, timed round after round
  # against this one on the hook, --version and the shim.
  [ -n "${AS_OLD:-}" ] || { echo "compare: set AS_OLD to the other agent-shell binary" >&2; exit 2; }
  fresh "$AS_OLD" "$out/agent-shell-old"
  local old=$out/agent-shell-old
  BENCH_ROTATE="$BENCH_ROTATE $old"
  echo "== this build against $AS_OLD on the bench policy ($runs interleaved rounds) =="
  local work; work=$(mktemp -d); mkdir -p "$work/.git" "$work/.github/hooks/agent-shell"
  cp policy/testdata/bench/policy.json policy/testdata/bench/agent-shell.toml "$work/.github/hooks/agent-shell/"
  claude_payload "$work/claude.json" 'cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short'
  (cd "$work" && AGENTSHELL_SESSION_ID=bench interleaved "$runs" \
    --ratio 'hook new / old=hook_new/hook_old<=' \
    --ratio 'version new / old=version_new/version_old<=' \
    --ratio 'shim new / old=shim_new/shim_old<=' \
    hello "$out/hello" \
    hook-old "$old hook --agent claude < claude.json" \
    hook-new "$as hook --agent claude < claude.json" \
    version-old "$old --version" \
    version-new "$as --version" \
    shim-old "$old -c true" \
    shim-new "$as -c true")
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
  scale) scale ;;
  scripts) scripts ;;
  safety) safety ;;
  enforce) enforce ;;
  peers) peers ;;
  compare) compare ;;
  goals) startup; GOBENCH=0 policycheck; scale; peers ;;
  all) startup; logquery; append; policycheck; scale; scripts; safety; hostile; enforce; peers ;;
  *) echo "usage: bench/run.sh [startup|log|append|policy|scale|scripts|safety|hostile|enforce|peers|goals|compare|all]" >&2; exit 2 ;;
esac
