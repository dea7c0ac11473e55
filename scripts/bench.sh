#!/usr/bin/env bash
# Every performance goal of specd next to a peer measured in the same run, and one table of ratios at the end.
#
#   row            specd                                              peer (same run, same pinning)
#   read           GET /v1/users/{u}/flags/promo-banner, wrk -c32     nginx `return 200` of the same body (asked of specd), 1 worker
#   write-always   POST /v1/users/{u}/events/appStarted, fsync always Redis INCR, appendfsync always (redis-benchmark -c32)
#   write-never    the same donation, fsync never                     Redis INCR, no append-only file
#   sse-p99        10 000 streams on one user, delivery p99           nginx + nchan, 10 000 EventSource subscribers
#   cold-start     1 M users (snapshot + 100 k records) to /readyz    Redis loading the same users as hashes (RDB)
#   replay         500 000 single-counter log records replayed at a   Redis loading 500 000 INCRs over 32 000 keys from
#                  start, records/s (specd-bench replay, in process)  its append-only file (its log's load time)
#   bytes/user     resident memory per user after that start          Redis resident memory per user after its load
#   bytes/user-read the same once every user has been read (decoded)  the same Redis figure
#   *-cpu          server CPU per request (every thread, user + sys)  the peer's own, in the same read/write runs
#   *-user         the user-space part of that CPU                    the peer's own
#
# The server under test runs on SERVER_CPU (1) and the load generator on LOAD_CPU (0); PIN=0 turns pinning off.
# Medians over ROUNDS. Loopback only; every load loop is bounded in time and count. Peers come from apt.
# The read row runs READ_PAIRS pairs a round (4), the write rows WRITE_PAIRS (2), alternating which side goes
# first; every row's pairs are also given as the median of their own ratios, which a drift of the host between
# pairs moves less than the medians.
# A goal row with 8 pairs or more also gets a 90 % interval for its paired median (resampled from its pairs) and a
# verdict: met or not met when the whole interval is on one side of the goal, undecided when it straddles it, as
# a ratio within the host's noise of the goal does; and the medians of its first and second half of pairs, which
# part when the daemon slows as it stores more. SKIP="write" leaves out the write rows (a long read-only run).
#   ROUNDS=2 DURATION=5 READ_PAIRS=4 WRITE_PAIRS=2 USERS=1000000 [SKIP="write sse cold replay"] [SPECD_BIN=path SPECD_BENCH_BIN=path] [RAW=path] scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-5}
READ_PAIRS=${READ_PAIRS:-4}
WRITE_PAIRS=${WRITE_PAIRS:-2}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=1
USERS=${USERS:-1000000}
TAIL=${TAIL:-100000}
SKIP=${SKIP:-}
export SERVER_CPU=${SERVER_CPU:-1} LOAD_CPU=${LOAD_CPU:-0}
source scripts/lib.sh
ensure_wrk_nginx
if ! command -v redis-server >/dev/null 2>&1; then
  echo "installing redis-server from apt" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null
fi
pin_cores

if [ -n "${SPECD_BIN:-}" ] && [ -n "${SPECD_BENCH_BIN:-}" ]; then
  BIN=$SPECD_BIN
  BENCH=$SPECD_BENCH_BIN
else
  swift build -c release --product specd >/dev/null
  swift build -c release --product specd-bench >/dev/null
  BIN=$(swift build -c release --show-bin-path)/specd
  BENCH=$(swift build -c release --show-bin-path)/specd-bench
fi
RESULTS="$WORK/results"
: >"$RESULTS"
record() { echo "$1 $2 $3" >>"$RESULTS"; } # row side value

