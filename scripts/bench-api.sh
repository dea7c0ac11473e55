#!/usr/bin/env bash
# REST API benchmark on loopback: wrk spreading requests over 10 000 users against specd (fsync interval) for
#   GET /v1/users/{u}/flags/promo-banner   and   POST /v1/users/{u}/events/appStarted
# with nginx `return 200` (2 workers) measured in the same run as the reference.
#   RUNS=3 DURATION=5 CONNECTIONS=32 scripts/bench-api.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}

if ! command -v wrk >/dev/null 2>&1 || ! command -v nginx >/dev/null 2>&1; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
fi
swift build -c release --product specd >/dev/null
BIN=$(swift build -c release --show-bin-path)/specd
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

"$BIN" serve --port 0 --port-file "$WORK/port" --data-dir "$WORK/data" --fsync interval --log-level warn >/dev/null 2>"$WORK/log" &
PIDS+=($!)
for _ in $(seq 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
SPECD_PORT=$(cat "$WORK/port")

NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/nginx"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { default_type "application/json; charset=utf-8"; return 200 '{"key":"promo-banner","value":false,"reason":"DEFAULT","matched":false}'; }
  }
}
CONF
nginx -c "$WORK/nginx/nginx.conf" -g 'daemon off;' >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
curl -sf "http://127.0.0.1:$SPECD_PORT/healthz" >/dev/null

measure() { # port, lua script -> "req/s p99_ms non2xx"
  local out
  out=$(timeout $((DURATION + 30)) wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$2" "http://127.0.0.1:$1")
  awk '/Requests\/sec/ {rps=$2}
       $1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; p99=v}
       /Non-2xx/ {bad=$NF}
       END {printf "%s %s %s\n", rps, p99, (bad == "" ? 0 : bad)}' <<<"$out"
}

printf '%-4s %12s %8s %12s %8s %6s %12s %8s %6s %9s %9s\n' run nginx_rps p99_ms eval_rps p99_ms bad donate_rps p99_ms bad eval/ng don/ng
for run in $(seq "$RUNS"); do
  read -r n_rps n_p99 _ <<<"$(measure "$NGINX_PORT" bench/wrk/users-get.lua)"
  read -r e_rps e_p99 e_bad <<<"$(measure "$SPECD_PORT" bench/wrk/users-get.lua)"
  read -r d_rps d_p99 d_bad <<<"$(measure "$SPECD_PORT" bench/wrk/users-donate.lua)"
  printf '%-4s %12.0f %8.3f %12.0f %8.3f %6s %12.0f %8.3f %6s %9.2f %9.2f\n' "$run" "$n_rps" "$n_p99" "$e_rps" "$e_p99" "$e_bad" "$d_rps" "$d_p99" "$d_bad" \
    "$(awk -v a="$e_rps" -v b="$n_rps" 'BEGIN {print a / b}')" "$(awk -v a="$d_rps" -v b="$n_rps" 'BEGIN {print a / b}')"
done
