#!/usr/bin/env bash
# Starts the real daemon twice on ephemeral loopback ports (`--fsync never` and `--fsync always`) and runs the hostile
# TCP clients of scripts/hostile_tcp.py against them: half-closes, resets and slow readers at the moments that used
# to spin a loop or cut an answer. `SPECD_BIN=path` tries another binary.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${SPECD_BIN:-}" ]; then
  swift build --product specd >/dev/null
  SPECD_BIN=$(swift build --show-bin-path)/specd
fi
source scripts/lib.sh
if ! command -v ss >/dev/null 2>&1; then
  echo "installing iproute2 (ss) from apt" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
fi
start_specd never "$SPECD_BIN" --fsync never --loops 1 --log-level warn
NEVER_PID=${PIDS[-1]}
start_specd always "$SPECD_BIN" --fsync always --loops 1 --log-level warn
ALWAYS_PID=${PIDS[-1]}
start_specd capped "$SPECD_BIN" --fsync never --loops 1 --max-connections 2 --log-level warn
CAPPED_PID=${PIDS[-1]}
timeout 300 python3 scripts/hostile_tcp.py "$(cat "$WORK/never.port")" "$NEVER_PID" "$(cat "$WORK/always.port")" "$ALWAYS_PID" \
  "$(cat "$WORK/capped.port")" "$CAPPED_PID"
