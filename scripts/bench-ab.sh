#!/usr/bin/env bash
# Two specd binaries on one row of scripts/bench.sh, alternated in short runs: per run, each server's rate, its
# user and kernel CPU per request and wrk's p99 latency; then each binary's medians and B/A. On a host whose neighbours take the CPU in
# bursts (the `steal` of bench.sh), a burst lands on a run or two of one side, which the medians drop, where a long
# run of each side in turn put the whole burst on one of them. The servers run side by side, warmed once, pinned.
#   [ROW=read|write-never|write-always] [ROUNDS=12] [DURATION=2] [CONNECTIONS=32] scripts/bench-ab.sh BIN_A BIN_B
# Loopback only; every wrk run is bounded by DURATION (and a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || {
  echo "usage: [ROW=read|write-never|write-always] [ROUNDS=12] [DURATION=2] scripts/bench-ab.sh BIN_A BIN_B" >&2
  exit 2
}
ROW=${ROW:-read}
ROUNDS=${ROUNDS:-12}
DURATION=${DURATION:-2}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=1
case $ROW in
  read) SCRIPT=bench/wrk/users-get.lua FSYNC=never ;;
  write-never) SCRIPT=bench/wrk/users-donate.lua FSYNC=never ;;
  write-always) SCRIPT=bench/wrk/users-donate.lua FSYNC=always ;;
  *)
    echo "bench-ab: ROW is read, write-never or write-always" >&2
    exit 2
    ;;
esac
export SERVER_CPU=${SERVER_CPU:-1} LOAD_CPU=${LOAD_CPU:-0}
source scripts/lib.sh
ensure_wrk_nginx
pin_cores
HZ=$(getconf CLK_TCK)

start_specd a "$1" --fsync "$FSYNC" --log-level warn
PID_A=${PIDS[-1]}
start_specd b "$2" --fsync "$FSYNC" --log-level warn
PID_B=${PIDS[-1]}
PORT_A=$(cat "$WORK/a.port")
PORT_B=$(cat "$WORK/b.port")
# Warmed alike: every user read (or donated to) several times, the answer cache full, before any run counts.
for port in "$PORT_A" "$PORT_B"; do
  timeout 60 "${LOAD_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d4s -s "$SCRIPT" "http://127.0.0.1:$port" >/dev/null
done

# one SIDE PID PORT: a run of DURATION; appends "SIDE requests user_ticks system_ticks p99_us".
one() {
  local side=$1 pid=$2 port=$3 user0 sys0 user1 sys1 requests p99
  read -r user0 sys0 <<<"$(awk '{print $14, $15}' "/proc/$pid/stat")"
  read -r requests p99 <<<"$(timeout $((DURATION + 30)) "${LOAD_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency \
    -s "$SCRIPT" "http://127.0.0.1:$port" | awk '/requests in/ {n=$1}
      $1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v)} else if (v ~ /ms$/) {sub(/ms/,"",v); v=v*1000} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1e6}; p=v}
      END {print n, p}')"
  read -r user1 sys1 <<<"$(awk '{print $14, $15}' "/proc/$pid/stat")"
  echo "$side $requests $((user1 - user0)) $((sys1 - sys0)) $p99" >>"$WORK/runs"
  # A write row leaves delayed trigger fires behind (see `settle`): they run before the other side's turn.
  [ "$ROW" = read ] || settle "$pid" "$port"
}

: >"$WORK/runs"
for round in $(seq "$ROUNDS"); do
  # Each round starts with the other side, so neither always runs right after the load generator warmed up.
  if [ $((round % 2)) = 1 ]; then
    one A "$PID_A" "$PORT_A"
    one B "$PID_B" "$PORT_B"
  else
    one B "$PID_B" "$PORT_B"
    one A "$PID_A" "$PORT_A"
  fi
done

echo "row $ROW: $ROUNDS runs of ${DURATION}s per binary, alternated; medians (A: $1, B: $2)"
python3 - "$WORK/runs" "$DURATION" "$HZ" <<'PY'
import statistics, sys
path, seconds, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
runs = {"A": [], "B": []}
for line in open(path):
    side, requests, user, system, p99 = line.split()
    requests = int(requests)
    if requests == 0:
        continue
    us = 1e6 / hz / requests
    runs[side].append((requests / seconds, int(user) * us, int(system) * us, float(p99)))
if not runs["A"] or not runs["B"]:
    sys.exit("bench-ab: a side answered no request")
medians = {side: [statistics.median(run[i] for run in rows) for i in range(3)] + [statistics.median(run[1] + run[2] for run in rows),
                  statistics.median(run[3] for run in rows)]
           for side, rows in runs.items()}
print(f"{'':4}{'req/s':>10}{'user us/req':>14}{'sys us/req':>13}{'cpu us/req':>13}{'p99 us':>10}")
for side in "AB":
    rate, user, system, total, p99 = medians[side]
    print(f"{side:4}{rate:>10.0f}{user:>14.2f}{system:>13.2f}{total:>13.2f}{p99:>10.0f}")
print(f"{'B/A':4}" + "".join(f"{medians['B'][i] / medians['A'][i]:>{w}.3f}" for i, w in [(0, 10), (1, 14), (2, 13), (3, 13), (4, 10)]))
PY
