#!/usr/bin/env bash
# Instructions and allocations per request, counted by callgrind: a number that a busy or shared machine does not
# blur, unlike requests per second. For each binary, `specd serve --loops 1` runs under valgrind twice, answering
# nothing and then N requests over one keep-alive curl connection on loopback (N distinct users); the difference
# divided by N is the cost of one request, start-up and shutdown cancelled out.
#   GET  /v1/users/u{i}/flags/promo-banner   (one decision; unknown users, so no context is stored)
#   GET  the same, N/10 users read ten times each (reread: nine reads in ten find the answer kept, README,
#        limits.answerCacheBytes)
#   POST /v1/users/d{i}/events/appStarted    (a donation, --fsync never; DONATIONS=0 skips it)
#   POST /v1/users/r{i}/events/appStarted    (repeat: N/10 users donating ten times each with X-App-Version,
#                                             as the wall-clock write benchmark does; DONATIONS=0 skips it)
#   POST the same, steady: N/10 users, each already past its trigger's one fire (four donations and the fire, in
#        both runs, before the count starts), donating ten times each: what the write benchmark's rounds after the
#        first do, where every fire is throttled for a month and none is scheduled (repeat counts the fires that
#        its own donations schedule, and skip, some 13 k instructions a donation; DONATIONS=0 skips it)
#   POST the same, parallel: steady, but each pass over the users goes over 16 connections at once (curl -Z), so a
#        round and a log batch hold several donations, as under the wall-clock load (not in the default kinds)
# FSYNC=always runs the daemon under `--fsync always`; ONE_CPU=1 runs it on one CPU (taskset), where it commits its
# log on the loop as the pinned benchmarks do (on two CPUs it hands busy batches to the log's writer thread).
# Given two binaries, prints both and the ratio B/A, measured in the same run.
#   [N=2000] [DONATIONS=1] [KINDS="get reread donate repeat steady parallel"] [FSYNC=never] [ONE_CPU=0] scripts/bench-instructions.sh BIN_A [BIN_B]
# Binaries stripped of debug info (`strip --strip-debug`) start much faster under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
DONATIONS=${DONATIONS:-1}
FSYNC=${FSYNC:-never}
PIN=()
[ "${ONE_CPU:-0}" = 0 ] || PIN=(taskset -c 1)
[ $# -ge 1 ] || {
  echo "usage: scripts/bench-instructions.sh BIN_A [BIN_B]" >&2
  exit 2
}
command -v valgrind >/dev/null || {
  echo "valgrind is required (apt-get install valgrind)" >&2
  exit 2
}
source scripts/lib.sh

# wait_fires PORT: until no delayed fire is pending (the example rules delay theirs 5 s), at most a minute more.
wait_fires() {
  sleep 6
  for _ in $(seq 60); do
    curl -s "http://127.0.0.1:$1/v1/admin/status" | grep -q '"pendingFires":0' && break
    sleep 1
  done
}

