#!/usr/bin/env bash
# Reads and writes at once under `--fsync always`: half the connections donate (POST /v1/users/{u}/events/appStarted),
# half read a flag (GET /v1/users/{u}/flags/promo-banner), both from the load CPU against a server pinned to the
# other. What it shows is whether a read waits behind a write's fsync: a loop that waits for the disk reads nothing
# meanwhile. Given two binaries it alternates them ROUNDS times and prints each run and the medians, B against A.
#   [ROUNDS=3] [DURATION=5] [CONNECTIONS=16] scripts/bench-mixed.sh BIN_A [BIN_B]
# Loopback only; every wrk run is bounded by DURATION (and a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || {
  echo "usage: scripts/bench-mixed.sh BIN_A [BIN_B]" >&2
  exit 2
}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=1
export SERVER_CPU=${SERVER_CPU:-1} LOAD_CPU=${LOAD_CPU:-0}
source scripts/lib.sh
ensure_wrk_nginx
pin_cores
RESULTS="$WORK/results"
: >"$RESULTS"

# one LABEL BIN: a fresh daemon, two seconds of donations to warm it, then both loads at once for DURATION.
one() {
  local label=$1 bin=$2 port pid writes reads
  start_specd "$label" "$bin" --fsync always --log-level warn
  pid=${PIDS[-1]}
  port=$(cat "$WORK/$label.port")
  timeout 30 "${LOAD_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d2s -s bench/wrk/users-donate.lua "http://127.0.0.1:$port" >/dev/null
  wrk_measure "$port" bench/wrk/users-donate.lua >"$WORK/writes" &
  local writer=$!
  reads=$(wrk_measure "$port" bench/wrk/users-get.lua)
  wait "$writer"
  writes=$(cat "$WORK/writes")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$WORK/data-$label" "$WORK/$label.port"
  # label reads/s reads-p99 writes/s writes-p99
  echo "$label ${reads%% *} $(cut -d' ' -f2 <<<"$reads") ${writes%% *} $(cut -d' ' -f2 <<<"$writes")" | tee -a "$RESULTS"
}

echo "label reads/s reads-p99-ms writes/s writes-p99-ms"
for round in $(seq "$ROUNDS"); do
  one A "$1"
  if [ $# -ge 2 ]; then one B "$2"; fi
done
echo
echo "medians over $ROUNDS rounds"
python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, *values = line.split()
    rows.setdefault(label, []).append([float(v) for v in values])
names = ["reads/s", "reads p99 ms", "writes/s", "writes p99 ms"]
medians = {label: [statistics.median(run[i] for run in runs) for i in range(4)] for label, runs in rows.items()}
for label, values in medians.items():
    print(label, "  ".join(f"{name} {value:.6g}" for name, value in zip(names, values)))
if "A" in medians and "B" in medians:
    print("B/A", "  ".join(f"{name} {b / a:.3f}" for name, a, b in zip(names, medians["A"], medians["B"])))
PY
