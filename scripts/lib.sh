# Shared helpers for the scripts: start a daemon or nginx on an ephemeral loopback port, always cleaned up.
# Source it after `set -euo pipefail`; it sets WORK (a temp dir) and an EXIT trap that stops what it started.

WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# CPU pinning, off unless a script calls pin_cores: SERVER_PIN and LOAD_PIN are command prefixes (taskset) that put
# the server under test (specd, or its nginx peer) on SERVER_CPU (0) and the load generator on LOAD_CPU (1), so the
# two never compete for one core and each run gets the same placement. PIN=0, a missing taskset or a single-core
# machine leaves both empty. taskset execs its command, so a pid taken with $! is still the server's.
SERVER_PIN=()
LOAD_PIN=()
pin_cores() {
  if [ "${PIN:-1}" != 0 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc --all)" -ge 2 ]; then
    SERVER_PIN=(taskset -c "${SERVER_CPU:-0}")
    LOAD_PIN=(taskset -c "${LOAD_CPU:-1}")
    echo "pinned: server on CPU ${SERVER_CPU:-0}, load on CPU ${LOAD_CPU:-1}" >&2
  else
    echo "not pinned: server and load share the CPUs" >&2
  fi
}

# settle PID [PORT]: waits (at most 30 s) until the process used under 2 % of a CPU over half a second, and, given
# the daemon's PORT, first until it has no delayed trigger fire pending. A row's load can leave work behind: the
# example rules' `request-review` trigger fires 5 s after each user's third donation, and after a 5 s donation row
# those fires (and their throttle checks) kept a pinned server 11-44 % busy for ~5 s, on the core the next row's
# peer was measured on. A quiet half-second alone was not enough: the first fires come due a second or so after a
# row ends (a user schedules none before its third donation), so the check passed in that gap, and Redis's row
# then shared its core with them. Each row starts once the previous one's server is done.
settle() {
  local pid=$1 port=${2:-} ticks=$(getconf CLK_TCK) before after
  if [ -n "$port" ]; then
    for _ in $(seq 300); do
      curl -sf "http://127.0.0.1:$port/v1/admin/status" | grep -q '"pendingFires":0' && break
      sleep 0.1
    done
  fi
  for _ in $(seq 60); do
    before=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || return 0
    sleep 0.5
    after=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || return 0
    # 2 % of 0.5 s, in clock ticks.
    [ $(((after - before) * 100)) -le $((ticks)) ] && return 0
  done
  echo "settle: process $pid still busy after 30 s" >&2
}

# steal_snapshot -> "steal total": jiffies over all CPUs (/proc/stat) the hypervisor spent on other guests, and
# all jiffies. On a shared virtual machine a figure measured while steal is high says as much about the neighbours
# as about the program, so the benchmarks report it next to their figures.
steal_snapshot() { awk '/^cpu / {t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t}' /proc/stat; }

# steal_percent "SNAPSHOT" -> the percentage of CPU time stolen since that snapshot.
steal_percent() {
  awk -v b="$1" '/^cpu / {
    t = 0; for (i = 2; i <= 9; i++) t += $i
    split(b, x, " "); d = t - x[2]
    printf "%.1f\n", (d > 0 ? ($9 - x[1]) * 100 / d : 0) }' /proc/stat
}

# busy_percent -> the percentage of all CPUs' time, over the next second, that was not idle (nor waiting on a disk).
busy_percent() {
  local before
  before=$(awk '/^cpu / {t = 0; for (i = 2; i <= 9; i++) t += $i; print $5 + $6, t}' /proc/stat)
  sleep 1
  awk -v b="$before" '/^cpu / {
    t = 0; for (i = 2; i <= 9; i++) t += $i
    split(b, x, " "); d = t - x[2]
    printf "%d\n", (d > 0 ? (d - ($5 + $6 - x[1])) * 100 / d : 0) }' /proc/stat
}

