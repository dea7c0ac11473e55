#!/usr/bin/env bash
# Soak: DURATION seconds (600) of mixed writes, reads and OFREP at RATE requests/s, with STREAMS (500) user streams
# that reconnect with Last-Event-ID. Reports RSS, open descriptors and p99 after warm-up and at the end, and checks
# that every acknowledged write reached its user's stream (no id gaps). Loopback only; bounded in time.
#   DURATION=600 WARMUP=120 STREAMS=500 RATE=400 SNAPSHOT_EVERY=20000 scripts/soak.sh
# Snapshots every SNAPSHOT_EVERY records (about every 90 s at the default rate) so that the measured window holds
# several: a snapshot that leaked would show as growth. Warm-up lasts at least WARMUP seconds and until the stream
# resume window is full and the first snapshot is taken (see scripts/soak.py). The load client runs under nice.
# SPECD_BIN names a prebuilt specd to soak instead of building this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-600}
WARMUP=${WARMUP:-120}
STREAMS=${STREAMS:-500}
RATE=${RATE:-400}
SNAPSHOT_EVERY=${SNAPSHOT_EVERY:-20000}
ulimit -n 65536 2>/dev/null || true
source scripts/lib.sh
if [ -n "${SPECD_BIN:-}" ]; then
  BIN=$SPECD_BIN
else
  swift build -c release --product specd >/dev/null
  BIN=$(swift build -c release --show-bin-path)/specd
fi
start_specd soak "$BIN" --fsync interval --log-level warn --max-connections-per-client 4096 \
  --snapshot-every "$SNAPSHOT_EVERY"
PORT=$(cat "$WORK/soak.port")
PID=${PIDS[-1]}
set +e
timeout $((DURATION + 180)) nice -n 10 python3 scripts/soak.py --port "$PORT" --pid "$PID" --duration "$DURATION" \
  --warmup "$WARMUP" --streams "$STREAMS" --rate "$RATE"
status=$?
set -e
if [ "$status" -eq 0 ]; then echo "soak: 1 passed, 0 failed"; else echo "soak: 0 passed, 1 failed"; exit 1; fi
