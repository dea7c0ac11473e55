#!/usr/bin/env bash
# The OpenFeature flagd-testbed evaluator suite against specd over OFREP, with the testkit flags loaded as a flagd
# rule set. Target: 125 passed, 0 failed. COMPAT is a checkout of the external OpenFeature flagd-testbed suite: the
# directory holding the testbed (flagd-testbed/) and its runner (run_flagd_testbed.py). The default is where CI keeps
# it, next to the repository; set COMPAT to use your own. The README's Development section lists this suite.
set -euo pipefail
cd "$(dirname "$0")/.."
COMPAT=${COMPAT:-../shared/compat}
swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
source scripts/lib.sh
start_specd testbed "$BIN" --rules "$COMPAT/flagd-testbed/evaluator/flags/testkit-flags.json" --fsync never
PORT=$(cat "$WORK/testbed.port")
out=$(cd "$COMPAT" && timeout 600 python3 run_flagd_testbed.py --ofrep "http://127.0.0.1:$PORT") || { echo "$out"; exit 1; }
echo "$out" | tail -20
line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
passed=$(grep -oE '^[0-9]+' <<<"$line")
failed=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
echo "testbed: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -ge 125 ]
