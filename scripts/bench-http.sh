#!/usr/bin/env bash
# HTTP core benchmark: wrk against specd's /healthz (epoll and Dispatch loops) and against nginx returning the same
# body, in the same run, on loopback only. Prints req/s and p99 per server and the ratios.
#   RUNS=3 DURATION=5 CONNECTIONS="32 256" scripts/bench-http.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-5}
CONNECTIONS_LIST=${CONNECTIONS:-"32 256"}
THREADS=${THREADS:-2}
source scripts/lib.sh
ensure_wrk_nginx

swift build -c release --product specd >/dev/null
BIN=$(swift build -c release --show-bin-path)/specd
NGINX_PORT=$(free_port)
start_nginx "$NGINX_PORT" '{"status":"ok"}'
start_specd epoll "$BIN" --event-loop epoll --log-level warn --fsync never --max-connections-per-client 100000
start_specd dispatch "$BIN" --event-loop dispatch --log-level warn --fsync never --max-connections-per-client 100000
EPOLL_PORT=$(cat "$WORK/epoll.port")
DISPATCH_PORT=$(cat "$WORK/dispatch.port")
for port in "$EPOLL_PORT" "$DISPATCH_PORT" "$NGINX_PORT"; do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; done

printf '%-4s %-6s %12s %9s %12s %9s %12s %9s %8s %8s\n' run conns nginx_rps p99_ms epoll_rps p99_ms dispatch_rps p99_ms epoll/ng disp/ep
for run in $(seq "$RUNS"); do
  for c in $CONNECTIONS_LIST; do
    read -r n_rps n_p99 _ <<<"$(wrk_measure "$NGINX_PORT" "" /healthz "$c")"
    read -r e_rps e_p99 _ <<<"$(wrk_measure "$EPOLL_PORT" "" /healthz "$c")"
    read -r d_rps d_p99 _ <<<"$(wrk_measure "$DISPATCH_PORT" "" /healthz "$c")"
    printf '%-4s %-6s %12.0f %9.3f %12.0f %9.3f %12.0f %9.3f %8.2f %8.2f\n' "$run" "$c" "$n_rps" "$n_p99" "$e_rps" "$e_p99" "$d_rps" "$d_p99" \
      "$(ratio "$e_rps" "$n_rps")" "$(ratio "$d_rps" "$e_rps")"
  done
done