# redis PORT DIR [ARGS...]: a pinned redis-server, cleaned up on exit.
start_redis() {
  local port=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  "${SERVER_PIN[@]}" redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --logfile "$dir/redis.log" "$@" >/dev/null &
  PIDS+=($!)
  for _ in $(seq 100); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.1; done
  echo "redis did not start" >&2
  exit 1
}
# start_loading_redis PORT DIR [ARGS...]: a pinned redis-server loading what DIR holds, back once it answers PING (at
# most 120 s); its pid in LOADING_PID, its log in DIR/load.log. The caller shuts it down.
start_loading_redis() {
  local port=$1 dir=$2
  shift 2
  "${SERVER_PIN[@]}" redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --logfile "$dir/load.log" "$@" >/dev/null &
  LOADING_PID=$!
  PIDS+=($LOADING_PID)
  for _ in $(seq 12000); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.01
  done
}
# redis_incr PORT REQUESTS -> requests/s of INCR over 10 000 keys, 32 connections, from the load CPU.
redis_incr() {
  timeout $((DURATION * 4 + 60)) "${LOAD_PIN[@]}" redis-benchmark -p "$1" -t incr -c "$CONNECTIONS" -n "$2" -r 10000 --csv |
    awk -F'","' '/INCR/ {print $2}'
}
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# read_every_user PORT: reads every seeded user once (bench/wrk/users-every.lua) and returns a second after /metrics
# shows none left as a snapshot record; fails if some are left after 180 s (wrk runs out its -d even once its script
# stops).
read_every_user() {
  local port=$1 wrk_pid left=unknown
  USERS=$USERS "${LOAD_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d180s -s bench/wrk/users-every.lua "http://127.0.0.1:$port" >/dev/null &
  wrk_pid=$!
  for _ in $(seq 1800); do
    left=$(curl -sf "http://127.0.0.1:$port/metrics" | awk '$1 == "specd_users_encoded" {print $2 + 0}')
    if [ "$left" = 0 ]; then break; fi
    sleep 0.1
  done
  kill "$wrk_pid" 2>/dev/null || true
  wait "$wrk_pid" 2>/dev/null || true
  if [ "$left" != 0 ]; then
    echo "read_every_user: $left users still unread after 180 s" >&2
    return 1
  fi
  # The last record decoded, the store hands the freed heap pages back on a background thread (about 0.1 s).
  sleep 1
}

