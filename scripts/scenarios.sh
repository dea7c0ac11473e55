#!/usr/bin/env bash
# Runs the shipped scenario files (config/scenarios) with `specd test`, writing JUnit XML to $JUNIT (default
# .build/scenarios.xml). Prints the report and ends with 'scenarios: N passed, M failed' (N, M: assertions).
set -uo pipefail
cd "$(dirname "$0")/.."
swift build --product specd >/dev/null || { echo "scenarios: 0 passed, 1 failed (build)"; exit 1; }
BIN=$(swift build --show-bin-path)/specd
JUNIT=${JUNIT:-.build/scenarios.xml}
"$BIN" test config/scenarios --junit "$JUNIT" | tee .build/scenarios.log
status=${PIPESTATUS[0]}
summary=$(grep -E '^test: ' .build/scenarios.log | tail -1)
total=$(echo "$summary" | grep -oE '[0-9]+ assertion' | grep -oE '[0-9]+')
failed=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
echo "scenarios: $(( ${total:-0} - ${failed:-0} )) passed, ${failed:-1} failed"
[ "$status" -eq 0 ]
