#!/usr/bin/env bash
# REST API benchmark on loopback: wrk spreading requests over 10 000 users against specd (fsync interval) for
#   GET /v1/users/{u}/flags/promo-banner   and   POST /v1/users/{u}/events/appStarted
# with nginx `return 200` (2 workers) measured in the same run as the reference.
# specd and nginx run pinned to CPU 0, wrk to CPU 1 (PIN=0 to turn it off; SERVER_CPU / LOAD_CPU to move them).
# SPECD_BIN names a prebuilt specd to measure instead of building this checkout (to compare two builds in one run).
#   RUNS=3 DURATION=5 CONNECTIONS=32 [FSYNC=interval] [SPECD_BIN=path] scripts/bench-api.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
source scripts/lib.sh
ensure_wrk_nginx

pin_cores

if [ -n "${SPECD_BIN:-}" ]; then
  BIN=$SPECD_BIN
else
  swift build -c release --product specd >/dev/null
  BIN=$(swift build -c release --show-bin-path)/specd
fi
start_specd api "$BIN" --fsync ${FSYNC:-interval} --log-level warn
SPECD_PORT=$(cat "$WORK/api.port")
SPECD_PID=${PIDS[-1]}
NGINX_PORT=$(free_port)
curl -sf "http://127.0.0.1:$SPECD_PORT/healthz" >/dev/null
start_nginx "$NGINX_PORT" "$(read_row_body "$SPECD_PORT")"

printf '%-4s %12s %8s %12s %8s %6s %12s %8s %6s %9s %9s\n' run nginx_rps p99_ms eval_rps p99_ms bad donate_rps p99_ms bad eval/ng don/ng
for run in $(seq "$RUNS"); do
  read -r n_rps n_p99 _ <<<"$(wrk_measure "$NGINX_PORT" bench/wrk/users-get.lua)"
  read -r e_rps e_p99 e_bad <<<"$(wrk_measure "$SPECD_PORT" bench/wrk/users-get.lua)"
  read -r d_rps d_p99 d_bad <<<"$(wrk_measure "$SPECD_PORT" bench/wrk/users-donate.lua)"
  # The donations' delayed trigger fires run on the core the next run's nginx row is measured on: wait them out.
  settle "$SPECD_PID" "$SPECD_PORT"
  printf '%-4s %12.0f %8.3f %12.0f %8.3f %6s %12.0f %8.3f %6s %9.2f %9.2f\n' "$run" "$n_rps" "$n_p99" "$e_rps" "$e_p99" "$e_bad" "$d_rps" "$d_p99" "$d_bad" \
    "$(ratio "$e_rps" "$n_rps")" "$(ratio "$d_rps" "$n_rps")"
done
