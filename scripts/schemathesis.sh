#!/usr/bin/env bash
# Property-based API test: schemathesis (PyPI, in a venv) generates requests from /openapi.json against a started
# daemon, with a fixed example budget and seed; any server error or response outside the schema fails. Streams are
# left out: they are infinite responses by design (StreamTests cover them).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv-ci}
[ -x "$VENV/bin/schemathesis" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "schemathesis==4.32.5"; }

swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
source scripts/lib.sh
start_specd api "$BIN" --fsync never
PID=${PIDS[-1]}
PORT=$(cat "$WORK/api.port")

timeout 900 "$VENV/bin/schemathesis" run "http://127.0.0.1:$PORT/openapi.json" \
  --max-examples "${EXAMPLES:-30}" --seed 1 --workers 1 --request-timeout 10 \
  --exclude-path-regex "(/stream|/ofrep/v1/events)$" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  | tee "$WORK/out" | tail -25 || true
kill -0 $PID  # the daemon must still be alive
summary=$(grep -E '^[[:space:]]*[0-9]+ generated' "$WORK/out" || true)
generated=$(grep -oE '[0-9]+ generated' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
passed=$(grep -oE '[0-9]+ passed' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
echo "schemathesis: $passed passed, $((generated - passed)) failed"
[ "$generated" -gt 0 ] && [ "$generated" -eq "$passed" ]