# cpu_ticks PID... -> CPU time (user + system, every thread) the processes have used so far, in clock ticks.
cpu_ticks() { for pid in "$@"; do awk '{print $14 + $15}' "/proc/$pid/stat"; done | awk '{t += $1} END {print t + 0}'; }
# user_ticks PIDS...: the user-space part of cpu_ticks (utime alone).
user_ticks() { for pid in "$@"; do awk '{print $14}' "/proc/$pid/stat"; done | awk '{t += $1} END {print t + 0}'; }
# cpu_per_request TICKS_BEFORE TICKS_AFTER REQUESTS -> microseconds of server CPU per request.
cpu_per_request() {
  awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f\n", (n > 0 ? (b - a) * 1e6 / hz / n : 0)}'
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_specd NAME BINARY [ARGS...]: runs `BINARY serve` on port 0 with its own data dir; the port lands in
# $WORK/NAME.port and the log in $WORK/NAME.log; the pid is appended to PIDS.
start_specd() {
  local name=$1 binary=$2
  shift 2
  "${SERVER_PIN[@]}" "$binary" serve --port 0 --port-file "$WORK/$name.port" --data-dir "$WORK/data-$name" "$@" >/dev/null 2>"${SPECD_STDERR:-$WORK/$name.log}" &
  PIDS+=($!)
  for _ in $(seq 200); do [ -s "$WORK/$name.port" ] && return 0; sleep 0.05; done
  echo "specd ($name) did not start" >&2
  cat "$WORK/$name.log" >&2
  exit 1
}

# read_row_body PORT: the body specd answers the read row's request with (bench/wrk/users-get.lua), for nginx to
# return byte for byte: a shorter body would spare nginx's side of the comparison bytes that specd's side sends and
# the load generator reads.
read_row_body() {
  local body=""
  for _ in $(seq 50); do
    body=$(curl -sf -H 'X-App-Version: 1.2' "http://127.0.0.1:$1/v1/users/user-1/flags/promo-banner") && break
    sleep 0.1
  done
  case $body in
    *"'"* | "") echo "read_row_body: no answer, or one nginx's return could not quote: $body" >&2; return 1 ;;
  esac
  echo "$body"
}

# start_nginx PORT BODY: nginx ($NGINX_WORKERS workers, default 2) answering `return 200 BODY` for every path.
start_nginx() {
  mkdir -p "$WORK/nginx"
  cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes ${NGINX_WORKERS:-2};
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000;
  server {
    listen 127.0.0.1:$1;
    location / { default_type "application/json; charset=utf-8"; return 200 '$2'; }
  }
}
CONF
  "${SERVER_PIN[@]}" nginx -c "$WORK/nginx/nginx.conf" -g 'daemon off;' >/dev/null 2>&1 &
  PIDS+=($!)
  sleep 0.3
}

# wrk_measure PORT [LUA] [PATH] -> "req/s p99_ms non2xx" using THREADS, CONNECTIONS (or $3 of measure callers), DURATION.
wrk_measure() {
  local port=$1 script=${2:-} path=${3:-/healthz} connections=${4:-$CONNECTIONS} out
  if [ -n "$script" ]; then
    out=$(timeout $((DURATION + 30)) "${LOAD_PIN[@]}" wrk -t"$THREADS" -c"$connections" -d"${DURATION}s" --latency -s "$script" "http://127.0.0.1:$port")
  else
    out=$(timeout $((DURATION + 30)) "${LOAD_PIN[@]}" wrk -t"$THREADS" -c"$connections" -d"${DURATION}s" --latency "http://127.0.0.1:$port$path")
  fi
  awk '/Requests\/sec/ {rps=$2}
       $1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; p99=v}
       /Non-2xx/ {bad=$NF}
       END {printf "%s %s %s\n", rps, p99, (bad == "" ? 0 : bad)}' <<<"$out"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print a / b}'; }

ensure_wrk_nginx() {
  if ! command -v wrk >/dev/null 2>&1 || ! command -v nginx >/dev/null 2>&1; then
    echo "installing wrk and nginx from apt" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
  fi
}

# cold_start BIN DATA_DIR [THEN] -> "seconds rss_kib": `BIN serve` (pinned like any server here) on a fresh copy of
# DATA_DIR until /readyz answers, then its resident memory — after `THEN PORT` has run, when given (a load that
# touches the users; "failed" instead of the memory when it fails); the daemon is killed after.
cold_start() {
  local bin=$1 data=$2 then=${3:-} port_file started pid seconds kib
  rm -rf "$WORK/cold-run" && cp -r "$data" "$WORK/cold-run"
  port_file="$WORK/cold-run.port"
  rm -f "$port_file"
  started=$(date +%s.%N)
  "${SERVER_PIN[@]}" "$bin" serve --port 0 --port-file "$port_file" --data-dir "$WORK/cold-run" --log-level warn >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 12000); do
    [ -s "$port_file" ] && curl -sf "http://127.0.0.1:$(cat "$port_file")/readyz" >/dev/null 2>&1 && break
    sleep 0.01
  done
  seconds=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN {printf "%.3f", b - a}')
  kib=failed
  if [ -z "$then" ] || "$then" "$(cat "$port_file")" >/dev/null; then kib=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status"); fi
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$seconds $kib"
}