# run BIN COUNT KIND OUT: total instructions of the daemon answering COUNT requests of KIND (one of the kinds above).
run() {
  local bin=$1 count=$2 kind=$3 out=$4 dir port pid
  dir=$(mktemp -d "$WORK/run.XXXX")
  # Deterministic hashing: with a random seed per process, which keys collide in a dictionary differed from run
  # to run, and one lookup's count by a couple of hundred instructions. The allocator count `serve` would set by
  # executing itself again (README, "The allocator") is set here instead: valgrind does not follow that exec.
  # No idle polling: its instructions would count how long the client took between requests. Set through the
  # environment, which a binary from before `--idle-poll` ignores, where it would refuse the flag.
  SPECD_IDLE_POLL=0 SWIFT_DETERMINISTIC_HASHING=1 GLIBC_TUNABLES=glibc.malloc.tcache_count=128 "${PIN[@]}" valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" serve --port 0 \
    --port-file "$dir/port" --data-dir "$dir/data" --log-level warn --loops 1 --fsync "$FSYNC" >/dev/null 2>"$dir/err" &
  pid=$!
  for _ in $(seq 600); do [ -s "$dir/port" ] && break; sleep 0.1; done
  [ -s "$dir/port" ] || {
    echo "specd did not start under valgrind" >&2
    cat "$dir/err" >&2
    exit 1
  }
  port=$(cat "$dir/port")
  if [ "$kind" = steady ] || [ "$kind" = parallel ]; then
    # Both runs alike: four donations per user (the trigger qualifies at the third), then its one fire each.
    for _ in 1 2 3 4; do
      curl -s -o /dev/null -H "X-App-Version: 1.2" -X POST "http://127.0.0.1:$port/v1/users/s[1-$((N / 10))]/events/appStarted"
    done
    wait_fires "$port"
  fi
  if [ "$count" -gt 0 ]; then
    case $kind in
      get) curl -s -o /dev/null "http://127.0.0.1:$port/v1/users/u[1-$count]/flags/promo-banner" ;;
      reread)
        for _ in $(seq 10); do curl -s -o /dev/null "http://127.0.0.1:$port/v1/users/u[1-$((count / 10))]/flags/promo-banner"; done
        ;;
      donate) curl -s -o /dev/null -X POST "http://127.0.0.1:$port/v1/users/d[1-$count]/events/appStarted" ;;
      steady)
        for _ in $(seq 10); do
          curl -s -o /dev/null -H "X-App-Version: 1.2" -X POST "http://127.0.0.1:$port/v1/users/s[1-$((count / 10))]/events/appStarted"
        done
        ;;
      parallel)
        for _ in $(seq 10); do
          curl -Z --parallel-max 16 -s --no-progress-meter -o /dev/null -H "X-App-Version: 1.2" -X POST \
            "http://127.0.0.1:$port/v1/users/s[1-$((count / 10))]/events/appStarted"
        done
        ;;
      repeat)
        for _ in $(seq 10); do
          curl -s -o /dev/null -H "X-App-Version: 1.2" -X POST "http://127.0.0.1:$port/v1/users/r[1-$((count / 10))]/events/appStarted"
        done
        ;;
    esac
  fi
  # The repeat donations schedule delayed fires (5 s in the example rules); each is a write of its own. Whether
  # it ran before the shutdown depended on timing, which moved a run's count by up to a tenth: every run waits
  # until none is pending, and asks the same one status request, so every fire is counted, every time.
  wait_fires "$port"
  kill -TERM "$pid"
  wait "$pid" || true
}

# totals OUT -> "instructions mallocs swift_allocObjects": the summary line and the calls made to each allocator,
# summed over every caller (callgrind names a function once, then refers to it by its number).
totals() {
  awk '
    /^summary:/ { ir = $2 }
    /^c?fn=\(/ {
      match($0, /\([0-9]+\)/); id = substr($0, RSTART, RLENGTH)
      rest = substr($0, RSTART + RLENGTH); sub(/^ /, "", rest)
      if (rest != "") name[id] = rest
      if ($0 ~ /^cfn=/) callee = name[id]
    }
    /^calls=/ {
      split(substr($0, 7), parts, " ")
      if (callee == "malloc") mallocs += parts[1]
      if (callee == "swift_allocObject") objects += parts[1]
    }
    END { printf "%d %d %d\n", ir, mallocs, objects }' "$1"
}

# measure BIN KIND -> "instructions/request mallocs/request objects/request"
measure() {
  local bin=$1 kind=$2 zero full
  run "$bin" 0 "$kind" "$WORK/zero.out"
  run "$bin" "$N" "$kind" "$WORK/full.out"
  zero=$(totals "$WORK/zero.out")
  full=$(totals "$WORK/full.out")
  awk -v z="$zero" -v f="$full" -v n="$N" 'BEGIN {
    split(z, a, " "); split(f, b, " ")
    printf "%.0f %.1f %.1f\n", (b[1] - a[1]) / n, (b[2] - a[2]) / n, (b[3] - a[3]) / n }'
}

kinds=(get reread)
[ "$DONATIONS" = 0 ] || kinds+=(donate repeat steady)
# KINDS="repeat donate" measures those alone.
[ -z "${KINDS:-}" ] || read -r -a kinds <<<"$KINDS"
printf '%-8s %-7s %14s %12s %14s\n' binary request instructions mallocs allocObjects
declare -A per
for kind in "${kinds[@]}"; do
  label=A
  for bin in "$@"; do
    read -r ir mallocs objects <<<"$(measure "$bin" "$kind")"
    per[$label.$kind]=$ir
    printf '%-8s %-7s %14s %12s %14s\n' "$label" "$kind" "$ir" "$mallocs" "$objects"
    label=B
  done
  if [ $# -ge 2 ]; then printf '%-8s %-7s %14s\n' "B/A" "$kind" "$(ratio "${per[B.$kind]}" "${per[A.$kind]}")"; fi
done