echo "== read and write rows ($ROUNDS rounds of ${DURATION}s)" >&2
NGINX_WORKERS=1
NGINX_PORT=$(free_port)
start_specd never "$BIN" --fsync never --log-level warn
NEVER_PID=${PIDS[-1]}
start_nginx "$NGINX_PORT" "$(read_row_body "$(cat "$WORK/never.port")")"
start_specd always "$BIN" --fsync always --log-level warn
ALWAYS_PID=${PIDS[-1]}
NEVER_PORT=$(cat "$WORK/never.port")
ALWAYS_PORT=$(cat "$WORK/always.port")
REDIS_ALWAYS=$(free_port)
REDIS_NONE=$(free_port)
start_redis "$REDIS_ALWAYS" "$WORK/redis-always" --appendonly yes --appendfsync always
start_redis "$REDIS_NONE" "$WORK/redis-none" --appendonly no
# The peers' own processes, whose CPU time per request is recorded beside each rate: nginx's workers, each Redis.
NGINX_WORKER_PIDS=($(pgrep -P "$(cat "$WORK/nginx/nginx.pid")"))
REDIS_ALWAYS_PID=$(redis-cli -p "$REDIS_ALWAYS" info server | awk -F: '/^process_id/ {print $2 + 0}')
REDIS_NONE_PID=$(redis-cli -p "$REDIS_NONE" info server | awk -F: '/^process_id/ {print $2 + 0}')
# measured ROW SIDE PIDS -- COMMAND...: runs COMMAND (wrk_measure, whose "req/s ..." it passes on), and records the
# CPU the PIDS used per request meanwhile as ROW-cpu, and its user-space part as ROW-user. Requests are the rate
# times DURATION (wrk reports the rate over its own run of DURATION seconds).
measured() {
  local row=$1 side=$2 pids=() before after user_before user_after out requests
  shift 2
  while [ "$1" != -- ]; do pids+=("$1"); shift; done
  shift
  before=$(cpu_ticks "${pids[@]}")
  user_before=$(user_ticks "${pids[@]}")
  out=$("$@")
  after=$(cpu_ticks "${pids[@]}")
  user_after=$(user_ticks "${pids[@]}")
  requests=$(awk -v r="${out%% *}" -v d="$DURATION" 'BEGIN {print r * d}')
  record "$row-cpu" "$side" "$(cpu_per_request "$before" "$after" "$requests")"
  record "$row-user" "$side" "$(cpu_per_request "$user_before" "$user_after" "$requests")"
  echo "$out"
}
# redis_measured ROW PID PORT REQUESTS: redis_incr's rate, with Redis's CPU per request recorded as ROW-cpu and its
# user-space part as ROW-user.
redis_measured() {
  local before after user_before user_after rps
  before=$(cpu_ticks "$2")
  user_before=$(user_ticks "$2")
  rps=$(redis_incr "$3" "$4")
  after=$(cpu_ticks "$2")
  user_after=$(user_ticks "$2")
  record "$1-cpu" peer "$(cpu_per_request "$before" "$after" "$4")"
  record "$1-user" peer "$(cpu_per_request "$user_before" "$user_after" "$4")"
  echo "$rps"
}
# read_peer, read_specd: one read run of each side, recorded.
read_peer() {
  local rps p99
  read -r rps p99 _ <<<"$(measured read peer "${NGINX_WORKER_PIDS[@]}" -- wrk_measure "$NGINX_PORT" bench/wrk/users-get.lua)"
  record read peer "$rps"
  record read-p99 peer "$p99"
}
read_specd() {
  local rps p99
  read -r rps p99 bad <<<"$(measured read specd "$NEVER_PID" -- wrk_measure "$NEVER_PORT" bench/wrk/users-get.lua)"
  record read specd "$rps"
  record read-p99 specd "$p99"
  READ_BAD=$((READ_BAD + bad))
}
# write_pairs ROW SPECD_PID SPECD_PORT REDIS_PID REDIS_PORT REDIS_REQUESTS: the write row's WRITE_PAIRS pairs, each
# in the other order than the one before (as the read row's: with specd always first, a host that sped up or slowed
# down over a round counted against one side only), recorded; WRITE_BAD gets the non-2xx answers. A specd run is
# followed by `settle`: its donations schedule delayed trigger fires, which must not run while the next run measures.
write_pairs() {
  local row=$1 pid=$2 port=$3 redis_pid=$4 redis_port=$5 requests=$6 pair side rps bad
  WRITE_BAD=0
  for pair in $(seq "$WRITE_PAIRS"); do
    for side in $([ $((pair % 2)) = 1 ] && echo "specd peer" || echo "peer specd"); do
      if [ "$side" = specd ]; then
        read -r rps _ bad <<<"$(measured "$row" specd "$pid" -- wrk_measure "$port" bench/wrk/users-donate.lua)"
        record "$row" specd "$rps"
        WRITE_BAD=$((WRITE_BAD + bad))
        settle "$pid" "$port"
      else
        record "$row" peer "$(redis_measured "$row" "$redis_pid" "$redis_port" "$requests")"
      fi
    done
  done
}
for round in $(seq "$ROUNDS"); do
  stolen=$(steal_snapshot)
  READ_BAD=0
  # The read row in READ_PAIRS back-to-back pairs a round, each pair in the other order: one 5 s run's p99 moved by
  # up to ×2 between runs on a shared host, and the side that ran first in a pair measured a few percent apart.
  for pair in $(seq "$READ_PAIRS"); do
    if [ $((pair % 2)) = 1 ]; then
      read_peer
      read_specd
    else
      read_specd
      read_peer
    fi
  done
  always_bad=0
  WRITE_BAD=0
  if [[ " $SKIP " != *" write "* ]]; then
    write_pairs write-always "$ALWAYS_PID" "$ALWAYS_PORT" "$REDIS_ALWAYS_PID" "$REDIS_ALWAYS" $((40000 * DURATION))
    always_bad=$WRITE_BAD
    write_pairs write-never "$NEVER_PID" "$NEVER_PORT" "$REDIS_NONE_PID" "$REDIS_NONE" $((100000 * DURATION))
  fi
  record steal "read-write-round-$round" "$(steal_percent "$stolen")"
  echo "round $round: non-2xx answers read $READ_BAD, durable $always_bad, never $WRITE_BAD" >&2
done

