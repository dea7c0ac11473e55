#!/usr/bin/env bash
# OFREP throughput: wrk POSTing single-flag evaluations (flagd testkit flags, 10 000 targeting keys) to specd,
# with nginx `return 200` of a same-sized body in the same run as the reference.
#   RUNS=3 DURATION=5 CONNECTIONS=32 scripts/bench-ofrep.sh
# The testkit flags come from COMPAT, a checkout of the external OpenFeature flagd-testbed suite (see
# scripts/flagd-testbed.sh); the default is where CI keeps it, next to the repository; set COMPAT to override.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
COMPAT=${COMPAT:-../shared/compat}
source scripts/lib.sh
ensure_wrk_nginx
swift build -c release --product specd >/dev/null
BIN=$(swift build -c release --show-bin-path)/specd
start_specd ofrep "$BIN" --rules "$COMPAT/flagd-testbed/evaluator/flags/testkit-flags.json" --fsync never --log-level warn
SPECD_PORT=$(cat "$WORK/ofrep.port")
NGINX_PORT=$(free_port)
start_nginx "$NGINX_PORT" '{"key":"fractional-flag-shorthand","reason":"TARGETING_MATCH","variant":"heads","value":"heads","metadata":{}}'
curl -sf -X POST "http://127.0.0.1:$SPECD_PORT/ofrep/v1/evaluate/flags/fractional-flag-shorthand" -d '{"context":{"targetingKey":"u"}}' >/dev/null

printf '%-4s %12s %8s %12s %8s %6s %9s\n' run nginx_rps p99_ms ofrep_rps p99_ms bad ofrep/ng
for run in $(seq "$RUNS"); do
  read -r n_rps n_p99 _ <<<"$(wrk_measure "$NGINX_PORT" bench/wrk/ofrep-post.lua)"
  read -r o_rps o_p99 o_bad <<<"$(wrk_measure "$SPECD_PORT" bench/wrk/ofrep-post.lua)"
  printf '%-4s %12.0f %8.3f %12.0f %8.3f %6s %9.2f\n' "$run" "$n_rps" "$n_p99" "$o_rps" "$o_p99" "$o_bad" "$(ratio "$o_rps" "$n_rps")"
done
