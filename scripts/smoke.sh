#!/usr/bin/env bash
# Starts the real daemon on an ephemeral loopback port and checks what a newcomer's first curl would see,
# then that SIGTERM drains and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
source scripts/lib.sh
start_specd smoke "$BIN"
PID=${PIDS[-1]}
PORT=$(cat "$WORK/smoke.port")
BASE="http://127.0.0.1:$PORT"
passed=0
failed=0
check() { # name, expected, actual
  if [ "$2" == "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: expected '$2', got '$3'"; fi
}
check "healthz body" '{"status":"ok"}' "$(curl -s "$BASE/healthz")"
check "unknown route" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/nope")"
check "wrong method" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$BASE/healthz")"
check "request id" 1 "$(curl -si "$BASE/healthz" | grep -ci '^x-request-id:')"
check "first log line" listening "$(head -1 "$WORK/smoke.log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["msg"])')"
kill -TERM $PID
status=0
wait $PID || status=$?
check "exit code after SIGTERM" 0 "$status"
echo "smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
