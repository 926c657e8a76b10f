#!/bin/sh
# A fake model program for the model reviewer tests: it reads the request
# on stdin (copied to the file $2, when given) and answers as $1 says.
req=$(cat)
[ -n "$2" ] && printf '%s' "$req" > "$2"
case "$1" in
approve) echo '{"decision":"approve_once","reason":"looks fine"}' ;;
session) echo '{"decision":"approve_scope","scope":"exact_session","reason":"a read-only fetch"}' ;;
durable) echo '{"decision":"approve_scope","scope":"durable_exact"}' ;;
once-scope) echo '{"decision":"approve_scope","scope":"once"}' ;;
deny) echo '{"version":"shell-model-review-v1","decision":"deny","reason":"not that host"}' ;;
defer) echo '{"decision":"defer"}' ;;
prose) echo 'Sure! Here is my answer: {"decision":"approve_once"}' ;;
trailing) echo '{"decision":"approve_once"} I hope this helps.' ;;
fenced) printf '```json\n{"decision":"approve_once"}\n```\n' ;;
duplicate) echo '{"decision":"deny","decision":"approve_once"}' ;;
unknown) echo '{"decision":"approve_once","tools":["bash"]}' ;;
no-reason) echo '{"decision":"deny"}' ;;
huge) head -c 20000 /dev/zero | tr '\0' ' '; echo '{"decision":"approve_once"}' ;;
slow) sleep 10; echo '{"decision":"approve_once"}' ;;
crash) echo '{"decision":"approve_once"}'; kill -SEGV $$ ;;
fail) echo '{"decision":"approve_once"}'; echo 'model unreachable' >&2; exit 3 ;;
*) echo "fake-model: unknown mode $1" >&2; exit 2 ;;
esac
