#!/usr/bin/env bash
# kill -9 crash test, long form: ROUNDS rounds (default 1000) of the store crash test — a writer with three threads
# under fsync always and interval (alternating), killed at a random moment (during recovery, writes, rotations,
# snapshots), then recovered and checked: everything acknowledged is there, no batch half-applied, seq never back.
#   scripts/crash.sh [ROUNDS]
# The last line is `crash: N passed, M failed`; the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-1000}
REPORT=$(mktemp)
LOG=$(mktemp)
trap 'rm -f "$REPORT" "$LOG"' EXIT

swift build --build-tests >/dev/null
status=0
SPECD_CRASH_ROUNDS=$ROUNDS SPECD_CRASH_REPORT=$REPORT swift test --skip-build --filter 'CrashTests' >"$LOG" 2>&1 || status=$?
grep -E '^crash: |recorded an issue' "$LOG" | head -20 >&2 || true
read -r passed failed <"$REPORT" || { passed=0; failed=$ROUNDS; }
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  tail -20 "$LOG" >&2
  failed=1
fi
echo "crash: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