if [[ " $SKIP " != *" sse "* ]]; then
  echo "== sse-p99 (10 000 streams on one user)" >&2
  stolen=$(steal_snapshot)
  out=$(SPECD_BIN=$BIN SPECD_BENCH_BIN=$BENCH SUBSCRIBERS=10000 MODES=one ROUNDS=$ROUNDS CHANGES=20 scripts/bench-sse.sh 2>&1 || true)
  echo "$out" | tail -4 >&2
  specd=$(awk '$1 == "one" && $2 == "10000" && $3 == "specd" {print $5}' <<<"$out" | tail -1)
  peer=$(awk '$1 == "one" && $2 == "10000" && $3 == "nchan" {print $5}' <<<"$out" | tail -1)
  [ -n "$specd" ] && record sse-p99 specd "$specd"
  [ -n "$peer" ] && record sse-p99 peer "$peer"
  record steal sse "$(steal_percent "$stolen")"
fi

if [[ " $SKIP " != *" cold "* ]]; then
  echo "== cold start and memory ($USERS users)" >&2
  stolen=$(steal_snapshot)
  "$BENCH" seed-data "$WORK/cold" "$USERS" "$TAIL" >&2
  for round in $(seq "$ROUNDS"); do
    # Each round starts from the same files: a start takes no snapshot, and the copy is fresh.
    read -r seconds kib <<<"$(cold_start "$BIN" "$WORK/cold")"
    record cold-start specd "$seconds"
    record bytes/user specd "$(awk -v k="$kib" -v u="$USERS" 'BEGIN {print k * 1024 / u}')"
  done
  # A recovered user stays as its snapshot record until first touched: once, the same start with every user then read.
  read -r _ kib <<<"$(cold_start "$BIN" "$WORK/cold" read_every_user)"
  if [ "$kib" != failed ]; then record bytes/user-read specd "$(awk -v k="$kib" -v u="$USERS" 'BEGIN {print k * 1024 / u}')"; fi
  # The same users as Redis hashes (the fields a typical context holds), saved as an RDB, then loaded at start.
  RDB_PORT=$(free_port)
  start_redis "$RDB_PORT" "$WORK/redis-rdb" --appendonly no --dbfilename users.rdb
  python3 scripts/redis_users.py "$USERS" | redis-cli -p "$RDB_PORT" --pipe >/dev/null
  redis-cli -p "$RDB_PORT" save >/dev/null
  redis-cli -p "$RDB_PORT" shutdown nosave >/dev/null 2>&1 || true
  sleep 0.5
  for round in $(seq "$ROUNDS"); do
    started=$(date +%s.%N)
    start_loading_redis "$RDB_PORT" "$WORK/redis-rdb" --dbfilename users.rdb --appendonly no
    pid=$LOADING_PID
    record cold-start peer "$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')"
    record bytes/user peer "$(awk -v k="$(rss_kib "$pid")" -v u="$USERS" 'BEGIN {print k * 1024 / u}')"
    if [ "$round" = 1 ]; then record bytes/user-read peer "$(awk -v k="$(rss_kib "$pid")" -v u="$USERS" 'BEGIN {print k * 1024 / u}')"; fi
    redis-cli -p "$RDB_PORT" shutdown nosave >/dev/null 2>&1 || true
    wait "$pid" 2>/dev/null || true
  done
  record steal cold-start "$(steal_percent "$stolen")"
fi

