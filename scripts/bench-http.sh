#!/usr/bin/env bash
# HTTP core benchmark: wrk against specd's /healthz (epoll and Dispatch loops) and against nginx returning the same
# body, in the same run, on loopback only. Prints req/s and p99 per server and the ratio to nginx.
#   RUNS=3 DURATION=5 CONNECTIONS="32 256" scripts/bench-http.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-"32 256"}
THREADS=${THREADS:-2}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need wrk || ! need nginx; then
  echo "installing wrk and nginx from apt" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
fi

swift build -c release --product specd >/dev/null
BIN=$(swift build -c release --show-bin-path)/specd
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

start_specd() { # $1 = event loop kind; the port lands in $WORK/$1.port
  "$BIN" serve --port 0 --port-file "$WORK/$1.port" --event-loop "$1" --log-level warn --data-dir "$WORK/data-$1" --fsync never >/dev/null 2>"$WORK/$1.log" &
  PIDS+=($!)
  for _ in $(seq 200); do [ -s "$WORK/$1.port" ] && return 0; sleep 0.05; done
  echo "specd ($1) did not start" >&2; cat "$WORK/$1.log" >&2; exit 1
}

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
    location / { default_type "application/json; charset=utf-8"; return 200 '{"status":"ok"}'; }
  }
}
CONF
nginx -c "$WORK/nginx/nginx.conf" -g 'daemon off;' >/dev/null 2>&1 &
PIDS+=($!)

start_specd epoll
start_specd dispatch
EPOLL_PORT=$(cat "$WORK/epoll.port")
DISPATCH_PORT=$(cat "$WORK/dispatch.port")
sleep 0.5
curl -sf "http://127.0.0.1:$EPOLL_PORT/healthz" >/dev/null
curl -sf "http://127.0.0.1:$DISPATCH_PORT/healthz" >/dev/null
curl -sf "http://127.0.0.1:$NGINX_PORT/healthz" >/dev/null

measure() { # $1 = port, $2 = connections -> "req/s p99_ms"
  local out rps p99
  out=$(timeout $((DURATION + 30)) wrk -t"$THREADS" -c"$2" -d"${DURATION}s" --latency "http://127.0.0.1:$1/healthz")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}' <<<"$out")
  echo "$rps $p99"
}

printf '%-4s %-6s %12s %9s %12s %9s %12s %9s %8s %8s\n' run conns nginx_rps p99_ms epoll_rps p99_ms dispatch_rps p99_ms epoll/ng disp/ep
for run in $(seq "$RUNS"); do
  for c in $CONNECTIONS; do
    read -r n_rps n_p99 <<<"$(measure "$NGINX_PORT" "$c")"
    read -r e_rps e_p99 <<<"$(measure "$EPOLL_PORT" "$c")"
    read -r d_rps d_p99 <<<"$(measure "$DISPATCH_PORT" "$c")"
    printf '%-4s %-6s %12.0f %9.3f %12.0f %9.3f %12.0f %9.3f %8.2f %8.2f\n' "$run" "$c" "$n_rps" "$n_p99" "$e_rps" "$e_p99" "$d_rps" "$d_p99" \
      "$(awk -v a="$e_rps" -v b="$n_rps" 'BEGIN {print a / b}')" "$(awk -v a="$d_rps" -v b="$e_rps" 'BEGIN {print a / b}')"
  done
done