if [[ " $SKIP " != *" replay "* ]]; then
  echo "== replay (500 000 log records)" >&2
  stolen=$(steal_snapshot)
  for round in $(seq "$ROUNDS"); do
    # Three starts on one log each round: the round's value is their median.
    record replay specd "$("${SERVER_PIN[@]}" "$BENCH" replay | awk '/replay:/ {print $(NF - 1)}' | sort -n | sed -n 2p)"
  done
  # The same count of single-counter increments in Redis's append-only file (no RDB preamble, no rewrite), loaded at
  # start; Redis logs how long the load took.
  AOF_PORT=$(free_port)
  AOF_ARGS=(--appendonly yes --appendfsync no --aof-use-rdb-preamble no --auto-aof-rewrite-percentage 0)
  start_redis "$AOF_PORT" "$WORK/redis-aof" "${AOF_ARGS[@]}"
  timeout 300 "${LOAD_PIN[@]}" redis-benchmark -p "$AOF_PORT" -t incr -c "$CONNECTIONS" -n 500000 -r 32000 -q >/dev/null
  redis-cli -p "$AOF_PORT" shutdown >/dev/null 2>&1 || true
  sleep 0.5
  for round in $(seq "$ROUNDS"); do
    : >"$WORK/redis-aof/load.log"
    start_loading_redis "$AOF_PORT" "$WORK/redis-aof" "${AOF_ARGS[@]}"
    pid=$LOADING_PID
    seconds=$(awk '/DB loaded from append only file/ {print $(NF - 1)}' "$WORK/redis-aof/load.log" | tail -1)
    [ -n "$seconds" ] && record replay peer "$(awk -v s="$seconds" 'BEGIN {print 500000 / s}')"
    redis-cli -p "$AOF_PORT" shutdown nosave >/dev/null 2>&1 || true
    wait "$pid" 2>/dev/null || true
  done
  record steal replay "$(steal_percent "$stolen")"
fi

# One table: medians per row and side, the ratio, and the goal it is held to.
# RAW=path keeps every run's figure, in the order run ("row side value" a line), for a look at single runs.
[ -z "${RAW:-}" ] || cp "$RESULTS" "$RAW"
python3 - "$RESULTS" "$ROUNDS" "$READ_PAIRS" "$WRITE_PAIRS" <<'PY'
import random, statistics, sys
values = {}
for line in open(sys.argv[1]):
    row, side, value = line.split()
    try:
        values.setdefault(row, {}).setdefault(side, []).append(float(value))
    except ValueError:
        pass
# row: (unit, peer name, ratio wanted, goal text); ratio is specd/peer, or peer/specd where lower is better.
rows = [
    ("read", "req/s", "nginx return 200, 1 worker", "specd/peer", ">= 0.6"),
    ("read-p99", "ms", "nginx p99", "specd/peer", "<= 1.0"),
    ("write-always", "req/s", "redis INCR appendfsync always", "specd/peer", ">= 1.0"),
    ("write-never", "req/s", "redis INCR, no AOF", "specd/peer", "(report)"),
    # Server CPU (every thread, user + system) per request in the same runs: what the rates above cost, less
    # moved than they are by a stalled neighbour, and what a change to the request path moves first.
    ("read-cpu", "us/req", "nginx worker", "specd/peer", "(report)"),
    ("write-always-cpu", "us/req", "redis, appendfsync always", "specd/peer", "(report)"),
    ("write-never-cpu", "us/req", "redis, no AOF", "specd/peer", "(report)"),
    # The user-space part of each: the code's own instructions. The rest is the kernel's (the loopback TCP stack, the
    # disk), which a change to the request path hardly moves; on a GET it is most of the time, for both servers.
    ("read-user", "us/req", "nginx worker", "specd/peer", "(report)"),
    ("write-always-user", "us/req", "redis, appendfsync always", "specd/peer", "(report)"),
    ("write-never-user", "us/req", "redis, no AOF", "specd/peer", "(report)"),
    ("sse-p99", "ms", "nginx + nchan", "specd/peer", "<= 0.8"),
    ("cold-start", "s", "redis RDB load", "specd/peer", "specd <= 2 s"),
    ("bytes/user", "B", "redis hashes", "specd/peer", "<= 1.0"),
    ("bytes/user-read", "B", "redis hashes", "specd/peer", "<= 1.0"),
    ("replay", "rec/s", "redis AOF load, 500 000 INCRs", "specd/peer", "specd >= 1 M/s"),
]
def spread(xs, unit):
    f = "%.3f" if unit in ("ms", "s") else "%.1f" if unit == "us/req" else "%.0f"
    return (f % min(xs)) + "-" + (f % max(xs)) if len(xs) > 1 else f % xs[0]
print("\nmedians of %s rounds (each round's specd and peer measured back to back; the read row %s pairs a round, the write rows %s)" % (sys.argv[2], sys.argv[3], sys.argv[4]))
# `paired`: the median of the ratios of each pair run back to back (one per round, READ_PAIRS a round for the read
# row, WRITE_PAIRS for the write rows), where `ratio` divides the two sides' medians.
def pair_ratios(sides):
    return [s / p for s, p in zip(sides.get("specd", []), sides.get("peer", [])) if p]
def paired(sides):
    ratios = pair_ratios(sides)
    return statistics.median(ratios) if ratios else float("nan")
print("%-26s %12s %12s %8s %8s  %-30s %-22s %-22s" % ("row", "specd", "peer", "ratio", "paired", "goal", "specd range", "peer range"))
for row, unit, peer, _, goal in rows:
    sides = values.get(row, {})
    if "specd" not in sides or "peer" not in sides:
        continue
    s, p = statistics.median(sides["specd"]), statistics.median(sides["peer"])
    fmt = "%12.3f" if unit in ("ms", "s") else "%12.1f" if unit == "us/req" else "%12.0f"
    print(("%-26s " + fmt + " " + fmt + " %8.2f %8.2f  %-30s %-22s %-22s") % (
        row + " (" + unit + ")", s, p, s / p if p else float("nan"), paired(sides),
        goal + " vs " + peer if goal != "(report)" else "vs " + peer, spread(sides["specd"], unit), spread(sides["peer"], unit)))
# Each pair's own ratio (its specd and peer ran back to back): a disk or a neighbour that stalls one pair moves
# that pair's two sides together more often than it moves the medians apart.
print("\nper-pair ratios (specd/peer, in the order run)")
for row, unit, _, _, _ in rows:
    ratios = pair_ratios(values.get(row, {}))
    if len(ratios) > 1:
        print("%-26s %s   median %.2f" % (row, " ".join("%.2f" % r for r in ratios), statistics.median(ratios)))
# How far the paired median could be from the host's own: the 5th and 95th percentiles of the medians of 2 000
# resamples of the pairs (with replacement, a fixed seed so a rerun of the same figures prints the same interval).
# A goal is called met or not met only when the interval lies wholly on one side of it; a median of 1.03 against
# <= 1.0 whose interval is 0.97-1.08 is undecided, not "not met by 3 %".
def interval(ratios):
    draw = random.Random(20261206)
    medians = sorted(statistics.median(draw.choices(ratios, k=len(ratios))) for _ in range(2000))
    return medians[100], medians[1899]
verdicts = []
for row, unit, _, _, goal in rows:
    ratios = pair_ratios(values.get(row, {}))
    bound = goal.split()
    if len(ratios) < 8 or len(bound) != 2 or bound[0] not in ("<=", ">="):
        continue
    low, high = interval(ratios)
    limit = float(bound[1])
    if bound[0] == "<=":
        verdict = "met" if high <= limit else "not met" if low > limit else "undecided"
    else:
        verdict = "met" if low >= limit else "not met" if high < limit else "undecided"
    # The first half of the pairs against the second: a daemon whose cost grows with what it has stored (a write
    # that copies a user's whole donation history) drifts down over a long run, where the host's noise does not.
    half = len(ratios) // 2
    drift = "first half %.2f, second half %.2f" % (statistics.median(ratios[:half]), statistics.median(ratios[half:]))
    verdicts.append("%-26s paired median %.2f, 90 %% interval %.2f-%.2f over %d pairs (%s), goal %s: %s" % (
        row, statistics.median(ratios), low, high, len(ratios), drift, goal, verdict))
if verdicts:
    print("\nverdicts (goal rows with 8 pairs or more)")
    print("\n".join(verdicts))
# CPU time the hypervisor gave other guests while each part ran: above a few percent, that part's figures measure
# the neighbours too.
stolen = values.get("steal", {})
if stolen:
    print("\nsteal (%% of CPU time taken by the hypervisor): %s" % ", ".join("%s %.1f" % (part, v[0]) for part, v in stolen.items()))
    noisy = [part for part, v in stolen.items() if v[0] > 5]
    if noisy:
        print("warning: steal above 5 %% during %s; rerun those parts on a quieter machine" % ", ".join(noisy))
PY
